package summary_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// TestManyMessages folds 5,000 distinct protocol failures (a server that fails in its own words
// every time) and 3 timeouts: each class lists at most summary.MaxMessages messages, and every
// format says how many more there were and how many requests they failed.
func TestManyMessages(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	c := iv.Endpoints[0]
	const distinct = 5000
	for i := range distinct {
		n := uint64(1)
		if i < 20 {
			n = 2 // the 20 listed: the most frequent
		}
		c.Messages[result.ErrorKey{Class: result.Protocol, Message: fmt.Sprintf("bad frame %d", i)}] += n
		c.Errors[result.Protocol] += n
		c.Sent += n
	}
	for i := range 3 {
		c.Messages[result.ErrorKey{Class: result.Timeout, Message: fmt.Sprintf("timeout %d", i)}]++
		c.Errors[result.Timeout]++
		c.Sent++
	}
	s := summary.New(summary.Run{Plan: plan.Plan{Endpoints: []plan.Endpoint{{Name: "GET /", URL: "http://127.0.0.1:1/"}}}, Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second}}, iv)

	// by hand: 20 protocol messages of 2 and 3 timeouts listed; 4,980 protocol messages of 1 left
	if got, want := len(s.ErrorMessages), 23; got != want {
		t.Errorf("got %d messages listed; want %d", got, want)
	}
	if got, want := fmt.Sprint(s.MoreMessages), "[{protocol 4980 4980}]"; got != want {
		t.Errorf("got more messages %s; want %s", got, want)
	}
	if got, want := fmt.Sprint(s.Endpoints[0].MoreMessages), "[{protocol 4980 4980}]"; got != want {
		t.Errorf("got the endpoint's more messages %s; want %s", got, want)
	}

	var js bytes.Buffer
	if err := report.JSON(&js, s); err != nil {
		t.Fatal(err)
	}
	if js.Len() > 16<<10 {
		t.Errorf("got a JSON report of %d bytes; want at most 16 KiB", js.Len())
	}
	var back struct {
		More []summary.MoreMessages `json:"more_error_messages"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.More) != 1 || back.More[0].Distinct != 4980 {
		t.Errorf("got JSON more_error_messages %+v (%v); want one of 4980 distinct", back.More, err)
	}
	var text, md, html strings.Builder
	if err := report.Text(&text, s); err != nil {
		t.Fatal(err)
	}
	if err := report.Markdown(&md, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(&html, []*summary.Summary{s}); err != nil {
		t.Fatal(err)
	}
	// text and HTML show 10: the other 10 protocol messages of 2, the 3 timeouts and the 4,980
	tests := []struct {
		format, got, want string
	}{
		{"text", text.String(), "… and 4993 more distinct messages (5003 requests)"},
		{"markdown", md.String(), "| … and 4980 more distinct messages | protocol | 4980 |"},
		{"html", html.String(), "… and 4993 more distinct messages (5003 requests)"},
	}
	for _, tc := range tests {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s: got a report without %q", tc.format, tc.want)
		}
		if strings.Contains(tc.got, "bad frame 4999") {
			t.Errorf("%s: got a report listing a message past the cap", tc.format)
		}
	}
}

// TestRetriedShown folds requests sent again after resets and after GOAWAYs: the JSON, text and
// markdown reports give each number.
func TestRetriedShown(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	c := iv.Endpoints[0]
	c.Sent, c.Completed, c.OK, c.Retried, c.RetriedGoAway = 50, 50, 50, 7, 11
	c.Status[200] = 50
	s := summary.New(summary.Run{Plan: plan.Plan{Endpoints: []plan.Endpoint{{Name: "GET /", URL: "http://127.0.0.1:1/"}}}, Trailer: result.Trailer{Elapsed: time.Second, Sending: time.Second}}, iv)
	var js bytes.Buffer
	if err := report.JSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var text, md strings.Builder
	if err := report.Text(&text, s); err != nil {
		t.Fatal(err)
	}
	if err := report.Markdown(&md, []*summary.Summary{s}, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format, got, want string
	}{
		{"json", js.String(), `"retried_after_reset": 7`},
		{"text", text.String(), "retried     7 after a reset or close of a reused connection"},
		{"markdown", md.String(), "| retried after reset | 7 |"},
		{"json", js.String(), `"retried_after_goaway": 11`},
		{"text", text.String(), "retried     11 after a GOAWAY that left them unprocessed"},
		{"markdown", md.String(), "| retried after GOAWAY | 11 |"},
	}
	for _, tc := range tests {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s: got a report without %q:\n%s", tc.format, tc.want, tc.got)
		}
	}
}
