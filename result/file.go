package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The result file format. A file is JSON Lines: one complete JSON object per line, each with a
// "kind" member. The first line is the header, then one "interval" line per interval, and last a
// "trailer" line written when the run ended. Histograms are HdrHistogram's compressed V2 encoding in
// base64 (the form HdrHistogram's interval logs use), so each line stands alone: a run killed at any
// moment leaves every interval written before it readable, and a file without its trailer is known
// to be cut short.
//
// A reader accepts every file of the same major version (a higher minor version only adds members,
// which older readers ignore) and refuses a higher major version with an error naming both.
const (
	FormatName  = "rpcbench.result"
	FormatMajor = 1
	FormatMinor = 3 // 1.1 adds the "resources" and "metrics" records, 1.2 an endpoint's "checks", 1.3 the "subscriptions" record
)

// FormatVersion is the version this package writes, "major.minor".
var FormatVersion = fmt.Sprintf("%d.%d", FormatMajor, FormatMinor)

// Header describes a run at its start: what the file is, what measured, against what and how. The
// zero value is a valid header that says nothing about the run.
type Header struct {
	Format      string          `json:"format"`  // FormatName; filled in by NewWriter
	Version     string          `json:"version"` // FormatVersion; filled in by NewWriter
	Tool        string          `json:"tool,omitempty"`
	ToolVersion string          `json:"tool_version,omitempty"`
	Command     []string        `json:"command,omitempty"` // the command line, program name excluded
	Target      string          `json:"target,omitempty"`
	Endpoints   []string        `json:"endpoints,omitempty"` // endpoint names, by index
	Config      json.RawMessage `json:"config,omitempty"`    // the plan as run, as the tool encodes it
	StartedAt   time.Time       `json:"started_at"`          // wall clock when the file was opened
	Warmup      time.Duration   `json:"warmup_ns,omitempty"` // the warm-up before the measured part
	// Planned is the planned length of the measured part; 0 when the run ends on a count.
	Planned time.Duration `json:"planned_ns,omitempty"`
	Host    string        `json:"host,omitempty"`
}

