package kv

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/testnet"
)

// start runs a server for one test and closes it (checking Close's error) when the test ends.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

var client = &http.Client{Timeout: 10 * time.Second}

// do sends one request and returns the status and the body.
func do(t testing.TB, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, u, err)
	}
	return resp.StatusCode, string(b)
}

func entityURL(s *Server, id string) string {
	return s.URL() + "/v0/entity?id=" + url.QueryEscape(id)
}

func TestAPIStatusCodes(t *testing.T) {
	t.Parallel()
	s := start(t, Config{MaxValueBytes: 1000})
	u := s.URL()
	steps := []struct {
		name, method, path, body string
		wantCode                 int
		wantBody                 string // checked when not empty
	}{
		{"status", "GET", "/v0/status", "", 200, "OK\n"},
		{"no prefill", "GET", "/v0/prefill", "", 200, "no prefill\n"},
		{"post prefill", "POST", "/v0/prefill", "", 405, ""},
		{"get absent", "GET", "/v0/entity?id=k1", "", 404, ""},
		{"put new", "PUT", "/v0/entity?id=k1", "v1", 201, ""},
		{"get it", "GET", "/v0/entity?id=k1", "", 200, "v1"},
		{"put overwrites", "PUT", "/v0/entity?id=k1", "second value", 201, ""},
		{"get overwritten", "GET", "/v0/entity?id=k1", "", 200, "second value"},
		{"put empty value", "PUT", "/v0/entity?id=empty", "", 201, ""},
		{"get empty value", "GET", "/v0/entity?id=empty", "", 200, ""},
		{"binary key and value", "PUT", "/v0/entity?id=%00%FF%2F", "\x00\x01\xff", 201, ""},
		{"get binary", "GET", "/v0/entity?id=%00%FF%2F", "", 200, "\x00\x01\xff"},
		{"delete present", "DELETE", "/v0/entity?id=k1", "", 202, ""},
		{"get deleted", "GET", "/v0/entity?id=k1", "", 404, ""},
		{"delete absent", "DELETE", "/v0/entity?id=never", "", 202, ""},
		{"head present", "HEAD", "/v0/entity?id=empty", "", 200, ""},
		{"head absent", "HEAD", "/v0/entity?id=k1", "", 404, ""},
		{"get missing id", "GET", "/v0/entity", "", 400, ""},
		{"get empty id", "GET", "/v0/entity?id=", "", 400, ""},
		{"put missing id", "PUT", "/v0/entity", "v", 400, ""},
		{"delete empty id", "DELETE", "/v0/entity?id=", "", 400, ""},
		{"post", "POST", "/v0/entity?id=k1", "v", 405, ""},
		{"patch", "PATCH", "/v0/entity?id=k1", "v", 405, ""},
		{"post without id", "POST", "/v0/entity", "v", 405, ""},
		{"post status", "POST", "/v0/status", "", 405, ""},
		{"put entities", "PUT", "/v0/entities?start=a", "", 405, ""},
		{"unknown path", "GET", "/v0/nope", "", 400, ""},
		{"root", "GET", "/", "", 400, ""},
		{"trailing slash", "GET", "/v0/entity/?id=k1", "", 400, ""},
		{"range missing start", "GET", "/v0/entities", "", 400, ""},
		{"range empty start", "GET", "/v0/entities?start=&end=z", "", 400, ""},
		{"value at the limit", "PUT", "/v0/entity?id=big", strings.Repeat("x", 1000), 201, ""},
		{"value over the limit", "PUT", "/v0/entity?id=big", strings.Repeat("x", 1001), 413, ""},
		{"big kept", "GET", "/v0/entity?id=big", "", 200, strings.Repeat("x", 1000)},
	}
	for _, st := range steps { // in order: later steps see earlier writes
		code, body := do(t, st.method, u+st.path, st.body)
		if code != st.wantCode {
			t.Errorf("%s: %s %s: got %d (%q); want %d", st.name, st.method, st.path, code, body, st.wantCode)
		}
		if st.wantBody != "" && body != st.wantBody {
			t.Errorf("%s: %s %s: got body %q; want %q", st.name, st.method, st.path, body, st.wantBody)
		}
	}
}

