package h2

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// readLoop reads the server's frames until the connection ends, then fails the streams left.
func (cc *clientConn) readLoop() {
	err := cc.readFrames()
	cc.mu.Lock()
	if cc.err == nil {
		cc.err = cc.lost(err)
	}
	cc.retire()
	for _, st := range cc.streams {
		cc.finish(st, cc.err)
	}
	if cc.stopWatch != nil {
		cc.stopWatch()
	}
	cc.mu.Unlock()
	_ = cc.nc.Close()
	close(cc.readerDone)
	select {
	case cc.flushReq <- struct{}{}: // flushLoop sees readerDone closed, and returns
	default:
	}
}

// lost says why the connection ended, from the error that stopped readFrames.
func (cc *clientConn) lost(err error) error {
	var ce http2.ConnectionError
	switch {
	case errors.Is(err, net.ErrClosed):
		return err // closed here: by Close, or after a failed write
	case errors.Is(err, io.EOF):
		return fmt.Errorf("h2: the server closed the connection: %w", err)
	case errors.As(err, &ce) && cc.fr.ErrorDetail() != nil:
		return fmt.Errorf("h2: the server broke the protocol (%v): %w", cc.fr.ErrorDetail(), err)
	case errors.As(err, &ce), errors.Is(err, http2.ErrFrameTooLarge):
		return fmt.Errorf("h2: the server broke the protocol: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF), isNetError(err):
		return fmt.Errorf("h2: reading from the server: %w", err)
	}
	return err // one of this package's
}

// isNetError reports whether err comes from the network.
func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

// streamReader is a connection that hands what it reads to a consumer as it arrives, and waits for
// more after a read that found the socket empty instead of reading it again (rawconn's, over TCP).
type streamReader interface {
	ReadStream(space func() []byte, got func(n int) error) error
}

// readFrames reads and handles frames until an error that ends the connection. Over a connection
// that streams (h2c), each read's whole frames are handled as they arrive, and the socket is read
// again only once more came: no read that finds it empty between two arrivals.
func (cc *clientConn) readFrames() error {
	sr, ok := cc.nc.(streamReader)
	if !ok {
		for {
			if err := cc.readFrame(); err != nil {
				return err
			}
		}
	}
	if err := cc.bufferedFrames(); err != nil { // what came with the server's settings
		return err
	}
	cc.rb.stream = true
	return sr.ReadStream(cc.rb.space, cc.arrived)
}

// arrived takes the n bytes a read just left in cc.rb's space, and handles the frames now whole.
func (cc *clientConn) arrived(n int) error {
	cc.readAt = time.Now()
	cc.rb.w += n
	return cc.bufferedFrames()
}

// bufferedFrames handles the frames whole in cc.rb.
func (cc *clientConn) bufferedFrames() error {
	for cc.rb.frameReady() {
		if err := cc.readFrame(); err != nil {
			return err
		}
	}
	return nil
}

// readFrame reads and handles one frame; an error ends the connection.
func (cc *clientConn) readFrame() error {
	fh, err := cc.fr.ReadFrameHeader()
	if err != nil {
		return err
	}
	if fh.Type == http2.FrameHeaders || fh.Type == http2.FrameContinuation {
		return cc.readHeaders(fh)
	}
	f, err := cc.fr.ReadFrameForHeader(fh)
	if se, ok := err.(http2.StreamError); ok { // the Framer's own, not wrapped
		cc.resetStream(se.StreamID, se.Code, protoError(se.Error()))
		return nil
	}
	if err != nil {
		return err
	}
	return cc.dispatch(f)
}

// dispatch handles one frame other than HEADERS and CONTINUATION.
func (cc *clientConn) dispatch(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		return cc.onData(f)
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		return cc.onSettings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			cc.lockWrite()
			err := cc.fr.WritePing(true, f.Data)
			cc.unlockWrite()
			return err
		}
	case *http2.WindowUpdateFrame:
		return cc.onWindowUpdate(f)
	case *http2.RSTStreamFrame:
		cc.mu.Lock()
		if st := cc.streams[f.StreamID]; st != nil {
			st.unsent = f.ErrCode == http2.ErrCodeRefusedStream
			cc.finish(st, resetError{f.ErrCode})
		}
		cc.mu.Unlock()
	case *http2.GoAwayFrame:
		cc.mu.Lock()
		cc.retire()
		for id, st := range cc.streams {
			if id > f.LastStreamID {
				st.unsent = true
				cc.finish(st, goAwayError{last: f.LastStreamID, code: f.ErrCode})
			}
		}
		cc.mu.Unlock()
	case *http2.PushPromiseFrame:
		return protoError("PUSH_PROMISE although push is disabled")
	}
	return nil
}

