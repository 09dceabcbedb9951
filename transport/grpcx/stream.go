package grpcx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// streams reports whether m is a streaming method: server-, client- or bidi-streaming.
func (m *method) streams() bool { return m.desc.IsStreamingClient() || m.desc.IsStreamingServer() }

// kind names m's kind of stream, for messages.
func (m *method) kind() string {
	switch {
	case m.desc.IsStreamingClient() && m.desc.IsStreamingServer():
		return "bidi-streaming"
	case m.desc.IsStreamingClient():
		return "client-streaming"
	}
	return "server-streaming"
}

// messages returns the request messages of a streaming call, marshalled: the JSON values of js one
// after the other (JSON lines, or values spread over lines), or the elements of one JSON array (as
// ghz gives a stream's messages), once per distinct body up to max bodies. A server-streaming
// method takes exactly one; a client- or bidi-streaming one any number, none for an empty body.
func (m *method) messages(js []byte, max int) ([][]byte, error) {
	m.mu.RLock()
	msgs, ok := m.streamBodies[string(js)]
	m.mu.RUnlock()
	if ok {
		return msgs, nil
	}
	var raws []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(js))
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("grpcx: message %d of the body: %w", i, err)
		}
		raws = append(raws, raw)
	}
	if len(raws) == 1 && isArray(raws[0]) && !listInput(m.desc.Input()) {
		if !m.desc.IsStreamingClient() {
			return nil, fmt.Errorf("grpcx: %s is %s: it takes one request message, not an array of them", m.path, m.kind())
		}
		arr := raws[0]
		raws = nil
		if err := json.Unmarshal(arr, &raws); err != nil {
			return nil, fmt.Errorf("grpcx: the body's array: %w", err)
		}
	}
	for i, raw := range raws {
		i++
		msg := dynamicpb.NewMessage(m.desc.Input())
		if err := protojson.Unmarshal(raw, msg); err != nil {
			return nil, fmt.Errorf("grpcx: message %d of the body is not a %s in JSON: %w", i, m.desc.Input().FullName(), err)
		}
		b, err := proto.Marshal(msg)
		if err != nil {
			return nil, fmt.Errorf("grpcx: marshalling message %d: %w", i, err)
		}
		msgs = append(msgs, b)
	}
	if !m.desc.IsStreamingClient() && len(msgs) != 1 {
		return nil, fmt.Errorf("grpcx: %s is %s: it takes one request message; the body holds %d", m.path, m.kind(), len(msgs))
	}
	m.mu.Lock()
	if len(m.streamBodies) < max {
		m.streamBodies[string(js)] = msgs
	}
	m.mu.Unlock()
	return msgs, nil
}

// isArray reports whether the JSON value v is an array.
func isArray(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '['
}

// listInput reports whether messages of type d may be written as JSON arrays: the well-known
// google.protobuf.ListValue and Value.
func listInput(d protoreflect.MessageDescriptor) bool {
	n := d.FullName()
	return n == "google.protobuf.ListValue" || n == "google.protobuf.Value"
}

