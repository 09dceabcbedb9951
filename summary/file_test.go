package summary_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/report"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// TestCutShortFile reads a result file whose run was killed: three intervals and the torn start of
// a fourth, no trailer. The requests it does not count were in flight or unsent, which the file
// cannot tell apart: the report must say so, not that the generator fell behind.
func TestCutShortFile(t *testing.T) {
	t.Parallel()
	cfg, err := json.Marshal(plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Model: plan.Open, Rate: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := result.NewWriter(&b, result.Header{Endpoints: []string{"GET /"}, Config: cfg, Planned: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i, sent := range []uint64{100, 100, 40} { // 100 due each second; the kill came in the third
		iv := result.NewInterval(1)
		iv.Start, iv.End, iv.Intended = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second, 100
		c := iv.Endpoints[0]
		c.Sent, c.Completed, c.OK = sent, sent, sent
		result.RecordDuration(c.Latency, time.Millisecond)
		if err := w.WriteInterval(iv); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString(`{"kind":"interval","start_ns":3000`) // the line the kill tore
	f, err := result.Read(&b, "killed.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.OfFile(f, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Requests, (summary.Requests{Intended: 300, Sent: 240, Completed: 240, OK: 240, Unknown: 60}); got != want {
		t.Errorf("got requests %+v; want %+v", got, want)
	}
	notes := strings.Join(s.Notes, "\n")
	if want := "the result file was cut short (no trailer): the run was killed before it finished the file; 60 of 300 intended requests were in flight or not yet sent, and their fate is unknown"; !strings.Contains(notes, want) {
		t.Errorf("got notes %q; want one saying %q", notes, want)
	}
	var text strings.Builder
	if err := report.Text(&text, s); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"fell behind", "never sent"} {
		if strings.Contains(text.String(), bad) {
			t.Errorf("got a report saying %q; want none for a cut-off file:\n%s", bad, text.String())
		}
	}
	if want := "unknown     60 (in flight or not yet sent when the run was killed"; !strings.Contains(text.String(), want) {
		t.Errorf("got report\n%s\nwant a line %q", text.String(), want)
	}
}
