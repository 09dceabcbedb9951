package lab

import (
	"strings"
	"testing"
	"time"
)

func TestParseDist(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Dist
		err  string // substring of the error; "" means no error
	}{
		{in: "", want: Dist{}},                               // empty: none
		{in: "exp:1ms", want: Dist{Kind: DistExp, Mean: ms}}, // exponential
		{in: "uniform:1ms-3ms", want: Dist{Kind: DistUniform, Min: ms, Max: 3 * ms}},
		{in: "uniform:2ms-2ms", want: Dist{Kind: DistUniform, Min: 2 * ms, Max: 2 * ms}}, // degenerate is fine
		{in: "normal:2ms,500us", want: Dist{Kind: DistNormal, Mean: 2 * ms, StdDev: 500 * time.Microsecond}},
		{in: "normal:2ms, 0s", want: Dist{Kind: DistNormal, Mean: 2 * ms}}, // spaces around values
		{in: "exp", err: "want exp:MEAN"},                                  // no colon
		{in: "exp:", err: `mean "" is not a duration`},                     // no mean
		{in: "exp:0s", err: "must be above 0"},                             // zero mean
		{in: "exp:-1ms", err: "is negative"},                               // negative mean
		{in: "exp:1", err: `mean "1" is not a duration`},                   // no unit
		{in: "uniform:3ms-1ms", err: "min 3ms is above max 1ms"},           // reversed
		{in: "uniform:1ms", err: "want uniform:MIN-MAX"},                   // one bound
		{in: "normal:2ms", err: "want normal:MEAN,STDDEV"},                 // no stddev
		{in: "normal:2ms,x", err: `stddev "x" is not a duration`},          // bad stddev
		{in: "pareto:1ms", err: `unknown distribution "pareto"`},           // unknown kind
	}
	for _, tt := range tests {
		got, err := ParseDist(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseDist(%q): got error %v; want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDist(%q) = %+v, %v; want %+v, nil", tt.in, got, err, tt.want)
		}
		back, err := ParseDist(got.String())
		if err != nil || back != got {
			t.Errorf("ParseDist(%q.String() = %q) = %+v, %v; want %+v", tt.in, got.String(), back, err, got)
		}
	}
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"exp:1ms", "uniform:1ms-3ms", "normal:2ms,0.5ms", "exp:", "uniform:-", "normal:,", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDist(s)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseDist(%q) = %+v, which does not validate: %v", s, d, err)
		}
		back, err := ParseDist(d.String())
		if err != nil || back != d {
			t.Fatalf("round trip of %q: ParseDist(%q) = %+v, %v; want %+v", s, d.String(), back, err, d)
		}
		for _, u := range []float64{0, 0.5, 1 - 1.0/(1<<53)} {
			if v := d.Sample(u, u); v < 0 {
				t.Fatalf("%v.Sample(%v) = %v; want >= 0", d, u, v)
			}
		}
	})
}

// TestDistSampleMoments draws many values through the per-request streams and checks the mean
// (and the range for uniform) against the distribution's parameters.
func TestDistSampleMoments(t *testing.T) {
	t.Parallel()
	const n = 20000
	ms := float64(time.Millisecond)
	tests := []struct {
		d        Dist
		mean     float64 // expected mean, ns
		tol      float64 // allowed |mean - expected|, ns (≈ 5 standard errors)
		min, max time.Duration
	}{
		{Dist{Kind: DistExp, Mean: time.Millisecond}, ms, 5 * ms / 141, 0, 40 * time.Millisecond},
		{Dist{Kind: DistUniform, Min: time.Millisecond, Max: 3 * time.Millisecond}, 2 * ms, 5 * 0.58 * ms / 141, time.Millisecond, 3 * time.Millisecond},
		{Dist{Kind: DistNormal, Mean: 2 * time.Millisecond, StdDev: time.Millisecond / 2}, 2 * ms, 5 * 0.5 * ms / 141, 0, 10 * time.Millisecond},
		{Dist{}, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		var sum float64
		for i := uint64(0); i < n; i++ {
			r := newStream(7, i)
			v := tt.d.Sample(r.float(), r.float())
			if v < tt.min || v > tt.max {
				t.Fatalf("%v: draw %d = %v; want in [%v, %v]", tt.d, i, v, tt.min, tt.max)
			}
			sum += float64(v)
		}
		if got := sum / n; got < tt.mean-tt.tol || got > tt.mean+tt.tol {
			t.Errorf("%v: mean of %d draws = %.0fns; want %.0fns ± %.0fns", tt.d, n, got, tt.mean, tt.tol)
		}
	}
}

func TestDistNormalClampsAtZero(t *testing.T) {
	t.Parallel()
	d := Dist{Kind: DistNormal, Mean: time.Millisecond, StdDev: 10 * time.Millisecond}
	zeros := 0
	for i := uint64(0); i < 1000; i++ {
		r := newStream(1, i)
		v := d.Sample(r.float(), r.float())
		if v < 0 {
			t.Fatalf("draw %d = %v; want >= 0", i, v)
		}
		if v == 0 {
			zeros++
		}
	}
	// P(N(1ms, 10ms) < 0) ≈ 0.46: about 460 of 1000.
	if zeros < 380 || zeros > 540 {
		t.Errorf("got %d draws clamped to 0 of 1000; want about 460", zeros)
	}
}
