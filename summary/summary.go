package summary

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Schema names the JSON report's format and version.
const Schema = "rpcbench.report/v1"

// Summary is the whole report of one run. It is plain data: encode it with encoding/json. The
// histograms are kept (outside the JSON) for renderers.
type Summary struct {
	Schema string `json:"schema"`
	Tool   Tool   `json:"tool"`
	Target string `json:"target"`
	// Validity is the verdict on whether the run measured the target (see Judge): kept up to
	// date by New and SetResources.
	Validity  Validity  `json:"validity"`
	Config    plan.Plan `json:"config"`
	StartedAt time.Time `json:"started_at"`
	DurationS float64   `json:"duration_s"` // from the measured start to the last answer
	SendingS  float64   `json:"sending_s"`  // the window the measured arrivals were due in
	// SendSpanS runs to the last request sent: longer than SendingS when the generator fell behind.
	SendSpanS   float64 `json:"send_span_s"`
	Interrupted bool    `json:"interrupted,omitempty"`
	StopReason  string  `json:"stop_reason,omitempty"`
	// GeneratorCPUs is how many CPUs the generator could use at once (GOMAXPROCS); 0: not known.
	GeneratorCPUs int `json:"generator_cpus,omitempty"`
	// Sender is "event loop" when HTTP/1.1's event loop sent the requests (run.Sender).
	Sender string  `json:"sender,omitempty"`
	Warmup *Warmup `json:"warmup,omitempty"`

	Stats // the totals, over every endpoint

	IntendedRate float64 `json:"intended_rate_rps"`
	SendRate     float64 `json:"send_rate_rps"` // requests sent per second of sending
	// SendingThroughput is answers per second within the sending window (SendSpanS), without the
	// drain after the last send; 0 when there is no timeline to tell (see SetTimeline).
	SendingThroughput float64     `json:"sending_throughput_rps,omitempty"`
	SendLag           LagStats    `json:"send_lag_ms"`
	Connections       Connections `json:"connections"`
	// Backoff says how the closed model's connections waited after connections could not be made.
	Backoff   *Backoff   `json:"backoff,omitempty"`
	Endpoints []Endpoint `json:"endpoints"`
	// Notes are what a reader must not miss: a generator that fell behind, dropped arrivals.
	Notes []string `json:"notes,omitempty"`
	// Warnings say that the figures cannot all be true: the result file they were read from
	// contradicts itself (result.File.Contradictions), and was rendered only because the user
	// forced it. Every format shows them first.
	Warnings []string `json:"warnings,omitempty"`
	// SLO is the verdict on the plan's objectives, when it has some (see JudgeSLO).
	SLO *SLOResults `json:"slo,omitempty"`
	// Stages are the figures of each stage of a load with stages, when they were collected (see
	// Stages); ramps only when asked for.
	Stages []Stage `json:"stages,omitempty"`
	// Timeline is the run interval by interval, when it was collected (see Timeline).
	Timeline []Point `json:"timeline,omitempty"`
	// Resources and Metrics are what the resource monitor saw, when the run was monitored (see
	// SetResources).
	Resources []result.Resources `json:"resources,omitempty"`
	Metrics   *result.Metrics    `json:"metrics,omitempty"`
	// Subscriptions are the figures of the run's JSON-RPC subscriptions, when it had some.
	Subscriptions *Subscriptions `json:"subscriptions,omitempty"`
	// Generators are the runs a merged run adds up, one per result file (see Run.Parts).
	Generators []Generator `json:"generators,omitempty"`
}

// Backoff counts the closed model's waits after a connection could not be made (1 ms after the
// first failure, doubling with each failure in a row up to 1 s) and their total length.
type Backoff struct {
	Count  uint64  `json:"count"`
	TotalS float64 `json:"total_s"`
}

// Tool names the program that measured.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Warmup says what the warm-up sent, outside the figures.
type Warmup struct {
	DurationS float64 `json:"duration_s"`
	Sent      uint64  `json:"sent"`
}

