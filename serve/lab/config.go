package lab

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// MaxBodyBytes is the largest BodyBytes a Config may ask for (64 MiB).
const MaxBodyBytes = 64 << 20

// Config sets the knobs of a Server. It is a plain value; the zero value is a server on
// 127.0.0.1 (any free port) that answers every request at once with 200 and an empty body.
type Config struct {
	// Addr is the host:port to listen on; "" means 127.0.0.1:0 (a free loopback port).
	Addr string
	// H3Addr, when set, is the UDP host:port where the same service answers over HTTP/3 (QUIC),
	// with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start.
	H3Addr string

	// Latency is a fixed service time added to every request; 0 means none.
	Latency time.Duration
	// Dist is a random service time drawn for every request and added to Latency; the zero value
	// draws 0.
	Dist Dist

	// Stall is the length of each stall; 0 means no stalls. During a stall every request being
	// handled or arriving is frozen until the stall ends (see Schedule.Finish).
	Stall time.Duration
	// Every is the period of the stalls; 0 means a single stall.
	Every time.Duration
	// StallStart is the offset of the first stall from the server's start; 0 means Every (so with
	// Every also 0, the single stall begins at the start).
	StallStart time.Duration

	// Burn is the CPU each request that arrives in the burn window spends before it is answered,
	// spinning; 0 means no burn window.
	Burn time.Duration
	// BurnStart is the offset of the burn window from the server's start, BurnFor its length.
	BurnStart, BurnFor time.Duration

	// ErrorRate is the fraction of requests answered 500, in [0, 1].
	ErrorRate float64
	// ResetRate is the fraction of requests whose connection is reset (TCP RST) instead of being
	// answered, in [0, 1]; ErrorRate+ResetRate must not exceed 1.
	ResetRate float64

	// BodyBytes is the exact size of the body of every 200 answer; 0 means empty.
	BodyBytes int

	// Seed seeds the random draws (service time, error, reset). The zero value is seed 0: runs
	// are reproducible unless a seed is chosen.
	Seed uint64

	// SpinWait is how much of the end of each wait is spent polling the clock (yielding the
	// processor between polls) instead of sleeping. Sleeping alone oversleeps: on Linux a wait
	// ends typically 0.1–0.3 ms late and up to a few ms late on a busy machine, and waits under
	// 1 ms round up to about 1 ms. A SpinWait of 1ms makes most waits end within a microsecond,
	// at the cost of up to SpinWait of CPU per request. 0 means sleep only.
	SpinWait time.Duration
}

// Validate returns every problem of c, joined; nil when c is usable.
func (c Config) Validate() error {
	var errs []error
	neg := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("lab: %s %v is negative", name, d))
		}
	}
	neg("Latency", c.Latency)
	neg("Stall", c.Stall)
	neg("Every", c.Every)
	neg("StallStart", c.StallStart)
	neg("SpinWait", c.SpinWait)
	neg("Burn", c.Burn)
	neg("BurnStart", c.BurnStart)
	neg("BurnFor", c.BurnFor)
	if (c.Burn == 0) != (c.BurnFor == 0) || c.Burn == 0 && c.BurnStart != 0 {
		errs = append(errs, errors.New("lab: Burn and BurnFor go together, BurnStart with them"))
	}
	if err := c.Dist.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("lab: Dist: %w", err))
	}
	if c.Stall == 0 && (c.Every != 0 || c.StallStart != 0) {
		errs = append(errs, errors.New("lab: Every and StallStart need a Stall length above 0"))
	}
	if c.Stall > 0 && c.Every > 0 && c.Stall >= c.Every {
		errs = append(errs, fmt.Errorf("lab: Stall %v must be shorter than Every %v", c.Stall, c.Every))
	}
	rate := func(name string, r float64) {
		if math.IsNaN(r) || r < 0 || r > 1 {
			errs = append(errs, fmt.Errorf("lab: %s %v is not a fraction in [0, 1]", name, r))
		}
	}
	rate("ErrorRate", c.ErrorRate)
	rate("ResetRate", c.ResetRate)
	if c.ErrorRate+c.ResetRate > 1 {
		errs = append(errs, fmt.Errorf("lab: ErrorRate %v + ResetRate %v exceed 1", c.ErrorRate, c.ResetRate))
	}
	if c.BodyBytes < 0 || c.BodyBytes > MaxBodyBytes {
		errs = append(errs, fmt.Errorf("lab: BodyBytes %d is not in [0, %d]", c.BodyBytes, MaxBodyBytes))
	}
	return errors.Join(errs...)
}

// schedule returns the stall schedule of c for a server started at origin.
func (c Config) schedule(origin time.Time) Schedule {
	first := c.StallStart
	if first == 0 {
		first = c.Every
	}
	return Schedule{Origin: origin, First: first, Every: c.Every, Length: c.Stall}
}

// Outcome is what a request gets once its wait is over.
type Outcome uint8

// The outcomes of a request.
const (
	OK    Outcome = iota // 200 with BodyBytes of body
	Error                // 500
	Reset                // the connection is reset
)

func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Error:
		return "error"
	case Reset:
		return "reset"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Draw is what the random knobs decided for one request.
type Draw struct {
	Service time.Duration // service time: Latency plus a draw from Dist
	Outcome Outcome
}

// draw returns the decisions for the request with arrival index n. It depends only on c and n.
func (c Config) draw(n uint64) Draw {
	r := newStream(c.Seed, n)
	var d Draw
	switch u := r.float(); {
	case u < c.ResetRate:
		d.Outcome = Reset
	case u < c.ResetRate+c.ErrorRate:
		d.Outcome = Error
	}
	d.Service = c.Latency
	if c.Dist.Kind != DistNone {
		d.Service += c.Dist.Sample(r.float(), r.float())
	}
	return d
}

// stream is a splitmix64 generator, seeded per request so that draws do not depend on the order
// in which concurrent requests take them.
type stream struct{ s uint64 }

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func newStream(seed, n uint64) stream { return stream{mix64(mix64(seed) + n)} }

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// float returns a uniform number in [0, 1).
func (r *stream) float() float64 { return float64(r.next()>>11) / (1 << 53) }
