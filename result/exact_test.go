package result

import (
	"errors"
	"testing"
)

func TestRecordExactMessage(t *testing.T) {
	t.Parallel()
	r := NewRecorder(1, 1)
	r.Record(0, &Event{Class: Status, Status: 200, Answered: true, Err: Exact("jsonrpc -32601 Method not found")})
	r.Record(0, &Event{Class: Other, Err: errors.New("dial tcp 127.0.0.1:80: boom 42")})
	iv := r.Flush(0, 1)
	for _, k := range []ErrorKey{{Status, "jsonrpc -32601 Method not found"}, {Other, "dial tcp ADDR: boom N"}} {
		if got := iv.Endpoints[0].Messages[k]; got != 1 {
			t.Errorf("Messages[%v] = %d; want 1 (all: %v)", k, got, iv.Endpoints[0].Messages)
		}
	}
}