// Stats are the figures of one endpoint or of all together.
type Stats struct {
	Requests   Requests          `json:"requests"`
	Throughput float64           `json:"throughput_rps"` // answers per second
	Latency    Percentiles       `json:"latency_ms"`
	Service    Percentiles       `json:"service_time_ms"`
	TTFB       *Percentiles      `json:"ttfb_ms,omitempty"`
	Status     map[string]uint64 `json:"status"`
	Errors     map[string]uint64 `json:"errors"`
	// ErrorMessages are the distinct failures, most frequent first, one example message each: at
	// most MaxMessages of each class; MoreMessages counts the rest.
	ErrorMessages []ErrorMessage `json:"error_messages,omitempty"`
	MoreMessages  []MoreMessages `json:"more_error_messages,omitempty"`
	Bytes         Bytes          `json:"bytes"`
	// Messages counts the messages of streaming calls; nil when no call streamed.
	Messages *Messages `json:"messages,omitempty"`
	// MessageLatency is the latency of each answer of bidi calls whose messages went on a
	// schedule (--stream-rate), from its message's due time; nil without such calls.
	MessageLatency *Percentiles `json:"message_latency_ms,omitempty"`
	// MessageGap is the time between consecutive answers of server- and bidi-streaming calls;
	// nil when no call had two answers.
	MessageGap *Percentiles `json:"message_gap_ms,omitempty"`
	// Calls are the JSON-RPC calls inside batches, method by method, call by call; none when no
	// request was a batch.
	Calls []MethodCalls `json:"calls,omitempty"`
	// Checks are the user's checks, by name: how many answers each passed and failed, with a
	// sample of the values that failed; none when the run had no checks.
	Checks []Check `json:"checks,omitempty"`
	// AnswerMetrics are the numbers read from the answers (checks.metrics, --metric), by name;
	// none when the run read none.
	AnswerMetrics []AnswerMetric `json:"answer_metrics,omitempty"`

	LatencyHist *result.Histogram `json:"-"`
	ServiceHist *result.Histogram `json:"-"`
}

// AnswerMetric is the distribution of one number read from each answer that succeeded, in the
// answer's own unit (the name says it; values are whole numbers, HDR-bucketed to 3 significant
// digits). Count answers held it; Missing held no number at its path; Values is nil when none
// held it.
type AnswerMetric struct {
	Name    string       `json:"name"`
	Count   uint64       `json:"count"`
	Missing uint64       `json:"missing"`
	Values  *Percentiles `json:"values,omitempty"` // nil when no answer held it
}

// MethodCalls is what happened to the JSON-RPC calls of one method inside batches, counted call by
// call: a batch of several methods is one endpoint, and these keep each method's figures. A call has
// no latency of its own: it is answered with its batch, whose latency the endpoint gives.
// Calls = OK + the Errors + Unanswered.
type MethodCalls struct {
	Method string `json:"method"`
	Calls  uint64 `json:"calls"` // sent in batches
	OK     uint64 `json:"ok"`    // answered with a result
	// Errors counts the calls answered with a JSON-RPC error member, by its code.
	Errors map[string]uint64 `json:"errors,omitempty"`
	// Unanswered counts the calls whose batch got no answer they could be matched in: no answer, a
	// failing status, an answer that is not the batch's, or one error for the whole batch.
	Unanswered uint64 `json:"unanswered,omitempty"`
	// Throughput is the calls answered (with a result or an error) per second.
	Throughput float64 `json:"throughput_cps"`
}

// Failed returns the calls answered with an error, all codes together.
func (m MethodCalls) Failed() uint64 {
	var n uint64
	for _, v := range m.Errors {
		n += v
	}
	return n
}

