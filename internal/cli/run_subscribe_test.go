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
		{"csv alone", []string{"--subscribe", heads, "--format", "csv", ws}, ExitUsage, nil, []string{"--format csv: a run of --subscribe alone is reported as text, json, markdown or html"}},
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

// Push delivery read against call load, stage by stage: the node holds each block's notifications
// 10 ms for every call it ran since the block before (a block every 50 ms). At 10 calls/s a block
// follows 0.5 calls on average, a hold of 5 ms; at 400/s, 20 calls, 200 ms. The report's part of
// stage 4 must show it (its median and p99 at least 70 % of 200 ms, the hold being a floor), the
// part of stage 2 not (its median below half of it), and stage 4's p99 above stage 2's; each part
// has its stage's calls beside it in the report's stages.
func TestDeliveryByStageFollowsCallLoad(t *testing.T) {
	t.Parallel()
	// A busy machine can hold the generator off the CPU for as long as the hold in stage 2: up to
	// three tries, one that matches is enough; a wrong measure fails all three.
	var fails []string
	for try := 1; try <= 3; try++ {
		problems := deliveryByStageTry(t)
		if len(problems) == 0 {
			return
		}
		fails = append(fails, fmt.Sprintf("try %d: %s", try, strings.Join(problems, "; ")))
	}
	t.Error(strings.Join(fails, "\n"))
}

// deliveryByStageTry runs the stages once and returns what did not match the node's holds.
func deliveryByStageTry(t *testing.T) (problems []string) {
	t.Helper()
	const block, perCall = 50 * time.Millisecond, 10 * time.Millisecond
	s := subscribeNode(t, ethrpc.Config{Blocks: 10, BlockTime: block, PushDelayPerCall: perCall})
	code, stdout, stderr := mainOut("run", "--jsonrpc", "eth_blockNumber", "--stages", "0s:10,1500ms:10,0s:400,1500ms:400", "--format", "json", "--quiet",
		"--subscribe", `eth_subscribe ["newHeads"]`, "--subscriptions", "2", s.WebSocketURL())
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Stages []struct {
			Stage    int
			Requests uint64
		}
		Subscriptions struct {
			Parts []struct {
				Label    string
				Stage    int
				Messages uint64
				Gaps     *uint64
				Delivery *struct{ P50, P99 float64 } `json:"delivery_latency_ms"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	parts := rep.Subscriptions.Parts
	if len(parts) != 2 || parts[0].Stage != 2 || parts[1].Stage != 4 || parts[0].Label != "stage 2: 10 → 10/s" || parts[1].Label != "stage 4: 400 → 400/s" {
		t.Fatalf("parts %+v; want stages 2 and 4", parts)
	}
	for _, p := range parts {
		if p.Delivery == nil || p.Messages < 10 || p.Gaps == nil || *p.Gaps != 0 {
			t.Fatalf("part %+v: want its notifications' latencies, no gaps", p)
		}
	}
	if len(rep.Stages) != 2 || rep.Stages[0].Stage != 2 || rep.Stages[1].Stage != 4 || rep.Stages[1].Requests < 300 {
		t.Fatalf("stages %+v; want the calls of stages 2 and 4 (600 due in 4)", rep.Stages)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	busy := ms(time.Duration(400*block.Seconds()) * perCall) // 20 calls a block: 200 ms
	low, high := parts[0].Delivery, parts[1].Delivery
	if high.P50 < 0.7*busy || high.P99 < 0.7*busy {
		problems = append(problems, fmt.Sprintf("stage 4: delivery p50 %.1f ms, p99 %.1f ms; the node held each block ~%.0f ms", high.P50, high.P99, busy))
	}
	if low.P50 > busy/2 || high.P99 <= low.P99 {
		problems = append(problems, fmt.Sprintf("stage 2: delivery p50 %.1f ms, p99 %.1f ms; want the median below %.0f ms and the p99 below stage 4's %.1f ms", low.P50, low.P99, busy/2, high.P99))
	}
	return problems
}
