// Package e2e is an end-to-end suite of the kind a plan file runs as a command scenario: it checks
// the service at $RPCBENCH_TARGET_URL (the built-in lab service, started in-process when the
// variable is not set, as under go test ./...). examples/compare-lab.yaml runs it against each
// target with `go test -json`, and reports its wall time and pass/fail counts.
package e2e

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
)

func target(t *testing.T) string {
	t.Helper()
	if u := os.Getenv("RPCBENCH_TARGET_URL"); u != "" {
		return strings.TrimRight(u, "/")
	}
	s, err := lab.New(lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL()
}

func TestReadAnswers200(t *testing.T) {
	t.Parallel()
	resp, err := http.Get(target(t) + "/v0/entity?id=1")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v0/entity?id=1: status %d; want 200", resp.StatusCode)
	}
}

func TestWriteAnswers200(t *testing.T) {
	t.Parallel()
	req, err := http.NewRequest(http.MethodPut, target(t)+"/v0/entity?id=2", strings.NewReader(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("PUT /v0/entity?id=2: status %d; want 200", resp.StatusCode)
	}
}
