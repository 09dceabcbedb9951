package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// CodeMethodNotFound is JSON-RPC 2.0's code for a method the server does not have.
const CodeMethodNotFound = -32601

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("error %d: %s", e.Code, e.Message) }

// MethodNotFound says whether e means that the node does not have the method: code -32601, or a
// message about the method not being supported, as some nodes answer with another code.
func (e *RPCError) MethodNotFound() bool {
	if e.Code == CodeMethodNotFound {
		return true
	}
	m := strings.ToLower(e.Message)
	if !strings.Contains(m, "method") {
		return false
	}
	for _, s := range []string{"not found", "not supported", "unsupported", "does not exist", "not available", "not allowed"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// client sends JSON-RPC calls one at a time over HTTP, at most rate per second. Not safe for
// concurrent use.
type client struct {
	url    string
	header []transport.Header
	http   *http.Client
	rate   float64
	next   time.Time // when the next call may start
	id     uint64
	sent   int
	body   []byte
}

func newClient(url string, header []transport.Header, rate float64, timeout time.Duration) *client {
	return &client{url: url, header: header, rate: rate, http: &http.Client{Timeout: timeout}}
}

// Body renders a call as its request body: {"jsonrpc":"2.0","id":ID,"method":M,"params":P}.
func Body(dst []byte, id uint64, method string, params json.RawMessage) []byte {
	dst = fmt.Appendf(dst, `{"jsonrpc":"2.0","id":%d,"method":`, id)
	m, _ := json.Marshal(method)
	dst = append(dst, m...)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// wait blocks until the next call may start: calls start at least 1/rate apart, so that a slow
// answer is never made up for by a burst.
func (c *client) wait(ctx context.Context) error {
	if c.rate <= 0 {
		return ctx.Err()
	}
	now := time.Now()
	if d := c.next.Sub(now); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		now = c.next
	}
	c.next = now.Add(time.Duration(float64(time.Second) / c.rate))
	return ctx.Err()
}

// call sends one call. It returns the result, or the node's error answer as *RPCError, or an
// error when no JSON-RPC answer came (a transport failure, an HTTP error without a JSON-RPC body,
// an answer that is not JSON).
func (c *client) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := c.wait(ctx); err != nil {
		return nil, err
	}
	c.id++
	c.body = Body(c.body[:0], c.id, method, params)
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, bytes.NewReader(c.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range c.header {
		req.Header.Add(h.Name, h.Value)
	}
	c.sent++
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = plan.RedactURL(ue.URL) // net/http hides the password, not a key in the query
		}
		return nil, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if len(b) > maxAnswer {
		return nil, fmt.Errorf("the answer is longer than %d MiB", maxAnswer>>20)
	}
	var a struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(b, &a); err != nil || (a.Result == nil && a.Error == nil) {
		return nil, fmt.Errorf("the node answered HTTP %d with %s, not a JSON-RPC answer: %q", resp.StatusCode, contentType(resp), clip(b, 120))
	}
	if a.Error != nil {
		return nil, a.Error
	}
	return a.Result, nil
}

// maxAnswer bounds an answer's size: a block with full transactions or a storage page is well
// under it.
const maxAnswer = 256 << 20

func contentType(r *http.Response) string {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no content type"
}

func clip(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
