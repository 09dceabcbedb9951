package h2

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Sizes and windows of a connection.
const (
	readBufferSize  = 32 << 10
	writeBufferSize = 16 << 10
	// defaultStreamWindow and defaultConnWindow are the receive windows rpcbench gives each stream
	// (SETTINGS_INITIAL_WINDOW_SIZE) and the connection. Answers are read as they arrive, so
	// large windows cost nothing and spare the server waits and both sides WINDOW_UPDATE frames.
	defaultStreamWindow = 4 << 20
	defaultConnWindow   = 1 << 30
	// maxReadFrame is the largest frame accepted: SETTINGS_MAX_FRAME_SIZE's default, not changed.
	maxReadFrame = 16 << 10
	// maxHeaderBlock bounds an answer's header block: compressed (a longer one breaks the
	// connection) and decoded (a longer one fails its stream; advertised as
	// SETTINGS_MAX_HEADER_LIST_SIZE).
	maxHeaderBlock = 1 << 20
	// maxStreamID is the largest stream identifier; a connection that used it takes no more.
	maxStreamID = 1<<31 - 1
)

// clientConn is one HTTP/2 connection: requests leave their frames in its buffer under wmu, one
// goroutine (flushLoop) writes them to the server, another (readLoop) reads the server's frames
// and hands each answer to its stream.
type clientConn struct {
	nc           net.Conn
	rb           readBuf
	bw           *bufio.Writer
	fr           *http2.Framer
	streamWindow int32 // receive windows
	connWindow   int32
	ua           string // User-Agent unless the request has one
	scheme       string
	maxBody      int64
	keepBody     bool
	tooLarge     error
	grpc         bool // answers are gRPC's: their grpc-status, grpc-message and content-type are read

	retired    atomic.Bool   // takes no new streams: GOAWAY, broken, or out of stream identifiers
	readerDone chan struct{} // closed when readLoop returns

	// Writing, under wmu. Writers leave their frames in bw and wake flushLoop, which writes them
	// to the connection: concurrent requests share one write.
	wmu      sync.Mutex
	flushReq chan struct{} // wakes flushLoop; holds one value at most
	henc     *hpack.Encoder
	hbuf     bytes.Buffer
	stables  map[string]string // copies of request strings, which the encoder may keep
	lower    map[string]string // header names lower-cased, by their spelling in requests
	lowerBuf []byte            // a header name lower-cased when lower is full
	num      [20]byte          // digits of content-length
	block    []byte            // the last header block encoded, content-length aside
	blockKey []byte            // the fields of the request it encodes
	key      []byte            // the fields of the request being sent
	// blockKept says that block is an index per field, which changes neither side's HPACK
	// table, and may be sent again for a request with the same fields.
	blockKept bool

	// Reading: readLoop's alone.
	readAt    time.Time // when the last read from the connection returned bytes
	hdec      *hpack.Decoder
	hdr       headerBlock // the header block being decoded
	payload   []byte      // a HEADERS or CONTINUATION frame's payload
	recvAvail int64       // what the server may still send on the connection
	unacked   int32       // DATA read but not yet given back with a WINDOW_UPDATE

	mu         sync.Mutex
	streams    map[uint32]*stream
	nextID     uint32
	active     int             // streams open or reserved
	maxStreams uint32          // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	sendWindow int64           // the connection's window for request bodies
	initWindow int32           // the server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame   uint32          // the server's SETTINGS_MAX_FRAME_SIZE
	err        error           // why the connection broke; set once
	wait       signal          // requests waiting for a stream slot or send window
	watched    <-chan struct{} // the Done channel of the context watched (see watch)
	stopWatch  func() bool
}

// connConfig is what a connection takes from its Transport.
type connConfig struct {
	streamWindow, connWindow int32
	ua, scheme               string
	maxBody                  int64
	keepBody                 bool
	tooLarge                 error
	grpc                     bool
}

