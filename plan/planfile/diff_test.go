package planfile

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

// A diff: section reads into the scenario's Diff as the diff command's flags write its rules; each
// mistake is told at its file, line, column and key.
func TestPlanFileDiff(t *testing.T) {
	t.Parallel()
	const file = `targets:
  a: {url: http://127.0.0.1:18557/}
  a2: {url: http://127.0.0.1:18558/}
  b: {url: http://127.0.0.1:18559/}
scenarios:
  cmp:
    jsonrpc:
      calls: [{method: eth_blockNumber}]
    rate: 100
    requests: 50
    diff:
      targets: [a, b]
      reference: a2
      noise_threshold: 50%
      ignore: [result.timestamp]
      unordered: [result.logs]
      tolerance: {result.gasPrice: 5%, result.baseFee: 10}
      rules: {eth_call: error-code-only, "*": error-presence-only}
      pin_block: true
      skip_above_head: true
      null_missing: true
`
	b, err := ReadFile("p.yaml", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := &plan.ScenarioDiff{Targets: []string{"a", "b"}, Reference: "a2", NoiseThreshold: 0.5,
		Ignore: []string{"result.timestamp"}, Unordered: []string{"result.logs"},
		Tolerance: []string{"result.gasPrice=5%", "result.baseFee=10"}, Rules: []string{"eth_call=error-code-only", "*=error-presence-only"},
		PinBlock: true, SkipAboveHead: true, NullMissing: true}
	if got := b.Scenarios[0].Diff; !reflect.DeepEqual(got, want) {
		t.Errorf("diff:\n%+v\nwant\n%+v", got, want)
	}
	if !b.Scenarios[0].IsDiff() || b.Scenarios[0].Plan.Load.Rate != 100 {
		t.Errorf("scenario %+v; want a diff at 100/s", b.Scenarios[0])
	}
	for _, c := range []struct{ from, to, want string }{
		{"targets: [a, b]", "targets: [a, c]", `p.yaml:12:16: scenarios.cmp.diff.targets[1]: "c" is no target of the file: want one of a, a2, b`},
		{"reference: a2", "reference: z", `p.yaml:13:18: scenarios.cmp.diff.reference: "z" is no target of the file`},
		{"reference: a2", "reference: b", `p.yaml:13:18: scenarios.cmp.diff.reference: "b" is among the targets compared`},
		{"targets: [a, b]", "targets: [a]", "p.yaml:12:16: scenarios.cmp.diff.targets: compares 1 target (a): want two or more, the first the primary"},
		{"noise_threshold: 50%", "noise_threshold: 150%", `p.yaml:14:24: scenarios.cmp.diff.noise_threshold: want a share from 0 to 1`},
		{"result.gasPrice: 5%", "result.gasPrice: five%", `p.yaml:17:36: scenarios.cmp.diff.tolerance.result.gasPrice: "result.gasPrice=five%": the bound "five%" is not a decimal`},
		{"eth_call: error-code-only", "eth_call: codes", `p.yaml:18:25: scenarios.cmp.diff.rules.eth_call: "eth_call=codes": unknown rule "codes"; want error-code-only or error-presence-only`},
		{"ignore: [result.timestamp]", "ignore: ['result[']", `p.yaml:15:15: scenarios.cmp.diff.ignore[0]:`},
		{"      pin_block: true\n", "", "p.yaml:19:24: scenarios.cmp.diff.skip_above_head: goes with pin_block: true"},
		{"      reference: a2\n", "", "p.yaml:13:24: scenarios.cmp.diff.noise_threshold: goes with reference:"},
		{"      null_missing: true\n", "      nul_missing: true\n", `p.yaml:21:7: scenarios.cmp.diff.nul_missing: unknown key "nul_missing"`},
		{"    rate: 100\n", "    rate: 100\n    steps: [1, 2]\n    step: 1s\n", "p.yaml:10:5: scenarios.cmp.steps: a diff sends each request to every target it compares, in one run"},
		{"    rate: 100\n", "    rate: 100\n    slo: p99<1s\n", "p.yaml:10:5: scenarios.cmp.slo: a diff sends"},
	} {
		bad := strings.Replace(file, c.from, c.to, 1)
		if bad == file {
			t.Fatalf("%q is not in the file", c.from)
		}
		_, err := ReadFile("p.yaml", strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v\nwant %q", c.from, c.to, err, c.want)
		}
	}
	// without targets: every target but the reference, in the file's order
	b, err = ReadFile("p.yaml", strings.NewReader(strings.Replace(file, "      targets: [a, b]\n", "", 1)))
	if err != nil || b.Scenarios[0].Diff.Targets != nil {
		t.Errorf("no targets: %v; want the file read, the targets left to the file's order", err)
	}
}