// resetStream fails stream id, if open, with err and resets it with code.
func (cc *clientConn) resetStream(id uint32, code http2.ErrCode, err error) {
	cc.mu.Lock()
	st := cc.streams[id]
	if st != nil {
		cc.finish(st, err)
	}
	cc.mu.Unlock()
	if st != nil {
		cc.lockWrite()
		_ = cc.fr.WriteRSTStream(id, code)
		cc.unlockWrite()
	}
}

// readHeaders reads a HEADERS or CONTINUATION frame's payload (not with the Framer, which would
// allocate a frame for it) and decodes its part of the header block; the Framer has checked that
// the frames of a block follow each other. At the end of the block it hands the answer's headers
// to their stream.
func (cc *clientConn) readHeaders(fh http2.FrameHeader) error {
	if int(fh.Length) > cap(cc.payload) {
		cc.payload = make([]byte, fh.Length)
	}
	p := cc.payload[:fh.Length]
	if _, err := io.ReadFull(&cc.rb, p); err != nil {
		return err
	}
	if fh.Type == http2.FrameHeaders {
		if fh.StreamID == 0 {
			return protoError("HEADERS frame on stream 0")
		}
		var ok bool
		if p, ok = headerFragment(fh.Flags, p); !ok {
			return protoError("HEADERS frame with more padding than payload")
		}
		cc.hdr = headerBlock{id: fh.StreamID, endStream: fh.Flags.Has(http2.FlagHeadersEndStream), contentLen: -1,
			grpc: cc.grpc, grpcStatus: -1, grpcMsg: cc.hdr.grpcMsg[:0], grpcEnc: cc.hdr.grpcEnc[:0]}
	}
	if cc.hdr.wire += len(p); cc.hdr.wire > maxHeaderBlock {
		return protoError("header block too large")
	}
	if _, err := cc.hdec.Write(p); err != nil {
		return fmt.Errorf("h2: decoding an answer's headers: %w", err)
	}
	if !fh.Flags.Has(http2.FlagHeadersEndHeaders) {
		return nil
	}
	if err := cc.hdec.Close(); err != nil {
		return fmt.Errorf("h2: decoding an answer's headers: %w", err)
	}
	cc.onHeaders()
	return nil
}

// headerFragment returns the header block fragment of a HEADERS frame's payload p, without its
// padding and priority fields, or false when they do not fit.
func headerFragment(flags http2.Flags, p []byte) ([]byte, bool) {
	pad := 0
	if flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 {
			return nil, false
		}
		pad, p = int(p[0]), p[1:]
	}
	if flags.Has(http2.FlagHeadersPriority) {
		if len(p) < 5 {
			return nil, false
		}
		p = p[5:]
	}
	if pad > len(p) {
		return nil, false
	}
	return p[:len(p)-pad], true
}

// headerBlock is what readLoop gathers of the header block it decodes.
type headerBlock struct {
	id         uint32
	endStream  bool
	wire       int   // compressed size
	size       int   // decoded size
	status     int   // :status; 0 when absent
	contentLen int64 // -1 when absent
	fieldBytes int64 // regular fields as HTTP/1.1 would write them
	regular    bool  // a regular field came
	bad        string
	// gRPC's fields, read when the connection carries gRPC (Options.GRPC): see grpcField
	grpc       bool
	grpcStatus int // -1 when absent
	grpcMsg    []byte
	hasMsg     bool
	grpcType   bool
	grpcEnc    []byte // grpc-encoding; empty when absent
}

