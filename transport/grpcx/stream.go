package grpcx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
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
// after the other (JSON lines, or values spread over lines), once per distinct body up to max
// bodies. A server-streaming method takes exactly one; a client- or bidi-streaming one any number,
// none for an empty body.
func (m *method) messages(js []byte, max int) ([][]byte, error) {
	m.mu.RLock()
	msgs, ok := m.streamBodies[string(js)]
	m.mu.RUnlock()
	if ok {
		return msgs, nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("grpcx: message %d of the body: %w", i, err)
		}
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

// stream makes a streaming call: it sends the body's messages (all of them, then closes its side;
// for a bidi call while it receives) and receives the answers until the server ends the stream.
// out.FirstByte is when the first answer arrived, MsgsOut and MsgsIn count the messages, MsgGaps
// holds the times between answers, and with KeepBody out.Body holds the answers in JSON, one a
// line. cancel ends the call's context.
func (t *Transport) stream(ctx, callCtx context.Context, cancel context.CancelFunc, cc *grpc.ClientConn, m *method, r *transport.Request, out *transport.Outcome) {
	msgs, err := m.messages(r.Body, t.opts.MaxBodies)
	if err != nil {
		out.Class, out.Err = result.Other, err
		return
	}
	if len(r.Header) > 0 {
		callCtx = withMetadata(callCtx, r.Header)
	}
	desc := &grpc.StreamDesc{ServerStreams: m.desc.IsStreamingServer(), ClientStreams: m.desc.IsStreamingClient()}
	out.Sent = time.Now()
	cs, err := cc.NewStream(callCtx, desc, m.path, t.callOpts...)
	if err != nil {
		t.fail(ctx, err, out)
		return
	}
	var sent, sentBytes int64
	// dues carries each message's due time, from the sender to the receiver of a bidi call, which
	// matches the answers to the messages in turn.
	var dues chan time.Time
	paced := t.opts.StreamRate > 0 && desc.ClientStreams
	if paced && desc.ServerStreams {
		dues = make(chan time.Time, len(msgs))
	}
	send := func() error {
		var timer *time.Timer
		for i, b := range msgs {
			due := out.Sent
			if paced {
				due = out.Sent.Add(time.Duration(float64(i) / t.opts.StreamRate * float64(time.Second)))
				if wait := time.Until(due); wait > 0 {
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
			}
			if dues != nil {
				dues <- due
			}
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
		t.fail(ctx, err, out)
		return
	}
	res := t.frames.Get().(*frame)
	defer t.putFrame(res, false)
	if t.opts.KeepBody {
		out.Body = out.Body[:0]
	}
	var rerr error
	var last time.Time // when the previous answer arrived
	for {
		if rerr = cs.RecvMsg(res); rerr != nil {
			break
		}
		now := time.Now()
		if out.MsgsIn == 0 {
			out.FirstByte = now
		} else {
			out.MsgGaps = append(out.MsgGaps, now.Sub(last))
		}
		last = now
		if dues != nil {
			select {
			case due := <-dues:
				out.MsgLatencies = append(out.MsgLatencies, now.Sub(due))
			default: // more answers than messages: no latency to tell
			}
		}
		out.MsgsIn++
		out.BytesIn += int64(len(res.b) + frameHeader)
		if t.opts.KeepBody {
			if out.Body, err = m.decode(res.b, out.Body); err != nil {
				rerr = err
				break
			}
			out.Body = append(out.Body, '\n')
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
	case err != nil && rerr == err: // an answer that is not the method's output
		out.Answered = true
		out.Class, out.Err = result.Protocol, err
	default:
		t.fail(ctx, rerr, out)
	}
}
