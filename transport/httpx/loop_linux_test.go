package httpx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// testDriver starts its calls in order as connections free up and is done once every call has
// finished. next and prompt, when set, are what Wake returns besides.
type testDriver struct {
	l        *Loop
	pending  []*Call
	finished []*Call
	want     int
	prompt   bool
	promptIf func() bool // when set, what Wake returns as prompt
	next     func(now time.Time) time.Time
	ready    func() bool // when set, calls start only once it returns true
	onFinish func(c *Call)
	wakes    int
	flat     bool // the Loop is made with prompt: answers always wake it
	setup    func(l *Loop)
}

func (d *testDriver) Wake(now time.Time) (time.Time, bool, bool) {
	d.wakes++
	for len(d.pending) > 0 && (d.ready == nil || d.ready()) {
		if !d.l.Start(d.pending[0], time.Now()) {
			break
		}
		d.pending = d.pending[1:]
	}
	var next time.Time
	if d.next != nil {
		next = d.next(now)
	}
	prompt := d.prompt
	if d.promptIf != nil {
		prompt = d.promptIf()
	}
	return next, prompt, len(d.finished) >= d.want
}

func (d *testDriver) Finished(c *Call) {
	d.finished = append(d.finished, c)
	if d.onFinish != nil {
		d.onFinish(c)
	}
}

// bothWaits runs test with the connections in a wait set of their own, added to the Loop's while
// answers must wake it (the open model's), and in the Loop's wait set itself (the closed model's).
func bothWaits(t *testing.T, test func(t *testing.T, flat bool)) {
	t.Parallel()
	for _, flat := range []bool{false, true} {
		name := "nested"
		if flat {
			name = "flat"
		}
		t.Run(name, func(t *testing.T) { test(t, flat) })
	}
}

// runLoop runs d on a new Loop of conns connections to host until it is done, within 20 s.
func runLoop(t *testing.T, opts Options, host string, conns int, d *testDriver) {
	t.Helper()
	l, err := NewLoop(opts, "http", host, conns, d.flat)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d.l = l
	if d.setup != nil {
		d.setup(l)
	}
	if d.want == 0 {
		d.want = len(d.pending)
	}
	done := make(chan error, 1)
	go func() { done <- l.Run(d) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		l.Wakeup()
		t.Fatalf("the loop did not finish within 20s: %d of %d calls finished", len(d.finished), d.want)
	}
}

func loopGet(host, path string) *Call {
	return &Call{Req: transport.Request{Method: "GET", Scheme: "http", Host: host, Path: []byte(path)}}
}

// countingServer answers every request with 200 and a body that is the request's number on its
// connection ("1", "2", …), and counts the bytes of the requests it read.
type countingServer struct {
	*rawServer
	requests atomic.Int64
	read     atomic.Int64 // bytes of request heads and bodies
}

func startCounting(t *testing.T) *countingServer {
	s := &countingServer{}
	s.rawServer = startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head []byte
		for n := 1; ; n++ {
			var err error
			head, err = readRequest(br, head[:0])
			if err != nil {
				return
			}
			s.read.Add(int64(len(head)))
			s.requests.Add(1)
			body := strconv.Itoa(n)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}
	})
	t.Cleanup(s.Close)
	return s
}

// Calls on a Loop come back answered, with the bytes each way that the server saw and sent,
// on connections reused from call to call.
func TestLoopRoundTrips(t *testing.T) { bothWaits(t, testLoopRoundTrips) }

