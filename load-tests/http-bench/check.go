package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

type runner struct {
	o       *options
	client  *fasthttp.HostClient
	calls   []call
	next    atomic.Int64
	checked atomic.Int64
	failed  atomic.Int64
	errors  atomic.Int64 // failures reported on stderr so far (the first few only)
}

func (r *runner) reset() {
	r.failed.Store(0)
	r.errors.Store(0)
}

// do sends the next prepared request and checks its answer.
func (r *runner) do() bool {
	c := &r.calls[int(r.next.Add(1)-1)%len(r.calls)]
	request := fasthttp.AcquireRequest()
	response := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(request)
	defer fasthttp.ReleaseResponse(response)
	request.SetRequestURI(c.uri)
	request.Header.SetMethod(fasthttp.MethodPost)
	request.Header.SetContentType("application/json")
	for name, value := range c.headers {
		request.Header.Set(name, value)
	}
	request.SetBody(c.body)
	err := r.client.Do(request, response)
	if err == nil {
		err = r.check(c, response)
	}
	if err != nil {
		r.failed.Add(1)
		if r.errors.Add(1) <= 5 {
			fmt.Fprintf(os.Stderr, "%s: %v\n", r.o.target, err)
		}
		return false
	}
	return true
}

var cardKey = []byte(`"characterId":`)

// check: HTTP 200, code 200, -cards cards; ours decrypted first.
func (r *runner) check(c *call, response *fasthttp.Response) error {
	if response.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("HTTP %d %.200s", response.StatusCode(), response.Body())
	}
	plain := response.Body()
	if c.envelope != nil {
		const prefix, suffix = `{"responseData":"`, `"}`
		if !bytes.HasPrefix(plain, []byte(prefix)) || !bytes.HasSuffix(plain, []byte(suffix)) {
			return fmt.Errorf("not an envelope: %.200s", plain)
		}
		opened, err := c.envelope.OpenBytes(plain[len(prefix) : len(plain)-len(suffix)])
		if err != nil {
			return err
		}
		plain = opened
	}
	if r.checked.Add(1) <= r.o.fullChecks {
		var answer struct {
			Code int `json:"code"`
			Data []struct {
				CharacterID   string `json:"characterId"`
				CharacterName string `json:"characterName"`
			} `json:"data"`
		}
		if err := json.Unmarshal(plain, &answer); err != nil {
			return fmt.Errorf("answer JSON: %v", err)
		}
		if answer.Code != 200 || len(answer.Data) != r.o.cards || answer.Data[0].CharacterID == "" {
			return fmt.Errorf("code %d with %d cards, not 200 with %d", answer.Code, len(answer.Data), r.o.cards)
		}
		return nil
	}
	if !bytes.HasPrefix(plain, []byte(`{"code":200,`)) {
		return fmt.Errorf("not a success: %.200s", plain)
	}
	if n := bytes.Count(plain, cardKey); n != r.o.cards {
		return fmt.Errorf("%d cards, not %d", n, r.o.cards)
	}
	return nil
}
