package plan

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/transport"
)

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"5000", 5000, false},
		{"5000/s", 5000, false},
		{"300/m", 5, false},
		{"300/min", 5, false},
		{"36/h", 0.01, false},
		{"1/100ms", 10, false},
		{"2.5/s", 2.5, false},
		{"5k/m", 0, true},  // no unit suffixes on the number
		{"-1/s", 0, true},  // negative
		{"10/d", 0, true},  // unknown unit
		{"10/0s", 0, true}, // zero period
		{"", 0, true},
		{"NaN", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if (err != nil) != tt.err || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("ParseRate(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := ParseRate("5k/m"); err == nil || err.Error() != `"5k/m" is not a rate; use e.g. 500/s, 300/m or 1/100ms` {
		t.Errorf("ParseRate(5k/m) error %v; want one that says what would work", err)
	}
}

func TestParseStages(t *testing.T) {
	t.Parallel()
	got, err := ParseStages("30s:1000, 1m:5000/s,0s:10")
	if err != nil {
		t.Fatal(err)
	}
	want := []schedule.Stage{{Duration: 30 * time.Second, Target: 1000}, {Duration: time.Minute, Target: 5000}, {Duration: 0, Target: 10}}
	if len(got) != len(want) {
		t.Fatalf("got %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stage %d = %v; want %v", i+1, got[i], want[i])
		}
	}
	_, err = ParseStages("30s,x:10,1s:fast")
	for _, w := range []string{`stage 1 "30s": want DURATION:TARGET`, `stage 2 "x:10": "x" is not a duration`, `stage 3 "1s:fast": target "fast" is not a rate`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("ParseStages error %v; want it to say %q", err, w)
		}
	}
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	h, err := ParseHeader("Content-Type:  application/json ")
	if err != nil || h.Name != "Content-Type" || h.Value != "application/json" {
		t.Errorf("ParseHeader = %+v, %v; want Content-Type: application/json", h, err)
	}
	for _, bad := range []string{"NoColon", "Bad Name: x", ": empty"} {
		if _, err := ParseHeader(bad); err == nil {
			t.Errorf("ParseHeader(%q) accepted a bad header", bad)
		}
	}
	// what is not a header may be one without its colon: only its first word is quoted
	for bad, want := range map[string]string{"Authorization Bearer TOKZ": `"Authorization …" is not a header`, "X-Api-Key TOKZ: x": `"X-Api-Key …" is not a header`} {
		if _, err := ParseHeader(bad); err == nil || strings.Contains(err.Error(), "TOKZ") || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseHeader(%q): %v; want an error with %q, without the secret", bad, err, want)
		}
	}
}

func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"30s:1000,60s:5000", "0s:10", "1m:300/m", ",", "1s:", ":5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stages, err := ParseStages(s)
		if err != nil {
			return
		}
		for _, st := range stages {
			if st.Duration < 0 || !(st.Target >= 0) {
				t.Fatalf("ParseStages(%q) gave a bad stage %v", s, st)
			}
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"5000", "300/m", "1/100ms", "5k/m", "1e308/ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err == nil && (r < 0 || math.IsNaN(r) || math.IsInf(r, 0)) {
			t.Fatalf("ParseRate(%q) = %v", s, r)
		}
	})
}

// FuzzParseHeader: a header ParseHeader accepts is one a plan accepts, and it says its name and
// value back as given, trimmed.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Content-Type: application/json", "X-A:b", "a: b: c", " X : y ", ":", "a b: c", "A: \r\nB: c", "A:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeader(s)
		if err != nil {
			return
		}
		p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:8080/", Header: []transport.Header{h}}}}
		if err := p.Validate(); err != nil {
			t.Errorf("ParseHeader(%q) = %+v, which a plan refuses: %v", s, h, err)
		}
		if name, value, _ := strings.Cut(s, ":"); h.Name != strings.TrimSpace(name) || h.Value != strings.TrimSpace(value) {
			t.Errorf("ParseHeader(%q) = %+v; want the name and value as given, trimmed", s, h)
		}
	})
}
