package amoraapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// BrowserHeaders are the headers the web client sends on every API call (API.md §1.2).
var BrowserHeaders = map[string]string{"client": "pc", "system": "Linux", "platformType": "web", "language": "en"}

// SignedInUser makes a user through the operator API (/lust/admin/createUser, with the
// server's admin.token) and signs them in with the password login, through the envelope:
// their voucher (sent back in the `voucher` header). `tag` goes into the e-mail address
// to tell the tools' users apart; n numbers users of one run.
func SignedInUser(base, adminToken, tag string, n int) (string, error) {
	password, err := RandomText(12)
	if err != nil {
		return "", err
	}
	suffix, err := RandomText(6)
	if err != nil {
		return "", err
	}
	body, _ := json.Marshal(map[string]string{
		"email":    fmt.Sprintf("%s-%s-%d@loadtest.example", tag, strings.ToLower(suffix), n),
		"password": password,
	})
	request, _ := http.NewRequest("POST", base+"/lust/admin/createUser", bytes.NewReader(body))
	request.Header.Set("Authorization", "Bearer "+adminToken)
	request.Header.Set("Content-Type", "application/json")
	var created struct {
		UserNo string `json:"userNo"`
	}
	if err := MustJSON(request, &created); err != nil {
		return "", err
	}

	client, err := NewEnvelope()
	if err != nil {
		return "", err
	}
	sealed, err := client.SealedBody(map[string]string{"userNo": created.UserNo, "password": password})
	if err != nil {
		return "", err
	}
	request, _ = http.NewRequest("POST", base+"/lust/api/login/v1/userPasswordLogin", bytes.NewReader(sealed))
	request.Header.Set(SecretKeyHeader, client.SecretKey)
	request.Header.Set("Content-Type", "application/json")
	for name, value := range BrowserHeaders {
		request.Header.Set(name, value)
	}
	var wire struct {
		ResponseData string `json:"responseData"`
	}
	if err := MustJSON(request, &wire); err != nil {
		return "", err
	}
	var answer struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
		Data struct {
			Voucher string `json:"voucher"`
		} `json:"data"`
	}
	if err := client.Open(wire.ResponseData, &answer); err != nil {
		return "", err
	}
	if answer.Code != 200 {
		return "", fmt.Errorf("sign-in of %s: %d %s", created.UserNo, answer.Code, answer.Msg)
	}
	return answer.Data.Voucher, nil
}

// MustJSON sends a request that must answer HTTP 200 with JSON, parsed into `into`.
func MustJSON(request *http.Request, into any) error {
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		return fmt.Errorf("%s: %w", request.URL.Path, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != 200 {
		return fmt.Errorf("%s: HTTP %d %s", request.URL.Path, response.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%s: %w", request.URL.Path, err)
	}
	return nil
}
