package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// writeRun writes a result file of 10 intervals of 1 s, each with 100 answers (no errors) whose
// latency is ms[i] milliseconds in interval i: each interval's p50, p99 and max are ms[i].
func writeRun(t *testing.T, path string, ms [10]int) {
	t.Helper()
	var ivs []*result.Interval
	for i, v := range ms {
		iv := result.NewInterval(1)
		iv.Start, iv.End, iv.Intended = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second, 100
		c := iv.Endpoints[0]
		c.Sent, c.Completed, c.OK = 100, 100, 100
		c.Status[200] = 100
		for range 100 {
			result.RecordDuration(c.Latency, time.Duration(v)*time.Millisecond)
			result.RecordDuration(c.Service, time.Duration(v)*time.Millisecond)
		}
		ivs = append(ivs, iv)
	}
	writeResult(t, path, ivs, result.Trailer{Elapsed: 10 * time.Second, Sending: 10 * time.Second, Intended: 1000})
}

// writeResult writes a result file of one endpoint, GET /, at path: the intervals and the trailer.
func writeResult(t *testing.T, path string, ivs []*result.Interval, tr result.Trailer) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := result.NewWriter(f, result.Header{Tool: "rpcbench", Target: "http://127.0.0.1:1/", Endpoints: []string{"GET /"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if err := w.WriteInterval(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(tr); err != nil {
		t.Fatal(err)
	}
}

// compareFiles writes three runs in dir: base.rb with intervals of 5, 6 and 7 ms; slow.rb with
// 20, 21 and 22 ms (every interval above every base interval); noisy.rb with the base's values in
// another order and one interval of 8 ms (its p99 over all requests 8 ms, 14% above the base's 7,
// but its intervals not told apart from the base's).
func compareFiles(t *testing.T, dir string) (base, slow, noisy string) {
	t.Helper()
	base, slow, noisy = filepath.Join(dir, "base.rb"), filepath.Join(dir, "slow.rb"), filepath.Join(dir, "noisy.rb")
	writeRun(t, base, [10]int{5, 6, 7, 5, 6, 7, 5, 6, 7, 5})
	writeRun(t, slow, [10]int{20, 21, 22, 20, 21, 22, 20, 21, 22, 20})
	writeRun(t, noisy, [10]int{6, 7, 5, 6, 7, 5, 6, 7, 5, 8})
	return base, slow, noisy
}

func TestCompareGates(t *testing.T) {
	t.Parallel()
	base, slow, noisy := compareFiles(t, t.TempDir())

	// every interval of slow.rb is above every one of base.rb: U 0 of 10×10, exact P = 2/184756,
	// below 0.05/2, the level of the smaller P of two gates by Holm's method
	code, stdout, stderr := cliRun(t, "compare", "--fail-on", "p99:+10%,errors:+0.5pp", base, slow)
	if code != ExitSLO {
		t.Fatalf("exit %d; want %d (a failed gate); stdout:\n%s\nstderr: %s", code, ExitSLO, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL  p99:+10%") || !strings.Contains(stdout, "(P 1.1e-05 < 0.025, its share of the level of 2 gates by Holm's method)") || !strings.Contains(stdout, "pass  errors:+0.5pp  error rate did not change") || !strings.Contains(stderr, "--fail-on p99:+10%: p99 rose") {
		t.Errorf("want the p99 gate failed and the errors gate passed; stdout:\n%s\nstderr: %s", stdout, stderr)
	}

	// the other way round, slow.rb as the base: p99 fell, better, no gate fails
	code, stdout, stderr = cliRun(t, "compare", "--fail-on", "p99:+10%", "--format", "json", slow, base)
	if code != ExitOK {
		t.Fatalf("reversed: exit %d; want 0; stderr: %s", code, stderr)
	}
	var got struct {
		Failed bool
		Delta  struct {
			Labels  []string
			Changes []struct {
				Name, Verdict string
				Samples       []int
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if got.Failed || got.Delta.Labels[0] != "slow.rb" {
		t.Errorf("got failed %v, labels %v; want not failed, slow.rb first", got.Failed, got.Delta.Labels)
	}
	for _, c := range got.Delta.Changes {
		if c.Name == "p99" && (c.Verdict != "better" || c.Samples[0] != 10 || c.Samples[1] != 10) {
			t.Errorf("p99: got %q on %v intervals; want better on 10 each", c.Verdict, c.Samples)
		}
	}

	// 14% more p99 over all requests, but interval by interval the same values bar one: no gate fails
	code, stdout, stderr = cliRun(t, "compare", "--fail-on", "p99:+10%", base, noisy)
	if code != ExitOK || !strings.Contains(stdout, "pass  p99:+10%  p99 rose 14.") || !strings.Contains(stdout, "within the noise") {
		t.Errorf("noisy: exit %d; want 0 and the p99 gate passed within the noise; stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}

	// a run against itself: every figure the same, no gate fails
	code, stdout, _ = cliRun(t, "compare", "--fail-on", "p99:+0%,rps:-0%", "--label", "a", "--label", "b", base, base)
	if code != ExitOK || strings.Contains(stdout, "worse") || !strings.Contains(stdout, "b compared with a") {
		t.Errorf("against itself: exit %d; want 0, nothing worse; stdout:\n%s", code, stdout)
	}
	code, stdout, _ = cliRun(t, "compare", "--format", "markdown", base, slow)
	if code != ExitOK || !strings.Contains(stdout, "| p99 |") || !strings.Contains(stdout, "**worse**") {
		t.Errorf("markdown: exit %d; stdout:\n%s", code, stdout)
	}
}

func TestCompareUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a.rb"}, "want two result files, BASE and NEW, got 1"},
		{[]string{"compare", "--fail-on", "p99:10", "a.rb", "b.rb"}, `--fail-on: "p99:10": the limit "10" has no unit`},
		{[]string{"compare", "--fail-on", "p99.9:+10%", "a.rb", "b.rb"}, `--fail-on: "p99.9:+10%": unknown figure "p99.9"`},
		{[]string{"compare", "--fail-on", "rps:+5%", "a.rb", "b.rb"}, "rps gets worse as it falls; write rps:-5%"},
		{[]string{"compare", "--alpha", "0", "a.rb", "b.rb"}, "--alpha: want a significance level between 0 and 1"},
		{[]string{"compare", "--format", "html", "a.rb", "b.rb"}, "--format"},
		{[]string{"compare", "--label", "x", "a.rb", "b.rb"}, "--label: got 1 names for 2 files"},
		{[]string{"compare", filepath.Join(dir, "none.rb"), filepath.Join(dir, "none2.rb")}, "none.rb"},
	}
	for _, tc := range tests {
		code, _, stderr := cliRun(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// compare's flags have examples in its help and in the README, as printed.
func TestCompareFlagsHaveExamples(t *testing.T) {
	t.Parallel()
	docs := allUserDocs(t)
	_, help, _ := mainOut("help", "compare")
	examples, _, _ := strings.Cut(help, "\nFlags:")
	for _, flag := range []string{"--fail-on", "--alpha", "--format", "-o"} {
		line := regexp.MustCompile(`(?m)^\s*rpcbench compare .*` + flag + ` `)
		if !line.MatchString(examples) {
			t.Errorf("help compare: got no example with %s; want one", flag)
		}
		if !line.MatchString(docs) {
			t.Errorf("README.md and docs/: got no rpcbench compare command with %s; want one", flag)
		}
	}
}

// Two real open-model runs of one target, the second asked for half the rate: its throughput is
// half, which is the input, not a regression. compare shows the rates as inputs, does not judge the
// throughput, and an rps gate reads what each run achieved of its own rate: it passes.
func TestCompareOpenModelAtOtherRates(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	dir := t.TempDir()
	base, half := filepath.Join(dir, "base.rb"), filepath.Join(dir, "half.rb")
	for _, r := range []struct{ path, rate string }{{base, "200"}, {half, "100"}} {
		if code, _, stderr := mainOut("run", "--quiet", "--rate", r.rate, "--duration", "2s", "--interval", "250ms", "--out", r.path, srv.URL()); code != ExitOK {
			t.Fatalf("run at %s/s: exit %d\n%s", r.rate, code, stderr)
		}
	}
	code, stdout, stderr := cliRun(t, "compare", "--fail-on", "rps:-5%", base, half)
	if code != ExitOK {
		t.Errorf("half the rate asked: exit %d; want 0 (no regression)\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"compared at their own inputs: rate 200/s vs 100/s", "pass  rps:-5%  achieved/intended "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if line := regexp.MustCompile(`(?m)^  throughput .*$`).FindString(stdout); !strings.HasSuffix(line, "not judged") {
		t.Errorf("throughput row %q; want it not judged", line)
	}
}
