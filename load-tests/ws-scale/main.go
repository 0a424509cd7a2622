// ws-scale: the WebSocket connection-scale tool. k6 runs a JavaScript runtime per virtual
// user, which caps it at a few thousand sockets on a small machine; this opens tens of
// thousands of idle, signed-in sockets from one process (a goroutine each), holds them
// through the server's heartbeats, and reports how many opened, how many the server
// dropped, the time to `hello`, and, given the server's pid, its memory per socket.
//
//	scripts/load-test scale -sockets 15000 -hold 60s
//	ws-scale -base http://127.0.0.1:8080 -admin-token … -sockets 5000 [-server-pid N]
//
// Users are made through the operator API and signed in with the password login, through
// the encrypted envelope (API.md §1.1); a user holds at most -per-user sockets (the
// server's realtime.max_sockets_per_user).
package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	base := flag.String("base", os.Getenv("BASE_URL"), "the server, http://127.0.0.1:PORT (loopback only)")
	adminToken := flag.String("admin-token", os.Getenv("ADMIN_TOKEN"), "the server's admin.token")
	sockets := flag.Int("sockets", 1000, "sockets to open")
	perUser := flag.Int("per-user", 8, "sockets per user (realtime.max_sockets_per_user)")
	rate := flag.Int("rate", 2000, "sockets opened per second, at most")
	hold := flag.Duration("hold", 30*time.Second, "how long every socket stays open once all are")
	serverPid := flag.Int("server-pid", 0, "the server's pid, to report its memory per socket")
	flag.Parse()
	if !strings.HasPrefix(*base, "http://127.0.0.1:") && !strings.HasPrefix(*base, "http://localhost:") {
		fail("-base must be a loopback address (http://127.0.0.1:PORT), not %q", *base)
	}
	if *adminToken == "" {
		fail("-admin-token (or ADMIN_TOKEN) is needed to make the users")
	}

	users := (*sockets + *perUser - 1) / *perUser
	started := time.Now()
	vouchers := make([]string, users)
	parallel(users, 8, func(n int) {
		vouchers[n] = signedInUser(*base, *adminToken, n)
	})
	fmt.Printf("signed in %d users in %.1fs\n", users, time.Since(started).Seconds())

	before := rssKiB(*serverPid)
	wsURL := "ws" + strings.TrimPrefix(*base, "http") + "/lust/api/ws?voucher="
	var opened, failed, dropped atomic.Int64
	hellos := make([]time.Duration, *sockets)
	done := make(chan struct{})
	var holding sync.WaitGroup
	interval := time.Second / time.Duration(max(*rate, 1))
	openStart := time.Now()
	var dialing sync.WaitGroup
	for n := 0; n < *sockets; n++ {
		dialing.Add(1)
		holding.Add(1)
		go func(n int) {
			defer holding.Done()
			conn, hello, err := open(wsURL+url.QueryEscape(vouchers[n%users]), n)
			dialing.Done()
			if err != nil {
				failed.Add(1)
				if failed.Load() <= 5 {
					fmt.Fprintf(os.Stderr, "socket %d: %v\n", n, err)
				}
				return
			}
			hellos[n] = hello
			opened.Add(1)
			// Reading answers the server's pings (gorilla's default handler) and sees a close.
			closed := make(chan struct{})
			go func() {
				defer close(closed)
				for {
					if _, _, err := conn.ReadMessage(); err != nil {
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
	time.Sleep(2 * time.Second) // let the server settle before reading its memory
	after := rssKiB(*serverPid)
	fmt.Printf("opened %d of %d sockets in %.1fs (%d failed); holding them %s\n",
		opened.Load(), *sockets, openTook.Seconds(), failed.Load(), *hold)
	time.Sleep(*hold)
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
	fmt.Printf("| %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", *sockets, opened.Load(), failed.Load(), droppedDuringHold,
		*hold, percentile(times, 50), percentile(times, 95), percentile(times, 100), memory)
	if failed.Load() > 0 || droppedDuringHold > 0 {
		os.Exit(1)
	}
}

// open dials one socket from one of several loopback source addresses (one address has
// about 28,000 ephemeral ports) and waits for `hello`.
func open(address string, n int) (*websocket.Conn, time.Duration, error) {
	source := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+n%8))}
	dialer := websocket.Dialer{
		NetDial:          (&net.Dialer{LocalAddr: source, Timeout: 30 * time.Second}).Dial,
		HandshakeTimeout: 30 * time.Second,
	}
	start := time.Now()
	conn, response, err := dialer.Dial(address, nil)
	if err != nil {
		if response != nil {
			return nil, 0, fmt.Errorf("%w (HTTP %d)", err, response.StatusCode)
		}
		return nil, 0, err
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var event struct {
		Event string `json:"event"`
	}
	if err := conn.ReadJSON(&event); err != nil || event.Event != "hello" {
		conn.Close()
		return nil, 0, fmt.Errorf("no hello: %v %q", err, event.Event)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn, time.Since(start), nil
}

// signedInUser makes user n through the operator API and signs them in: their voucher.
func signedInUser(base, adminToken string, n int) string {
	password := randomText(12)
	body, _ := json.Marshal(map[string]string{
		"email":    fmt.Sprintf("scale-%s-%d@loadtest.example", strings.ToLower(randomText(6)), n),
		"password": password,
	})
	request, _ := http.NewRequest("POST", base+"/lust/admin/createUser", bytes.NewReader(body))
	request.Header.Set("Authorization", "Bearer "+adminToken)
	request.Header.Set("Content-Type", "application/json")
	var created struct {
		UserNo string `json:"userNo"`
	}
	mustJSON(request, &created)

	client := newEnvelope()
	sealed, _ := json.Marshal(map[string]string{
		"requestData": client.seal(map[string]string{"userNo": created.UserNo, "password": password}),
	})
	request, _ = http.NewRequest("POST", base+"/lust/api/login/v1/userPasswordLogin", bytes.NewReader(sealed))
	request.Header.Set("secretKey", client.secretKey)
	request.Header.Set("Content-Type", "application/json")
	for name, value := range map[string]string{"client": "pc", "system": "Linux", "platformType": "web", "language": "en"} {
		request.Header.Set(name, value)
	}
	var wire struct {
		ResponseData string `json:"responseData"`
	}
	mustJSON(request, &wire)
	var answer struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
		Data struct {
			Voucher string `json:"voucher"`
		} `json:"data"`
	}
	client.open(wire.ResponseData, &answer)
	if answer.Code != 200 {
		fail("sign-in of %s: %d %s", created.UserNo, answer.Code, answer.Msg)
	}
	return answer.Data.Voucher
}

// envelope: AES-256-CBC, key = SHA-256 of the secret key, Base64 of IV ‖ ciphertext.
type envelope struct {
	secretKey string
	block     cipher.Block
}

func newEnvelope() envelope {
	secret := randomText(32)
	key := sha256.Sum256([]byte(secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		fail("aes: %v", err)
	}
	return envelope{secretKey: secret, block: block}
}

func (e envelope) seal(payload any) string {
	plain, _ := json.Marshal(payload)
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	plain = append(plain, bytes.Repeat([]byte{byte(pad)}, pad)...)
	wire := make([]byte, aes.BlockSize+len(plain))
	if _, err := rand.Read(wire[:aes.BlockSize]); err != nil {
		fail("random: %v", err)
	}
	cipher.NewCBCEncrypter(e.block, wire[:aes.BlockSize]).CryptBlocks(wire[aes.BlockSize:], plain)
	return base64.StdEncoding.EncodeToString(wire)
}

func (e envelope) open(text string, into any) {
	wire, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(wire) < 2*aes.BlockSize || len(wire)%aes.BlockSize != 0 {
		fail("a malformed envelope: %v", err)
	}
	plain := make([]byte, len(wire)-aes.BlockSize)
	cipher.NewCBCDecrypter(e.block, wire[:aes.BlockSize]).CryptBlocks(plain, wire[aes.BlockSize:])
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > aes.BlockSize {
		fail("bad padding in an envelope")
	}
	if err := json.Unmarshal(plain[:len(plain)-pad], into); err != nil {
		fail("envelope JSON: %v", err)
	}
}

func mustJSON(request *http.Request, into any) {
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		fail("%s: %v", request.URL.Path, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != 200 {
		fail("%s: HTTP %d %s", request.URL.Path, response.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		fail("%s: %v", request.URL.Path, err)
	}
}

func randomText(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		fail("random: %v", err)
	}
	for i, b := range raw {
		raw[i] = alphabet[int(b)%len(alphabet)]
	}
	return string(raw)
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
