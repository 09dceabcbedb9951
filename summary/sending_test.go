package summary

import "testing"

// The headline throughput counts the answers within the sending window over its length: the drain
// after the last send does not pull it down.
func TestSetTimelineSendingThroughput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		span   float64
		points []Point
		want   float64
	}{
		// 500/s for 3 s, then 20 answers in a 0.2 s drain: 1500 answers in 3 s
		{"drain left out", 3, []Point{{Start: 0, End: 1, RPS: 500}, {Start: 1, End: 2, RPS: 500}, {Start: 2, End: 3, RPS: 500}, {Start: 3, End: 3.2, RPS: 100}}, 500},
		// an interval across the window's end counts pro rata: 100 + 150×(0.5/1.5) = 150 in 1.5 s
		{"interval across the end", 1.5, []Point{{Start: 0, End: 1, RPS: 100}, {Start: 1, End: 2.5, RPS: 100}}, 100},
		// per-endpoint points repeat the totals and are not counted again
		{"endpoint points ignored", 1, []Point{{Start: 0, End: 1, RPS: 40}, {Start: 0, End: 1, RPS: 30, Endpoint: "a"}, {Start: 0, End: 1, RPS: 10, Endpoint: "b"}}, 40},
		{"no window", 0, []Point{{Start: 0, End: 1, RPS: 40}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Summary{SendSpanS: tt.span}
			s.SetTimeline(tt.points)
			if got := s.SendingThroughput; got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("got %v answers/s; want %v", got, tt.want)
			}
			if len(s.Timeline) != len(tt.points) {
				t.Errorf("got %d timeline points; want %d", len(s.Timeline), len(tt.points))
			}
		})
	}
}
