package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeupFigure is one figure of report.json, over its columns (targets).
type writeupFigure struct {
	Name, Unit     string
	Values, Ratios []*float64
}

// writeupRun is what the checks read of one run's report.
type writeupRun struct {
	Requests struct {
		Completed float64
	}
	LatencyMs map[string]float64 `json:"latency_ms"`
	Endpoints []struct {
		Name     string
		Requests struct {
			Completed float64
		}
		LatencyMs map[string]float64 `json:"latency_ms"`
	}
	Resources []struct {
		Target string
		Pids   []int
	}
}

// writeupJSON is what the checks read of a plan's report.json.
type writeupJSON struct {
	Scenarios []struct {
		Name  string
		Steps []struct {
			Level   string
			Targets []string
			// Vs is each target's resources against the first's, in words.
			Vs map[string]string `json:"resources_vs_first"`
			// Report is several targets' runs and their comparison, or one target's run.
			Report struct {
				writeupRun
				Runs       []writeupRun
				Comparison *struct {
					Labels    []string
					Metrics   []writeupFigure
					Endpoints []struct {
						Name    string
						Metrics []writeupFigure
					}
				}
			}
		}
		Tables []struct {
			Section string
			Targets []string
			Rows    []struct {
				Level, Endpoint string
				Figures         []writeupFigure
			}
		}
		Commands []struct {
			Target   string
			ExitCode int `json:"exit_code"`
			Tests    *struct{ Passed, Failed int }
			Suite    time.Duration `json:"suite_ns"`
		}
		Build *struct {
			ExitCode int `json:"exit_code"`
		}
		Capacity []struct {
			Target, Error string
			Report        *struct {
				Answer string
				Steps  []struct{ Rate, Answers float64 }
			}
		}
		WholeRun []struct {
			Target    string
			Steps     int
			Resources []json.RawMessage
			Vs        string `json:"vs_first"`
		} `json:"whole_run"`
	}
}

// writeupTable names a side-by-side table of report.json (a scenario's "tables") that a
// write-up's figure comes from: its section, its columns, the figures of each row, and rows
// (steps, and endpoints in the tables over the steps) it must have among others.
type writeupTable struct {
	section   string
	targets   []string
	figures   []string
	levels    []string
	endpoints []string
}

// writeupStep names a step of a scenario whose comparison (several targets) or run (one) a
// write-up's figure comes from: the step's level ("" for a scenario of one step), its columns,
// the figures of its totals and the endpoints it must have.
type writeupStep struct {
	scenario, level string
	targets         []string
	figures         []string
	endpoints       []string
}

// percentileRank orders the latency figures that cannot decrease one after the other.
var percentileRank = map[string]float64{"min": 0, "p50": 50, "p75": 75, "p90": 90, "p95": 95, "p99": 99, "p99.9": 99.9, "p99.99": 99.99, "max": 1000}

