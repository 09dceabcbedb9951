package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// A target with profile: {url: …} has its CPU and allocation profiles saved for each of its load
// runs in the run directory, named as the run's result file; a target without it has none.
func TestRunProfilesTarget(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	goTarget := httptest.NewServer(mux)
	t.Cleanup(goTarget.Close)
	other, _ := methodLab(t)
	dir := t.TempDir()
	b := readBench(t, dir, fmt.Sprintf(`targets:
  go:
    url: %q
    profile: {url: %q}
  other: {url: %q}
scenarios:
  s:
    path: /ok
    connections: 1
    duration: 1s
`, goTarget.URL+"/ok", goTarget.URL, other.URL()+"/"))
	out, err := Run(context.Background(), b, Options{ProfileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s.go.cpu.pprof", "s.go.allocs.pprof"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v; want the target's profile", name, err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var types []string
		for _, st := range p.SampleType {
			types = append(types, st.Type)
		}
		want := "cpu"
		if strings.Contains(name, "allocs") {
			want = "alloc_space"
		}
		if !slices.Contains(types, want) {
			t.Errorf("%s holds %v; want %s samples", name, types, want)
		}
		for _, s := range p.Sample {
			for _, l := range s.Location {
				for _, ln := range l.Line {
					if want == "alloc_space" && ln.Function != nil && (strings.HasPrefix(ln.Function.Name, "net/http/pprof.") || strings.HasPrefix(ln.Function.Name, "runtime/pprof.")) {
						t.Errorf("%s: an allocation under %s, the profiler's own, is left in", name, ln.Function.Name)
					}
				}
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "s.other.*pprof")); len(m) > 0 {
		t.Errorf("target other, without profile:, has profiles %v", m)
	}
	for _, m := range out.Runs {
		notes := strings.Join(m.Summary.Notes, "\n")
		if m.Target == "go" && !strings.Contains(notes, "s.go.allocs.pprof (allocations, without the profiler's own: ") {
			t.Errorf("%s: notes %q; want the allocations without the profiler's own, and their share", m.RunID, notes)
		}
		if has := strings.Contains(notes, "s.go.cpu.pprof"); has != (m.Target == "go") {
			t.Errorf("%s: notes %q; the CPU profile named: %v, want %v", m.RunID, notes, has, m.Target == "go")
		}
		if m.Target == "other" && strings.Contains(notes, "profil") {
			t.Errorf("%s: notes %q; want no word of profiles for a target without profile:", m.RunID, notes)
		}
	}
}

// A target's profile: {command: …} runs over each load run's measured window with {pid},
// {duration} and {out} replaced, its output beside {out}; one still running when the run ends is
// interrupted and may write {out} then.
func TestRunProfilerCommand(t *testing.T) {
	t.Parallel()
	target, _ := methodLab(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "first-done") // the first run's profiler ends at once, the second's runs on
	b := readBench(t, dir, fmt.Sprintf(`targets:
  t:
    url: %q
    monitor: {pid: %d}
    profile: {command: "if [ -e %s ]; then trap 'echo interrupted > {out}; exit 0' INT; sleep 30 & wait; else echo {pid} {duration} > {out}; echo said; touch %s; fi"}
scenarios:
  s:
    connections: 1
    warmup: 200ms
    duration: 1500ms
  again:
    connections: 1
    duration: 500ms
`, target.URL()+"/", os.Getpid(), marker, marker))
	out, err := Run(context.Background(), b, Options{ProfileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"s.t.profile":     fmt.Sprintf("%d 2\n", os.Getpid()), // 1.5 s measured: 2 whole seconds
		"s.t.profile.log": "said\n",
		"again.t.profile": "interrupted\n",
		"first-done":      "",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", file, b, err, want)
		}
	}
	for _, m := range out.Runs {
		want := "(exit status 0): "
		if m.Scenario == "again" {
			want = "(interrupted at the run's end, then exit status 0): "
		}
		if notes := strings.Join(m.Summary.Notes, "\n"); !strings.Contains(notes, "profiler command over the measured window "+want+filepath.Join(dir, m.Scenario+".t.profile")) {
			t.Errorf("%s: notes %q; want the profiler's exit and file", m.RunID, notes)
		}
	}
}