func testLoopRoundTrips(t *testing.T, flat bool) {
	srv := startCounting(t)
	d := &testDriver{flat: flat, prompt: true}
	for range 20 {
		d.pending = append(d.pending, loopGet(srv.Host(), "/a"))
	}
	runLoop(t, Options{KeepBody: true}, srv.Host(), 2, d)
	if got := srv.accepted.Load(); got != 2 {
		t.Errorf("the server accepted %d connections; want 2, reused", got)
	}
	if got := srv.requests.Load(); got != 20 {
		t.Errorf("the server read %d requests; want 20", got)
	}
	opened, bodies, out := 0, 0, int64(0)
	for _, c := range d.finished {
		o := &c.Out
		if !o.Answered || o.Status != 200 || o.Class != result.OK {
			t.Fatalf("call: answered %v, status %d, class %v, err %v; want a 200", o.Answered, o.Status, o.Class, o.Err)
		}
		n, _ := strconv.Atoi(string(o.Body))
		bodies += n
		// "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n" is 38 bytes, then the number
		if want := int64(38 + len(o.Body)); o.BytesIn != want {
			t.Errorf("BytesIn %d; want %d", o.BytesIn, want)
		}
		out += o.BytesOut
		if o.Opened {
			opened++
		}
		if o.Sent.IsZero() || o.FirstByte.Before(o.Sent) || c.Done.Before(o.FirstByte) {
			t.Errorf("times out of order: sent %v, first byte %v, done %v", o.Sent, o.FirstByte, c.Done)
		}
	}
	if opened != 2 {
		t.Errorf("%d calls opened a connection; want 2", opened)
	}
	// two connections, each answering 1, 2, … 10 (in some split): the numbers sum to 2 × 55 when
	// the split is even, and in any split to the sum of 1..k and 1..(20-k)
	if bodies < 110 || bodies > 191 {
		t.Errorf("the answers' numbers sum to %d: not the answers of 20 requests on 2 connections", bodies)
	}
	if got := srv.read.Load(); out != got {
		t.Errorf("BytesOut sums to %d; the server read %d", out, got)
	}
}

// Answers of several megabytes, in a fixed length and chunked, come back whole, in many reads.
func TestLoopLargeAnswers(t *testing.T) { bothWaits(t, testLoopLargeAnswers) }

func testLoopLargeAnswers(t *testing.T, flat bool) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB
	srv := startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			head, err := readRequest(br, nil)
			if err != nil {
				return
			}
			if bytes.HasPrefix(head, []byte("GET /chunked ")) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
				for p := payload; len(p) > 0; {
					n := min(len(p), 1000) // small chunks: a pass per read would be many
					fmt.Fprintf(c, "%x\r\n%s\r\n", n, p[:n])
					p = p[n:]
				}
				io.WriteString(c, "0\r\n\r\n")
				continue
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(payload))
			for p := payload; len(p) > 0; p = p[min(len(p), 65536):] {
				c.Write(p[:min(len(p), 65536)])
			}
		}
	})
	t.Cleanup(srv.Close)
	d := &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(srv.Host(), "/fixed"), loopGet(srv.Host(), "/chunked"), loopGet(srv.Host(), "/fixed")}}
	runLoop(t, Options{KeepBody: true, MaxBody: 8 << 20}, srv.Host(), 1, d)
	// Answers of 3 MiB come in tens of reads or more: parsing them from their start at each
	// read would cost the square of their length.
	if d.l.parses > 12 {
		t.Errorf("%d passes of the parser for 3 answers; want a few, not one a read", d.l.parses)
	}
	for i, c := range d.finished {
		if c.Out.Class != result.OK || !bytes.Equal(c.Out.Body, payload) {
			t.Errorf("call %d: class %v (%v), body of %d bytes; want the %d bytes sent", i, c.Out.Class, c.Out.Err, len(c.Out.Body), len(payload))
		}
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Errorf("the server accepted %d connections; want 1", got)
	}
}

// Bytes that the server writes to an idle connection (here a second answer nobody asked for) are
// never taken for the next request's answer: that request goes on a new connection.
func TestLoopStrayBytesOnIdleConnection(t *testing.T) {
	bothWaits(t, testLoopStrayBytesOnIdleConnection)
}

