package engine

import (
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Request is what the engine knows of one measured request when it is done: the record of a
// per-request log (warm-up requests are not logged).
type Request struct {
	// ID is the arrival's number in the run, from 0: unique, in the order the arrivals were due
	// (open model) or started (closed model).
	ID       uint64
	Endpoint int // index into the plan's endpoints
	// Intended is when the request was due, Sent when its first byte was written (Intended's
	// sender start when the transport did not say, zero when nothing was written), Done when its
	// answer or failure came.
	Intended, Sent, Done time.Time
	Status               int          // the answer's status; 0 when none came
	Class                result.Class // OK, or why it failed
}

// RequestLog receives every measured request of a run. Each sender goroutine calls Sender once
// when it starts; the log func it gets back is called from that goroutine only, after each of its
// measured requests, with a Request valid only during the call; done is called when the
// goroutine ends. log runs on the hot path: it should copy the Request into a buffer of its own
// and hand full buffers to another goroutine (see the run command's --log), never block on I/O.
// Without a RequestLog, the engine's cost per request is one nil check.
type RequestLog interface {
	Sender(id int) (log func(*Request), done func())
}

// WithRequestLog hands every measured request to l.
func WithRequestLog(l RequestLog) Option { return func(o *options) { o.reqLog = l } }

// newWorker returns the state of sender id, with its request log if the run has one.
func (r *run) newWorker(id int) *worker {
	w := &worker{r: r, id: id}
	if r.o.reqLog != nil {
		w.log, w.logDone = r.o.reqLog.Sender(id)
	}
	return w
}

// close ends the worker's part of the request log.
func (w *worker) close() {
	if w.logDone != nil {
		w.logDone()
	}
}

// logRequest hands request i to the log, through the worker's reused Request.
func (w *worker) logRequest(i uint64, intended, sent, done time.Time, ev *result.Event) {
	w.logged = Request{ID: i, Endpoint: ev.Endpoint, Intended: intended, Sent: sent, Done: done, Status: ev.Status, Class: ev.Class}
	if ev.Unsent {
		w.logged.Sent = time.Time{}
	}
	w.log(&w.logged)
}
