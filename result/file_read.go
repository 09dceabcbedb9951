package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// decodeInterval turns one interval line into the Reader's own Interval, reused from line to line:
// its histograms are decoded into, never made anew, so that reading costs memory in proportion to
// the file's size and its number of endpoints, not to the number of lines times the histograms
// each names.
func (fr *Reader) decodeInterval(b []byte) (*Interval, error) {
	var rec intervalRec
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fr.errorf("bad interval: %v", err)
	}
	if rec.End < rec.Start || rec.Start < 0 {
		return nil, fr.errorf("bad interval: it ends (%v) before it starts (%v)", time.Duration(rec.End), time.Duration(rec.Start))
	}
	if len(rec.Endpoints) > MaxEndpoints {
		return nil, fr.errorf("an interval with %d endpoints; a result file has at most %d", len(rec.Endpoints), MaxEndpoints)
	}
	if n := len(fr.header.Endpoints); n > 0 && len(rec.Endpoints) != n {
		return nil, fr.errorf("an interval with %d endpoints; the header names %d", len(rec.Endpoints), n)
	}
	if fr.iv == nil {
		fr.iv = NewInterval(len(rec.Endpoints))
	} else if len(fr.iv.Endpoints) != len(rec.Endpoints) {
		return nil, fr.errorf("an interval with %d endpoints after intervals with %d", len(rec.Endpoints), len(fr.iv.Endpoints))
	}
	iv := fr.iv
	iv.Reset()
	iv.Start, iv.End, iv.Intended = time.Duration(rec.Start), time.Duration(rec.End), rec.Intended
	var err error
	dec := func(what string, dst *Histogram, s string) {
		if err == nil && s != "" {
			if e := fr.hist.decode(dst, s); e != nil {
				err = fr.errorf("%s histogram: %v", what, e)
			}
		}
	}
	for i, cr := range rec.Endpoints {
		c := iv.Endpoints[i]
		c.Sent, c.Completed, c.OK, c.BytesIn, c.BytesOut = cr.Sent, cr.Completed, cr.OK, cr.BytesIn, cr.BytesOut
		c.Unsent = cr.Unsent
		c.Retried = cr.Retried
		c.RetriedGoAway = cr.RetriedGoAway
		for name, n := range cr.Errors {
			cl, e := ParseClass(name)
			if e != nil {
				return nil, fr.errorf("endpoint %d: %v", i, e)
			}
			c.Errors[cl] += n
		}
		for code, n := range cr.Status {
			c.Status[code] += n
		}
		for _, m := range cr.Messages {
			cl, e := ParseClass(m.Class)
			if e != nil {
				return nil, fr.errorf("endpoint %d: %v", i, e)
			}
			c.Messages[ErrorKey{cl, m.Message}] += m.Count
		}
		for _, k := range cr.Calls {
			o, e := parseCallOutcome(k.Outcome)
			if e != nil {
				return nil, fr.errorf("endpoint %d: call %q: %v", i, k.Method, e)
			}
			c.Calls[CallKey{Method: k.Method, Outcome: o, Code: k.Code}] += k.Count
		}
		for _, k := range cr.Checks {
			if len(k.Samples) > MaxCheckSamples {
				return nil, fr.errorf("endpoint %d: check %q: %d failed samples; a check keeps at most %d", i, k.Name, len(k.Samples), MaxCheckSamples)
			}
			cc := c.Checks[k.Name]
			cc.Passed += k.Passed
			cc.Failed += k.Failed
			for _, x := range k.Samples {
				cc.Samples = addSample(cc.Samples, x)
			}
			c.Checks[k.Name] = cc
		}
		dec("latency", c.Latency, cr.Latency)
		dec("service", c.Service, cr.Service)
		dec("ttfb", c.TTFB, cr.TTFB)
		if sr := cr.Stream; sr != nil {
			c.MsgsIn, c.MsgsOut = sr.MsgsIn, sr.MsgsOut
			if sr.MsgLatency != "" {
				c.MsgLatency = NewHistogram()
				dec("msg_latency", c.MsgLatency, sr.MsgLatency)
			}
			if sr.MsgGap != "" {
				c.MsgGap = NewHistogram()
				dec("msg_gap", c.MsgGap, sr.MsgGap)
			}
		}
	}
	for _, m := range rec.AnswerMetrics {
		if m.Name == "" || m.Endpoint < 0 || m.Endpoint >= len(iv.Endpoints) {
			return nil, fr.errorf("answer metric %q of endpoint %d: want a name and an endpoint from 0 to %d", m.Name, m.Endpoint, len(iv.Endpoints)-1)
		}
		mc := iv.Endpoints[m.Endpoint].metric(m.Name)
		mc.Missing += m.Missing
		if m.Values != "" {
			dec("answer metric "+m.Name, mc.Values, m.Values)
		}
	}
	dec("send_lag", iv.SendLag, rec.SendLag)
	if cr := rec.Conns; cr != nil {
		iv.Conns.Opened, iv.Conns.Failed = cr.Opened, cr.Failed
		if len(cr.Protos) > 0 {
			iv.Conns.Protos = cr.Protos
		}
		iv.Conns.QUIC = cr.QUIC
		dec("dns", iv.Conns.DNS, cr.DNS)
		dec("connect", iv.Conns.Connect, cr.Connect)
		dec("tls", iv.Conns.TLS, cr.TLS)
	}
	if err != nil {
		return nil, err
	}
	return iv, nil
}