func testLoopStrayBytesOnIdleConnection(t *testing.T, flat bool) {
	for _, later := range []bool{false, true} {
		// later: the stray answer comes once the connection is idle; otherwise right behind the
		// first answer, in the same write.
		answered, strayed := make(chan struct{}), make(chan struct{})
		var accepted atomic.Int32
		srv := startRaw(t, func(c net.Conn) {
			first := accepted.Add(1) == 1
			br := bufio.NewReader(c)
			for n := 1; ; n++ {
				if _, err := readRequest(br, nil); err != nil {
					return
				}
				answer := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nreq%d", n)
				const stray = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray"
				switch {
				case n > 1 || !first:
					io.WriteString(c, answer)
				case !later:
					io.WriteString(c, answer+stray)
				default:
					io.WriteString(c, answer)
					<-answered // the client has the answer: the connection is idle now
					io.WriteString(c, stray)
					close(strayed)
				}
			}
		})
		d := &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(srv.Host(), "/"), loopGet(srv.Host(), "/")}}
		d.onFinish = func(c *Call) {
			if len(d.finished) == 1 && later {
				close(answered)
				go func() { <-strayed; d.l.Wakeup() }()
			}
		}
		// The second call starts once the Loop has let go of the first connection: a Loop that
		// kept it would never start it (and the test would fail on its bound).
		d.ready = func() bool { return len(d.pending) == 2 || len(d.l.idle) == 0 }
		runLoop(t, Options{KeepBody: true}, srv.Host(), 1, d)
		srv.Close()
		if got := string(d.finished[1].Out.Body); got != "req1" {
			t.Errorf("later %v: the second call's answer is %q; want req1, the answer of a new connection's first request", later, got)
		}
		if !d.finished[1].Out.Opened || srv.accepted.Load() != 2 {
			t.Errorf("later %v: the second call opened a connection: %v, %d accepted; want it on a second connection", later, d.finished[1].Out.Opened, srv.accepted.Load())
		}
	}
}

// A request on a reused connection that the server closes without answering is sent again on a
// new connection when it is idempotent, and fails as Transport fails it otherwise.
func TestLoopRetriesOnClosedConnection(t *testing.T) { bothWaits(t, testLoopRetriesOnClosedConnection) }

func testLoopRetriesOnClosedConnection(t *testing.T, flat bool) {
	srv := startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for n := 1; ; n++ {
			if _, err := readRequest(br, nil); err != nil {
				return
			}
			if n == 2 {
				return // closes the connection without answering its second request
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	t.Cleanup(srv.Close)
	post := loopGet(srv.Host(), "/")
	post.Req.Method = "POST"
	d := &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(srv.Host(), "/"), loopGet(srv.Host(), "/"), loopGet(srv.Host(), "/"), post}}
	runLoop(t, Options{}, srv.Host(), 1, d)
	g := d.finished[1]
	if g.Out.Class != result.OK || g.Out.Retried != 1 || !g.Out.Opened {
		t.Errorf("the GET closed on: class %v (%v), retried %d, opened %v; want OK, retried once on a new connection", g.Out.Class, g.Out.Err, g.Out.Retried, g.Out.Opened)
	}
	// The POST is the second request of the second connection: the same as Transport's.
	tr := newTransport(t, Options{})
	var want transport.Outcome
	for range 2 {
		want.Reset()
		tr.Do(t.Context(), &transport.Request{Method: "POST", Scheme: "http", Host: srv.Host(), Path: []byte("/")}, &want)
	}
	p := d.finished[3]
	if p.Out.Class != want.Class || p.Out.Retried != 0 || p.Out.Err == nil || p.Out.Err.Error() != want.Err.Error() {
		t.Errorf("the POST closed on: class %v, retried %d, err %v; want Transport's: class %v, err %v", p.Out.Class, p.Out.Retried, p.Out.Err, want.Class, want.Err)
	}
}

// A server that never answers makes the call fail at its deadline with class Timeout; one that
// refuses connections makes it fail unsent, with the failed connection described.
func TestLoopTimeoutAndRefused(t *testing.T) { bothWaits(t, testLoopTimeoutAndRefused) }

