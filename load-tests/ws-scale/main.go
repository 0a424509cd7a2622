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
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
