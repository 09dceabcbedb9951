package cli

import (
	"fmt"
	"strings"
	"testing"
)

// threeRecords is an access log of three requests, one a second.
const threeRecords = `127.0.0.1 - - [01/Mar/2024:10:00:00 +0000] "GET /v0/items?id=1 HTTP/1.1" 200 10 "-" "curl"
127.0.0.1 - - [01/Mar/2024:10:00:01 +0000] "GET /health HTTP/1.1" 200 10 "-" "curl"
127.0.0.1 - - [01/Mar/2024:10:00:02 +0000] "GET /v0/items?id=2 HTTP/1.1" 200 10 "-" "curl"
`

// A replay scenario of a plan file: run --plan sends its recording to the target chosen, bench
// --dry-run says what each target gets and for how long, and each bad input is a usage error.
func TestRunPlanReplay(t *testing.T) {
	t.Parallel()
	srv, n := countedLab(t)
	path := writePlanFile(t, fmt.Sprintf(`targets:
  lab: {url: %q}
  other: {url: "http://127.0.0.1:1/"}
scenarios:
  recorded:
    replay: {files: [three.log], speed: 20}
  missing:
    replay: {files: [no-such.log]}
`, srv.URL()), map[string]string{"three.log": threeRecords})
	code, stdout, stderr := mainOut("run", "--plan", path, "--scenario", "recorded", "--target", "lab", "--quiet")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "intended 3, sent 3, completed 3, ok 3") || n.Load() != 3 {
		t.Errorf("the lab answered %d; want the 3 recorded, as the report says:\n%s", n.Load(), stdout)
	}
	// the last record is 2 s after the first, at 20× the pace: 100ms
	if w := "rpcbench run: recorded: replay of three.log at 20× the recorded pace: 3 recorded requests, the last 100ms after the first"; !strings.Contains(stderr, w) {
		t.Errorf("stderr lacks %q:\n%s", w, stderr)
	}
	runCLICases(t, []string{"run"}, []cliCase{
		{"a missing file", []string{"--plan", path, "--scenario", "missing", "--target", "lab"}, ExitUsage, nil, []string{"shop.yaml:7:3: scenarios.missing: against lab: replay: ", "no-such.log"}},
		{"a segment of a replay", []string{"--plan", path, "--scenario", "recorded", "--target", "lab", "--segment", "0:1/2"}, ExitUsage, nil, []string{"--segment: scenario recorded is a replay, which one generator sends whole"}},
	})

	dry := writePlanFile(t, fmt.Sprintf(`targets:
  lab: {url: %q}
  other: {url: "http://127.0.0.1:1/"}
scenarios:
  recorded:
    replay: {files: [three.log], speed: 20}
`, srv.URL()), map[string]string{"three.log": threeRecords})
	code, stdout, stderr = mainOut("bench", "--dry-run", dry)
	if code != ExitOK {
		t.Fatalf("bench --dry-run: exit %d\n%s", code, stderr)
	}
	for _, w := range []string{
		// each target's replay ends one mean interval (1 s) after its last record: 3 s at 20×
		"1 scenarios, 2 runs, about 300ms\n",
		"  recorded on lab: replay of three.log at 20× the recorded pace: 3 recorded requests, the last 100ms after the first\n",
		"  recorded on other: replay of three.log",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("bench --dry-run lacks %q:\n%s", w, stdout)
		}
	}
	if n.Load() != 3 {
		t.Errorf("the lab answered %d after the dry run; want the 3 of run --plan: a dry run sends nothing", n.Load())
	}
}
