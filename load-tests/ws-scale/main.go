// ws-scale: the WebSocket connection-scale tool. k6 runs a JavaScript runtime per virtual
// user, which caps it at a few thousand sockets on a small machine; this opens tens of
// thousands of signed-in sockets from one process (a goroutine each), holds them through
// the server's heartbeats, and reports how many opened, how many the server dropped, the
// time to `hello`, and, given the server's pid, its memory per socket.
//
//	scripts/load-test scale -sockets 15000 -hold 60s
//	ws-scale -base http://127.0.0.1:8080 -admin-token … -sockets 5000 [-server-pid N]
//	ws-scale -target centrifuge -base http://127.0.0.1:8000 -sockets 5000 [-server-pid N]
//	ws-scale … -publisher http://127.0.0.1:P/fanout -fanout-rate 5000 -fanout-for 10s
//
// -target picks the server: Amora, or its peer on the centrifuge library
// (load-tests/peers/centrifuge); only greeting and reading the protocol differ (amora.go,
// centrifuge.go), dialing, holding and measuring are one code path (scale.go). With
// -fanout-rate, once the sockets are open the server's publisher sends events to the users
// and the tool reports publish → receive latency and lost events (fanout.go); scripts/
// bench-sockets runs both servers that way.
//
// Amora's users are made through the operator API and signed in with the password login,
// through the encrypted envelope (API.md §1.1); a user holds at most -per-user sockets (the
// server's realtime.max_sockets_per_user).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"amora/load-tests/amoraapi"
)

func main() {
	targetName := flag.String("target", "amora", "the server: amora, or centrifuge (load-tests/peers/centrifuge)")
	base := flag.String("base", os.Getenv("BASE_URL"), "the server, http://127.0.0.1:PORT (loopback only); several, comma-separated, are nodes of one cluster: sockets go round-robin over them")
	adminToken := flag.String("admin-token", os.Getenv("ADMIN_TOKEN"), "Amora's admin.token, to make the users")
	sockets := flag.Int("sockets", 1000, "sockets to open")
	perUser := flag.Int("per-user", 8, "sockets per user (realtime.max_sockets_per_user)")
	rate := flag.Int("rate", 2000, "sockets opened per second, at most")
	hold := flag.Duration("hold", 30*time.Second, "idle run: how long every socket stays open once all are")
	settle := flag.Duration("settle", 10*time.Second, "wait this long after the last socket opens before reading the server's memory")
	serverPid := flag.Int("server-pid", 0, "the server's pid, to report its memory per socket")
	publisher := flag.String("publisher", "", "fan-out: the server's publisher, http://127.0.0.1:PORT/fanout")
	fanoutRate := flag.Int("fanout-rate", 0, "fan-out: events a second over all users (0: an idle run)")
	fanoutFor := flag.Duration("fanout-for", 10*time.Second, "fan-out: how long the publisher publishes")
	fanoutGrace := flag.Duration("fanout-grace", 5*time.Second, "fan-out: how long to wait for late events once publishing ends")
	flag.Parse()

	o := options{
		sockets: *sockets, perUser: max(*perUser, 1), rate: *rate, hold: *hold, settle: *settle, serverPid: *serverPid,
		publisher: *publisher, fanoutRate: *fanoutRate, fanoutFor: *fanoutFor, fanoutGrace: *fanoutGrace,
	}
	for _, node := range strings.Split(*base, ",") {
		if !strings.HasPrefix(node, "http://127.0.0.1:") && !strings.HasPrefix(node, "http://localhost:") {
			fail("-base must be loopback addresses (http://127.0.0.1:PORT), not %q", node)
		}
		o.nodes = append(o.nodes, node)
	}
	if o.fanoutRate > 0 && o.publisher == "" {
		fail("-fanout-rate needs -publisher")
	}
	var t target
	switch *targetName {
	case "amora":
		t = &amoraTarget{base: o.nodes[0], adminToken: *adminToken}
	case "centrifuge":
		t = &centrifugeTarget{}
	default:
		fail("-target must be amora or centrifuge, not %q", *targetName)
	}
	run(t, o)
}

// signedInUser makes user n through the operator API and signs them in (amoraapi, shared
// with http-bench): their voucher. A failed sign-in fails the run.
func signedInUser(base, adminToken string, n int) string {
	voucher, err := amoraapi.SignedInUser(base, adminToken, "scale", n)
	if err != nil {
		fail("sign-in of user %d: %v", n, err)
	}
	return voucher
}

// randomText: letters and digits from the system's random source.
func randomText(n int) string {
	text, err := amoraapi.RandomText(n)
	if err != nil {
		fail("random: %v", err)
	}
	return text
}

func parallel(count, workers int, work func(int)) {
	next := atomic.Int64{}
	var group sync.WaitGroup
	for w := 0; w < workers; w++ {
		group.Add(1)
		go func() {
			defer group.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= count {
					return
				}
				work(n)
			}
		}()
	}
	group.Wait()
}

// rssKiB: the resident memory of a process, from /proc; 0 when unknown.
func rssKiB(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kib, _ := strconv.ParseInt(fields[1], 10, 64)
			return kib
		}
	}
	return 0
}

func percentile(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "n/a"
	}
	index := (p*len(sorted) + 99) / 100
	if index > 0 {
		index--
	}
	return sorted[index].Round(time.Millisecond).String()
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ws-scale: "+format+"\n", args...)
	os.Exit(2)
}
