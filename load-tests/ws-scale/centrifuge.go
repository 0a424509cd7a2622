package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gorilla/websocket"
)

// centrifugeTarget: the peer server on the centrifuge library (load-tests/peers/centrifuge)
// with its JSON protocol. A socket sends a connect command naming its user, which the
// server takes as it is and subscribes to the user's channel; it is ready at the reply.
type centrifugeTarget struct {
	run string // makes user names unique to this run, as Amora's fresh users are
}

func (c *centrifugeTarget) prepare(int) { c.run = strings.ToLower(randomText(6)) }

func (c *centrifugeTarget) socketURL(base string, _ int) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/connection/websocket"
}

func (c *centrifugeTarget) greet(conn *websocket.Conn, u int) (string, error) {
	user := fmt.Sprintf("scale-%s-%d", c.run, u)
	connect, _ := json.Marshal(map[string]any{"id": 1, "connect": map[string]any{"data": map[string]string{"user": user}}})
	if err := conn.WriteMessage(websocket.TextMessage, connect); err != nil {
		return "", err
	}
	for {
		_, frame, err := conn.ReadMessage()
		if err != nil {
			return "", fmt.Errorf("no connect reply: %v", err)
		}
		// A frame may carry several replies, one a line.
		for _, line := range bytes.Split(frame, []byte("\n")) {
			var reply struct {
				ID      int             `json:"id"`
				Error   json.RawMessage `json:"error"`
				Connect json.RawMessage `json:"connect"`
			}
			if json.Unmarshal(line, &reply) != nil || reply.ID != 1 {
				continue
			}
			if reply.Connect == nil {
				return "", fmt.Errorf("connect refused: %s", reply.Error)
			}
			return user, nil
		}
	}
}

// receive: pushes carry the events; an empty `{}` is the server's ping (the protocol's,
// not WebSocket's), answered with `{}` or the server closes the socket.
func (c *centrifugeTarget) receive(frame []byte) ([]int64, []byte) {
	var pong []byte
	for _, line := range bytes.Split(frame, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == "{}" {
			pong = []byte("{}")
		}
	}
	return stampsIn(frame), pong
}
