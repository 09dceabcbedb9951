package transport_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
	_ "github.com/rpcbench/rpcbench/transport/protocols"
)

func TestProtocolFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scheme string
		want   transport.Protocol
	}{
		{"http", transport.HTTP1}, {"https", transport.HTTP1}, {"HTTP", transport.HTTP1},
		{"ws", transport.WS}, {"wss", transport.WS}, {"grpc", transport.GRPC}, {"grpcs", transport.GRPC},
		{"ftp", ""}, {"", ""},
	} {
		got, err := transport.ProtocolFor(tc.scheme)
		if got != tc.want || (tc.want == "") != errors.Is(err, transport.ErrNoTransport) {
			t.Errorf("ProtocolFor(%q) = %q, %v; want %q", tc.scheme, got, err, tc.want)
		}
	}
}

func TestProtocolServesAndSuccess(t *testing.T) {
	t.Parallel()
	serves := []struct {
		p      transport.Protocol
		scheme string
		want   bool
	}{
		{transport.HTTP1, "https", true}, {transport.H2, "https", true}, {transport.H2, "http", false},
		{transport.H2C, "http", true}, {transport.H2C, "https", false}, {transport.WS, "http", false},
		{transport.WS, "WSS", true}, {"spdy", "https", false},
	}
	for _, tc := range serves {
		if got := tc.p.Serves(tc.scheme); got != tc.want {
			t.Errorf("%s serves %s: %v; want %v", tc.p, tc.scheme, got, tc.want)
		}
	}
	success := []struct {
		p      transport.Protocol
		status int
		want   bool
	}{
		{transport.HTTP1, 200, true}, {transport.HTTP1, 399, true}, {transport.HTTP1, 199, false},
		{transport.HTTP1, 400, false}, {transport.H2, 500, false}, {"", 204, true},
		{transport.WS, 101, true}, {transport.WS, 200, false}, {transport.GRPC, 0, true}, {transport.GRPC, 14, false},
	}
	for _, tc := range success {
		if got := tc.p.Success(tc.status); got != tc.want {
			t.Errorf("%q success of %d: %v; want %v", tc.p, tc.status, got, tc.want)
		}
	}
}

// New makes the registered protocols' transports and names what the build has when asked for
// one it lacks.
func TestNew(t *testing.T) {
	t.Parallel()
	for _, p := range []transport.Protocol{transport.HTTP1, transport.H2, transport.H2C, transport.H3, transport.WS, transport.GRPC} {
		tr, err := transport.New(p, transport.Config{Conns: 1})
		if err != nil {
			t.Fatalf("New(%s): %v", p, err)
		}
		tr.Close()
	}
	_, err := transport.New("spdy", transport.Config{})
	if !errors.Is(err, transport.ErrNoTransport) || !strings.Contains(err.Error(), `protocol "spdy" (this build has grpc, h2, h2c, h3, http1, ws)`) {
		t.Errorf("New(spdy): %v; want ErrNoTransport naming the protocols there are", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a second Register of http1 did not panic")
		}
	}()
	transport.Register(transport.HTTP1, func(transport.Config) (transport.Transport, error) { return nil, nil })
}
