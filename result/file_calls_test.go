package result

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The calls inside batches survive the result file, written as a sorted list per endpoint; a file
// written before they were kept (no "calls") reads as none.
func TestFileKeepsCalls(t *testing.T) {
	t.Parallel()
	iv := NewInterval(1)
	iv.End = 1e9
	rec := NewRecorder(1, 1)
	rec.Record(0, &Event{Answered: true, Status: 200, Class: Status, Err: Exact("jsonrpc -32601"), Calls: []Call{
		{Method: "eth_nope", Outcome: CallError, Code: -32601}, {Method: "eth_blockNumber", Outcome: CallOK},
	}})
	rec.Record(0, &Event{Class: Refused, Unsent: true, Calls: []Call{
		{Method: "eth_nope"}, {Method: "eth_blockNumber"},
	}})
	iv.Merge(rec.Flush(0, 1e9))
	var b bytes.Buffer
	w, err := NewWriter(&b, testHeader(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterval(iv); err != nil {
		t.Fatal(err)
	}
	want := `"calls":[{"method":"eth_blockNumber","outcome":"ok","count":1},{"method":"eth_blockNumber","outcome":"unanswered","count":1},` +
		`{"method":"eth_nope","outcome":"error","code":-32601,"count":1},{"method":"eth_nope","outcome":"unanswered","count":1}]`
	if !strings.Contains(b.String(), want) {
		t.Errorf("file:\n%s\nwant it to contain %s", b.String(), want)
	}
	var got *Interval
	if _, err := Read(bytes.NewReader(b.Bytes()), "calls.rb", func(_ *File, iv *Interval) error { got = keep(iv); return nil }); err != nil {
		t.Fatal(err)
	}
	if g, w := fmt.Sprint(got.Endpoints[0].Calls), fmt.Sprint(iv.Endpoints[0].Calls); g != w || len(got.Endpoints[0].Calls) != 4 {
		t.Errorf("calls read back: got %s; want %s", g, w)
	}

	old := `{"kind":"header","format":"rpcbench.result","version":"1.0","endpoints":["a"]}` + "\n" +
		`{"kind":"interval","start_ns":0,"end_ns":1,"endpoints":[{"sent":2,"ok":2,"completed":2}]}` + "\n"
	got = nil
	if _, err := Read(strings.NewReader(old), "old.rb", func(_ *File, iv *Interval) error { got = keep(iv); return nil }); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Endpoints[0].OK != 2 || len(got.Endpoints[0].Calls) != 0 {
		t.Errorf("old file: got %+v; want 2 ok and no calls", got)
	}
}
