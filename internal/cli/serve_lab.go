package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

func init() {
	registerServe(serveKind{
		name:    "lab",
		summary: "calibration service: set service time, stalls, errors, resets, body size",
		examples: `  rpcbench serve lab --latency 2ms
  rpcbench serve lab --latency-dist exp:1ms --body-bytes 1024
  rpcbench serve lab --latency-dist uniform:1ms-3ms --error-rate 0.01 --reset-rate 0.001 --seed 7
  rpcbench serve lab --latency 1ms --stall 1s --every 10s --stall-start 5s --spin 1ms
  rpcbench serve lab --addr 127.0.0.1:8080 --h3-addr 127.0.0.1:8443   also over HTTP/3 (self-signed: run --http3 --insecure https://127.0.0.1:8443/)`,
		flags: labFlags,
	})
}

func labFlags(fs *flag.FlagSet) func(ctx context.Context, se *serveEnv) error {
	var cfg lab.Config
	fs.DurationVar(&cfg.Latency, "latency", 0, "fixed service time of every request (`duration`, e.g. 2ms)")
	fs.Var(&cfg.Dist, "latency-dist", "random service time added to --latency: exp:MEAN, uniform:MIN-MAX or normal:MEAN,STDDEV (`dist`, e.g. exp:1ms)")
	fs.DurationVar(&cfg.Stall, "stall", 0, "length of each stall: requests in flight or arriving wait until it ends (`duration`, e.g. 1s)")
	fs.DurationVar(&cfg.Every, "every", 0, "period of the stalls; 0: a single stall (`duration`, e.g. 10s)")
	fs.DurationVar(&cfg.StallStart, "stall-start", 0, "when the first stall begins after the start (`duration`; default: --every)")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", 0, "`fraction` of requests answered 500 (0 to 1, e.g. 0.01)")
	fs.Float64Var(&cfg.ResetRate, "reset-rate", 0, "`fraction` of requests whose connection is reset (0 to 1)")
	fs.IntVar(&cfg.BodyBytes, "body-bytes", 0, "size of every 200 answer's body (`bytes`)")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the random draws: the same seed gives the same draws (`n`)")
	fs.StringVar(&cfg.H3Addr, "h3-addr", "", "also serve over HTTP/3 (QUIC) on this UDP `host:port`, with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start")
	fs.DurationVar(&cfg.SpinWait, "spin", 0, "poll the clock for the last `duration` of each wait instead of sleeping: waits end within µs rather than ~0.1–1ms late, at a CPU cost")
	return func(ctx context.Context, se *serveEnv) error {
		if err := checkLabFlags(cfg); err != nil {
			return err
		}
		cfg.Addr = se.Addr
		s, err := lab.New(cfg, lab.WithMiddleware(se.PprofHandler))
		if err != nil {
			return err
		}
		fmt.Fprintf(se.Out, "lab listening on %s\n", s.URL())
		if a := s.H3Addr(); a != "" {
			sayH3(se, "lab", a, false)
		}
		if se.Pprof {
			fmt.Fprintf(se.Out, "pprof on %s/debug/pprof/\n", s.URL())
		}
		if note := labStallNote(s.Schedule()); note != "" {
			fmt.Fprintln(se.Out, note)
		}
		return untilDone(ctx, s.Shutdown)
	}
}

// checkLabFlags names the flag of every bad value, so the user knows what to change.
func checkLabFlags(c lab.Config) error {
	var errs []error
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--latency", c.Latency}, {"--stall", c.Stall}, {"--every", c.Every}, {"--stall-start", c.StallStart}, {"--spin", c.SpinWait}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v is negative; want a duration ≥ 0", d.flag, d.v))
		}
	}
	if c.Stall == 0 && (c.Every != 0 || c.StallStart != 0) {
		errs = append(errs, errors.New("--every and --stall-start need --stall (the length of a stall), e.g. --stall 1s --every 10s"))
	}
	if c.Stall > 0 && c.Every > 0 && c.Stall >= c.Every {
		errs = append(errs, fmt.Errorf("--stall %v must be shorter than --every %v", c.Stall, c.Every))
	}
	fractions := true
	for _, r := range []struct {
		flag string
		v    float64
	}{{"--error-rate", c.ErrorRate}, {"--reset-rate", c.ResetRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %v is not a fraction; want 0 to 1, e.g. 0.01", r.flag, r.v))
			fractions = false
		}
	}
	if fractions && c.ErrorRate+c.ResetRate > 1 { // else the line above already said what is wrong
		errs = append(errs, fmt.Errorf("--error-rate %v and --reset-rate %v add up to more than 1", c.ErrorRate, c.ResetRate))
	}
	if c.BodyBytes < 0 || c.BodyBytes > lab.MaxBodyBytes {
		errs = append(errs, fmt.Errorf("--body-bytes %d is out of range; want 0 to %d", c.BodyBytes, lab.MaxBodyBytes))
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...).Error()}
	}
	return nil
}

// labStallNote says when the stalls come, or "" when there are none.
func labStallNote(s lab.Schedule) string {
	switch {
	case s.Length == 0:
		return ""
	case s.Every == 0:
		return fmt.Sprintf("one stall of %v, %v after the start", s.Length, s.First)
	}
	return fmt.Sprintf("stalls of %v every %v, the first %v after the start", s.Length, s.Every, s.First)
}
