// Package amoraapi: what every Go load tool needs to speak Amora's API as a browser does —
// the encrypted envelope (API.md §1.1) and signing a test user in through the operator API
// and the password login. Shared by load-tests/http-bench (and, once switched over,
// load-tests/ws-scale, where it was first written) so that the tools cannot drift apart.
//
// Failures are returned, not fatal: a load generator counts a bad answer and goes on.
package amoraapi

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// SecretKeyHeader carries the browser's secret key on every API call.
const SecretKeyHeader = "secretKey"

// Envelope is one browser's key: AES-256-CBC, key = SHA-256 of the secret key, PKCS#7
// padding, a fresh random IV per message, Base64 of IV ‖ ciphertext on the wire.
type Envelope struct {
	// SecretKey goes in the secretKey header: 32 characters of [A-Za-z0-9].
	SecretKey string
	block     cipher.Block
}

// NewEnvelope makes a key as the browser does: 32 random letters and digits.
func NewEnvelope() (Envelope, error) {
	secret, err := RandomText(32)
	if err != nil {
		return Envelope{}, err
	}
	key := sha256.Sum256([]byte(secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return Envelope{}, fmt.Errorf("aes: %w", err)
	}
	return Envelope{SecretKey: secret, block: block}, nil
}

// Seal encrypts payload's JSON: the requestData text.
func (e Envelope) Seal(payload any) (string, error) {
	plain, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	plain = append(plain, bytes.Repeat([]byte{byte(pad)}, pad)...)
	wire := make([]byte, aes.BlockSize+len(plain))
	if _, err := rand.Read(wire[:aes.BlockSize]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	cipher.NewCBCEncrypter(e.block, wire[:aes.BlockSize]).CryptBlocks(wire[aes.BlockSize:], plain)
	return base64.StdEncoding.EncodeToString(wire), nil
}

// SealedBody is a whole request body, {"requestData": "<sealed payload>"}.
func (e Envelope) SealedBody(payload any) ([]byte, error) {
	sealed, err := e.Seal(payload)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"requestData": sealed})
}

// OpenBytes decrypts a responseData text to its plaintext JSON.
func (e Envelope) OpenBytes(text []byte) ([]byte, error) {
	wire := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(wire, text)
	if err != nil {
		return nil, fmt.Errorf("a malformed envelope: %w", err)
	}
	wire = wire[:n]
	if len(wire) < 2*aes.BlockSize || len(wire)%aes.BlockSize != 0 {
		return nil, errors.New("a malformed envelope: not whole AES blocks")
	}
	plain := make([]byte, len(wire)-aes.BlockSize)
	cipher.NewCBCDecrypter(e.block, wire[:aes.BlockSize]).CryptBlocks(plain, wire[aes.BlockSize:])
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > aes.BlockSize {
		return nil, errors.New("bad padding in an envelope")
	}
	return plain[:len(plain)-pad], nil
}

// Open decrypts a responseData text and parses its JSON into `into`.
func (e Envelope) Open(text string, into any) error {
	plain, err := e.OpenBytes([]byte(text))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(plain, into); err != nil {
		return fmt.Errorf("envelope JSON: %w", err)
	}
	return nil
}

// RandomText is n random characters of [A-Za-z0-9].
func RandomText(n int) (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	for i, b := range raw {
		raw[i] = alphabet[int(b)%len(alphabet)]
	}
	return string(raw), nil
}
