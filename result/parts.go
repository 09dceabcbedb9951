package result

import "time"

// Part is one of the runs a merged file adds up (see Merge): one generator's own figures, kept so
// that a report of the merged run can show each generator's rate and whether it kept up with its
// share of the schedule. The zero value is a part that sent nothing.
type Part struct {
	Path string `json:"path"`
	Host string `json:"host,omitempty"`
	// MeasuredStart and Elapsed are its measured part's wall-clock start and length (its trailer's,
	// or made up from its intervals when it was cut short): when it ran.
	MeasuredStart time.Time     `json:"measured_start"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	Segment       string        `json:"segment,omitempty"` // the execution segment it ran; empty: not split
	// Intended, Attempted (sent, or failed before any byte was written) and Sent count its
	// requests; Sending and SendSpan are its trailer's.
	Intended  uint64        `json:"intended"`
	Attempted uint64        `json:"attempted"`
	Sent      uint64        `json:"sent"`
	Sending   time.Duration `json:"sending_ns"`
	SendSpan  time.Duration `json:"send_span_ns"`
	// LagP99 and LagMax are its send lag: how late after their intended times it sent.
	LagP99      time.Duration `json:"send_lag_p99_ns"`
	LagMax      time.Duration `json:"send_lag_max_ns"`
	Procs       int           `json:"procs,omitempty"`
	StartAt     time.Time     `json:"start_at,omitzero"` // the shared start it was given, if any
	StartLate   time.Duration `json:"start_late_ns,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	CutShort    bool          `json:"cut_short,omitempty"`
}

// part returns f's figures as a Part.
func (f *File) part() Part {
	r := f.Run()
	p := Part{
		Path: f.Path, Host: f.Header.Host, MeasuredStart: r.MeasuredStart, Elapsed: r.Elapsed,
		Segment: r.Segment, Intended: r.Intended,
		Sending: r.Sending, SendSpan: r.SendSpan, Procs: r.Procs, StartAt: r.StartAt, StartLate: r.StartLate,
		Interrupted: r.Interrupted, CutShort: f.CutShort(),
		LagP99: time.Duration(f.Total.SendLag.ValueAtQuantile(99)) * time.Microsecond,
		LagMax: time.Duration(f.Total.SendLag.Max()) * time.Microsecond,
	}
	if f.Total.SendLag.TotalCount() == 0 {
		p.LagP99, p.LagMax = 0, 0
	}
	for _, c := range f.Total.Endpoints {
		p.Attempted += c.Attempted()
		p.Sent += c.Sent
	}
	return p
}