// histDecoder reads HdrHistogram's base64 compressed V2 encoding into an existing histogram,
// reusing its buffers and its zlib reader: hdrhistogram-go's Decode makes a new histogram (and a
// new inflater) for every one it reads. The zero value is ready to use; not safe for concurrent use.
type histDecoder struct {
	raw     []byte // the base64-decoded bytes
	src     bytes.Reader
	z       io.ReadCloser
	payload []byte
}

// decodeHistogram adds the base64 compressed V2 histogram s into dst.
func decodeHistogram(dst *Histogram, s string) error {
	var d histDecoder
	return d.decode(dst, s)
}

// maxCounts bounds the counts of one encoded histogram: one of this package's range has fewer
// than 24,000; each takes at most 9 bytes.
const maxCounts = 24 << 10

// decode adds the base64 compressed V2 histogram s into dst. It checks the encoded range before
// decoding, so that a damaged or hostile file cannot make it allocate a histogram of arbitrary size:
// only histograms of this package's range are accepted.
func (d *histDecoder) decode(dst *Histogram, s string) error {
	n := base64.StdEncoding.DecodedLen(len(s))
	if cap(d.raw) < n {
		d.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(d.raw[:n], []byte(s))
	if err != nil {
		return fmt.Errorf("not base64: %v", err)
	}
	raw := d.raw[:n]
	if len(raw) < 8 {
		return fmt.Errorf("too short (%d bytes)", len(raw))
	}
	d.src.Reset(raw[8:])
	if d.z == nil {
		d.z, err = zlib.NewReader(&d.src)
	} else {
		err = d.z.(zlib.Resetter).Reset(&d.src, nil)
	}
	if err != nil {
		return fmt.Errorf("not a compressed V2 histogram: %v", err)
	}
	var geo [40]byte // cookie, payload length, offset, digits (int32 each); lowest, highest (int64); ratio
	if _, err := io.ReadFull(d.z, geo[:]); err != nil {
		return fmt.Errorf("not a compressed V2 histogram: %v", err)
	}
	length := int32(binary.BigEndian.Uint32(geo[4:]))
	digits := int32(binary.BigEndian.Uint32(geo[12:]))
	lo := int64(binary.BigEndian.Uint64(geo[16:]))
	hi := int64(binary.BigEndian.Uint64(geo[24:]))
	if digits != HistSigFigs || lo != HistMin || hi != HistMax {
		return fmt.Errorf("range %d..%d at %d digits; want %d..%d at %d digits", lo, hi, digits, HistMin, HistMax, HistSigFigs)
	}
	if length < 0 || length > 9*maxCounts {
		return fmt.Errorf("payload of %d bytes; want 0 to %d", length, 9*maxCounts)
	}
	if cap(d.payload) < int(length) {
		d.payload = make([]byte, length)
	}
	p := d.payload[:length]
	if _, err := io.ReadFull(d.z, p); err != nil {
		return fmt.Errorf("payload: %v", err)
	}
	return addCounts(dst, p)
}

// addCounts adds the ZigZag LEB128 counts of payload (a negative value is a run of zeros) into h,
// the count at index i being that of the values equivalent to valueAt(i).
func addCounts(h *Histogram, payload []byte) error {
	total := h.TotalCount()
	for i, idx := 0, int64(0); i < len(payload); idx++ {
		v, n, ok := zigZag(payload[i:])
		if !ok {
			return fmt.Errorf("count %d is cut off", idx)
		}
		i += n
		switch {
		case v < 0:
			if v < -maxCounts {
				return fmt.Errorf("a run of %d zeros at count %d", uint64(-v), idx)
			}
			idx += -v - 1
			continue
		case v == 0:
			continue
		case idx >= maxCounts:
			return fmt.Errorf("count %d is out of range", idx)
		case v > math.MaxInt64-total:
			return fmt.Errorf("counts add up past %d", int64(math.MaxInt64))
		}
		if err := h.RecordValues(valueAt(idx), v); err != nil {
			return fmt.Errorf("count %d is out of range", idx)
		}
		total += v
	}
	return nil
}

// valueAt returns the lowest value counted at index idx of a histogram of this package's range:
// 2048 sub-buckets (3 digits) in the first bucket, then in each bucket the upper 1024 at twice the
// scale of the bucket before; the unit is 1 (HistMin).
func valueAt(idx int64) int64 {
	const halfMag, half = 10, 1 << 10
	bucket := idx>>halfMag - 1
	sub := idx&(half-1) + half
	if bucket < 0 {
		sub -= half
		bucket = 0
	}
	return sub << bucket
}

// zigZag reads one value in HdrHistogram's ZigZag LEB128-64b9B form (see appendZigZag).
func zigZag(b []byte) (v int64, n int, ok bool) {
	var u uint64
	for n = 0; n < 9; n++ {
		if n >= len(b) {
			return 0, 0, false
		}
		c := b[n]
		if n == 8 {
			u |= uint64(c) << 56
			return int64(u>>1) ^ -int64(u&1), 9, true
		}
		u |= uint64(c&0x7f) << (7 * n)
		if c&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), n + 1, true
		}
	}
	return 0, 0, false
}

