// Package engine runs a plan: it joins the schedule (when to send) and the transport (how), stamps
// three instants per request — intended, sent, done — and records what happened into a
// result.Recorder, handing observers one merged interval per tick.
//
// Latency is done − intended, what a user of the service feels even when the sender fell behind;
// service time is done − sent. When the sender cannot keep the schedule (too few connections, not
// enough CPU) the arrivals go out late and the send lag shows it; arrivals still unsent when the run
// ends are counted as intended but not sent — never a silently lower rate.
//
// The real clock lives here and in monitor only. Run stops when the load is done or ctx is
// cancelled; an interrupted run waits Load.Grace for requests in flight, then cuts them, and still
// returns everything measured.
//
// It sits in the middle of the flow plan → schedule → engine → transport → result → summary →
// report.
package engine
