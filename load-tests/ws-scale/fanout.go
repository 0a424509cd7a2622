package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// The fan-out: once every socket is open the tool asks the server's publisher
// (-publisher, POST {"users","rate","seconds"}) for `rate` events a second spread
// round-robin over the users for `seconds`; every event carries its publish time in µs
// and every socket of its user should receive it. The readers record publish → receive
// latency in a histogram; what never arrives is lost.

const (
	bucketWidth = 10 * time.Microsecond
	buckets     = 200_000 // 2 s; slower events fall in the last bucket, max is kept aside
)

// latencies: a lock-free histogram the socket readers all write to.
type latencies struct {
	since   int64 // µs since the epoch; events stamped before it are not this run's
	counts  []atomic.Int64
	total   atomic.Int64
	slowest atomic.Int64 // µs
}

func newLatencies(since time.Time) *latencies {
	return &latencies{since: since.UnixMicro(), counts: make([]atomic.Int64, buckets)}
}

func (l *latencies) record(stamps []int64, now time.Time) {
	at := now.UnixMicro()
	for _, stamp := range stamps {
		if stamp < l.since {
			continue
		}
		micros := max(at-stamp, 0)
		l.counts[min(int(micros/bucketWidth.Microseconds()), buckets-1)].Add(1)
		l.total.Add(1)
		for {
			slowest := l.slowest.Load()
			if micros <= slowest || l.slowest.CompareAndSwap(slowest, micros) {
				break
			}
		}
	}
}

// percentile p (0-100) of what was recorded, to the bucket's upper edge.
func (l *latencies) percentile(p float64) time.Duration {
	total := l.total.Load()
	if total == 0 {
		return 0
	}
	want := int64(p / 100 * float64(total))
	var seen int64
	for i := range l.counts {
		seen += l.counts[i].Load()
		if seen >= max(want, 1) {
			if i == buckets-1 {
				return time.Duration(l.slowest.Load()) * time.Microsecond
			}
			return time.Duration(i+1) * bucketWidth
		}
	}
	return time.Duration(l.slowest.Load()) * time.Microsecond
}

// publish asks the publisher for the fan-out and waits for it to finish: how many events
// it published.
func publish(publisher string, users []string, rate int, duration time.Duration) int64 {
	body, _ := json.Marshal(map[string]any{"users": users, "rate": rate, "seconds": duration.Seconds()})
	client := http.Client{Timeout: duration + time.Minute}
	response, err := client.Post(publisher, "application/json", bytes.NewReader(body))
	if err != nil {
		fail("publisher: %v", err)
	}
	defer response.Body.Close()
	var answer struct {
		Published int64 `json:"published"`
		Failed    int64 `json:"failed"`
	}
	if response.StatusCode != 200 || json.NewDecoder(response.Body).Decode(&answer) != nil {
		fail("publisher: HTTP %d", response.StatusCode)
	}
	if answer.Failed > 0 {
		fmt.Printf("the publisher failed to publish %d events\n", answer.Failed)
	}
	return answer.Published
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
