package report

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// chartData is what the page's script charts, encoded as JSON into the page. Arrays of *float64
// hold null where a run has no value at that x (uPlot draws a gap, or spans it).
type chartData struct {
	Runs     []chartRun `json:"runs"`
	Time     timeData   `json:"time"`
	Spectrum []spectrum `json:"spectrum"`
	// ServiceSpectrum is each run's service time spectrum (from the actual send), drawn beside
	// its latency's.
	ServiceSpectrum []spectrum `json:"service_spectrum"`
	Hist            histData   `json:"hist"`
	// Resources is what the resource monitor saw, when a run was monitored.
	Resources *resourceChart `json:"resources,omitempty"`
	// Subscriptions are the runs' subscription figures by percentile (subscriptionsChart), and
	// SubsPcts the names of their x.
	Subscriptions []subsChart `json:"subscriptions,omitempty"`
	SubsPcts      []string    `json:"subs_pcts,omitempty"`
}

type chartRun struct {
	Letter string `json:"letter"`
	Label  string `json:"label"`
	Color  string `json:"color"`
}

// timeData is the runs' timelines (all endpoints together) on one shared x axis: the end of each
// interval, in seconds from the measured start.
type timeData struct {
	X    []float64     `json:"x"`
	Runs []timeSeriesR `json:"runs"`
	// Endpoints is the timeline per endpoint when the page holds one run of several endpoints.
	Endpoints *endpointTime `json:"endpoints,omitempty"`
	// Jumps are each run's stretches where latency or errors jumped (summary.Jumps), marked on
	// the latency chart; nil when no run has any.
	Jumps [][]jumpBand `json:"jumps,omitempty"`
}

// jumpBand is a stretch of a jump on timeData's x axis, in seconds from the measured start.
type jumpBand struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// endpointTime is one run's p99 and throughput per endpoint over time, on timeData's x axis, for
// the busiest endpoints (at most len(palette), one colour each).
type endpointTime struct {
	Names  []string     `json:"names"`
	Colors []string     `json:"colors"`
	Of     int          `json:"of"` // how many endpoints the run has
	P99    [][]*float64 `json:"p99"`
	RPS    [][]*float64 `json:"rps"`
}

type timeSeriesR struct {
	P50    []*float64 `json:"p50"`
	P90    []*float64 `json:"p90"`
	P99    []*float64 `json:"p99"`
	Max    []*float64 `json:"max"`
	RPS    []*float64 `json:"rps"`
	ErrRPS []*float64 `json:"err_rps"`
	// SvcP50 and SvcP99 are the service time's percentiles, LagP99 the send lag's, per interval.
	SvcP50 []*float64 `json:"svc_p50"`
	SvcP99 []*float64 `json:"svc_p99"`
	LagP99 []*float64 `json:"lag_p99"`
}

// spectrum is one run's percentile spectrum: X is 1/(1−p), Y the latency in ms at p.
type spectrum struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// histData is the latency histograms of the runs over shared bins. Labels name each bin by its
// range; Pct holds, per run, the percentage of the run's requests in each bin (nil for a run
// without a histogram).
type histData struct {
	Labels []string    `json:"labels"`
	Pct    [][]float64 `json:"pct"`
}

