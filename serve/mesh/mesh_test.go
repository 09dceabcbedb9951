package mesh

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// startMesh starts a mesh for the test and closes it at the end.
func startMesh(t testing.TB, cfg Config) *Mesh {
	t.Helper()
	m, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// post sends body to the gateway path and decodes the answer.
func post(t testing.TB, url, body string) (int, Response) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	var r Response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("answer %q: %v", raw, err)
	}
	return resp.StatusCode, r
}

func hopBody(queue []string, limit int) string {
	b, _ := json.Marshal(HopRequest{Queue: queue, Limit: limit})
	return string(b)
}

// checkFinished checks the invariants of a chain that succeeded, and the two fields that name where
// it ended: Last, the name of the peer of the last hop, and QueueIdx, the index of the peer that would
// have been next (wrapped to the queue's start), both worked out by hand in each caller.
func checkFinished(t *testing.T, st State, queue []string, limit int, wantLast string, wantIdx int) {
	t.Helper()
	if st.HopCount != limit {
		t.Errorf("HopCount: got %d; want %d", st.HopCount, limit)
	}
	if st.Limit != limit {
		t.Errorf("Limit: got %d; want %d", st.Limit, limit)
	}
	if st.Last != wantLast {
		t.Errorf("Last: got %q; want %q", st.Last, wantLast)
	}
	if st.QueueIdx != wantIdx {
		t.Errorf("QueueIdx: got %d; want %d", st.QueueIdx, wantIdx)
	}
	if fmt.Sprint(st.Queue) != fmt.Sprint(queue) {
		t.Errorf("Queue: got %v; want %v", st.Queue, queue)
	}
	if st.HopLatency <= 0 {
		t.Errorf("HopLatency: got %d; want > 0", st.HopLatency)
	}
	if want := (st.Current - st.Start) / int64(limit); st.HopLatency != want {
		t.Errorf("HopLatency: got %d; want (Current − Start)/HopCount = %d", st.HopLatency, want)
	}
	// Unix nanoseconds of a time after 2020-01-01 and in order.
	if st.Start < 1577836800e9 || st.Current < st.Start {
		t.Errorf("times: got Start %d, Current %d; want Unix nanoseconds with Start ≤ Current", st.Start, st.Current)
	}
}

func TestHopCounts(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			m := startMesh(t, Config{Transport: tr})
			tests := []struct {
				name     string
				queue    []string
				limit    int
				wantLast string // the peer of hop limit: queue[(limit−1) mod len]
				wantIdx  int    // the next index: limit mod len
			}{
				{"one hop stops at the first peer", DefaultNames(), 1, "A", 1},
				{"two hops", DefaultNames(), 2, "B", 2},
				{"exactly one round wraps to the start", DefaultNames(), 5, "E", 0},
				{"round and a bit: A B C D E A B", DefaultNames(), 7, "B", 2},
				{"fifty: ten rounds", DefaultNames(), 50, "E", 0},
				{"short queue cycles: C A C A C A C A C", []string{"C", "A"}, 9, "C", 1},
				{"a peer that calls itself", []string{"D"}, 4, "D", 0},
				{"repeated names: B B E B B E B B", []string{"B", "B", "E"}, 8, "B", 2},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					code, r := post(t, m.URL()+"/peer/hop", hopBody(tt.queue, tt.limit))
					if code != http.StatusOK || r.Error != nil {
						t.Fatalf("got %d %q; want 200 and no error", code, deref(r.Error))
					}
					checkFinished(t, r.State, tt.queue, tt.limit, tt.wantLast, tt.wantIdx)
				})
			}
		})
	}
}

// suiteAnswer is the answer as the MeshRPC suite declares it (its HopState and a response around
// it): a script written against the suite decodes ours with it, refusing any field it does not know.
type suiteAnswer struct {
	State struct {
		Start      int64
		Current    int64
		Last       string
		Queue      []string
		QueueIdx   int
		Limit      int64
		HopCount   int64
		HopLatency int64
	}
	Error any
}

