package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rpcbench/rpcbench/jsondiff"
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
	Requests  int    `json:"requests"`
	Equal     int    `json:"equal"`
	Different int    `json:"different"`
	// Failed counts the requests that some server did not answer (refused, timeout, …).
	Failed  int       `json:"failed"`
	Methods []Method  `json:"methods"`
	Latency []Latency `json:"latency"`
	// Mismatches are the first MaxMismatches requests that were not equal, in corpus order.
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
	Different int    `json:"different"`
	// Errors counts, per server, the requests it did not answer.
	Errors []int `json:"errors"`
}

// Latency sums up one server's answer times (request written to answer read).
type Latency struct {
	URL     string  `json:"url"`
	Answers int     `json:"answers"`
	MeanMS  float64 `json:"mean_ms"`
	P50MS   float64 `json:"p50_ms"`
	P90MS   float64 `json:"p90_ms"`
	P99MS   float64 `json:"p99_ms"`
	MaxMS   float64 `json:"max_ms"`
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
	lat     [][]time.Duration
}

// NewTally starts a Report of the given servers; reference is what they are compared with.
func NewTally(servers []string, reference string) *Tally {
	return &Tally{rep: Report{Servers: servers, Reference: reference, Methods: []Method{}, Mismatches: []Mismatch{}},
		methods: map[string]int{}, lat: make([][]time.Duration, len(servers))}
}

// Add counts r.
func (t *Tally) Add(r *Result) {
	rep := &t.rep
	rep.Requests++
	i, ok := t.methods[r.Request.Label]
	if !ok {
		i = len(rep.Methods)
		t.methods[r.Request.Label] = i
		rep.Methods = append(rep.Methods, Method{Name: r.Request.Label, Errors: make([]int, len(rep.Servers))})
	}
	m := &rep.Methods[i]
	m.Sent++
	failed, different := false, false
	for k, a := range r.Answers {
		if a.Class != "" {
			failed = true
			m.Errors[k]++
			continue
		}
		t.lat[k] = append(t.lat[k], a.Latency)
		different = different || len(r.Diffs[k]) > 0
	}
	switch {
	case failed:
		rep.Failed++
	case different:
		rep.Different++
		m.Different++
	default:
		rep.Equal++
		m.Equal++
		return
	}
	if len(rep.Mismatches) == MaxMismatches {
		rep.More++
		return
	}
	mm := Mismatch{ID: r.Request.ID, Method: r.Request.Label, Where: r.Request.Where}
	for k, a := range r.Answers {
		if a.Class != "" || len(r.Diffs[k]) > 0 {
			mm.Servers = append(mm.Servers, ServerDiff{URL: rep.Servers[k], Class: a.Class, Error: a.Error, Diffs: r.Diffs[k]})
		}
	}
	rep.Mismatches = append(rep.Mismatches, mm)
}

// Report returns the report so far; stopped says why the run ended early ("" if it did not).
func (t *Tally) Report(stopped string) Report {
	rep := t.rep
	rep.Stopped = stopped
	rep.Latency = nil
	for k, ds := range t.lat {
		rep.Latency = append(rep.Latency, latency(rep.Servers[k], ds))
	}
	return rep
}

func latency(url string, ds []time.Duration) Latency {
	l := Latency{URL: url, Answers: len(ds)}
	if len(ds) == 0 {
		return l
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	q := func(p float64) time.Duration { return s[max(0, int(math.Ceil(p*float64(len(s))))-1)] } // nearest rank
	l.MeanMS, l.P50MS, l.P90MS, l.P99MS, l.MaxMS = ms(sum/time.Duration(len(s))), ms(q(0.50)), ms(q(0.90)), ms(q(0.99)), ms(s[len(s)-1])
	return l
}

// Verdict says in a few words what the report found.
func (r *Report) Verdict() string {
	switch {
	case r.Requests == 0:
		return "no request was compared"
	case r.Different == 0 && r.Failed == 0:
		return fmt.Sprintf("all %d answers equal", r.Requests)
	}
	return fmt.Sprintf("%d of %d requests differ, %d failed", r.Different, r.Requests, r.Failed)
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for a terminal: the verdict, the table of methods, the latency of
// each server, and the first mismatches with their differences.
func WriteText(w io.Writer, r Report) error {
	fmt.Fprintf(w, "%d requests to %s, compared with %s: %s", r.Requests, servers(len(r.Servers)), r.Reference, r.Verdict())
	if r.Stopped != "" {
		fmt.Fprintf(w, " (stopped: %s)", r.Stopped)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\nmethod\tsent\tequal\tdifferent\t")
	for k := range r.Servers {
		fmt.Fprintf(tw, "errors %s\t", serverLetter(k))
	}
	fmt.Fprintln(tw)
	for _, m := range r.Methods {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t", m.Name, m.Sent, m.Equal, m.Different)
		for _, e := range m.Errors {
			fmt.Fprintf(tw, "%d\t", e)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "\nserver\tanswers\tmean\tp50\tp90\tp99\tmax\t\n")
	for k, l := range r.Latency {
		fmt.Fprintf(tw, "%s %s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", serverLetter(k), l.URL, l.Answers, msText(l.MeanMS), msText(l.P50MS), msText(l.P90MS), msText(l.P99MS), msText(l.MaxMS))
	}
	if err := tw.Flush(); err != nil {
		return err
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

// WriteMarkdown writes the report as Markdown: the verdict, tables of methods and latency, and
// the mismatches as lists.
func WriteMarkdown(w io.Writer, r Report) error {
	fmt.Fprintf(w, "## Diff: %s\n\n%d requests to %s, compared with %s.", r.Verdict(), r.Requests, servers(len(r.Servers)), mdCode(r.Reference))
	if r.Stopped != "" {
		fmt.Fprintf(w, " Stopped: %s.", r.Stopped)
	}
	fmt.Fprint(w, "\n\n| method | sent | equal | different |")
	for k := range r.Servers {
		fmt.Fprintf(w, " errors %s |", serverLetter(k))
	}
	fmt.Fprint(w, "\n|---|---:|---:|---:|")
	fmt.Fprint(w, strings.Repeat("---:|", len(r.Servers)))
	fmt.Fprintln(w)
	for _, m := range r.Methods {
		fmt.Fprintf(w, "| %s | %d | %d | %d |", mdCode(m.Name), m.Sent, m.Equal, m.Different)
		for _, e := range m.Errors {
			fmt.Fprintf(w, " %d |", e)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\n| server | answers | mean | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for k, l := range r.Latency {
		fmt.Fprintf(w, "| %s %s | %d | %s | %s | %s | %s | %s |\n", serverLetter(k), mdCode(l.URL), l.Answers, msText(l.MeanMS), msText(l.P50MS), msText(l.P90MS), msText(l.P99MS), msText(l.MaxMS))
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
