package plan

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
)

// MaxSendSlack bounds Load.SendSlack: beyond it the slack would be the figure measured.
const MaxSendSlack = 100 * time.Millisecond

// Defaults used where a Plan leaves a field zero.
const (
	DefaultDuration        = 10 * time.Second
	DefaultClosedConns     = 10
	DefaultOpenConns       = 1000
	DefaultTimeout         = 30 * time.Second
	DefaultConnectTimeout  = 10 * time.Second
	DefaultGrace           = 5 * time.Second
	DefaultInterval        = time.Second
	MaxConnections         = 1_000_000
	MaxStreams             = 1<<31 - 1          // HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS is a 31-bit count
	MaxLength              = 10_000 * time.Hour // a run's warm-up and measured part together
	maxRate                = 1e9
	defaultEndpointNameLen = 60
)

// Plan is the whole description of a run. The zero value is not runnable: it needs at least one
// endpoint. Plans are plain data, safe to copy and to encode as JSON.
type Plan struct {
	Endpoints []Endpoint `json:"endpoints"`
	// Traffic says where requests come from beyond the endpoints as given: a target file, a data
	// file for templates, a setup phase, and how endpoints are picked.
	Traffic Traffic `json:"traffic,omitzero"`
	Load    Load    `json:"load"`
	HTTP    HTTP    `json:"http"`
	// Protocol is how the requests travel (http1, h2, h2c, grpc, ws); empty means the default of
	// the first endpoint's URL scheme (http1 for http and https, ws for ws and wss).
	Protocol result.Proto `json:"protocol,omitempty"`
	// JSONRPC, when it has calls, sends JSON-RPC 2.0 calls to the URL of the one endpoint.
	JSONRPC JSONRPC `json:"jsonrpc,omitzero"`
	// Subscribe, when set, opens JSON-RPC subscriptions during the run (see Subscribe).
	Subscribe *Subscribe `json:"subscribe,omitempty"`
	// Checks judge the answers beyond their status.
	Checks Checks `json:"checks,omitzero"`
	// SLO is what the run must meet to pass (see SLO); none: the run is not judged.
	SLO SLO `json:"slo,omitempty"`
	// RequireValid fails the run when its validity verdict finds it invalid: exit 5 of `run`
	// (a plan file's require_valid, as --require-valid).
	RequireValid bool `json:"require_valid,omitempty"`
	// GRPC says where gRPC's message types come from (see GRPC); the zero value asks the server.
	GRPC GRPC `json:"grpc,omitzero"`
	// TLS names the CA certificates, client certificate and server name of TLS connections; the
	// zero value verifies servers by the system's roots. gRPC only, so far.
	TLS result.TLSFiles `json:"tls,omitzero"`
	// Diff, when set, are the URLs of a diff (rpcbench diff), each of which every request went to
	// at once: a request's figures are those of all of them, its latency until the last answered.
	Diff []string `json:"diff,omitempty"`
}

// Endpoint is one kind of request. Name labels it in reports; empty means "METHOD path".
type Endpoint struct {
	Name   string                 `json:"name,omitempty"`
	Method string                 `json:"method,omitempty"` // default GET
	URL    string                 `json:"url"`
	Header []result.RequestHeader `json:"header,omitempty"`
	Body   []byte                 `json:"body,omitempty"`
	// Weight is the endpoint's share of the requests, relative to the other endpoints' weights;
	// when every weight is 0 the endpoints take turns (see Traffic.Order).
	Weight float64 `json:"weight,omitempty"`
	// Calls is the number of JSON-RPC calls each request carries (the size of a batch), so that a
	// report can give calls per second; 0 or 1: one call, or no JSON-RPC.
	Calls int `json:"calls,omitempty"`
}

// Model is the load model.
type Model string

// The load models.
const (
	// Open sends on a schedule, whatever the target does (arrivals per second).
	Open Model = "open"
	// Closed keeps a number of connections busy: each sends when its previous answer arrived.
	Closed Model = "closed"
)