func testLoopTimeoutAndRefused(t *testing.T, flat bool) {
	srv, _ := stallServer(t)
	t.Cleanup(srv.Close)
	d := &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(srv.Host(), "/slow")}}
	start := time.Now()
	runLoop(t, Options{Timeout: 150 * time.Millisecond}, srv.Host(), 1, d)
	c := d.finished[0]
	// the timeout counts from the call's start, the connection's opening included
	if c.Out.Class != result.Timeout || c.Done.Sub(start) < 150*time.Millisecond || c.Out.Sent.IsZero() {
		t.Errorf("class %v (%v) after %v, sent %v; want a timeout after at least 150ms, the request sent", c.Out.Class, c.Out.Err, c.Done.Sub(start), !c.Out.Sent.IsZero())
	}
	// as Transport says it: "httpx: reading the answer: read tcp LOCAL->REMOTE: i/o timeout"
	if msg := fmt.Sprint(c.Out.Err); !strings.Contains(msg, "->"+srv.Host()+": i/o timeout") {
		t.Errorf("the timeout reads %q; want the connection's addresses in it, as Transport gives them", msg)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close() // nothing listens there now
	d = &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(host, "/")}}
	runLoop(t, Options{}, host, 1, d)
	c = d.finished[0]
	if c.Out.Class != result.Refused || !c.Out.Opened || !c.Out.Conn.Failed || !c.Out.Sent.IsZero() {
		t.Errorf("class %v (%v), opened %v, failed %v, sent %v; want refused, unsent, the connection failed", c.Out.Class, c.Out.Err, c.Out.Opened, c.Out.Conn.Failed, c.Out.Sent)
	}
}

// A request larger than the socket's buffers goes out whole (the Loop waits for room), and Abort
// ends a call in flight as canceled.
func TestLoopLargeRequestAndAbort(t *testing.T) { bothWaits(t, testLoopLargeRequestAndAbort) }

func testLoopLargeRequestAndAbort(t *testing.T, flat bool) {
	srv, started := stallServer(t)
	t.Cleanup(srv.Close)
	body := bytes.Repeat([]byte("x"), 16<<20)
	big := &Call{Req: transport.Request{Method: "GET", Scheme: "http", Host: srv.Host(), Path: []byte("/fast"), Body: body}}
	hold := loopGet(srv.Host(), "/hold")
	d := &testDriver{flat: flat, prompt: true, pending: []*Call{big, hold}}
	var held atomic.Bool
	bigOut := 0
	d.onFinish = func(c *Call) {
		if c == big {
			bigOut = cap(d.l.slots[0].out)
			go func() { <-started; held.Store(true); d.l.Wakeup() }()
		}
	}
	d.ready = func() bool { return len(d.pending) == 2 || len(d.finished) == 1 }
	aborted := false
	runLoopAborting(t, srv.Host(), d, func() bool {
		if !aborted && held.Load() {
			aborted = true
			return true
		}
		return false
	})
	if big.Out.Class != result.OK || big.Out.BytesOut < int64(len(body)) {
		t.Errorf("the large request: class %v (%v), %d bytes out; want OK, more than its %d-byte body", big.Out.Class, big.Out.Err, big.Out.BytesOut, len(body))
	}
	if hold.Out.Class != result.Canceled || !errors.Is(hold.Out.Err, errAbortTest) {
		t.Errorf("the held request: class %v, err %v; want canceled by the abort", hold.Out.Class, hold.Out.Err)
	}
	// the 16 MiB body went out from the request itself, not from a copy the connection keeps
	if bigOut > 1<<20 {
		t.Errorf("the connection held a buffer of %d bytes for the large request; want the body written from the request", bigOut)
	}
}

