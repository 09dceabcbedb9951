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
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "s.other.*pprof")); len(m) > 0 {
		t.Errorf("target other, without profile:, has profiles %v", m)
	}
	for _, m := range out.Runs {
		notes := strings.Join(m.Summary.Notes, "\n")
		if has := strings.Contains(notes, "s.go.cpu.pprof"); has != (m.Target == "go") {
			t.Errorf("%s: notes %q; the CPU profile named: %v, want %v", m.RunID, notes, has, m.Target == "go")
		}
		if m.Target == "other" && strings.Contains(notes, "profil") {
			t.Errorf("%s: notes %q; want no word of profiles for a target without profile:", m.RunID, notes)
		}
	}
}
