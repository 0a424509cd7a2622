package main

import (
	"fmt"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// options: one run of the tool.
type options struct {
	nodes     []string // sockets go round-robin over these; users are made on the first
	sockets   int
	perUser   int
	rate      int
	hold      time.Duration
	settle    time.Duration
	serverPid int
	// The fan-out; rate 0 is the idle run.
	publisher   string
	fanoutRate  int
	fanoutFor   time.Duration
	fanoutGrace time.Duration
}

// socketOf: which user and node socket n belongs to. A user's sockets are spread over the
// nodes, so that with two nodes every event travels to both.
func (o options) socketOf(n, users int) (user int, node string) {
	return n % users, o.nodes[(n/users)%len(o.nodes)]
}

func run(t target, o options) {
	users := (o.sockets + o.perUser - 1) / o.perUser
	t.prepare(users)

	// The baseline settles too: Amora's sign-ins (Argon2id, 19 MiB each) leave memory the
	// allocator has not handed back yet, and sockets opening into it would look free.
	if o.serverPid > 0 {
		time.Sleep(o.settle)
	}
	before := rssKiB(o.serverPid)
	var opened, failed, dropped atomic.Int64
	hellos := make([]time.Duration, o.sockets)
	names := make([]string, users)
	perUser := make([]atomic.Int64, users) // open sockets of each user
	var namesLock sync.Mutex
	var recorder atomic.Pointer[latencies] // set while the fan-out runs
	done := make(chan struct{})
	var holding, dialing sync.WaitGroup
	interval := time.Second / time.Duration(max(o.rate, 1))
	openStart := time.Now()
	for n := 0; n < o.sockets; n++ {
		dialing.Add(1)
		holding.Add(1)
		go func(n int) {
			defer holding.Done()
			u, node := o.socketOf(n, users)
			conn, hello, name, err := open(t, node, u, n)
			if err == nil {
				namesLock.Lock()
				names[u] = name
				namesLock.Unlock()
				perUser[u].Add(1)
			}
			dialing.Done()
			if err != nil {
				if failed.Add(1) <= 5 {
					fmt.Fprintf(os.Stderr, "socket %d: %v\n", n, err)
				}
				return
			}
			hellos[n] = hello
			opened.Add(1)
			// Reading answers the server's pings (gorilla's default handler answers
			// WebSocket pings; the target answers its protocol's), sees a close and
			// records the events.
			closed := make(chan struct{})
			go func() {
				defer close(closed)
				for {
					_, frame, err := conn.ReadMessage()
					if err != nil {
						return
					}
					stamps, answer := t.receive(frame)
					if l := recorder.Load(); l != nil && len(stamps) > 0 {
						l.record(stamps, time.Now())
					}
					if answer != nil && conn.WriteMessage(websocket.TextMessage, answer) != nil {
						return
					}
				}
			}()
			select {
			case <-closed:
				dropped.Add(1)
			case <-done:
				_ = conn.WriteControl(websocket.CloseMessage,
					websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(5*time.Second))
				<-closed
			}
			conn.Close()
		}(n)
		time.Sleep(interval)
	}
	dialing.Wait()
	openTook := time.Since(openStart)
	// Memory read as soon as the last socket opens is noisy (the allocator has not handed
	// back the handshakes' buffers yet, the runtime has not collected): let it settle.
	time.Sleep(o.settle)
	after := rssKiB(o.serverPid)
	fmt.Printf("opened %d of %d sockets in %.1fs (%d failed)\n", opened.Load(), o.sockets, openTook.Seconds(), failed.Load())

	var lost, expected int64
	var measured *latencies
	if o.fanoutRate > 0 {
		measured, expected, lost = fanOut(o, names, perUser, &recorder)
	} else {
		fmt.Printf("holding them %s\n", o.hold)
		time.Sleep(o.hold)
	}
	droppedDuringHold := dropped.Load()
	close(done)
	holding.Wait()

	var times []time.Duration
	for _, t := range hellos {
		if t > 0 {
			times = append(times, t)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Println()
	fmt.Println("| sockets | opened | failed | dropped while held | held | hello p50 | hello p95 | hello max | server memory per socket |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	memory := "n/a"
	if before > 0 && after > 0 && opened.Load() > 0 {
		memory = fmt.Sprintf("%.1f KiB (RSS %d → %d MiB)", float64(after-before)/float64(opened.Load()), before/1024, after/1024)
	}
	held := o.hold
	if o.fanoutRate > 0 {
		held = o.fanoutFor
	}
	fmt.Printf("| %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", o.sockets, opened.Load(), failed.Load(), droppedDuringHold,
		held, percentile(times, 50), percentile(times, 95), percentile(times, 100), memory)
	// One line for scripts to read (scripts/bench-sockets).
	fmt.Printf("result held=%d failed=%d dropped=%d kib_per_socket=%.2f",
		opened.Load()-droppedDuringHold, failed.Load(), droppedDuringHold,
		float64(max(after-before, 0))/float64(max(opened.Load(), 1)))
	if measured != nil {
		fmt.Printf(" expected=%d received=%d lost=%d p50_ms=%.3f p95_ms=%.3f p99_ms=%.3f max_ms=%.3f",
			expected, measured.total.Load(), lost,
			measured.percentile(50).Seconds()*1000, measured.percentile(95).Seconds()*1000,
			measured.percentile(99).Seconds()*1000, float64(measured.slowest.Load())/1000)
	}
	fmt.Println()
	if failed.Load() > 0 || droppedDuringHold > 0 || lost != 0 {
		os.Exit(1)
	}
}

// fanOut runs the publisher over the held sockets and waits for the events to arrive:
// the latencies, how many receipts were due (each event once per open socket of its
// user) and how many of them never came (negative: more came than were due).
func fanOut(o options, names []string, perUser []atomic.Int64, recorder *atomic.Pointer[latencies]) (*latencies, int64, int64) {
	for u, name := range names {
		if name == "" {
			fail("user %d has no open socket to publish to", u)
		}
	}
	measured := newLatencies(time.Now())
	recorder.Store(measured)
	fmt.Printf("publishing %d events/s over %d users for %s\n", o.fanoutRate, len(names), o.fanoutFor)
	published := publish(o.publisher, names, o.fanoutRate, o.fanoutFor)
	// The publisher goes round-robin over the users: event k goes to user k % users.
	var expected int64
	for k := int64(0); k < published; k++ {
		expected += perUser[k%int64(len(names))].Load()
	}
	deadline := time.Now().Add(o.fanoutGrace)
	for measured.total.Load() < expected && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	received := measured.total.Load()
	fmt.Printf("published %d events; %d of %d receipts arrived; latency p50 %s p95 %s p99 %s max %s\n",
		published, received, expected, ms(measured.percentile(50)), ms(measured.percentile(95)),
		ms(measured.percentile(99)), ms(time.Duration(measured.slowest.Load())*time.Microsecond))
	return measured, expected, expected - received
}

// open dials one socket from one of several loopback source addresses (one address has
// about 28,000 ephemeral ports) and waits until the target says it is ready.
func open(t target, node string, u, n int) (*websocket.Conn, time.Duration, string, error) {
	source := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+n%8))}
	dialer := websocket.Dialer{
		NetDial:          (&net.Dialer{LocalAddr: source, Timeout: 30 * time.Second}).Dial,
		HandshakeTimeout: 30 * time.Second,
	}
	start := time.Now()
	conn, response, err := dialer.Dial(t.socketURL(node, u), nil)
	if err != nil {
		if response != nil {
			return nil, 0, "", fmt.Errorf("%w (HTTP %d)", err, response.StatusCode)
		}
		return nil, 0, "", err
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	name, err := t.greet(conn, u)
	if err != nil {
		conn.Close()
		return nil, 0, "", err
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn, time.Since(start), name, nil
}