// Load says how much to send and for how long. Zero fields take defaults: with no Rate and no
// Stages the model is closed with DefaultClosedConns connections; with no Duration, Requests or
// Stages the run lasts DefaultDuration.
type Load struct {
	Model Model `json:"model,omitempty"`
	// Rate is the arrival rate of the open model, per second.
	Rate float64 `json:"rate,omitempty"`
	// Duration is the measured length of the run (after Warmup).
	Duration time.Duration `json:"duration,omitempty"`
	// Requests stops the run after that many measured requests (arrivals, in the open model).
	Requests uint64 `json:"requests,omitempty"`
	// Connections is the number of connections of the closed model, or the cap of connections
	// (and of requests in flight) of the open model.
	Connections int `json:"connections,omitempty"`
	// Stages ramp the rate (open) or the connections (closed) linearly from target to target,
	// starting from 0; a stage of zero length is a step. They replace Rate and Duration.
	Stages []schedule.Stage `json:"stages,omitempty"`
	// Warmup sends for this long before the measured run, at the first level, out of the figures.
	Warmup time.Duration `json:"warmup,omitempty"`
	// WarmupFrom, when set, makes the warm-up a ramp: the level (rate, or connections in the
	// closed model) rises linearly over Warmup from this one to the run's first, as a k6 stage
	// does, instead of holding the first level; nil: held.
	WarmupFrom *float64 `json:"warmup_from,omitempty"`
	// Grace is how long an interrupted run waits for requests in flight before cutting them; nil:
	// DefaultGrace, a zero: none (cut them at once). Set it with Wait.
	Grace *time.Duration `json:"grace,omitempty"`
	// Interval is the length of the intervals of progress and result records.
	Interval time.Duration `json:"interval,omitempty"`
	// Segment makes this generator run one part of the load, so that several generators together
	// run it once: "K/N", the K-th of N equal parts, or a fraction range "A:B" (see
	// schedule.ParseSegment). Arrivals, connections, stage targets, the request count and unique
	// data rows are striped over the parts; due times stay those of the whole schedule. Empty: the
	// whole load.
	Segment string `json:"segment,omitempty"`
	// SegmentSequence is the boundaries of every generator's part, "0,1/4,1/2,1", when fraction
	// ranges of unequal size split the run; every generator must be given the same. Empty: the
	// N equal parts of K/N, or 0, A, B, 1 for a range A:B.
	SegmentSequence string `json:"segment_sequence,omitempty"`
	// SendSlack lets the open model send an arrival up to this late, so that the pacer wakes once
	// for all the arrivals due within it instead of once per arrival: at high rates it cuts the
	// generator's CPU (wrk2 paces this way, at 1 ms). Latency still counts from the intended
	// times, so the slack shows in latency and send lag. 0: every arrival at its due time.
	SendSlack time.Duration `json:"send_slack,omitempty"`
}

// HTTP holds how requests travel.
type HTTP struct {
	Timeout          time.Duration `json:"timeout,omitempty"`         // whole request; default 30s
	ConnectTimeout   time.Duration `json:"connect_timeout,omitempty"` // dial + TLS; default 10s
	DisableKeepAlive bool          `json:"disable_keep_alive,omitempty"`
	Insecure         bool          `json:"insecure,omitempty"` // skip TLS certificate verification
	// MaxBody bounds each answer body kept for checks (bytes); a longer answer fails with class
	// too-large. 0 means 16 MiB. Without checks bodies are not kept, only counted.
	MaxBody int64 `json:"max_body,omitempty"`
	// Streams is how many requests one HTTP/2 connection carries at once (h2, h2c: another
	// connection opens when every open one carries that many; gRPC: calls per connection before
	// another opens). 0 means the transport's default (100 for HTTP/2).
	Streams int `json:"streams,omitempty"`
	// Sender is what sends HTTP/1.1 over plain TCP: SenderAuto ("" too) an event loop that owns
	// the run's connections, where the run allows one (Linux, one host, keep-alive, no stages in
	// the closed model), SenderGoroutines a goroutine per connection, as every other run, to
	// compare the two.
	Sender string `json:"sender,omitempty"`
}

// The senders of HTTP.Sender.
const (
	SenderAuto       = "auto"
	SenderGoroutines = "goroutines"
)

// Wait returns d as an optional length (Load.Grace): set, even when it is zero.
func Wait(d time.Duration) *time.Duration { return &d }

// MeasuredLength is the planned length of the load's measured part: its duration, or its stages'
// total; 0 when it ends on a count.
func (l Load) MeasuredLength() time.Duration {
	if len(l.Stages) == 0 {
		return l.Duration
	}
	var d time.Duration
	for _, s := range l.Stages {
		d += s.Duration
	}
	return d
}

