package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

// subscriptionsSection is the subscriptions section of a text report: from its title to the
// blank line that ends it; "" when there is none.
func subscriptionsSection(report string) string {
	i := strings.Index(report, "\nSubscriptions: ")
	if i < 0 {
		return ""
	}
	s := report[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j+1]
	}
	return s
}

// A run's result file keeps its subscriptions: `rpcbench report run.rb` shows the same section,
// line for line, as the run did, and the same figures in JSON. The run is cut in stages so that
// the parts come back too.
func TestResultFileKeepsSubscriptions(t *testing.T) {
	t.Parallel()
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond, NewBlocks: 40, DropEvery: 7})
	dir := t.TempDir()
	rb, live := filepath.Join(dir, "run.rb"), filepath.Join(dir, "live.txt")
	code, stdout, stderr := mainOut("run", "--jsonrpc", "eth_blockNumber", "--stages", "0s:20,600ms:20,600ms:40", "--format", "json", "--quiet",
		"--report-file", live, "--out", rb, "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "3", s.WebSocketURL())
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	liveText, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	want := subscriptionsSection(string(liveText))
	if !strings.Contains(want, "subscriptions     3 asked, 3 opened, 0 failed") || !strings.Contains(want, "stage 2:") || !strings.Contains(want, "missing (by sequence)") {
		t.Fatalf("the run's own section is not what the test is about:\n%s", liveText)
	}
	reportsTheSame(t, rb, want, stdout)
}

// reportsTheSame checks that `rpcbench report rb` shows the subscriptions section want, line for
// line, and that its JSON has the subscriptions of runJSON, the run's own JSON report; it returns
// the text report.
func reportsTheSame(t *testing.T, rb, want, runJSON string) string {
	t.Helper()
	code, again, stderr := mainOut("report", rb)
	if code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if got := subscriptionsSection(again); got != want {
		t.Errorf("report run.rb shows\n%s\nthe run showed\n%s", got, want)
	}
	code, againJSON, stderr := mainOut("report", "--format", "json", rb)
	if code != ExitOK {
		t.Fatalf("report --format json: exit %d\n%s", code, stderr)
	}
	if a, b := subscriptionsJSON(t, againJSON), subscriptionsJSON(t, runJSON); a != b {
		t.Errorf("report --format json run.rb: subscriptions\n%s\nthe run's\n%s", a, b)
	}
	return again
}

// subscriptionsJSON is the subscriptions of a JSON report, compacted.
func subscriptionsJSON(t *testing.T, doc string) string {
	t.Helper()
	var r struct{ Subscriptions json.RawMessage }
	if err := json.Unmarshal([]byte(doc), &r); err != nil || r.Subscriptions == nil {
		t.Fatalf("no subscriptions (%v) in\n%s", err, doc)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, r.Subscriptions); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// --live lines count the subscriptions as they go: the last line has every subscription opened,
// every notification the node wrote (its own count; its 20 blocks, made once both subscriptions
// are open, are out well before the end: 200 ms of the 1.5 s), the gaps the report counts, and
// each line's new notifications add up to the total.
func TestLiveLinesCountSubscriptions(t *testing.T) {
	t.Parallel()
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 10 * time.Millisecond, NewBlocks: 20, DropEvery: 4, AwaitSubscriptions: 2})
	live := filepath.Join(t.TempDir(), "live.jsonl")
	code, stdout, stderr := mainOut("run", "--jsonrpc", "eth_blockNumber", "--rate", "20", "--duration", "1500ms", "--interval", "250ms", "--format", "json", "--quiet",
		"--live", live, "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", s.WebSocketURL())
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Subscriptions struct{ Messages, Gaps uint64 }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	type counts struct {
		Opened, Failed      int64
		Notifications, Gaps uint64
		NewNotifications    uint64 `json:"new_notifications"`
	}
	var last counts
	var added uint64
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, l := range lines {
		var line struct{ Subscriptions *counts }
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Subscriptions == nil {
			t.Fatalf("a line without subscriptions (%v): %s", err, l)
		}
		last, added = *line.Subscriptions, added+line.Subscriptions.NewNotifications
	}
	wrote := s.Notified()
	if len(lines) < 2 || last.Opened != 2 || last.Failed != 0 || last.Notifications != wrote || added != wrote || wrote == 0 {
		t.Errorf("%d lines, the last %+v, new notifications adding up to %d; want 2 opened, the node's %d notifications", len(lines), last, added, wrote)
	}
	if last.Gaps == 0 || last.Gaps != rep.Subscriptions.Gaps || rep.Subscriptions.Messages != wrote {
		t.Errorf("the last line counts %d gaps, the report %d gaps and %d notifications; want the same gaps, some, and the node's %d notifications",
			last.Gaps, rep.Subscriptions.Gaps, rep.Subscriptions.Messages, wrote)
	}
}

// --subscribe-reference times each head behind a second connection's receipt of it: every head
// the subscriptions receive is timed, or counted as not matched when the reference never had it
// (one made before the reference subscribed, on a busy machine), and with the reference's own
// they are all the node wrote.
func TestRunSubscribeReference(t *testing.T) {
	t.Parallel()
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond, NewBlocks: 30})
	code, stdout, stderr := mainOut("run", "--duration", "1500ms", "--format", "json", "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2",
		"--subscribe-reference", s.WebSocketURL(), s.WebSocketURL())
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		Subscriptions struct {
			Opened    int
			Messages  uint64
			Reference *struct {
				URL       string
				Heads     uint64                 `json:"reference_heads"`
				Timed     uint64                 `json:"timed"`
				Unmatched uint64                 `json:"unmatched"`
				Lag       *struct{ P50 float64 } `json:"lag_ms"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	u := rep.Subscriptions
	if u.Opened != 2 || u.Reference == nil || u.Reference.Lag == nil || u.Reference.URL != s.WebSocketURL() {
		t.Fatalf("subscriptions %+v: want 2 opened and a reference with its lag\n%s", u, stdout)
	}
	if wrote, ref := s.Notified(), u.Reference; ref.Heads == 0 || ref.Timed == 0 || ref.Timed+ref.Unmatched != u.Messages || u.Messages+ref.Heads != wrote {
		t.Errorf("%d notifications (%d timed, %d not matched) and %d heads on the reference; the node wrote %d in all", u.Messages, ref.Timed, ref.Unmatched, ref.Heads, wrote)
	}
	code, text, _ := mainOut("run", "--duration", "500ms", "--subscribe", `eth_subscribe ["newHeads"]`, "--subscribe-reference", s.WebSocketURL(), s.WebSocketURL())
	if code != ExitOK || !strings.Contains(text, "  reference lag     ") || !strings.Contains(text, "  behind reference  ") {
		t.Errorf("exit %d; the text report lacks the reference's rows:\n%s", code, text)
	}
}
