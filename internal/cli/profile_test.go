package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// readProfile parses the profile at path.
func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// A run with --profile-url against the lab service with pprof on (as `serve lab --pprof` serves
// it: this process, which also generates the load, so its CPU is busy) saves a CPU and an
// allocation profile beside --out that parse and hold samples, and the report names them. Not
// parallel: CPU profiling is process-wide.
func TestRunProfileURL(t *testing.T) {
	srv, err := lab.New(lab.Config{}, lab.WithMiddleware((&serveEnv{Pprof: true}).PprofHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.rb")
	code, stdout, stderr := cliRun(t, "run", "--rate", "500", "--duration", "2s", "--warmup", "200ms", "--quiet", "--out", out,
		"--profile-url", srv.URL()+"/debug/pprof", srv.URL()+"/r")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cpu, allocs := filepath.Join(dir, "run.cpu.pprof"), filepath.Join(dir, "run.allocs.pprof")
	// the window is the 2 s schedule, longer when the generator fell behind (2.2s on a busy machine)
	window := regexp.MustCompile(`target profiles over the measured window: ` + regexp.QuoteMeta(cpu) + ` \(CPU over 2(\.\d+)?s`)
	if !window.MatchString(stdout) || !strings.Contains(stdout, allocs+" (allocations, without the profiler's own: ") {
		t.Errorf("the report does not name the profiles:\n%s", stdout)
	}
	p := readProfile(t, cpu)
	if len(p.Sample) == 0 || p.DurationNanos < 1.9e9 {
		t.Errorf("CPU profile: got %d samples over %d ns; want some over the 2 s window", len(p.Sample), p.DurationNanos)
	}
	if want := ": " + profileCPU(p).String() + " on CPU)"; !strings.Contains(stdout, want) {
		t.Errorf("the report does not give the profile's CPU time %q:\n%s", want, stdout)
	}
	if p := readProfile(t, allocs); len(p.Sample) == 0 || p.SampleType[0].Type != "alloc_objects" {
		t.Errorf("allocs profile: got %d samples of %v; want allocations", len(p.Sample), p.SampleType)
	}

	// --profile-dir without --out: cpu.pprof and allocs.pprof in it
	pdir := filepath.Join(dir, "profiles")
	code, _, stderr = cliRun(t, "run", "--rate", "200", "--duration", "1s", "--quiet", "--profile-dir", pdir, "--profile-url", srv.URL(), srv.URL()+"/r")
	if code != ExitOK {
		t.Fatalf("--profile-dir: exit %d: %s", code, stderr)
	}
	readProfile(t, filepath.Join(pdir, "cpu.pprof"))
	readProfile(t, filepath.Join(pdir, "allocs.pprof"))
}

// Profiling a target without pprof keeps the run and its figures, and says what failed.
func TestRunProfileURLWithoutPprof(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	out := filepath.Join(t.TempDir(), "run.rb")
	code, stdout, stderr := cliRun(t, "run", "--rate", "100", "--duration", "1s", "--quiet", "--out", out, "--profile-url", srv.URL()+"/debug/pprof", srv.URL()+"/r")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "--profile-url "+srv.URL()+"/debug/pprof: allocs at the start") || !strings.Contains(stdout, "profiling the target failed: allocs at the start") {
		t.Errorf("want the failure on stderr and in the notes; stdout:\n%s\nstderr: %s", stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the result file: %v; want it written", err)
	}
}

func TestRunProfileUsageErrors(t *testing.T) {
	t.Parallel()
	runCLICases(t, []string{"run"}, []cliCase{
		{"nowhere", []string{"--profile-url", "http://127.0.0.1:1/debug/pprof", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"--profile-url: say where the profiles go"}},
		{"bad url", []string{"--profile-url", "127.0.0.1:6060", "--out", "x.rb", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"--profile-url: want the http:// or https:// URL"}},
		{"dir alone", []string{"--profile-dir", "p", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"--profile-dir: give --profile-url too"}},
	})
}

// profileCPU adds up the CPU nanoseconds of a CPU profile's samples, rounded to the millisecond as
// the report rounds them.
func profileCPU(p *profile.Profile) time.Duration {
	var ns int64
	for i, st := range p.SampleType {
		if st.Type != "cpu" {
			continue
		}
		for _, s := range p.Sample {
			ns += s.Value[i]
		}
	}
	return time.Duration(ns).Round(time.Millisecond)
}