// plausible checks figures over n columns: a value in each, counts and throughput above 0, an
// error rate between 0 and 100 %, each column's percentiles in order (p50 ≤ p95 ≤ p99 ≤ max, of
// the latency and of an answer metric alike) and its mean at most its max, and each ratio the
// column's value over the first's, recomputed here.
func plausible(t *testing.T, where string, figs []writeupFigure, n int) {
	t.Helper()
	type point struct {
		rank float64
		name string
		v    float64
	}
	byGroup := map[string][][]point{} // per prefix ("" for the latency), per column: its percentiles
	means := map[string][]*float64{}  // per prefix, per column: the mean
	for _, f := range figs {
		if len(f.Values) != n || len(f.Ratios) != n {
			t.Errorf("%s: %s: %d values, %d ratios; want %d of each", where, f.Name, len(f.Values), len(f.Ratios), n)
			continue
		}
		for i, v := range f.Values {
			if v == nil || math.IsNaN(*v) || *v < 0 {
				t.Errorf("%s: %s of column %d: %v; want a value of 0 or more", where, f.Name, i+1, v)
				continue
			}
			switch {
			case (f.Name == "requests" || f.Name == "throughput") && *v <= 0:
				t.Errorf("%s: %s of column %d: %v; want above 0", where, f.Name, i+1, *v)
			case (f.Name == "error rate" || f.Name == "miss rate") && *v > 100:
				t.Errorf("%s: %s of column %d: %v%%", where, f.Name, i+1, *v)
			case f.Name == "transfer/s" && *v <= 0:
				t.Errorf("%s: transfer/s of column %d: %v; want above 0 (the answers' bytes)", where, i+1, *v)
			}
			if base := f.Values[0]; base != nil && *base != 0 {
				if r, want := f.Ratios[i], *v / *base; r == nil {
					t.Errorf("%s: %s: no ratio in column %d; want %v / %v = %v", where, f.Name, i+1, *v, *base, want)
				} else if math.Abs(*r-want) > 1e-9*math.Max(1, want) {
					t.Errorf("%s: %s: ratio of column %d %v; want %v / %v = %v", where, f.Name, i+1, *r, *v, *base, want)
				}
			}
		}
		prefix, stat := "", f.Name
		if i := strings.LastIndex(f.Name, " "); i >= 0 {
			prefix, stat = f.Name[:i], f.Name[i+1:]
		}
		if stat == "mean" {
			means[prefix] = f.Values
			continue
		}
		rank, ok := percentileRank[stat]
		if !ok || f.Name == "error rate" {
			continue
		}
		if byGroup[prefix] == nil {
			byGroup[prefix] = make([][]point, n)
		}
		for i, v := range f.Values {
			if v != nil {
				byGroup[prefix][i] = append(byGroup[prefix][i], point{rank, f.Name, *v})
			}
		}
	}
	for prefix, cols := range byGroup {
		for i, ps := range cols {
			slices.SortFunc(ps, func(a, b point) int { return int(math.Copysign(1, a.rank-b.rank)) })
			for k := 1; k < len(ps); k++ {
				if ps[k].v < ps[k-1].v {
					t.Errorf("%s: column %d: %s %v below %s %v", where, i+1, ps[k].name, ps[k].v, ps[k-1].name, ps[k-1].v)
				}
			}
			if m := means[prefix]; m != nil && m[i] != nil && len(ps) > 0 && ps[len(ps)-1].rank == 1000 && *m[i] > ps[len(ps)-1].v {
				t.Errorf("%s: column %d: mean %v above the max %v", where, i+1, *m[i], ps[len(ps)-1].v)
			}
		}
	}
}

