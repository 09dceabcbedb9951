package summary

import "github.com/rpcbench/rpcbench/result"

// Subscriptions are the figures of a run's JSON-RPC subscriptions (run --subscribe; package
// subscribe), message by message.
type Subscriptions struct {
	Request string              `json:"request"` // method and params, e.g. eth_subscribe ["newHeads"]
	Asked   int                 `json:"asked"`   // subscriptions the schedule opened
	Opened  int                 `json:"opened"`  // answered with a subscription id
	Failed  int                 `json:"failed"`
	Errors  []SubscriptionError `json:"errors,omitempty"`
	// TimeToID runs from the subscribe call's send to its answer; TimeToFirst to the first
	// notification. Nil when none.
	TimeToID    *Percentiles `json:"time_to_id_ms,omitempty"`
	TimeToFirst *Percentiles `json:"time_to_first_ms,omitempty"`
	Messages    uint64       `json:"messages"`
	// Mean, min and max notifications of one opened subscription.
	MeanPerSubscription float64 `json:"mean_per_subscription"`
	MinPerSubscription  uint64  `json:"min_per_subscription"`
	MaxPerSubscription  uint64  `json:"max_per_subscription"`
	// Gaps are notifications missing, read from GapsBy: "sequence" (the rpcbenchSeq member),
	// "block number" (newHeads), or "" when nothing told.
	Gaps   uint64 `json:"gaps"`
	GapsBy string `json:"gaps_by,omitempty"`
	// GappedSubscriptions counts the opened subscriptions that missed one notification or more
	// (the drops, subscription by subscription); 0 in files written before it was counted.
	GappedSubscriptions int `json:"gapped_subscriptions,omitempty"`
	// Delivery is the latency of each notification from the event's time (rpcbenchStampNs), for
	// the Stamped ones; nil when none was stamped.
	Stamped  uint64       `json:"stamped"`
	Delivery *Percentiles `json:"delivery_latency_ms,omitempty"`
	// Spread is, per event received by two subscriptions or more (SpreadEvents of them), the
	// time from its first to its last receipt.
	SpreadEvents    uint64       `json:"spread_events"`
	Spread          *Percentiles `json:"fanout_spread_ms,omitempty"`
	UnsubscribeSent int          `json:"unsubscribes_sent"`
	Unsubscribed    int          `json:"unsubscribes_answered"` // answered true
	// Reference is the lag of the heads behind a reference connection's (run --subscribe-reference);
	// nil without one.
	Reference *ReferenceLag `json:"reference,omitempty"`
	// Parts are the run in stretches (the stages of the call load beside the subscriptions), by
	// the time notifications were received; none when the run was not cut.
	Parts []SubscriptionPart `json:"parts,omitempty"`
}

// SubscriptionPart is the notifications received in one stretch of the run, the gaps they
// revealed and their delivery latencies (nil when none was stamped).
type SubscriptionPart struct {
	Label string `json:"label"` // what ran then, e.g. "stage 2: 0 → 1000/s"
	// Stage is the index (from 1, as --stages lists them) of the calls' stage the part is, whose
	// figures are the Summary's Stages of that Index; 0 for the warm-up.
	Stage    int     `json:"stage,omitempty"`
	FromS    float64 `json:"from_s"`
	ToS      float64 `json:"to_s"`
	Messages uint64  `json:"messages"`
	// Gaps are the notifications missing before those received in the part; nil in files written
	// before parts counted them.
	Gaps     *uint64      `json:"gaps,omitempty"`
	Delivery *Percentiles `json:"delivery_latency_ms,omitempty"`
}

// SubscriptionError is one distinct failure of subscriptions and how many had it.
type SubscriptionError struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// PercentilesOf is the figures of h (values in microseconds) in milliseconds; nil when h is empty.
func PercentilesOf(h *result.Histogram) *Percentiles { return optPercentiles(h) }

// SubscriptionCounts are a run's subscriptions so far, as the live outputs show them while it
// goes: subscriptions opened and failed, notifications received, and gaps seen (notifications
// missing before one received).
type SubscriptionCounts struct {
	Opened        int64  `json:"opened"`
	Failed        int64  `json:"failed"`
	Notifications uint64 `json:"notifications"`
	Gaps          uint64 `json:"gaps"`
}

// ReferenceLag is how far the subscriptions' heads (newHeads) came behind the same heads on a
// reference connection: for each head a subscriber received, the time from the reference's
// receipt to the subscriber's (0 when the subscriber had it first).
type ReferenceLag struct {
	URL   string `json:"url"`             // the reference connection's
	Heads uint64 `json:"reference_heads"` // heads the reference received
	Error string `json:"error,omitempty"` // why the reference connection ended early
	Timed uint64 `json:"timed"`           // subscribers' heads timed
	Ahead uint64 `json:"ahead"`           // of which received before the reference had them
	// Unmatched counts subscribers' heads the reference never received (within a minute): not
	// timed, in no figure.
	Unmatched uint64 `json:"unmatched,omitempty"`
	// Lag is over every head timed; nil when none was.
	Lag *Percentiles `json:"lag_ms,omitempty"`
	// Slowest is the subscriber whose heads came furthest behind on average.
	Slowest *SubscriberLag `json:"slowest,omitempty"`
}

// SubscriberLag is one subscriber's lag behind the reference: its heads timed, and their mean and
// largest lag.
type SubscriberLag struct {
	Heads  uint64  `json:"heads"`
	MeanMs float64 `json:"mean_ms"`
	MaxMs  float64 `json:"max_ms"`
}