// lengthParts names the lengths l was given — its warm-up, duration and stages — and what they
// come to together, e.g. "duration 10001h0m0s: the run would last 10001h0m0s".
func (l Load) lengthParts() string {
	var parts []string
	var lengths []time.Duration
	if l.Warmup > 0 {
		parts, lengths = append(parts, fmt.Sprintf("warm-up %v", l.Warmup)), append(lengths, l.Warmup)
	}
	if l.Duration > 0 {
		parts, lengths = append(parts, fmt.Sprintf("duration %v", l.Duration)), append(lengths, l.Duration)
	}
	if len(l.Stages) > 0 {
		var stages []time.Duration
		for _, st := range l.Stages {
			stages = append(stages, st.Duration)
		}
		parts = append(parts, fmt.Sprintf("%d stages of %s", len(l.Stages), sumLengths(stages)))
		lengths = append(lengths, stages...)
	}
	return strings.Join(parts, " and ") + ": the run would last " + sumLengths(lengths)
}

// sumLengths is the sum of the positive lengths of ds, or "more than 2562047h0m0s" when it does
// not fit a time.Duration.
func sumLengths(ds []time.Duration) string {
	var total time.Duration
	for _, d := range ds {
		if d <= 0 {
			continue
		}
		if total > math.MaxInt64-d {
			return fmt.Sprintf("more than %v", time.Duration(math.MaxInt64).Truncate(time.Hour))
		}
		total += d
	}
	return total.String()
}

// topConnections returns the highest stage target of a closed-model load with stages, in
// connections; 0 for any other load.
func (l Load) topConnections() int {
	if l.Model != Closed {
		return 0
	}
	top := 0.0
	for _, st := range l.Stages {
		top = max(top, st.Target)
	}
	if top > MaxConnections { // Validate says so
		return 0
	}
	return int(math.Ceil(top))
}

// Normalized returns a copy of p with every default filled in, as the run will use it.
func (p Plan) Normalized() Plan {
	checked("normalize")
	p.Endpoints = append([]Endpoint(nil), p.Endpoints...)
	for i := range p.Endpoints {
		e := &p.Endpoints[i]
		if e.Method == "" {
			e.Method = "GET"
		}
		e.Method = strings.ToUpper(e.Method)
		e.URL = lowerScheme(e.URL)
		e.URL, e.Header = basicAuth(e.URL, e.Header)
		normalizeGRPC(e)
		if e.Name == "" {
			e.Name = defaultName(e.Method, e.URL)
		}
	}
	p.Traffic = p.Traffic.normalized()
	l := &p.Load
	if l.Model == "" {
		l.Model = Closed
		if l.Rate > 0 || len(l.Stages) > 0 {
			l.Model = Open
		}
	}
	if l.Duration == 0 && l.Requests == 0 && len(l.Stages) == 0 {
		l.Duration = DefaultDuration
	}
	if l.Connections == 0 {
		l.Connections = DefaultClosedConns
		if l.Model == Open {
			l.Connections = DefaultOpenConns
		}
		if top := l.topConnections(); top > 0 {
			l.Connections = top // a closed-model stage target is a number of connections: open them
		}
	}
	if l.Grace == nil {
		l.Grace = Wait(DefaultGrace)
	}
	if l.Interval == 0 {
		l.Interval = DefaultInterval
	}
	if p.HTTP.Timeout == 0 {
		p.HTTP.Timeout = DefaultTimeout
	}
	if p.HTTP.ConnectTimeout == 0 {
		p.HTTP.ConnectTimeout = DefaultConnectTimeout
	}
	if p.Protocol == "" {
		p.Protocol = p.defaultProtocol()
	}
	return p
}

func defaultName(method, raw string) string {
	if name, ok := grpcName(raw); ok {
		return name
	}
	u, err := url.Parse(raw)
	path := raw
	if HasTemplate(raw) {
		_, path = splitTemplatedURL(raw) // as written: escaping would garble the templates
	} else if err == nil {
		path = u.RequestURI()
	}
	name := method + " " + path
	if len(name) > defaultEndpointNameLen {
		name = name[:defaultEndpointNameLen-1] + "…"
	}
	return name
}

