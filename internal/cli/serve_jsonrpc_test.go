package cli

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestServeJSONRPCFlags(t *testing.T) {
	t.Parallel()
	tests := []cliCase{
		{"help", []string{"--help"}, ExitOK, []string{"Examples:", "rpcbench serve jsonrpc --blocks 100000 --seed 7", "-blocks", "-seed", "-chain-id", "-noise", "-inject-share"}, nil},
		{"blocks not a number", []string{"--blocks", "many"}, ExitUsage, nil, []string{"--blocks"}},
		{"negative blocks", []string{"--blocks", "-5"}, ExitUsage, nil, []string{"--blocks"}},
		{"zero blocks", []string{"--blocks", "0"}, ExitUsage, nil, []string{"--blocks 0 is out of range"}},
		{"too many blocks", []string{"--blocks", "99999999"}, ExitUsage, nil, []string{"--blocks 99999999 is out of range"}},
		{"seed not a number", []string{"--seed", "abc"}, ExitUsage, nil, []string{"--seed"}},
		{"zero chain id", []string{"--chain-id", "0"}, ExitUsage, nil, []string{"--chain-id 0"}},
		{"zero tx per block", []string{"--tx-per-block", "0"}, ExitUsage, nil, []string{"--tx-per-block 0 is out of range"}},
		{"zero storage range", []string{"--max-storage-range", "0"}, ExitUsage, nil, []string{"--max-storage-range 0"}},
		{"stray argument", []string{"extra"}, ExitUsage, nil, []string{`unexpected argument "extra"`}},
		{"inject share above 1", []string{"--inject-share", "1.5"}, ExitUsage, nil, []string{"--inject-share 1.5 is out of range; want 0 to 1"}},
		{"negative inject share", []string{"--inject-share", "-0.1"}, ExitUsage, nil, []string{"--inject-share -0.1 is out of range"}},
		{"negative push delay", []string{"--block-time", "50ms", "--push-delay-per-call", "-1ms"}, ExitUsage, nil, []string{"--push-delay-per-call -1ms is negative"}},
		{"push delay without blocks", []string{"--push-delay-per-call", "1ms"}, ExitUsage, nil, []string{"--stall, --drop-every and --push-delay-per-call act on subscription notifications: give --block-time too"}},
		{"bad addr", []string{"--addr", "127.0.0.1:notaport", "--blocks", "5"}, ExitUsage, nil, []string{"serve jsonrpc", "--addr", "notaport"}},
	}
	runCLICases(t, []string{"serve", "jsonrpc"}, tests)
}

func TestServeJSONRPCRuns(t *testing.T) {
	t.Parallel()
	out, stop := serveInTest(t, "jsonrpc", "--blocks", "50", "--seed", "3")
	lines := out.until(t, `^jsonrpc listening on `)
	m := regexp.MustCompile(`^jsonrpc listening on (http://127\.0\.0\.1:\d+/) and (ws://127\.0\.0\.1:\d+/)$`).FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("last line %q: want \"jsonrpc listening on http://… and ws://…\"", lines[len(lines)-1])
	}
	if text := strings.Join(lines, "\n"); !strings.Contains(text, "chain of 50 blocks (0x0 … 0x31), seed 3") {
		t.Errorf("output lacks the chain's description:\n%s", text)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Post(m[1], "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"jsonrpc":"2.0","id":1,"result":"0x31"}`; string(body) != want {
		t.Errorf("eth_blockNumber over HTTP: got %s; want %s", body, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, m[2], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}`)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := ws.Read(ctx); err != nil || string(msg) != `{"jsonrpc":"2.0","id":2,"result":"0x539"}` {
		t.Errorf("eth_chainId over WebSocket: got %s, %v; want 0x539", msg, err)
	}
	ws.Close(websocket.StatusNormalClosure, "") //nolint:errcheck // the server's answer to it is not the point
	if code := stop(); code != ExitOK {
		t.Errorf("exit code after cancel: got %d; want %d", code, ExitOK)
	}
}