// palette is Okabe and Ito's colour-blind-safe palette, in the order runs take it.
var palette = [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

func runColor(i int) string { return palette[i%len(palette)] }

func runLetter(i int) string {
	s := ""
	for i++; i > 0; i = (i - 1) / 26 {
		s = string(rune('A'+(i-1)%26)) + s
	}
	return s
}

func buildChartData(runs []*summary.Summary, names []string) chartData {
	d := chartData{}
	for i, s := range runs {
		d.Runs = append(d.Runs, chartRun{Letter: runLetter(i), Label: runLabel(s, names[i]), Color: runColor(i)})
		d.Spectrum = append(d.Spectrum, buildSpectrum(s.LatencyHist, &s.Latency, s.Requests.Completed))
		d.ServiceSpectrum = append(d.ServiceSpectrum, buildSpectrum(s.ServiceHist, &s.Service, s.Requests.Sent))
	}
	d.Time = buildTime(runs)
	d.Hist = buildHist(runs)
	return d
}

func buildTime(runs []*summary.Summary) timeData {
	seen := map[float64]bool{}
	var xs []float64
	for _, s := range runs {
		for _, p := range s.Timeline {
			if p.Endpoint == "" && !inDrain(s, p) && !seen[p.End] {
				seen[p.End] = true
				xs = append(xs, p.End)
			}
		}
	}
	sort.Float64s(xs)
	idx := make(map[float64]int, len(xs))
	for i, x := range xs {
		idx[x] = i
	}
	td := timeData{X: xs}
	for i, s := range runs {
		for _, j := range summary.Jumps(s) {
			if td.Jumps == nil {
				td.Jumps = make([][]jumpBand, len(runs))
			}
			td.Jumps[i] = append(td.Jumps[i], jumpBand{From: j.StartS, To: j.EndS})
		}
	}
	for _, s := range runs {
		n := len(xs)
		r := timeSeriesR{P50: make([]*float64, n), P90: make([]*float64, n), P99: make([]*float64, n),
			Max: make([]*float64, n), RPS: make([]*float64, n), ErrRPS: make([]*float64, n),
			SvcP50: make([]*float64, n), SvcP99: make([]*float64, n), LagP99: make([]*float64, n)}
		var tail tailGap
		for _, p := range s.Timeline {
			if p.Endpoint != "" || inDrain(s, p) || tail.skip(p) {
				continue
			}
			i := idx[p.End]
			r.RPS[i] = num(p.RPS)
			if d := p.End - p.Start; d > 0 {
				r.ErrRPS[i] = num(float64(p.Errors) / d)
			}
			if hasLatency(p) {
				r.P50[i], r.P90[i], r.P99[i], r.Max[i] = num(p.P50), num(p.P90), num(p.P99), num(p.Max)
			}
			if p.SvcP99 > 0 {
				r.SvcP50[i], r.SvcP99[i] = num(p.SvcP50), num(p.SvcP99)
			}
			if p.LagP99 > 0 {
				r.LagP99[i] = num(p.LagP99)
			}
		}
		td.Runs = append(td.Runs, r)
	}
	if len(runs) == 1 {
		td.Endpoints = buildEndpointTime(runs[0], idx, len(xs))
	}
	return td
}

// inDrain reports whether p lies wholly after s's last send: an interval of the drain holds only
// the stragglers, and would draw a throughput collapse and a p99 spike that the load never saw.
func inDrain(s *summary.Summary, p summary.Point) bool {
	return s.SendSpanS > 0 && p.Start >= s.SendSpanS-1e-9
}

func hasLatency(p summary.Point) bool { return p.OK+p.Errors > 0 && (p.P50 > 0 || p.Max > 0) }

// tailGap tells the points to leave out of a series: a short interval that holds nothing (the few
// ms between the last send and the end of a run) would draw the throughput diving to 0, where a
// gap says what happened. A full interval without answers (a stall) stays a 0.
type tailGap struct{ prev float64 } // the length of the series' previous point

func (g *tailGap) skip(p summary.Point) bool {
	d := p.End - p.Start
	short := d < g.prev/2
	g.prev = d
	return short && p.Sent == 0 && p.RPS == 0 && p.Errors == 0
}

// buildEndpointTime returns the per-endpoint series of s on the x axis idx of n points, or nil when
// s has fewer than two endpoints over time.
func buildEndpointTime(s *summary.Summary, idx map[float64]int, n int) *endpointTime {
	sent := map[string]uint64{}
	var names []string
	for _, p := range s.Timeline {
		if p.Endpoint == "" {
			continue
		}
		if _, ok := sent[p.Endpoint]; !ok {
			names = append(names, p.Endpoint)
		}
		sent[p.Endpoint] += p.Sent
	}
	if len(names) < 2 {
		return nil
	}
	et := &endpointTime{Of: len(names)}
	if len(names) > len(palette) { // the busiest, in the run's order
		busy := slices.Clone(names)
		slices.SortStableFunc(busy, func(a, b string) int { return cmp.Compare(sent[b], sent[a]) })
		keep := map[string]bool{}
		for _, name := range busy[:len(palette)] {
			keep[name] = true
		}
		names = slices.DeleteFunc(names, func(name string) bool { return !keep[name] })
	}
	at := make(map[string]int, len(names))
	for i, name := range names {
		at[name] = i
		et.Names = append(et.Names, name)
		et.Colors = append(et.Colors, runColor(i))
		et.P99 = append(et.P99, make([]*float64, n))
		et.RPS = append(et.RPS, make([]*float64, n))
	}
	tails := make([]tailGap, len(names))
	for _, p := range s.Timeline {
		k, ok := at[p.Endpoint]
		if p.Endpoint == "" || !ok || inDrain(s, p) || tails[k].skip(p) {
			continue
		}
		i := idx[p.End]
		et.RPS[k][i] = num(p.RPS)
		if hasLatency(p) {
			et.P99[k][i] = num(p.P99)
		}
	}
	return et
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// spectrumSteps is the number of points per decade of 1/(1−p) in a spectrum.
const spectrumSteps = 24

// maxSpectrumX bounds the spectrum at the 99.9999th percentile.
const maxSpectrumX = 1e6

// buildSpectrum returns the percentile spectrum of a run's latency or service time, from its
// histogram h when it has one, else from its percentiles l (what a JSON report keeps) over count
// values.
func buildSpectrum(h *result.Histogram, l *summary.Percentiles, count uint64) spectrum {
	if h != nil && h.TotalCount() > 0 {
		n := float64(h.TotalCount())
		var sp spectrum
		top := math.Min(n, maxSpectrumX)
		for j := 0; ; j++ {
			x := math.Pow(10, float64(j)/spectrumSteps)
			if x >= top {
				break
			}
			sp.X = append(sp.X, x)
			sp.Y = append(sp.Y, float64(h.ValueAtQuantile(100*(1-1/x)))/1000)
		}
		sp.X = append(sp.X, math.Max(top, 1))
		if top >= n {
			sp.Y = append(sp.Y, float64(h.Max())/1000)
		} else {
			sp.Y = append(sp.Y, float64(h.ValueAtQuantile(100*(1-1/top)))/1000)
		}
		return sp
	}
	n := float64(count)
	if n == 0 {
		return spectrum{}
	}
	sp := spectrum{X: []float64{1}, Y: []float64{l.Min}}
	for _, q := range []struct{ x, v float64 }{{2, l.P50}, {4, l.P75}, {10, l.P90}, {20, l.P95}, {100, l.P99}, {1000, l.P999}, {10000, l.P9999}} {
		if q.x < n {
			sp.X, sp.Y = append(sp.X, q.x), append(sp.Y, q.v)
		}
	}
	sp.X, sp.Y = append(sp.X, math.Max(n, 2)), append(sp.Y, l.Max)
	return sp
}

// histBins is the most bins the latency histogram has (plus one for the tail above the 99.9th
// percentile).
const histBins = 40

// buildHist puts the runs' latency histograms into shared bins. The bins cover the lowest value
// up to the highest 99.9th percentile, log-spaced when that range spans more than a decade, with a
// last bin for everything above.
func buildHist(runs []*summary.Summary) histData {
	lo, hi, top := math.Inf(1), 0.0, 0.0
	for _, s := range runs {
		h := s.LatencyHist
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		lo = math.Min(lo, float64(h.Min()))
		hi = math.Max(hi, float64(h.ValueAtQuantile(99.9)))
		top = math.Max(top, float64(h.Max()))
	}
	if hi == 0 || math.IsInf(lo, 1) {
		return histData{}
	}
	edges := binEdges(lo, hi)
	tail := top > edges[len(edges)-1]
	hd := histData{}
	for i := 0; i+1 < len(edges); i++ {
		hd.Labels = append(hd.Labels, summary.FormatMs(edges[i]/1000)+"–"+summary.FormatMs(edges[i+1]/1000))
	}
	if tail {
		hd.Labels = append(hd.Labels, "> "+summary.FormatMs(edges[len(edges)-1]/1000))
	}
	for _, s := range runs {
		hd.Pct = append(hd.Pct, binCounts(s.LatencyHist, edges, len(hd.Labels)))
	}
	return hd
}

// binEdges returns the edges, in µs, of the bins over [lo, hi].
func binEdges(lo, hi float64) []float64 {
	lo = math.Max(lo, 1)
	if hi <= lo {
		hi = lo + 1
	}
	edges := make([]float64, 0, histBins+1)
	if hi/lo > 10 {
		a, b := math.Log(lo), math.Log(hi)
		for i := 0; i <= histBins; i++ {
			edges = append(edges, math.Exp(a+(b-a)*float64(i)/histBins))
		}
		edges[0], edges[histBins] = lo, hi
	} else {
		w := niceStep((hi - lo) / histBins)
		start := math.Floor(lo/w) * w
		for e := start; len(edges) <= histBins+1; e += w {
			edges = append(edges, e)
			if e > hi {
				break
			}
		}
	}
	return edges
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// binCounts returns the percentage of h's values in each bin; values above the last edge go into
// bin n−1 (the tail bin, when there is one).
func binCounts(h *result.Histogram, edges []float64, n int) []float64 {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	out := make([]float64, n)
	total := float64(h.TotalCount())
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.From+b.To) / 2
		i := sort.SearchFloat64s(edges, v) - 1 // edges[i] < v <= edges[i+1], roughly
		i = min(max(i, 0), n-1)
		out[i] += float64(b.Count)
	}
	for i := range out {
		out[i] = math.Round(out[i]/total*100*1e4) / 1e4
	}
	return out
}
