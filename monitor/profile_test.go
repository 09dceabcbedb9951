package monitor

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// pprofServer serves net/http/pprof of this process on 127.0.0.1.
func pprofServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/debug/pprof"
}

var profSink atomic.Pointer[[]byte] // keeps the work from being optimised away; atomic: several tests burn at once

// burnProfiled spins and allocates until quit is closed (at most 10 s), so that a profile of this
// process has CPU samples and allocations in it.
func burnProfiled(quit <-chan struct{}) {
	end := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(end); i++ {
		select {
		case <-quit:
			return
		default:
		}
		b := make([]byte, 4096)
		for k := range b {
			b[k] = byte(i + k)
		}
		profSink.Store(&b)
	}
}

// hasFunc reports whether some sample of p has a frame of a function whose name holds name.
func hasFunc(p *profile.Profile, name string) bool {
	for _, s := range p.Sample {
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if ln.Function != nil && strings.Contains(ln.Function.Name, name) {
					return true
				}
			}
		}
	}
	return false
}

// A window of one second against this process's own pprof: the CPU profile has samples of the
// function that burnt the CPU, the allocations those of the function that allocated, and both
// survive a write and a parse. Not parallel: CPU profiling is process-wide.
func TestProfilesWindow(t *testing.T) {
	base := pprofServer(t)
	quit := make(chan struct{})
	defer close(quit)
	go burnProfiled(quit)
	p := StartProfiles(base, 0, time.Second, nil)
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the profiling of a 1 s window did not end in 30 s")
	}
	r := p.Stop()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.CPU == nil || len(r.CPU.Sample) == 0 || !hasFunc(r.CPU, "burnProfiled") {
		t.Fatalf("got CPU profile %v; want samples of burnProfiled", r.CPU)
	}
	if r.CPUSpan < 900*time.Millisecond || r.CPUSpan > 2*time.Second {
		t.Errorf("got a CPU span of %v; want about the 1 s window", r.CPUSpan)
	}
	if r.Allocs == nil || !hasFunc(r.Allocs, "burnProfiled") {
		t.Fatalf("got allocs %v; want samples of burnProfiled", r.Allocs)
	}
	for _, prof := range []*profile.Profile{r.CPU, r.Allocs} {
		var b bytes.Buffer
		if err := prof.Write(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := profile.Parse(&b); err != nil {
			t.Errorf("a written profile does not parse: %v", err)
		}
	}
}

// A stop before the delay ran out profiles nothing and asks the target nothing.
func TestProfilesStoppedInDelay(t *testing.T) {
	t.Parallel()
	asked := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked <- r.URL.Path }))
	defer srv.Close()
	r := StartProfiles(srv.URL, time.Hour, time.Second, nil).Stop()
	if r.CPU != nil || r.Allocs != nil || r.Err != nil || !r.Start.IsZero() {
		t.Errorf("got %+v; want nothing", r)
	}
	if len(asked) != 0 {
		t.Errorf("the target was asked %q; want nothing", <-asked)
	}
}

// A handler that answers an error is named with its status.
func TestProfilesErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "profiling is off", http.StatusNotFound)
	}))
	defer srv.Close()
	p := StartProfiles(srv.URL, 0, time.Second, nil)
	<-p.Done() // the first chunk fails at once
	r := p.Stop()
	if r.Err == nil || !strings.Contains(r.Err.Error(), "404 Not Found: profiling is off") || !strings.Contains(r.Err.Error(), "allocs at the start") {
		t.Errorf("got %v; want the 404 of allocs and of the CPU profile", r.Err)
	}
	if r.CPU != nil || r.Allocs != nil {
		t.Errorf("got profiles %v, %v; want none", r.CPU, r.Allocs)
	}
}

func TestProfileURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, err string }{
		{"http://127.0.0.1:6060/debug/pprof", "http://127.0.0.1:6060/debug/pprof", ""},
		{"http://127.0.0.1:6060/debug/pprof/", "http://127.0.0.1:6060/debug/pprof", ""},
		{"http://127.0.0.1:6060", "http://127.0.0.1:6060/debug/pprof", ""},
		{"127.0.0.1:6060", "", "want the http:// or https:// URL"},
		{"ftp://h/debug/pprof", "", "want the http:// or https:// URL"},
	}
	for _, tc := range tests {
		got, err := ProfileURL(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: got %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// allocsProfile returns a profile of alloc_objects and alloc_space with one sample per function
// name, of the given values.
func allocsProfile(at int64, samples map[string][2]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		TimeNanos:  at,
	}
	id := uint64(1)
	for name, v := range samples {
		f := &profile.Function{ID: id, Name: name}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l}, Value: []int64{v[0], v[1]}})
		id++
	}
	return p
}

