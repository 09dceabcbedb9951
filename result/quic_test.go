package result

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// The QUIC facts of connections and the packets of answers are summed by the Recorder, merged
// across intervals, and survive the result file.
func TestFileKeepsQUIC(t *testing.T) {
	t.Parallel()
	rec := NewRecorder(1, 2)
	rec.Record(0, &Event{Answered: true, Packets: QUICPackets{Sent: 5, Received: 4},
		Conn: &ConnEvent{TLS: time.Millisecond, Proto: "h3", QUIC: &QUICConn{Version: "v1", GSO: true}}})
	rec.Record(1, &Event{Answered: true, Packets: QUICPackets{Sent: 3, Received: 2, Lost: 1, BytesLost: 1200},
		Conn: &ConnEvent{TLS: time.Millisecond, Proto: "h3", QUIC: &QUICConn{Version: "v1", Used0RTT: true, Resumed: true}}})
	rec.Record(0, &Event{Answered: true, Packets: QUICPackets{Sent: 1, Received: 1}})
	iv := NewInterval(1)
	iv.End = 1e9
	iv.Merge(rec.Flush(0, 1e9))
	// counted by hand from the three events above
	want := &QUICConns{Versions: map[string]uint64{"v1": 2}, Used0RTT: 1, Resumed: 1, GSO: 1,
		QUICPackets: QUICPackets{Sent: 9, Received: 7, Lost: 1, BytesLost: 1200}}
	if !reflect.DeepEqual(iv.Conns.QUIC, want) {
		t.Fatalf("recorded %+v; want %+v", iv.Conns.QUIC, want)
	}
	var b bytes.Buffer
	w, err := NewWriter(&b, testHeader(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterval(iv); err != nil {
		t.Fatal(err)
	}
	var got *Interval
	if _, err := Read(bytes.NewReader(b.Bytes()), "quic.rb", func(_ *File, iv *Interval) error { got = keep(iv); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Conns.QUIC, want) {
		t.Errorf("read back %+v; want %+v", got.Conns.QUIC, want)
	}
	twice := NewInterval(1)
	twice.Merge(got)
	twice.Merge(got)
	if q := twice.Conns.QUIC; q.Versions["v1"] != 4 || q.Sent != 18 || q.Conns() != 4 {
		t.Errorf("two merged: %+v; want 4 connections of v1, 18 packets sent", q)
	}
}
