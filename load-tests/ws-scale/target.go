package main

import (
	"bytes"

	"github.com/gorilla/websocket"
)

// target: what differs between the servers ws-scale drives (amora.go, centrifuge.go).
// Dialing, holding, the fan-out and every measurement are shared (scale.go, fanout.go),
// so both servers are measured by the same code.
type target interface {
	// prepare readies `users` users to hold sockets (Amora's are made and signed in).
	prepare(users int)
	// socketURL: where user u's sockets connect on the node at base (http://host:port).
	socketURL(base string, u int) string
	// greet runs after the upgrade until the server says the socket is ready, and returns
	// the name the publisher addresses the user by.
	greet(conn *websocket.Conn, u int) (string, error)
	// receive reads one frame from the server: the publish times (µs) of the events in it,
	// and a frame to answer with (nil for none).
	receive(frame []byte) (stamps []int64, answer []byte)
}

// stampsIn: the `coin` of every `tokenCount` event in a frame, which the benchmark's
// publishers set to the publish time in µs. Both servers put the same event body on the
// wire (centrifuge inside its push envelope), so this scan costs the client the same for
// both, and far less than decoding JSON 40,000 times a second on the cores the servers use.
func stampsIn(frame []byte) []int64 {
	if !bytes.Contains(frame, []byte(`"tokenCount"`)) {
		return nil
	}
	var stamps []int64
	key := []byte(`"coin":`)
	for {
		at := bytes.Index(frame, key)
		if at < 0 {
			return stamps
		}
		frame = frame[at+len(key):]
		var value int64
		digits := 0
		for digits < len(frame) && frame[digits] >= '0' && frame[digits] <= '9' {
			value = value*10 + int64(frame[digits]-'0')
			digits++
		}
		if digits > 0 {
			stamps = append(stamps, value)
		}
	}
}
