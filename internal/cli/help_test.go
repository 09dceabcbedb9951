package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata from the command's output")

// Help spells long flags with two dashes, as the README, the docs and every example type them; one letter
// flags (-X, -H) keep one.
func TestHelpFlagsHaveTwoDashes(t *testing.T) {
	t.Parallel()
	helps := [][]string{{"help", "run"}, {"help", "report"}, {"help", "quickstart"}, {"help", "contention"}}
	for _, k := range serveKindNames() {
		helps = append(helps, []string{"help", "serve", k})
	}
	oneDash := regexp.MustCompile(`(?m)^  -[a-z][a-z0-9-]+`)
	for _, args := range helps {
		code, stdout, stderr := mainOut(args...)
		if code != ExitOK {
			t.Fatalf("%v: got exit %d; want 0\n%s", args, code, stderr)
		}
		if !strings.Contains(stdout, "\n  --") {
			t.Errorf("%v: got no flag with two dashes; want some:\n%s", args, stdout)
		}
		if m := oneDash.FindString(stdout); m != "" {
			t.Errorf("%v: got %q; want a long flag with two dashes", args, m)
		}
	}
}

// help serve KIND prints the kind's help, flags and examples included, not the list of kinds.
func TestHelpServeKind(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := mainOut("help", "serve", "kv")
	if code != ExitOK {
		t.Fatalf("got exit %d; want 0\n%s", code, stderr)
	}
	golden(t, "help_serve_kv.golden", stdout)
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

// A newcomer runs a page top to bottom — README.md or a page of docs/ — and then another, and the
// services each starts in the background (&) stay up: each needs an address no other line of any
// page starts a service on, or the later one fails to listen (and, with LAB=$!, the commands after
// it watch a process that is gone). Every page that starts one says, after the last, how to stop
// them (kill).
func TestDocsServicesHaveAddressesOfTheirOwn(t *testing.T) {
	t.Parallel()
	listening := map[string]string{} // address → the page and line that holds it
	stops := regexp.MustCompile(`kill [%$]`)
	started := 0
	for _, d := range userDocs(t) {
		last := -1 // where the page's last service started with & ends
		for off := 0; ; {
			i := strings.Index(d.text[off:], "```sh\n")
			if i < 0 {
				break
			}
			off += i + len("```sh\n")
			block := d.text[off:]
			block = block[:strings.Index(block, "```")]
			cur := 0
			for line := range strings.Lines(strings.ReplaceAll(block, "\\\n", " ")) {
				cmd := strings.TrimSpace(strings.SplitN(line, " #", 2)[0])
				if !strings.HasPrefix(cmd, "rpcbench serve ") || !strings.HasSuffix(cmd, "&") {
					continue
				}
				started++
				if at := strings.Index(block[cur:], cmd); at >= 0 { // where it ends, for the stop
					cur += at + len(cmd)
					last = off + cur
				} else {
					last = off + len(block)
				}
				words := strings.Fields(strings.TrimSuffix(cmd, "&"))
				for i, w := range words[:len(words)-1] {
					if w != "--addr" && w != "--grpc-addr" {
						continue
					}
					if prev, ok := listening[words[i+1]]; ok {
						t.Errorf("%s: %q listens on %s, which %s started before it", d.path, cmd, words[i+1], prev)
					}
					listening[words[i+1]] = fmt.Sprintf("%s (%q)", d.path, cmd)
				}
			}
		}
		if last >= 0 && !stops.MatchString(d.text[last:]) {
			t.Errorf("%s starts services in the background and says after the last nothing of how to stop them (kill %%N, kill $!); want it to", d.path)
		}
	}
	if started < 12 {
		t.Errorf("README.md and docs/: found %d services started with &; want the pages' (at least 12)", started)
	}
}

// README.md and the docs give commands a newcomer can run as printed: an install line that
// works from a checkout, no port an Ethereum node holds, and no --rate/--requests run that takes
// minutes (N requests at R/s take N/R seconds, whatever the tool says).
func TestDocsCommandsAsPrinted(t *testing.T) {
	t.Parallel()
	_, help, _ := mainOut("help", "run")
	rateRequests := regexp.MustCompile(`--rate (\S+) .*--requests (\d+)`)
	latest := regexp.MustCompile(`\S*rpcbench\S*@latest`) // another module's @latest is published
	texts := map[string]string{"help run": help}
	for _, d := range userDocs(t) {
		texts[d.path] = d.text
	}
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			if latest.MatchString(line) {
				t.Errorf("%s:%d: %q installs a module not published; want go install ./cmd/rpcbench", name, i+1, line)
			}
			if strings.Contains(line, "127.0.0.1:8545") {
				t.Errorf("%s:%d: %q uses 8545, the port of a local Ethereum node; want another", name, i+1, line)
			}
			m := rateRequests.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			rate, err := plan.ParseRate(m[1])
			if err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			n, _ := strconv.ParseFloat(m[2], 64)
			if secs := n / rate; secs > 60 {
				t.Errorf("%s:%d: %q runs %.0f s; want at most a minute", name, i+1, line, secs)
			}
		}
	}
}

