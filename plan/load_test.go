package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/schedule"
)

// TestLoadBounds: stage targets and run lengths a run could not carry out are refused up front
// (a closed stage of 3e9 connections would otherwise start that many senders).
func TestLoadBounds(t *testing.T) {
	t.Parallel()
	ep := []Endpoint{{URL: "http://127.0.0.1:1/"}}
	at := func(x float64) *float64 { return &x }
	tests := []struct {
		name string
		load Load
		want string // "" for valid
	}{
		{"closed stage too many", Load{Model: Closed, Stages: []schedule.Stage{{Duration: time.Second, Target: 3e9}}}, "stage 1: 3000000000 connections"},
		{"closed stage fraction", Load{Model: Closed, Stages: []schedule.Stage{{Duration: time.Second, Target: 10}, {Duration: time.Second, Target: 0.5}}}, "stage 2: 0.5 connections"},
		{"closed stage fine", Load{Model: Closed, Stages: []schedule.Stage{{Duration: time.Second, Target: 1000}, {Duration: time.Second, Target: 0}}}, ""},
		{"open stage too fast", Load{Stages: []schedule.Stage{{Duration: time.Second, Target: 1e10}}}, "stage 1: rate 10000000000/s"},
		{"open stage fine", Load{Stages: []schedule.Stage{{Duration: time.Second, Target: 1e9}}}, ""},
		{"too long", Load{Rate: 1, Warmup: 2562047 * time.Hour, Duration: 2562047 * time.Hour}, "want at most 10000h"},
		{"stages too long", Load{Stages: []schedule.Stage{{Duration: 9000 * time.Hour, Target: 1}, {Duration: 9000 * time.Hour, Target: 1}}}, "want at most 10000h"},
		{"long enough", Load{Rate: 1, Warmup: time.Hour, Duration: 9999 * time.Hour}, ""},
		{"closed stages above the connections", Load{Model: Closed, Connections: 10, Stages: []schedule.Stage{{Duration: time.Second, Target: 50}, {Duration: time.Second, Target: 200}}}, "connections 10 is below the highest stage target, 200 connections"},
		{"send slack", Load{Rate: 5000, SendSlack: time.Millisecond}, ""},
		{"send slack at its bound", Load{Rate: 5000, SendSlack: 100 * time.Millisecond}, ""},
		{"send slack too long", Load{Rate: 5000, SendSlack: 101 * time.Millisecond}, "send slack 101ms: want 0 to 100ms"},
		{"send slack negative", Load{Rate: 5000, SendSlack: -time.Millisecond}, "send slack -1ms: want 0 to 100ms"},
		{"send slack closed", Load{Model: Closed, SendSlack: time.Millisecond}, "send slack 1ms with the closed model"},
		{"warm-up ramp without a warm-up", Load{Connections: 10, Duration: time.Second, WarmupFrom: at(5)}, "warm-up ramp from 5: the ramp lasts the warm-up; give a warm-up too"},
		{"warm-up ramp ending on a count", Load{Connections: 10, Requests: 100, Warmup: time.Second, WarmupFrom: at(5)}, "warm-up ramp from 5: a run that ends on a count"},
		{"warm-up ramp from a fraction", Load{Connections: 10, Duration: time.Second, Warmup: time.Second, WarmupFrom: at(2.5)}, "warm-up ramp from 2.5 connections: want a whole number"},
		{"warm-up ramp from above", Load{Connections: 10, Duration: time.Second, Warmup: time.Second, WarmupFrom: at(50)}, "warm-up ramp from 50 connections: above the run's 10"},
		{"warm-up ramp from above the default", Load{Duration: time.Second, Warmup: time.Second, WarmupFrom: at(11)}, "above the run's 10"},
		{"warm-up ramp from a negative rate", Load{Rate: 10, Duration: time.Second, Warmup: time.Second, WarmupFrom: at(-1)}, "warm-up ramp from -1/s: want a rate from 0"},
		{"warm-up ramp down a rate", Load{Rate: 10, Duration: time.Second, Warmup: time.Second, WarmupFrom: at(500)}, ""},
		{"warm-up ramp up from 0 connections", Load{Connections: 10, Duration: time.Second, Warmup: time.Second, WarmupFrom: at(0)}, ""},
		{"closed stages within the connections", Load{Model: Closed, Connections: 200, Stages: []schedule.Stage{{Duration: time.Second, Target: 50}, {Duration: time.Second, Target: 200}}}, ""},
	}
	for _, tt := range tests {
		err := Plan{Endpoints: ep, Load: tt.load}.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: got %v; want valid", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: got %v; want an error with %q", tt.name, err, tt.want)
		}
	}
}

// Closed-model stages without --connections open as many connections as their highest target; the
// open model keeps its default cap.
func TestClosedStagesSetConnections(t *testing.T) {
	t.Parallel()
	ep := []Endpoint{{URL: "http://127.0.0.1:1/"}}
	stages := []schedule.Stage{{Duration: time.Second, Target: 50}, {Duration: time.Second, Target: 200}, {Duration: time.Second, Target: 20}}
	if got := (Plan{Endpoints: ep, Load: Load{Model: Closed, Stages: stages}}).Normalized().Load.Connections; got != 200 {
		t.Errorf("closed stages: connections %d; want 200", got)
	}
	if got := (Plan{Endpoints: ep, Load: Load{Stages: stages}}).Normalized().Load.Connections; got != DefaultOpenConns {
		t.Errorf("open stages: connections %d; want the default cap %d", got, DefaultOpenConns)
	}
}