func TestMethodNotAllowedSaysAllow(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	resp, err := client.Post(entityURL(s, "k"), "text/plain", strings.NewReader("v"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.Header.Get("Allow"), "GET, HEAD, PUT, DELETE"; got != want {
		t.Errorf("Allow: got %q; want %q", got, want)
	}
}

// readChunks sends GET path over a raw connection and returns the status line and the chunks of
// the body as sent, one string per chunk, checking the chunked framing on the way.
func readChunks(t *testing.T, addr, path string) (status string, chunks []string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, addr)
	r := bufio.NewReader(c)
	line := func() string {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return strings.TrimSuffix(l, "\r\n")
	}
	status = line()
	chunked := false
	for h := line(); h != ""; h = line() {
		if strings.EqualFold(h, "Transfer-Encoding: chunked") {
			chunked = true
		}
	}
	if !chunked {
		t.Fatalf("GET %s: response is not chunked", path)
	}
	for {
		n, err := strconv.ParseInt(line(), 16, 64)
		if err != nil {
			t.Fatalf("bad chunk size: %v", err)
		}
		if n == 0 {
			if l := line(); l != "" {
				t.Fatalf("got trailer %q; want none", l)
			}
			return status, chunks
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatalf("read chunk: %v", err)
		}
		if !bytes.HasSuffix(b, []byte("\r\n")) {
			t.Fatalf("chunk %q does not end in CRLF", b)
		}
		chunks = append(chunks, string(b[:n]))
	}
}

func TestRangeOrderAndChunks(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	for _, k := range []string{"c", "a", "b", "d", "bb", "e", "a0"} {
		if code, _ := do(t, "PUT", entityURL(s, k), "v-"+k); code != 201 {
			t.Fatalf("PUT %s: got %d; want 201", k, code)
		}
	}
	do(t, "PUT", entityURL(s, "multi"), "line1\nline2")
	tests := []struct {
		name, query string
		want        []string // keys, in order
	}{
		{"start inclusive, end exclusive", "start=b&end=d", []string{"b", "bb", "c"}},
		{"no end: to the last key", "start=c", []string{"c", "d", "e", "multi"}},
		{"empty end means no end", "start=e&end=", []string{"e", "multi"}},
		{"start between keys", "start=a1&end=bc", []string{"b", "bb"}},
		{"start after every key", "start=z", nil},
		{"end before start", "start=d&end=b", nil},
		{"end equals start", "start=b&end=b", nil},
	}
	for _, tt := range tests {
		status, chunks := readChunks(t, s.Addr(), "/v0/entities?"+tt.query)
		if !strings.Contains(status, " 200 ") {
			t.Errorf("%s: got status %q; want 200", tt.name, status)
			continue
		}
		var want []string
		for _, k := range tt.want {
			want = append(want, k+"\nv-"+k)
		}
		if tt.name == "no end: to the last key" || tt.name == "empty end means no end" {
			want[len(want)-1] = "multi\nline1\nline2"
		}
		if fmt.Sprint(chunks) != fmt.Sprint(want) {
			t.Errorf("%s: got chunks %q; want %q (one chunk per record)", tt.name, chunks, want)
		}
	}
	// Records bigger than the server's write buffer are one chunk each too.
	big := strings.Repeat("x", 5000)
	do(t, "PUT", entityURL(s, "zz1"), big)
	do(t, "PUT", entityURL(s, "zz2"), "small")
	_, chunks := readChunks(t, s.Addr(), "/v0/entities?start=zz")
	if len(chunks) != 2 || chunks[0] != "zz1\n"+big || chunks[1] != "zz2\nsmall" {
		t.Errorf("big record: got %d chunks; want 2, \"zz1\\n\"+5000 bytes and \"zz2\\nsmall\"", len(chunks))
	}
}

func TestPrefillLoadsKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		p        Prefill
		wantKeys int64
	}{
		{"keys", Prefill{Keys: 1234, ValueBytes: 10}, 1234},
		{"bytes, exact", Prefill{Bytes: 1000, ValueBytes: 100}, 10},
		{"bytes, rounded up", Prefill{Bytes: 1001}, 11},
		{"one key", Prefill{Keys: 1, ValueBytes: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls, last int64
			tt.p.Progress = func(done, total int64) {
				calls++
				if done < last || total != tt.wantKeys {
					t.Errorf("progress(%d, %d) after %d; want rising done and total %d", done, total, last, tt.wantKeys)
				}
				last = done
			}
			s := start(t, Config{Prefill: tt.p})
			if got := s.Prefilled().Keys; got != tt.wantKeys {
				t.Errorf("Prefilled().Keys: got %d; want %d", got, tt.wantKeys)
			}
			if calls == 0 || last != tt.wantKeys {
				t.Errorf("progress: %d calls ending at %d; want some ending at %d", calls, last, tt.wantKeys)
			}
			vb := tt.p.valueBytes()
			_, chunks := readChunks(t, s.Addr(), "/v0/entities?start=0")
			if int64(len(chunks)) != tt.wantKeys {
				t.Fatalf("range read: got %d records; want %d", len(chunks), tt.wantKeys)
			}
			for i := range tt.wantKeys {
				if i%97 != 0 && i != tt.wantKeys-1 {
					continue
				}
				code, body := do(t, "GET", entityURL(s, PrefillKey(i)), "")
				if want := string(PrefillValue(i, vb)); code != 200 || body != want {
					t.Fatalf("GET %d: got %d %q; want 200 %q", i, code, body, want)
				}
			}
			if code, _ := do(t, "GET", entityURL(s, PrefillKey(tt.wantKeys)), ""); code != 404 {
				t.Errorf("GET key %d, one past the prefill: got %d; want 404", tt.wantKeys, code)
			}
		})
	}
}

