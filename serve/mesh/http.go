package mesh

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// The peer-to-peer HTTP protocol: POST hopPath with the State as JSON, the chain's deadline in
// deadlineHeader as Unix nanoseconds; the answer is a Response as JSON, status 200 whenever the peer
// could read the State (a chain failure is in Response.Error).
const (
	hopPath        = "/mesh/hop"
	deadlineHeader = "Mesh-Deadline"
)

// httpLink calls peers over HTTP/1.1 or h2c. Safe for concurrent use.
type httpLink struct {
	client *http.Client
	urls   map[string]string
}

func newHTTPLink(t Transport, peers map[string]string, b *connBudget, idlePerHost int) *httpLink {
	tr := &http.Transport{
		DialContext: b.dialer(&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}),
		// Keep every connection a deep chain opened: the next chain reuses them instead of dialling
		// thousands anew and leaving as many ports in TIME_WAIT.
		MaxIdleConnsPerHost: idlePerHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	if t == H2C {
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	urls := make(map[string]string, len(peers))
	for n, a := range peers {
		urls[n] = "http://" + a + hopPath
	}
	return &httpLink{client: &http.Client{Transport: tr}, urls: urls}
}

func (l *httpLink) call(ctx context.Context, to string, st State) (State, string, error) {
	u, ok := l.urls[to]
	if !ok {
		return st, "", fmt.Errorf("unknown peer %q", to)
	}
	body, err := json.Marshal(&st)
	if err != nil {
		return st, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return st, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if d, ok := ctx.Deadline(); ok {
		req.Header.Set(deadlineHeader, strconv.FormatInt(d.UnixNano(), 10))
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return st, "", err
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody)) //nolint:errcheck // drained for reuse only
		resp.Body.Close()
	}()
	var ans Response
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&ans); err != nil {
		return st, "", fmt.Errorf("%s: reading the answer: %v", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return st, "", fmt.Errorf("%s: %s", resp.Status, deref(ans.Error))
	}
	return ans.State, deref(ans.Error), nil
}

func (l *httpLink) close() { l.client.CloseIdleConnections() }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// newHTTPServer returns a server for h that speaks HTTP/1.1 and h2c, counts its connections against
// b and derives every request's context from base.
func newHTTPServer(h http.Handler, base context.Context, b *connBudget) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnState:         b.connState,
		Protocols:         new(http.Protocols),
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: 1000},
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}

// serveHTTP serves the peer's HTTP protocol on ln and returns the function that stops it.
func (p *Peer) serveHTTP(ln net.Listener, b *connBudget) func(context.Context) error {
	mux := http.NewServeMux()
	mux.HandleFunc(hopPath, p.serveHop)
	srv := newHTTPServer(mux, p.base, b)
	go srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed after Shutdown
	return func(ctx context.Context) error {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			return fmt.Errorf("mesh: peer %s: %w", p.h.name, err)
		}
		return nil
	}
}

// serveHop is the HTTP handler of hopPath.
func (p *Peer) serveHop(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, Response{Error: ptr("use POST")})
		return
	}
	var st State
	if err := decodeStrict(http.MaxBytesReader(w, r.Body, maxBody), &st); err != nil {
		writeJSON(w, http.StatusBadRequest, Response{Error: ptr(fmt.Sprintf("peer %s: body: %v", p.h.name, err))})
		return
	}
	var deadline time.Time
	if d := r.Header.Get(deadlineHeader); d != "" {
		ns, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, Response{Error: ptr(fmt.Sprintf("peer %s: header %s: want Unix nanoseconds, got %q", p.h.name, deadlineHeader, d))})
			return
		}
		deadline = time.Unix(0, ns)
	}
	ctx, cancel := p.hopContext(r.Context(), deadline, st.Limit)
	defer cancel()
	ans, failure := p.h.arrive(ctx, st)
	writeJSON(w, http.StatusOK, Response{State: ans, Error: ptr(failure)})
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and anything after the value.
func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty; want a JSON object")
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n')) //nolint:errcheck // the client went away
}