// File is a whole result file folded as it was read: its header and trailer, every interval merged
// into Total, and the number of intervals. The per-interval records are not kept (a long run has
// thousands); read them with a Reader, or with ReadFile's visit function. The zero value is an empty
// file. Not safe for concurrent use.
type File struct {
	Path    string
	Header  Header
	Trailer *Trailer // nil when the file was cut short
	// Total is every interval merged; Intervals counts them.
	Total     *Interval
	Intervals int
	// Resources and Metrics are what the resource monitor saw during the run (format 1.1); none
	// in older files.
	Resources []Resources
	Metrics   *Metrics
	// Subscriptions are the figures of the run's JSON-RPC subscriptions (format 1.3; a JSON object,
	// summary.Subscriptions); nil when it had none, and for a merge of several files that had them.
	Subscriptions json.RawMessage
	// Parts are the files a merged File adds up, one each, in order (see Merge); nil for one file.
	Parts []Part
	// Contradictions are the first of the figures that no run can have written (Reader.Contradictions),
	// of every file merged; ContradictionCount counts them all. See Consistent.
	Contradictions     []string
	ContradictionCount int
}

// CutShort reports whether the file ended without its trailer: the run was killed, or the disk
// filled, before it could finish the file. Its complete intervals are still in Total.
func (f *File) CutShort() bool { return f.Trailer == nil }

