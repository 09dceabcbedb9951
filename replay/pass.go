package replay

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Defaults of Options.
const (
	DefaultReorder  = 1024 // records that may come before one recorded earlier
	DefaultWindow   = 4096 // records read ahead of the schedule
	DefaultMaxNames = 50   // endpoints a replay reports apart; the others are "other"
	maxSamples      = 5    // bad lines quoted
)

// Options say which records of which files a replay sends, how they are changed and when.
type Options struct {
	// Files are read one after the other, as one recording (access.log.1 then access.log).
	Files []string
	// Format is every file's format (see NewReader); "": told by each file's content.
	Format string
	// Open opens a file; nil: os.Open.
	Open func(name string) (io.ReadCloser, error)
	// Base is the URL the requests go to: its scheme and host replace a recorded URL's, and its
	// path goes before the recorded path.
	Base string

	// Speed scales the recorded pace: 2 sends twice as fast, 0.5 half as fast; 0 means 1.
	Speed float64
	// Rate, when above 0, sends the records in their recorded order at this constant rate per
	// second instead of at their recorded instants.
	Rate float64
	// From and To keep the records recorded in [From, To); a zero bound is open.
	From, To time.Time
	// FromOffset and ToOffset give the bounds as offsets from the first record instead (0: open).
	FromOffset, ToOffset time.Duration
	// Loop sends the recording this many times, each pass after the last (0 means 1).
	Loop int
	// Reorder is how many records later than itself a record may be written and still be sent in
	// its recorded order; a file that goes back further is refused. 0: DefaultReorder.
	Reorder int
	// Window is how many records are read ahead of the schedule; 0: DefaultWindow.
	Window int
	// Every keeps every Every-th record (1 or 0: all); Fraction keeps about this share of them,
	// chosen by Seed (0 or 1: all). Both may be given: Every first.
	Every    uint64
	Fraction float64
	Seed     uint64
	// Include and Exclude filter the records by their path (with the query).
	Include, Exclude *regexp.Regexp
	// DropHeaders are the recorded headers not sent (by name, any case); SetHeaders are sent
	// instead of a recorded header of their name, or added.
	DropHeaders []string
	SetHeaders  []result.RequestHeader
	// MaxNames is how many endpoints are reported apart (0: DefaultMaxNames).
	MaxNames int
}

// Skips counts the lines (or entries) that did not parse, with the first few of them.
type Skips struct {
	Count   uint64
	Samples []string // "file:line: what is wrong"
}

func (s *Skips) add(err error) {
	s.Count++
	if len(s.Samples) < maxSamples {
		s.Samples = append(s.Samples, err.Error())
	}
}

// item is one record as a pass gives it: where it comes in the recording, kept and rewritten.
type item struct {
	rec  Record
	file string
	seq  uint64 // its place among the records of the pass, before filters
}

// pass reads the files once, in order, and gives the records that the options keep, in the order
// they were recorded, rewritten. It holds at most Reorder records.
type pass struct {
	o     *Options
	base  *url.URL
	files []string
	name  string
	rd    Reader
	cl    io.Closer
	skips *Skips
	held  itemHeap
	seq   uint64
	last  *item     // the last record given, to refuse one recorded before it
	first time.Time // the first record's time: what --from and --to offsets count from
	kept  uint64
	eof   bool
}

func newPass(o *Options, base *url.URL, skips *Skips) *pass {
	return &pass{o: o, base: base, files: o.Files, skips: skips}
}

func (p *pass) close() {
	if p.cl != nil {
		p.cl.Close()
		p.cl = nil
	}
}

// read returns the next record of the files, or io.EOF.
func (p *pass) read() (item, error) {
	for {
		if p.rd == nil {
			if len(p.files) == 0 {
				return item{}, io.EOF
			}
			p.name, p.files = p.files[0], p.files[1:]
			open := p.o.Open
			if open == nil {
				open = func(name string) (io.ReadCloser, error) { return os.Open(name) }
			}
			f, err := open(p.name)
			if err != nil {
				return item{}, err
			}
			p.cl = f
			if p.rd, err = NewReader(p.name, f, p.o.Format); err != nil {
				p.close()
				return item{}, err
			}
		}
		rec, err := p.rd.Next()
		var le *LineError
		switch {
		case err == nil:
			p.seq++
			return item{rec: rec, file: p.name, seq: p.seq - 1}, nil
		case errors.As(err, &le):
			p.skips.add(err)
		case err == io.EOF:
			p.close()
			p.rd = nil
		default:
			return item{}, err
		}
	}
}