// An answer read at the next wake-up, long after it came, is timed by when it came (the kernel's
// receive timestamp), not by when it was read.
func TestLoopLateReadKeepsArrivalTime(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var wrote time.Time
	srv := startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := readRequest(br, nil); err != nil {
				return
			}
			mu.Lock()
			wrote = time.Now()
			mu.Unlock()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	t.Cleanup(srv.Close)
	// A first call opens the connection (its dial wakes the Loop); the second goes on it, and the
	// Loop is asked to wake only 400ms later, with answers left to wait.
	var finishedAt time.Time
	var second time.Time
	d := &testDriver{pending: []*Call{loopGet(srv.Host(), "/"), loopGet(srv.Host(), "/")}}
	d.ready = func() bool { return len(d.pending) == 2 || len(d.finished) == 1 }
	d.next = func(now time.Time) time.Time {
		if len(d.finished) == 1 && second.IsZero() && len(d.pending) == 0 {
			second = now.Add(400 * time.Millisecond)
		}
		if second.IsZero() {
			return time.Time{}
		}
		return second
	}
	d.promptIf = func() bool { return len(d.finished) == 0 } // the first answer wakes the Loop
	d.onFinish = func(*Call) { finishedAt = time.Now() }
	d.setup = func(l *Loop) { l.horizon, l.answers = time.Hour, lazyLearn } // small answers, learnt
	runLoop(t, Options{}, srv.Host(), 1, d)
	c := d.finished[1]
	mu.Lock()
	w := wrote
	mu.Unlock()
	if c.Out.Class != result.OK {
		t.Fatalf("class %v (%v)", c.Out.Class, c.Out.Err)
	}
	if finishedAt.Sub(w) < 300*time.Millisecond {
		t.Skipf("the answer was read %v after it was written: not late enough to tell (a busy machine)", finishedAt.Sub(w))
	}
	if c.Done.Before(w.Add(-time.Millisecond)) || c.Done.Sub(w) > 100*time.Millisecond {
		t.Errorf("done %v after the server wrote the answer, read %v after; want the arrival, within 100ms of the write", c.Done.Sub(w), finishedAt.Sub(w))
	}
}

// An answer too large to wait in the socket's buffer (the server then waits for the read) is read as
// it comes whenever the next wake-up is far; and once one was read in pieces, answers wake the Loop.
func TestLoopLargeAnswerIsNotReadLate(t *testing.T) {
	t.Parallel()
	payload := bytes.Repeat([]byte("z"), 3<<20)
	srv := startRaw(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := readRequest(br, nil); err != nil {
				return
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(payload), payload)
		}
	})
	t.Cleanup(srv.Close)
	for _, learnt := range []bool{false, true} {
		// learnt: small answers were seen and the horizon is long, so that the first large answer
		// is read late (the surprise the horizon bounds); the next must not be.
		var calls []*Call
		for range 3 {
			calls = append(calls, loopGet(srv.Host(), "/"))
		}
		d := &testDriver{pending: calls}
		d.ready = func() bool { return len(d.pending) == 3 || len(d.finished) == 3-len(d.pending) }
		var wake time.Time
		d.next = func(now time.Time) time.Time {
			if wake.IsZero() || !now.Before(wake) {
				wake = now.Add(300 * time.Millisecond)
			}
			return wake
		}
		d.promptIf = func() bool { return len(d.finished) == 0 }
		if learnt {
			d.setup = func(l *Loop) { l.horizon, l.answers = time.Hour, lazyLearn }
		}
		runLoop(t, Options{}, srv.Host(), 1, d)
		last := d.finished[2]
		if s := last.Done.Sub(last.Out.Sent); last.Out.Class != result.OK || s > 150*time.Millisecond {
			t.Errorf("learnt %v: the last 3 MiB answer: class %v, service time %v; want it read as it came, well under the 300ms to the next wake-up", learnt, last.Out.Class, s)
		}
		if !d.l.big {
			t.Errorf("learnt %v: the Loop did not see the large answers", learnt)
		}
	}
}

// A call cut while its connection is being opened counts the opening as failed, as Transport counts
// a dial cut short.
func TestLoopAbortWhileOpening(t *testing.T) {
	t.Parallel()
	srv := startCounting(t)
	d := &testDriver{pending: []*Call{loopGet(srv.Host(), "/")}, prompt: true}
	aborted := false
	runLoopAborting(t, srv.Host(), d, func() bool {
		// the first Wake starts the call (its dial goes on another goroutine); the next cuts it
		if d.wakes == 1 && !aborted {
			aborted = true
			return true
		}
		return false
	})
	c := d.finished[0]
	if c.Out.Class != result.Canceled || !c.Out.Opened || !c.Out.Conn.Failed {
		t.Errorf("class %v, opened %v, failed %v; want canceled, its connection counted as failed to open", c.Out.Class, c.Out.Opened, c.Out.Conn.Failed)
	}
}