// newClientConn speaks HTTP/2 on nc: it sends the client preface and rpcbench's settings, reads
// the server's SETTINGS (the first frame it must send), acknowledges them and starts reading. It
// is bounded by ctx; on failure it closes nc.
func newClientConn(ctx context.Context, nc net.Conn, cfg connConfig) (*clientConn, error) {
	cc := &clientConn{
		nc:           nc,
		bw:           bufio.NewWriterSize(nc, writeBufferSize),
		streamWindow: cfg.streamWindow,
		connWindow:   cfg.connWindow,
		ua:           cfg.ua,
		scheme:       cfg.scheme,
		maxBody:      cfg.maxBody,
		keepBody:     cfg.keepBody,
		tooLarge:     cfg.tooLarge,
		grpc:         cfg.grpc,
		readerDone:   make(chan struct{}),
		flushReq:     make(chan struct{}, 1),
		stables:      map[string]string{},
		lower:        map[string]string{},
		streams:      map[uint32]*stream{},
		nextID:       1,
		maxStreams:   maxStreamID, // no limit until the server says one
		sendWindow:   65535,
		initWindow:   65535,
		maxFrame:     16 << 10,
		recvAvail:    int64(cfg.connWindow),
	}
	cc.rb = readBuf{cc: cc, buf: make([]byte, readBufferSize)}
	cc.fr = http2.NewFramer(cc.bw, &cc.rb)
	cc.fr.SetReuseFrames()
	cc.fr.SetMaxReadFrameSize(maxReadFrame)
	cc.henc = hpack.NewEncoder(&cc.hbuf)
	cc.hdec = hpack.NewDecoder(4096, cc.hdr.field)
	cc.hdec.SetMaxStringLength(maxHeaderBlock)
	if err := cc.handshake(ctx); err != nil {
		_ = nc.Close()
		return nil, err
	}
	go cc.readLoop()
	go cc.flushLoop()
	return cc, nil
}

// handshake exchanges the prefaces and settings, under ctx.
func (cc *clientConn) handshake(ctx context.Context) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = cc.nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = cc.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	_, _ = cc.bw.WriteString(http2.ClientPreface)
	_ = cc.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: uint32(cc.streamWindow)},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeaderBlock},
	)
	if cc.connWindow > 65535 {
		_ = cc.fr.WriteWindowUpdate(0, uint32(cc.connWindow-65535))
	}
	if err := cc.bw.Flush(); err != nil {
		return ctxErr(ctx, handshakeError{"h2: sending the client preface", err})
	}
	f, err := cc.fr.ReadFrame()
	if err != nil {
		return ctxErr(ctx, handshakeError{"h2: reading the server's settings", err})
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return fmt.Errorf("h2: the server's first frame is %v; want SETTINGS: %w", f.Header().Type, http2.ConnectionError(http2.ErrCodeProtocol))
	}
	if err := cc.onSettings(sf); err != nil {
		return err
	}
	if err := cc.bw.Flush(); err != nil {
		return ctxErr(ctx, fmt.Errorf("h2: acknowledging the server's settings: %w", err))
	}
	return cc.nc.SetDeadline(time.Time{})
}

// readBuf holds what was read from the connection and not yet taken by the Framer or readHeaders.
// Until readFrames streams the connection (see streamReader) its Read reads the connection when
// it holds nothing, noting in readAt when a read returned bytes: an answer's first byte arrived
// when the read that brought its headers returned, whatever else that read brought (one clock
// read per read, not one per answer).
type readBuf struct {
	cc     *clientConn
	buf    []byte
	r, w   int  // buf[r:w] is unread
	stream bool // readFrames streams the connection: Read has only what is in buf
}

// frameHeaderLen is the length of an HTTP/2 frame's header.
const frameHeaderLen = 9

