package result

import (
	"strconv"
	"sync"
	"time"
)

// statusMessages holds "status 404" and the like, made once.
var statusMessages = func() (m [1000]string) {
	for i := range m {
		m[i] = "status " + strconv.Itoa(i)
	}
	return m
}()

// Event is one finished request as the engine saw it. Durations are measured by the engine; the
// rest comes from the transport's outcome.
type Event struct {
	Endpoint int
	Latency  time.Duration // done − intended: what the user of the service felt
	Service  time.Duration // done − sent: what the service took; unused when Unsent
	TTFB     time.Duration // first byte − sent; 0 when unknown
	Status   int           // status code of the answer; 0 when there was none
	Class    Class         // OK, or why it failed
	Err      error         // the failure's detail; nil for OK
	Answered bool          // an answer arrived (Completed), whatever its status
	BytesIn  int64
	BytesOut int64
	// MsgsIn and MsgsOut count the messages of a streaming call; 0 for other requests.
	MsgsIn, MsgsOut int64
	// MsgLatencies are the latencies of the answers of a bidi call whose messages went on a
	// schedule (Counts.MsgLatency). Record reads them and keeps none.
	MsgLatencies []time.Duration
	// MsgGaps are the times between consecutive answers of a streaming call (Counts.MsgGap).
	MsgGaps []time.Duration
	// Retried counts the attempts sent again after a reused connection was closed or reset before
	// answering; the rest of the Event describes the last attempt.
	Retried int
	// RetriedGoAway counts the attempts sent again because the server's GOAWAY said it had not
	// processed them (HTTP/2); the rest of the Event describes the last attempt.
	RetriedGoAway int
	// Lag is actual send − intended send; recorded only when Scheduled (open model).
	Lag       time.Duration
	Scheduled bool
	// Conn is the connection opened for this request, if one was; nil otherwise.
	Conn *ConnEvent
	// Packets are the QUIC packets the request's connection added since it last reported them
	// (Outcome.Packets); zero for other protocols.
	Packets QUICPackets
	// Unsent marks a request that failed before any byte of it was written (a connection refused,
	// a name not resolved): it counts as failed, but not as sent, and has no service time.
	Unsent bool
	// Calls are the calls of a JSON-RPC batch, each as judged (Counts.Calls); nil for a request
	// that is not a batch. Record reads them and keeps none.
	Calls []Call
	// Checks are the outcomes of the user's checks on the answer (Counts.Checks); nil when none
	// judged it. Record reads them and keeps none.
	Checks []CheckResult
	// Metrics are the values of the answer metrics the answer held (Counts.Metrics); nil when the
	// run reads none. Record reads them and keeps none.
	Metrics []MetricValue
}

// Exact is a failure message that is already short and stable, such as a check's name or
// "jsonrpc -32601 Method not found": the Recorder counts it as it is, without Normalize, which would
// blank the numbers out. Make the values once (converting a string to an error allocates).
type Exact string

// Error implements error.
func (e Exact) Error() string { return string(e) }

// ConnEvent is one connection attempt, reported by a transport when it opened (or failed to open) a
// connection for a request.
type ConnEvent struct {
	DNS     time.Duration // 0 when no name was resolved
	Connect time.Duration
	TLS     time.Duration // 0 without TLS
	Failed  bool
	// Proto is the protocol the connection spoke, as ALPN names it ("h2", "http/1.1"; "h2c" for
	// HTTP/2 over cleartext; "h3" for HTTP/3), when the transport tells; "" otherwise.
	Proto string
	// QUIC describes a QUIC connection that opened (its handshake, in TLS above, included the
	// QUIC handshake: there is no Connect); nil for the others.
	QUIC *QUICConn
}

// Recorder collects Events from many goroutines into per-shard intervals and hands out their merged
// sum on Flush. Each sender records into its own shard (shard = worker mod shards), so the only lock
// a sender takes is its shard's, which Flush contends once per interval. Safe for concurrent use.
//
// Each shard keeps two intervals (one recorded into, one being merged). Their histograms are dense,
// the fastest to record into, while endpoints × shards ≤ DenseShardHistograms; beyond that they
// are sparse, so that memory grows with the values recorded in an interval, not with the number of
// endpoints times shards times 190 KB (a sparse histogram records in about 100 ns rather than 10,
// and allocates only when it holds more buckets than it ever did: Reset keeps its memory).
// The send lag, one histogram per shard, is always dense. The merged interval Flush returns is
// sparse.
type Recorder struct {
	shards []recShard
	out    *Interval
}

type recShard struct {
	mu  sync.Mutex
	cur *Interval
	old *Interval
	_   [40]byte // keep shards on separate cache lines
}

// DenseShardHistograms is the most endpoints × shards for which a Recorder's shards keep dense
// histograms: 8 makes at most 2 × 8 × 3 dense histograms, about 9 MB.
const DenseShardHistograms = 8

