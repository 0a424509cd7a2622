// http-bench: the HTTP load generator of issue 19's encrypted-API rows. It drives our
// encrypted `getCharacterList` and the plain actix-web peer (server/examples/plain_cards.rs)
// with the same code, in one of two loops:
//
//   - saturate: a closed loop, -connections connections each sending its next request as
//     soon as the last answer is in, for -duration: requests/s at saturation;
//   - rate: an open loop at -rate requests/s for -duration. Every request has a due time
//     (start + i/rate) and its latency is counted from that due time, not from when a
//     connection was free to send it, so a stalled server shows in the percentiles instead
//     of silently slowing the generator down (no coordinated omission).
//
// Every answer is checked: ours is decrypted with the key its request was sealed with and
// must be code 200 with -cards cards; the peer's plain JSON likewise. Any failure fails the
// run (exit 1). The generator keeps to GOMAXPROCS=1 by default and few connections, so that
// it takes at most one core from the server it measures; the check is a count of
// "characterId" keys (cheap), with the first -full-checks answers parsed in full.
//
//	http-bench -target ours -base http://127.0.0.1:PORT -admin-token … -mode saturate
//	http-bench -target peer -base http://127.0.0.1:PORT -mode rate -rate 800
//
// The last line of output is one JSON object (the script reads it).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"amora/load-tests/amoraapi"

	"github.com/valyala/fasthttp"
)

type options struct {
	target      string
	base        string
	adminToken  string
	mode        string
	connections int
	duration    time.Duration
	warmup      time.Duration
	rate        float64
	bodies      int
	cards       int
	fullChecks  int64
}

func main() {
	var o options
	flag.StringVar(&o.target, "target", "ours", "ours (the encrypted getCharacterList) or peer (plain_cards' /cards)")
	flag.StringVar(&o.base, "base", os.Getenv("BASE_URL"), "the server, http://127.0.0.1:PORT (loopback only)")
	flag.StringVar(&o.adminToken, "admin-token", os.Getenv("ADMIN_TOKEN"), "ours: the server's admin.token, to make the user")
	flag.StringVar(&o.mode, "mode", "saturate", "saturate (closed loop) or rate (open loop at -rate)")
	flag.IntVar(&o.connections, "connections", 8, "connections (saturate: each one request at a time)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long the measured loop runs")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "a closed loop before the measured one, not counted")
	flag.Float64Var(&o.rate, "rate", 0, "rate mode: requests per second")
	flag.IntVar(&o.bodies, "bodies", 64, "ours: sealed request bodies, each under its own secret key, sent in turn")
	flag.IntVar(&o.cards, "cards", 30, "cards every answer must hold")
	flag.Int64Var(&o.fullChecks, "full-checks", 200, "answers parsed in full (the rest: the cards counted)")
	procs := flag.Int("gomaxprocs", 1, "CPUs the generator may use")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	if !strings.HasPrefix(o.base, "http://127.0.0.1:") && !strings.HasPrefix(o.base, "http://localhost:") {
		fail("-base must be a loopback address (http://127.0.0.1:PORT), not %q", o.base)
	}
	if o.mode == "rate" && o.rate <= 0 {
		fail("-mode rate needs -rate > 0")
	}

	calls, err := prepare(&o)
	if err != nil {
		fail("%v", err)
	}
	client := &fasthttp.HostClient{
		Addr:                strings.TrimPrefix(o.base, "http://"),
		MaxConns:            o.connections,
		MaxIdleConnDuration: time.Minute,
		ReadTimeout:         30 * time.Second,
		WriteTimeout:        30 * time.Second,
		// A full pool waits for a free connection instead of failing the request: in the
		// open loop that wait is part of the latency, counted from the due time.
		MaxConnWaitTimeout: 30 * time.Second,
	}
	run := &runner{o: &o, client: client, calls: calls}
	if o.warmup > 0 {
		run.closedLoop(o.warmup)
		run.reset()
	}
	var result summary
	switch o.mode {
	case "saturate":
		result = run.closedLoop(o.duration)
	case "rate":
		result = run.openLoop(o.duration, o.rate)
	default:
		fail("-mode must be saturate or rate, not %q", o.mode)
	}
	result.Target, result.Mode, result.Connections = o.target, o.mode, o.connections
	fmt.Fprintf(os.Stderr, "%s %s: %d requests in %.1fs, %d failed: %.0f requests/s, p50 %.2f ms, p99 %.2f ms\n",
		o.target, o.mode, result.Requests, result.Seconds, result.Failed, result.RPS, result.P50ms, result.P99ms)
	line, _ := json.Marshal(result)
	fmt.Println(string(line))
	if result.Failed > 0 || result.Requests == 0 {
		os.Exit(1)
	}
}

// call: one prepared request and how to check its answer.
type call struct {
	uri      string
	headers  map[string]string
	body     []byte
	envelope *amoraapi.Envelope // ours: the key the body was sealed with, to open the answer
}

// prepare signs a user in (ours) and builds the requests sent in turn. The API has no nonce
// or timestamp in the envelope (API.md §1.1: a key, a random IV, nothing else) and the
// server keeps no memory of bodies it has seen, so a sealed body may be sent again, as a
// browser resending its page request would; 64 bodies under 64 keys stand for 64 browsers.
func prepare(o *options) ([]call, error) {
	if o.target == "peer" {
		return []call{{uri: o.base + "/cards"}}, nil
	}
	if o.target != "ours" {
		return nil, fmt.Errorf("-target must be ours or peer, not %q", o.target)
	}
	if o.adminToken == "" {
		return nil, errors.New("-admin-token (or ADMIN_TOKEN) is needed to make the user")
	}
	voucher, err := amoraapi.SignedInUser(o.base, o.adminToken, "http-bench", 0)
	if err != nil {
		return nil, err
	}
	page := map[string]int{"pageNo": 1, "pageSize": o.cards, "gender": 0}
	calls := make([]call, o.bodies)
	for n := range calls {
		envelope, err := amoraapi.NewEnvelope()
		if err != nil {
			return nil, err
		}
		body, err := envelope.SealedBody(page)
		if err != nil {
			return nil, err
		}
		headers := map[string]string{amoraapi.SecretKeyHeader: envelope.SecretKey, "voucher": voucher}
		for name, value := range amoraapi.BrowserHeaders {
			headers[name] = value
		}
		calls[n] = call{
			uri:      o.base + "/lust/api/user/v1/character/getCharacterList",
			headers:  headers,
			body:     body,
			envelope: &envelope,
		}
	}
	return calls, nil
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "http-bench: "+format+"\n", args...)
	os.Exit(2)
}
