package engine

import (
	"bufio"
	"io"
	"strconv"
	"time"
)

// CSVLogHeader is the header line of a CSVLog: the columns of diff's request log that a load run
// has (id, sent, latency_ms, status, class), with the endpoint, the intended time and the service
// time.
var CSVLogHeader = []string{"id", "endpoint", "intended", "sent", "latency_ms", "service_ms", "status", "class"}

// csvBatch is how many requests a sender keeps before it hands them to the writer.
const csvBatch = 256

// CSVLog is a RequestLog that writes one CSV row per request: the arrival's id, the endpoint's
// name, when it was due and sent (RFC 3339, UTC, to the nanosecond; sent is empty when nothing
// was written), its latency (from due) and service time (from sent) in milliseconds, the answer's
// status and the error class ("ok" for a success).
//
// Off the hot path: each sender copies its requests into a buffer of its own and hands it, full,
// to one writer goroutine through a channel; buffers are reused, so that logging allocates
// nothing per request. When the writer falls behind by more than 64 buffers, senders wait for it.
// Rows of different senders interleave by buffer, not in id order. Sender and Close are safe for
// concurrent use; Close must be called once, after the run.
type CSVLog struct {
	names   []string
	w       *bufio.Writer
	batches chan []Request
	free    chan []Request
	done    chan struct{}
	err     error
	rows    uint64
}

// NewCSVLog starts a log that writes to w, naming endpoint k names[k], and writes the header.
func NewCSVLog(w io.Writer, names []string) *CSVLog {
	l := &CSVLog{names: names, w: bufio.NewWriterSize(w, 64<<10), batches: make(chan []Request, 64),
		free: make(chan []Request, 128), done: make(chan struct{})}
	for i, h := range CSVLogHeader {
		if i > 0 {
			l.w.WriteByte(',')
		}
		l.w.WriteString(h)
	}
	l.w.WriteByte('\n')
	go l.write()
	return l
}

// Sender implements RequestLog.
func (l *CSVLog) Sender(int) (log func(*Request), done func()) {
	buf := l.get()
	log = func(r *Request) {
		buf = append(buf, *r)
		if len(buf) == cap(buf) {
			l.batches <- buf
			buf = l.get()
		}
	}
	done = func() {
		if len(buf) > 0 {
			l.batches <- buf
		}
		buf = nil
	}
	return log, done
}

func (l *CSVLog) get() []Request {
	select {
	case b := <-l.free:
		return b[:0]
	default:
		return make([]Request, 0, csvBatch)
	}
}

func (l *CSVLog) write() {
	defer close(l.done)
	var line []byte
	for b := range l.batches {
		for i := range b {
			line = l.appendRow(line[:0], &b[i])
			if _, err := l.w.Write(line); err != nil && l.err == nil {
				l.err = err
			}
		}
		l.rows += uint64(len(b))
		select {
		case l.free <- b:
		default:
		}
	}
}

func (l *CSVLog) appendRow(b []byte, r *Request) []byte {
	b = strconv.AppendUint(b, r.ID, 10)
	b = append(b, ',')
	name := ""
	if r.Endpoint >= 0 && r.Endpoint < len(l.names) {
		name = l.names[r.Endpoint]
	}
	b = appendCSVField(b, name)
	b = append(b, ',')
	b = r.Intended.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, ',')
	if !r.Sent.IsZero() {
		b = r.Sent.UTC().AppendFormat(b, time.RFC3339Nano)
	}
	b = append(b, ',')
	b = appendMs(b, r.Done.Sub(r.Intended))
	b = append(b, ',')
	if !r.Sent.IsZero() {
		b = appendMs(b, r.Done.Sub(r.Sent))
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, ',')
	b = append(b, r.Class.String()...)
	return append(b, '\n')
}

// appendMs appends d in milliseconds with 3 decimals, as diff's log writes latency_ms.
func appendMs(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 3, 64)
}

// appendCSVField appends s, quoted as CSV quotes a field when it holds a comma, a quote or a line
// break.
func appendCSVField(b []byte, s string) []byte {
	quote := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\n' || c == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// Close waits for the rows handed over so far to be written, flushes them and returns the first
// write error, and the number of rows written.
func (l *CSVLog) Close() (rows uint64, err error) {
	close(l.batches)
	<-l.done
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	return l.rows, l.err
}
