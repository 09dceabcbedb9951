package replay

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// msecLayout is a compact access-log layout for tests: a Unix time in seconds with milliseconds,
// then the request line.
const msecLayout = `log_format:$msec "$request"`

// memFiles opens files from a map.
func memFiles(files map[string]string) func(string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) {
		s, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("open %s: no such file", name)
		}
		return io.NopCloser(strings.NewReader(s)), nil
	}
}

// msecLog writes one line per offset (milliseconds from 1709287200 s), the path /r/K for the
// K-th line written.
func msecLog(ms ...int) string {
	var b strings.Builder
	for k, m := range ms {
		fmt.Fprintf(&b, "%d.%03d \"GET /r/%d HTTP/1.1\"\n", 1709287200+m/1000, m%1000, k)
	}
	return b.String()
}

func scan(t *testing.T, o Options, files map[string]string) *Timeline {
	t.Helper()
	o.Open = memFiles(files)
	if o.Files == nil {
		o.Files = []string{"a.log"}
	}
	if o.Format == "" {
		o.Format = msecLayout
	}
	if o.Base == "" {
		o.Base = "http://127.0.0.1:9"
	}
	tl, err := Scan(o)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// drain takes every record of a started timeline in order: its due time and path.
func drain(t *testing.T, tl *Timeline) (dues []time.Duration, paths []string) {
	t.Helper()
	tl.Start()
	defer tl.Close()
	var r result.Request
	for i := uint64(0); i < tl.Records()+1; i++ {
		due, ok := tl.At(i)
		if !ok {
			if i != tl.Records() {
				t.Fatalf("At(%d) gave no record of %d: %v", i, tl.Records(), tl.Err())
			}
			return dues, paths
		}
		if err := tl.Fill(i, &r); err != nil {
			t.Fatal(err)
		}
		dues, paths = append(dues, due), append(paths, string(r.Path))
	}
	t.Fatalf("At(%d) gave a record past the %d the scan found", tl.Records(), tl.Records())
	return nil, nil
}

func ms(v ...float64) []time.Duration {
	var ds []time.Duration
	for _, x := range v {
		ds = append(ds, time.Duration(x*float64(time.Millisecond)))
	}
	return ds
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Due times: recorded offsets divided by the speed; a constant rate in recorded order; each loop
// one mean interval after the last record of the pass before. The end is where a record after the
// last would be due: one mean interval (or 1/rate) after it.
func TestDueTimes(t *testing.T) {
	files := map[string]string{"a.log": msecLog(0, 1000, 1500, 4500)}
	cases := []struct {
		name string
		o    Options
		want []time.Duration
		end  time.Duration
	}{
		{"recorded pace", Options{}, ms(0, 1000, 1500, 4500), 6 * time.Second},
		{"twice as fast", Options{Speed: 2}, ms(0, 500, 750, 2250), 3 * time.Second},
		{"half as fast", Options{Speed: 0.5}, ms(0, 2000, 3000, 9000), 12 * time.Second},
		{"constant rate", Options{Rate: 4}, ms(0, 250, 500, 750), time.Second},
		// span 4.5 s, mean interval 1.5 s: the second pass starts 6 s after the first
		{"two loops", Options{Loop: 2}, ms(0, 1000, 1500, 4500, 6000, 7000, 7500, 10500), 12 * time.Second},
		{"two loops, rate", Options{Loop: 2, Rate: 2}, ms(0, 500, 1000, 1500, 2000, 2500, 3000, 3500), 4 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := scan(t, c.o, files)
			dues, _ := drain(t, tl)
			if !equalDurations(dues, c.want) {
				t.Errorf("due times %v; want %v", dues, c.want)
			}
			if tl.End() != c.end {
				t.Errorf("end %v; want %v", tl.End(), c.end)
			}
			// Count(t) is the number of due times strictly before t, counted here by hand
			for _, at := range []time.Duration{0, 1, c.want[1], c.want[1] + 1, c.end, c.end + 1} {
				var n uint64
				for _, d := range c.want {
					if d < at {
						n++
					}
				}
				if got := tl.Count(at); got != n {
					t.Errorf("Count(%v) = %d; want %d", at, got, n)
				}
			}
		})
	}
}

// Records written out of order within the reorder window go in time order; one written further
// from its place is refused, naming its line and the line it would follow.
func TestReorder(t *testing.T) {
	files := map[string]string{"a.log": msecLog(0, 300, 100, 200, 400)} // /r/1 written two records late
	tl := scan(t, Options{Reorder: 3}, files)
	dues, paths := drain(t, tl)
	if want := ms(0, 100, 200, 300, 400); !equalDurations(dues, want) {
		t.Errorf("due times %v; want %v", dues, want)
	}
	if want := "/r/0 /r/2 /r/3 /r/1 /r/4"; strings.Join(paths, " ") != want {
		t.Errorf("order %s; want %s", strings.Join(paths, " "), want)
	}

	_, err := Scan(Options{Files: []string{"a.log"}, Format: msecLayout, Base: "http://127.0.0.1:9", Open: memFiles(files), Reorder: 1})
	if err == nil || !strings.Contains(err.Error(), "a.log:3: recorded at 2024-03-01T10:00:00.1Z, earlier than a.log:2") {
		t.Errorf("a file going back beyond the window: %v; want it refused at a.log:3", err)
	}
}

// Bad lines are counted, the first five quoted with their file and line; the others are sent.
func TestBadLinesCounted(t *testing.T) {
	var b strings.Builder
	for k := range 10 {
		fmt.Fprintf(&b, "%d.000 \"GET /ok/%d HTTP/1.1\"\ngarbage %d\n", 1709287200+k, k, k)
	}
	tl := scan(t, Options{}, map[string]string{"a.log": b.String()})
	info := tl.Info()
	if info.Records != 10 || info.Skips.Count != 10 || len(info.Skips.Samples) != 5 {
		t.Fatalf("%d records, %d skipped, %d quoted; want 10, 10, 5", info.Records, info.Skips.Count, len(info.Skips.Samples))
	}
	for k, s := range info.Skips.Samples {
		if want := fmt.Sprintf("a.log:%d: ", 2*k+2); !strings.HasPrefix(s, want) {
			t.Errorf("sample %d: %q; want it to start %q", k+1, s, want)
		}
	}
}

// Windows, filters and sampling choose the records; headers and the base URL are rewritten.
func TestChoiceAndRewrites(t *testing.T) {
	var offsets []int
	for k := range 20 {
		offsets = append(offsets, k*100) // /r/k at k×100 ms
	}
	files := map[string]string{"a.log": msecLog(offsets...)}
	t0 := time.UnixMilli(1709287200_000)
	cases := []struct {
		name  string
		o     Options
		paths string
	}{
		{"offset window", Options{FromOffset: 300 * time.Millisecond, ToOffset: 600 * time.Millisecond}, "/r/3 /r/4 /r/5"},
		{"time window", Options{From: t0.Add(1700 * time.Millisecond), To: t0.Add(time.Hour)}, "/r/17 /r/18 /r/19"},
		{"include", Options{Include: regexp.MustCompile(`^/r/1\d$`)}, "/r/10 /r/11 /r/12 /r/13 /r/14 /r/15 /r/16 /r/17 /r/18 /r/19"},
		{"exclude", Options{Exclude: regexp.MustCompile(`^/r/[1-9]`)}, "/r/0"},
		{"every 7th", Options{Every: 7}, "/r/0 /r/7 /r/14"},
		{"base path", Options{Base: "http://127.0.0.1:9/v2/", Every: 10}, "/v2/r/0 /v2/r/10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, paths := drain(t, scan(t, c.o, files))
			if got := strings.Join(paths, " "); got != c.paths {
				t.Errorf("paths %s; want %s", got, c.paths)
			}
		})
	}

	// reading stops at the end of the window: the lines after it are not read (a 10 GB log
	// replayed for its first minutes is not read to its end)
	tail := files["a.log"] + strings.Repeat("garbage\n", 100)
	if info := scan(t, Options{ToOffset: time.Second, Reorder: 1}, map[string]string{"a.log": tail}).Info(); info.Records != 10 || info.Skips.Count != 0 {
		t.Errorf("--to 1s: %d records, %d lines skipped; want 10 and none read after the window", info.Records, info.Skips.Count)
	}

	// the first record kept is due at 0: the window starts the replay
	dues, _ := drain(t, scan(t, Options{FromOffset: 300 * time.Millisecond, ToOffset: 600 * time.Millisecond}, files))
	if want := ms(0, 100, 200); !equalDurations(dues, want) {
		t.Errorf("window due times %v; want %v", dues, want)
	}

	// sampling: the same seed chooses the same records; another seed others; about the fraction
	var many []int
	for k := range 2000 {
		many = append(many, k)
	}
	big := map[string]string{"a.log": msecLog(many...)}
	pick := func(seed uint64) string {
		_, paths := drain(t, scan(t, Options{Fraction: 0.25, Seed: seed}, big))
		return strings.Join(paths, " ")
	}
	a, b, c := pick(1), pick(1), pick(2)
	if a != b {
		t.Error("seed 1 chose different records in two scans")
	}
	if a == c {
		t.Error("seeds 1 and 2 chose the same records")
	}
	// 2000 × 0.25 = 500, binomial σ ≈ 19.4: 5σ either side
	if n := len(strings.Fields(a)); n < 403 || n > 597 {
		t.Errorf("fraction 0.25 of 2000 kept %d; want about 500", n)
	}

	// headers: Cookie dropped, Authorization replaced, X-Test added
	rec := "1709287200.000 \"GET / HTTP/1.1\" \"c=1\" \"Basic old\" \"ua\"\n"
	tl := scan(t, Options{Format: `log_format:$msec "$request" "$http_cookie" "$http_authorization" "$http_user_agent"`,
		DropHeaders: []string{"cookie"}, SetHeaders: hdr("Authorization", "Bearer new", "X-Test", "1")},
		map[string]string{"a.log": rec})
	tl.Start()
	defer tl.Close()
	var r result.Request
	if _, ok := tl.At(0); !ok {
		t.Fatal("no record")
	}
	if err := tl.Fill(0, &r); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(r.Header), fmt.Sprint(hdr("User-Agent", "ua", "Authorization", "Bearer new", "X-Test", "1")); got != want {
		t.Errorf("headers %s; want %s", got, want)
	}
	if r.Scheme != "http" || r.Host != "127.0.0.1:9" || r.Method != "GET" {
		t.Errorf("request %s %s://%s; want GET http://127.0.0.1:9", r.Method, r.Scheme, r.Host)
	}
}