// names returns the names of figs.
func names(figs []writeupFigure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

// hasAll reports whether have holds every one of want.
func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// plausibleRun checks one target's run: requests answered, the latency's percentiles in order,
// and each of the endpoints named, with its own requests and percentiles.
func plausibleRun(t *testing.T, where string, r writeupRun, endpoints []string) {
	t.Helper()
	order := func(what string, l map[string]float64) {
		if !(l["p50"] > 0 && l["p50"] <= l["p99"] && l["p99"] <= l["max"] && l["mean"] <= l["max"]) {
			t.Errorf("%s: %s latency %v; want 0 < p50 ≤ p99 ≤ max, mean ≤ max", where, what, l)
		}
	}
	if r.Requests.Completed <= 0 {
		t.Errorf("%s: %v requests completed; want some", where, r.Requests.Completed)
	}
	order("the run's", r.LatencyMs)
	for _, name := range endpoints {
		found := false
		for _, e := range r.Endpoints {
			if e.Name == name {
				found = true
				if e.Requests.Completed <= 0 {
					t.Errorf("%s: endpoint %s: no request completed", where, name)
				}
				order("endpoint "+name+"'s", e.LatencyMs)
			}
		}
		if !found {
			t.Errorf("%s: no endpoint %s", where, name)
		}
	}
}

// checkWriteupJSON reads the run directory's report.json and checks, by name, the tables and
// steps a write-up's figures come from (examples/writeups/README.md, "Which output reproduces
// which figure"), each with plausible values; it returns the report for the checks of one plan.
func checkWriteupJSON(t *testing.T, plan, dir string, tables []writeupTable, steps []writeupStep) writeupJSON {
	t.Helper()
	var r writeupJSON
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		t.Errorf("%s: report.json: %v", plan, err)
		return r
	}
	for _, w := range tables {
		found := false
		for _, s := range r.Scenarios {
			for _, tb := range s.Tables {
				if tb.Section != w.section {
					continue
				}
				found = true
				where := plan + ": " + w.section
				if !slices.Equal(tb.Targets, w.targets) {
					t.Errorf("%s: columns %q; want %q", where, tb.Targets, w.targets)
				}
				var levels, endpoints []string
				for _, row := range tb.Rows {
					levels, endpoints = append(levels, row.Level), append(endpoints, row.Endpoint)
					if !slices.Equal(names(row.Figures), w.figures) {
						t.Errorf("%s: %s %s: figures %q; want %q", where, row.Level, row.Endpoint, names(row.Figures), w.figures)
					}
					plausible(t, where+": "+row.Level+" "+row.Endpoint, row.Figures, len(w.targets))
				}
				if !hasAll(levels, w.levels) || !hasAll(endpoints, w.endpoints) {
					t.Errorf("%s: rows %q, endpoints %q; want among them %q and %q", where, levels, endpoints, w.levels, w.endpoints)
				}
			}
		}
		if !found {
			t.Errorf("%s: report.json has no table %q", plan, w.section)
		}
	}
	for _, w := range steps {
		where := fmt.Sprintf("%s: %s %s", plan, w.scenario, w.level)
		found := false
		for _, s := range r.Scenarios {
			for _, st := range s.Steps {
				if s.Name != w.scenario || st.Level != w.level {
					continue
				}
				found = true
				rep := st.Report
				if !slices.Equal(st.Targets, w.targets) {
					t.Errorf("%s: targets %q; want %q", where, st.Targets, w.targets)
					continue
				}
				if len(w.targets) == 1 {
					plausibleRun(t, where, rep.writeupRun, w.endpoints)
					continue
				}
				c := rep.Comparison
				if c == nil || !slices.Equal(c.Labels, w.targets) {
					t.Errorf("%s: comparison %+v; want the targets %q side by side", where, c, w.targets)
					continue
				}
				if !hasAll(names(c.Metrics), w.figures) {
					t.Errorf("%s: figures %q; want among them %q", where, names(c.Metrics), w.figures)
				}
				plausible(t, where, c.Metrics, len(w.targets))
				var eps []string
				for _, e := range c.Endpoints {
					eps = append(eps, e.Name)
					plausible(t, where+": "+e.Name, e.Metrics, len(w.targets))
				}
				if !hasAll(eps, w.endpoints) {
					t.Errorf("%s: endpoints %q; want among them %q", where, eps, w.endpoints)
				}
			}
		}
		if !found {
			t.Errorf("%s: no such step in report.json", where)
		}
	}
	return r
}