func (b *readBuf) Read(p []byte) (int, error) {
	if b.r == b.w {
		if b.stream { // not reached: frames are read once whole in buf (see frameReady)
			return 0, io.ErrUnexpectedEOF
		}
		n, err := b.cc.nc.Read(b.buf)
		if n <= 0 {
			return 0, err
		}
		b.cc.readAt = time.Now()
		b.r, b.w = 0, n
	}
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	return n, nil
}

// space returns the room after the unread bytes, moving them to the start of buf first when less
// than a frame of the largest size accepted is left.
func (b *readBuf) space() []byte {
	if b.r == b.w {
		b.r, b.w = 0, 0
	} else if len(b.buf)-b.w < frameHeaderLen+maxReadFrame {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	return b.buf[b.w:]
}

// frameReady reports whether a whole frame is unread, or the header of one longer than accepted
// (which the Framer refuses without reading its payload).
func (b *readBuf) frameReady() bool {
	p := b.buf[b.r:b.w]
	if len(p) < frameHeaderLen {
		return false
	}
	n := int(p[0])<<16 | int(p[1])<<8 | int(p[2])
	return n > maxReadFrame || len(p) >= frameHeaderLen+n
}

// ctxErr returns ctx's error when ctx is done, else err.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// lockWrite takes the right to write frames.
func (cc *clientConn) lockWrite() { cc.wmu.Lock() }

// unlockWrite gives back the right to write frames, and has flushLoop send them.
func (cc *clientConn) unlockWrite() {
	cc.wmu.Unlock()
	select {
	case cc.flushReq <- struct{}{}:
	default: // flushLoop is woken already, and flushes after taking the lock
	}
}

// flushLoop writes the frames left in bw to the connection each time a writer wakes it, until the
// connection ends. Before it takes the write lock it lets the goroutines that are ready to run go
// first: the requests among them leave their frames too, and one write carries them all. (On one
// CPU, a closed loop's requests, woken together by a read that brought their answers, go out in
// one write instead of one each; a lone request waits for a goroutine switch.)
func (cc *clientConn) flushLoop() {
	for range cc.flushReq {
		select {
		case <-cc.readerDone: // readLoop wakes it when it ends
			return
		default:
		}
		runtime.Gosched()
		cc.wmu.Lock()
		err := cc.bw.Flush()
		cc.wmu.Unlock()
		if err != nil {
			cc.breakWith(writeError(err))
		}
	}
}

// writeError is the error of a failed write to the server.
func writeError(err error) error { return fmt.Errorf("h2: writing to the server: %w", err) }

// breakWith marks the connection broken by err (unless it already is) and closes it: readLoop
// then fails every stream.
func (cc *clientConn) breakWith(err error) {
	cc.mu.Lock()
	if cc.err == nil {
		cc.err = err
	}
	cc.retired.Store(true)
	cc.mu.Unlock()
	_ = cc.nc.Close()
}

// Close closes the connection; the streams on it fail with net.ErrClosed.
func (cc *clientConn) Close() error {
	return cc.nc.Close()
}

// usable reports whether a new request may go to cc.
func (cc *clientConn) usable() bool { return !cc.retired.Load() }

// retire stops new streams on cc. cc.mu is held.
func (cc *clientConn) retire() {
	cc.retired.Store(true)
	cc.wait.broadcast()
}

// signal wakes the goroutines waiting for something guarded by a mutex, which is held around
// each of its methods. Its zero value is ready; it allocates only when someone waits.
type signal struct {
	ch      chan struct{}
	waiting bool
}

// channel returns the channel that the next broadcast closes.
func (s *signal) channel() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	s.waiting = true
	return s.ch
}

// broadcast wakes every goroutine that waits on a channel got before.
func (s *signal) broadcast() {
	if s.waiting {
		close(s.ch)
		s.ch = nil
		s.waiting = false
	}
}

// errRetired is returned by roundTrip when the connection took no stream for the request: the
// request was not sent and may go on another connection. It is the request's error when the
// connections it tried all went away so.
var errRetired = errors.New("h2: the connection went away (GOAWAY, or broken) before the request was sent")
