package result

import (
	"sort"
	"time"
)

// Histogram range: 1 µs to 1 h, 3 significant digits. Values are in microseconds.
const (
	HistMin     = 1
	HistMax     = int64(time.Hour / time.Microsecond)
	HistSigFigs = 3
)

// MaxEndpoints is the most endpoints a run (and a result file) may have. Every endpoint keeps its
// own histograms, sparse outside the Recorder's shards (see Histogram), so that an endpoint costs
// tens of kilobytes, not megabytes (1,000 endpoints hold about 30 MB of live heap in
// TestMemoryPerEndpoint).
const MaxEndpoints = 1000

// RecordDuration adds d to h in microseconds, clamped into the histogram's range, so that no value is
// ever lost (a 2 h stall counts as 1 h).
func RecordDuration(h *Histogram, d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < HistMin {
		us = HistMin
	} else if us > HistMax {
		us = HistMax
	}
	_ = h.RecordValue(us) // cannot fail: us is within range
}

// ErrorKey names one kind of failure: its class and its normalised message.
type ErrorKey struct {
	Class   Class
	Message string
}

// CallOutcome is what happened to one JSON-RPC call inside a batch.
type CallOutcome uint8

// The outcomes of a call inside a batch.
const (
	// CallUnanswered: the batch got no answer the call could be matched in (no answer, a failing
	// status, an answer that is not the batch's, or an error about the whole batch).
	CallUnanswered CallOutcome = iota
	// CallOK: the batch's answer holds a result for the call.
	CallOK
	// CallError: the batch's answer holds a JSON-RPC error member for the call; CallKey.Code says which.
	CallError
)

// String names the outcome as the result file and the reports do: "ok", "error", "unanswered".
func (o CallOutcome) String() string {
	switch o {
	case CallOK:
		return "ok"
	case CallError:
		return "error"
	}
	return "unanswered"
}

// Call is one JSON-RPC call of a batch as the verifier judged it: its method, its outcome and, for
// CallError, the error's code. Method should be a string made once (the plan's), not per request.
type Call struct {
	Method  string
	Outcome CallOutcome
	Code    int64
}

// CallKey counts the calls of one method and outcome inside batches: a Call is its own key.
type CallKey = Call

// Counts is what happened to the requests of one endpoint. The zero value is not ready: use
// NewCounts. Not safe for concurrent use.
type Counts struct {
	Sent uint64 // requests written to the wire, in part or whole
	// Unsent counts the requests that failed before any byte of them was written (a connection
	// refused, a name not resolved, a TLS handshake failed): they are in Errors, not in Sent, and
	// have no service time.
	Unsent    uint64
	Completed uint64 // requests that got an answer (any status)
	OK        uint64 // answers that count as a success
	// Errors counts the failed requests by class; Errors[OK] stays zero.
	Errors   [NumClasses]uint64
	Status   map[int]uint64      // answers by status code (HTTP status, gRPC code)
	Messages map[ErrorKey]uint64 // failures by class and normalised message
	// Retried counts the requests sent again after a reused connection was closed or reset
	// before answering (each attempt that met it once): resets a retry would otherwise hide.
	Retried  uint64
	BytesIn  uint64     // bytes read, headers included
	BytesOut uint64     // bytes written, headers included
	Latency  *Histogram // done − intended, µs
	Service  *Histogram // done − sent, µs
	TTFB     *Histogram // first byte − sent, µs
	// RetriedGoAway counts the requests sent again because the server's GOAWAY said it had not
	// processed them (each attempt that met it once): streams an HTTP/2 server closed gracefully.
	RetriedGoAway uint64
	// MsgsIn and MsgsOut count the messages received and sent by streaming calls.
	MsgsIn, MsgsOut uint64
	// MsgLatency is the latency of each answer of bidi calls whose messages went on a schedule,
	// from its message's due time, µs; nil until one is recorded (most runs stream nothing, and
	// a histogram per endpoint and interval is not free).
	MsgLatency *Histogram
	// MsgGap is the time between consecutive answers of server- and bidi-streaming calls, µs;
	// nil until one is recorded.
	MsgGap *Histogram
	// Calls counts the JSON-RPC calls inside batches one by one, by method, outcome and error code:
	// a batch of mixed methods is one endpoint, and these keep the figures of each method per call.
	// Empty when no request was a batch.
	Calls map[CallKey]uint64
	// Checks counts, by name, the answers each of the user's checks passed and failed, with a
	// sample of the values that failed; empty when the run had no checks.
	Checks map[string]CheckCounts
	// Metrics are the answer metrics by name (check.Metric): numbers read from the answers' bodies;
	// nil until one is recorded (most runs read none).
	Metrics map[string]*MetricCounts
	sample  []byte // recordCheck's buffer
}