// writeupJSONChecks are, per plan, the tables and steps of report.json that its write-up's
// figures come from (examples/writeups/README.md, "Which output reproduces which figure"), in
// the short form of TestWriteupsShort, and what else of them to check.
var writeupJSONChecks = map[string]struct {
	tables []writeupTable
	steps  []writeupStep
	more   func(t *testing.T, r writeupJSON, dir string)
}{
	"rpc-daemon.yaml": {
		tables: []writeupTable{
			{section: "methods: each alone", targets: []string{"node", "daemon"}, figures: []string{"throughput", "error rate", "p50", "p95", "p99"},
				levels: []string{"eth_blockNumber alone at 50/s", "eth_getBalance alone at 50/s", "eth_chainId alone at 100/s"}},
			{section: "batch: batch swept", targets: []string{"node", "daemon"}, figures: []string{"throughput", "error rate", "p50", "p95", "p99"},
				levels: []string{"batch 1", "batch 10", "batch 50", "batch 100"}},
			{section: "pool: daemon --max-idle swept", targets: []string{"node", "daemon"}, figures: []string{"throughput", "error rate", "p50", "p95", "p99"},
				levels: []string{"daemon --max-idle 1", "daemon --max-idle 10", "daemon --max-idle 100"}},
		},
		steps: []writeupStep{{scenario: "heavy", targets: []string{"node", "daemon"}}},
		more: func(t *testing.T, r writeupJSON, dir string) {
			// the CPU of each process: the daemon's run watches the daemon and the node behind it
			for _, s := range r.Scenarios {
				for _, st := range s.Steps {
					if s.Name != "methods" || len(st.Report.Runs) != 2 {
						continue
					}
					var watched []string
					for _, res := range st.Report.Runs[1].Resources {
						watched = append(watched, res.Target)
					}
					if !slices.ContainsFunc(watched, func(w string) bool { return strings.HasPrefix(w, "node's command, pid ") }) {
						t.Errorf("rpc-daemon.yaml: methods %s: the daemon's run watched %q; want the node behind it too", st.Level, watched)
					}
				}
			}
		},
	},
	"mesh.yaml": {
		steps: []writeupStep{{scenario: "hops", targets: []string{"in-process", "http", "h2c", "grpc"}, figures: []string{"hop_latency_ns p50", "hop_latency_ns p99"}}},
		more: func(t *testing.T, r writeupJSON, dir string) {
			// the peers in separate processes: the gateway's and the five peers' watched together
			for _, s := range r.Scenarios {
				for _, st := range s.Steps {
					for i, run := range st.Report.Runs {
						if st.Targets[i] == "in-process" {
							continue
						}
						if len(run.Resources) == 0 || len(run.Resources[0].Pids) != 6 {
							t.Errorf("mesh.yaml: %s: watched %+v; want 6 processes, the gateway and the peers A–E", st.Targets[i], run.Resources)
						}
					}
				}
			}
		},
	},
	"kv.yaml": {
		tables: []writeupTable{{section: "put-then-get: each alone", targets: []string{"kv"}, figures: []string{"throughput", "transfer/s", "error rate", "misses", "miss rate", "mean", "stdev", "p50", "p99", "max"},
			levels: []string{"put alone", "get alone"}}},
		steps: []writeupStep{{scenario: "put-get", targets: []string{"kv"}, endpoints: []string{"get", "put"}}},
		more: func(t *testing.T, r writeupJSON, dir string) {
			for _, s := range r.Scenarios { // the store's CPU, memory and disk during put-get
				for _, st := range s.Steps {
					if s.Name == "put-get" && (len(st.Report.Resources) == 0 || !strings.HasPrefix(st.Report.Resources[0].Target, "command, pid ")) {
						t.Errorf("kv.yaml: put-get: watched %+v; want the store's command first", st.Report.Resources)
					}
				}
			}
			for _, s := range r.Scenarios {
				if s.Name != "capacity" {
					continue
				}
				if len(s.Capacity) != 1 || s.Capacity[0].Report == nil || len(s.Capacity[0].Report.Steps) == 0 || s.Capacity[0].Report.Answer == "" {
					t.Errorf("kv.yaml: capacity: %+v; want kv's search, its steps and its answer", s.Capacity)
					continue
				}
				for _, st := range s.Capacity[0].Report.Steps {
					if st.Rate <= 0 || st.Answers <= 0 {
						t.Errorf("kv.yaml: capacity step %+v: want a rate and answers", st)
					}
				}
				return
			}
			t.Errorf("kv.yaml: report.json has no capacity scenario")
		},
	},
	"jsonrpc-impls.yaml": {
		tables: []writeupTable{
			{section: "methods: each endpoint over the steps", targets: []string{"direct", "relayed"}, figures: []string{"throughput", "requests", "error rate", "mean", "p95", "p99"},
				levels: []string{"5 connections", "10 connections"}, endpoints: []string{"eth_blockNumber", "eth_getBlockByNumber", "eth_getBalance", "eth_chainId"}},
			{section: "each-method: each alone", targets: []string{"direct", "relayed"}, figures: []string{"throughput", "requests", "error rate", "mean", "p95", "p99"},
				levels: []string{"eth_chainId alone", "eth_call alone at its own 2 connections", "eth_estimateGas alone at its own 2 connections"}},
		},
		more: func(t *testing.T, r writeupJSON, dir string) {
			seen := map[string]bool{}
			for _, s := range r.Scenarios {
				switch s.Name {
				case "methods": // CPU and RAM over the whole run, the relay's against the direct one's
					seen[s.Name] = true
					for _, st := range s.Steps { // and per step, as its Resources compared table words it
						if st.Vs["relayed"] == "" {
							t.Errorf("jsonrpc-impls.yaml: methods %s: resources_vs_first %v; want the relay's resources in words against direct's", st.Level, st.Vs)
						}
					}
					if len(s.WholeRun) != 2 || s.WholeRun[0].Target != "direct" || s.WholeRun[1].Target != "relayed" || s.WholeRun[1].Vs == "" || len(s.WholeRun[1].Resources) == 0 {
						t.Errorf("jsonrpc-impls.yaml: methods: whole_run %+v; want direct, then relayed with its resources in words against direct's", s.WholeRun)
					}
				case "e2e": // the suite's pass/fail counts against each
					seen[s.Name] = true
					if len(s.Commands) != 2 {
						t.Errorf("jsonrpc-impls.yaml: e2e: %+v; want a run against each target", s.Commands)
					}
					for _, c := range s.Commands {
						if c.ExitCode != 0 || c.Tests == nil || c.Tests.Passed != 1 || c.Tests.Failed != 0 {
							t.Errorf("jsonrpc-impls.yaml: e2e on %s: exit %d, tests %+v; want exit 0 and the short form's one test passed", c.Target, c.ExitCode, c.Tests)
						}
						if c.Suite != 12*time.Millisecond { // the short form's package event: "Elapsed":0.012
							t.Errorf("jsonrpc-impls.yaml: e2e on %s: suite time %v; want the 12ms of its package event", c.Target, c.Suite)
						}
					}
					if s.Build == nil || s.Build.ExitCode != 0 { // the suite compiled first, timed apart
						t.Errorf("jsonrpc-impls.yaml: e2e: build %+v; want one that exited 0", s.Build)
					}
				}
			}
			if !seen["methods"] || !seen["e2e"] {
				t.Errorf("jsonrpc-impls.yaml: scenarios seen %v; want methods and e2e", seen)
			}
		},
	},
	"items-http.yaml": {
		steps: itemSteps("http", "https"),
		more:  func(t *testing.T, r writeupJSON, dir string) { preloaded(t, "items-http.yaml", r) },
	},
	"items-grpc.yaml": {
		steps: itemSteps("grpc", "grpcs"),
		more: func(t *testing.T, r writeupJSON, dir string) {
			preloaded(t, "items-grpc.yaml", r)
			ghzRan(t, r, dir)
		},
	},
}