// Validate returns every problem of p at once (errors.Join), or nil.
func (p Plan) Validate() error {
	checked("validate")
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("plan: "+format, a...)) }
	if len(p.Endpoints) == 0 {
		bad("no endpoint: give a URL")
	}
	if len(p.Endpoints) > result.MaxEndpoints {
		bad("%d endpoints: at most %d; name fewer, or group targets by name", len(p.Endpoints), result.MaxEndpoints)
	}
	names := map[string]bool{}
	for i, e := range p.Endpoints {
		if err := CheckURL(stripTemplates(e.URL)); err != nil {
			bad("endpoint %d: %v", i+1, err)
		}
		if e.Name != "" {
			if names[e.Name] {
				bad("endpoint %d: name %q is used twice", i+1, e.Name)
			}
			names[e.Name] = true
		}
		if e.Method != "" && !isToken(e.Method) {
			bad("endpoint %d: method %q is not an HTTP method (e.g. GET, POST)", i+1, e.Method)
		}
		for _, h := range e.Header {
			if !isToken(h.Name) {
				bad("endpoint %d: header name %q is not a valid header name", i+1, h.Name)
			}
			if strings.ContainsAny(h.Value, "\r\n") {
				bad("endpoint %d: header %s: value holds a line break", i+1, h.Name)
			}
		}
	}
	errs = append(errs, p.validateTraffic()...)
	errs = append(errs, p.validateProtocol()...)
	errs = append(errs, p.validateGRPC()...)
	l := p.Load
	switch l.Model {
	case "", Open, Closed:
	default:
		bad("load model %q: want open or closed", l.Model)
	}
	if l.Rate < 0 || l.Rate > maxRate || math.IsNaN(l.Rate) {
		bad("rate %v: want a rate from 0 to %g per second", l.Rate, float64(maxRate))
	}
	if l.Model == Closed && l.Rate > 0 {
		bad("rate %v/s with the closed model: the closed model sends as fast as answers come; drop the rate or use the open model", l.Rate)
	}
	if l.Model == Open && l.Rate == 0 && len(l.Stages) == 0 {
		bad("the open model needs a rate or stages")
	}
	if _, _, _, err := l.Part(); err != nil {
		errs = append(errs, err)
	}
	if l.Duration < 0 {
		bad("duration %v is negative", l.Duration)
	}
	if l.Warmup < 0 {
		bad("warmup %v is negative", l.Warmup)
	}
	if l.Grace != nil && *l.Grace < 0 {
		bad("grace %v is negative", *l.Grace)
	}
	errs = append(errs, l.validateWarmupFrom()...)
	if l.SendSlack < 0 || l.SendSlack > MaxSendSlack {
		bad("send slack %v: want 0 to %v", l.SendSlack, MaxSendSlack)
	}
	if l.SendSlack > 0 && l.Model == Closed {
		bad("send slack %v with the closed model: it paces the open model's arrivals; drop it or give a rate", l.SendSlack)
	}
	if l.Interval < 0 || l.Interval > 0 && l.Interval < 10*time.Millisecond {
		bad("interval %v: want at least 10ms", l.Interval)
	}
	if l.Connections < 0 || l.Connections > MaxConnections {
		bad("connections %d: want 1 to %d", l.Connections, MaxConnections)
	}
	if p.HTTP.Streams < 0 || p.HTTP.Streams > MaxStreams {
		bad("streams %d per connection: want 1 to %d", p.HTTP.Streams, MaxStreams)
	}
	switch p.HTTP.Sender {
	case "", SenderAuto, SenderGoroutines:
	default:
		bad("sender %q: want %s (an event loop for HTTP/1.1 where the run allows one) or %s (a goroutine per connection)", p.HTTP.Sender, SenderAuto, SenderGoroutines)
	}
	if len(l.Stages) > 0 {
		if l.Rate > 0 {
			bad("both a rate and stages: stages set the rate; give one of them")
		}
		if l.Duration > 0 {
			bad("both a duration and stages: the stages set the duration; give one of them")
		}
		for i, st := range l.Stages {
			switch {
			case l.Model == Closed && (st.Target < 0 || st.Target > MaxConnections || st.Target != math.Trunc(st.Target)):
				bad("stage %d: %s connections: want a whole number from 0 to %d", i+1, strconv.FormatFloat(st.Target, 'f', -1, 64), MaxConnections)
			case l.Model != Closed && !(st.Target >= 0 && st.Target <= maxRate):
				bad("stage %d: rate %s/s: want a rate from 0 to %g per second", i+1, strconv.FormatFloat(st.Target, 'f', -1, 64), float64(maxRate))
			}
		}
		if top := l.topConnections(); l.Connections > 0 && top > l.Connections {
			bad("connections %d is below the highest stage target, %d connections: in the closed model a stage target is a number of connections, as a k6 VU count is; raise --connections to %d or leave it out", l.Connections, top, top)
		}
		if _, err := schedule.NewProfile(0, l.Stages); err != nil {
			errs = append(errs, err)
		}
	}
	// Lengths add up in nanoseconds: a sum past MaxLength would overflow or never end.
	// Each part is capped just past MaxLength, not at it, so that one part too long still counts.
	length := min(l.Warmup, MaxLength+1) + min(l.Duration, MaxLength+1)
	for _, st := range l.Stages {
		if length > MaxLength {
			break
		}
		length += min(max(st.Duration, 0), MaxLength+1)
	}
	if length > MaxLength {
		bad("%s; want at most %v, warm-up and measured part together", l.lengthParts(), MaxLength)
	}
	if p.HTTP.Timeout < 0 {
		bad("timeout %v is negative", p.HTTP.Timeout)
	}
	if p.HTTP.MaxBody < 0 {
		bad("max body %d is negative", p.HTTP.MaxBody)
	}
	if p.HTTP.ConnectTimeout < 0 {
		bad("connect timeout %v is negative", p.HTTP.ConnectTimeout)
	}
	return errors.Join(errs...)
}

