package replay

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// fuzzRead reads every record of data in format and checks what each parser promises: no panic,
// an end, records that can be sent (a method that is a token, a target that is a path or an
// absolute URL, header values without line breaks) and bad lines that name a line of the input.
func fuzzRead(t *testing.T, data []byte, format string) {
	rd, err := NewReader("f", bytes.NewReader(data), format)
	if err != nil {
		return // a header or layout refused whole
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for range len(data) + 2 { // each record or bad line takes at least one byte
		rec, err := rd.Next()
		var le *LineError
		switch {
		case err == io.EOF:
			return
		case errors.As(err, &le):
			if le.Line < 1 || le.Line > lines {
				t.Fatalf("bad line %d of an input of %d lines: %v", le.Line, lines, err)
			}
			continue
		case err != nil:
			return // reading cannot go on (a HAR file that is not JSON)
		}
		if !isToken(rec.Method) {
			t.Fatalf("method %q", rec.Method)
		}
		if !strings.HasPrefix(rec.Target, "/") && !strings.Contains(rec.Target, "://") && rec.Calls == 0 {
			t.Fatalf("target %q", rec.Target)
		}
		for _, h := range rec.Header {
			if !isToken(h.Name) || strings.ContainsAny(h.Value, "\r\n") {
				t.Fatalf("header %q: %q", h.Name, h.Value)
			}
		}
		if rec.Line < 1 || rec.Line > lines {
			t.Fatalf("record at line %d of an input of %d lines", rec.Line, lines)
		}
	}
	t.Fatalf("no end after %d records", len(data)+2)
}

func seed(f *testing.F, file string, extra ...string) {
	b, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

func FuzzAccessLog(f *testing.F) {
	seed(f, "testdata/combined.log", `1.2.3.4 - - [01/Mar/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "\"" "\\"`, "\n\n", `- - - [] "" - -`)
	seed(f, "testdata/common.log")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, FormatCombined) })
}

func FuzzLogFormat(f *testing.F) {
	f.Add(`$time_iso8601 $request_method $uri $status "$http_x_token"`, []byte("2024-03-01T10:00:00Z GET /a 200 \"t\"\n"))
	f.Add(`${msec}|$request|${args}`, []byte("1709287200.123|GET /b HTTP/1.1|x=1\n"))
	f.Add(`$request`, []byte("GET / HTTP/1.1"))
	f.Fuzz(func(t *testing.T, layout string, data []byte) {
		if strings.ContainsAny(layout, "\r\n") {
			return
		}
		fuzzRead(t, data, "log_format:"+layout)
	})
}

func FuzzHAR(f *testing.F) {
	seed(f, "testdata/chrome.har", `{"log":{"entries":[{}]}}`, `{"log":{"entries":[`, `{"log":{"pages":[1,2],"entries":[{"request":{"method":"GET","url":"http://a/"},"startedDateTime":"2024-03-01T10:00:00Z"}]}}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, FormatHAR) })
}

func FuzzJSONRPCLog(f *testing.F) {
	seed(f, "testdata/rpc.jsonl", `{"t":"1","body":"[]"}`, `{"time":1e400,"request":{}}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, FormatJSONRPC) })
}

func FuzzCSVLog(f *testing.F) {
	seed(f, "testdata/requests.csv", "id,endpoint,intended,sent,latency_ms,service_ms,status,class\n\"")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, FormatCSVLog) })
}

func FuzzVegeta(f *testing.F) {
	seed(f, "testdata/vegeta.jsonl", `{"url":"http://a/","timestamp":"x"}`, `{"url":"http://a/","header":{"a b":["c"]}}`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, data, FormatVegeta) })
}
