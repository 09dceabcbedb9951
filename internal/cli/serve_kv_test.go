package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kvOutput collects what a serve kind prints and hands it to the test line by line.
type kvOutput struct {
	w     *io.PipeWriter
	lines chan string
}

func newKVOutput() *kvOutput {
	r, w := io.Pipe()
	o := &kvOutput{w: w, lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			o.lines <- sc.Text()
		}
		close(o.lines)
	}()
	return o
}

// until returns the lines printed up to and including the first that matches re.
func (o *kvOutput) until(t *testing.T, re string) []string {
	t.Helper()
	want := regexp.MustCompile(re)
	var got []string
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-o.lines:
			if !ok {
				t.Fatalf("output ended without a line matching %q; got:\n%s", re, strings.Join(got, "\n"))
			}
			got = append(got, l)
			if want.MatchString(l) {
				return got
			}
		case <-timeout:
			t.Fatalf("no line matching %q within 30s; got:\n%s", re, strings.Join(got, "\n"))
		}
	}
}

// serveInTest runs `rpcbench serve ARGS` until the returned stop is called; stop returns the
// exit code.
func serveInTest(t *testing.T, args ...string) (out *kvOutput, stop func() int) {
	t.Helper()
	out = newKVOutput()
	ctx, cancel := context.WithCancel(context.Background())
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runServe(ctx, &env{stdin: strings.NewReader(""), stdout: out.w, stderr: &errb}, args)
		out.w.Close()
	}()
	stopped := false
	stop = func() int {
		cancel()
		if stopped {
			return -1
		}
		stopped = true
		select {
		case c := <-code:
			if c != ExitOK {
				t.Errorf("stderr:\n%s", errb.String())
			}
			return c
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop within 30s of its context being cancelled")
			return -1
		}
	}
	t.Cleanup(func() {
		go func() { // let the output drain so the server never blocks on it
			for range out.lines {
			}
		}()
		stop()
	})
	return out, stop
}

func TestServeKVFlags(t *testing.T) {
	t.Parallel()
	tests := []cliCase{
		{"help", []string{"--help"}, ExitOK, []string{"Examples:", "rpcbench serve kv --data-dir ./kvdata --prefill-bytes 1GB", "-no-sync", "-value-bytes"}, nil},
		{"bad prefill-bytes unit", []string{"--prefill-bytes", "1XB"}, ExitUsage, nil, []string{"--prefill-bytes", `unknown unit "XB"`}},
		{"bad prefill-bytes number", []string{"--prefill-bytes", "lots"}, ExitUsage, nil, []string{"--prefill-bytes", `"lots" is not a size`}},
		{"negative prefill-bytes", []string{"--prefill-bytes", "-1GB"}, ExitUsage, nil, []string{"--prefill-bytes"}},
		{"prefill not a number", []string{"--prefill", "many"}, ExitUsage, nil, []string{"--prefill"}},
		{"negative prefill", []string{"--prefill", "-5"}, ExitUsage, nil, []string{"--prefill -5 is negative"}},
		{"both prefills", []string{"--prefill", "10", "--prefill-bytes", "1MB"}, ExitUsage, nil, []string{"--prefill and --prefill-bytes"}},
		{"zero value-bytes", []string{"--value-bytes", "0"}, ExitUsage, nil, []string{"--value-bytes 0 is out of range"}},
		{"stray argument", []string{"extra"}, ExitUsage, nil, []string{`unexpected argument "extra"`}},
		{"bad addr", []string{"--addr", "127.0.0.1:notaport"}, ExitUsage, nil, []string{"serve kv", "--addr", "notaport"}},
	}
	runCLICases(t, []string{"serve", "kv"}, tests)
}

func TestServeKVRuns(t *testing.T) {
	t.Parallel()
	out, stop := serveInTest(t, "kv", "--prefill", "1000", "--value-bytes", "10", "--pprof")
	lines := out.until(t, `^kv listening on http://127\.0\.0\.1:\d+$`)
	text := strings.Join(lines, "\n")
	for _, want := range []string{`prefilling 1000 keys ("0" … "999", 10-byte values, 10.0 kB)`, "prefilled 1000 keys", "temporary: removed at exit"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	dir := regexp.MustCompile(`kv: store in (\S+) \(temporary`).FindStringSubmatch(text)
	if dir == nil {
		t.Fatalf("output does not name the temporary store:\n%s", text)
	}
	url := strings.TrimPrefix(lines[len(lines)-1], "kv listening on ")
	c := &http.Client{Timeout: 10 * time.Second}
	for path, want := range map[string]int{"/v0/entity?id=999": 200, "/v0/entity?id=1000": 404, "/debug/pprof/": 200} {
		resp, err := c.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: got %d; want %d", path, resp.StatusCode, want)
		}
	}
	if code := stop(); code != ExitOK {
		t.Errorf("exit code after cancel: got %d; want %d", code, ExitOK)
	}
	if _, err := os.Stat(dir[1]); !os.IsNotExist(err) {
		t.Errorf("temporary store after exit: got %v; want it removed", err)
	}
}

func TestKVParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64 // -1: an error
	}{
		{"0", 0},
		{"1000", 1000},
		{"1GB", 1e9},
		{"1gb", 1e9},
		{"1 GB", 1e9},
		{"1.5GB", 1.5e9},
		{"1GiB", 1 << 30},
		{"512MiB", 512 << 20},
		{"2kB", 2000},
		{"3KiB", 3072},
		{"10B", 10},
		{"1TB", 1e12},
		{" 7MB ", 7e6},
		{"", -1},
		{"GB", -1},
		{"1XB", -1},
		{"1G", -1},        // ambiguous: say GB or GiB
		{"-1GB", -1},      // negative
		{"1.2.3MB", -1},   // not a number
		{"0.1B", -1},      // less than a byte
		{"9999999TB", -1}, // too large
		{"1e3", -1},       // no exponents
	}
	for _, tt := range tests {
		got, err := kvParseSize(tt.in)
		if tt.want < 0 {
			if err == nil {
				t.Errorf("kvParseSize(%q): got %d; want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("kvParseSize(%q): got %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestKVFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.00 kB", 10_000: "10.0 kB", 1_073_741_824: "1.07 GB", 5e12: "5.00 TB", 12_345e12: "12345 TB"} {
		if got := kvFormatBytes(n); got != want {
			t.Errorf("kvFormatBytes(%d): got %q; want %q", n, got, want)
		}
	}
}

func FuzzKVParseSize(f *testing.F) {
	for _, s := range []string{"1GB", "1.5GiB", "0", "1XB", "", " 3 kb", "1e9", "-1", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := kvParseSize(s)
		if err == nil && n < 0 {
			t.Errorf("kvParseSize(%q): got %d with no error; want a size ≥ 0", s, n)
		}
		if err != nil && !strings.Contains(err.Error(), "is not a size") {
			t.Errorf("kvParseSize(%q): error %q does not say what is wrong", s, err)
		}
	})
}
