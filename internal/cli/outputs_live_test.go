package cli

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// --out TYPE=URL names a live output; other values, "=" or not, stay the result file's path; a
// URL after a TYPE that is no output's, a bad URL and a bad --metrics-addr are usage errors that
// name the flag and say what was expected.
func TestLiveOutputs(t *testing.T) {
	for _, c := range []struct {
		args  []string
		outs  []string
		files []string
		live  []string
		err   string
	}{
		{outs: []string{"run.json", "a=b.json", "prometheus-rw=http://127.0.0.1:9090/api/v1/write", "otlp=http://127.0.0.1:4318/v1/metrics", "otlp-grpc=http://127.0.0.1:4317"},
			files: []string{"run.json", "a=b.json"}, live: []string{"--out prometheus-rw", "--out otlp", "--out otlp-grpc"}},
		{args: []string{"--metrics-addr", "127.0.0.1:9464"}, live: []string{"--metrics-addr"}},
		{outs: []string{"influxdb=http://127.0.0.1:8086"}, err: `--out influxdb=http://127.0.0.1:8086: no output is named "influxdb": expected one of prometheus-rw, otlp, otlp-grpc`},
		{outs: []string{"prometheus-rw=127.0.0.1:9090"}, err: `--out prometheus-rw=127.0.0.1:9090: "127.0.0.1:9090" is not a remote-write URL: expected http:// or https://`},
		{outs: []string{"otlp=127.0.0.1:4318"}, err: `--out otlp=127.0.0.1:4318: "127.0.0.1:4318" is not an OTLP/HTTP URL: expected http:// or https://`},
		{outs: []string{"otlp-grpc=127.0.0.1:4317"}, err: `--out otlp-grpc=127.0.0.1:4317: "127.0.0.1:4317" is not an OTLP/gRPC URL`},
		{args: []string{"--metrics-addr", "9464"}, err: `--metrics-addr: "9464" is not an address to listen on: expected host:port`},
	} {
		var f liveFlags
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		f.define(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		files, live, err := f.outputs(c.outs, nil, "test")
		if c.err != "" {
			var u usageError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &u) {
				t.Errorf("%v %v: error %v, want a usage error with %q", c.args, c.outs, err, c.err)
			}
			continue
		}
		var names []string
		for _, o := range live.set(io.Discard) {
			names = append(names, o.Name())
		}
		if err != nil || !slices.Equal(files, c.files) || !slices.Equal(names, c.live) {
			t.Errorf("%v %v: files %q, outputs %q, %v; want %q, %q", c.args, c.outs, files, names, err, c.files, c.live)
		}
	}
}
