package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
)

// StopTimeout is how long a stopped command has after SIGTERM before it is killed.
const StopTimeout = 5 * time.Second

// pollEvery is the pause between two readiness probes.
const pollEvery = 50 * time.Millisecond

// process is a command started for a target or a command scenario, in a process group of its own
// so that stopping it stops its children too.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the command has exited
	err  error         // its exit, valid after done
	log  io.Closer
	// ready says how the target became ready (set by startTarget).
	ready Readiness
}

// Readiness is how a target started by its command became ready, before any run: how long after
// its command started it was found ready, and, for a target with a ready URL, that URL and what it
// answered — a target's own account of its start, such as the time and size of a prefill (serve
// kv's /v0/prefill: "prefilled 100000 keys, 10000000 bytes of values, in 1.234s").
type Readiness struct {
	Target string `json:"target"`
	// After runs from the command's start to the probe that found it ready (they run every
	// 50 ms): the start-up and what the target does before it answers, outside every run.
	After time.Duration `json:"-"`
	// URL is the ready URL (its secrets redacted); "" when the target was ready when its port
	// took connections.
	URL string `json:"ready_url,omitempty"`
	// Status and Answer are the ready URL's answer: its status and the first line of its body
	// (at most maxAnswer bytes).
	Status int    `json:"status,omitempty"`
	Answer string `json:"answer,omitempty"`
}

// maxAnswer bounds the part of a ready URL's body kept.
const maxAnswer = 200

// command builds the exec.Cmd of argv (one string: through /bin/sh -c) in dir with env added.
func command(argv []string, shell bool, dir string, env []string) *exec.Cmd {
	var c *exec.Cmd
	if shell {
		c = exec.Command("/bin/sh", "-c", argv[0])
	} else {
		c = exec.Command(argv[0], argv[1:]...)
	}
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	setGroup(c)
	return c
}

// start starts c with its output in log (nil: discarded).
func start(name string, c *exec.Cmd, log io.WriteCloser) (*process, error) {
	if log != nil {
		c.Stdout, c.Stderr = log, log
	}
	if err := c.Start(); err != nil {
		if log != nil {
			log.Close()
		}
		return nil, err
	}
	p := &process{name: name, cmd: c, done: make(chan struct{}), log: log}
	go func() {
		p.err = c.Wait()
		if p.log != nil {
			p.log.Close()
		}
		close(p.done)
	}()
	return p, nil
}

