package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/centrifugal/centrifuge"
)

// fanoutRequest: what ws-scale asks the publisher for; Amora's fanout_server example takes
// the same body.
type fanoutRequest struct {
	Users   []string `json:"users"`
	Rate    int      `json:"rate"`
	Seconds float64  `json:"seconds"`
}

// serveFanout publishes Rate events a second over the users, round-robin, for Seconds,
// then answers how many it published and how many failed.
func serveFanout(node *centrifuge.Node, w http.ResponseWriter, r *http.Request) {
	var request fanoutRequest
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&request) != nil ||
		len(request.Users) == 0 || request.Rate <= 0 || request.Seconds <= 0 {
		http.Error(w, `POST {"users":[…],"rate":N,"seconds":S}`, http.StatusBadRequest)
		return
	}
	published, failed := 0, 0
	total := int(float64(request.Rate) * request.Seconds)
	start := time.Now()
	// Paced by the clock rather than a ticker per event: a timer cannot fire every 200 µs,
	// so each millisecond publishes whatever the rate says is due by now.
	for published+failed < total {
		due := min(total, int(time.Since(start).Seconds()*float64(request.Rate))+1)
		for published+failed < due {
			user := request.Users[(published+failed)%len(request.Users)]
			if _, err := node.Publish(personalChannel(user), event(time.Now())); err != nil {
				failed++
			} else {
				published++
			}
		}
		time.Sleep(time.Millisecond)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"published":%d,"failed":%d}`, published, failed)
}

// event: the same body as Amora's `tokenCount`, whose `coin` carries the publish time in
// µs since the epoch, so both servers put the same bytes on the wire.
func event(at time.Time) []byte {
	return []byte(`{"event":"tokenCount","data":{"coin":` + strconv.FormatInt(at.UnixMicro(), 10) + `}}`)
}
