package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rpcbench/rpcbench/result"
)

// HLog writes a run as HdrHistogram's interval log (format 1.3), so that HdrHistogram's own tools
// (HistogramLogProcessor, the plotters) read it: one untagged line per interval with the latency
// histogram of every endpoint together and, when there are several endpoints, one line per
// endpoint tagged with its name. Latencies are written in nanoseconds, as jHiccup and HdrHistogram's
// tools expect (their default output unit ratio turns them into milliseconds); timestamps are
// seconds from the measured start, which the log's StartTime and BaseTime give.
//
// The zero value is not usable: use NewHLog. Not safe for concurrent use.
type HLog struct {
	lw    *hdr.HistogramLogWriter
	start time.Time
	tags  []string
	total *result.Counts       // reused by Interval
	ns    *hdr.PackedHistogram // reused by line: sparse, as a dense one is 240 KB a line
}

// NewHLog writes the log's preamble to w: a comment, the format version, the start and base times
// and the column legend. names label the endpoints (by index).
func NewHLog(w io.Writer, start time.Time, names []string, comment string) (*HLog, error) {
	l := &HLog{lw: hdr.NewHistogramLogWriter(w), start: start}
	for _, n := range names {
		l.tags = append(l.tags, tag(n))
	}
	ms := start.UnixMilli()
	// The writer prints the base time in whole seconds: take a whole second as the base, so that
	// the intervals' timestamps (relative to it) add up to the right absolute times.
	base := start.Truncate(time.Second).UnixMilli()
	l.lw.SetBaseTime(base)
	for _, f := range []func() error{
		func() error { return l.lw.OutputComment(comment) },
		l.lw.OutputLogFormatVersion,
		func() error { return l.lw.OutputStartTime(ms) },
		func() error { return l.lw.OutputBaseTime(base) },
		l.lw.OutputLegend,
	} {
		if err := f(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Comment writes s as a comment line ("#" and s, its line breaks made spaces), which readers of
// interval logs skip.
func (l *HLog) Comment(s string) error { return l.lw.OutputComment(oneLine(s)) }

// tag turns an endpoint name into an interval-log tag, which must not hold commas or spaces.
func tag(name string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || r == ' ' || r == '\r' || r == '\n' || r == '\t' {
			return '_'
		}
		return r
	}, name)
}

// Interval writes iv's lines.
func (l *HLog) Interval(iv *result.Interval) error {
	if l.total == nil {
		l.total = result.NewCounts()
	}
	if err := l.line(iv, iv.TotalInto(l.total).Latency, ""); err != nil {
		return err
	}
	if len(iv.Endpoints) > 1 {
		for i, c := range iv.Endpoints {
			t := fmt.Sprintf("endpoint%d", i+1)
			if i < len(l.tags) && l.tags[i] != "" {
				t = l.tags[i]
			}
			if err := l.line(iv, c.Latency, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *HLog) line(iv *result.Interval, us *result.Histogram, tag string) error {
	if l.ns == nil {
		l.ns = hdr.NewPacked(1000, result.HistMax*1000, result.HistSigFigs)
	}
	ns := l.ns
	toNanos(ns, us)
	ns.SetTag(tag)
	ns.SetStartTimeMs(l.start.Add(iv.Start).UnixMilli())
	ns.SetEndTimeMs(l.start.Add(iv.End).UnixMilli())
	return l.lw.OutputIntervalPackedHistogram(ns)
}

// toNanos empties ns and fills it with the microsecond histogram us, every value in nanoseconds:
// each bucket's count is recorded at the bucket's lowest value times 1000, so counts are exact and
// values keep their 3 significant digits. (A sparse histogram encodes to the same bytes as a dense
// one.)
func toNanos(ns *hdr.PackedHistogram, us *result.Histogram) {
	ns.Reset()
	for _, bar := range us.Distribution() {
		if bar.Count > 0 {
			_ = ns.RecordValues(bar.From*1000, bar.Count) // within range: us is within 1 µs..1 h
		}
	}
}
