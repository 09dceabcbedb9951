package h2

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// resetError is the error of a stream the server reset (RST_STREAM).
type resetError struct{ code http2.ErrCode }

func (e resetError) Error() string { return "h2: the server reset the stream: " + e.code.String() }

// goAwayError is the error of a request on a stream the server's GOAWAY left out: it was not
// processed.
type goAwayError struct {
	last uint32
	code http2.ErrCode
}

func (e goAwayError) Error() string {
	return fmt.Sprintf("h2: the server sent GOAWAY (%v, last stream %d) without processing the request", e.code, e.last)
}

// protoError is the error of an answer, or a connection, that breaks HTTP/2's rules.
type protoError string

func (e protoError) Error() string { return "h2: protocol error: " + string(e) }

// classify classes err: a reset stream, a GOAWAY or a lost connection is class reset, a broken
// frame, header block or answer class protocol, and the rest as transport.Classify does. Errors
// of net/http's client connections (HTTP/1.1 after ALPN), which it keeps unexported, are classed
// by their messages.
func classify(err error) result.Class {
	var (
		re resetError
		ge goAwayError
		pe protoError
		ce http2.ConnectionError
		se http2.StreamError
		de hpack.DecodingError
		ie hpack.InvalidIndexError
	)
	switch {
	case errors.As(err, &re), errors.As(err, &ge), errors.Is(err, errRetired):
		return result.Reset
	case errors.As(err, &pe), errors.As(err, &ce), errors.As(err, &se), errors.As(err, &de),
		errors.As(err, &ie), errors.Is(err, hpack.ErrStringLength), errors.Is(err, http2.ErrFrameTooLarge):
		return result.Protocol
	}
	if c := transport.Classify(err); c != result.Other {
		return c
	}
	msg := err.Error()
	for _, m := range []struct {
		s string
		c result.Class
	}{
		{"connection lost", result.Reset},
		{"conn is closed", result.Reset},
		{"connection closed", result.Reset},
		{"connection broken", result.Reset},
		{"malformed", result.Protocol},
		{"invalid", result.Protocol},
	} {
		if strings.Contains(msg, m.s) {
			return m.c
		}
	}
	return result.Other
}
