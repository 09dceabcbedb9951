// Package prometheustest starts a real Prometheus server for the tests of the live outputs that
// send to it (remote write), and queries it back over its HTTP API.
package prometheustest

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start starts Debian's prometheus with its remote-write receiver on a loopback port and
// a storage directory of the test's, and returns its base URL once it says it is ready.
func Start(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not installed; .ci/run installs it (apt-get install prometheus)")
		}
		t.Skip("prometheus is not installed (apt-get install prometheus): the remote-write receiver this test sends to")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr, "--web.enable-remote-write-receiver"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	var logMu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if !said && strings.Contains(sc.Text(), "Server is ready to receive web requests") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	t.Cleanup(func() {
		cancel()
		cmd.Wait() //nolint:errcheck // killed
	})
	select {
	case ok := <-ready:
		if !ok {
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("prometheus exited before it was ready:\n%s", log.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("prometheus was not ready in 60s")
	}
	return "http://" + addr
}

// Query returns the values of an instant query by the label named by.
func Query(t *testing.T, base, q, by string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %+v", q, err, body)
	}
	out := map[string]float64{}
	for _, r := range body.Data.Result {
		v, err := strconv.ParseFloat(r.Value[1].(string), 64)
		if err != nil {
			t.Fatal(err)
		}
		out[r.Metric[by]] = v
	}
	return out
}
