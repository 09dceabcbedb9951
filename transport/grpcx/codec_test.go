package grpcx

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// An answer read into a dropping frame is counted, not copied: the frame holds none of its bytes.
// A keeping frame copies it whole.
func TestCodecDropsUnkeptAnswers(t *testing.T) {
	t.Parallel()
	data := mem.BufferSlice{mem.SliceBuffer(make([]byte, 3000)), mem.SliceBuffer([]byte("tail"))}
	drop := &frame{drop: true}
	if err := (rawCodec{}).Unmarshal(data, drop); err != nil {
		t.Fatal(err)
	}
	if drop.n != 3004 || len(drop.b) != 0 || cap(drop.b) != 0 {
		t.Errorf("dropped: got n %d, %d bytes held (cap %d); want n 3004, none held", drop.n, len(drop.b), cap(drop.b))
	}
	keep := &frame{}
	if err := (rawCodec{}).Unmarshal(data, keep); err != nil {
		t.Fatal(err)
	}
	if keep.n != 3004 || len(keep.b) != 3004 || string(keep.b[3000:]) != "tail" {
		t.Errorf("kept: got n %d, %d bytes ending %q; want 3004 ending \"tail\"", keep.n, len(keep.b), keep.b[max(len(keep.b)-4, 0):])
	}
}

// A kept answer is copied only while its call's deadline has not passed: past it, the copy stops
// and the frame says it was late, so that copying a large answer cannot carry a call past its
// time limit.
func TestCodecStopsAtDeadline(t *testing.T) {
	t.Parallel()
	data := mem.BufferSlice{mem.SliceBuffer(make([]byte, 3000)), mem.SliceBuffer([]byte("tail"))}
	past := &frame{deadline: time.Now().Add(-time.Millisecond)}
	if err := (rawCodec{}).Unmarshal(data, past); err != nil {
		t.Fatal(err)
	}
	if !past.late || len(past.b) != 0 {
		t.Errorf("deadline passed: got late %v, %d bytes kept; want late, none kept", past.late, len(past.b))
	}
	ahead := &frame{deadline: time.Now().Add(time.Hour)}
	if err := (rawCodec{}).Unmarshal(data, ahead); err != nil {
		t.Fatal(err)
	}
	if ahead.late || len(ahead.b) != 3004 || string(ahead.b[3000:]) != "tail" {
		t.Errorf("deadline ahead: got late %v, %d bytes; want on time, the 3004 bytes", ahead.late, len(ahead.b))
	}
}

// A unary call whose kept answer was still being copied at its deadline is a timeout, not an
// answer.
func TestLateCopyIsTimeout(t *testing.T) {
	t.Parallel()
	tr := New(Options{KeepBody: true})
	defer tr.Close()
	var out transport.Outcome
	tr.finish(context.Background(), nil, nil, &frame{late: true, n: 3004}, nil, &out)
	if out.Class != result.Timeout || out.Answered || out.Status != int(codes.DeadlineExceeded) || out.BytesIn != 0 || len(out.Body) != 0 {
		t.Errorf("late copy: got class %v answered %v status %d, %d bytes in, %d kept (%v); want timeout, unanswered, status 4, nothing in",
			out.Class, out.Answered, out.Status, out.BytesIn, len(out.Body), out.Err)
	}
}
