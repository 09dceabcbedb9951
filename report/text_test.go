package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// The text and JSON reports of the fixed result files, byte for byte (go test -update rewrites them).
func TestTextAndJSONGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, name string }{
		{fixtures[0], "one"},   // one endpoint, 1% errors
		{fixtures[2], "multi"}, // three weighted endpoints: the per-endpoint table
	} {
		s := load(t, tc.file)
		var txt, js bytes.Buffer
		if err := Text(&txt, s); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&js, s); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name+".txt", txt.Bytes())
		golden(t, tc.name+".json", js.Bytes())

		// the JSON report reads back into the same figures
		var back summary.Summary
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if back.Requests != s.Requests || back.Latency != s.Latency || len(back.Endpoints) != len(s.Endpoints) {
			t.Errorf("%s: JSON round trip changed the figures: got %+v; want %+v", tc.name, back.Requests, s.Requests)
		}
	}
}

func TestBucketEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lo, hi int64
		n      int
		want   []int64
	}{
		{100, 100, 12, []int64{100, 101}},             // one value: one bucket
		{0, 9, 3, []int64{0, 3, 7, 10}},               // linear, the last edge past the max
		{10, 10000, 3, []int64{10, 100, 1000, 10001}}, // log-spaced over a wide range
	}
	for _, tt := range tests {
		got := bucketEdges(tt.lo, tt.hi, tt.n)
		if len(got) != len(tt.want) {
			t.Errorf("bucketEdges(%d, %d, %d) = %v; want %v", tt.lo, tt.hi, tt.n, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("bucketEdges(%d, %d, %d) = %v; want %v", tt.lo, tt.hi, tt.n, got, tt.want)
				break
			}
		}
	}
}