// NewCounts returns empty Counts with their (sparse) histograms.
func NewCounts() *Counts { return newCounts(NewHistogram) }

// newCounts returns empty Counts whose histograms newHist makes.
func newCounts(newHist func() *Histogram) *Counts {
	return &Counts{
		Status:   map[int]uint64{},
		Messages: map[ErrorKey]uint64{},
		Calls:    map[CallKey]uint64{},
		Checks:   map[string]CheckCounts{},
		Latency:  newHist(),
		Service:  newHist(),
		TTFB:     newHist(),
	}
}

// Attempted returns the requests made: those sent and those that failed before sending.
func (c *Counts) Attempted() uint64 { return c.Sent + c.Unsent }

// Failed returns the number of failed requests, all classes together.
func (c *Counts) Failed() uint64 {
	var n uint64
	for _, v := range c.Errors {
		n += v
	}
	return n
}

// Merge adds o into c.
func (c *Counts) Merge(o *Counts) {
	c.Sent += o.Sent
	c.Unsent += o.Unsent
	c.Completed += o.Completed
	c.OK += o.OK
	for i, v := range o.Errors {
		c.Errors[i] += v
	}
	for k, v := range o.Status {
		c.Status[k] += v
	}
	for k, v := range o.Messages {
		c.Messages[k] += v
	}
	for k, v := range o.Calls {
		c.Calls[k] += v
	}
	c.mergeChecks(o)
	c.mergeMetrics(o)
	c.Retried += o.Retried
	c.RetriedGoAway += o.RetriedGoAway
	c.BytesIn += o.BytesIn
	c.BytesOut += o.BytesOut
	c.Latency.Merge(o.Latency)
	c.Service.Merge(o.Service)
	c.TTFB.Merge(o.TTFB)
	c.MsgsIn += o.MsgsIn
	c.MsgsOut += o.MsgsOut
	mergeLazy(&c.MsgLatency, o.MsgLatency)
	mergeLazy(&c.MsgGap, o.MsgGap)
}

