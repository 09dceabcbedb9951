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

// The Markdown report and the HTML page show the same JSON-RPC outcomes where HTTP shows status
// codes, and no 101 row.
func TestMarkdownAndHTMLWebSocketOutcomes(t *testing.T) {
	t.Parallel()
	s := &summary.Summary{Stats: summary.Stats{
		Requests: summary.Requests{Intended: 100, Sent: 100, Completed: 100, OK: 95, Errors: 5},
		Status:   map[string]uint64{"101": 100},
		Errors:   map[string]uint64{"status": 5},
		ErrorMessages: []summary.ErrorMessage{
			{Class: "status", Message: "jsonrpc -32601 the method eth_nope does not exist/is not available", Count: 5},
		},
	}}
	var md strings.Builder
	if err := Markdown(&md, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"JSON-RPC outcomes", "| result | 95 |", "| error -32601 | 5 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| 101 |") {
		t.Errorf("Markdown has a row of 101s:\n%s", md.String())
	}
	p := buildPage([]*summary.Summary{s}, []string{""}, Options{}.percentiles())
	got := map[string]string{}
	for _, r := range p.Status {
		got[r.Key] = r.Cells[0].Count
		if r.Key == "result" && r.Bad {
			t.Error("HTML marks the result row as bad")
		}
	}
	if len(got) != 2 || got["result"] != "95" || got["error -32601"] != "5" {
		t.Errorf("HTML status rows %v; want result 95 and error -32601 5", got)
	}
}
