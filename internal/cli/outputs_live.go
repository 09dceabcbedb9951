package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/output"
	"github.com/rpcbench/rpcbench/output/otlp"
	"github.com/rpcbench/rpcbench/output/promrw"
	"github.com/rpcbench/rpcbench/output/promscrape"
	"github.com/rpcbench/rpcbench/plan"
)

// liveFlags are the flags of `run` that serve its live series to a Prometheus that pulls; those
// that push are --out values (see liveOutputs).
type liveFlags struct {
	metricsAddr string
	natives     bool
}

func (f *liveFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve the run's live series at http://`HOST:PORT`/metrics while it runs, for Prometheus to scrape (e.g. 127.0.0.1:9464)")
	fs.BoolVar(&f.natives, "prometheus-native-histograms", false, "--out prometheus-rw: also send each endpoint's latency as a native histogram (the receiver must take them: Prometheus with --enable-feature=native-histograms)")
}

// liveTypes are the --out TYPE= prefixes that name a live output, as k6 users type them.
var liveTypes = []string{"prometheus-rw", "otlp", "otlp-grpc"}

// outType matches the TYPE= of an --out value that names an output instead of a file.
var outType = regexp.MustCompile(`^([a-z][a-z0-9-]*)=(.*)$`)

// liveSet makes the live outputs of one run, checked: an output serves one run, so a command that
// runs several (bench, capacity) makes a set for each.
type liveSet []func(notes io.Writer) output.Output

// set returns a new output of each kind asked for; notes gets each output's closing line (what it
// sent and dropped).
func (l liveSet) set(notes io.Writer) output.Set {
	s := make(output.Set, len(l))
	for i, mk := range l {
		s[i] = mk(notes)
	}
	return s
}

// liveOutput returns the maker of the output of type typ sending to rest, named name in messages,
// once the arguments are checked; found is false when typ is no output's. version is the tool's,
// told to receivers; cut, when closed, ends the outputs' flush at the end (a second Ctrl-C).
func (f *liveFlags) liveOutput(name, typ, rest, version string, cut <-chan struct{}) (mk func(io.Writer) output.Output, found bool, err error) {
	switch typ {
	case "prometheus-rw":
		mk, err := maker(name, rest, promrw.New, func(notes io.Writer) promrw.Options {
			return promrw.Options{PushOptions: output.PushOptions{Notes: notes, NativeHistograms: f.natives, Cut: cut}, UserAgent: "rpcbench/" + version}
		})
		return mk, true, err
	case "otlp", "otlp-grpc":
		mk, err := maker(name, rest, otlp.New, func(notes io.Writer) otlp.Options {
			return otlp.Options{PushOptions: output.PushOptions{Notes: notes, Cut: cut}, Version: version, GRPC: typ == "otlp-grpc"}
		})
		return mk, true, err
	}
	return nil, false, nil
}

// maker checks that newOutput takes name, url and options, and returns what makes such an output
// with the notes of each run.
func maker[O output.Output, Opts any](name, url string, newOutput func(string, string, Opts) (O, error), options func(notes io.Writer) Opts) (func(io.Writer) output.Output, error) {
	if _, err := newOutput(name, url, options(nil)); err != nil {
		return nil, err
	}
	return func(notes io.Writer) output.Output {
		o, _ := newOutput(name, url, options(notes)) // the arguments were taken above
		return o
	}, nil
}

// outputs splits the --out values: TYPE=URL values become the live outputs, in their order,
// and the rest are returned as they were given (the result file's paths); --metrics-addr adds the
// scrape endpoint. A value whose TYPE is not an output's is a usage error when what follows is a
// URL, and a file name otherwise ("a=b.json" stays a file). version is the tool's, told to
// receivers; cut ends the outputs' flush (see liveOutput).
func (f *liveFlags) outputs(outs []string, cut <-chan struct{}, version string) (files []string, live liveSet, err error) {
	for _, v := range outs {
		m := outType.FindStringSubmatch(v)
		if m == nil {
			files = append(files, v)
			continue
		}
		typ, rest := m[1], m[2]
		mk, found, err := f.liveOutput("--out "+typ, typ, rest, version, cut)
		switch {
		case err != nil:
			return nil, nil, usagef("--out %s=%s: %v", typ, plan.RedactURL(rest), err)
		case found:
			live = append(live, mk)
		case strings.Contains(rest, "://"):
			return nil, nil, usagef("--out %s=%s: no output is named %q: expected one of %s, as --out TYPE=URL, or a file name", typ, plan.RedactURL(rest), typ, strings.Join(liveTypes, ", "))
		default:
			files = append(files, v)
		}
	}
	if f.metricsAddr != "" {
		if _, err := promscrape.New("--metrics-addr", f.metricsAddr); err != nil {
			return nil, nil, usagef("--metrics-addr: %v", err)
		}
		live = append(live, func(io.Writer) output.Output {
			o, _ := promscrape.New("--metrics-addr", f.metricsAddr) // the address was taken above
			return o
		})
	}
	return files, live, nil
}

// fileOutputs returns the live outputs of plan file b (its outputs: key); one that is not
// TYPE=URL of a live output is a usage error at its line.
func (f *liveFlags) fileOutputs(b *plan.Bench, version string, cut <-chan struct{}) (liveSet, error) {
	var live liveSet
	for i, o := range b.Outputs {
		fe := &plan.FileError{File: b.File, Line: o.Line, Col: o.Col, Key: "outputs"}
		if len(b.Outputs) > 1 {
			fe.Key = fmt.Sprintf("outputs[%d]", i)
		}
		m := outType.FindStringSubmatch(o.Spec)
		if m == nil {
			fe.Msg = "want TYPE=URL, TYPE one of " + strings.Join(liveTypes, ", ") + ", got " + strconv.Quote(plan.RedactURL(o.Spec))
			return nil, usageError{fe.Error()}
		}
		mk, found, err := f.liveOutput(fe.Key+" "+m[1], m[1], m[2], version, cut)
		switch {
		case err != nil:
			fe.Msg = err.Error()
			return nil, usageError{fe.Error()}
		case !found:
			fe.Msg = "no output is named " + strconv.Quote(m[1]) + ": expected one of " + strings.Join(liveTypes, ", ")
			return nil, usageError{fe.Error()}
		}
		live = append(live, mk)
	}
	return live, nil
}

// prefixed writes each line given to w after prefix: the closing lines of the outputs of one run
// among several, said with the run they are of.
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	var buf bytes.Buffer
	for line := range bytes.Lines(b) {
		buf.WriteString(p.prefix)
		buf.Write(line)
	}
	if _, err := p.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