// sorted returns the next record in recorded order: the earliest of Reorder records held.
func (p *pass) sorted() (item, error) {
	limit := p.o.Reorder
	if limit <= 0 {
		limit = DefaultReorder
	}
	for !p.eof && len(p.held) < limit {
		it, err := p.read()
		if err == io.EOF {
			p.eof = true
			break
		}
		if err != nil {
			return item{}, err
		}
		heap.Push(&p.held, &it)
	}
	if len(p.held) == 0 {
		return item{}, io.EOF
	}
	it := *heap.Pop(&p.held).(*item)
	if l := p.last; l != nil && it.rec.Time.Before(l.rec.Time) {
		return item{}, fmt.Errorf("%s:%d: recorded at %s, earlier than %s:%d (%s), which is in time order before it already: "+
			"the record is written more than %d records after its place in time (--reorder); sort the file, or raise --reorder",
			it.file, it.rec.Line, it.rec.Time.Format(time.RFC3339Nano), l.file, l.rec.Line, l.rec.Time.Format(time.RFC3339Nano), limit)
	}
	p.last = &it
	return it, nil
}

// next returns the next record the options keep, rewritten, or io.EOF.
func (p *pass) next() (item, error) {
	o := p.o
	for {
		it, err := p.sorted()
		if err != nil {
			return item{}, err
		}
		rec := &it.rec
		if rec.Time.IsZero() && o.Rate <= 0 {
			return item{}, fmt.Errorf("%s:%d: the record has no time: give --rate to send the records in their order at a constant rate", it.file, rec.Line)
		}
		if p.first.IsZero() {
			p.first = rec.Time
		}
		if !p.inWindow(rec.Time) {
			if !o.To.IsZero() && !rec.Time.Before(o.To) || o.ToOffset > 0 && !rec.Time.Before(p.first.Add(o.ToOffset)) {
				p.eof, p.held = true, nil // in recorded order: nothing after it is in the window
				return item{}, io.EOF
			}
			continue
		}
		path := pathOf(rec.Target)
		if o.Include != nil && !o.Include.MatchString(path) || o.Exclude != nil && o.Exclude.MatchString(path) {
			continue
		}
		p.kept++
		if o.Every > 1 && (p.kept-1)%o.Every != 0 {
			continue
		}
		if o.Fraction > 0 && o.Fraction < 1 && float64(splitmix(o.Seed^it.seq)>>11)/(1<<53) >= o.Fraction {
			continue
		}
		p.rewrite(rec)
		return it, nil
	}
}

// inWindow reports whether t is inside the --from/--to window.
func (p *pass) inWindow(t time.Time) bool {
	o := p.o
	if o.Rate > 0 && t.IsZero() {
		return o.From.IsZero() && o.To.IsZero() && o.FromOffset == 0 && o.ToOffset == 0
	}
	switch {
	case !o.From.IsZero() && t.Before(o.From), !o.To.IsZero() && !t.Before(o.To):
		return false
	case o.FromOffset > 0 && t.Before(p.first.Add(o.FromOffset)), o.ToOffset > 0 && !t.Before(p.first.Add(o.ToOffset)):
		return false
	}
	return true
}

// rewrite applies the header drops and sets to rec.
func (p *pass) rewrite(rec *Record) {
	o := p.o
	if len(o.DropHeaders) == 0 && len(o.SetHeaders) == 0 {
		return
	}
	hs := make([]result.RequestHeader, 0, len(rec.Header)+len(o.SetHeaders))
	for _, h := range rec.Header {
		if !namedIn(h.Name, o.DropHeaders) && !hasHeader(o.SetHeaders, h.Name) {
			hs = append(hs, h)
		}
	}
	rec.Header = append(hs, o.SetHeaders...)
}

// hasHeader reports whether hs has a header called name (in any case).
func hasHeader(hs []result.RequestHeader, name string) bool {
	return slices.ContainsFunc(hs, func(h result.RequestHeader) bool { return strings.EqualFold(h.Name, name) })
}

func namedIn(name string, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// pathOf returns the path and query of a target: itself, or an absolute URL's.
func pathOf(target string) string {
	i := strings.Index(target, "://")
	if i < 0 {
		return target
	}
	j := strings.IndexAny(target[i+3:], "/?")
	if j < 0 {
		return "/"
	}
	p := target[i+3+j:]
	if p[0] == '?' {
		p = "/" + p
	}
	return p
}

// splitmix is SplitMix64's finalizer: a fixed, well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// itemHeap orders items by time, then by their place in the files. It holds pointers: a swap of
// records by value costs more than the rest of a line's parsing.
type itemHeap []*item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if !h[i].rec.Time.Equal(h[j].rec.Time) {
		return h[i].rec.Time.Before(h[j].rec.Time)
	}
	return h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(*item)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return it
}