// itemSteps are the steps of write-up (e)'s plans: the maximum throughput at 100 connections and
// the reads at a fixed rate, each protocol against the plain one.
func itemSteps(plain, tls string) []writeupStep {
	return []writeupStep{
		{scenario: "max", targets: []string{plain, tls}, figures: []string{"throughput", "error rate", "p50", "p99"}},
		{scenario: "read", targets: []string{plain, tls}, figures: []string{"throughput", "error rate", "p50", "p99"}},
	}
}

// preloaded checks that write-up (e)'s preload created the short form's 1,000 items against each
// target, in a run of its own.
func preloaded(t *testing.T, plan string, r writeupJSON) {
	t.Helper()
	for _, s := range r.Scenarios {
		if s.Name != "preload" {
			continue
		}
		for _, st := range s.Steps {
			for i, run := range st.Report.Runs {
				if run.Requests.Completed != 1000 {
					t.Errorf("%s: preload on %s: %v requests; want the 1,000 items", plan, st.Targets[i], run.Requests.Completed)
				}
			}
			if len(st.Report.Runs) != 2 {
				t.Errorf("%s: preload: %d runs; want one per target", plan, len(st.Report.Runs))
			}
		}
		return
	}
	t.Errorf("%s: no preload scenario", plan)
}

var (
	ghzCount     = regexp.MustCompile(`(?m)^  Count:\t(\d+)$`)
	ghzMs        = regexp.MustCompile(`(?m)^  (Slowest|Fastest|Average):\t([0-9.]+) ms$`)
	ghzBucket    = regexp.MustCompile(`(?m)^  [0-9.]+ \[(\d+)\]\t\|∎*$`)
	ghzQuantile  = regexp.MustCompile(`(?m)^  (\d+) % in ([0-9.]+) ms $`)
	ghzStatusOK  = regexp.MustCompile(`(?m)^  \[OK\]\t(\d+) responses$`)
	ghzSections  = []string{"Summary:", "Response time histogram:", "Latency distribution:", "Status code distribution:"}
	ghzQuantiles = []string{"10", "25", "50", "75", "90", "95", "99"}
)

