//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// A run that monitors one process while another one serves the target's port is invalid, naming
// the process that answered and the one monitored, and its result file says so again; monitoring
// the process that serves gives no such reason. Both are real child processes on 127.0.0.1.
func TestRunAnsweredByAnotherProcess(t *testing.T) {
	t.Parallel()
	server, bystander := startChild(t, "idle"), startChild(t, "idle")
	u, err := url.Parse(server.url)
	if err != nil {
		t.Fatal(err)
	}
	answered := fmt.Sprintf("the target answered from pid %d (%s) on %s, not from the monitored process(es): pid %d",
		server.pid, server.name, u.Host, bystander.pid)
	verdict := func(monitored int) (summary.Validity, string) {
		t.Helper()
		rb := filepath.Join(t.TempDir(), "run.rb")
		code, out, stderr := cliRun(t, "run", "--rate", "50", "--duration", "1s", "--quiet", "--format", "json",
			"--monitor-pid", fmt.Sprint(monitored), "--out", rb, server.url)
		var run struct {
			Validity summary.Validity `json:"validity"`
		}
		if err := json.Unmarshal([]byte(out), &run); code != ExitOK || err != nil {
			t.Fatalf("run monitoring pid %d: exit %d, %v, stderr %s", monitored, code, err, stderr)
		}
		return run.Validity, rb
	}
	v, rb := verdict(bystander.pid)
	if v.Valid || !slices.Contains(v.Reasons, answered) {
		t.Errorf("monitoring the bystander: reasons %q; want %q", v.Reasons, answered)
	}
	if _, text, _ := cliRun(t, "report", rb); !strings.Contains(strings.SplitN(text, "\n", 2)[0], answered) {
		t.Errorf("report of the result file starts %q; want the reason %q", strings.SplitN(text, "\n", 2)[0], answered)
	}
	// the server itself, and this test's process: the server's parent, with it below
	for _, pid := range []int{server.pid, os.Getpid()} {
		v, _ = verdict(pid)
		for _, r := range v.Reasons {
			if strings.Contains(r, "answered from") {
				t.Errorf("monitoring pid %d (the server %d, its parent %d): reason %q", pid, server.pid, os.Getpid(), r)
			}
		}
	}
}
