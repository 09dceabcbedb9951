package kv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// helperDirEnv names the store directory of the child process that TestHelperProcess runs.
const helperDirEnv = "RPCBENCH_KV_HELPER_DIR"

// TestHelperProcess is not a test: it is the server child of TestAcknowledgedWritesSurviveKill,
// run by re-executing the test binary. It prints the URL on stdout and serves until its stdin
// closes (the parent died), it is killed, or a minute passes.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("the server child of TestAcknowledgedWritesSurviveKill")
	}
	s, err := New(context.Background(), Config{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL())
	stdinClosed := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdinClosed) }() //nolint:errcheck
	select {
	case <-stdinClosed:
	case <-time.After(time.Minute):
	}
	s.Close()
}

// child is a server in another process, on dir.
type child struct {
	cmd   *exec.Cmd
	url   string
	stdin io.Closer
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { c.kill() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "http://") {
				urls <- l
				break
			}
		}
		close(urls)
		io.Copy(io.Discard, stdout) //nolint:errcheck
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatal("the child exited without printing its URL")
		}
		c.url = u
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not print its URL within 30s")
	}
	return c
}

// kill sends SIGKILL: no shutdown, no flush, no store Close.
func (c *child) kill() {
	c.cmd.Process.Kill() //nolint:errcheck // already dead is fine
	c.cmd.Wait()         //nolint:errcheck // killed
	c.stdin.Close()
}

func TestAcknowledgedWritesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, dir)
	const n = 200
	for i := range n {
		key := fmt.Sprintf("key-%03d", i)
		if code, _ := do(t, "PUT", c.url+"/v0/entity?id="+key, "value of "+key); code != 201 {
			t.Fatalf("PUT %s: got %d; want 201", key, code)
		}
	}
	if code, _ := do(t, "DELETE", c.url+"/v0/entity?id=key-007", ""); code != 202 {
		t.Fatalf("DELETE: got %d; want 202", code)
	}
	c.kill()

	c = startChild(t, dir)
	for i := range n {
		key := fmt.Sprintf("key-%03d", i)
		code, body := do(t, "GET", c.url+"/v0/entity?id="+key, "")
		want, wantCode := "value of "+key, 200
		if i == 7 {
			want, wantCode = "not found\n", 404
		}
		if code != wantCode || body != want {
			t.Errorf("after kill -9 and restart, GET %s: got %d %q; want %d %q", key, code, body, wantCode, want)
		}
	}
	c.kill()
}
