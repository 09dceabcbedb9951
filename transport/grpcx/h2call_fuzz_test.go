package grpcx

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
)

// httpCodes is gRPC's specification's table of the codes of answers that are not gRPC's, by HTTP
// status (doc/http-grpc-status-mapping.md); any other status is Unknown.
var httpCodes = map[int]codes.Code{400: codes.Internal, 401: codes.Unauthenticated, 403: codes.PermissionDenied,
	404: codes.Unimplemented, 429: codes.Unavailable, 502: codes.Unavailable, 503: codes.Unavailable, 504: codes.Unavailable}

// percentEncode encodes s as gRPC's specification encodes grpc-message: the bytes outside
// 0x20–0x7E, and '%', as %XX.
func percentEncode(s []byte) []byte {
	const hex = "0123456789ABCDEF"
	var b []byte
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '%' {
			b = append(b, '%', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

// FuzzAnswer gives the own client's reading of a gRPC answer (finishH2) fuzzed answers, as h2
// hands them over: the HTTP status, whether the content type is gRPC's, the grpc-status (-1:
// none), the grpc-message and the DATA kept. It must never panic; a success is exactly a 200
// gRPC answer of status 0 whose DATA is one uncompressed message of the method's output type; an
// answer not gRPC's has the code gRPC's table gives its HTTP status; a status from the server is
// told by its code, its message percent-decoded.
//
//	go test -run '^$' -fuzz FuzzAnswer ./transport/grpcx/
func FuzzAnswer(f *testing.F) {
	f.Add(200, true, 0, []byte(""), []byte{0, 0, 0, 0, 5, 0x0a, 3, 'a', 'b', 'c'})
	f.Add(200, true, 5, []byte("no item with id %22x%22"), []byte{})
	f.Add(200, true, 13, []byte("line 1%0Aline 2 100%25"), []byte{})
	f.Add(200, true, 0, []byte(""), []byte{1, 0, 0, 0, 1, 0})
	f.Add(200, true, 0, []byte(""), []byte{0, 0, 0, 0, 9, 0x0a})
	f.Add(200, true, -1, []byte(""), []byte{0, 0, 0, 0, 0})
	f.Add(404, false, -1, []byte(""), []byte("not found"))
	f.Add(200, false, 0, []byte(""), []byte("<html>"))
	f.Add(200, true, 0, []byte("ab"), []byte{0, 0, 0, 0, 1, 0x0a, 0, 0, 0, 0, 0})
	f.Add(200, true, 5, []byte("a"), []byte{0, 0, 0, 0, 9, 0x0a})
	f.Add(200, true, 0, []byte("abcdef"), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(500, true, 5, []byte(""), []byte{})
	f.Add(503, true, 14, []byte("%zz%4"), []byte{})
	f.Add(200, true, 99, []byte("\xff"), []byte{})
	dir := f.TempDir()
	p := filepath.Join(dir, "f.proto")
	if err := os.WriteFile(p, []byte(`syntax = "proto3"; package f; import "google/protobuf/timestamp.proto";
message In { string id = 1; }
message Out { string id = 1; string name = 2; google.protobuf.Timestamp timestamp = 3; bytes payload = 4; }
service S { rpc Get(In) returns (Out); }`), 0o600); err != nil {
		f.Fatal(err)
	}
	res, err := FromProto(context.Background(), nil, p)
	if err != nil {
		f.Fatal(err)
	}
	desc, err := res.Method(context.Background(), "/f.S/Get")
	if err != nil {
		f.Fatal(err)
	}
	m := &method{path: "/f.S/Get", desc: desc}
	kept, unkept := New(Options{KeepBody: true}), New(Options{})
	defer kept.Close()
	defer unkept.Close()
	f.Fuzz(func(t *testing.T, httpStatus int, grpcType bool, grpcStatus int, msg, data []byte) {
		wantFault := framing(data)
		var item rpzpb.Item // f.Out's fields, generated: an independent parse of the message
		decodes := wantFault == "" && len(data) >= 5 && proto.Unmarshal(data[5:], &item) == nil
		isGRPC := grpcType && (httpStatus == 200 || grpcStatus != -1)
		for _, tr := range []*Transport{kept, unkept} {
			c := &h2call{}
			if tr.opts.KeepBody {
				c.body = data
			}
			c.ans.HTTPStatus, c.ans.GRPC, c.ans.Status, c.ans.Message = httpStatus, grpcType, grpcStatus, msg
			c.ans.HeadStatus, c.ans.Trailers, c.ans.BodyLen = grpcStatus != -1, true, int64(len(data))
			cut := len(msg) % (len(data) + 1) // the DATA in two frames, cut anywhere
			c.ans.Frame(data[:cut])
			c.ans.Frame(data[cut:])
			out := transport.Outcome{Class: result.OK, Answered: true}
			tr.finishH2(context.Background(), nil, targetKey{"grpc", "fuzz"}, m, c, &out)

			wantOK := isGRPC && grpcStatus == 0 && wantFault == "" && len(data) > 0 && (decodes || !tr.opts.KeepBody)
			switch {
			case (out.Class == result.OK) != wantOK:
				t.Errorf("keep %v: class %v (%v) for HTTP %d, gRPC %v, status %d, %d bytes (framing fault %q)", tr.opts.KeepBody, out.Class, out.Err, httpStatus, grpcType, grpcStatus, len(data), wantFault)
			case out.Class == result.OK && out.BytesIn != int64(len(data)):
				t.Errorf("a success of %d bytes in; want %d", out.BytesIn, len(data))
			case !isGRPC:
				want, ok := httpCodes[httpStatus]
				if !ok {
					want = codes.Unknown
				}
				if out.Status != int(want) || out.Class != result.Status {
					t.Errorf("HTTP %d, gRPC %v: got class %v status %d; want status %d", httpStatus, grpcType, out.Class, out.Status, want)
				}
			case wantFault != "":
				// its first words: the sample kept is cut short, numbers blanked (statusError)
				if want := "grpc Internal: " + wantFault[:min(len(wantFault), 40)]; out.Class != result.Status || out.Status != int(codes.Internal) || !strings.HasPrefix(out.Err.Error(), want) {
					t.Errorf("keep %v, %x: got class %v status %d (%v); want status, 13, %q", tr.opts.KeepBody, data, out.Class, out.Status, out.Err, want)
				}
			case grpcStatus < 0 && (out.Class != result.Status || out.Status != int(codes.Unknown)):
				t.Errorf("grpc-status %d: got class %v status %d; want Unknown", grpcStatus, out.Class, out.Status)
			case grpcStatus > 0 && grpcStatus != int(codes.DeadlineExceeded):
				if want := "grpc " + codes.Code(grpcStatus).String(); out.Class != result.Status || out.Status != grpcStatus || !strings.HasPrefix(out.Err.Error(), want) {
					t.Errorf("status %d: got class %v status %d (%v); want status, %d, %q", grpcStatus, out.Class, out.Status, out.Err, grpcStatus, want)
				}
			case grpcStatus == int(codes.DeadlineExceeded) && (out.Class != result.Timeout || out.Answered):
				t.Errorf("status 4: got class %v answered %v; want a timeout, unanswered", out.Class, out.Answered)
			}
			if out.Class == result.Status && !utf8.ValidString(out.Err.Error()) && utf8.Valid(percentDecode(nil, msg)) {
				t.Errorf("a message of valid UTF-8 gave a failure that is not: %q", out.Err)
			}
		}
		// the message, encoded as the specification says, decodes back to itself
		if got := percentDecode(nil, percentEncode(msg)); string(got) != string(msg) {
			t.Errorf("grpc-message %q: encoded and decoded, %q", msg, got)
		}
	})
}

// framing is how a unary call's client, grpc-go, reads the messages in data in turn: the message
// of the first fault it meets in the first two, or "" (none, or one whole message): the whole
// DATA at once, where Frame sees it go by in pieces.
func framing(data []byte) string {
	for k := 1; k <= 2 && len(data) > 0; k++ {
		switch {
		case len(data) < 5:
			return "unexpected EOF"
		case data[0] == 1:
			return "grpc: compressed flag set with identity or empty encoding"
		case data[0] != 0:
			return "grpc: received unexpected payload format " + strconv.Itoa(int(data[0]))
		}
		n := uint64(data[1])<<24 | uint64(data[2])<<16 | uint64(data[3])<<8 | uint64(data[4])
		if uint64(len(data)-5) < n {
			return "unexpected EOF"
		}
		if k == 2 {
			return "cardinality violation: expected <EOF> for non server-streaming RPCs, but received another message"
		}
		data = data[5+n:]
	}
	return ""
}
