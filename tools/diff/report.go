package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

// MaxMismatches is how many mismatching requests a Report keeps in detail.
const MaxMismatches = 100

// Report is what a run found: counts overall and per method, latency per server, and the first
// mismatches in detail. It is plain data, JSON-serialisable.
type Report struct {
	Servers []string `json:"servers"`
	// Reference is what the answers were compared with: the first server's URL, or "expected
	// answers" for fixtures.
	Reference string `json:"reference"`
	// NoiseReference is the URL of the second instance of the first server (the last of
	// Servers), whose differences from the first are noise; empty without one.
	NoiseReference string `json:"noise_reference,omitempty"`
	// NoiseThreshold is the share of a method's requests in which the two instances must differ
	// at a path for it to be noise; 0: any one.
	NoiseThreshold float64 `json:"noise_threshold,omitempty"`
	// Rules are the rules of the comparison, as the flags name them.
	Rules    []string `json:"rules,omitempty"`
	Requests int      `json:"requests"`
	// Due counts the requests the run's schedule had due (warm-up aside): above Requests when
	// some were not compared — the run fell behind its schedule and ended a second after its
	// planned end without sending them, or requests in flight were cut. 0: not known.
	Due int `json:"due,omitempty"`
	// Equal counts the requests whose answers were equal, apart from noise; NoiseOnly those of
	// them whose candidates differed at noise paths only.
	Equal     int `json:"equal"`
	NoiseOnly int `json:"noise_only,omitempty"`
	Different int `json:"different"`
	// Failed counts the requests that some server did not answer (refused, timeout, …).
	Failed int `json:"failed"`
	// Skipped counts the requests not sent: their block was above a server's head.
	Skipped int       `json:"skipped,omitempty"`
	Methods []Method  `json:"methods"`
	Latency []Latency `json:"latency"`
	// Noise lists the paths, per method, where the two instances of the first server differed.
	Noise []Noise `json:"noise,omitempty"`
	// Mismatches are the first MaxMismatches requests that were not equal to end (the requests
	// go concurrently), listed in corpus order.
	Mismatches []Mismatch `json:"mismatches"`
	// More counts the mismatches beyond those kept.
	More int `json:"more_mismatches,omitempty"`
	// Stopped says why the run ended before the corpus did: "first difference", "interrupted";
	// empty when it went through.
	Stopped string `json:"stopped,omitempty"`
}

// Method counts the requests of one method (or endpoint).
type Method struct {
	Name      string `json:"name"`
	Sent      int    `json:"sent"`
	Equal     int    `json:"equal"`
	NoiseOnly int    `json:"noise_only,omitempty"`
	Different int    `json:"different"`
	Skipped   int    `json:"skipped,omitempty"`
	// Errors counts, per server, the requests it did not answer.
	Errors []int `json:"errors"`
	// Latency is each server's latency for this method.
	Latency []Latency `json:"latency"`
}

// Noise is a path where the two instances of the first server answered differently, in one
// method's answers.
type Noise struct {
	Method string `json:"method"`
	// Path is where, array indexes written [*].
	Path string `json:"path"`
	// Differ counts the requests whose two instances differed there, of Compared that both
	// answered; Share is Differ/Compared.
	Differ   int     `json:"differ"`
	Compared int     `json:"compared"`
	Share    float64 `json:"share"`
	// IsNoise: Share reached the threshold, so the candidates' differences there are not
	// counted.
	IsNoise bool `json:"noise"`
	// Candidates counts the requests in which a candidate's answer differed there too.
	Candidates int `json:"candidates"`
}