// mergeLazy adds src, which may be nil, into *dst, making *dst when src has values and *dst is nil.
func mergeLazy(dst **Histogram, src *Histogram) {
	if src == nil || src.TotalCount() == 0 {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(src)
}

// recordLazy records d in *h, making *h on first use.
func recordLazy(h **Histogram, d time.Duration) {
	if *h == nil {
		*h = NewHistogram()
	}
	RecordDuration(*h, d)
}

// mergeHist adds src into dst. hdrhistogram's Merge walks every bucket even of an empty
// histogram; most histograms of an interval are empty (endpoints not hit, no TLS), so skip them.
func mergeHist(dst, src *Histogram) {
	if src.TotalCount() > 0 {
		dst.Merge(src)
	}
}

// Reset empties c, keeping its memory.
func (c *Counts) Reset() {
	tl, ts, tt, st, ms, cs, ml, mg := c.Latency, c.Service, c.TTFB, c.Status, c.Messages, c.Calls, c.MsgLatency, c.MsgGap
	ck, mt, sb := c.Checks, c.Metrics, c.sample
	c.resetMetrics()
	*c = Counts{Latency: tl, Service: ts, TTFB: tt, Status: st, Messages: ms, Calls: cs, MsgLatency: ml, MsgGap: mg, Checks: ck, Metrics: mt, sample: sb}
	if ml != nil {
		ml.Reset()
	}
	if mg != nil {
		mg.Reset()
	}
	tl.Reset()
	ts.Reset()
	tt.Reset()
	clear(st)
	clear(ms)
	clear(cs)
	clear(ck)
}

// StatusCodes returns the status codes seen, in increasing order.
func (c *Counts) StatusCodes() []int {
	codes := make([]int, 0, len(c.Status))
	for k := range c.Status {
		codes = append(codes, k)
	}
	sort.Ints(codes)
	return codes
}

// Conns is what happened to connections: how many were opened and how long their set-up took,
// apart from request latency. The zero value is not ready: use NewConns.
type Conns struct {
	Opened  uint64
	Failed  uint64     // connection attempts that failed
	DNS     *Histogram // name resolution, µs (only when a name was resolved)
	Connect *Histogram // TCP connect, µs
	TLS     *Histogram // TLS handshake, µs (only for TLS)
	// Protos counts the connections opened by the protocol they spoke, for transports that say
	// (ConnEvent.Proto); nil when none did.
	Protos map[string]uint64
	// QUIC sums the facts of QUIC connections (HTTP/3) and their packets; nil when there were
	// none.
	QUIC *QUICConns
}

// NewConns returns empty Conns with their histograms.
func NewConns() *Conns {
	return &Conns{DNS: NewHistogram(), Connect: NewHistogram(), TLS: NewHistogram()}
}

// Merge adds o into c.
func (c *Conns) Merge(o *Conns) {
	c.Opened += o.Opened
	c.Failed += o.Failed
	for p, n := range o.Protos {
		if c.Protos == nil {
			c.Protos = map[string]uint64{}
		}
		c.Protos[p] += n
	}
	if o.QUIC != nil {
		c.quic().merge(o.QUIC)
	}
	c.DNS.Merge(o.DNS)
	c.Connect.Merge(o.Connect)
	c.TLS.Merge(o.TLS)
}

// Reset empties c, keeping its memory.
func (c *Conns) Reset() {
	c.Opened, c.Failed = 0, 0
	clear(c.Protos)
	c.QUIC = nil
	c.DNS.Reset()
	c.Connect.Reset()
	c.TLS.Reset()
}

// Interval is what happened during one stretch of a run: per-endpoint counts, the send lag of the
// arrivals sent in it and the connections opened. Requests are counted in the interval in which they
// finished. The zero value is not ready: use NewInterval. Not safe for concurrent use.
type Interval struct {
	Start     time.Duration // offset of the interval's start from the run's start
	End       time.Duration // offset of its end
	Intended  uint64        // arrivals that fell due in the interval (open model) or were started (closed)
	Endpoints []*Counts     // indexed by endpoint
	SendLag   *Histogram
	Conns     *Conns
}

// NewInterval returns an empty Interval for n endpoints, its histograms sparse.
func NewInterval(n int) *Interval {
	iv := &Interval{Endpoints: make([]*Counts, n), SendLag: NewHistogram(), Conns: NewConns()}
	for i := range iv.Endpoints {
		iv.Endpoints[i] = NewCounts()
	}
	return iv
}

// Merge adds o into iv; both must have the same number of endpoints. The interval grows to cover
// both.
func (iv *Interval) Merge(o *Interval) {
	if o.Start < iv.Start || iv.Start == 0 && iv.End == 0 {
		iv.Start = o.Start
	}
	if o.End > iv.End {
		iv.End = o.End
	}
	iv.Intended += o.Intended
	for i, c := range o.Endpoints {
		iv.Endpoints[i].Merge(c)
	}
	iv.SendLag.Merge(o.SendLag)
	iv.Conns.Merge(o.Conns)
}

// Reset empties iv, keeping its memory.
func (iv *Interval) Reset() {
	iv.Start, iv.End, iv.Intended = 0, 0, 0
	for _, c := range iv.Endpoints {
		c.Reset()
	}
	iv.SendLag.Reset()
	iv.Conns.Reset()
}

// Total returns the counts of all endpoints added together, in a new Counts. Once per interval,
// use TotalInto, which reuses one.
func (iv *Interval) Total() *Counts { return iv.TotalInto(NewCounts()) }

// TotalInto empties dst, adds the counts of all endpoints into it and returns it, so that a caller
// summing every interval reuses one Counts instead of making garbage of a new one each time.
func (iv *Interval) TotalInto(dst *Counts) *Counts {
	dst.Reset()
	for _, c := range iv.Endpoints {
		dst.Merge(c)
	}
	return dst
}

// Sent returns the requests sent, all endpoints together.
func (iv *Interval) Sent() uint64 {
	var n uint64
	for _, c := range iv.Endpoints {
		n += c.Sent
	}
	return n
}