// Run returns the trailer's facts; for a file cut short, they are made up from its intervals: the
// measured part started after the header's warm-up, ran until the end of the last interval, and was
// interrupted.
func (f *File) Run() Trailer {
	if f.Trailer != nil {
		t := *f.Trailer
		t.SendSpan = max(t.SendSpan, t.Sending)
		return t
	}
	sending := f.Total.End
	if f.Header.Planned > 0 {
		sending = min(sending, f.Header.Planned)
	}
	return Trailer{
		MeasuredStart: f.Header.StartedAt.Add(f.Header.Warmup),
		Elapsed:       f.Total.End,
		Sending:       sending,
		SendSpan:      f.Total.End,
		Intended:      f.Total.Intended,
		Interrupted:   true,
		StopReason:    "the result file was cut short: the run ended without finishing it",
	}
}

// add merges iv, read by fr, into f's total.
func (f *File) add(fr *Reader, iv *Interval) error {
	if len(iv.Endpoints) != len(f.Total.Endpoints) {
		if f.Intervals > 0 || len(f.Header.Endpoints) > 0 {
			return fr.errorf("an interval with %d endpoints after intervals with %d", len(iv.Endpoints), len(f.Total.Endpoints))
		}
		f.Total = NewInterval(len(iv.Endpoints))
	}
	f.Total.Merge(iv)
	f.Intervals++
	return nil
}

// ReadFile reads the result file at path. visit, if not nil, is called with each interval in order
// and the file read so far (its Header is complete); the Interval is the reader's, valid only until
// visit returns: Merge it into an Interval of your own to keep it.
func ReadFile(path string, visit func(*File, *Interval) error) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	defer fh.Close()
	return Read(fh, path, visit)
}

// Read is ReadFile for a file already open; name labels errors.
func Read(r io.Reader, name string, visit func(*File, *Interval) error) (*File, error) {
	fr, err := NewReader(r, name)
	if err != nil {
		return nil, err
	}
	h := fr.Header()
	f := &File{Path: name, Header: h, Total: NewInterval(len(h.Endpoints))}
	for {
		iv, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := f.add(fr, iv); err != nil {
			return nil, err
		}
		if visit != nil {
			if err := visit(f, iv); err != nil {
				return nil, err
			}
		}
	}
	f.Trailer = fr.Trailer()
	f.Resources, f.Metrics, f.Subscriptions = fr.Resources(), fr.Metrics(), fr.Subscriptions()
	f.Contradictions, f.ContradictionCount = fr.Contradictions()
	return f, nil
}

