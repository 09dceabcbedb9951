package cli

import (
	"flag"
	"io"
	"regexp"
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

// liveOutputs splits the --out values: TYPE=URL values become the live outputs, in their order,
// and the rest are returned as they were given (the result file's paths); --metrics-addr adds the
// scrape endpoint. A value whose TYPE is not an output's is a usage error when what follows is a
// URL, and a file name otherwise ("a=b.json" stays a file). notes gets each output's closing line
// (what it sent and dropped); version is the tool's, told to receivers.
func (f *liveFlags) outputs(outs []string, notes io.Writer, cut <-chan struct{}, version string) (files []string, live output.Set, err error) {
	for _, v := range outs {
		m := outType.FindStringSubmatch(v)
		if m == nil {
			files = append(files, v)
			continue
		}
		switch typ, rest := m[1], m[2]; typ {
		case "prometheus-rw":
			o, err := promrw.New("--out "+typ, rest, promrw.Options{PushOptions: output.PushOptions{Notes: notes, NativeHistograms: f.natives, Cut: cut}, UserAgent: "rpcbench/" + version})
			if err != nil {
				return nil, nil, usagef("--out %s=%s: %v", typ, plan.RedactURL(rest), err)
			}
			live = append(live, o)
		case "otlp", "otlp-grpc":
			o, err := otlp.New("--out "+typ, rest, otlp.Options{PushOptions: output.PushOptions{Notes: notes, Cut: cut}, Version: version, GRPC: typ == "otlp-grpc"})
			if err != nil {
				return nil, nil, usagef("--out %s=%s: %v", typ, plan.RedactURL(rest), err)
			}
			live = append(live, o)
		default:
			if strings.Contains(rest, "://") {
				return nil, nil, usagef("--out %s=%s: no output is named %q: expected one of %s, as --out TYPE=URL, or a file name", typ, plan.RedactURL(rest), typ, strings.Join(liveTypes, ", "))
			}
			files = append(files, v)
		}
	}
	if f.metricsAddr != "" {
		o, err := promscrape.New("--metrics-addr", f.metricsAddr)
		if err != nil {
			return nil, nil, usagef("--metrics-addr: %v", err)
		}
		live = append(live, o)
	}
	return files, live, nil
}