// methodCalls folds the per-call counts of c, by method in name order.
func methodCalls(c *result.Counts, elapsed time.Duration) []MethodCalls {
	if len(c.Calls) == 0 {
		return nil
	}
	by := map[string]*MethodCalls{}
	var out []MethodCalls
	var names []string
	for k, n := range c.Calls {
		m := by[k.Method]
		if m == nil {
			m = &MethodCalls{Method: k.Method}
			by[k.Method] = m
			names = append(names, k.Method)
		}
		m.Calls += n
		switch k.Outcome {
		case result.CallOK:
			m.OK += n
		case result.CallError:
			if m.Errors == nil {
				m.Errors = map[string]uint64{}
			}
			m.Errors[fmt.Sprint(k.Code)] += n
		default:
			m.Unanswered += n
		}
	}
	sort.Strings(names)
	for _, name := range names {
		m := by[name]
		if sec := elapsed.Seconds(); sec > 0 {
			m.Throughput = float64(m.Calls-m.Unanswered) / sec
		}
		out = append(out, *m)
	}
	return out
}

// Check is what one of the user's checks made of the answers. Passed + Failed are the answers that
// reached the checks: an answer that failed before (no answer, a failing status, a JSON-RPC error)
// is judged by none. Every check judges every answer that reaches them, so a request that failed
// two checks counts in both; the request's own failure is counted once, under the first.
// FailedSamples are distinct values it received when it failed (the value at its JSON path, or
// the body), each cut to result.MaxSampleBytes (see result.Sample): all of them when there are
// fewer than result.MaxCheckSamples, else that many of them.
type Check struct {
	Name          string   `json:"name"`
	Passed        uint64   `json:"passed"`
	Failed        uint64   `json:"failed"`
	FailedSamples []string `json:"failed_samples,omitempty"`
}