func TestPrefillValue(t *testing.T) {
	t.Parallel()
	a, b := PrefillValue(7, 25), PrefillValue(7, 25)
	if !bytes.Equal(a, b) || len(a) != 25 {
		t.Errorf("PrefillValue(7, 25) twice: got %q and %q; want the same 25 bytes", a, b)
	}
	if c := PrefillValue(8, 25); bytes.Equal(a, c) {
		t.Errorf("PrefillValue(7) and (8): both %q; want different values", a)
	}
}

func TestLexOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, 2, 9, 10, 11, 19, 20, 99, 100, 101, 999, 1000, 1234, 10001} {
		next := lexOrder(n)
		var got []string
		for k, ok := next(); ok; k, ok = next() {
			got = append(got, strconv.FormatInt(k, 10))
		}
		if int64(len(got)) != n {
			t.Errorf("lexOrder(%d): got %d numbers; want %d", n, len(got), n)
			continue
		}
		seen := map[string]bool{}
		for i, k := range got {
			if i > 0 && got[i-1] >= k {
				t.Errorf("lexOrder(%d): %q before %q; want byte order", n, got[i-1], k)
				break
			}
			seen[k] = true
		}
		if int64(len(seen)) != n || (n > 0 && !seen[strconv.FormatInt(n-1, 10)]) {
			t.Errorf("lexOrder(%d): got %d distinct numbers; want 0…%d", n, len(seen), n-1)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"keys and bytes", Config{Prefill: Prefill{Keys: 1, Bytes: 1}}, "want one of them"},
		{"negative keys", Config{Prefill: Prefill{Keys: -1}}, "Prefill.Keys is -1"},
		{"negative bytes", Config{Prefill: Prefill{Bytes: -5}}, "Prefill.Bytes is -5"},
		{"huge values", Config{Prefill: Prefill{Keys: 1, ValueBytes: MaxPrefillValueBytes + 1}}, "Prefill.ValueBytes"},
		{"negative max value", Config{MaxValueBytes: -1}, "MaxValueBytes is -1"},
		{"bad address", Config{Addr: "127.0.0.1:99999"}, "listen on 127.0.0.1:99999"},
	}
	for _, tt := range tests {
		s, err := New(context.Background(), tt.cfg)
		if err == nil {
			s.Close()
			t.Errorf("%s: got no error; want one containing %q", tt.name, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %q; want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestPrefillCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	_, err := New(ctx, Config{Dir: dir, Prefill: Prefill{Keys: 200_000, Progress: func(done, total int64) { cancel() }}})
	if err == nil || !strings.Contains(err.Error(), "prefill stopped after") {
		t.Fatalf("New with a cancelled prefill: got %v; want a 'prefill stopped' error", err)
	}
	// The store was closed: it opens again.
	s := start(t, Config{Dir: dir})
	if code, _ := do(t, "GET", s.URL()+"/v0/status", ""); code != 200 {
		t.Errorf("reopened store: status got %d; want 200", code)
	}
}

func TestTemporaryDirRemovedGivenDirKept(t *testing.T) {
	t.Parallel()
	s, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.Dir()
	if !s.Temporary() {
		t.Errorf("Temporary(): got false; want true without Config.Dir")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary dir after Close: got %v; want it removed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: got %v; want nil", err)
	}

	dir := t.TempDir()
	s, err = New(context.Background(), Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	do(t, "PUT", entityURL(s, "kept"), "yes")
	if s.Temporary() {
		t.Errorf("Temporary(): got true; want false with Config.Dir")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = start(t, Config{Dir: dir})
	if code, body := do(t, "GET", entityURL(s, "kept"), ""); code != 200 || body != "yes" {
		t.Errorf("after a clean restart: got %d %q; want 200 \"yes\"", code, body)
	}
}

func TestShutdownCutsSlowReaders(t *testing.T) {
	t.Parallel()
	s, err := New(context.Background(), Config{Prefill: Prefill{Keys: 4000, ValueBytes: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	// A client that asks for 4 MB through a small receive buffer and reads none of it: the
	// handler blocks on a full socket.
	c, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /v0/entities?start=0 HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
	if l, err := br.ReadString('\n'); err != nil || !strings.Contains(l, "200") {
		t.Fatalf("status line: got %q, %v; want 200", l, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(ctx) }()
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown did not return within 30s of a 100ms deadline")
	}
	// The listener is closed. (Asked of the listener itself: listening again on the freed port
	// would fail whenever a parallel test had been given it, and a refused dial proves nothing
	// when such a test answers.)
	if err := testnet.Closed(s.ln); err != nil {
		t.Errorf("after Shutdown: %v", err)
	}
}

// FuzzPutGet checks that any key and value round-trip through PUT and GET.
func FuzzPutGet(f *testing.F) {
	f.Add("k", []byte("v"))
	f.Add("with space & = ?", []byte{0, 1, 2})
	f.Add("\x00\xff/..", []byte(""))
	f.Add(strings.Repeat("k", 300), bytes.Repeat([]byte("v"), 5000))
	s := start(f, Config{NoSync: true})
	f.Fuzz(func(t *testing.T, key string, value []byte) {
		code, _ := do(t, "PUT", entityURL(s, key), string(value))
		if key == "" {
			if code != 400 {
				t.Errorf("PUT empty id: got %d; want 400", code)
			}
			return
		}
		if code != 201 {
			t.Fatalf("PUT %q: got %d; want 201", key, code)
		}
		code, body := do(t, "GET", entityURL(s, key), "")
		if code != 200 || body != string(value) {
			t.Errorf("GET %q: got %d %q; want 200 %q", key, code, body, value)
		}
	})
}

// GET /v0/prefill says what the prefill loaded and how long it took, as Prefilled holds it: 250
// keys of 40 bytes are 10,000 bytes of values.
func TestPrefillAnswer(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Prefill: Prefill{Keys: 250, ValueBytes: 40}})
	p := s.Prefilled()
	want := fmt.Sprintf("prefilled 250 keys, 10000 bytes of values, in %s\n", p.Took.Round(time.Millisecond))
	if code, body := do(t, "GET", s.URL()+"/v0/prefill", ""); code != 200 || body != want || p.Took <= 0 {
		t.Errorf("GET /v0/prefill: %d %q (took %v); want 200 %q", code, body, p.Took, want)
	}
}
