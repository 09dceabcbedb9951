package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"golang.org/x/net/http/httpguts"
)

// Record is one recorded request.
type Record struct {
	// Time is when the request was recorded; zero when the format keeps no time (vegeta targets
	// without a timestamp), which only a constant-rate replay can send.
	Time time.Time
	// Method is the HTTP method; POST for a JSON-RPC call.
	Method string
	// Target is the request target as recorded: a path with its query ("/v0/items?id=1"), or an
	// absolute URL (HAR, vegeta).
	Target string
	Header []result.RequestHeader
	Body   []byte
	// Status is the recorded answer's status; 0 when the format keeps none.
	Status int
	// Calls is the number of JSON-RPC calls the body carries (a batch keeps its size); 0 for a
	// request that is no JSON-RPC call.
	Calls int
	// Name is how the record is reported: the JSON-RPC method ("batch" for a batch), or for HTTP
	// "METHOD /path" with the ids in the path replaced by {id} (see Key). Parsers leave it empty
	// for HTTP requests.
	Name string
	// Line is where the record starts in its file (for HAR, the line of the entry's start).
	Line int
}

// Reader reads the records of one file in the order they are written. Next returns io.EOF after
// the last one, a *LineError for a line (or entry) that does not parse — reading may go on after
// it — and any other error when reading cannot go on.
type Reader interface {
	Next() (Record, error)
}

// LineError is a line of a file that does not parse.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// The formats a file may be in.
const (
	FormatCombined = "combined" // nginx's and Apache's combined access log (the common one too)
	FormatCommon   = "common"   // Apache's common access log
	FormatHAR      = "har"      // HAR 1.2, as browsers and proxies export it
	FormatJSONRPC  = "jsonrpc"  // JSON lines of a timestamp and a JSON-RPC request
	FormatCSVLog   = "csvlog"   // rpcbench's per-request log (run --log)
	FormatVegeta   = "vegeta"   // vegeta's JSON targets, with a timestamp where given
)

// Formats lists the formats by name, for help texts; "log_format:…" gives a custom access-log layout.
var Formats = []string{FormatCombined, FormatCommon, FormatHAR, FormatJSONRPC, FormatCSVLog, FormatVegeta}

// maxLine bounds one line of a line-based file.
const maxLine = 16 << 20

// NewReader returns the reader of r (named name in errors) in format: one of Formats,
// "log_format:LAYOUT" for an access log in an nginx log_format layout, or "" to tell by the
// content (a HAR file opens with {"log"; rpcbench's log with its header line; JSON lines with a
// "url" are vegeta targets, other JSON lines JSON-RPC; anything else an access log, combined or
// common).
func NewReader(name string, r io.Reader, format string) (Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if format == "" {
		format = sniff(br)
	}
	switch {
	case format == FormatCombined:
		return newAccessReader(name, br, combinedLayout, commonLayout)
	case format == FormatCommon:
		return newAccessReader(name, br, commonLayout)
	case strings.HasPrefix(format, "log_format:"):
		return newAccessReader(name, br, strings.TrimPrefix(format, "log_format:"))
	case format == FormatHAR:
		return newHARReader(name, br), nil
	case format == FormatJSONRPC:
		return newJSONRPCReader(name, br), nil
	case format == FormatCSVLog:
		return newCSVLogReader(name, br)
	case format == FormatVegeta:
		return newVegetaReader(name, br), nil
	}
	return nil, fmt.Errorf("format %q: want one of %s, or log_format:LAYOUT", format, strings.Join(Formats, ", "))
}

// sniff tells a file's format by its first bytes.
func sniff(br *bufio.Reader) string {
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	first, _, _ := bytes.Cut(head, []byte("\n"))
	switch {
	case bytes.HasPrefix(first, []byte("id,endpoint,intended")):
		return FormatCSVLog
	case len(head) > 0 && head[0] == '{':
		rest := bytes.TrimLeft(head[1:], " \t\r\n")
		if bytes.HasPrefix(rest, []byte(`"log"`)) {
			return FormatHAR
		}
		if bytes.Contains(first, []byte(`"url"`)) {
			return FormatVegeta
		}
		return FormatJSONRPC
	}
	return FormatCombined
}

// lines reads a file line by line, counting lines.
type lines struct {
	name string
	sc   *bufio.Scanner
	line int
}

func newLines(name string, r io.Reader) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return &lines{name: name, sc: sc}
}

// next returns the next line that is not blank, or io.EOF.
func (l *lines) next() ([]byte, error) {
	for l.sc.Scan() {
		l.line++
		if b := bytes.TrimSpace(l.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	if err := l.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d MiB", l.name, l.line+1, maxLine>>20)
		}
		return nil, fmt.Errorf("%s:%d: %w", l.name, l.line+1, err)
	}
	return nil, io.EOF
}

func (l *lines) errorf(format string, a ...any) error {
	return &LineError{File: l.name, Line: l.line, Err: fmt.Errorf(format, a...)}
}

// parseTime reads a timestamp: RFC 3339 (with or without a zone, to the nanosecond), or a Unix
// time in seconds (with a fraction), milliseconds, microseconds or nanoseconds, told by its size.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("no timestamp")
	}
	if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-:T") {
		return unixTime(s)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want RFC 3339 (2006-01-02T15:04:05.000Z) or Unix time", clip(s))
}

// unixTime reads a Unix time: seconds with a fraction, or a whole number of seconds, milliseconds,
// microseconds or nanoseconds, told by its number of digits (as 1.7e9 s, 1.7e12 ms, …).
func unixTime(s string) (time.Time, error) {
	whole, frac, hasFrac := strings.Cut(s, ".")
	if !digits(whole) || hasFrac && !digits(frac) || len(whole) > 19 {
		return time.Time{}, fmt.Errorf("timestamp %q: want RFC 3339 or a Unix time", clip(s))
	}
	var n int64
	for _, c := range whole {
		n = n*10 + int64(c-'0')
	}
	switch {
	case hasFrac || len(whole) <= 11:
		ns := int64(0)
		f := frac + "000000000"
		for _, c := range f[:9] {
			ns = ns*10 + int64(c-'0')
		}
		return time.Unix(n, ns).UTC(), nil
	case len(whole) <= 14:
		return time.UnixMilli(n).UTC(), nil
	case len(whole) <= 17:
		return time.UnixMicro(n).UTC(), nil
	}
	return time.Unix(0, n).UTC(), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// clip shortens what an error quotes of a line.
func clip(s string) string {
	if len(s) > 60 {
		return s[:59] + "…"
	}
	return s
}

// isToken reports whether s is an HTTP token (a method, a header name).
func isToken(s string) bool { return httpguts.ValidHeaderFieldName(s) }