// The answers of the suite's README, 1000 hops over A–E on /peer/hop and /staticPeer/hop, are
// {"State":{"Start":1558801539512806100,"Current":1558801541410891900,"Last":"E","Queue":["A","B","C",
// "D","E"],"QueueIdx":0,"Limit":1000,"HopCount":1000,"HopLatency":1898085},"Error":null}: ours has the
// same fields in the same order, with the same types, and the same values but for the times.
func TestAnswersAsTheSuite(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			m := startMesh(t, Config{Transport: tr})
			for _, path := range []string{"/peer/hop", "/staticPeer/hop"} {
				resp, err := http.Post(m.URL()+path, "application/json", strings.NewReader(`{"queue": ["A","B","C","D","E"], "limit": 1000}`))
				if err != nil {
					t.Fatal(err)
				}
				raw, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: got %d %s %v; want 200", path, resp.StatusCode, raw, err)
				}
				var a suiteAnswer
				dec := json.NewDecoder(bytes.NewReader(raw))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&a); err != nil {
					t.Fatalf("%s: the suite's answer type cannot read %s: %v", path, raw, err)
				}
				st := a.State
				if st.Last != "E" || st.QueueIdx != 0 || st.Limit != 1000 || st.HopCount != 1000 ||
					fmt.Sprint(st.Queue) != "[A B C D E]" || a.Error != nil {
					t.Errorf("%s: got %s; want Last \"E\", QueueIdx 0, Limit and HopCount 1000, Error null", path, raw)
				}
				if st.Start < 1577836800e9 || st.Current < st.Start || st.HopLatency != (st.Current-st.Start)/1000 {
					t.Errorf("%s: got Start %d, Current %d, HopLatency %d; want Unix nanoseconds and HopLatency = (Current − Start)/1000", path, st.Start, st.Current, st.HopLatency)
				}
				want := `{"State":{"Start":N,"Current":N,"Last":"E","Queue":["A","B","C","D","E"],"QueueIdx":0,"Limit":1000,"HopCount":1000,"HopLatency":N},"Error":null}`
				if got := integers.ReplaceAllString(strings.TrimSpace(string(raw)), `"$1":N`); got != want {
					t.Errorf("%s: got\n%s\nwant\n%s", path, got, want)
				}
			}
		})
	}
}

// integers matches the three fields whose values vary from run to run, when they are JSON integers.
var integers = regexp.MustCompile(`"(Start|Current|HopLatency)":[0-9]+`)

// Every hop must arrive at the peer the queue names, in turn: count the hops each peer received.
func TestQueueCycling(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			m := startMesh(t, Config{Transport: tr})
			// 11 hops over A B C: A gets hops 1 4 7 10, B 2 5 8 11, C 3 6 9; D and E none.
			r, err := m.Gateway().Hop(context.Background(), HopRequest{Queue: []string{"A", "B", "C"}, Limit: 11})
			if err != nil {
				t.Fatal(err)
			}
			// Hop 11 arrives at B; C would be next.
			checkFinished(t, r.State, []string{"A", "B", "C"}, 11, "B", 2)
			want := map[string]int64{"A": 4, "B": 4, "C": 3, "D": 0, "E": 0}
			for n, w := range want {
				if got := m.Peer(n).Hops(); got != w {
					t.Errorf("peer %s: got %d hops; want %d", n, got, w)
				}
			}
		})
	}
}

