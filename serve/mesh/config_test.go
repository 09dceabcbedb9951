package mesh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"zero value", Config{}, nil},
		{"every field set", Config{Transport: GRPC, Timeout: time.Second, MaxLimit: 5, MaxOpenFiles: -1, Peers: map[string]string{"A": "127.0.0.1:9"}}, nil},
		{"unknown transport", Config{Transport: "udp"}, []string{`Transport: unknown transport "udp"`}},
		{"negative timeout", Config{Timeout: -time.Second}, []string{"Timeout: got -1s"}},
		{"negative max limit", Config{MaxLimit: -1}, []string{"MaxLimit: got -1"}},
		{"bad peer name", Config{Peers: map[string]string{"A B": "127.0.0.1:9"}}, []string{`Peers: peer name "A B"`}},
		{"bad peer address", Config{Peers: map[string]string{"A": "localhost"}}, []string{`Peers: peer A address "localhost": want HOST:PORT`}},
		{"every problem", Config{Transport: "x", Timeout: -1, MaxLimit: -1}, []string{"Transport", "Timeout", "MaxLimit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.cfg.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got nil; want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q; want it to contain %q", err, w)
				}
			}
			if _, err := Start(tt.cfg); err == nil {
				t.Errorf("Start accepted a config Validate rejects")
			}
		})
	}
}

func TestChainTimeoutScales(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg   Config
		limit int
		want  time.Duration
	}{
		{Config{}, 1, BaseTimeout + PerHopTimeout},
		{Config{}, 10_000, 30 * time.Second}, // 10s + 10,000 × 2ms
		{Config{Timeout: time.Second}, 10_000, time.Second},
	}
	for _, tt := range tests {
		if got := tt.cfg.ChainTimeout(tt.limit); got != tt.want {
			t.Errorf("%+v.ChainTimeout(%d): got %v; want %v", tt.cfg, tt.limit, got, tt.want)
		}
	}
}

func TestParsePeers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string // FormatPeers of the result
		wantErr string
	}{
		{"A=127.0.0.1:9001", "A=127.0.0.1:9001", ""},
		{"B=127.0.0.1:9002, A=127.0.0.1:9001", "A=127.0.0.1:9001,B=127.0.0.1:9002", ""},
		{"x-1=[::1]:80", "x-1=[::1]:80", ""},
		{"", "", "no peers"},
		{"A", "", `pair 1 "A": want NAME=HOST:PORT`},
		{"A=127.0.0.1", "", `pair 1 "A=127.0.0.1": peer A address`},
		{"A=1.2.3.4:1,A=1.2.3.4:2", "", `pair 2 "A=1.2.3.4:2": peer "A" named twice`},
		{"=1.2.3.4:1", "", `peer name ""`},
		{"A/B=1.2.3.4:1", "", `peer name "A/B"`},
	}
	for _, tt := range tests {
		got, err := ParsePeers(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePeers(%q): got error %v; want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || FormatPeers(got) != tt.want {
			t.Errorf("ParsePeers(%q): got %v, %v; want %s", tt.in, FormatPeers(got), err, tt.want)
		}
	}
}

func FuzzParsePeers(f *testing.F) {
	for _, s := range []string{"A=127.0.0.1:9001,B=127.0.0.1:9002", "", "A", "A=:1", "A=[::1]:80,B==", ",,", "a b=c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		peers, err := ParsePeers(s)
		if err != nil {
			return
		}
		again, err := ParsePeers(FormatPeers(peers))
		if err != nil || FormatPeers(again) != FormatPeers(peers) {
			t.Fatalf("ParsePeers(%q) = %v does not survive FormatPeers: %v, %v", s, peers, again, err)
		}
	})
}

// The gateway's request decoder must answer every body with 200 or 400, never a panic or a 5xx.
func FuzzGatewayRequest(f *testing.F) {
	for _, s := range []string{`{"queue":["A","B","C","D","E"],"limit":10}`, `{"queue":[],"limit":1}`, `{"limit":-1}`,
		`{"queue":["Z"],"limit":1}`, `[]`, `null`, `{"queue":null}`, `{"queue":["A"],"limit":1e3}`, ``, `{`} {
		f.Add(s)
	}
	g, err := NewGateway(Config{Peers: map[string]string{"A": "127.0.0.1:1", "B": "127.0.0.1:1", "C": "127.0.0.1:1", "D": "127.0.0.1:1", "E": "127.0.0.1:1"}, MaxLimit: 1000})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, _ := http.NewRequest("POST", "/staticPeer/hop", strings.NewReader(body))
		w := &recorder{header: http.Header{}}
		g.ServeHTTP(w, req)
		if w.code != http.StatusOK && w.code != http.StatusBadRequest {
			t.Fatalf("body %q: got status %d; want 200 or 400", body, w.code)
		}
		var r Response
		if err := json.Unmarshal(w.body.Bytes(), &r); err != nil {
			t.Fatalf("body %q: answer %q is not a Response: %v", body, w.body.String(), err)
		}
		if (w.code == http.StatusOK) != (r.Error == nil) {
			t.Fatalf("body %q: status %d with error %v", body, w.code, deref(r.Error))
		}
	})
}

// recorder is the least of an http.ResponseWriter, for the fuzzer.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(c int)   { r.code = c }
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(b)
}

func TestProtoRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []State{
		{},
		{Start: 1558817006608054800, Current: 1558817006608055000, Last: "A", Queue: []string{"A", "B"}, QueueIdx: 1, Limit: 9, HopCount: 4},
		{Start: 1558817006608054800, Current: 1558817006641384200, Last: "E", Queue: []string{"E"}, Limit: 1, HopCount: 1, HopLatency: 123},
	}
	for _, st := range tests {
		got := fromPB(toPB(st))
		if got.Start != st.Start || got.Current != st.Current || got.Last != st.Last ||
			fmt.Sprint(got.Queue) != fmt.Sprint(st.Queue) || got.QueueIdx != st.QueueIdx || got.Limit != st.Limit ||
			got.HopCount != st.HopCount || got.HopLatency != st.HopLatency {
			t.Errorf("round trip: got %+v; want %+v", got, st)
		}
	}
}
