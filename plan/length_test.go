package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/schedule"
)

// A run longer than MaxLength is refused with the lengths it was given and their sum, not the sum
// cut to the limit.
func TestValidateNamesTheLengthPastTheLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		load Load
		want string // by hand
	}{
		{Load{Rate: 1, Duration: 10001 * time.Hour},
			"duration 10001h0m0s: the run would last 10001h0m0s; want at most 10000h0m0s"},
		{Load{Rate: 1, Duration: 9000 * time.Hour, Warmup: 1001 * time.Hour},
			"warm-up 1001h0m0s and duration 9000h0m0s: the run would last 10001h0m0s; want at most 10000h0m0s"},
		{Load{Stages: []schedule.Stage{{Duration: 6000 * time.Hour, Target: 10}, {Duration: 4000 * time.Hour, Target: 10}}, Warmup: time.Minute},
			"warm-up 1m0s and 2 stages of 10000h0m0s: the run would last 10000h1m0s; want at most 10000h0m0s"},
		// 2 × 2,000,000 h does not fit a time.Duration (about 2,562,047 h)
		{Load{Stages: []schedule.Stage{{Duration: 2e6 * time.Hour, Target: 10}, {Duration: 2e6 * time.Hour, Target: 10}}},
			"2 stages of more than 2562047h0m0s: the run would last more than 2562047h0m0s; want at most 10000h0m0s"},
	} {
		p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: tc.load}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v; want it to say %q", tc.load, err, tc.want)
		}
	}
	p := Plan{Endpoints: []Endpoint{{URL: "http://127.0.0.1:1/"}}, Load: Load{Rate: 1, Duration: 9000 * time.Hour, Warmup: 1000 * time.Hour}}
	if err := p.Validate(); err != nil {
		t.Errorf("a run of exactly 10000h: %v; want it taken", err)
	}
}