// CheckURL checks that raw is a URL a run can send to: a known scheme and a host; the messages
// quote it redacted.
func CheckURL(raw string) error {
	shown := RedactURL(raw) // what the messages quote: no secret of the URL
	u, err := url.Parse(raw)
	if err != nil && !strings.Contains(raw, "://") {
		return fmt.Errorf("URL %q has no scheme: want e.g. http://%s", shown, shown)
	}
	if err != nil {
		return fmt.Errorf("URL %q: %v", shown, unwrapURLError(err))
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss", "grpc", "grpcs":
	case "":
		return fmt.Errorf("URL %q has no scheme: want e.g. http://127.0.0.1:8080/", shown)
	default:
		return fmt.Errorf("URL %q: scheme %q is not supported; want http, https, ws, wss, grpc or grpcs", shown, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("URL %q has no host: want e.g. http://127.0.0.1:8080/", shown)
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("URL %q: port %s: want 1 to 65535", shown, port)
		}
	}
	if strings.ContainsAny(raw, " \t") {
		return fmt.Errorf("URL %q holds a space: write it as %%20", shown)
	}
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// Profile returns the level profile of the whole run, warm-up included: arrivals per second for
// the open model, connections for the closed model. Call it on a Normalized, valid plan.
func (l Load) Profile() (*schedule.Profile, error) {
	level := l.Rate
	if l.Model == Closed {
		level = float64(l.Connections)
	}
	if len(l.Stages) == 0 {
		d := l.Duration
		if d > 0 && l.WarmupFrom != nil && l.Warmup > 0 {
			return schedule.NewProfile(0, append(l.warmupStages(level), schedule.Stage{Duration: d, Target: level}))
		}
		if d > 0 {
			d += l.Warmup
		} else if l.Warmup > 0 {
			// count-limited: the warm-up is the first part of a for-ever profile
			return schedule.Constant(level, 0)
		}
		return schedule.Constant(level, d)
	}
	stages := l.Stages
	if l.Warmup > 0 {
		stages = append(l.warmupStages(l.Stages[0].Target), stages...)
	}
	return schedule.NewProfile(0, stages)
}

// warmupStages are the stages of the warm-up before a first level of first: from WarmupFrom (a
// step to it, then a ramp) or held at first.
func (l Load) warmupStages(first float64) []schedule.Stage {
	from := first
	if l.WarmupFrom != nil {
		from = *l.WarmupFrom
	}
	return []schedule.Stage{{Duration: 0, Target: from}, {Duration: l.Warmup, Target: first}}
}

// validateWarmupFrom checks the level a warm-up ramps from: a warm-up to ramp over, a run whose
// length is known, a level of the load's model, no more connections than the run opens.
func (l Load) validateWarmupFrom() []error {
	if l.WarmupFrom == nil {
		return nil
	}
	from := *l.WarmupFrom
	text := strconv.FormatFloat(from, 'f', -1, 64)
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("plan: warm-up ramp from "+format, a...))
	}
	switch {
	case l.Warmup <= 0:
		bad("%s: the ramp lasts the warm-up; give a warm-up too", text)
	case l.Duration == 0 && len(l.Stages) == 0:
		bad("%s: a run that ends on a count has no planned end for its ramp; give a duration or stages", text)
	}
	if l.Model == Closed || l.Model == "" && l.Rate == 0 && len(l.Stages) == 0 {
		limit := l.Connections // as Normalized sets it
		if limit == 0 {
			limit = DefaultClosedConns
			if len(l.Stages) > 0 {
				limit = l.topConnections()
			}
		}
		switch {
		case from < 0 || from != math.Trunc(from) || from > MaxConnections:
			bad("%s connections: want a whole number from 0 to %d", text, MaxConnections)
		case from > float64(limit):
			bad("%s connections: above the run's %d; in the closed model a warm-up ramp rises to the run's connections (with model: open, rates can ramp down)", text, limit)
		}
	} else if !(from >= 0 && from <= maxRate) {
		bad("%s/s: want a rate from 0 to %g per second", text, float64(maxRate))
	}
	return errs
}
