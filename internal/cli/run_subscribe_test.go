package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/ethrpc"
)

func subscribeNode(t *testing.T, cfg ethrpc.Config) *ethrpc.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := ethrpc.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRunSubscribeUsage(t *testing.T) {
	t.Parallel()
	ws := "ws://127.0.0.1:1/"
	heads := `eth_subscribe ["newHeads"]`
	runCLICases(t, []string{"run"}, []cliCase{
		{"not an array", []string{"--subscribe", "eth_subscribe newHeads", ws}, ExitUsage, nil, []string{"--subscribe:", "not a JSON array"}},
		{"not a subscribe method", []string{"--subscribe", `eth_call []`, ws}, ExitUsage, nil, []string{"--subscribe:", "NAMESPACE_subscribe"}},
		{"http URL", []string{"--subscribe", heads, "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"need a WebSocket URL (ws:// or wss://)"}},
		{"reference not ws", []string{"--subscribe", heads, "--subscribe-reference", "http://127.0.0.1:2/", ws}, ExitUsage, nil, []string{"--subscribe-reference: the reference needs a WebSocket URL (ws:// or wss://)"}},
		{"reference of logs", []string{"--subscribe", `eth_subscribe ["logs",{}]`, "--subscribe-reference", ws, ws}, ExitUsage, nil, []string{"--subscribe-reference: a reference times heads: want subscriptions of newHeads"}},
		{"reference alone", []string{"--subscribe-reference", ws, "--jsonrpc", "eth_blockNumber", ws}, ExitUsage, nil, []string{"--subscribe-reference go with --subscribe"}},
		{"count alone", []string{"--subscriptions", "3", "--jsonrpc", "eth_blockNumber", ws}, ExitUsage, nil, []string{"--subscriptions, --subscribe-rate and --subscribe-reference go with --subscribe"}},
		{"negative count", []string{"--subscribe", heads, "--subscriptions", "-1", ws}, ExitUsage, nil, []string{"--subscriptions -1: want 1 or more"}},
		{"negative rate", []string{"--subscribe", heads, "--subscribe-rate", "-2", ws}, ExitUsage, nil, []string{"--subscribe-rate -2"}},
		{"call flags alone", []string{"--subscribe", heads, "--rate", "5", ws}, ExitUsage, nil, []string{"--rate: a run of --subscribe alone sends no calls", "give --jsonrpc METHOD"}},
		{"csv alone", []string{"--subscribe", heads, "--format", "csv", ws}, ExitUsage, nil, []string{"--format csv: a run of --subscribe alone is reported as text, json or markdown"}},
	})
}

// Subscriptions beside a call load: the JSON report has both, the calls as the rate says (50/s for
// 1.5 s: 75) and the subscriptions' notifications as many as the node wrote (its own count): it
// makes 30 blocks, one per 20 ms, all out before the run ends.
func TestRunSubscribeBesideCalls(t *testing.T) {
	t.Parallel()
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 20 * time.Millisecond, NewBlocks: 30})
	var out, errb bytes.Buffer
	code := Main([]string{"run", "--jsonrpc", "eth_blockNumber", "--rate", "50", "--duration", "1500ms", "--format", "json", "--quiet",
		"--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "3", s.WebSocketURL()}, strings.NewReader(""), &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var rep struct {
		Requests struct{ Sent, OK uint64 }
		Config   struct{ Subscribe struct{ Method string } }
		Subs     struct {
			Opened, Failed          int
			Answered                int `json:"unsubscribes_answered"`
			Messages, Gaps, Stamped uint64
			Delivery                *struct{ P50 float64 } `json:"delivery_latency_ms"`
		} `json:"subscriptions"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Requests.Sent != 75 || rep.Requests.OK != 75 || rep.Config.Subscribe.Method != "eth_subscribe" {
		t.Errorf("requests %d sent, %d ok; config.subscribe %+v; want 75, 75, eth_subscribe", rep.Requests.Sent, rep.Requests.OK, rep.Config.Subscribe)
	}
	u := rep.Subs
	if u.Opened != 3 || u.Failed != 0 || u.Answered != 3 || u.Gaps != 0 {
		t.Errorf("subscriptions %+v; want 3 opened, 3 unsubscribes answered, no gaps", u)
	}
	if u.Messages != s.Notified() || u.Stamped != u.Messages || u.Delivery == nil || u.Messages > 90 {
		t.Errorf("%d notifications (%d stamped, delivery %v); the node wrote %d, of 30 blocks to 3", u.Messages, u.Stamped, u.Delivery, s.Notified())
	}
}

// Subscriptions alone, in text and Markdown: the counts as the node's (30 blocks, one per 25 ms,
// all out within the run of 1.5 s).
func TestRunSubscribeAlone(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "markdown"} {
		s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: 25 * time.Millisecond, NewBlocks: 30})
		var out, errb bytes.Buffer
		code := Main([]string{"run", "--duration", "1500ms", "--format", format, "--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", s.WebSocketURL()},
			strings.NewReader(""), &out, &errb)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", format, code, out.String(), errb.String())
		}
		wrote := s.Notified()
		if wrote == 0 || wrote > 60 {
			t.Errorf("%s: the node wrote %d notifications of 30 blocks to 2 subscriptions", format, wrote)
		}
		want := []string{fmt.Sprintf("notifications     %d;", wrote), "subscriptions     2 asked, 2 opened, 0 failed", "unsubscribes      2 sent, 2 answered true", "subscriptions alone (no calls)"}
		if format == "markdown" {
			want = []string{fmt.Sprintf("| notifications | %d;", wrote), "| subscriptions | 2 asked, 2 opened, 0 failed |", "| unsubscribes | 2 sent, 2 answered true |"}
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: report lacks %q:\n%s", format, w, out.String())
			}
		}
	}
}