// Endpoints are named by method and path with ids as {id}, up to MaxNames, the rest "other".
func TestNames(t *testing.T) {
	log := "1709287200.000 \"GET /users/42/posts?x=1 HTTP/1.1\"\n" +
		"1709287200.001 \"GET /users/7/posts HTTP/1.1\"\n" +
		"1709287200.002 \"GET /blobs/0123456789abcdef0123 HTTP/1.1\"\n" +
		"1709287200.003 \"POST /users HTTP/1.1\"\n" +
		"1709287200.004 \"GET /a HTTP/1.1\"\n"
	tl := scan(t, Options{MaxNames: 3}, map[string]string{"a.log": log})
	want := []string{"GET /users/{id}/posts", "GET /blobs/{id}", "POST /users", Other}
	if got := tl.Info().Names; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("names %q; want %q", got, want)
	}
	tl.Start()
	defer tl.Close()
	var r result.Request
	for i, ep := range []int{0, 0, 1, 2, 3} {
		tl.At(uint64(i))
		if err := tl.Fill(uint64(i), &r); err != nil {
			t.Fatal(err)
		}
		if r.Endpoint != ep {
			t.Errorf("record %d: endpoint %d; want %d", i, r.Endpoint, ep)
		}
	}
}

func TestKey(t *testing.T) {
	for path, want := range map[string]string{
		"/users/42/posts?x=1": "/users/{id}/posts",
		"/tx/0xAbC1":          "/tx/{id}",
		"/tx/0x":              "/tx/0x",
		"/o/123e4567-e89b-12d3-a456-426614174000/x": "/o/{id}/x",
		"/o/123e4567-e89b-12d3-a456-42661417400g":   "/o/123e4567-e89b-12d3-a456-42661417400g",
		"/b/0123456789abcdef":                       "/b/{id}",
		"/b/0123456789abcde":                        "/b/0123456789abcde",
		"/v2/items":                                 "/v2/items",
		"/":                                         "/",
	} {
		if got := Key(path); got != want {
			t.Errorf("Key(%q) = %q; want %q", path, got, want)
		}
	}
}

