package faults

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// NXDomain is a name server on 127.0.0.1 (UDP) that answers every question "no such name"
// (NXDOMAIN), and a Resolver that asks it and nothing else: a name that does not resolve, tested
// without a question leaving the machine whatever /etc/resolv.conf names. Close stops it and waits
// for its goroutine; it is also registered with the test's cleanup.
type NXDomain struct {
	Addr string // host:port, UDP
	// Resolver looks names up with Go's resolver (after /etc/hosts), every question sent to Addr.
	Resolver *net.Resolver

	pc        net.PacketConn
	wg        sync.WaitGroup
	questions atomic.Uint64
	once      sync.Once
}

// Questions returns the number of questions answered so far.
func (d *NXDomain) Questions() uint64 { return d.questions.Load() }

// NewNXDomain starts an NXDomain name server.
func NewNXDomain(tb testing.TB) *NXDomain {
	tb.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("faults: %v", err)
	}
	d := &NXDomain{Addr: pc.LocalAddr().String(), pc: pc}
	d.Resolver = &net.Resolver{
		PreferGo: true, // the cgo resolver would ask the servers of /etc/resolv.conf
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "udp", d.Addr) // whatever server and network it was to ask
		},
	}
	d.wg.Add(1)
	go d.serve()
	tb.Cleanup(d.Close)
	return d
}

// serve answers each question until the socket is closed.
func (d *NXDomain) serve() {
	defer d.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := d.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if ans, ok := nxdomain(buf[:n]); ok {
			d.questions.Add(1)
			_, _ = d.pc.WriteTo(ans, from)
		}
	}
}

// nxdomain makes the answer "no such name" to the query q: its id and question, recursion
// available, no records.
func nxdomain(q []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil || h.Response {
		return nil, false
	}
	question, err := p.Question()
	if err != nil {
		return nil, false
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError})
	if b.StartQuestions() != nil || b.Question(question) != nil {
		return nil, false
	}
	ans, err := b.Finish()
	return ans, err == nil
}

// Close stops the server and waits for its goroutine. Closing twice is harmless.
func (d *NXDomain) Close() {
	d.once.Do(func() { d.pc.Close() })
	d.wg.Wait()
}
