package result

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// A file of 1.1 keeps what the monitor saw, one "resources" line per target and a "metrics" line,
// and gives them back as written.
func TestResourcesRoundTrip(t *testing.T) {
	t.Parallel()
	res := []Resources{
		{Target: "pid 42", Summary: ResourceSummary{Samples: 2, Duration: time.Second,
			CPUPercent: ResourceStat{Avg: 50, Peak: 50, Samples: 1}, RSS: ResourceStat{Avg: 64 << 20, Peak: 65 << 20, Samples: 2}},
			Samples: []ResourceSample{
				{At: 0, Procs: 1, RSS: 64 << 20, Threads: 3, FDs: ptr(7)},
				{At: time.Second, Interval: time.Second, Procs: 1, CPUPercent: 50, RSS: 65 << 20, Threads: 3, FDs: ptr(8),
					DiskRead: ptr(uint64(4096)), DiskWrite: ptr(uint64(0)), NetRx: ptr(uint64(1000)), NetTx: ptr(uint64(2000))},
			}},
		{Target: "rpcbench (self)", Self: true, Cores: 2, Error: "monitor: reading: gone"},
	}
	m := Metrics{URL: "http://127.0.0.1:9/metrics", Series: []string{"up", `x_total{a="b"}`}, Types: []string{"gauge", "counter"},
		Samples: []MetricsSample{{At: 0, Values: []*float64{ptr(1.0), nil}}, {At: time.Second, Values: []*float64{ptr(1.0), ptr(2.5)}}}}
	buf := bytes.NewBuffer(oneIntervalFile(t, func(w *Writer) error {
		if err := w.WriteResources(res...); err != nil {
			return err
		}
		return w.WriteMetrics(m)
	}))
	if !strings.Contains(buf.String(), `"version":"1.3"`) {
		t.Errorf("header: got %q; want version 1.3", strings.SplitN(buf.String(), "\n", 2)[0])
	}
	f, err := Read(bytes.NewReader(buf.Bytes()), "r.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Resources, res) {
		t.Errorf("resources: got %+v; want %+v", f.Resources, res)
	}
	if f.Metrics == nil || !reflect.DeepEqual(*f.Metrics, m) {
		t.Errorf("metrics: got %+v; want %+v", f.Metrics, m)
	}
	if f.Intervals != 1 || f.Total.Endpoints[0].OK != 2 || f.CutShort() {
		t.Errorf("got %d intervals, %d ok, cut short %v; want 1, 2, false", f.Intervals, f.Total.Endpoints[0].OK, f.CutShort())
	}
}

// A file of format 1.0, written before the monitor existed, still reads: no resources, no
// metrics, the same figures. And a reader that knows only 1.0's kinds (modelled by the rule it
// follows: unknown kinds are skipped) reads a 1.1 file's intervals and trailer unchanged — shown
// here by dropping our two kinds' lines and comparing.
func TestResourcesOldFiles(t *testing.T) {
	t.Parallel()
	old := `{"kind":"header","format":"rpcbench.result","version":"1.0","endpoints":["a"]}
{"kind":"interval","start_ns":0,"end_ns":1000000000,"endpoints":[{"sent":2,"completed":2,"ok":2}]}
{"kind":"trailer","measured_start":"2026-01-01T00:00:00Z","elapsed_ns":1000000000,"sending_ns":1000000000,"intended":2}
`
	f, err := Read(strings.NewReader(old), "old.rb", nil)
	if err != nil {
		t.Fatalf("a 1.0 file: %v", err)
	}
	if f.Resources != nil || f.Metrics != nil || f.Total.Endpoints[0].OK != 2 || f.CutShort() {
		t.Errorf("a 1.0 file: got resources %v, metrics %v, %d ok, cut short %v; want none, none, 2, false",
			f.Resources, f.Metrics, f.Total.Endpoints[0].OK, f.CutShort())
	}
	var lines []string
	for _, l := range strings.SplitAfter(old, "\n") {
		lines = append(lines, l)
		if strings.Contains(l, `"interval"`) {
			lines = append(lines, `{"kind":"resources","target":"pid 1","summary":{"samples":1},"samples":[{"at_ns":0,"procs":1}]}`+"\n",
				`{"kind":"metrics","url":"http://x/metrics","series":["up"],"types":["gauge"],"samples":[{"at_ns":0,"values":[1]}]}`+"\n")
		}
	}
	newer := strings.Join(lines, "")
	g, err := Read(strings.NewReader(newer), "new.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Resources) != 1 || g.Resources[0].Target != "pid 1" || g.Metrics == nil || *g.Metrics.Samples[0].Values[0] != 1 {
		t.Errorf("got resources %+v, metrics %+v; want pid 1 and up=1", g.Resources, g.Metrics)
	}
	g.Resources, g.Metrics, g.Path = nil, nil, f.Path
	if a, b := mustJSON(t, f), mustJSON(t, g); a != b {
		t.Errorf("the 1.1 file's other figures differ from the 1.0 file's:\n%s\n%s", b, a)
	}
}

func mustJSON(t *testing.T, f *File) string {
	t.Helper()
	b, err := json.Marshal(struct {
		H       Header
		T       *Trailer
		N       int
		S, C, O uint64
	}{f.Header, f.Trailer, f.Intervals, f.Total.Total().Sent, f.Total.Total().Completed, f.Total.Total().OK})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestResourcesBadRecords(t *testing.T) {
	t.Parallel()
	const hdrLine = `{"kind":"header","format":"rpcbench.result","version":"1.1","endpoints":["a"]}` + "\n"
	tests := []struct{ name, in, want string }{
		{"bad resources", hdrLine + `{"kind":"resources","samples":"x"}` + "\n", "bad.rb:2: bad resources record"},
		{"bad metrics", hdrLine + `{"kind":"metrics","series":1}` + "\n", "bad.rb:2: bad metrics record"},
		{"ragged metrics", hdrLine + `{"kind":"metrics","series":["a","b"],"samples":[{"at_ns":0,"values":[1]}]}` + "\n", "bad.rb:2: metrics sample 1 has 1 values for 2 series"},
		{"two metrics", hdrLine + `{"kind":"metrics","series":[]}` + "\n" + `{"kind":"metrics","series":[]}` + "\n", "bad.rb:3: a second metrics record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tc.in), "bad.rb", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v; want one containing %q", err, tc.want)
			}
		})
	}
}