// stream makes a streaming call: it sends the body's messages (all of them, or StreamCount of them
// in turn, until StreamDuration; then closes its side; for a bidi call while it receives) and
// receives the answers until the server ends the stream, or until a server stream has given
// StreamCount answers or lasted StreamDuration, when the call ends it (and counts it answered).
// out.FirstByte is when the first answer arrived, MsgsOut and MsgsIn count the messages, MsgGaps
// holds the times between answers, and with KeepBody out.Body holds the answers in JSON, one a
// line. cancel ends the call's context; s is cc's slot.
func (t *Transport) stream(ctx, callCtx context.Context, cancel context.CancelFunc, s *slot, cc *grpc.ClientConn, m *method, r *transport.Request, out *transport.Outcome) {
	msgs, err := m.messages(r.Body, t.opts.MaxBodies)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	if len(r.Header) > 0 {
		callCtx = withMetadata(callCtx, r.Header)
	}
	desc := &grpc.StreamDesc{ServerStreams: m.desc.IsStreamingServer(), ClientStreams: m.desc.IsStreamingClient()}
	// a server stream's end of our making: after StreamCount answers or StreamDuration
	var cut atomic.Bool
	streamCtx, endStream := context.WithCancel(callCtx)
	defer endStream()
	out.Sent = time.Now()
	if d := t.opts.StreamDuration; d > 0 && !desc.ClientStreams {
		timer := time.AfterFunc(d, func() { cut.Store(true); endStream() })
		defer timer.Stop()
	}
	cs, err := cc.NewStream(streamCtx, desc, m.path, t.callOpts...)
	if err != nil {
		t.fail(ctx, s, err, out)
		return
	}
	var sent, sentBytes int64
	// issued counts the messages handed to the stream, before each is sent: the receiver of a paced
	// bidi call matches answer k to message k, due k/StreamRate after the call's start.
	var issued atomic.Int64
	paced := t.opts.StreamRate > 0 && desc.ClientStreams
	n := len(msgs)
	if t.opts.StreamCount > 0 && n > 0 && desc.ClientStreams {
		n = t.opts.StreamCount
	}
	send := func() error {
		var timer *time.Timer
		for i := range n {
			due := out.Sent
			if paced {
				due = out.Sent.Add(t.dueOffset(i))
			}
			if d := t.opts.StreamDuration; d > 0 && (paced && due.Sub(out.Sent) >= d || !paced && time.Since(out.Sent) >= d) {
				break // the call has sent for as long as it should
			}
			if wait := time.Until(due); paced && wait > 0 {
				if timer == nil {
					timer = time.NewTimer(wait)
					defer timer.Stop()
				} else {
					timer.Reset(wait)
				}
				select {
				case <-timer.C:
				case <-callCtx.Done():
					return callCtx.Err()
				}
			}
			b := msgs[i%len(msgs)]
			issued.Add(1)
			if err := cs.SendMsg(&frame{b: b}); err != nil {
				return err // io.EOF: the server ended the stream; RecvMsg says how
			}
			sent++
			sentBytes += int64(len(b) + frameHeader)
		}
		return cs.CloseSend()
	}
	var sendErr chan error
	if desc.ClientStreams && desc.ServerStreams {
		sendErr = make(chan error, 1)
		go func() { sendErr <- send() }()
	} else if err := send(); err != nil && !errors.Is(err, io.EOF) {
		out.MsgsOut, out.BytesOut = sent, sentBytes
		t.fail(ctx, s, err, out)
		return
	}
	res := t.answerFrame(callCtx)
	defer t.putFrame(res, false)
	if t.opts.KeepBody {
		out.Body = out.Body[:0]
	}
	var rerr error
	var last time.Time // when the previous answer arrived
	for {
		if rerr = cs.RecvMsg(res); rerr == nil && res.late {
			rerr = errLate
		}
		if rerr != nil {
			break
		}
		now := time.Now()
		if out.MsgsIn == 0 {
			out.FirstByte = now
		} else {
			out.MsgGaps = append(out.MsgGaps, now.Sub(last))
		}
		last = now
		if paced && desc.ServerStreams && out.MsgsIn < issued.Load() { // else more answers than messages: no latency to tell
			out.MsgLatencies = append(out.MsgLatencies, now.Sub(out.Sent.Add(t.dueOffset(int(out.MsgsIn)))))
		}
		out.MsgsIn++
		out.BytesIn += int64(res.n + frameHeader)
		if t.opts.KeepBody {
			if out.Body, err = m.decode(res.b, out.Body); err != nil {
				rerr = err
				break
			}
			out.Body = append(out.Body, '\n')
		}
		if !desc.ClientStreams && t.opts.StreamCount > 0 && out.MsgsIn >= int64(t.opts.StreamCount) {
			cut.Store(true)
			endStream()
			rerr = io.EOF // the answers asked for
			break
		}
	}
	if sendErr != nil {
		if rerr != io.EOF {
			cancel() // the sender may be blocked on a stream that is over
		}
		<-sendErr
	}
	out.MsgsOut, out.BytesOut = sent, sentBytes
	switch {
	case rerr == io.EOF:
		out.Answered = true
	case cut.Load() && status.Code(rerr) == codes.Canceled: // ended on time, as asked
		out.Answered = true
	case err != nil && rerr == err: // an answer that is not the method's output
		out.Answered = true
		out.Class, out.Err = result.Protocol, err
	default:
		t.fail(ctx, s, rerr, out)
	}
}

// dueOffset is when message i of a paced stream is due, from the call's start.
func (t *Transport) dueOffset(i int) time.Duration {
	return time.Duration(float64(i) / t.opts.StreamRate * float64(time.Second))
}