// ghzRan checks write-up (e)'s ghz run: `rpcbench ghz` exited 0 against each gRPC target and its
// output, kept in the run directory, has ghz's sections with the short form's 200 calls: every
// call in one bucket of the histogram, the distribution's latencies in order, between the
// fastest and the slowest call.
func ghzRan(t *testing.T, r writeupJSON, dir string) {
	t.Helper()
	var ran []string
	for _, s := range r.Scenarios {
		if s.Name != "ghz" {
			continue
		}
		for _, c := range s.Commands {
			ran = append(ran, c.Target)
			if c.ExitCode != 0 {
				t.Errorf("items-grpc.yaml: ghz on %s: exit %d; want 0", c.Target, c.ExitCode)
			}
		}
	}
	if !slices.Equal(ran, []string{"grpc", "grpcs"}) {
		t.Errorf("items-grpc.yaml: ghz ran against %q; want grpc, grpcs", ran)
	}
	for _, target := range []string{"grpc", "grpcs"} {
		b, err := os.ReadFile(filepath.Join(dir, "ghz."+target+".out"))
		out := string(b)
		where := "items-grpc.yaml: ghz." + target + ".out"
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		at := -1
		for _, sec := range ghzSections {
			i := strings.Index(out, "\n"+sec+"\n")
			if i <= at {
				t.Errorf("%s: section %q at %d, after the one before at %d; want ghz's sections in ghz's order:\n%s", where, sec, i, at, out)
			}
			at = i
		}
		count := 0
		if m := ghzCount.FindStringSubmatch(out); m != nil {
			count, _ = strconv.Atoi(m[1])
		}
		ok := 0
		if m := ghzStatusOK.FindStringSubmatch(out); m != nil {
			ok, _ = strconv.Atoi(m[1])
		}
		if count != 200 || ok != 200 {
			t.Errorf("%s: Count %d, [OK] %d; want the short form's 200 calls, all OK:\n%s", where, count, ok, out)
		}
		inBuckets := 0
		for _, m := range ghzBucket.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			inBuckets += n
		}
		if inBuckets != count {
			t.Errorf("%s: the histogram's buckets hold %d calls; want the %d made:\n%s", where, inBuckets, count, out)
		}
		ms := map[string]float64{}
		for _, m := range ghzMs.FindAllStringSubmatch(out, -1) {
			ms[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
		prev, qs := ms["Fastest"], []string{}
		for _, m := range ghzQuantile.FindAllStringSubmatch(out, -1) {
			v, _ := strconv.ParseFloat(m[2], 64)
			qs = append(qs, m[1])
			if v < prev {
				t.Errorf("%s: %s %% in %v ms, below the one before (%v ms)", where, m[1], v, prev)
			}
			prev = v
		}
		if !slices.Equal(qs, ghzQuantiles) || prev > ms["Slowest"] || ms["Fastest"] <= 0 || ms["Average"] < ms["Fastest"] || ms["Average"] > ms["Slowest"] {
			t.Errorf("%s: distribution %q up to %v ms, fastest, average, slowest %v; want 10 to 99 %%, in order, between the fastest and the slowest:\n%s", where, qs, prev, ms, out)
		}
	}
}