// Trailer holds the facts known only at the end of a run. The zero value is a run that measured
// nothing and was not interrupted.
type Trailer struct {
	// MeasuredStart is the wall-clock start of the measured part (after any warm-up).
	MeasuredStart time.Time     `json:"measured_start"`
	Elapsed       time.Duration `json:"elapsed_ns"` // from MeasuredStart to the last answer
	Sending       time.Duration `json:"sending_ns"` // the window the measured arrivals were due in
	// SendSpan runs to the last request sent: longer than Sending when the generator fell behind.
	// Files of format 1.0 do without it (then it equals Sending).
	SendSpan    time.Duration `json:"send_span_ns,omitempty"`
	Intended    uint64        `json:"intended"`
	WarmupSent  uint64        `json:"warmup_sent,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	StopReason  string        `json:"stop_reason,omitempty"`
	// Backoffs counts the closed model's waits after a connection could not be made, and
	// BackoffTime adds up their lengths.
	Backoffs    uint64        `json:"backoffs,omitempty"`
	BackoffTime time.Duration `json:"backoff_ns,omitempty"`
	// Procs is how many CPUs the generator could use at once (GOMAXPROCS); 0 when not known.
	Procs int `json:"procs,omitempty"`
	// Sender is what sent the requests when it was not a goroutine per connection: "event loop"
	// (HTTP/1.1 over plain TCP, one goroutine owning the connections; answers timed by the
	// kernel's receive timestamps).
	Sender string `json:"sender,omitempty"`
	// StartAt is the instant the run counted its intended times from when it was given one
	// (`--start-at`, shared by the generators of a run split in segments); StartLate is how late
	// after it this generator started sending (its own clock's view: a clock ahead of the others'
	// shows as a later start).
	StartAt   time.Time     `json:"start_at,omitzero"`
	StartLate time.Duration `json:"start_late_ns,omitempty"`
	// Segment is the execution segment this generator ran ("1/8:1/4"), empty for a whole run.
	Segment string `json:"segment,omitempty"`
}

// Writer writes a result file line by line; each line is flushed to the underlying writer as soon
// as it is complete, so the file on disk is always a readable prefix of the run. The zero value is
// not usable: use NewWriter. Not safe for concurrent use.
type Writer struct {
	w      io.Writer
	buf    []byte
	enc    histEncoder
	ends   int // intervals written
	closed bool
}

// NewWriter writes h as the header line to w and returns a Writer for the intervals. Format and
// Version are set to this package's.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Format, h.Version = FormatName, FormatVersion
	fw := &Writer{w: w}
	if err := fw.line(struct {
		Kind string `json:"kind"`
		Header
	}{"header", h}); err != nil {
		return nil, err
	}
	return fw, nil
}

// WriteInterval writes iv as one line. iv is only read.
func (fw *Writer) WriteInterval(iv *Interval) error {
	if fw.closed {
		return errors.New("result: write to a closed Writer")
	}
	rec, err := fw.encodeInterval(iv)
	if err != nil {
		return err
	}
	fw.ends++
	return fw.line(rec)
}

// Close writes the trailer line. The Writer does not close the underlying writer.
func (fw *Writer) Close(t Trailer) error {
	if fw.closed {
		return errors.New("result: Writer closed twice")
	}
	fw.closed = true
	return fw.line(struct {
		Kind string `json:"kind"`
		Trailer
	}{"trailer", t})
}

// line writes v as one JSON line with a single Write call.
func (fw *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("result: encoding a record: %w", err)
	}
	fw.buf = append(append(fw.buf[:0], b...), '\n')
	if _, err := fw.w.Write(fw.buf); err != nil {
		return fmt.Errorf("result: writing: %w", err)
	}
	return nil
}

// The JSON form of an interval.
type intervalRec struct {
	Kind      string      `json:"kind"`
	Start     int64       `json:"start_ns"`
	End       int64       `json:"end_ns"`
	Intended  uint64      `json:"intended,omitempty"`
	Endpoints []countsRec `json:"endpoints"`
	SendLag   string      `json:"send_lag,omitempty"`
	Conns     *connsRec   `json:"conns,omitempty"`
	// AnswerMetrics are the answer metrics of the endpoints, by endpoint and name in order; absent
	// from files written before they were kept, which read as none.
	AnswerMetrics []metricRec `json:"answer_metrics,omitempty"`
}

type countsRec struct {
	Sent      uint64            `json:"sent,omitempty"`
	Unsent    uint64            `json:"unsent,omitempty"` // failed before sending; not in sent
	Completed uint64            `json:"completed,omitempty"`
	OK        uint64            `json:"ok,omitempty"`
	Errors    map[string]uint64 `json:"errors,omitempty"`   // by class name
	Status    map[int]uint64    `json:"status,omitempty"`   // by status code
	Messages  []messageRec      `json:"messages,omitempty"` // by class and message
	Retried   uint64            `json:"retried,omitempty"`  // sent again after a reset or close
	BytesIn   uint64            `json:"bytes_in,omitempty"`
	BytesOut  uint64            `json:"bytes_out,omitempty"`
	Latency   string            `json:"latency,omitempty"`
	Service   string            `json:"service,omitempty"`
	TTFB      string            `json:"ttfb,omitempty"`
	// RetriedGoAway: sent again after a GOAWAY that left them unprocessed (absent from files
	// written before it was counted, which read as none).
	RetriedGoAway uint64 `json:"retried_goaway,omitempty"`
	// Stream holds the figures of streaming calls, when there were some: a pointer, so that the
	// records of the many runs without stay as small to read as before.
	Stream *streamRec `json:"stream,omitempty"`
	// Calls are the JSON-RPC calls inside batches by method and outcome (absent from files
	// written before they were kept, which read as no calls).
	Calls []callRec `json:"calls,omitempty"`
	// Checks are the user's checks by name: answers passed and failed, and a sample of the failing
	// values (absent from files written before they were kept, which read as none).
	Checks []checkRec `json:"checks,omitempty"`
}

// metricRec is one answer metric of one endpoint (Counts.Metrics). They are kept in the interval,
// not in countsRec, so that a file without them reads at no cost.
type metricRec struct {
	Endpoint int    `json:"endpoint"` // the index of the endpoint in the interval's endpoints
	Name     string `json:"name"`
	Values   string `json:"values,omitempty"` // the histogram, as the other histograms
	Missing  uint64 `json:"missing,omitempty"`
}

type checkRec struct {
	Name    string   `json:"name"`
	Passed  uint64   `json:"passed"`
	Failed  uint64   `json:"failed"`
	Samples []string `json:"failed_samples,omitempty"`
}

// streamRec is the JSON form of the streaming figures of Counts.
type streamRec struct {
	MsgsIn     uint64 `json:"msgs_in,omitempty"`     // messages received
	MsgsOut    uint64 `json:"msgs_out,omitempty"`    // messages sent
	MsgLatency string `json:"msg_latency,omitempty"` // Counts.MsgLatency
	MsgGap     string `json:"msg_gap,omitempty"`     // Counts.MsgGap
}

type callRec struct {
	Method  string `json:"method"`
	Outcome string `json:"outcome"` // ok, error, unanswered
	Code    int64  `json:"code,omitempty"`
	Count   uint64 `json:"count"`
}

type messageRec struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	Count   uint64 `json:"count"`
}

type connsRec struct {
	Opened  uint64 `json:"opened,omitempty"`
	Failed  uint64 `json:"failed,omitempty"`
	DNS     string `json:"dns,omitempty"`
	Connect string `json:"connect,omitempty"`
	TLS     string `json:"tls,omitempty"`
	// Protos counts the connections by the protocol they spoke (Conns.Protos).
	Protos map[string]uint64 `json:"protocols,omitempty"`
	// QUIC sums the QUIC connections and their packets (Conns.QUIC).
	QUIC *QUICConns `json:"quic,omitempty"`
}

func (fw *Writer) encodeInterval(iv *Interval) (*intervalRec, error) {
	rec := &intervalRec{Kind: "interval", Start: int64(iv.Start), End: int64(iv.End), Intended: iv.Intended}
	var err error
	enc := func(h *Histogram) string {
		if err != nil || h == nil || h.TotalCount() == 0 {
			return ""
		}
		var s string
		s, err = fw.enc.encode(h)
		return s
	}
	for _, c := range iv.Endpoints {
		cr := countsRec{
			Sent: c.Sent, Unsent: c.Unsent, Completed: c.Completed, OK: c.OK, Retried: c.Retried, BytesIn: c.BytesIn, BytesOut: c.BytesOut,
			Latency: enc(c.Latency), Service: enc(c.Service), TTFB: enc(c.TTFB), RetriedGoAway: c.RetriedGoAway,
		}
		if sr := (streamRec{MsgsIn: c.MsgsIn, MsgsOut: c.MsgsOut, MsgLatency: enc(c.MsgLatency), MsgGap: enc(c.MsgGap)}); sr != (streamRec{}) {
			cr.Stream = &sr
		}
		for _, name := range c.MetricNames() {
			m := c.Metrics[name]
			rec.AnswerMetrics = append(rec.AnswerMetrics, metricRec{Endpoint: len(rec.Endpoints), Name: name, Values: enc(m.Values), Missing: m.Missing})
		}
		for cl, n := range c.Errors {
			if n > 0 {
				if cr.Errors == nil {
					cr.Errors = map[string]uint64{}
				}
				cr.Errors[Class(cl).String()] = n
			}
		}
		if len(c.Status) > 0 {
			cr.Status = c.Status
		}
		for k, n := range c.Messages {
			cr.Messages = append(cr.Messages, messageRec{k.Class.String(), k.Message, n})
		}
		sort.Slice(cr.Messages, func(i, j int) bool {
			a, b := cr.Messages[i], cr.Messages[j]
			if a.Class != b.Class {
				return a.Class < b.Class
			}
			return a.Message < b.Message
		})
		for k, n := range c.Calls {
			cr.Calls = append(cr.Calls, callRec{k.Method, k.Outcome.String(), k.Code, n})
		}
		sort.Slice(cr.Calls, func(i, j int) bool {
			a, b := cr.Calls[i], cr.Calls[j]
			if a.Method != b.Method {
				return a.Method < b.Method
			}
			if a.Outcome != b.Outcome {
				return a.Outcome < b.Outcome
			}
			return a.Code < b.Code
		})
		for name, k := range c.Checks {
			cr.Checks = append(cr.Checks, checkRec{name, k.Passed, k.Failed, k.Samples})
		}
		sort.Slice(cr.Checks, func(i, j int) bool { return cr.Checks[i].Name < cr.Checks[j].Name })
		rec.Endpoints = append(rec.Endpoints, cr)
	}
	rec.SendLag = enc(iv.SendLag)
	if c := iv.Conns; c != nil {
		cr := connsRec{Opened: c.Opened, Failed: c.Failed, DNS: enc(c.DNS), Connect: enc(c.Connect), TLS: enc(c.TLS)}
		if len(c.Protos) > 0 {
			cr.Protos = maps.Clone(c.Protos)
		}
		cr.QUIC = c.QUIC.Clone()
		if cr.Opened != 0 || cr.Failed != 0 || cr.DNS != "" || cr.Connect != "" || cr.TLS != "" || cr.Protos != nil || cr.QUIC != nil {
			rec.Conns = &cr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("result: encoding a histogram: %w", err)
	}
	return rec, nil
}

// ErrFutureVersion is wrapped by the error for a file written by a newer major version of the
// format than this reader knows.
var ErrFutureVersion = errors.New("written by a newer version of the format")

// Reader reads a result file record by record, so that a long run is never held in memory whole.
// The zero value is not usable: use NewReader. Not safe for concurrent use.
type Reader struct {
	name    string
	sc      *bufio.Scanner
	line    int
	header  Header
	trailer *Trailer
	ends    int
	done    bool
	torn    bool      // the last line had no newline
	iv      *Interval // the interval Next returns, reused
	hist    histDecoder

	resources     []Resources
	metrics       *Metrics
	subscriptions json.RawMessage
	check         checker // the identities of the intervals read (consistent.go)
}

// maxLine bounds one line of a result file (an interval with many endpoints and error messages).
const maxLine = 64 << 20

// NewReader reads the header of the result file r; name labels errors (usually the file's path).
func NewReader(r io.Reader, name string) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	fr := &Reader{name: name, sc: sc}
	sc.Split(fr.split)
	b, err := fr.next()
	if err == io.EOF {
		if fr.torn {
			return nil, fmt.Errorf("%s: cut short within its header line: the run wrote nothing readable", name)
		}
		return nil, fmt.Errorf("%s: empty file: not an %s file", name, FormatName)
	}
	if err != nil {
		return nil, err
	}
	var h struct {
		Kind string `json:"kind"`
		Header
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Format != FormatName || h.Kind != "header" {
		return nil, fmt.Errorf("%s:1: not an %s file (want a first line {\"kind\":\"header\",\"format\":%q,…})", name, FormatName, FormatName)
	}
	major, _, ok := parseVersion(h.Version)
	if !ok {
		return nil, fmt.Errorf("%s:1: version %q: want major.minor, e.g. %s", name, h.Version, FormatVersion)
	}
	if major > FormatMajor {
		return nil, fmt.Errorf("%s: format version %s: %w; this rpcbench reads version %d.x (%s): upgrade rpcbench to read it",
			name, h.Version, ErrFutureVersion, FormatMajor, FormatVersion)
	}
	if len(h.Endpoints) > MaxEndpoints {
		return nil, fmt.Errorf("%s:1: %d endpoints; a result file has at most %d", name, len(h.Endpoints), MaxEndpoints)
	}
	fr.header = h.Header
	return fr, nil
}

func parseVersion(v string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	return major, minor, err1 == nil && err2 == nil && major >= 0 && minor >= 0
}

// Header returns the file's header.
func (fr *Reader) Header() Header { return fr.header }

// Trailer returns the file's trailer once Next has returned io.EOF; nil while reading, and nil at
// the end of a file that was cut short (the run was killed or the disk filled).
func (fr *Reader) Trailer() *Trailer { return fr.trailer }

// CutShort reports whether the file ended without its trailer; valid once Next returned io.EOF.
func (fr *Reader) CutShort() bool { return fr.done && fr.trailer == nil }

// Intervals returns the number of intervals read so far.
func (fr *Reader) Intervals() int { return fr.ends }

// Next returns the next interval, or io.EOF after the last one. The Interval is the Reader's and
// valid until the next call of Next: Merge it into an Interval of your own to keep it. Every
// interval of a file has the same number of endpoints. A last line
// without its newline is the torn end of a file cut short: it is ignored, and CutShort is true.
func (fr *Reader) Next() (*Interval, error) {
	for {
		if fr.done {
			return nil, io.EOF
		}
		b, err := fr.next()
		if err == io.EOF {
			fr.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(b, &kind); err != nil {
			return nil, fr.errorf("not a JSON object: %v", err)
		}
		switch kind.Kind {
		case "interval":
			if fr.trailer != nil {
				return nil, fr.errorf("an interval after the trailer")
			}
			iv, err := fr.decodeInterval(b)
			if err != nil {
				return nil, err
			}
			fr.ends++
			fr.check.interval(fr.name, fr.line, fr.ends, fr.header.Endpoints, iv)
			return iv, nil
		case "trailer":
			var t struct {
				Kind string `json:"kind"`
				Trailer
			}
			if err := json.Unmarshal(b, &t); err != nil {
				return nil, fr.errorf("bad trailer: %v", err)
			}
			if fr.trailer != nil {
				return nil, fr.errorf("a second trailer")
			}
			fr.trailer = &t.Trailer
			fr.check.trailer(fr.name, fr.line, fr.trailer)
		case "header":
			return nil, fr.errorf("a second header")
		default:
			// resources and metrics are kept for Resources and Metrics; a record kind from a
			// newer minor version is skipped
			if _, err := fr.readExtra(kind.Kind, b); err != nil {
				return nil, err
			}
		}
	}
}

// split cuts lines at '\n' and drops a torn last line, noting it.
func (fr *Reader) split(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, bytes.TrimSuffix(data[:i], []byte("\r")), nil
	}
	if atEOF && len(data) > 0 {
		fr.torn = true
		return len(data), nil, nil
	}
	return 0, nil, nil
}

// next returns the next complete line; a torn last line (no newline) counts as the end.
func (fr *Reader) next() ([]byte, error) {
	for fr.sc.Scan() {
		fr.line++
		b := fr.sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		return b, nil
	}
	if err := fr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", fr.name, fr.line+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", fr.name, err)
	}
	return nil, io.EOF
}

func (fr *Reader) errorf(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", fr.name, fr.line, fmt.Sprintf(format, a...))
}