// Latency sums up one server's answer times (request written to answer read), overall or of
// one method, from a histogram of them (µs, 3 significant digits: its memory does not grow with
// the requests of a long run).
type Latency struct {
	URL     string `json:"url"`
	Answers int    `json:"answers"`
	// Errors counts the requests the server did not answer (refused, timeout, …); Answers plus
	// Errors are the requests it was sent.
	Errors int     `json:"errors"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
	// P50Ratio and P99Ratio are this server's p50 and p99 over the first server's (1 for the
	// first); 0 when either has no answer or the first's is 0.
	P50Ratio float64 `json:"p50_ratio,omitempty"`
	P99Ratio float64 `json:"p99_ratio,omitempty"`
}

// Mismatch is one request whose answers were not all equal.
type Mismatch struct {
	ID      int          `json:"id"`
	Method  string       `json:"method"`
	Where   string       `json:"where,omitempty"`
	Servers []ServerDiff `json:"servers"`
}

// ServerDiff is how one server's answer differs from the reference, or why it did not come.
type ServerDiff struct {
	URL   string                `json:"url"`
	Class string                `json:"class,omitempty"`
	Error string                `json:"error,omitempty"`
	Diffs []jsondiff.Difference `json:"diffs,omitempty"`
}

// Tally folds Results into a Report. The zero value is not usable: build it with NewTally. It is
// not safe for concurrent use (Run calls its sink from one goroutine).
type Tally struct {
	rep     Report
	methods map[string]int
	// lat and mlat are the servers' latencies, overall and per method and server: histograms
	// (µs, 3 significant digits), whose size does not grow with the requests of a long run
	lat  []*result.Histogram
	mlat [][]*result.Histogram
	// With a reference: what is learned of the noise, and the requests whose candidates differed,
	// judged when the noise is known (in Report).
	noise   []methodNoise // per method
	pending []pendingDiff
	grouped map[string]int // method and paths → index in pending of the requests not kept
	// first is the least request id of each method: the report lists the methods in corpus
	// order, whatever order the requests ended in.
	first []int
}

// methodNoise is what a method's requests taught of the noise.
type methodNoise struct {
	compared int
	paths    map[string]*Noise
	order    []string
}

// pendingDiff is a request whose candidates differed at paths (noise keys), judged in Report;
// mismatch is its index in Mismatches, -1 when not kept; n is how many requests of the method
// differed at exactly those paths (those not kept are counted together, so that a long run whose
// every request differs at noise holds one entry per set of paths, not one per request).
type pendingDiff struct {
	method, mismatch int
	paths            []string
	n                int
}

// addPending keeps pd for Report: alone when its mismatch is kept, else counted with the others of
// its method and paths.
func (t *Tally) addPending(pd pendingDiff) {
	pd.n = 1
	if pd.mismatch >= 0 {
		t.pending = append(t.pending, pd)
		return
	}
	key := strconv.Itoa(pd.method) + "\x00" + strings.Join(pd.paths, "\x00")
	if k, ok := t.grouped[key]; ok {
		t.pending[k].n++
		return
	}
	if t.grouped == nil {
		t.grouped = map[string]int{}
	}
	t.grouped[key] = len(t.pending)
	t.pending = append(t.pending, pd)
}

// NewTally starts a Report of the given servers; reference is what they are compared with.
func NewTally(servers []string, reference string) *Tally {
	return &Tally{rep: Report{Servers: servers, Reference: reference, Methods: []Method{}, Mismatches: []Mismatch{}},
		methods: map[string]int{}, lat: histograms(len(servers))}
}

// LearnNoise says that the last server is a second instance of the first (Config.Reference):
// a path is noise for a method when the two differ there in at least threshold of its requests
// (0: in any).
func (t *Tally) LearnNoise(threshold float64) {
	t.rep.NoiseReference = t.rep.Servers[len(t.rep.Servers)-1]
	t.rep.NoiseThreshold = threshold
}

// SetRules lists the rules of the comparison in the report, as the flags name them.
func (t *Tally) SetRules(rules []string) { t.rep.Rules = rules }

// Add counts r.
func (t *Tally) Add(r *Result) {
	rep := &t.rep
	rep.Requests++
	i, ok := t.methods[r.Request.Label]
	if !ok {
		i = len(rep.Methods)
		t.methods[r.Request.Label] = i
		rep.Methods = append(rep.Methods, Method{Name: r.Request.Label, Errors: make([]int, len(rep.Servers))})
		t.mlat = append(t.mlat, histograms(len(rep.Servers)))
		t.noise = append(t.noise, methodNoise{paths: map[string]*Noise{}})
		t.first = append(t.first, r.Request.ID)
	}
	t.first[i] = min(t.first[i], r.Request.ID)
	m := &rep.Methods[i]
	m.Sent++
	if r.Skipped != "" {
		rep.Skipped++
		m.Skipped++
		return
	}
	failed, different := false, false
	for k, a := range r.Answers {
		if a.Class == "not sent" {
			failed = true
			continue
		}
		if a.Class != "" {
			failed = true
			m.Errors[k]++
			continue
		}
		result.RecordDuration(t.lat[k], a.Latency)
		result.RecordDuration(t.mlat[i][k], a.Latency)
		different = different || !r.isRef(k) && len(r.Diffs[k]) > 0
	}
	var paths []string
	if r.Ref > 0 && !failed {
		paths = t.learn(i, r)
	}
	switch {
	case failed:
		rep.Failed++
	case len(paths) > 0:
		// judged in Report, when the noise is known
	case different:
		rep.Different++
		m.Different++
	default:
		rep.Equal++
		m.Equal++
		return
	}
	pd := pendingDiff{method: i, mismatch: -1, paths: paths}
	if !failed && r.Ref > 0 && !t.worthShowing(i, r) {
		t.addPending(pd)
		return
	}
	if len(rep.Mismatches) == MaxMismatches {
		rep.More++
	} else {
		pd.mismatch = len(rep.Mismatches)
		mm := Mismatch{ID: r.Request.ID, Method: r.Request.Label, Where: r.Request.Where}
		for k, a := range r.Answers {
			var ds []jsondiff.Difference
			if !r.isRef(k) {
				ds = r.Diffs[k]
				ds = append(slices.Clip(ds), r.noise(k)...)
			}
			if a.Class != "" || len(ds) > 0 {
				mm.Servers = append(mm.Servers, ServerDiff{URL: rep.Servers[k], Class: a.Class, Error: a.Error, Diffs: ds})
			}
		}
		rep.Mismatches = append(rep.Mismatches, mm)
	}
	if len(paths) > 0 {
		t.addPending(pd)
	}
}

// learn counts where the two instances of the first server differ in r, and returns the noise
// keys of the candidates' differences (each once).
func (t *Tally) learn(method int, r *Result) []string {
	mn := &t.noise[method]
	mn.compared++
	at := func(key string) *Noise {
		n, ok := mn.paths[key]
		if !ok {
			n = &Noise{Method: t.rep.Methods[method].Name, Path: key}
			mn.paths[key] = n
			mn.order = append(mn.order, key)
		}
		return n
	}
	seen := map[string]bool{}
	for _, d := range r.Diffs[r.Ref] {
		if key := NoiseKey(d.Path); !seen[key] {
			seen[key] = true
			at(key).Differ++
		}
	}
	clear(seen)
	var paths []string
	for k := range r.Answers {
		if k == 0 || k == r.Ref {
			continue
		}
		for _, ds := range [][]jsondiff.Difference{r.Diffs[k], r.noise(k)} {
			for _, d := range ds {
				if key := NoiseKey(d.Path); !seen[key] {
					seen[key] = true
					paths = append(paths, key)
				}
			}
		}
	}
	return paths
}

// worthShowing reports whether r may turn out a difference when the noise is known: a candidate
// differs at a path that is not noise as far as the requests so far tell. (With the threshold at
// any share, a path once noise stays noise; above it, the guess may be wrong either way, and
// the mismatches kept are judged again in Report.)
func (t *Tally) worthShowing(method int, r *Result) bool {
	for k := range r.Answers {
		if k == 0 || k == r.Ref {
			continue
		}
		for _, ds := range [][]jsondiff.Difference{r.Diffs[k], r.noise(k)} {
			for _, d := range ds {
				if !t.isNoise(method, NoiseKey(d.Path)) {
					return true
				}
			}
		}
	}
	return false
}

// isNoise reports whether the key is noise for the method, as far as the requests so far tell.
func (t *Tally) isNoise(method int, key string) bool {
	mn := &t.noise[method]
	n, ok := mn.paths[key]
	return ok && n.Differ > 0 && float64(n.Differ) >= t.rep.NoiseThreshold*float64(mn.compared)
}

// Report returns the report so far; stopped says why the run ended early ("" if it did not).
func (t *Tally) Report(stopped string) Report {
	rep := t.rep
	rep.Stopped = stopped
	rep.Latency = nil
	for k, h := range t.lat {
		l := latency(rep.Servers[k], h)
		for _, m := range rep.Methods {
			l.Errors += m.Errors[k]
		}
		rep.Latency = append(rep.Latency, l)
	}
	ratios(rep.Latency)
	rep.Methods = slices.Clone(rep.Methods)
	for i := range rep.Methods {
		m := &rep.Methods[i]
		m.Latency = nil
		for k, h := range t.mlat[i] {
			l := latency(rep.Servers[k], h)
			l.Errors = m.Errors[k]
			m.Latency = append(m.Latency, l)
		}
		ratios(m.Latency)
	}
	if rep.NoiseReference != "" {
		t.judge(&rep)
	}
	// in corpus order: the methods by their first request, the noise by method, the mismatches
	// by request
	first := map[string]int{}
	for name, i := range t.methods {
		first[name] = t.first[i]
	}
	slices.SortStableFunc(rep.Methods, func(a, b Method) int { return first[a.Name] - first[b.Name] })
	slices.SortStableFunc(rep.Noise, func(a, b Noise) int { return first[a.Method] - first[b.Method] })
	rep.Mismatches = slices.Clone(rep.Mismatches)
	slices.SortStableFunc(rep.Mismatches, func(a, b Mismatch) int { return a.ID - b.ID })
	return rep
}

// judge settles the requests whose candidates differed, now that the noise is known: a request
// differs when a candidate differs at a path that is not noise for its method. The mismatches
// kept lose their noise, and those of requests that differed only there.
func (t *Tally) judge(rep *Report) {
	rep.Noise = nil
	cands := make([]map[string]int, len(t.noise))
	for i := range cands {
		cands[i] = map[string]int{}
	}
	real := map[int]bool{} // mismatch index → the request differs
	for _, pd := range t.pending {
		m := &rep.Methods[pd.method]
		differs := false
		for _, key := range pd.paths {
			cands[pd.method][key] += pd.n
			differs = differs || !t.isNoise(pd.method, key)
		}
		if differs {
			rep.Different += pd.n
			m.Different += pd.n
		} else {
			rep.Equal += pd.n
			rep.NoiseOnly += pd.n
			m.Equal += pd.n
			m.NoiseOnly += pd.n
		}
		if pd.mismatch >= 0 {
			real[pd.mismatch] = differs
		}
	}
	for i, mn := range t.noise {
		for _, key := range mn.order {
			n := *mn.paths[key]
			n.Compared = mn.compared
			n.Share = float64(n.Differ) / float64(mn.compared)
			n.IsNoise = t.isNoise(i, key)
			n.Candidates = cands[i][key]
			rep.Noise = append(rep.Noise, n)
		}
	}
	kept := []Mismatch{}
	for j, mm := range rep.Mismatches {
		differs, judged := real[j]
		if judged && !differs {
			continue
		}
		method := t.methods[mm.Method]
		mm.Servers = slices.Clone(mm.Servers)
		var servers []ServerDiff
		for _, sd := range mm.Servers {
			var ds []jsondiff.Difference
			for _, d := range sd.Diffs {
				if !t.isNoise(method, NoiseKey(d.Path)) {
					ds = append(ds, d)
				}
			}
			sd.Diffs = ds
			if sd.Class != "" || len(ds) > 0 {
				servers = append(servers, sd)
			}
		}
		mm.Servers = servers
		kept = append(kept, mm)
	}
	rep.More = rep.Different + rep.Failed - len(kept)
	rep.Mismatches = kept
}

func histograms(n int) []*result.Histogram {
	hs := make([]*result.Histogram, n)
	for k := range hs {
		hs[k] = result.NewHistogram()
	}
	return hs
}

// latency sums up the latencies recorded in h (µs).
func latency(url string, h *result.Histogram) Latency {
	l := Latency{URL: url, Answers: int(h.TotalCount())}
	if l.Answers == 0 {
		return l
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	l.MeanMS, l.P50MS, l.P90MS, l.P99MS, l.MaxMS = h.Mean()/1000, ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(90)), ms(h.ValueAtQuantile(99)), ms(h.Max())
	return l
}

// ratios sets each server's p50 and p99 ratios to the first server's.
func ratios(ls []Latency) {
	if len(ls) == 0 || ls[0].Answers == 0 {
		return
	}
	for k := range ls {
		l := &ls[k]
		if l.Answers == 0 {
			continue
		}
		if ls[0].P50MS > 0 {
			l.P50Ratio = l.P50MS / ls[0].P50MS
		}
		if ls[0].P99MS > 0 {
			l.P99Ratio = l.P99MS / ls[0].P99MS
		}
	}
}

// Verdict says in a few words what the report found.
func (r *Report) Verdict() string {
	var v string
	switch {
	case r.Requests == r.Skipped:
		v = "no request was compared"
	case r.Different == 0 && r.Failed == 0:
		v = fmt.Sprintf("all %d answers equal", r.Equal)
		if r.NoiseOnly > 0 {
			v += fmt.Sprintf(" (%d apart from noise)", r.NoiseOnly)
		}
	default:
		v = fmt.Sprintf("%d of %d requests differ, %d failed", r.Different, r.Requests-r.Skipped, r.Failed)
	}
	if r.Skipped > 0 {
		v += fmt.Sprintf("; %d skipped (above a server's head)", r.Skipped)
	}
	if r.Due > r.Requests {
		v += fmt.Sprintf("; %d of the %d requests due were not compared", r.Due-r.Requests, r.Due)
	}
	return v
}

// NoiseNote says which server is the second instance of the first and what makes a path noise;
// empty without one.
func (r *Report) NoiseNote() string {
	if r.NoiseReference == "" {
		return ""
	}
	th := "any request"
	if r.NoiseThreshold > 0 {
		th = pct(r.NoiseThreshold) + " of a method's requests or more"
	}
	return fmt.Sprintf("%s is a second instance of A: a path where the two differ in %s is noise, not counted against the others",
		serverLetter(len(r.Servers)-1), th)
}

// String says where the two instances differed, how often, and what follows, e.g.
// "eth_call: result.timestamp differs between the two references in 100 % (40 of 40), the candidates in 40: noise, not counted".
func (n Noise) String() string {
	verdict := "noise, not counted"
	if !n.IsNoise {
		verdict = "under the threshold, counted"
	}
	return fmt.Sprintf("%s: %s differs between the two references in %s (%d of %d), the candidates in %d: %s",
		n.Method, n.Path, pct(n.Share), n.Differ, n.Compared, n.Candidates, verdict)
}

// pct writes a share as a percentage: "100 %", "0.1 %", "<0.1 %".
func pct(share float64) string {
	p := share * 100
	switch {
	case p == math.Trunc(p):
		return fmt.Sprintf("%d %%", int(p))
	case p < 0.1:
		return "<0.1 %"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", p), "0"), ".") + " %"
}

// methodColumns are the counting columns of the table of methods: noise only with a reference,
// skipped when any was.
func (r *Report) methodColumns() []string {
	cols := []string{"sent", "equal"}
	if r.NoiseReference != "" {
		cols = append(cols, "noise only")
	}
	cols = append(cols, "different")
	if r.Skipped > 0 {
		cols = append(cols, "skipped")
	}
	for k := range r.Servers {
		cols = append(cols, "errors "+serverLetter(k))
	}
	return cols
}

func (r *Report) methodRow(m Method) []int {
	row := []int{m.Sent, m.Equal}
	if r.NoiseReference != "" {
		row = append(row, m.NoiseOnly)
	}
	row = append(row, m.Different)
	if r.Skipped > 0 {
		row = append(row, m.Skipped)
	}
	return append(row, m.Errors...)
}

// latencyColumns head the table of each method's latency on each server, one row per method and
// server: so that "equal answers, 3× the p99" shows beside the counts.
var latencyColumns = []string{"requests", "errors", "p50", "p99", "max", "p50 ×A", "p99 ×A"}

// latencyRow is a row of that table: the server's requests, errors, p50, p99, max, and its p50 and
// p99 over the first server's.
func latencyRow(l Latency) []string {
	row := []string{fmt.Sprint(l.Answers + l.Errors), fmt.Sprint(l.Errors)}
	if l.Answers == 0 {
		return append(row, "-", "-", "-", "-", "-")
	}
	return append(row, msText(l.P50MS), msText(l.P99MS), msText(l.MaxMS), ratioText(l.P50Ratio), ratioText(l.P99Ratio))
}

// serverFigures are a server's latency figures of the server table: mean, p50, p90, p99, max
// and p99 ×A; "-" each when the server gave no answer (no latency, not 0 ms).
func serverFigures(l Latency) []string {
	if l.Answers == 0 {
		return []string{"-", "-", "-", "-", "-", "-"}
	}
	return []string{msText(l.MeanMS), msText(l.P50MS), msText(l.P90MS), msText(l.P99MS), msText(l.MaxMS), ratioText(l.P99Ratio)}
}

// ratioText writes a ratio as "3.02×"; "-" when it is not known.
func ratioText(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", r)
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for a terminal: the verdict, the rules, the table of methods, the
// latency of each server overall and per method, the noise, and the first mismatches with their
// differences.
func WriteText(w io.Writer, r Report) error {
	fmt.Fprintf(w, "%d requests to %s, compared with %s: %s", r.Requests, servers(len(r.Servers)), r.Reference, r.Verdict())
	if r.Stopped != "" {
		fmt.Fprintf(w, " (stopped: %s)", r.Stopped)
	}
	fmt.Fprintln(w)
	if len(r.Rules) > 0 {
		fmt.Fprintf(w, "rules: %s\n", strings.Join(r.Rules, "; "))
	}
	if note := r.NoiseNote(); note != "" {
		fmt.Fprintln(w, note)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nmethod\t%s\t\n", strings.Join(r.methodColumns(), "\t"))
	for _, m := range r.Methods {
		fmt.Fprintf(tw, "%s\t", m.Name)
		for _, n := range r.methodRow(m) {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "\nserver\tanswers\terrors\tmean\tp50\tp90\tp99\tmax\tp99 ×A\t\n")
	for k, l := range r.Latency {
		fmt.Fprintf(tw, "%s %s\t%d\t%d\t%s\t\n", serverLetter(k), l.URL, l.Answers, l.Errors, strings.Join(serverFigures(l), "\t"))
	}
	fmt.Fprintf(tw, "\nlatency of\tserver\t%s\t\n", strings.Join(latencyColumns, "\t"))
	for _, m := range r.Methods {
		for k, l := range m.Latency {
			name := m.Name
			if k > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, serverLetter(k), strings.Join(latencyRow(l), "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Noise) > 0 {
		fmt.Fprintf(w, "\nnoise (where A and %s differ):\n", serverLetter(len(r.Servers)-1))
		for _, n := range r.Noise {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	if len(r.Mismatches) > 0 {
		fmt.Fprintf(w, "\nmismatches (%d shown of %d):\n", len(r.Mismatches), len(r.Mismatches)+r.More)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "#%d %s", m.ID, m.Method)
		if m.Where != "" {
			fmt.Fprintf(w, " (%s)", m.Where)
		}
		fmt.Fprintln(w)
		for _, s := range m.Servers {
			if s.Class != "" {
				fmt.Fprintf(w, "  %s: no answer: %s: %s\n", s.URL, s.Class, s.Error)
				continue
			}
			fmt.Fprintf(w, "  %s:\n", s.URL)
			for _, d := range s.Diffs {
				fmt.Fprintf(w, "    %s\n", d)
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// WriteMarkdown writes the report as Markdown: the verdict, the rules, tables of methods and
// latency, the noise and the mismatches as lists.
func WriteMarkdown(w io.Writer, r Report) error {
	fmt.Fprintf(w, "## Diff: %s\n\n%d requests to %s, compared with %s.", r.Verdict(), r.Requests, servers(len(r.Servers)), mdCode(r.Reference))
	if r.Stopped != "" {
		fmt.Fprintf(w, " Stopped: %s.", r.Stopped)
	}
	if len(r.Rules) > 0 {
		codes := make([]string, len(r.Rules))
		for i, x := range r.Rules {
			codes[i] = mdCode(x)
		}
		fmt.Fprintf(w, " Rules: %s.", strings.Join(codes, ", "))
	}
	if note := r.NoiseNote(); note != "" {
		fmt.Fprintf(w, " %s.", note)
	}
	cols := r.methodColumns()
	fmt.Fprintf(w, "\n\n| method | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
	for _, m := range r.Methods {
		fmt.Fprintf(w, "| %s |", mdCode(m.Name))
		for _, n := range r.methodRow(m) {
			fmt.Fprintf(w, " %d |", n)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\n| server | answers | errors | mean | p50 | p90 | p99 | max | p99 ×A |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for k, l := range r.Latency {
		fmt.Fprintf(w, "| %s %s | %d | %d | %s |\n", serverLetter(k), mdCode(l.URL), l.Answers, l.Errors, strings.Join(serverFigures(l), " | "))
	}
	fmt.Fprintf(w, "\n| latency of | server | %s |\n|---|---|%s\n", strings.Join(latencyColumns, " | "), strings.Repeat("---:|", len(latencyColumns)))
	for _, m := range r.Methods {
		for k, l := range m.Latency {
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCode(m.Name), serverLetter(k), strings.Join(latencyRow(l), " | "))
		}
	}
	if len(r.Noise) > 0 {
		fmt.Fprintf(w, "\n### Noise (where A and %s differ)\n\n", serverLetter(len(r.Servers)-1))
		for _, n := range r.Noise {
			fmt.Fprintf(w, "- %s\n", mdCode(n.String()))
		}
	}
	if len(r.Mismatches) > 0 {
		fmt.Fprintf(w, "\n### Mismatches (%d shown of %d)\n", len(r.Mismatches), len(r.Mismatches)+r.More)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "\n- #%d %s", m.ID, mdCode(m.Method))
		if m.Where != "" {
			fmt.Fprintf(w, " (%s)", mdCode(m.Where))
		}
		fmt.Fprintln(w)
		for _, s := range m.Servers {
			if s.Class != "" {
				fmt.Fprintf(w, "  - %s: no answer: %s\n", mdCode(s.URL), s.Class)
				continue
			}
			for _, d := range s.Diffs {
				fmt.Fprintf(w, "  - %s: %s\n", mdCode(s.URL), mdCode(d.String()))
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func mdCode(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + s + "`"
}

// ServerLetter names server k as the reports do: A, B, C, …, then S27, S28, …
func ServerLetter(k int) string { return serverLetter(k) }

// serverLetter names server k as the tables do: A, B, C, …
func serverLetter(k int) string {
	if k < 26 {
		return string(rune('A' + k))
	}
	return fmt.Sprintf("S%d", k+1)
}

func msText(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.2fs", ms/1000)
	case ms >= 10:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.2fms", ms)
}

func servers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}