// field takes one decoded field; the strings are not kept.
func (h *headerBlock) field(f hpack.HeaderField) {
	h.size += len(f.Name) + len(f.Value)
	if h.bad != "" {
		return
	}
	if len(f.Name) > 0 && f.Name[0] == ':' {
		switch {
		case f.Name != ":status":
			h.bad = "an answer with the pseudo-header " + f.Name
		case h.regular || h.status != 0:
			h.bad = "an answer with :status twice, or after other fields"
		default:
			h.status = atoi(f.Value)
			if h.status < 100 || h.status > 999 || len(f.Value) != 3 {
				h.bad = "an answer with :status " + f.Value
			}
		}
		return
	}
	h.regular = true
	h.fieldBytes += int64(len(f.Name) + len(f.Value) + 4)
	if h.grpc {
		h.grpcField(f.Name, f.Value)
	}
	if f.Name == "content-length" {
		n := int64(atoi(f.Value))
		if n < 0 || h.contentLen >= 0 && h.contentLen != n {
			h.bad = "an answer with content-length " + f.Value
		}
		h.contentLen = n
	}
}

// atoi parses s, up to 18 decimal digits; -1 when it is not that.
func atoi(s string) int {
	if len(s) == 0 || len(s) > 18 {
		return -1
	}
	n := 0
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// onHeaders hands a decoded header block to its stream: the answer's headers (after any interim
// 1xx answers) or its trailers. A block for a stream no longer open (canceled) is dropped.
func (cc *clientConn) onHeaders() {
	h := &cc.hdr
	if h.size > maxHeaderBlock {
		h.bad = "header list too large"
	}
	bad := h.bad
	cc.mu.Lock()
	st := cc.streams[h.id]
	if st == nil {
		cc.mu.Unlock()
		return
	}
	if st.firstByte.IsZero() {
		st.firstByte = cc.readAt
	}
	switch {
	case bad != "":
	case !st.gotFinal && h.status == 0:
		bad = "an answer without :status"
	case !st.gotFinal && h.status < 200:
		if h.endStream || h.status == 101 {
			bad = "an answer ending with an interim :status"
		} // else interim: the final answer follows
	case !st.gotFinal:
		st.gotFinal, st.status, st.contentLen = true, h.status, h.contentLen
		st.headerIn += h.fieldBytes
		if st.grpc != nil {
			h.grpcAnswer(st.grpc, true)
		}
		if h.endStream {
			cc.complete(st)
		}
	case !h.endStream || h.status != 0:
		bad = "trailers that do not end the stream, or with :status"
	default:
		st.headerIn += h.fieldBytes
		if st.grpc != nil {
			h.grpcAnswer(st.grpc, false)
		}
		cc.complete(st)
	}
	if bad != "" {
		cc.finish(st, protoError(bad))
	}
	cc.mu.Unlock()
	if bad != "" {
		cc.lockWrite()
		_ = cc.fr.WriteRSTStream(h.id, http2.ErrCodeProtocol)
		cc.unlockWrite()
	}
}

// complete finishes st, whose answer ended: answered, unless its body's length is not the one
// its content-length gave. cc.mu is held.
func (cc *clientConn) complete(st *stream) {
	if st.contentLen >= 0 && st.bodyLen != st.contentLen && !st.head && st.status != 204 && st.status != 304 {
		cc.finish(st, protoError(fmt.Sprintf("an answer of %d body bytes with content-length %d", st.bodyLen, st.contentLen)))
		return
	}
	cc.finish(st, nil)
}

// onData counts a DATA frame against the windows, gives its bytes to its stream (kept up to
// MaxBody, when bodies are kept), and opens the windows again once half of them is used.
func (cc *clientConn) onData(f *http2.DataFrame) error {
	n := int64(f.Length) // padding included: flow control counts it
	if cc.recvAvail -= n; cc.recvAvail < 0 {
		return fmt.Errorf("h2: the server sent more than the connection's window: %w", http2.ConnectionError(http2.ErrCodeFlowControl))
	}
	cc.unacked += int32(n)
	data := f.Data()
	var streamUpdate int64
	rst := http2.ErrCodeNo
	cc.mu.Lock()
	if st := cc.streams[f.StreamID]; st != nil {
		st.recvAvail -= n
		switch {
		case !st.gotFinal:
			cc.finish(st, protoError("DATA before the answer's HEADERS"))
			rst = http2.ErrCodeProtocol
		case st.recvAvail < 0:
			cc.finish(st, protoError("the server sent more than the stream's window"))
			rst = http2.ErrCodeFlowControl
		default:
			st.bodyLen += int64(len(data))
			if st.grpc != nil {
				st.grpc.Frame(data)
			}
			if cc.keepBody {
				if over := st.bodyLen - cc.maxBody; over > 0 { // keep MaxBody bytes, then stop
					st.body = append(st.body, data[:int64(len(data))-over]...)
					cc.finish(st, cc.tooLarge)
					rst = http2.ErrCodeCancel
					break
				}
				st.body = append(st.body, data...)
			}
			if f.StreamEnded() {
				cc.complete(st)
				break
			}
			if st.unacked += n; st.unacked >= int64(cc.streamWindow/2) {
				streamUpdate = st.unacked
				st.recvAvail += st.unacked
				st.unacked = 0
			}
		}
	}
	cc.mu.Unlock()
	var connUpdate int32
	if cc.unacked >= cc.connWindow/2 {
		connUpdate = cc.unacked
		cc.recvAvail += int64(cc.unacked)
		cc.unacked = 0
	}
	if connUpdate == 0 && streamUpdate == 0 && rst == http2.ErrCodeNo {
		return nil
	}
	cc.lockWrite()
	var err error
	if connUpdate > 0 {
		err = cc.fr.WriteWindowUpdate(0, uint32(connUpdate))
	}
	if streamUpdate > 0 && err == nil {
		err = cc.fr.WriteWindowUpdate(f.StreamID, uint32(streamUpdate))
	}
	if rst != http2.ErrCodeNo && err == nil {
		err = cc.fr.WriteRSTStream(f.StreamID, rst)
	}
	cc.unlockWrite()
	return err
}

// onSettings applies the server's settings and acknowledges them.
func (cc *clientConn) onSettings(f *http2.SettingsFrame) error {
	table, setTable := uint32(0), false
	cc.mu.Lock()
	for i := range f.NumSettings() {
		s := f.Setting(i)
		if err := s.Valid(); err != nil {
			cc.mu.Unlock()
			return fmt.Errorf("h2: the server's setting %v: %w", s, err)
		}
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.maxStreams = s.Val
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - int64(cc.initWindow)
			cc.initWindow = int32(s.Val)
			for _, st := range cc.streams {
				if st.sendWindow += delta; st.sendWindow > maxStreamID {
					cc.mu.Unlock()
					return fmt.Errorf("h2: the server's initial window overflows a stream's: %w", http2.ConnectionError(http2.ErrCodeFlowControl))
				}
			}
		case http2.SettingMaxFrameSize:
			cc.maxFrame = s.Val
		case http2.SettingHeaderTableSize:
			table, setTable = s.Val, true
		}
	}
	cc.wait.broadcast()
	cc.mu.Unlock()
	cc.lockWrite()
	if setTable {
		cc.henc.SetMaxDynamicTableSizeLimit(table)
		cc.blockKept = false // the next block may have to tell the new size
	}
	err := cc.fr.WriteSettingsAck()
	cc.unlockWrite()
	return err
}

// onWindowUpdate opens a send window: the connection's or a stream's.
func (cc *clientConn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	cc.mu.Lock()
	if f.StreamID == 0 {
		if cc.sendWindow += int64(f.Increment); cc.sendWindow > maxStreamID {
			cc.mu.Unlock()
			return fmt.Errorf("h2: the server's WINDOW_UPDATE overflows the connection's window: %w", http2.ConnectionError(http2.ErrCodeFlowControl))
		}
	} else if st := cc.streams[f.StreamID]; st != nil {
		if st.sendWindow += int64(f.Increment); st.sendWindow > maxStreamID {
			cc.mu.Unlock()
			cc.resetStream(f.StreamID, http2.ErrCodeFlowControl, protoError("the server's WINDOW_UPDATE overflows the stream's window"))
			return nil
		}
	}
	cc.wait.broadcast()
	cc.mu.Unlock()
	return nil
}
