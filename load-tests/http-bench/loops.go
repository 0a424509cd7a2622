package main

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

type summary struct {
	Target      string  `json:"target"`
	Mode        string  `json:"mode"`
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate,omitempty"`
	Requests    int64   `json:"requests"`
	Failed      int64   `json:"failed"`
	Seconds     float64 `json:"seconds"`
	RPS         float64 `json:"rps"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	MaxMs       float64 `json:"max_ms"`
}

// closedLoop: every connection sends, waits for the answer, sends again, until the end.
func (r *runner) closedLoop(d time.Duration) summary {
	var done atomic.Int64
	latencies := make([][]time.Duration, r.o.connections)
	end := time.Now().Add(d)
	start := time.Now()
	var group sync.WaitGroup
	for w := range latencies {
		group.Add(1)
		go func() {
			defer group.Done()
			for time.Now().Before(end) {
				sent := time.Now()
				r.do()
				latencies[w] = append(latencies[w], time.Since(sent))
				done.Add(1)
			}
		}()
	}
	group.Wait()
	return r.summarise(latencies, done.Load(), time.Since(start))
}

// openLoop: request i is due at start + i/rate, whatever happened to the ones before it.
// A dispatcher hands due times out at their time; workers (one per connection) send them
// and count latency from the due time, so time spent queued behind a slow answer counts.
func (r *runner) openLoop(d time.Duration, rate float64) summary {
	total := int(rate * d.Seconds())
	due := make(chan time.Time, total)
	latencies := make([][]time.Duration, r.o.connections)
	start := time.Now()
	var group sync.WaitGroup
	for w := range latencies {
		group.Add(1)
		go func() {
			defer group.Done()
			for at := range due {
				r.do()
				latencies[w] = append(latencies[w], time.Since(at))
			}
		}()
	}
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; i < total; i++ {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		due <- at
	}
	close(due)
	group.Wait()
	result := r.summarise(latencies, int64(total), time.Since(start))
	result.Rate = rate
	return result
}

func (r *runner) summarise(perWorker [][]time.Duration, requests int64, took time.Duration) summary {
	var all []time.Duration
	for _, l := range perWorker {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return summary{
		Requests: requests,
		Failed:   r.failed.Load(),
		Seconds:  took.Seconds(),
		RPS:      float64(requests) / took.Seconds(),
		P50ms:    percentile(all, 50),
		P99ms:    percentile(all, 99),
		MaxMs:    percentile(all, 100),
	}
}

// percentile p of sorted latencies, in milliseconds (nearest rank).
func percentile(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	index := (p*len(sorted) + 99) / 100
	if index > 0 {
		index--
	}
	return float64(sorted[index].Microseconds()) / 1000
}
