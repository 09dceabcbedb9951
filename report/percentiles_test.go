package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// Options.Percentiles choose the latency columns of the text, Markdown and HTML endpoint tables.
func TestPercentileColumns(t *testing.T) {
	t.Parallel()
	s := load(t, "testdata/multi.rb")
	get := s.Endpoints[0]
	// the figures straight from the endpoint's histogram (µs), not from the Summary's fields
	p9999 := summary.FormatMs(float64(get.LatencyHist.ValueAtQuantile(99.99)) / 1000)
	p50 := summary.FormatMs(float64(get.LatencyHist.ValueAtQuantile(50)) / 1000)
	o := Options{Percentiles: []float64{50, 99.99}}
	var text, md, page bytes.Buffer
	if err := TextWith(&text, s, o); err != nil {
		t.Fatal(err)
	}
	if err := MarkdownWith(&md, []*summary.Summary{s}, nil, o); err != nil {
		t.Fatal(err)
	}
	if err := HTMLWith(&page, []*summary.Summary{s}, nil, o); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  string
		want *regexp.Regexp
	}{
		{"text header", text.String(), regexp.MustCompile(`(?m)^  name +sent +ok +failed +answers/s +p50 +p99\.99 +max +$`)},
		{"text row", text.String(), regexp.MustCompile(`(?m)^  get +529 +524 +5 +176\.3 +` + regexp.QuoteMeta(p50) + ` +` + regexp.QuoteMeta(p9999) + ` +\S+ +$`)},
		{"markdown header", md.String(), regexp.MustCompile(`(?m)^\| endpoint \| sent \| ok \| failed \| answers/s \| p50 \| p99\.99 \| max \|$`)},
		{"markdown latency", md.String(), regexp.MustCompile(`(?m)^\| min \| p50 \| p99\.99 \| max \| mean \|$`)},
		{"html header", page.String(), regexp.MustCompile(`<th>answers/s</th><th>p50</th><th>p99\.99</th><th>max</th>`)},
		{"html row", page.String(), regexp.MustCompile(`<td>get</td>.*<td>` + regexp.QuoteMeta(p50) + `</td><td>` + regexp.QuoteMeta(p9999) + `</td>`)},
	}
	for _, tt := range tests {
		if !tt.want.MatchString(tt.got) {
			t.Errorf("%s: got no match for %s in:\n%s", tt.name, tt.want, tt.got)
		}
	}
}

func TestParsePercentiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{"50,90,95,99,99.9", []float64{50, 90, 95, 99, 99.9}, ""},
		{"p50, p99.99", []float64{50, 99.99}, ""},
		{"50,98", nil, `"98" is not a percentile a report holds`},
		{"", nil, `"" is not a percentile`},
	}
	for _, tt := range tests {
		got, err := ParsePercentiles(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePercentiles(%q): got error %v; want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("ParsePercentiles(%q): got %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ParsePercentiles(%q): got %v; want %v", tt.in, got, tt.want)
			}
		}
	}
}

// FuzzParsePercentiles: --percentiles accepts only percentiles a report holds, and says what it
// wants otherwise.
func FuzzParsePercentiles(f *testing.F) {
	for _, s := range []string{"50,90,95,99,99.9", "p50, p99.99", "98", "", "50,,99", "1e2", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		qs, err := ParsePercentiles(s)
		if err != nil {
			if !strings.Contains(err.Error(), "want a comma-separated list") {
				t.Errorf("ParsePercentiles(%q): %v; want it to say what it wants", s, err)
			}
			return
		}
		for _, q := range qs {
			if pctOf(&summary.Percentiles{}, q) < 0 {
				t.Errorf("ParsePercentiles(%q) accepted %v, which no report holds", s, q)
			}
		}
	})
}
