package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// A run of subscriptions alone writes its result file as any run does, given by flags or by a plan
// file's scenario (which bench sends such a scenario to): `rpcbench report run.rb` shows the same
// subscriptions section, line for line, as the run's own report, and the same figures in JSON;
// they are what the node wrote (its own count), gaps included. The file holds no requests. A
// format of calls (html) is refused for it, by name.
func TestSubscriptionsAloneResultFile(t *testing.T) {
	t.Parallel()
	for _, by := range []string{"flags", "plan file"} {
		t.Run(by, func(t *testing.T) {
			t.Parallel()
			s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond, NewBlocks: 30, DropEvery: 7})
			dir := t.TempDir()
			rb, text, page := filepath.Join(dir, "run.rb"), filepath.Join(dir, "report.txt"), filepath.Join(dir, "report.html")
			args := []string{"run", "--format", "json", "--quiet", "--report-file", text, "--out", rb, "--html", page}
			if by == "flags" {
				args = append(args, "--duration", "1500ms", "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", s.WebSocketURL())
			} else {
				name := writePlan(t, fmt.Sprintf("targets:\n  node: {url: %q}\nscenarios:\n  heads:\n    duration: 1500ms\n    subscribe:\n      call: eth_subscribe [\"newHeads\"]\n      count: 2\n", s.WebSocketURL()))
				args = append(args, "--plan", name, "--scenario", "heads")
			}
			code, stdout, stderr := mainOut(args...)
			if code != ExitOK {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			runText, err := os.ReadFile(text)
			if err != nil {
				t.Fatal(err)
			}
			want := subscriptionsSection(string(runText))
			wrote := s.Notified()
			for _, w := range []string{"subscriptions alone (no calls)", "subscriptions     2 asked, 2 opened, 0 failed", fmt.Sprintf("notifications     %d;", wrote), "missing (by sequence)"} {
				if !strings.Contains(string(runText), w) {
					t.Errorf("the run's report lacks %q (the node wrote %d notifications):\n%s", w, wrote, runText)
				}
			}
			f, err := result.ReadFile(rb, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.CutShort() || f.Subscriptions == nil || f.Total.Total().Sent != 0 || f.Trailer.Interrupted {
				t.Fatalf("result file: cut short %v, subscriptions %s, %d requests, interrupted %v; want a whole file with the subscriptions and no requests",
					f.CutShort(), f.Subscriptions, f.Total.Total().Sent, f.Trailer.Interrupted)
			}
			if again := reportsTheSame(t, rb, want, stdout); !strings.Contains(again, "subscriptions alone (no calls)") {
				t.Errorf("report run.rb does not say the run had no calls:\n%s", again)
			}
			var u struct{ Messages, Gaps uint64 }
			if err := json.Unmarshal([]byte(subscriptionsJSON(t, stdout)), &u); err != nil || u.Messages != wrote || u.Gaps == 0 {
				t.Errorf("the JSON report's subscriptions: %+v (%v); want the node's %d notifications and some gaps", u, err, wrote)
			}
			// the HTML page, of the run (--html) and of its file: the subscriptions and their chart
			code, html, stderr := mainOut("report", "--format", "html", rb)
			runPage, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{html, string(runPage)} {
				for _, w := range []string{"subscriptions alone (no calls) for", `<tr><th>subscriptions</th><td class="msg">2 asked, 2 opened, 0 failed</td></tr>`,
					fmt.Sprintf(`<tr><th>notifications</th><td class="msg">%d;`, wrote), `id="chart-subscriptions"`} {
					if code != ExitOK || !strings.Contains(p, w) {
						t.Errorf("report --format html: exit %d, %s; the page lacks %q", code, stderr, w)
					}
				}
			}
		})
	}
}

// Ctrl-C (the context's end) stops a run of subscriptions alone: it still prints its report and
// saves its result file, which says it was interrupted, holds the subscriptions' figures measured
// until then, and reads back with INTERRUPTED. The run would otherwise last 30 s.
func TestSubscriptionsAloneInterrupted(t *testing.T) {
	t.Parallel()
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond})
	rb := filepath.Join(t.TempDir(), "run.rb")
	pr, pw := io.Pipe()
	defer pr.Close() // a failed test must not leave the run blocked on its live lines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	codec := make(chan int, 1)
	started := time.Now()
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: pw, stderr: &stderr}
		codec <- runRun(ctx, e, []string{"--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", "--duration", "30s", "--interval", "100ms",
			"--live", "-", "--out", rb, s.WebSocketURL()})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() { // until a line has notifications
		var line struct {
			Subscriptions struct{ Notifications uint64 }
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("live line %s: %v", sc.Bytes(), err)
		}
		if line.Subscriptions.Notifications > 0 {
			break
		}
	}
	cancel()
	go io.Copy(io.Discard, pr) //nolint:errcheck // the rest of the lines
	if code := <-codec; code != ExitInterrupted {
		t.Fatalf("exit %d; want %d\n%s", code, ExitInterrupted, stderr.String())
	}
	if took := time.Since(started); took > 20*time.Second {
		t.Errorf("the interrupted run took %v", took)
	}
	if !strings.Contains(stderr.String(), "\nSubscriptions: eth_subscribe") || !strings.Contains(stderr.String(), "interrupted; the report covers what was done until then") {
		t.Errorf("stderr (the report, with --live -) lacks the subscriptions or the interruption:\n%s", stderr.String())
	}
	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		Opened   int
		Messages uint64
	}
	if f.Subscriptions != nil {
		json.Unmarshal(f.Subscriptions, &u) //nolint:errcheck // checked by the figures
	}
	if f.CutShort() || !f.Trailer.Interrupted || u.Opened != 2 || u.Messages == 0 {
		t.Errorf("cut short %v, trailer %+v, subscriptions %s; want a whole file that says interrupted, with 2 opened and their notifications", f.CutShort(), f.Trailer, f.Subscriptions)
	}
	code, out, errs := mainOut("report", rb)
	if code != ExitOK || !strings.Contains(out, "INTERRUPTED") || !strings.Contains(out, "subscriptions     2 asked, 2 opened") {
		t.Errorf("report: exit %d (%s):\n%s\nwant the subscriptions, INTERRUPTED", code, errs, out)
	}
}

// run --plan of a scenario of subscriptions alone with a key of a call load (rate:) exits 2
// naming the file, line and key, before anything runs.
func TestSubscriptionsAlonePlanLoadKeyRefused(t *testing.T) {
	t.Parallel()
	name := writePlan(t, "targets:\n  node: {url: \"ws://127.0.0.1:1/\"}\nscenarios:\n  heads:\n    duration: 1s\n    rate: 50\n    subscribe:\n      call: eth_subscribe [\"newHeads\"]\n")
	code, _, stderr := mainOut("run", "--quiet", "--plan", name, "--scenario", "heads")
	if want := ":6:5: scenarios.heads.rate: a scenario of subscriptions alone"; code != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, ExitUsage, want)
	}
}
