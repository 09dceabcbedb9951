package grpcx

import (
	"testing"

	"google.golang.org/grpc/mem"
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
