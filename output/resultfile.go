package output

import (
	"encoding/json"
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// ResultFile writes a run's result file as the run goes: the header when it starts, an interval
// line at every measured tick, the watched resources and the trailer at the end (also after an
// interruption). A write error stops the writing; Stop returns it and the run goes on.
type ResultFile struct {
	name, path string
	fh         *os.File
	w          *result.Writer
	err        error
}

// NewResultFile returns the output that writes the result file at path; name is the output's name
// in messages (the flag, --out).
func NewResultFile(name, path string) *ResultFile { return &ResultFile{name: name, path: path} }

// Name says which output it is.
func (o *ResultFile) Name() string { return o.name }

// Path is where the file is written.
func (o *ResultFile) Path() string { return o.path }

// Start creates the file and writes the header of r.
func (o *ResultFile) Start(r Run) error {
	cfg, err := json.Marshal(r.Plan)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	h := result.Header{
		Tool: "rpcbench", ToolVersion: r.Version, Command: r.Command, Target: summary.Target(r.Plan), Endpoints: r.Endpoints,
		Config: cfg, StartedAt: r.Started.UTC(), Warmup: r.Plan.Load.Warmup, Planned: r.Plan.Load.MeasuredLength(), Host: host,
	}
	fh, err := os.Create(o.path)
	if err != nil {
		return err
	}
	w, err := result.NewWriter(fh, h)
	if err != nil {
		fh.Close()
		return err
	}
	o.fh, o.w = fh, w
	return nil
}

// Tick writes the measured interval of t.
func (o *ResultFile) Tick(t *engine.Tick) {
	iv := t.Interval
	if o.err != nil || o.w == nil || iv.End <= iv.Start && iv.Sent() == 0 {
		return // nothing measured yet (warm-up)
	}
	o.err = o.w.WriteInterval(iv)
}

// Stop writes what was watched, the subscriptions' figures and the trailer, and closes the file. With res nil (the run could
// not start) it removes the file, which holds no run — never a device, a pipe or a link the user
// named.
func (o *ResultFile) Stop(res *engine.Result, s *summary.Summary) error {
	if o.fh == nil {
		return nil
	}
	if res == nil {
		o.fh.Close()
		if fi, err := os.Lstat(o.path); err == nil && fi.Mode().IsRegular() {
			os.Remove(o.path)
		}
		return nil
	}
	if o.err == nil && s != nil && len(s.Resources) > 0 {
		o.err = o.w.WriteResources(s.Resources...)
	}
	if o.err == nil && s != nil && s.Metrics != nil {
		o.err = o.w.WriteMetrics(*s.Metrics)
	}
	if o.err == nil && s != nil && s.Subscriptions != nil {
		var subs []byte
		if subs, o.err = json.Marshal(s.Subscriptions); o.err == nil {
			o.err = o.w.WriteSubscriptions(subs)
		}
	}
	if o.err == nil {
		t := res.Trailer
		t.MeasuredStart = t.MeasuredStart.UTC()
		o.err = o.w.Close(t)
	}
	if err := o.fh.Close(); o.err == nil {
		o.err = err
	}
	return o.err
}

var _ Output = (*ResultFile)(nil)