// The delta of two allocs profiles is after less before, stack by stack; a stack that did not
// allocate in between is left out.
func TestAllocsDelta(t *testing.T) {
	t.Parallel()
	before := allocsProfile(1e9, map[string][2]int64{"a": {10, 1000}, "c": {3, 300}})
	after := allocsProfile(3e9, map[string][2]int64{"a": {15, 1500}, "b": {5, 50}, "c": {3, 300}})
	d, err := AllocsDelta(before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, s := range d.Sample {
		got[s.Location[0].Line[0].Function.Name] = [2]int64{s.Value[0], s.Value[1]}
	}
	want := map[string][2]int64{"a": {5, 500}, "b": {5, 50}}
	if len(got) != len(want) || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Errorf("got %v; want %v", got, want)
	}
	if d.DurationNanos != 2e9 {
		t.Errorf("got a duration of %d ns; want 2e9", d.DurationNanos)
	}
}

// A stop in the middle of a chunk keeps the chunks that finished and the allocations, and says how
// long the cut chunk had run. Not parallel: CPU profiling is process-wide.
func TestProfilesStopKeepsFinishedChunks(t *testing.T) {
	// the second chunk's request arrives only once the first chunk was read and merged
	second := make(chan struct{})
	var asked atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == 2 {
			close(second)
		}
		pprof.Profile(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	quit := make(chan struct{})
	defer close(quit)
	go burnProfiled(quit)
	// 1 s chunks of a 3 s window; Stop never waits for the chunk in flight
	p := startProfiles(srv.URL+"/debug/pprof", 0, 3*time.Second, nil, chunking{max: time.Second, wait: 0})
	select {
	case <-second: // the first chunk is done; the second is in flight
	case <-time.After(30 * time.Second):
		t.Fatal("no chunk in 30 s")
	}
	r := p.Stop()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.CPU == nil || !hasFunc(r.CPU, "burnProfiled") || r.CPUSpan < 900*time.Millisecond || r.CPUSpan > 1500*time.Millisecond {
		t.Errorf("got CPU %v over %v; want the first chunk's samples over about 1 s", r.CPU != nil, r.CPUSpan)
	}
	if r.CPULost <= 0 || r.CPULost > time.Second {
		t.Errorf("got %v lost; want the part of the second chunk, under 1 s", r.CPULost)
	}
	if r.Allocs == nil || !hasFunc(r.Allocs, "burnProfiled") {
		t.Errorf("got no allocations of burnProfiled; want them kept")
	}
}

// The profiler's own allocations — under net/http/pprof or runtime/pprof anywhere on the stack —
// are left out of an allocs profile and counted apart; the target's own stay.
func TestWithoutProfiler(t *testing.T) {
	t.Parallel()
	p := allocsProfile(1e9, map[string][2]int64{"main.handle": {7, 700}, "runtime/pprof.(*profileBuilder).build": {1, 100}})
	// a stack whose leaf is the target's kind of function, called by the pprof handler
	leaf := &profile.Function{ID: 10, Name: "bytes.growSlice"}
	caller := &profile.Function{ID: 11, Name: "net/http/pprof.Profile"}
	l1 := &profile.Location{ID: 10, Line: []profile.Line{{Function: leaf}}}
	l2 := &profile.Location{ID: 11, Line: []profile.Line{{Function: caller}}}
	p.Function, p.Location = append(p.Function, leaf, caller), append(p.Location, l1, l2)
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l1, l2}, Value: []int64{2, 200}})
	out, own, all := WithoutProfiler(p)
	if own != 300 || all != 1000 {
		t.Errorf("profiler's bytes %d of %d; want 300 of 1000", own, all)
	}
	var left []string
	for _, s := range out.Sample {
		left = append(left, fmt.Sprintf("%s=%d", s.Location[0].Line[0].Function.Name, s.Value[1]))
	}
	if strings.Join(left, " ") != "main.handle=700" {
		t.Errorf("samples left %v; want main.handle=700 alone", left)
	}
	if len(p.Sample) != 3 {
		t.Errorf("the profile given has %d samples after; want its 3 untouched", len(p.Sample))
	}
}

// slowPprof serves a stand-in for net/http/pprof that is slow to answer, as a loaded target is:
// /heap answers after allocsLag (each time, a profile whose alloc_space grows by 1 MiB), /profile
// after its seconds and cpuLag more (a CPU profile of one sample of 10 ms in work), each answer
// cut short by the request's end.
func slowPprof(t *testing.T, allocsLag, cpuLag time.Duration) (base string) {
	t.Helper()
	var allocs atomic.Int64
	wait := func(r *http.Request, d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-r.Context().Done():
			return false
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) { // the allocations, as /heap?gc=1 serves them
		if wait(r, allocsLag) {
			n := allocs.Add(1)
			allocsProfile(n, map[string][2]int64{"work": {n, n << 20}}).Write(w)
		}
	})
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		secs, _ := strconv.Atoi(r.URL.Query().Get("seconds"))
		if !wait(r, time.Duration(secs)*time.Second+cpuLag) {
			return
		}
		f := &profile.Function{ID: 1, Name: "work"}
		l := &profile.Location{ID: 1, Line: []profile.Line{{Function: f}}}
		p := &profile.Profile{
			SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Period:        int64(10 * time.Millisecond),
			DurationNanos: int64(secs) * int64(time.Second),
			Function:      []*profile.Function{f},
			Location:      []*profile.Location{l},
			Sample:        []*profile.Sample{{Location: []*profile.Location{l}, Value: []int64{1, int64(10 * time.Millisecond)}}},
		}
		p.Write(w)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/debug/pprof"
}

