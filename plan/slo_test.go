package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseSLO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want SLO
	}{
		// the example: latency in ms, errors as a percentage, rate as a fraction
		{"p99<50ms,p999<200ms,errors<0.1%,rate>=0.99", SLO{
			{"p99", "<", 50}, {"p999", "<", 200}, {"errors", "<", 0.001}, {"rate", ">=", 0.99}}},
		// spaces around parts and operators; µs in both spellings; seconds
		{" p50 <= 800us , p90<800µs, max<1.5s ", SLO{{"p50", "<=", 0.8}, {"p90", "<", 0.8}, {"max", "<", 1500}}},
		// p99.9 and p99.99 are p999 and p9999; upper case metric names
		{"P99.9<1s,p99.99<2s,mean<3ms", SLO{{"p999", "<", 1000}, {"p9999", "<", 2000}, {"mean", "<", 3}}},
		// errors as a fraction, rate as a percentage, rps with and without /s
		{"errors<=0.01,rate>99%,rps>=1000/s", SLO{{"errors", "<=", 0.01}, {"rate", ">", 0.99}, {"rps", ">=", 1000}}},
		// nothing: no objective
		{"", nil},
		{"  ", nil},
	} {
		got, err := ParseSLO(tc.in)
		if err != nil {
			t.Errorf("ParseSLO(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSLO(%q): got %+v; want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseSLOErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"p99<50xs", "p99<50xs: unit xs: want µs, ms or s"},
		{"p99<50", "p99<50: 50 has no unit: want µs, ms or s"},
		{"p99>50ms", "p99>50ms: p99 is an upper bound: want < or <="},
		{"rate<0.9", "rate<0.9: rate is a lower bound: want > or >="},
		{"errors>1%", "errors>1%: errors is an upper bound: want < or <="},
		{"errors<150%", "errors<150%: 150% is more than 100%"},
		{"errors<", "errors<: no value"},
		{"p98<1ms", `p98<1ms: metric "p98": want one of p50,`},
		{"<1ms", "<1ms: no metric before <"},
		{"p99", "p99: no comparison"},
		{"p99=5ms", `p99=5ms: comparison "=": want <, <=, > or >=`},
		{"p99<-5ms", "p99<-5ms: -5 is negative"},
		{"p99<1e999ms", `p99<1e999ms: "1e999" is not a number`},
		{"p99<5ms,,p50<1ms", "empty objective"},
		{"p99<5ms,p99.0<1ms", `metric "p99.0"`},
		{"p99<5ms,P99<1ms", "P99<1ms: p99 is given twice"},
		{"rps>=many", `rps>=many: "many" is not a number`},
	} {
		_, err := ParseSLO(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSLO(%q): got error %v; want one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestSLOJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/"}}}
	var err error
	in.SLO, err = ParseSLO("p99<50ms,p50<800µs,max<2s,errors<0.1%,rate>=0.99,rps>1000")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct{ SLO string }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if want := "p99<50ms,p50<800µs,max<2s,errors<0.1%,rate>=0.99,rps>1000"; raw.SLO != want {
		t.Errorf("JSON slo member: got %q; want %q", raw.SLO, want)
	}
	var out Plan
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.SLO, in.SLO) {
		t.Errorf("round trip: got %+v; want %+v", out.SLO, in.SLO)
	}
	none, _ := json.Marshal(Plan{})
	if strings.Contains(string(none), "slo") {
		t.Errorf("a plan without an SLO: got %s; want no slo member", none)
	}
}

func TestObjectiveHolds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o     Objective
		value float64
		want  bool
	}{
		{Objective{"p99", "<", 50}, 49.9, true},
		{Objective{"p99", "<", 50}, 50, false}, // strict: equal fails
		{Objective{"p99", "<=", 50}, 50, true},
		{Objective{"rate", ">=", 0.99}, 0.99, true},
		{Objective{"rate", ">", 0.99}, 0.99, false},
		{Objective{"rps", ">", 100}, 101, true},
		{Objective{"rps", "?", 100}, 101, false}, // an unknown op never holds
	} {
		if got := tc.o.Holds(tc.value); got != tc.want {
			t.Errorf("%v holds for %v: got %v; want %v", tc.o, tc.value, got, tc.want)
		}
	}
}

// FuzzParseSLO checks that ParseSLO never panics and that what it accepts prints back into the
// same objectives.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<50ms,p999<200ms,errors<0.1%,rate>=0.99", "p50<=800µs", "rps>=1000/s",
		"max<1.5s", "errors<=0.01", "p99<50xs", "<", ",", "p99.99<1e3ms", "rate>=1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSLO(in)
		if err != nil {
			return
		}
		again, err := ParseSLO(s.String())
		if err != nil {
			t.Fatalf("ParseSLO(%q) = %v, whose text %q does not parse: %v", in, s, s.String(), err)
		}
		if len(again) != len(s) {
			t.Fatalf("ParseSLO(%q): %d objectives; its text %q has %d", in, len(s), s.String(), len(again))
		}
		for i := range s {
			if again[i].Metric != s[i].Metric || again[i].Op != s[i].Op {
				t.Fatalf("ParseSLO(%q): objective %d %v; its text gives %v", in, i, s[i], again[i])
			}
		}
	})
}