func TestStaticBaseline(t *testing.T) {
	t.Parallel()
	m := startMesh(t, Config{Transport: GRPC})
	for _, tt := range []struct {
		limit    int
		wantLast string
		wantIdx  int
	}{{1, "A", 1}, {6, "A", 1}, {1000, "E", 0}, {DefaultMaxLimit, "E", 0}} {
		limit := tt.limit
		code, r := post(t, m.URL()+"/staticPeer/hop", hopBody(DefaultNames(), limit))
		if code != http.StatusOK || r.Error != nil {
			t.Fatalf("limit %d: got %d %q; want 200 and no error", limit, code, deref(r.Error))
		}
		checkFinished(t, r.State, DefaultNames(), limit, tt.wantLast, tt.wantIdx)
	}
	for _, n := range DefaultNames() {
		if got := m.Peer(n).Hops(); got != 0 {
			t.Errorf("peer %s: got %d hops over the network from static chains; want 0", n, got)
		}
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	m := startMesh(t, Config{MaxLimit: 500})
	tests := []struct {
		name     string
		method   string
		path     string
		body     string
		wantCode int
		wantErr  string
	}{
		{"empty queue", "POST", "/peer/hop", `{"queue":[],"limit":5}`, 400, "queue is empty"},
		{"no queue", "POST", "/staticPeer/hop", `{"limit":5}`, 400, "queue is empty"},
		{"unknown peer", "POST", "/peer/hop", `{"queue":["A","Z"],"limit":5}`, 400, `queue[1]: unknown peer "Z"`},
		{"limit zero", "POST", "/peer/hop", `{"queue":["A"],"limit":0}`, 400, "limit: got 0; want 1 to 500"},
		{"no limit", "POST", "/peer/hop", `{"queue":["A"]}`, 400, "limit: got 0"},
		{"negative limit", "POST", "/staticPeer/hop", `{"queue":["A"],"limit":-3}`, 400, "limit: got -3"},
		{"limit beyond the maximum", "POST", "/peer/hop", `{"queue":["A"],"limit":501}`, 400, "limit: got 501; want 1 to 500"},
		{"not JSON", "POST", "/peer/hop", `queue=A`, 400, "body: invalid character"},
		{"empty body", "POST", "/peer/hop", ``, 400, "body: empty"},
		{"misspelt field", "POST", "/peer/hop", `{"queue":["A"],"limt":3}`, 400, `unknown field "limt"`},
		{"wrong type", "POST", "/peer/hop", `{"queue":"A","limit":3}`, 400, "cannot unmarshal string"},
		{"two values", "POST", "/peer/hop", `{"queue":["A"],"limit":3} {"queue":["A"],"limit":3}`, 400, "data after the JSON object"},
		{"trailing brackets", "POST", "/peer/hop", `{"queue":["A"],"limit":1}}}]`, 400, "data after the JSON object"},
		{"too long a queue", "POST", "/peer/hop", hopBody(make([]string, MaxQueue+1), 3), 400, "queue has 1001 names"},
		{"GET", "GET", "/peer/hop", ``, 405, "use POST"},
		{"unknown path", "POST", "/hop", `{}`, 404, `no such path "/hop"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(tt.method, m.URL()+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var r Response
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
				t.Fatalf("answer: %v", err)
			}
			if resp.StatusCode != tt.wantCode {
				t.Errorf("got status %d; want %d", resp.StatusCode, tt.wantCode)
			}
			if !strings.Contains(deref(r.Error), tt.wantErr) {
				t.Errorf("got error %q; want it to contain %q", deref(r.Error), tt.wantErr)
			}
		})
	}
}

func TestPeersEndpoint(t *testing.T) {
	t.Parallel()
	m := startMesh(t, Config{Transport: H2C})
	resp, err := http.Get(m.URL() + "/peers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Transport Transport
		Peers     map[string]string
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Transport != H2C || FormatPeers(got.Peers) != FormatPeers(m.Peers()) || len(got.Peers) != 5 {
		t.Errorf("got %v %v; want h2c and %v", got.Transport, got.Peers, m.Peers())
	}
}

// Peers in separate "processes": each served on its own port, wired only by the directory, with a
// gateway that starts none of its own.
func TestSeparatePeers(t *testing.T) {
	t.Parallel()
	for _, tr := range Transports() {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			names := []string{"A", "B", "C"}
			lns := map[string]net.Listener{}
			peers := map[string]string{}
			for _, n := range names {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				lns[n], peers[n] = ln, ln.Addr().String()
			}
			cfg := Config{Transport: tr, Peers: peers}
			var ps []*Peer
			for _, n := range names {
				p, err := ServePeer(lns[n], n, cfg)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
				t.Cleanup(func() { p.Close() })
			}
			m, err := Listen("127.0.0.1:0", cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			if m.Peer("A") != nil {
				t.Errorf("gateway with a directory started a peer of its own")
			}
			code, r := post(t, m.URL()+"/peer/hop", hopBody([]string{"C", "B", "A"}, 10))
			if code != http.StatusOK {
				t.Fatalf("got %d %q; want 200", code, deref(r.Error))
			}
			checkFinished(t, r.State, []string{"C", "B", "A"}, 10, "C", 1)
			// C gets hops 1 4 7 10, B 2 5 8, A 3 6 9.
			for i, want := range []int64{3, 3, 4} {
				if got := ps[i].Hops(); got != want {
					t.Errorf("peer %s: got %d hops; want %d", ps[i].Name(), got, want)
				}
			}
			code, r = post(t, m.URL()+"/peer/hop", hopBody([]string{"D"}, 1))
			if code != http.StatusBadRequest || !strings.Contains(deref(r.Error), `unknown peer "D"`) {
				t.Errorf("got %d %q; want 400 unknown peer", code, deref(r.Error))
			}
		})
	}
}
