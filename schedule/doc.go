// Package schedule says when to send: pure arithmetic over time, with no clock.
//
// A Schedule answers At(i): the offset from the start of the run at which arrival i is due. The
// engine sleeps until that instant and stamps it as the request's intended start, so that latency is
// measured from when the request should have been sent, not from when a busy sender got round to
// it (coordinated omission). Because due times are absolute offsets, a late sender never shifts the
// arrivals after it: the schedule cannot drift.
//
// A Profile is a level that changes linearly between stage targets: the arrival rate of the open
// model, or the number of connections of the closed model.
//
// A Stripe is the share of a run one generator sends when the run is split in execution
// segments (ParseSegment): arrival i of the whole schedule belongs to exactly one segment, and a
// Striped schedule gives a segment its arrivals at their due times in the whole.
//
// It sits after plan in the flow plan → schedule → engine → transport → result → summary → report,
// and imports nothing from the project.
package schedule
