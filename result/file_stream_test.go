package result

import (
	"bytes"
	"testing"
	"time"
)

// The figures of streaming calls and the protocols connections spoke survive the result file; an
// interval without them writes none (no "stream" member) and reads back without histograms.
func TestFileKeepsStreams(t *testing.T) {
	t.Parallel()
	iv := NewInterval(2)
	iv.End = 1e9
	rec := NewRecorder(2, 1)
	rec.Record(0, &Event{Answered: true, MsgsIn: 3, MsgsOut: 2, MsgLatencies: []time.Duration{time.Millisecond, 3 * time.Millisecond},
		MsgGaps: []time.Duration{2 * time.Millisecond, 2 * time.Millisecond}, Conn: &ConnEvent{Connect: time.Millisecond, Proto: "h2"}})
	rec.Record(1, &Event{Answered: true, Conn: &ConnEvent{Connect: time.Millisecond, Proto: "http/1.1"}})
	iv.Merge(rec.Flush(0, 1e9))
	var b bytes.Buffer
	w, err := NewWriter(&b, testHeader(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterval(iv); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b.Bytes(), []byte(`"stream":`)); n != 1 {
		t.Errorf("%d stream members; want 1, of the endpoint that streamed:\n%s", n, b.String())
	}
	var got *Interval
	if _, err := Read(bytes.NewReader(b.Bytes()), "streams.rb", func(_ *File, iv *Interval) error { got = keep(iv); return nil }); err != nil {
		t.Fatal(err)
	}
	c, plain := got.Endpoints[0], got.Endpoints[1]
	if c.MsgsIn != 3 || c.MsgsOut != 2 || c.MsgLatency.TotalCount() != 2 || c.MsgGap.TotalCount() != 2 {
		t.Errorf("read back: msgs in %d, out %d; want 3, 2 and two latencies and two gaps", c.MsgsIn, c.MsgsOut)
	}
	if plain.MsgLatency != nil || plain.MsgGap != nil || plain.MsgsIn != 0 {
		t.Errorf("the endpoint that did not stream read back with %+v", plain)
	}
	if p := got.Conns.Protos; p["h2"] != 1 || p["http/1.1"] != 1 || len(p) != 2 {
		t.Errorf("protocols read back: %v; want h2 1, http/1.1 1", p)
	}
}