// An answer that streams in over many reads ends when its last packet came, not when the Loop
// began reading it.
func TestLoopStreamedAnswerEndsWithItsLastPacket(t *testing.T) {
	bothWaits(t, func(t *testing.T, flat bool) {
		payload := bytes.Repeat([]byte("s"), 32<<20)
		var mu sync.Mutex
		var began, wrote time.Time
		srv := startRaw(t, func(c net.Conn) {
			br := bufio.NewReader(c)
			for {
				if _, err := readRequest(br, nil); err != nil {
					return
				}
				mu.Lock()
				began = time.Now()
				mu.Unlock()
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(payload))
				c.Write(payload) // returns once at most a send buffer's worth is left to deliver
				mu.Lock()
				wrote = time.Now()
				mu.Unlock()
			}
		})
		t.Cleanup(srv.Close)
		d := &testDriver{flat: flat, prompt: true, pending: []*Call{loopGet(srv.Host(), "/")}}
		d.setup = func(l *Loop) { l.budget = 1 << 40 } // one read goes on as long as bytes come
		runLoop(t, Options{}, srv.Host(), 1, d)
		c := d.finished[0]
		mu.Lock()
		b, w := began, wrote
		mu.Unlock()
		if c.Out.Class != result.OK {
			t.Fatalf("class %v (%v)", c.Out.Class, c.Out.Err)
		}
		// 32 MiB through a send buffer of at most a few: the last packet comes after the first
		// three quarters of the writing
		if low := b.Add(w.Sub(b) * 3 / 4); c.Done.Before(low) {
			t.Errorf("done %v after the server began writing, which took %v; want the last packet's arrival, after %v", c.Done.Sub(b), w.Sub(b), low.Sub(b))
		}
	})
}

// An endless answer does not hold the Loop: the next call starts when it is due, and the endless
// one times out at its deadline.
func TestLoopEndlessAnswerDoesNotHoldTheLoop(t *testing.T) {
	bothWaits(t, func(t *testing.T, flat bool) {
		block := bytes.Repeat([]byte("e"), 1<<20)
		srv := startRaw(t, func(c net.Conn) {
			br := bufio.NewReader(c)
			head, err := readRequest(br, nil)
			if err != nil {
				return
			}
			if bytes.HasPrefix(head, []byte("GET /endless ")) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
				for { // until the client closes the connection
					if _, err := c.Write(block); err != nil {
						return
					}
				}
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			readRequest(br, nil)
		})
		t.Cleanup(srv.Close)
		endless, quick := loopGet(srv.Host(), "/endless"), loopGet(srv.Host(), "/quick")
		d := &testDriver{flat: flat, prompt: true, pending: []*Call{endless, quick}}
		var due time.Time
		d.ready = func() bool {
			if len(d.pending) == 2 {
				return true
			}
			return !due.IsZero() && !time.Now().Before(due)
		}
		d.next = func(now time.Time) time.Time {
			if due.IsZero() {
				due = now.Add(50 * time.Millisecond) // the quick call is due 50ms after the endless one
			}
			if len(d.pending) > 0 {
				return due
			}
			return time.Time{}
		}
		d.setup = func(l *Loop) { l.budget = 1 } // every read that fills its room ends the turn
		runLoop(t, Options{Timeout: 2 * time.Second}, srv.Host(), 2, d)
		if d.l.turns == 0 {
			t.Errorf("no read stopped at its budget; want the endless answer read in turns")
		}
		if endless.Out.Class != result.Timeout {
			t.Errorf("the endless answer: class %v (%v); want a timeout", endless.Out.Class, endless.Out.Err)
		}
		if quick.Out.Class != result.OK || !quick.Out.Sent.Before(endless.Done) {
			t.Errorf("the quick call: class %v, sent %v after the endless one ended; want it answered, sent while the endless one streamed", quick.Out.Class, quick.Out.Sent.Sub(endless.Done))
		}
	})
}