// A target slow to write its allocs profile — longer than the whole window, as a loaded target under
// the race detector is — still gives a CPU profile over the window (its first chunk asked for at
// once, not after the allocs profile) and both allocs profiles (the one at the start waited for).
func TestProfilesSlowAllocsKeepTheCPU(t *testing.T) {
	t.Parallel()
	base := slowPprof(t, 1200*time.Millisecond, 0)
	window := 300 * time.Millisecond
	p := startProfiles(base, 0, window, nil, defaultChunking)
	<-time.After(window) // the run's measured window, then the run stops the profiling
	r := p.Stop()
	if r.Err != nil {
		t.Errorf("got %v; want no error", r.Err)
	}
	if r.CPU == nil || r.CPUSpan != time.Second {
		t.Errorf("got CPU %v over %v; want the first chunk's profile over 1 s", r.CPU != nil, r.CPUSpan)
	}
	if r.Allocs == nil || r.AllocBytes != 1<<20 {
		t.Errorf("got allocs %v of %d bytes; want the 1 MiB between the two profiles", r.Allocs != nil, r.AllocBytes)
	}
}

// A CPU chunk whose answer comes late — after the window, the chunk and the least grace — is waited
// for when the target has shown itself slow (its allocs profile took 1 s, so its lag is 1 s and the
// grace 0.2 s + 2 s); and a chunk whose answer does not come within it leaves no CPU profile and
// says so: which chunk, cut after how long, why.
func TestProfilesSlowCPUAnswer(t *testing.T) {
	t.Parallel()
	short := chunking{max: 2 * time.Second, unknown: time.Second, wait: 1500 * time.Millisecond, grace: 200 * time.Millisecond}
	window := 300 * time.Millisecond
	t.Run("waited for", func(t *testing.T) {
		t.Parallel()
		base := slowPprof(t, time.Second, 1200*time.Millisecond)
		p := startProfiles(base, 0, window, nil, short)
		<-time.After(window)
		r := p.Stop()
		if r.Err != nil || r.CPU == nil || r.CPULost != 0 {
			t.Errorf("got CPU %v, %v lost, error %v; want the chunk answered 1.2 s late", r.CPU != nil, r.CPULost, r.Err)
		}
	})
	t.Run("never", func(t *testing.T) {
		t.Parallel()
		base := slowPprof(t, 0, time.Hour)
		p := startProfiles(base, 0, window, nil, short)
		<-time.After(window)
		r := p.Stop()
		if r.CPU != nil || r.CPULost < time.Second {
			t.Errorf("got CPU %v, %v lost; want none, the 1 s chunk and its grace lost", r.CPU != nil, r.CPULost)
		}
		if r.Err == nil || !strings.Contains(r.Err.Error(), "CPU profile: none: its first chunk was cut after 1.") || !strings.Contains(r.Err.Error(), "its answer had not come ") || !strings.Contains(r.Err.Error(), "after it was due") {
			t.Errorf("got %v; want it to say there is no CPU profile and why", r.Err)
		}
		if r.Allocs == nil {
			t.Errorf("got no allocs; want them (the allocs profiles answer at once)")
		}
	})
}

var windowSink [][]byte

//go:noinline
func allocInWindow() {
	for range 64 {
		windowSink = append(windowSink, make([]byte, 1<<20))
	}
	windowSink = nil
}

// The allocations of the window are in its profile however few collections the target ran: the Go
// runtime publishes its allocation profile at each collection, so each end of the window asks for
// one (gc=1). Here the collector is off: without that, the 64 MiB allocated in the window would not
// show at all. Not parallel: the collector's setting is process-wide.
func TestAllocsWindowWithoutCollections(t *testing.T) {
	base := pprofServer(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	p := StartProfiles(base, 0, 200*time.Millisecond, nil)
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the profiling of a 200 ms window did not end in 30 s")
	}
	allocInWindow() // after the start's profile, before the end's
	r := p.Stop()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Allocs == nil || !hasFunc(r.Allocs, "allocInWindow") || r.AllocBytes < 32<<20 {
		t.Fatalf("got %d bytes allocated in the window (allocInWindow in the profile: %v); want about 64 MiB from allocInWindow", r.AllocBytes, r.Allocs != nil && hasFunc(r.Allocs, "allocInWindow"))
	}
}
