package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
  rpcbench serve lab --latency 20ms --stall 1s --every 7s --burn 80ms --burn-start 10s --burn-for 2s --metrics   GC-like pauses (lab_pause_seconds_total) and a CPU burn window
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
	fs.DurationVar(&cfg.Burn, "burn", 0, "CPU each request arriving in the burn window spins before its answer (`duration`, e.g. 20ms); with --burn-for")
	fs.DurationVar(&cfg.BurnStart, "burn-start", 0, "when the burn window begins after the start (`duration`)")
	fs.DurationVar(&cfg.BurnFor, "burn-for", 0, "length of the burn window (`duration`, e.g. 2s)")
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
		var served atomic.Pointer[lab.Server] // for --metrics, once it serves
		se.Collectors = labCollectors(&served)
		s, err := lab.New(cfg, lab.WithMiddleware(se.PprofHandler))
		if err != nil {
			return err
		}
		served.Store(s)
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
		if cfg.Burn > 0 {
			fmt.Fprintf(se.Out, "requests arriving from %v to %v after the start spin %v of CPU each\n", cfg.BurnStart, cfg.BurnStart+cfg.BurnFor, cfg.Burn)
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
	}{{"--latency", c.Latency}, {"--stall", c.Stall}, {"--every", c.Every}, {"--stall-start", c.StallStart}, {"--spin", c.SpinWait}, {"--burn", c.Burn}, {"--burn-start", c.BurnStart}, {"--burn-for", c.BurnFor}} {
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
	if (c.Burn == 0) != (c.BurnFor == 0) || c.Burn == 0 && c.BurnStart != 0 {
		errs = append(errs, errors.New("--burn, --burn-for and --burn-start go together: --burn the CPU per request, --burn-for the window's length, e.g. --burn 20ms --burn-start 5s --burn-for 2s"))
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

// labCollectors are the lab's own series for --metrics, read from its schedules at each scrape:
// lab_pause_seconds_total, the time its stalls have frozen requests so far (a counter, as a
// garbage collector's pause time is: go_gc_*, jvm_gc_*), lab_burning, 1 in its CPU burn window,
// and lab_start_time_seconds, the origin of both schedules.
func labCollectors(served *atomic.Pointer[lab.Server]) []prometheus.Collector {
	read := func(f func(s *lab.Server, now time.Time) float64) func() float64 {
		return func() float64 {
			if s := served.Load(); s != nil {
				return f(s, time.Now())
			}
			return 0
		}
	}
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lab_pause_seconds_total", Help: "Time the lab's scripted stalls have frozen its requests, as a GC's pause time."},
			read(func(s *lab.Server, now time.Time) float64 { return s.Schedule().Stalled(now).Seconds() })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lab_burning", Help: "1 while the lab's scripted CPU burn window lasts."},
			read(func(s *lab.Server, now time.Time) float64 {
				if s.Burning(now) {
					return 1
				}
				return 0
			})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lab_start_time_seconds", Help: "The lab's start, the origin of its schedules, in seconds since the epoch."},
			read(func(s *lab.Server, _ time.Time) float64 { return float64(s.Started().UnixNano()) / 1e9 })),
	}
}
