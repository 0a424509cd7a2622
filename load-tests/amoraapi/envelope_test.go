package amoraapi

import (
	"crypto/aes"
	"crypto/sha256"
	"testing"
)

// The server's known answer (server/src/envelope/mod.rs): this secret, IV 7×16,
// plaintext {"code":200}.
func TestOpensTheServersKnownAnswer(t *testing.T) {
	secret := "abcdefghijklmnopqrstuvwxyz012345"
	key := sha256.Sum256([]byte(secret))
	block, _ := aes.NewCipher(key[:])
	e := Envelope{SecretKey: secret, block: block}
	var answer struct{ Code int }
	if err := e.Open("BwcHBwcHBwcHBwcHBwcHB2uUP9aBbV9ntgo105Av7JM=", &answer); err != nil || answer.Code != 200 {
		t.Fatalf("open: %v %v", answer, err)
	}
}

func TestSealedOpens(t *testing.T) {
	e, err := NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := e.Seal(map[string]int{"pageNo": 1})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]int
	if err := e.Open(sealed, &back); err != nil || back["pageNo"] != 1 {
		t.Fatalf("round trip: %v %v", back, err)
	}
}
