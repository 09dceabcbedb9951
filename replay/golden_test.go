package replay

import (
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// readAll reads every record of a file, and the errors of its bad lines as "file:line: …".
func readAll(t *testing.T, name, format string) ([]Record, []string) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := NewReader(name, f, format)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	var bad []string
	for range 1000 {
		rec, err := rd.Next()
		var le *LineError
		switch {
		case err == io.EOF:
			return recs, bad
		case errors.As(err, &le):
			bad = append(bad, err.Error())
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			recs = append(recs, rec)
		}
	}
	t.Fatalf("%s: no end after 1000 records", name)
	return nil, nil
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func hdr(kv ...string) []result.RequestHeader {
	var hs []result.RequestHeader
	for i := 0; i < len(kv); i += 2 {
		hs = append(hs, result.RequestHeader{Name: kv[i], Value: kv[i+1]})
	}
	return hs
}

// The records of each format, written out by hand from the files in testdata.
func TestGolden(t *testing.T) {
	jsonCT := hdr("Content-Type", "application/json")
	cases := []struct {
		file, format string
		want         []Record
		bad          []string // the start of each bad line's error
	}{
		{"testdata/combined.log", "", []Record{
			{Time: at("2024-03-01T10:00:00+01:00"), Method: "GET", Target: "/v0/items?id=1", Status: 200, Line: 1,
				Header: hdr("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)")},
			{Time: at("2024-03-01T10:00:01+01:00"), Method: "POST", Target: "/v0/items", Status: 201, Line: 2,
				Header: hdr("Referer", "https://example.com/form", "User-Agent", "curl/8.5.0")},
			{Time: at("2024-03-01T10:00:03+01:00"), Method: "GET", Target: `/search?q="ab"`, Status: 404, Line: 4},
			{Time: at("2024-03-01T10:00:04+01:00"), Method: "DELETE", Target: "/v0/items/42", Status: 204, Line: 7},
			{Time: at("2024-03-01T10:00:05+01:00"), Method: "GET", Target: "/ua", Status: 200, Line: 8, Header: hdr("User-Agent", `say "hi" now`)},
		}, []string{"testdata/combined.log:3: $remote_addr: want", "testdata/combined.log:6: $request"}},
		{"testdata/common.log", FormatCommon, []Record{
			{Time: at("2000-10-10T13:55:36-07:00"), Method: "GET", Target: "/apache_pb.gif", Status: 200, Line: 1},
			{Time: at("2000-10-10T13:55:37-07:00"), Method: "GET", Target: `/a"b`, Status: 200, Line: 2},
		}, []string{"testdata/common.log:3: $status"}},
		{"testdata/custom.log", `log_format:$time_iso8601 $request_method $uri $status $request_time "$http_x_token"`, []Record{
			{Time: at("2024-03-01T10:00:00.25Z"), Method: "GET", Target: "/api/a?x=1", Status: 200, Line: 1, Header: hdr("X-Token", "tok-1")},
			{Time: at("2024-03-01T10:00:00.75Z"), Method: "PUT", Target: "/api/b", Status: 500, Line: 2},
		}, nil},
		{"testdata/chrome.har", "", []Record{
			{Time: at("2024-03-01T10:00:00.012Z"), Method: "GET", Target: "http://127.0.0.1:8080/", Status: 200, Line: 20,
				Header: hdr("Accept", "text/html", "Cookie", "session=abc")},
			{Time: at("2024-03-01T10:00:00.25Z"), Method: "POST", Target: "https://api.example.com/v0/items?src=web", Status: 201, Line: 82,
				Header: hdr("content-type", "application/json"), Body: []byte("{\"id\":\"7\"}\n")},
			{Time: at("2024-03-01T10:00:01Z"), Method: "PUT", Target: "http://127.0.0.1:8080/v0/items/7", Status: 204, Line: 167,
				Header: hdr("Content-Type", "application/octet-stream"), Body: []byte{0, 1, 2}},
		}, []string{"testdata/chrome.har:156: request.url"}},
		{"testdata/rpc.jsonl", "", []Record{
			{Time: at("2024-03-01T10:00:00Z"), Method: "POST", Line: 1, Header: jsonCT, Name: "eth_blockNumber", Calls: 1,
				Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)},
			{Time: at("2024-03-01T10:00:00.5Z"), Method: "POST", Line: 2, Header: jsonCT, Name: "batch", Calls: 2,
				Body: []byte(`[{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0x00000000000000000000000000000000000000aa","latest"]},{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}]`)},
			{Time: at("2024-03-01T10:00:01Z"), Method: "POST", Line: 3, Header: jsonCT, Name: "eth_call", Calls: 1,
				Body: []byte(`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"0x01"},"latest"]}`)},
		}, []string{"testdata/rpc.jsonl:4: request: no method", "testdata/rpc.jsonl:5: no timestamp", "testdata/rpc.jsonl:6: want a JSON object"}},
		{"testdata/requests.csv", "", []Record{
			{Time: at("2024-03-01T10:00:00Z"), Method: "GET", Target: "/v0/items?id=1", Status: 200, Line: 2},
			{Time: at("2024-03-01T10:00:00.02Z"), Method: "POST", Target: "/v0/items", Status: 0, Line: 4},
		}, []string{"testdata/requests.csv:3: endpoint \"eth_call\""}},
		{"testdata/vegeta.jsonl", "", []Record{
			{Time: at("2024-03-01T10:00:00Z"), Method: "GET", Target: "http://api.example.com/v0/items?id=1", Line: 1},
			{Time: at("2024-03-01T10:00:00.5Z"), Method: "POST", Target: "http://api.example.com/v0/items", Line: 2,
				Header: hdr("Content-Type", "application/json"), Body: []byte(`{"id":"1"}`)},
		}, []string{"testdata/vegeta.jsonl:3: url \"/relative\""}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, bad := readAll(t, c.file, c.format)
			if len(got) != len(c.want) {
				t.Fatalf("%d records, want %d: %+v", len(got), len(c.want), got)
			}
			for i := range got {
				g, w := got[i], c.want[i]
				if !g.Time.Equal(w.Time) {
					t.Errorf("record %d: time %v, want %v", i+1, g.Time, w.Time)
				}
				g.Time, w.Time = time.Time{}, time.Time{}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("record %d:\n got %+v\nwant %+v", i+1, g, w)
				}
			}
			if len(bad) != len(c.bad) {
				t.Fatalf("bad lines %q, want %d starting %q", bad, len(c.bad), c.bad)
			}
			for i := range bad {
				if !strings.HasPrefix(bad[i], c.bad[i]) {
					t.Errorf("bad line %d: %q, want it to start %q", i+1, bad[i], c.bad[i])
				}
			}
		})
	}
}
