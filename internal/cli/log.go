package cli

import (
	"flag"
	"fmt"
	"os"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
)

// defineRequestLog defines run's --log flag.
func defineRequestLog(fs *flag.FlagSet, path *string) {
	fs.StringVar(path, "log", "", "write a CSV row per measured request to `FILE`: "+
		"id, endpoint, intended, sent, latency_ms, service_ms, status, class (written off the hot path)")
}

// requestLogOut is the --log file of a run: an engine.CSVLog over a file.
type requestLogOut struct {
	path string
	fh   *os.File
	log  *engine.CSVLog
}

// newRequestLogOut creates the --log file of a run of np; o names the run's other outputs, which
// it must not be.
func newRequestLogOut(o outputs, np plan.Plan) (*requestLogOut, error) {
	if o.log == "" {
		return nil, nil
	}
	if err := distinctFiles([]namedFile{{"--log", o.log}, {"--out", o.out}, {"--report-file", o.reportFile}, {"--live", o.live}, {"--html", o.html}}, nil); err != nil {
		return nil, err
	}
	if err := checkOutput("--log", o.log); err != nil {
		return nil, err
	}
	fh, err := os.Create(o.log)
	if err != nil {
		return nil, fmt.Errorf("--log: %w", err)
	}
	return &requestLogOut{path: o.log, fh: fh, log: engine.NewCSVLog(fh, endpointNames(np))}, nil
}

func (r *requestLogOut) options() []engine.Option {
	if r == nil {
		return nil
	}
	return []engine.Option{engine.WithRequestLog(r.log)}
}

// finish writes the rows still buffered and closes the file.
func (r *requestLogOut) finish() error {
	if r == nil {
		return nil
	}
	_, err := r.log.Close()
	if cerr := r.fh.Close(); err == nil {
		err = cerr
	}
	return err
}
