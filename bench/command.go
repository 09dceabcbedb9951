package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	// Target is the target run against; "" for the scenario's build.
	Target string `json:"target,omitempty"`
	// Round is the round of the run when the scenario repeats (plan.Scenario.Repeat), from 1; 0
	// without repeat and for the build.
	Round int `json:"round,omitempty"`
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
	// Suite is the suite's own time as `go test -json` reports it: the Elapsed of its package
	// events, the time each package's test binary ran, build and link left out (summed over the
	// packages when there are several; they may run at once); 0 when the output has none (JUnit
	// XML counts, another command).
	Suite time.Duration `json:"suite_ns,omitempty"`
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

// String names the run as progress lines and failures do: "e2e on fast", "e2e on fast (round
// 2)", "e2e build".
func (c CommandResult) String() string {
	switch {
	case c.Target == "":
		return c.Scenario + " build"
	case c.Round > 0:
		return fmt.Sprintf("%s on %s (round %d)", c.Scenario, c.Target, c.Round)
	}
	return c.Scenario + " on " + c.Target
}

// exit says how the command ended: "exit 0", "timed out after 1m0s".
func (c CommandResult) exit() string {
	if c.Err != "" {
		return c.Err
	}
	return fmt.Sprintf("exit %d", c.ExitCode)
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
	Action  string
	Package string
	Test    string
	Elapsed float64 // seconds
}

// testCounter is an io.Writer that reads `go test -json` lines as they come, counts the tests and
// adds up the packages' own times.
type testCounter struct {
	partial []byte
	counts  TestCounts
	seen    bool
	suite   time.Duration
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
	if json.Unmarshal(l, &ev) != nil {
		return
	}
	if ev.Test == "" {
		if ev.Package != "" && (ev.Action == "pass" || ev.Action == "fail") {
			t.suite += time.Duration(ev.Elapsed * float64(time.Second)) // the package's test binary
		}
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

// runCommand runs round round (from 1; 0 when the scenario does not repeat) of command scenario s
// against target t, in dir, with the
// target's URL and name in its environment (and where to write its JUnit XML report, when it
// writes one); its output goes to logDir/SCENARIO.TARGET.out (SCENARIO.TARGET.ROUND.out, and its
// JUnit XML report to SCENARIO.TARGET.ROUND.junit.xml, when the scenario repeats) when logDir is
// set. Cancelling ctx stops it (SIGTERM to its group,
// then SIGKILL).
func runCommand(ctx context.Context, s plan.Scenario, t plan.BenchTarget, round int, dir, logDir string) CommandResult {
	r := CommandResult{Scenario: s.Name, Target: t.Name, Round: round, ExitCode: -1}
	base := s.Name + "." + t.Name
	if round > 0 {
		base += fmt.Sprintf(".%d", round)
	}
	junit, junitEnv, err := newJUnitFiles(s, base, dir, logDir)
	if err != nil {
		r.Err = "junit: " + err.Error()
		return r
	}
	env := append([]string{plan.EnvTargetURL + "=" + t.URL, plan.EnvTargetName + "=" + t.Name}, junitEnv...)
	env = append(env, s.Env...)
	var counter testCounter
	if !r.run(ctx, command(s.Command, s.Shell, dir, env), logDir, base+".out", s.Timeout, &counter) {
		return r
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
	r.Suite = counter.suite
	return r
}

// runBuild runs command scenario s's build, once, in dir, with the scenario's environment and
// timeout; its output goes to logDir/SCENARIO.build.out when logDir is set.
func runBuild(ctx context.Context, s plan.Scenario, dir, logDir string) CommandResult {
	r := CommandResult{Scenario: s.Name, ExitCode: -1}
	r.run(ctx, command(s.Build, s.BuildShell, dir, s.Env), logDir, s.Name+".build.out", s.Timeout, nil)
	return r
}

// run runs c, within timeout (0: none) and until ctx ends, its output in logDir/name when logDir
// is set and its standard output in counter too (when not nil), and records its output file, wall
// time and exit in r; false when it could not start.
func (r *CommandResult) run(ctx context.Context, c *exec.Cmd, logDir, name string, timeout time.Duration, counter io.Writer) bool {
	var log io.WriteCloser
	if logDir != "" {
		r.Output = filepath.Join(logDir, name)
		f, err := os.Create(r.Output)
		if err != nil {
			r.Err = err.Error()
			return false
		}
		log = f
	}
	var outs []io.Writer
	if log != nil {
		outs = append(outs, log)
		c.Stderr = log
	}
	if counter != nil {
		outs = append(outs, counter)
	}
	if len(outs) > 0 {
		c.Stdout = io.MultiWriter(outs...)
	}
	began := time.Now()
	p, err := start(r.Scenario, c, nil)
	if err != nil {
		if log != nil {
			log.Close()
		}
		r.Err = "cannot start: " + err.Error()
		return false
	}
	var expire <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		expire = tm.C
	}
	select {
	case <-p.done:
	case <-expire:
		p.stop()
		r.Err = "timed out after " + timeout.String()
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
	return true
}
