package relay

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A call through the relay reaches the upstream with its method, path, query and body, and its
// answer comes back as the upstream gave it.
func TestRelayForwards(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Up", "yes")
		w.WriteHeader(201)
		io.WriteString(w, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+string(b))
	}))
	defer up.Close()
	s, err := New(Config{Upstream: up.URL + "/base"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Post(s.URL()+"rpc?x=1", "application/json", strings.NewReader(`{"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got, want := string(b), `POST /base/rpc?x=1 {"id":1}`; got != want || resp.StatusCode != 201 || resp.Header.Get("X-Up") != "yes" {
		t.Errorf("got %d %q (X-Up %q); want 201 %q (yes)", resp.StatusCode, got, resp.Header.Get("X-Up"), want)
	}
}

// An upstream that does not answer is a 502 naming it, not a hang.
func TestRelayUpstreamDown(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.NotFoundHandler())
	addr := up.URL
	up.Close()
	s, err := New(Config{Upstream: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), "relay: upstream:") {
		t.Errorf("got %d %q; want 502 relay: upstream: …", resp.StatusCode, b)
	}
}

func TestRelayBadConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{{}, {Upstream: "ftp://x/"}, {Upstream: "http://"}, {Upstream: "http://x/", MaxIdle: -1}} {
		if s, err := New(c); err == nil {
			s.Close()
			t.Errorf("%+v: no error; want one", c)
		}
	}
}
