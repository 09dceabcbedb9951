package report

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// Over WebSocket every answer has the status 101: the text report shows the JSON-RPC outcomes
// instead, a result or an error code, as the failures count them.
func TestTextWebSocketOutcomes(t *testing.T) {
	t.Parallel()
	st := &summary.Stats{
		Requests: summary.Requests{Sent: 100, Completed: 100, OK: 92, Errors: 8},
		Status:   map[string]uint64{"101": 100},
		Errors:   map[string]uint64{"status": 7, "protocol": 1},
		ErrorMessages: []summary.ErrorMessage{
			{Class: "status", Message: "jsonrpc -32601 the method eth_nope does not exist/is not available", Count: 5},
			{Class: "status", Message: "jsonrpc -32602 invalid params", Count: 2},
			{Class: "protocol", Message: "answer id does not match", Count: 1},
		},
	}
	b := &strings.Builder{}
	statusAndErrors(b, st)
	got := b.String()
	for _, want := range []string{
		"\nJSON-RPC outcomes",
		"\n  result         92 (92.0%)\n",
		"\n  error -32601   5 (5.0%)\n",
		"\n  error -32602   2 (2.0%)\n",
		"\n  not JSON-RPC   1 (1.0%)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant %q", got, want)
		}
	}
	if strings.Contains(got, "Status codes") {
		t.Errorf("got a Status codes section of 101s:\n%s", got)
	}
}