// stop asks the process group to end (SIGTERM), kills it after StopTimeout, and waits for the
// command's exit.
func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	signalGroup(p.cmd, false)
	select {
	case <-p.done:
	case <-time.After(StopTimeout):
		signalGroup(p.cmd, true)
		<-p.done
	}
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// startTarget starts t's command and waits until it is ready: its ready URL answers with a status
// below 500, or, without one, its URL's port takes connections. A port that takes connections
// before the command starts is refused (see portFree): the runs would measure whatever holds it.
// The command's output goes to logDir/NAME.log when logDir is set; again (a target started anew
// with another command) adds to that log after a line that gives the new command.
func startTarget(ctx context.Context, t plan.BenchTarget, dir, logDir string, again bool) (*process, error) {
	var log io.WriteCloser
	if logDir != "" {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if again {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(filepath.Join(logDir, t.Name+".log"), flags, 0o666)
		if err != nil {
			return nil, err
		}
		if again {
			fmt.Fprintf(f, "rpcbench bench: target %s started again: %s\n", t.Name, strings.Join(t.Command, " "))
		}
		log = f
	}
	if err := portFree(ctx, t); err != nil {
		if log != nil {
			log.Close()
		}
		return nil, err
	}
	env := append([]string{plan.EnvTargetURL + "=" + t.URL, plan.EnvTargetName + "=" + t.Name}, t.Env...)
	p, err := start(t.Name, command(t.Command, t.Shell, dir, env), log)
	if err != nil {
		return nil, fmt.Errorf("target %s: cannot start %q: %w", t.Name, strings.Join(t.Command, " "), err)
	}
	wait := t.ReadyTimeout
	if wait == 0 {
		wait = plan.DefaultReadyTimeout
	}
	began := time.Now()
	if p.ready, err = waitReady(ctx, p, t, wait); err != nil {
		p.stop()
		return nil, err
	}
	p.ready.After = time.Since(began)
	return p, nil
}

// waitReady polls the target until it answers, its command exits, wait passes or ctx ends; it
// returns what its ready URL answered, if it has one.
func waitReady(ctx context.Context, p *process, t plan.BenchTarget, wait time.Duration) (Readiness, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r := Readiness{Target: t.Name}
	probe := func() bool { return dialable(ctx, t.URL) }
	if t.Ready != "" {
		r.URL = plan.RedactURL(t.Ready)
		probe = func() bool {
			var ok bool
			r.Status, r.Answer, ok = answers(ctx, t.Ready)
			return ok
		}
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if done, err := p.exited(); done {
			return Readiness{}, fmt.Errorf("target %s: the command %q ended before the target was ready (%v)", t.Name, strings.Join(t.Command, " "), exitText(err))
		}
		if probe() {
			return r, nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				what := plan.RedactURL(t.URL) + " took no connection"
				if t.Ready != "" {
					what = t.Ready + " did not answer"
				}
				return Readiness{}, fmt.Errorf("target %s: not ready after %v: %s (raise ready_timeout?)", t.Name, wait, what)
			}
			return Readiness{}, ctx.Err()
		case <-tick.C:
		case <-p.done:
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// answers reports whether a GET of u gets an answer with a status below 500, with the answer's
// status and the first line of its body (at most maxAnswer bytes of it).
func answers(ctx context.Context, u string) (status int, line string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", false
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return 0, "", false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer)) // what arrived: the line is a courtesy
	line, _, _ = strings.Cut(string(body), "\n")
	return resp.StatusCode, strings.TrimSpace(strings.ToValidUTF8(line, "?")), resp.StatusCode < 500
}

// dialable reports whether the host and port of u take a TCP connection.
func dialable(ctx context.Context, u string) bool {
	c, err := monitor.DialURL(ctx, u)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// portFree checks that no one takes connections at t's URL yet, before its command starts:
// otherwise the command (a server) could not bind its port, and the runs would measure what holds
// it. The error names the port and, where the system tells (Linux), the processes that listen on it.
func portFree(ctx context.Context, t plan.BenchTarget) error {
	addr := monitor.AnswerAt(ctx, t.URL)
	if addr == nil {
		return nil
	}
	return fmt.Errorf("target %s: port %d (%s) is in use before its command starts%s: stop that process, or give the target a free port", t.Name, addr.Port, plan.RedactURL(t.URL), heldBy(addr))
}

// portFreed waits, up to wait, until t's URL takes no connection: a stopped command's children
// (a server under /bin/sh -c) may still hold its port for a moment after the command has exited.
func portFreed(ctx context.Context, t plan.BenchTarget, wait time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(pollEvery / 5)
	defer tick.Stop()
	for monitor.AnswerAt(ctx, t.URL) != nil {
		select {
		case <-ctx.Done():
			return // startTarget tells, as portFree finds it still held
		case <-tick.C:
		}
	}
}

// heldBy says which processes of this machine listen at addr, as ", held by pid 12 (name)"; ""
// when addr is not this machine's or the system does not tell.
func heldBy(addr *net.TCPAddr) string {
	if !monitor.Local(addr.IP) {
		return ""
	}
	l, err := monitor.Listeners(addr.IP, addr.Port)
	if err != nil {
		return ""
	}
	var who []string
	for _, p := range l.Procs {
		who = append(who, fmt.Sprintf("pid %d (%s)", p.PID, p.Comm))
	}
	switch {
	case len(who) > 0:
		return ", held by " + strings.Join(who, ", ")
	case l.Hidden > 0:
		return ", held by a process whose open files this user cannot read"
	}
	return ""
}

// answering returns the processes to watch of a started target: those of its command's process
// tree that listen on its URL's port — the ones that answer — else the command itself (where the
// system does not tell, or nothing listens there). note says so when the port is held by processes
// outside the command's tree.
func answering(ctx context.Context, p *process, t plan.BenchTarget) (pids []int, note string) {
	root := p.cmd.Process.Pid
	addr := monitor.AnswerAt(ctx, t.URL)
	if addr == nil || !monitor.Local(addr.IP) {
		return []int{root}, ""
	}
	l, err := monitor.Listeners(addr.IP, addr.Port)
	if err != nil || len(l.Procs) == 0 {
		return []int{root}, ""
	}
	tree, err := monitor.Descendants(root)
	if err != nil {
		return []int{root}, ""
	}
	var outside []string
	for _, lp := range l.Procs {
		if slices.Contains(tree, lp.PID) {
			pids = append(pids, lp.PID)
		} else {
			outside = append(outside, fmt.Sprintf("pid %d (%s)", lp.PID, lp.Comm))
		}
	}
	if len(pids) == 0 {
		return []int{root}, fmt.Sprintf("port %d is held by %s, outside %s's command (pid %d): the command's processes are watched", addr.Port, strings.Join(outside, ", "), t.Name, root)
	}
	return pids, ""
}