// A packet stamped after the Loop last read the clock (an answer streaming in while the Loop reads
// it) is timed by its stamp, carried through a clock read again, not by the old reading.
func TestLoopStampLaterThanItsClock(t *testing.T) {
	t.Parallel()
	l := &Loop{}
	l.now = time.Now().Add(-time.Second)
	l.wall = l.now.UnixNano()
	before := time.Now()
	h := (*unix.Cmsghdr)(unsafe.Pointer(&l.oob[0]))
	h.Level, h.Type = unix.SOL_SOCKET, unix.SCM_TIMESTAMPNS
	h.SetLen(unix.CmsgLen(16))
	*(*unix.Timespec)(unsafe.Pointer(&l.oob[unix.SizeofCmsghdr])) = unix.NsecToTimespec(before.UnixNano())
	l.msg.SetControllen(unix.CmsgSpace(16))
	got := l.stamp()
	if got.Before(before.Add(-time.Millisecond)) || got.After(time.Now()) {
		t.Errorf("stamp %v from the packet's time; want it (within a millisecond of the clocks)", got.Sub(before))
	}
	if !l.stamping {
		t.Error("a stamped packet did not count as stamped")
	}
}

// Calls whose connection was refused are finished once: a cut afterwards finds nothing of them, and
// the Loop ends (it once finished them again, counted fewer than no calls in flight, and never
// returned).
func TestLoopAbortAfterRefusedCalls(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close() // nothing listens there now
	d := &testDriver{prompt: true, pending: []*Call{loopGet(host, "/"), loopGet(host, "/")}}
	d.flat = false
	aborted := false
	runLoopAborting(t, host, d, func() bool {
		if len(d.finished) == 2 && !aborted {
			aborted = true
			return true
		}
		return false
	})
	if len(d.finished) != 2 || d.finished[0] == d.finished[1] || d.l.busy != 0 {
		t.Errorf("%d calls finished (%v), %d in flight; want each of the 2 once, none in flight", len(d.finished), d.finished, d.l.busy)
	}
	for _, c := range d.finished {
		if c.Out.Class != result.Refused {
			t.Errorf("class %v (%v); want refused, not canceled by the cut after it", c.Out.Class, c.Out.Err)
		}
	}
}

// A call whose connection took a while to open keeps its deadline: a turn of expire that looked
// past it while it connected does not push its timeout back.
func TestLoopDeadlineAfterTheConnectionOpened(t *testing.T) {
	t.Parallel()
	srv, _ := stallServer(t) // never answers
	t.Cleanup(srv.Close)
	c := loopGet(srv.Host(), "/slow")
	d := &testDriver{prompt: true, pending: []*Call{c}}
	start := time.Now()
	d.next = func(time.Time) time.Time {
		if d.l.busy == 1 && c.conn != nil && c.conn.state == slotDialing {
			// what a turn of expire while the connection opens leaves: the next deadline it
			// knows an hour away
			d.l.earliest = time.Now().Add(time.Hour)
		}
		return time.Time{}
	}
	runLoop(t, Options{Timeout: 300 * time.Millisecond}, srv.Host(), 1, d)
	if c.Out.Class != result.Timeout || c.Done.Sub(start) > 5*time.Second {
		t.Errorf("class %v after %v; want a timeout at about 300ms", c.Out.Class, c.Done.Sub(start))
	}
}

var errAbortTest = errors.New("aborted by the test")

// runLoopAborting runs d on one connection to host, aborting the calls in flight when abort says so.
func runLoopAborting(t *testing.T, host string, d *testDriver, abort func() bool) {
	t.Helper()
	l, err := NewLoop(Options{}, "http", host, 1, d.flat)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d.l, d.want = l, len(d.pending)
	ad := &abortingDriver{testDriver: d, abort: abort}
	done := make(chan error, 1)
	go func() { done <- l.Run(ad) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the loop did not finish within 20s")
	}
}

type abortingDriver struct {
	*testDriver
	abort func() bool
}

func (a *abortingDriver) Wake(now time.Time) (time.Time, bool, bool) {
	if a.abort() {
		a.l.Abort(errAbortTest)
	}
	return a.testDriver.Wake(now)
}

