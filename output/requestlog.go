package output

import (
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/summary"
)

// RequestLogFile writes a CSV row per measured request (engine.CSVLog) to a file: id, endpoint,
// intended, sent, latency, service time, status, class — buffered off the hot path.
type RequestLogFile struct {
	name, path string
	fh         *os.File
	log        *engine.CSVLog
}

// NewRequestLogFile returns the output that writes the log to path; name is its name in messages
// (--log).
func NewRequestLogFile(name, path string) *RequestLogFile {
	return &RequestLogFile{name: name, path: path}
}

// Name says which output it is.
func (r *RequestLogFile) Name() string { return r.name }

// Start creates the file and writes the header row.
func (r *RequestLogFile) Start(run Run) error {
	fh, err := os.Create(r.path)
	if err != nil {
		return err
	}
	r.fh, r.log = fh, engine.NewCSVLog(fh, run.Endpoints)
	return nil
}

// RequestLog is what the engine hands every measured request to.
func (r *RequestLogFile) RequestLog() engine.RequestLog { return r.log }

// Tick does nothing: the rows come through RequestLog.
func (r *RequestLogFile) Tick(*engine.Tick) {}

// Stop writes the rows still buffered and closes the file (a run that could not start leaves
// its header row only).
func (r *RequestLogFile) Stop(*engine.Result, *summary.Summary) error {
	if r.fh == nil {
		return nil
	}
	_, err := r.log.Close()
	if cerr := r.fh.Close(); err == nil {
		err = cerr
	}
	return err
}

var _ RequestLogger = (*RequestLogFile)(nil)
