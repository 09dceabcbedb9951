package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/summary"
)

// ProfilerCommand runs a profiler of a target not written in Go (perf, async-profiler, py-spy)
// over a run's measured window: Command, through /bin/sh -c, with {pid} replaced by PID, {out}
// by Out and {duration} by the measured length in whole seconds, rounded up (0 when the run ends
// on a count, its length unknown). It starts when the warm-up ends; at the run's end it is given
// ProfilerWait to end by itself, then an interrupt (SIGINT), then, ProfilerWait later, killed.
// Its output goes to Out + ".log". A ProfilerCommand serves one run.
type ProfilerCommand struct {
	// Name says where it was asked for, for messages (targets.NAME.profile.command).
	Name    string
	Command string
	PID     int
	Out     string

	cmd     *exec.Cmd
	cancel  context.CancelFunc
	started chan error // receives the start's error (nil when it started), once
	quit    chan struct{}
}

// ProfilerWait is how long a profiler command has to end after the run, and after its interrupt.
const ProfilerWait = 5 * time.Second

// expand writes command with its placeholders replaced.
func (r *ProfilerCommand) expand(seconds int) string {
	return strings.NewReplacer("{pid}", strconv.Itoa(r.PID), "{out}", r.Out, "{duration}", strconv.Itoa(seconds)).Replace(r.Command)
}

// start starts the command when np's warm-up ends (unless the run stops before).
func (r *ProfilerCommand) start(np plan.Plan) {
	if r == nil {
		return
	}
	seconds := int(math.Ceil(np.Load.MeasuredLength().Seconds()))
	if np.Load.Requests > 0 {
		seconds = 0
	}
	r.started, r.quit = make(chan error, 1), make(chan struct{})
	go func() {
		select {
		case <-time.After(np.Load.Warmup):
		case <-r.quit:
			r.started <- errors.New("the run ended before its warm-up did")
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel = cancel
		c := exec.CommandContext(ctx, "/bin/sh", "-c", r.expand(seconds))
		ownGroup(c)
		c.WaitDelay = ProfilerWait
		log, err := os.Create(r.Out + ".log")
		if err != nil {
			r.started <- err
			return
		}
		c.Stdout, c.Stderr = log, log
		if err := c.Start(); err != nil {
			log.Close()
			r.started <- err
			return
		}
		r.cmd = c
		r.started <- nil
	}()
}

// stop ends the command (see ProfilerCommand) and says in s's notes what it left; with s nil
// (the run could not start) it only stops it.
func (r *ProfilerCommand) stop(s *summary.Summary, warn func(string)) {
	if r == nil || r.quit == nil {
		return
	}
	close(r.quit)
	if err := <-r.started; err != nil {
		if s != nil {
			warn(fmt.Sprintf("%s: %v", r.Name, err))
			s.Notes = append(s.Notes, fmt.Sprintf("the profiler command did not run: %v", err))
		}
		return
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	var err error
	interrupted := false
	select {
	case err = <-done:
	case <-time.After(ProfilerWait):
		interrupted = true
		r.cancel() // an interrupt, then a kill ProfilerWait later
		err = <-done
	}
	r.cancel()
	killGroup(r.cmd) // what the command started and left behind
	if f, ok := r.cmd.Stdout.(*os.File); ok {
		f.Close()
	}
	if s == nil {
		return
	}
	text := fmt.Sprint(err)
	if ps := r.cmd.ProcessState; ps != nil {
		text = ps.String() // "exit status 0", "signal: killed": not the context's cancel
	}
	if interrupted {
		text = "interrupted at the run's end, then " + text
	}
	if ps := r.cmd.ProcessState; ps == nil || !ps.Success() {
		warn(fmt.Sprintf("%s: %s (its output: %s.log)", r.Name, text, r.Out))
	}
	what := fmt.Sprintf("profiler command over the measured window (%s): %s", text, r.Out)
	if _, serr := os.Stat(r.Out); serr != nil {
		what += " (not written)"
	}
	s.Notes = append(s.Notes, what+", its output "+r.Out+".log")
}