// A HAR entry of the wrong shape is a bad line, and the entries after it are read.
func TestHARWrongShapeEntry(t *testing.T) {
	har := `{"log": {"entries": [
  {"startedDateTime": "2024-03-01T10:00:00Z", "request": {"method": "GET", "url": "http://a/1"}, "response": {"status": "OK"}},
  {"startedDateTime": "2024-03-01T10:00:01Z", "request": {"method": "GET", "url": "http://a/2"}, "response": {"status": 200}}
]}}`
	rd, err := NewReader("x.har", strings.NewReader(har), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = rd.Next()
	if err == nil || err.Error() != "x.har:2: response.status is a JSON string: want a number" {
		t.Errorf("first entry: %v; want x.har:2 refused for its status", err)
	}
	rec, err := rd.Next()
	if err != nil || rec.Target != "http://a/2" || rec.Line != 3 {
		t.Errorf("second entry: %+v, %v; want http://a/2 at line 3", rec, err)
	}
}

// Bad options and inputs are refused with what was expected.
func TestScanRefuses(t *testing.T) {
	files := map[string]string{"a.log": msecLog(0, 1), "empty.log": "junk\n", "vegeta.jsonl": `{"url":"http://h/"}` + "\n"}
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Speed: -1}, "speed -1: want a number above 0"},
		{Options{Fraction: 2}, "sample fraction 2: want a number from 0 to 1"},
		{Options{Base: "127.0.0.1:9"}, "want the scheme and host"},
		{Options{Files: []string{"nope.log"}}, "open nope.log: no such file"},
		{Options{Files: []string{"empty.log"}}, "no record to send (1 lines skipped"},
		{Options{Files: []string{"vegeta.jsonl"}, Format: FormatVegeta}, "vegeta.jsonl:1: the record has no time: give --rate"},
		{Options{Format: "log_format:$remote_addr"}, "no $request"},
	}
	for _, c := range cases {
		c.o.Open = memFiles(files)
		if c.o.Files == nil {
			c.o.Files = []string{"a.log"}
		}
		if c.o.Format == "" {
			c.o.Format = msecLayout
		}
		if c.o.Base == "" {
			c.o.Base = "http://127.0.0.1:9"
		}
		if _, err := Scan(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an error saying %q", c.o, err, c.want)
		}
	}
}
