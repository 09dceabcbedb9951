package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// CommandResult is what a command scenario did against one target.
type CommandResult struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	// Wall is the command's wall time, from its start to its exit.
	Wall time.Duration `json:"wall_ns"`
	// ExitCode is the command's exit status; -1 when it was killed or could not start.
	ExitCode int `json:"exit_code"`
	// Err says why the command did not finish on its own: it could not start, it timed out, it was
	// interrupted; "" when it exited.
	Err string `json:"error,omitempty"`
	// Tests counts the tests of the JUnit XML reports the command wrote when the scenario names
	// them (plan.Scenario.JUnit), else of its `go test -json` output; nil when there were none.
	Tests *TestCounts `json:"tests,omitempty"`
	// TestsErr says why the JUnit XML reports could not be counted: the command wrote none, or one
	// is not JUnit XML (its file, line and column named); "" when they were.
	TestsErr string `json:"tests_error,omitempty"`
	// Output names the file of the command's output, when it was kept.
	Output string `json:"output,omitempty"`
	// TargetEnded says the target's started command exited while this command ran (see
	// Measured); "" otherwise.
	TargetEnded string `json:"target_ended,omitempty"`
}

// OK reports whether the command exited 0 on its own, its JUnit XML reports (when it writes
// them) read, its target's command running all along.
func (c CommandResult) OK() bool {
	return c.Err == "" && c.ExitCode == 0 && c.TestsErr == "" && c.TargetEnded == ""
}

// TestCounts counts the tests (subtests included) of `go test -json` output by their last action,
// or the test cases of JUnit XML reports (see CountJUnit).
type TestCounts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// testEvent is the part of a `go test -json` line that counts.
type testEvent struct {
	Action string
	Test   string
}

// testCounter is an io.Writer that reads `go test -json` lines as they come and counts the tests.
type testCounter struct {
	partial []byte
	counts  TestCounts
	seen    bool
}

func (t *testCounter) Write(b []byte) (int, error) {
	t.partial = append(t.partial, b...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.line(t.partial[:i])
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 1<<20 {
		t.partial = t.partial[:0] // a line too long to be an event
	}
	return len(b), nil
}

func (t *testCounter) line(l []byte) {
	l = bytes.TrimSpace(l)
	if len(l) == 0 || l[0] != '{' {
		return
	}
	var ev testEvent
	if json.Unmarshal(l, &ev) != nil || ev.Test == "" {
		return
	}
	switch ev.Action {
	case "pass":
		t.counts.Passed++
	case "fail":
		t.counts.Failed++
	case "skip":
		t.counts.Skipped++
	default:
		return
	}
	t.seen = true
}

// CountTests counts the tests of `go test -json` output; nil when it holds no test event.
func CountTests(r io.Reader) (*TestCounts, error) {
	var t testCounter
	if _, err := io.Copy(&t, r); err != nil {
		return nil, err
	}
	t.line(t.partial)
	if !t.seen {
		return nil, nil
	}
	return &t.counts, nil
}

// runCommand runs command scenario s against target t, in dir, with the target's URL and name in
// its environment (and where to write its JUnit XML report, when it writes one); its output goes
// to logDir/SCENARIO.TARGET.out when logDir is set. Cancelling ctx stops it (SIGTERM to its group,
// then SIGKILL).
func runCommand(ctx context.Context, s plan.Scenario, t plan.BenchTarget, dir, logDir string) CommandResult {
	r := CommandResult{Scenario: s.Name, Target: t.Name, ExitCode: -1}
	junit, junitEnv, err := newJUnitFiles(s, t, dir, logDir)
	if err != nil {
		r.Err = "junit: " + err.Error()
		return r
	}
	env := append([]string{plan.EnvTargetURL + "=" + t.URL, plan.EnvTargetName + "=" + t.Name}, junitEnv...)
	env = append(env, s.Env...)
	c := command(s.Command, s.Shell, dir, env)
	var counter testCounter
	var log io.WriteCloser
	if logDir != "" {
		r.Output = filepath.Join(logDir, s.Name+"."+t.Name+".out")
		f, err := os.Create(r.Output)
		if err != nil {
			r.Err = err.Error()
			return r
		}
		log = f
	}
	var out io.Writer = &counter
	if log != nil {
		out = io.MultiWriter(log, &counter)
	}
	c.Stdout = out
	if log != nil {
		c.Stderr = log
	}
	began := time.Now()
	p, err := start(s.Name, c, nil)
	if err != nil {
		if log != nil {
			log.Close()
		}
		r.Err = "cannot start: " + err.Error()
		return r
	}
	var timeout <-chan time.Time
	if s.Timeout > 0 {
		tm := time.NewTimer(s.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-p.done:
	case <-timeout:
		p.stop()
		r.Err = "timed out after " + s.Timeout.String()
	case <-ctx.Done():
		p.stop()
		r.Err = "interrupted"
	}
	r.Wall = time.Since(began)
	if log != nil {
		log.Close()
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		r.ExitCode = 0
	case errors.As(p.err, &ee):
		r.ExitCode = ee.ExitCode()
	}
	if junit != nil {
		var err error
		if r.Tests, err = junit.count(r.Err == ""); err != nil {
			r.TestsErr = err.Error()
		}
		return r
	}
	counter.line(counter.partial)
	if counter.seen {
		r.Tests = &counter.counts
	}
	return r
}