// checks lists the check counts of c by name.
func checks(c *result.Counts) []Check {
	var out []Check
	for name, k := range c.Checks {
		out = append(out, Check{Name: name, Passed: k.Passed, Failed: k.Failed, FailedSamples: slices.Clone(k.Samples)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Endpoint is the figures of one named endpoint.
type Endpoint struct {
	Name string `json:"name"`
	Stats
}

// Requests counts requests. Errors = Sent + Unsent − OK: every request that did not end in
// success, whatever its class (Status for answers with a failing status code), those that failed
// before sending included; Intended = OK + Errors + Dropped.
type Requests struct {
	Intended  uint64 `json:"intended"`
	Sent      uint64 `json:"sent"`
	Completed uint64 `json:"completed"` // got an answer, whatever its status
	OK        uint64 `json:"ok"`
	Errors    uint64 `json:"errors"`
	// Misses counts the answers of a miss status (plan.Checks.Miss: a GET of a key the store does
	// not hold): in OK, not in Errors.
	Misses uint64 `json:"misses,omitempty"`
	// Unsent counts the requests that failed before any byte was written (a connection refused, a
	// name not resolved): in Errors, not in Sent, without a service time.
	Unsent  uint64 `json:"failed_before_sending,omitempty"`
	Dropped uint64 `json:"dropped,omitempty"` // intended but never sent
	// RetriedAfterReset counts requests sent again on a new connection because a reused one was
	// reset or closed before answering: failures of the server that the retry hid.
	RetriedAfterReset uint64 `json:"retried_after_reset,omitempty"`
	// RetriedAfterGoAway counts requests sent again on a new connection because the server's
	// GOAWAY (HTTP/2's graceful close) said it had not processed them.
	RetriedAfterGoAway uint64 `json:"retried_after_goaway,omitempty"`
	// Unknown counts the intended requests not accounted for in a result file cut off without its
	// trailer (the run was killed): in flight or not yet sent when it stopped, nobody knows which.
	Unknown uint64 `json:"unknown,omitempty"`
}

// Attempted returns the requests made: those sent and those that failed before sending.
func (r Requests) Attempted() uint64 { return r.Sent + r.Unsent }

// Percentiles of a latency distribution, in milliseconds.
type Percentiles struct {
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	Stdev float64 `json:"stdev"`
	P50   float64 `json:"p50"`
	P75   float64 `json:"p75"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	P9999 float64 `json:"p9999"`
	Max   float64 `json:"max"`
}

// LagStats is the send lag: how late arrivals went out against their schedule.
type LagStats struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// ErrorMessage is one kind of failure with its count.
type ErrorMessage struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	Count   uint64 `json:"count"`
}

// MaxMessages is the most distinct failure messages of one class a Summary lists: a server that
// fails every request in its own words must not make the report grow without bound.
const MaxMessages = 20

// MoreMessages counts the distinct failure messages of one class beyond the MaxMessages listed:
// Distinct messages, failing Count requests.
type MoreMessages struct {
	Class    string `json:"class"`
	Distinct uint64 `json:"distinct"`
	Count    uint64 `json:"count"`
}

// Unlisted returns how many distinct messages, and how many requests they failed, a report that
// shows the first shown of ErrorMessages leaves out, MoreMessages included.
func (st *Stats) Unlisted(shown int) (distinct, count uint64) {
	for _, m := range st.ErrorMessages[min(shown, len(st.ErrorMessages)):] {
		distinct++
		count += m.Count
	}
	for _, m := range st.MoreMessages {
		distinct += m.Distinct
		count += m.Count
	}
	return distinct, count
}

// Messages counts the messages streaming calls sent and received, in all and per call sent.
type Messages struct {
	Sent            uint64  `json:"sent"`
	Received        uint64  `json:"received"`
	SentPerCall     float64 `json:"sent_per_call"`
	ReceivedPerCall float64 `json:"received_per_call"`
}

// Bytes counts bytes on the wire, headers included.
type Bytes struct {
	In  uint64 `json:"in"`
	Out uint64 `json:"out"`
}

// Connections says how many connections were opened and what their set-up took, apart from the
// requests' latency.
type Connections struct {
	Opened  uint64       `json:"opened"`
	Failed  uint64       `json:"failed,omitempty"`
	DNS     *Percentiles `json:"dns_ms,omitempty"`
	Connect *Percentiles `json:"connect_ms,omitempty"`
	TLS     *Percentiles `json:"tls_ms,omitempty"`
	// Protocols counts the connections by the protocol they spoke ("h2", "h2c", "http/1.1"), for
	// the transports that say (HTTP/2's, which may fall back to HTTP/1.1 by ALPN).
	Protocols map[string]uint64 `json:"protocols,omitempty"`
	// QUIC sums the QUIC connections of HTTP/3 (their handshake is TLS above): how many spoke
	// each version, used 0-RTT, resumed a TLS session and sent with GSO, and their packets sent,
	// received and lost up to each connection's last answer, as quic-go counts them.
	QUIC *result.QUICConns `json:"quic,omitempty"`
}

// Run describes a measured run for New: the facts that are not in the merged interval — the plan,
// the tool's version, and the run's record as the engine's Result and a result file's trailer
// hold it (a SendSpan of 0 means Sending; a Procs of 0 that the CPUs are not known).
type Run struct {
	Plan    plan.Plan
	Version string // the tool's version
	result.Trailer
	// CutShort says the run's facts come from a result file cut off without its trailer: the fate
	// of the intended requests it does not count is unknown, not a generator that fell behind.
	CutShort bool
	// Parts are the generators' own figures when the run is several merged (result.File.Parts).
	Parts []result.Part
}

// New folds the merged interval total of run into a Summary.
func New(run Run, total *result.Interval) *Summary {
	p := run.Plan
	span := max(run.SendSpan, run.Sending)
	// the run lasted at least its schedule, even when the last answer came before its end (at 10/s
	// for 1 s the last arrival is due at 0.9 s): throughput never exceeds what was sent
	elapsed := max(run.Elapsed, span)
	s := &Summary{
		Schema:        Schema,
		Tool:          Tool{Name: "rpcbench", Version: run.Version},
		Target:        Target(p),
		Config:        p,
		StartedAt:     run.MeasuredStart.UTC(),
		DurationS:     elapsed.Seconds(),
		SendingS:      run.Sending.Seconds(),
		SendSpanS:     span.Seconds(),
		Interrupted:   run.Interrupted,
		GeneratorCPUs: run.Procs,
		Sender:        run.Sender,
	}
	s.StopReason = run.StopReason
	if p.Load.Warmup > 0 {
		s.Warmup = &Warmup{DurationS: p.Load.Warmup.Seconds(), Sent: run.WarmupSent}
	}
	all := total.Total()
	s.Stats = stats(all, elapsed)
	for i, c := range total.Endpoints {
		name := fmt.Sprintf("endpoint %d", i+1)
		if i < len(p.Endpoints) {
			name = p.Endpoints[i].Name
		}
		e := Endpoint{Name: name, Stats: stats(c, elapsed)}
		e.Requests.Intended = e.Requests.Attempted()
		s.Endpoints = append(s.Endpoints, e)
	}
	countMisses(s, p)
	nameStatuses(s, p)
	s.Requests.Intended = run.Intended
	if p.Load.Model == plan.Open {
		missing := run.Intended - min(run.Intended, s.Requests.Attempted())
		if run.CutShort {
			s.Requests.Unknown = missing
		} else {
			s.Requests.Dropped = missing
		}
		s.SendLag = LagStats{P50: ms(total.SendLag.ValueAtQuantile(50)), P99: ms(total.SendLag.ValueAtQuantile(99)), Max: ms(total.SendLag.Max())}
	} else {
		s.Requests.Intended = s.Requests.Attempted()
	}
	if run.Backoffs > 0 {
		s.Backoff = &Backoff{Count: run.Backoffs, TotalS: run.BackoffTime.Seconds()}
	}
	if sec := run.Sending.Seconds(); sec > 0 {
		s.IntendedRate = float64(s.Requests.Intended) / sec
	}
	if sec := span.Seconds(); sec > 0 {
		s.SendRate = float64(s.Requests.Sent) / sec
	}
	c := total.Conns
	s.Connections = Connections{Opened: c.Opened, Failed: c.Failed, DNS: optPercentiles(c.DNS), Connect: optPercentiles(c.Connect), TLS: optPercentiles(c.TLS)}
	if len(c.Protos) > 0 {
		s.Connections.Protocols = maps.Clone(c.Protos)
	}
	s.Connections.QUIC = c.QUIC.Clone()
	s.Notes = notes(s, p, run.CutShort)
	if len(run.Parts) > 0 {
		var behind []string
		s.Generators, behind = generators(run.Parts, p.Load)
		s.Notes = append(s.Notes, behind...)
	}
	if !run.StartAt.IsZero() && run.StartLate > lateStartNote {
		s.Notes = append(s.Notes, fmt.Sprintf("started %s after its start instant %s (a slow setup, or a clock behind the other generators'): the arrivals due meanwhile went out late",
			FormatMs(float64(run.StartLate)/float64(time.Millisecond)), run.StartAt.UTC().Format(time.RFC3339Nano)))
	}
	s.SLO = JudgeSLO(s, p.SLO)
	s.Validity = Judge(s)
	return s
}

// Target names what a plan loads: its URL, or the first URL and how many more endpoints there are.
func Target(p plan.Plan) string {
	if len(p.Diff) > 0 {
		return "diff of " + strings.Join(p.Diff, ", ")
	}
	switch len(p.Endpoints) {
	case 0:
		return ""
	case 1:
		return p.Endpoints[0].URL
	}
	return fmt.Sprintf("%s (and %d more endpoints)", p.Endpoints[0].URL, len(p.Endpoints)-1)
}

func stats(c *result.Counts, elapsed time.Duration) Stats {
	st := Stats{
		Requests: Requests{
			Sent:      c.Sent,
			Completed: c.Completed,
			OK:        c.OK,
			Errors:    c.Attempted() - min(c.OK, c.Attempted()),
			Unsent:    c.Unsent,

			RetriedAfterReset:  c.Retried,
			RetriedAfterGoAway: c.RetriedGoAway,
		},
		Latency:     percentiles(c.Latency),
		Service:     percentiles(c.Service),
		TTFB:        optPercentiles(c.TTFB),
		Status:      map[string]uint64{},
		Errors:      map[string]uint64{},
		Bytes:       Bytes{In: c.BytesIn, Out: c.BytesOut},
		LatencyHist: c.Latency,
		ServiceHist: c.Service,
	}
	st.MessageLatency = optPercentiles(c.MsgLatency)
	st.MessageGap = optPercentiles(c.MsgGap)
	st.AnswerMetrics = answerMetrics(c)
	if sec := elapsed.Seconds(); sec > 0 {
		st.Throughput = float64(c.Completed) / sec
	}
	if c.MsgsIn > 0 || c.MsgsOut > 0 {
		st.Messages = &Messages{Sent: c.MsgsOut, Received: c.MsgsIn}
		if c.Sent > 0 {
			st.Messages.SentPerCall = float64(c.MsgsOut) / float64(c.Sent)
			st.Messages.ReceivedPerCall = float64(c.MsgsIn) / float64(c.Sent)
		}
	}
	for code, n := range c.Status {
		st.Status[fmt.Sprint(code)] = n
	}
	for cl, n := range c.Errors {
		if n > 0 {
			st.Errors[result.Class(cl).String()] = n
		}
	}
	for k, n := range c.Messages {
		st.ErrorMessages = append(st.ErrorMessages, ErrorMessage{Class: k.Class.String(), Message: k.Message, Count: n})
	}
	sort.Slice(st.ErrorMessages, func(i, j int) bool {
		a, b := st.ErrorMessages[i], st.ErrorMessages[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Class+a.Message < b.Class+b.Message
	})
	st.ErrorMessages, st.MoreMessages = capMessages(st.ErrorMessages)
	st.Calls = methodCalls(c, elapsed)
	st.Checks = checks(c)
	return st
}

// capMessages keeps the first MaxMessages messages of each class of msgs (sorted most frequent
// first) and counts the rest by class, in the order of result's classes.
func capMessages(msgs []ErrorMessage) ([]ErrorMessage, []MoreMessages) {
	var (
		kept   = msgs[:0]
		seen   = map[string]int{}
		more   = map[string]*MoreMessages{}
		counts []MoreMessages
	)
	for _, m := range msgs {
		if seen[m.Class]++; seen[m.Class] <= MaxMessages {
			kept = append(kept, m)
			continue
		}
		mm := more[m.Class]
		if mm == nil {
			mm = &MoreMessages{Class: m.Class}
			more[m.Class] = mm
		}
		mm.Distinct++
		mm.Count += m.Count
	}
	for c := range result.NumClasses {
		if mm := more[c.String()]; mm != nil {
			counts = append(counts, *mm)
		}
	}
	return kept, counts
}

func ms(us int64) float64 { return float64(us) / 1000 }

// percentiles returns the figures of a histogram of microseconds, in milliseconds.
func percentiles(h *result.Histogram) Percentiles { return scaled(h, 1000) }

// scaled returns the figures of h, each value divided by div.
func scaled(h *result.Histogram, div float64) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	v := func(x int64) float64 { return float64(x) / div }
	q := func(p float64) float64 { return v(h.ValueAtQuantile(p)) }
	return Percentiles{
		Min: v(h.Min()), Mean: round3(h.Mean() / div), Stdev: round3(h.StdDev() / div),
		P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), P9999: q(99.99),
		Max: v(h.Max()),
	}
}

// answerMetrics returns the answer metrics of c by name, their values as the answers gave them.
func answerMetrics(c *result.Counts) []AnswerMetric {
	var out []AnswerMetric
	for _, name := range c.MetricNames() {
		m := c.Metrics[name]
		out = append(out, AnswerMetric{Name: name, Count: uint64(m.Values.TotalCount()), Missing: m.Missing})
		if m.Values.TotalCount() > 0 {
			v := scaled(m.Values, 1)
			out[len(out)-1].Values = &v
		}
	}
	return out
}

func optPercentiles(h *result.Histogram) *Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	p := percentiles(h)
	return &p
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Thresholds of the notes on a generator that fell behind.
const (
	lagNote = 10 * time.Millisecond // send lag p99 above this is worth a note
	// oneCPULagNote is the send lag p99 above which a generator on one CPU is said to have fallen
	// behind its own wake-ups: on an idle core it wakes within about 0.1 ms.
	oneCPULagNote = time.Millisecond
	shortfallPct  = 1.0 // sending more than this many percent below the intended rate
	// lateStartNote is how late after its start instant (--start-at) a generator may begin without
	// a note: a wake-up takes well under it.
	lateStartNote = 10 * time.Millisecond
)

func notes(s *Summary, p plan.Plan, cutShort bool) []string {
	var out []string
	if cutShort {
		// what the run sent but had not counted yet is not in the file: the figures below cannot
		// say the generator fell behind
		msg := "the result file was cut short (no trailer): the run was killed before it finished the file"
		if u := s.Requests.Unknown; u > 0 {
			msg += fmt.Sprintf("; %d of %d intended requests were in flight or not yet sent, and their fate is unknown", u, s.Requests.Intended)
		}
		out = append(out, msg)
	} else {
		if s.Interrupted {
			out = append(out, "interrupted: the figures cover the run up to the interruption")
		}
		if s.StopReason != "" {
			out = append(out, "stopped early: "+s.StopReason)
		}
	}
	if len(p.Diff) > 0 {
		out = append(out, fmt.Sprintf("a diff of %d URLs: each request went to every one at once; its latency runs until the last answered, and it failed when one did not; each URL's own figures are in the diff's report, not in this file", len(p.Diff)))
	}
	if b := s.Backoff; b != nil {
		out = append(out, fmt.Sprintf("connections could not be made: the connections backed off %d times, %s in all, before trying again (%s after a failure, doubling with each failure in a row up to %s)",
			b.Count, FormatMs(b.TotalS*1000), FormatMs(1), FormatMs(1000)))
	}
	if p.Load.Model != plan.Open {
		return out
	}
	if d := s.Requests.Dropped; cutShort {
		// no figure of the file can say whether the generator kept up
	} else if d > 0 {
		out = append(out, fmt.Sprintf("the generator fell behind: %d of %d intended requests were never sent (%.1f%%); raise --connections or lower the rate", d, s.Requests.Intended, 100*float64(d)/float64(s.Requests.Intended)))
	} else if made := float64(s.Requests.Attempted()) / s.SendSpanS; s.IntendedRate > 0 && made < s.IntendedRate*(1-shortfallPct/100) {
		// requests that failed before sending were made on time: they do not make the generator late
		out = append(out, fmt.Sprintf("the generator fell behind: it sent %.1f/s of an intended %.1f/s, taking %s to send what was due in %s; raise --connections or lower the rate",
			made, s.IntendedRate, FormatMs(s.SendSpanS*1000), FormatMs(s.SendingS*1000)))
	}
	// A send slack makes arrivals late by design, by up to the slack: only lateness beyond it says
	// the generator could not keep up.
	lag := time.Duration(s.SendLag.P99*float64(time.Millisecond)) - p.Load.SendSlack
	if lag > lagNote {
		out = append(out, fmt.Sprintf("requests went out late: send lag p99 %s, max %s; latency still counts from the intended send times", FormatMs(s.SendLag.P99), FormatMs(s.SendLag.Max)))
	}
	if s.GeneratorCPUs == 1 && lag > oneCPULagNote {
		read := "it may also have read answers late, adding to latency and service time; "
		if s.Sender != "" {
			read = "" // answers are timed by the kernel's receive timestamps
		}
		out = append(out, fmt.Sprintf("the generator ran on one CPU (GOMAXPROCS=1) and its own wake-ups could not keep up: send lag p99 %s; %sgive it a second CPU or lower the rate before publishing these figures", FormatMs(s.SendLag.P99), read))
	}
	return out
}

// FormatMs formats a duration in milliseconds with a unit that suits it: "850µs", "12.3ms", "1.52s".
func FormatMs(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.0fµs", v*1000)
	case v < 10:
		return fmt.Sprintf("%.2fms", v)
	case v < 1000:
		return fmt.Sprintf("%.1fms", v)
	case v < 60_000:
		return fmt.Sprintf("%.2fs", v/1000)
	}
	return time.Duration(v * float64(time.Millisecond)).Round(time.Second).String()
}
