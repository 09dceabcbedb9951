package jsondiff

import (
	"strings"
	"testing"
)

func TestTolerance(t *testing.T) {
	t.Parallel()
	tol := func(ss ...string) Options {
		var o Options
		for _, s := range ss {
			x, err := ParseTolerance(s)
			if err != nil {
				t.Fatal(err)
			}
			o.Tolerance = append(o.Tolerance, x)
		}
		return o
	}
	tests := []struct {
		name string
		a, b string
		o    Options
		want []string
	}{
		// 0x3b9aca00 is 1,000,000,000; 5 % of the larger side, 1,050,000,000, is 52,500,000
		{"relative: 5 % of 1.05e9 covers 5e7", `{"result":{"gasPrice":"0x3b9aca00"}}`, `{"result":{"gasPrice":"0x3e95ba80"}}`,
			tol("result.gasPrice=5%"), nil},
		// 1,060,000,000 - 1,000,000,000 = 60,000,000 > 5 % of 1.06e9 = 53,000,000
		{"relative: 6e7 is over 5 % of 1.06e9", `{"result":{"gasPrice":"0x3b9aca00"}}`, `{"result":{"gasPrice":"0x3f2e5100"}}`,
			tol("result.gasPrice=5%"), []string{`result.gasPrice: changed: "0x3b9aca00" (string) ≠ "0x3f2e5100" (string)`}},
		{"absolute: 0.0009 within 0.001", `{"x":1.0005}`, `{"x":1.0014}`, tol("x=0.001"), nil},
		{"absolute: the bound itself is within", `{"x":1}`, `{"x":1.001}`, tol("x=0.001"), nil},
		{"absolute: 0.0011 is not within 0.001", `{"x":1}`, `{"x":1.0011}`, tol("x=0.001"), []string{`x: changed: 1 (number) ≠ 1.0011 (number)`}},
		{"another path is compared exactly", `{"x":1,"y":1}`, `{"x":2,"y":2}`, tol("x=5"), []string{`y: changed: 1 (number) ≠ 2 (number)`}},
		// 101 - 100 is within 10 % of 101; 112 - 100 = 12 is over 10 % of 112 = 11.2
		{"wildcard path, hex against a number", `{"r":[{"fee":"0x64"},{"fee":"0x64"}]}`, `{"r":[{"fee":101},{"fee":112}]}`,
			tol("r[*].fee=10%"), []string{`r[1].fee: type: "0x64" (string) ≠ 112 (number)`}},
		{"text is not a number", `{"x":"abc"}`, `{"x":"abd"}`, tol("x=100%"), []string{`x: changed: "abc" (string) ≠ "abd" (string)`}},
		{"the first matching tolerance applies", `{"x":10}`, `{"x":12}`, tol("x=1", "*=50%"), []string{`x: changed: 10 (number) ≠ 12 (number)`}},
		{"zero tolerance is exact", `{"x":"0x10"}`, `{"x":16}`, tol("x=0"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diffs, err := Compare([]byte(tt.a), []byte(tt.b), &tt.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diffs {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseToleranceErrors(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"result.gasPrice":       "want PATH=N (absolute) or PATH=N% (relative)",
		"result.gasPrice=five%": `the bound "five%" is not a decimal of 0 or more`,
		"x=-1":                  `the bound "-1" is not a decimal of 0 or more`,
		"x=1/2":                 `the bound "1/2" is not a decimal`,
		"a..b=1":                "member name after '.'",
	} {
		_, err := ParseTolerance(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTolerance(%q) = %v; want an error with %q", s, err, want)
		}
	}
	x, err := ParseTolerance(" result.gasPrice = 5% ")
	if err != nil || !x.Rel || x.Bound.RatString() != "1/20" || x.Path.String() != "result.gasPrice" {
		t.Errorf("ParseTolerance(\" result.gasPrice = 5%% \") = %+v, %v; want relative 1/20 at result.gasPrice", x, err)
	}
}
