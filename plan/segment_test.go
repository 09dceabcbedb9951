package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

// Generators that each run a segment take disjoint rows of unique data, all of them together, and
// each stops when the rows it owns ran out.
func TestUniqueDataSegmentsDisjoint(t *testing.T) {
	t.Parallel()
	const rows = 100
	var csv strings.Builder
	csv.WriteString("id\n")
	for i := range rows {
		fmt.Fprintf(&csv, "k%d\n", i)
	}
	seen := map[string]string{}
	// 0, 1/4, 1/2, 1: the parts own 25, 25 and 50 of the 100 rows
	for _, tt := range []struct {
		seg  string
		want int
	}{{"0:1/4", 25}, {"1/4:1/2", 25}, {"1/2:1", 50}} {
		d, err := ReadData("ids.csv", strings.NewReader(csv.String()))
		if err != nil {
			t.Fatal(err)
		}
		p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/v0/entity?id={{.id}}"}}, Traffic: Traffic{Data: "ids.csv", DataOrder: DataUnique},
			Load: Load{Segment: tt.seg, SegmentSequence: "0,1/4,1/2,1"}}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		src, err := NewSource(p.Normalized(), Inputs{Data: d})
		if err != nil {
			t.Fatal(err)
		}
		var r transport.Request
		n := 0
		for i := uint64(0); i <= rows; i++ { // bounded
			if err := src.Fill(i, &r); err != nil {
				if !errors.Is(err, ErrDataExhausted) {
					t.Fatal(err)
				}
				break
			}
			id := strings.TrimPrefix(string(r.Path), "/v0/entity?id=")
			if other, ok := seen[id]; ok {
				t.Fatalf("row %s taken by %s and %s", id, other, tt.seg)
			}
			seen[id] = tt.seg
			n++
		}
		if n != tt.want {
			t.Errorf("segment %s took %d rows; want %d", tt.seg, n, tt.want)
		}
	}
	if len(seen) != rows {
		t.Errorf("the segments took %d rows together; want all %d", len(seen), rows)
	}
}

func TestValidateSegment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ seg, seq, want string }{
		{"3/2", "", "1 ≤ K ≤ N"},
		{"1/4:1/2", "0,1/2,1", "not a part of sequence"},
		{"", "0,1/2,1", "without a segment"},
	} {
		p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: Load{Rate: 10, Segment: tt.seg, SegmentSequence: tt.seq}}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("segment %q, sequence %q: Validate() = %v; want an error with %q", tt.seg, tt.seq, err, tt.want)
		}
	}
}