// Every flag has an example in its command's help, and README.md or a page of docs/ shows it
// where a user looks.
func TestFlagsHaveExamples(t *testing.T) {
	t.Parallel()
	docs := allUserDocs(t)
	tests := []struct {
		help []string
		flag string
	}{
		{[]string{"help", "run"}, "--interval"},
		{[]string{"help", "run"}, "--targets-format"},
		{[]string{"help", "run"}, "--segment"},
		{[]string{"help", "run"}, "--segment-sequence"},
		{[]string{"help", "run"}, "--segment-index"},
		{[]string{"help", "run"}, "--start-at"},
		{[]string{"help", "run"}, "--plan"},
		{[]string{"help", "run"}, "--out-log"},
		{[]string{"help", "run"}, "--no-verdict"},
		{[]string{"help", "report"}, "--label"},
		{[]string{"help", "run"}, "--slo"},
		{[]string{"help", "report"}, "--slo"},
		{[]string{"help", "run"}, "--stage-ramps"},
		{[]string{"help", "run"}, "--h2c"},
		{[]string{"help", "run"}, "--streams"},
		{[]string{"help", "run"}, "--http1"},
		{[]string{"help", "ghz"}, "--stream-interval"},
		{[]string{"help", "ghz"}, "--stream-call-count"},
		{[]string{"help", "ghz"}, "--stream-call-duration"},
		{[]string{"help", "ghz"}, "--stream-dynamic-messages"},
		{[]string{"help", "ghz"}, "--stream-rate"},
		{[]string{"help", "ghz"}, "--streams"},
		{[]string{"help", "serve", "lab"}, "--spin"},
		{[]string{"help", "serve", "mesh"}, "--max-limit"},
		{[]string{"help", "serve", "mesh"}, "--timeout"},
		{[]string{"help", "serve", "mesh"}, "--grpc-addr"},
		{[]string{"help", "serve", "jsonrpc"}, "--chain-id"},
		{[]string{"help", "serve", "jsonrpc"}, "--tx-per-block"},
		{[]string{"help", "serve", "jsonrpc"}, "--noise"},
		{[]string{"help", "serve", "jsonrpc"}, "--inject-share"},
		{[]string{"help", "diff"}, "--reference"},
		{[]string{"help", "diff"}, "--tolerance"},
		{[]string{"help", "diff"}, "--rule"},
		{[]string{"help", "diff"}, "--pin-block"},
		{[]string{"help", "diff"}, "--skip-above-head"},
		{[]string{"help", "serve", "relay"}, "--upstream"},
		{[]string{"help", "serve", "relay"}, "--max-idle"},
	}
	for _, tt := range tests {
		_, help, _ := mainOut(tt.help...)
		examples, _, _ := strings.Cut(help, "\nFlags:")
		cmd := "rpcbench " + strings.Join(tt.help[1:], " ") + " "
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(cmd) + `.*` + tt.flag + ` `).MatchString(examples) {
			t.Errorf("%v: got no example with %s; want one", tt.help, tt.flag)
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmd) + `.*` + tt.flag + ` `).MatchString(docs) {
			t.Errorf("README.md and docs/: got no %q command with %s; want one", cmd, tt.flag)
		}
	}
}

// --percentiles chooses the latency columns of the endpoint tables; a percentile a report does not
// hold is a usage error naming the flag.
func TestReportPercentiles(t *testing.T) {
	t.Parallel()
	multi := filepath.Join("..", "..", "report", "testdata", "multi.rb")
	runCLICases(t, []string{"report"}, []cliCase{
		{"chosen", []string{"--percentiles", "50,99.99", multi}, ExitOK, []string{"answers/s  p50     p99.99   max"}, nil},
		{"default has p95", []string{multi}, ExitOK, []string{"p50     p90      p95      p99      p99.9    max"}, nil},
		{"markdown", []string{"--format", "markdown", "--percentiles", "95", multi}, ExitOK, []string{"| answers/s | p95 | max |"}, nil},
		{"not held", []string{"--percentiles", "50,98", multi}, ExitUsage, nil, []string{"-percentiles", `"98" is not a percentile`}},
	})
}
