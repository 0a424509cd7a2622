package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// amoraTarget: Amora's socket. Users are made through the operator API and signed in with
// the password login (signedInUser); a socket opens with the user's voucher and is ready
// at `hello`, which names the user the server's bus addresses.
type amoraTarget struct {
	base       string
	adminToken string
	vouchers   []string
}

func (a *amoraTarget) prepare(users int) {
	if a.adminToken == "" {
		fail("-admin-token (or ADMIN_TOKEN) is needed to make the users")
	}
	started := time.Now()
	a.vouchers = make([]string, users)
	// Password sign-in is Argon2id, about 30 a second here: in parallel, and each user
	// then holds -per-user sockets.
	parallel(users, 8, func(n int) {
		a.vouchers[n] = signedInUser(a.base, a.adminToken, n)
	})
	fmt.Printf("signed in %d users in %.1fs\n", users, time.Since(started).Seconds())
}

func (a *amoraTarget) socketURL(base string, u int) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/lust/api/ws?voucher=" + url.QueryEscape(a.vouchers[u])
}

func (a *amoraTarget) greet(conn *websocket.Conn, _ int) (string, error) {
	var hello struct {
		Event string `json:"event"`
		Data  struct {
			UserID string `json:"userId"`
		} `json:"data"`
	}
	if err := conn.ReadJSON(&hello); err != nil || hello.Event != "hello" {
		return "", fmt.Errorf("no hello: %v %q", err, hello.Event)
	}
	return hello.Data.UserID, nil
}

// receive: one event a frame; the server's pings are WebSocket pings, which gorilla's
// default handler answers.
func (a *amoraTarget) receive(frame []byte) ([]int64, []byte) {
	return stampsIn(frame), nil
}
