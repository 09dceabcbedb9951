package cli

import (
	"testing"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// TestRunMaxBody checks 4 KiB answers against --max-body 1KiB: with a check, every answer is kept
// and fails with class too-large; within the default limit none does.
func TestRunMaxBody(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{BodyBytes: 4096})
	tests := []struct {
		name string
		args []string
		want uint64
	}{
		{"over --max-body", []string{"--max-body", "1KiB"}, 20},
		{"within the default", nil, 0},
	}
	for _, tc := range tests {
		args := append([]string{"run", "--requests", "20", "--connections", "2", "--expect-status", "200"}, tc.args...)
		code, s, stderr := rpcRun(t, append(args, srv.URL())...)
		// a run in which no request succeeded exits 1
		if want := map[bool]int{true: ExitSLO, false: ExitOK}[tc.want == 20]; code != want {
			t.Fatalf("%s: exit %d; want %d; stderr %s", tc.name, code, want, stderr)
		}
		if got := s.Errors["too-large"]; got != tc.want || s.Requests.Sent != 20 {
			t.Errorf("%s: got %d too-large of %d sent (errors %v); want %d of 20", tc.name, got, s.Requests.Sent, s.Errors, tc.want)
		}
	}
	if code, _, stderr := mainOut("run", "--max-body", "lots", srv.URL()); code != ExitUsage {
		t.Errorf("--max-body lots: got exit %d (%s); want %d", code, stderr, ExitUsage)
	}
}

// A gRPC answer kept for a check obeys --max-body as HTTP's does; without a check it is counted
// whatever its length.
func TestRunGRPCMaxBody(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{PayloadBytes: 4096})
	url := "grpc://" + s.GRPCAddr() + "/rpz.ItemService/CreateItem"
	for _, tc := range []struct {
		name string
		args []string
		want uint64
	}{
		{"checked, over --max-body", []string{"--check-json-exists", "id", "--max-body", "1KiB"}, 10},
		{"checked, within the default", []string{"--check-json-exists", "id"}, 0},
		{"not checked", []string{"--max-body", "1KiB"}, 0},
	} {
		args := append([]string{"run", "--requests", "10", "--connections", "1", "--body", `{"id":"m{{seq}}"}`}, tc.args...)
		code, sum, stderr := rpcRun(t, append(args, url)...)
		if want := map[bool]int{true: ExitSLO, false: ExitOK}[tc.want == 10]; code != want {
			t.Fatalf("%s: exit %d; want %d; stderr %s", tc.name, code, want, stderr)
		}
		if got := sum.Errors["too-large"]; got != tc.want || sum.Requests.Sent != 10 || sum.Requests.OK != 10-tc.want {
			t.Errorf("%s: got %d too-large, %d ok of %d sent (errors %v); want %d too-large of 10", tc.name, got, sum.Requests.OK, sum.Requests.Sent, sum.Errors, tc.want)
		}
	}
}
