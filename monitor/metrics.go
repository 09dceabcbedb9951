package monitor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// maxMetricsBody bounds how much of a /metrics answer is read.
const maxMetricsBody = 32 << 20

// Selector chooses series of a Prometheus metric: those of metric Name whose labels include every
// pair in Labels. Several matching series are summed. The zero value is invalid.
type Selector struct {
	Name   string
	Labels map[string]string
}

// ParseSelector reads `name` or `name{label="value",...}`, as in PromQL but with equality matchers
// only.
func ParseSelector(s string) (Selector, error) {
	bad := func(why string) (Selector, error) {
		return Selector{}, fmt.Errorf("monitor: metric selector %q: %s; want name or name{label=\"value\",...}", s, why)
	}
	name, rest, hasLabels := strings.Cut(s, "{")
	name = strings.TrimSpace(name)
	if !validMetricName(name) {
		return bad("not a metric name")
	}
	sel := Selector{Name: name}
	if !hasLabels {
		return sel, nil
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasSuffix(rest, "}") {
		return bad("no closing }")
	}
	rest = strings.TrimSpace(strings.TrimSuffix(rest, "}"))
	sel.Labels = map[string]string{}
	for rest != "" {
		k, v, ok := strings.Cut(rest, "=")
		k = strings.TrimSpace(k)
		if !ok || !validLabelName(k) {
			return bad("want label=\"value\"")
		}
		v = strings.TrimLeft(v, " ")
		end := closingQuote(v)
		if end < 0 {
			return bad("label " + k + ": want a double-quoted value")
		}
		val, err := strconv.Unquote(v[:end+1])
		if err != nil {
			return bad("label " + k + ": bad quoted value")
		}
		sel.Labels[k] = val
		rest = strings.TrimSpace(v[end+1:])
		if rest != "" {
			if rest[0] != ',' {
				return bad("want , between labels")
			}
			rest = strings.TrimSpace(rest[1:])
		}
	}
	return sel, nil
}

// closingQuote returns the index of the quote closing the string that starts at v[0], or -1.
func closingQuote(v string) int {
	if len(v) == 0 || v[0] != '"' {
		return -1
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func validMetricName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func validLabelName(s string) bool { return validMetricName(s) && !strings.Contains(s, ":") }

// String writes the selector back in the form ParseSelector reads, labels sorted.
func (s Selector) String() string {
	if len(s.Labels) == 0 {
		return s.Name
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Name + "{")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + strconv.Quote(s.Labels[k]))
	}
	b.WriteByte('}')
	return b.String()
}

func (s Selector) matches(m *dto.Metric) bool {
	found := 0
	for _, lp := range m.GetLabel() {
		if v, ok := s.Labels[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(s.Labels)
}

// MetricValue is one selector's figure at one scrape.
type MetricValue struct {
	Series string `json:"series"` // the selector, as Selector.String writes it
	Type   string `json:"type"`   // "gauge", "counter" or "untyped"
	// Value is the sum over matching series: the value for a gauge or untyped metric, the increase
	// per second since the previous scrape for a counter (a counter that went down was reset and
	// counts from zero).
	Value float64 `json:"value"`
	// Known is false when no series matched, or for a counter's first scrape (no rate yet).
	Known bool `json:"known"`
}

// MetricsSample is the chosen series at one scrape, in the order of the selectors.
type MetricsSample struct {
	Time   time.Time     `json:"time"`
	Values []MetricValue `json:"values"`
}

// Scraper reads chosen series of a target's Prometheus metrics (text exposition format) each time
// its caller asks, on the same timeline as a Sampler. Build it with NewScraper. It is not safe for
// concurrent use.
type Scraper struct {
	url    string
	client *http.Client
	sel    []Selector

	started  bool
	prevTime time.Time
	prev     []float64 // last counter sums, by selector
	prevOK   []bool
}

// NewScraper returns a Scraper of rawURL (http or https) for the selectors; client nil means
// http.DefaultClient (the context given to Scrape bounds each request).
func NewScraper(rawURL string, client *http.Client, sel ...Selector) (*Scraper, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("monitor: metrics URL %q: want http://host:port/metrics", rawURL)
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("monitor: metrics URL %s: want at least one series to follow, got none", rawURL)
	}
	for _, s := range sel {
		if !validMetricName(s.Name) {
			return nil, fmt.Errorf("monitor: metric selector %q: want a metric name", s.Name)
		}
	}
	if client == nil {
		client = http.DefaultClient
	}
	return &Scraper{url: rawURL, client: client, sel: sel,
		prev: make([]float64, len(sel)), prevOK: make([]bool, len(sel))}, nil
}

// Scrape fetches the metrics now and returns the chosen series. A failed request or an answer that
// does not parse is an error naming the URL.
func (s *Scraper) Scrape(ctx context.Context, now time.Time) (MetricsSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return MetricsSample{}, fmt.Errorf("monitor: metrics %s: %w", s.url, err)
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := s.client.Do(req)
	if err != nil {
		return MetricsSample{}, fmt.Errorf("monitor: metrics %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return MetricsSample{}, fmt.Errorf("monitor: metrics %s: want status 200, got %s", s.url, resp.Status)
	}
	fams, err := ParseMetrics(io.LimitReader(resp.Body, maxMetricsBody))
	if err != nil {
		return MetricsSample{}, fmt.Errorf("monitor: metrics %s: %w", s.url, err)
	}
	return s.Observe(now, fams), nil
}

// ParseMetrics parses the Prometheus text exposition format with the Prometheus client libraries.
func ParseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("want the Prometheus text format: %w", err)
	}
	return fams, nil
}

// Observe picks the chosen series out of parsed metric families read at now: pure arithmetic on
// its inputs and the previous call's counters.
func (s *Scraper) Observe(now time.Time, fams map[string]*dto.MetricFamily) MetricsSample {
	out := MetricsSample{Time: now, Values: make([]MetricValue, len(s.sel))}
	dt := now.Sub(s.prevTime).Seconds()
	for i, sel := range s.sel {
		v := MetricValue{Series: sel.String()}
		sum, typ, ok := pick(fams[sel.Name], sel)
		v.Type = typ
		if typ == "counter" {
			if ok && s.started && s.prevOK[i] && dt > 0 {
				inc := sum - s.prev[i]
				if inc < 0 {
					inc = sum // reset
				}
				v.Value, v.Known = inc/dt, true
			}
			s.prev[i], s.prevOK[i] = sum, ok
		} else {
			v.Value, v.Known = sum, ok
		}
		out.Values[i] = v
	}
	s.prevTime, s.started = now, true
	return out
}

// pick sums the matching series of one family; ok is false when none matched or the type is one
// without a single value (summary, histogram).
func pick(f *dto.MetricFamily, sel Selector) (sum float64, typ string, ok bool) {
	if f == nil {
		return 0, "", false
	}
	switch f.GetType() {
	case dto.MetricType_COUNTER:
		typ = "counter"
	case dto.MetricType_GAUGE:
		typ = "gauge"
	case dto.MetricType_UNTYPED:
		typ = "untyped"
	default:
		return 0, strings.ToLower(f.GetType().String()), false
	}
	for _, m := range f.GetMetric() {
		if !sel.matches(m) {
			continue
		}
		ok = true
		switch typ {
		case "counter":
			sum += m.GetCounter().GetValue()
		case "gauge":
			sum += m.GetGauge().GetValue()
		default:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum, typ, ok
}
