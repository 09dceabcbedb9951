package faults_test

import (
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/result"
)

// An HTTP/3 server that drops UDP from the start: every request fails with class quic-handshake,
// before sending.
func TestFaultH3DropsUDP(t *testing.T) {
	t.Parallel()
	s := faults.NewH3(t, 0, nil)
	s.Drop()
	p := faultPlan("https://"+s.Addr+"/", 20, time.Second, limit)
	p.Protocol, p.HTTP.Insecure = result.H3, true
	o := run(t, p, 20, result.QUICHandshake)
	every(t, o, result.QUICHandshake)
	if tot := o.res.Total.Total(); tot.Sent != 0 {
		t.Errorf("sent %d; want none: no handshake completed", tot.Sent)
	}
	s.Close()
}

// An HTTP/3 server that answers 10 requests and then drops every packet: the 10 requests after
// are sent on the open connection and time out (its peer gone silent is all the client sees).
func TestFaultH3StopsAnswering(t *testing.T) {
	t.Parallel()
	s := faults.NewH3(t, 10, nil)
	p := faultPlan("https://"+s.Addr+"/", 20, time.Second, limit)
	p.Protocol, p.HTTP.Insecure = result.H3, true
	o := run(t, p, 20, result.Timeout)
	if tot := o.res.Total.Total(); tot.OK != 10 || tot.Errors[result.Timeout] != 10 || tot.Sent != 20 || s.Answered() != 10 {
		t.Errorf("ok %d, timeouts %d, sent %d, server answered %d; want 10 ok, 10 timeouts, 20 sent, 10 answered", tot.OK, tot.Errors[result.Timeout], tot.Sent, s.Answered())
	}
	s.Close()
}
