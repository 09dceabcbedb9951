package grpcx

import (
	"fmt"
	"time"

	"google.golang.org/grpc/mem"
)

// frame is one message on the wire, already marshalled: the raw codec sends its bytes as they are
// and reads an answer's bytes into it, so a call neither marshals nor parses a message.
type frame struct {
	b []byte
	// n is the length of the answer read into the frame; with drop, its bytes are counted, not
	// copied into b (an answer no check reads is not held beyond grpc-go's own buffers).
	n    int
	drop bool
	// deadline is the call's: a kept answer's copy stops once it has passed, and late says so
	// (the copy of a large answer must not carry the call past its time limit).
	deadline time.Time
	late     bool
	// scratch is the buffer a body marshalled per call is written into; b may point into it, or
	// into a method's marshalled bodies, which are never written to.
	scratch []byte
}

// rawCodec is the codec of every call: it names itself "proto", so the content type is the usual
// application/grpc+proto, and passes bytes through.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*frame)
	if !ok {
		return nil, fmt.Errorf("grpcx: raw codec cannot marshal a %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(f.b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return fmt.Errorf("grpcx: raw codec cannot unmarshal into a %T", v)
	}
	n := data.Len()
	f.n = n
	if f.drop {
		return nil
	}
	if cap(f.b) < n {
		f.b = make([]byte, n)
	}
	f.b = f.b[:n]
	off := 0
	for _, buf := range data { // grpc-go's buffers: a frame's data, up to 16 KiB each
		if !f.deadline.IsZero() && time.Now().After(f.deadline) {
			f.b, f.late = f.b[:0], true
			return nil
		}
		off += copy(f.b[off:], buf.ReadOnlyData())
	}
	return nil
}
