package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// recordedPaths reads the request paths of an access log by hand (the second word of each line's
// quoted request), counting each: what a replay of it must send.
func recordedPaths(t *testing.T, file string) (map[string]int, int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	paths, n := map[string]int{}, 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		req := strings.Fields(strings.Split(sc.Text(), `"`)[1])
		paths[req[1]]++
		n++
	}
	return paths, n
}

// pathLab is a lab server that counts the requests it answers by path (with the query), and those
// that carry the header X-Replay: yes.
type pathLab struct {
	*lab.Server
	mu      sync.Mutex
	paths   map[string]int
	flagged int
}

func newPathLab(t *testing.T) *pathLab {
	t.Helper()
	l := &pathLab{paths: map[string]int{}}
	s, err := lab.New(lab.Config{}, lab.WithMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			l.mu.Lock()
			l.paths[r.URL.RequestURI()]++
			if r.Header.Get("X-Replay") == "yes" {
				l.flagged++
			}
			l.mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	l.Server = s
	return l
}

// TestReplayScenarioSendsTheRecordingToEachTarget runs a plan file whose scenario replays
// examples/replay/access.log (named relative to the plan file) against two lab targets: each
// target gets every recorded request, path by path, with the scenario's header, and the report
// puts the two runs side by side.
func TestReplayScenarioSendsTheRecordingToEachTarget(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "examples", "replay", "access.log")
	want, total := recordedPaths(t, src)
	if total != 20 {
		t.Fatalf("%s has %d requests; this test counts on 20", src, total)
	}
	dir := t.TempDir()
	rec, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recorded.log"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := newPathLab(t), newPathLab(t)
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  recorded:
    replay:
      files: [recorded.log]
      speed: 40
    header: "X-Replay: yes"
    connections: 4
`, a.URL(), b.URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := Run(ctx, bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 2 {
		t.Fatalf("runs: got %d; want one per target", len(out.Runs))
	}
	for i, l := range []*pathLab{a, b} {
		m := out.Runs[i]
		if m.Err != nil || m.Summary == nil {
			t.Fatalf("%s: %v", m.RunID, m.Err)
		}
		if m.Target != "ab"[i:i+1] {
			t.Errorf("run %d is against %s; want %s", i, m.Target, "ab"[i:i+1])
		}
		if s := m.Summary.Requests; s.Intended != uint64(total) || s.Sent != uint64(total) || s.OK != uint64(total) {
			t.Errorf("%s: intended %d, sent %d, ok %d; want the %d recorded", m.RunID, s.Intended, s.Sent, s.OK, total)
		}
		if l := m.Summary.Config.Load; l.Requests != uint64(total) || l.Connections != 4 {
			t.Errorf("%s: the plan says %d requests, %d connections; want the %d recorded, the scenario's 4", m.RunID, l.Requests, l.Connections, total)
		}
		l.mu.Lock()
		if fmt.Sprint(l.paths) != fmt.Sprint(want) {
			t.Errorf("target %s got the paths %v; want the recorded %v", m.Target, l.paths, want)
		}
		if l.flagged != total {
			t.Errorf("target %s got %d requests with the scenario's header; want all %d", m.Target, l.flagged, total)
		}
		l.mu.Unlock()
	}
	var text bytes.Buffer
	if err := Render(&text, out, "text", report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"═══ recorded ═══", "══ a ══", "══ b ══", "══ compared with a ══"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text report lacks %q:\n%s", w, text.String())
		}
	}
}

// With expect_recorded_status, each target's answers are judged by the statuses recorded: a
// target that answers 200 to everything fails the one request recorded as a 404, and passes the
// three recorded as 200.
func TestReplayScenarioJudgesByTheRecordedStatus(t *testing.T) {
	t.Parallel()
	src, err := filepath.Abs(filepath.Join("..", "examples", "replay", "statuses.log"))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for range 2 {
		s, err := lab.New(lab.Config{}, lab.WithMiddleware(func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		urls = append(urls, s.URL())
	}
	bench := readBench(t, t.TempDir(), fmt.Sprintf(`targets:
  a: {url: %q}
  b: {url: %q}
scenarios:
  recorded:
    replay: {files: [%q], speed: 40, expect_recorded_status: true}
`, urls[0], urls[1], src))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := Run(ctx, bench, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 2 {
		t.Fatalf("runs: got %d; want one per target", len(out.Runs))
	}
	for _, m := range out.Runs {
		if m.Err != nil || m.Summary == nil {
			t.Fatalf("%s: %v", m.RunID, m.Err)
		}
		if r := m.Summary.Requests; r.Sent != 4 || r.OK != 3 || r.Errors != 1 {
			t.Errorf("%s: sent %d, ok %d, errors %d; want 4, 3, 1 (the 404 recorded for /missing answered 200)", m.RunID, r.Sent, r.OK, r.Errors)
		}
	}
}