// NewRecorder returns a Recorder for the given number of endpoints and shards (at least 1 each).
func NewRecorder(endpoints, shards int) *Recorder {
	endpoints, shards = max(endpoints, 1), max(shards, 1)
	newHist := NewHistogram
	if endpoints*shards <= DenseShardHistograms {
		newHist = newDenseHistogram
	}
	r := &Recorder{shards: make([]recShard, shards), out: NewInterval(endpoints)}
	for i := range r.shards {
		r.shards[i].cur = newShardInterval(endpoints, newHist)
		r.shards[i].old = newShardInterval(endpoints, newHist)
	}
	return r
}

// newShardInterval returns an empty Interval for a shard: its endpoints' histograms made by
// newHist, its send lag dense, its connections' histograms sparse (a connection is rare).
func newShardInterval(endpoints int, newHist func() *Histogram) *Interval {
	iv := &Interval{Endpoints: make([]*Counts, endpoints), SendLag: newDenseHistogram(), Conns: NewConns()}
	for i := range iv.Endpoints {
		iv.Endpoints[i] = newCounts(newHist)
	}
	return iv
}

// Shards returns the number of shards.
func (r *Recorder) Shards() int { return len(r.shards) }

// Record adds one finished request to shard (taken modulo the number of shards).
func (r *Recorder) Record(shard int, e *Event) {
	s := &r.shards[shard%len(r.shards)]
	s.mu.Lock()
	c := s.cur.Endpoints[e.Endpoint]
	if e.Unsent {
		c.Unsent++
	} else {
		c.Sent++
	}
	if e.Answered {
		c.Completed++
		if e.Status != 0 {
			c.Status[e.Status]++
		}
	}
	if e.Class == OK {
		c.OK++
	} else {
		c.Errors[e.Class]++
		msg := ""
		x, exact := e.Err.(Exact)
		switch {
		case exact:
			msg = string(x) // already short and stable: a check's name, a JSON-RPC error code
		case e.Class == Status && e.Status > 0 && e.Status < len(statusMessages):
			msg = statusMessages[e.Status] // no allocation for a server that fails every request
		case e.Err != nil:
			msg = Normalize(e.Err.Error())
		}
		c.Messages[ErrorKey{e.Class, msg}]++
	}
	for _, k := range e.Calls {
		c.Calls[k]++
	}
	for i := range e.Checks {
		c.recordCheck(&e.Checks[i])
	}
	for i := range e.Metrics {
		c.recordMetric(&e.Metrics[i])
	}
	c.Retried += uint64(max(e.Retried, 0))
	c.RetriedGoAway += uint64(max(e.RetriedGoAway, 0))
	c.BytesIn += uint64(max(e.BytesIn, 0))
	c.BytesOut += uint64(max(e.BytesOut, 0))
	c.MsgsIn += uint64(max(e.MsgsIn, 0))
	c.MsgsOut += uint64(max(e.MsgsOut, 0))
	for _, d := range e.MsgLatencies {
		recordLazy(&c.MsgLatency, d)
	}
	for _, d := range e.MsgGaps {
		recordLazy(&c.MsgGap, max(d, 1))
	}
	RecordDuration(c.Latency, e.Latency)
	if !e.Unsent {
		RecordDuration(c.Service, e.Service)
		if e.TTFB > 0 {
			RecordDuration(c.TTFB, e.TTFB)
		}
	}
	if e.Scheduled {
		RecordDuration(s.cur.SendLag, e.Lag)
	}
	if e.Conn != nil {
		recordConn(s.cur.Conns, e.Conn)
	}
	if !e.Packets.IsZero() {
		s.cur.Conns.quic().QUICPackets.add(e.Packets)
	}
	s.mu.Unlock()
}

func recordConn(c *Conns, e *ConnEvent) {
	if e.Failed {
		c.Failed++
	} else {
		c.Opened++
		if e.Proto != "" {
			if c.Protos == nil {
				c.Protos = map[string]uint64{}
			}
			c.Protos[e.Proto]++
		}
		if e.QUIC != nil {
			c.quic().addConn(e.QUIC)
		}
	}
	if e.DNS > 0 {
		RecordDuration(c.DNS, e.DNS)
	}
	if e.Connect > 0 {
		RecordDuration(c.Connect, e.Connect)
	}
	if e.TLS > 0 {
		RecordDuration(c.TLS, e.TLS)
	}
}

// Flush closes the current interval at [start, end) and returns everything recorded since the last
// Flush, merged. The returned Interval is owned by the Recorder and is valid until the next Flush:
// copy what must outlive it (Merge into another Interval). Flush must not be called concurrently
// with itself.
func (r *Recorder) Flush(start, end time.Duration) *Interval {
	r.out.Reset()
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		s.cur, s.old = s.old, s.cur
		s.mu.Unlock()
		r.out.Merge(s.old)
		s.old.Reset()
	}
	r.out.Start, r.out.End = start, end
	return r.out
}