// recordDriver keeps the calls that finished.
type recordDriver struct{ finished []*Call }

func (d *recordDriver) Wake(time.Time) (time.Time, bool, bool) { return time.Time{}, true, true }
func (d *recordDriver) Finished(c *Call)                       { d.finished = append(d.finished, c) }

// The Loop reads an answer that comes in any pieces, its body kept or not (a body not kept is
// read as it comes, by a reader of its own), as the parser reads it whole: the same status and
// length, the same failures, and the connection reused only when nothing follows the answer.
func FuzzLoopReadsAsTheParser(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n folded\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX: 1\r\n folded\r\nbad line\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("0", 5000) + "1\r\nx\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 3\r\n\r\n1\r\nx\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw bytes",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nab",
		"HTTP/1.1 2",
		"",
	} {
		f.Add([]byte(s), uint64(0), false)
		f.Add([]byte(s), uint64(0x9e3779b97f4a7c15), false)
		f.Add([]byte(s), uint64(12345), true)
	}
	f.Fuzz(func(t *testing.T, answer []byte, cuts uint64, keep bool) {
		const maxBody = 1 << 10
		want, werr := readResponse(bufio.NewReaderSize(bytes.NewReader(answer), readBufferSize), false, keep, maxBody, nil)

		d := &recordDriver{}
		l, err := NewLoop(Options{KeepBody: keep, MaxBody: maxBody}, "http", "127.0.0.1:1", 1, true)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		l.driver = d
		c := &Call{Req: transport.Request{Method: "GET"}}
		lc := l.free[len(l.free)-1]
		l.free = l.free[:0]
		lc.state, lc.call, l.busy = slotBusy, c, 1
		c.deadline = time.Now().Add(time.Hour)
		// deliver the answer in pieces of 1 to 64 bytes, as cuts says, then the end of the stream
		b := answer
		for len(b) > 0 && len(d.finished) == 0 {
			n := int(cuts%64) + 1
			cuts = cuts/64 + cuts*7 + 1
			n = min(n, len(b))
			piece := b[:n]
			b = b[n:]
			if lc.stream != bodyNone {
				l.feed(lc, piece)
				continue
			}
			lc.in = append(lc.in, piece...)
			l.parse(lc)
		}
		if len(d.finished) == 0 {
			l.ended(lc) // what read does at the end of the stream
		}
		if len(d.finished) != 1 {
			t.Fatalf("%d calls finished; want 1", len(d.finished))
		}
		o := &c.Out
		if werr != nil {
			if o.Answered || o.Class == result.OK {
				t.Fatalf("the parser fails (%v); the Loop answered %d", werr, o.Status)
			}
			if pe := (*ProtocolError)(nil); errors.As(werr, &pe) && (o.Class != result.Protocol || o.Err.Error() != pe.Error()) {
				t.Fatalf("the parser fails with %q; the Loop with class %v: %v", pe, o.Class, o.Err)
			}
			if errors.Is(werr, ErrBodyTooLarge) && o.Class != result.TooLarge {
				t.Fatalf("the parser finds the body too large; the Loop fails with class %v: %v", o.Class, o.Err)
			}
			return
		}
		if !o.Answered || o.Status != want.status || o.BytesIn != want.n {
			t.Fatalf("the parser reads status %d in %d bytes; the Loop: answered %v, status %d in %d bytes (%v)", want.status, want.n, o.Answered, o.Status, o.BytesIn, o.Err)
		}
		if keep && !bytes.Equal(o.Body, want.body) {
			t.Fatalf("the parser keeps body %q; the Loop %q", want.body, o.Body)
		}
		// bytes that come after the call finished find the connection idle: it is dropped then
		// (TestLoopStrayBytesOnIdleConnection)
		reused := lc.state == slotIdle && len(b) == 0
		if wantReuse := !want.close && int64(len(answer)) == want.n; reused != wantReuse {
			t.Fatalf("connection reused %v; want %v (close %v, %d bytes after the answer)", reused, wantReuse, want.close, int64(len(answer))-want.n)
		}
	})
}