// Merge adds files measured at the same time on several machines into one: intervals and totals
// add up exactly, counters and histograms alike. The header is the first file's; the trailer sums
// the intended and warm-up counts, takes the longest durations and the latest start, and keeps each
// file's own figures in Parts; the monitored resources of every file are kept side by side, and
// the first file's metrics. Every file must have the same number of endpoints.
func Merge(files ...*File) (*File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("result: nothing to merge")
	}
	first := files[0]
	out := &File{Path: first.Path, Header: first.Header, Total: NewInterval(len(first.Total.Endpoints))}
	t := Trailer{MeasuredStart: first.Run().MeasuredStart}
	cut, withSubs := false, 0
	for _, f := range files {
		if len(f.Total.Endpoints) != len(out.Total.Endpoints) {
			return nil, fmt.Errorf("result: cannot merge %s (%d endpoints) with %s (%d endpoints)", f.Path, len(f.Total.Endpoints), first.Path, len(out.Total.Endpoints))
		}
		out.Total.Merge(f.Total)
		out.Intervals = max(out.Intervals, f.Intervals)
		out.Resources = append(out.Resources, f.Resources...) // each machine watched its own
		if out.Metrics == nil {
			out.Metrics = f.Metrics
		}
		if f.Subscriptions != nil {
			withSubs++
			out.Subscriptions = f.Subscriptions
		}
		r := f.Run()
		cut = cut || f.CutShort()
		if r.MeasuredStart.Before(t.MeasuredStart) {
			t.MeasuredStart = r.MeasuredStart
		}
		t.Elapsed = max(t.Elapsed, r.Elapsed)
		t.Sending = max(t.Sending, r.Sending)
		t.SendSpan = max(t.SendSpan, r.SendSpan)
		t.Intended += r.Intended
		t.WarmupSent += r.WarmupSent
		t.Backoffs += r.Backoffs
		t.BackoffTime += r.BackoffTime
		t.Interrupted = t.Interrupted || r.Interrupted
		out.Parts = append(out.Parts, f.part())
		out.Contradictions = append(out.Contradictions, f.Contradictions...)
		out.ContradictionCount += f.ContradictionCount
		if t.StartAt.IsZero() || r.StartAt.Equal(t.StartAt) {
			t.StartAt = r.StartAt
			t.StartLate = max(t.StartLate, r.StartLate)
		}
		if r.Procs > 0 && (t.Procs == 0 || r.Procs < t.Procs) {
			t.Procs = r.Procs // the merged run is as short of CPUs as its poorest part
		}
		if t.StopReason == "" {
			t.StopReason = r.StopReason
		}
		switch { // the merged run names its sender when every part had the same
		case len(out.Parts) == 1:
			t.Sender = r.Sender
		case r.Sender != t.Sender:
			t.Sender = ""
		}
	}
	if withSubs > 1 {
		out.Subscriptions = nil // each machine's subscriptions are figures of their own, which do not add up
	}
	if !cut {
		out.Trailer = &t
	} else {
		out.Trailer = nil
		out.Total.Intended = t.Intended
	}
	return out, nil
}

// ReadMerged reads several result files of one run spread over machines, in lockstep: interval i of
// every file is merged into one and handed to visit (if not nil, and as with ReadFile valid only
// until visit returns) with the first file read so far,
// and the files' totals are merged with Merge. Files with fewer intervals simply stop contributing.
func ReadMerged(paths []string, visit func(*File, *Interval) error) (*File, error) {
	type src struct {
		fr   *Reader
		f    *File
		done bool
	}
	srcs := make([]*src, len(paths))
	for i, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		defer fh.Close()
		fr, err := NewReader(fh, p)
		if err != nil {
			return nil, err
		}
		h := fr.Header()
		srcs[i] = &src{fr: fr, f: &File{Path: p, Header: h, Total: NewInterval(len(h.Endpoints))}}
	}
	for {
		var merged *Interval
		for _, s := range srcs {
			if s.done {
				continue
			}
			iv, err := s.fr.Next()
			if err == io.EOF {
				s.done = true
				s.f.Trailer = s.fr.Trailer()
				s.f.Resources, s.f.Metrics, s.f.Subscriptions = s.fr.Resources(), s.fr.Metrics(), s.fr.Subscriptions()
				s.f.Contradictions, s.f.ContradictionCount = s.fr.Contradictions()
				continue
			}
			if err != nil {
				return nil, err
			}
			if err := s.f.add(s.fr, iv); err != nil {
				return nil, err
			}
			if merged == nil {
				merged = iv
			} else if len(merged.Endpoints) != len(iv.Endpoints) {
				return nil, fmt.Errorf("result: cannot merge %s (%d endpoints) with %s (%d endpoints)", s.f.Path, len(iv.Endpoints), paths[0], len(merged.Endpoints))
			} else {
				merged.Merge(iv)
			}
		}
		if merged == nil {
			break
		}
		if visit != nil {
			if err := visit(srcs[0].f, merged); err != nil {
				return nil, err
			}
		}
	}
	files := make([]*File, len(srcs))
	for i, s := range srcs {
		files[i] = s.f
	}
	return Merge(files...)
}

// parseCallOutcome is the inverse of CallOutcome.String.
func parseCallOutcome(s string) (CallOutcome, error) {
	for _, o := range []CallOutcome{CallOK, CallError, CallUnanswered} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("outcome %q: want ok, error or unanswered", s)
}
