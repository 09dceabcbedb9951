package replay

import (
	"errors"

	"github.com/rpcbench/rpcbench/result"
)

// recorded is what a replayed request carries of its recording, in its Request's SourceState.
type recorded struct{ status int }

// Judge is the judge of an answer that a run uses beside the recording (engine.Verifier).
type Judge interface {
	Verify(r *result.Request, out *result.Outcome) (result.Class, error)
}

// DetailJudge is a Judge that also says what happened to each call of a JSON-RPC batch and to each
// check (engine.DetailVerifier).
type DetailJudge interface {
	Judge
	VerifyDetail(r *result.Request, out *result.Outcome, judge bool, d *result.Detail) (result.Class, error)
}

// ErrStatusDiffers is the failure of an answer whose status is not the one recorded for its
// request: of class Check, counted under this message.
var ErrStatusDiffers = errors.New("status differs from the recording")

// RecordedStatus judges each answer of a replay by the status recorded for its request: the same
// status is a success (a recorded 404 answered 404 too), another a failure ErrStatusDiffers. A
// request recorded without a status (JSON-RPC logs, vegeta targets) and an answer that did not
// come are judged by Inner (nil: 2xx and 3xx are a success). It implements engine.DetailVerifier.
type RecordedStatus struct {
	Inner Judge
}

// Verify implements engine.Verifier.
func (v RecordedStatus) Verify(r *result.Request, out *result.Outcome) (result.Class, error) {
	if c, ok := v.compare(r, out); ok {
		return c, statusErr(c)
	}
	if v.Inner != nil {
		return v.Inner.Verify(r, out)
	}
	if out.Status >= 200 && out.Status < 400 {
		return result.OK, nil
	}
	return result.Status, nil
}

// VerifyDetail implements engine.DetailVerifier.
func (v RecordedStatus) VerifyDetail(r *result.Request, out *result.Outcome, judge bool, d *result.Detail) (result.Class, error) {
	c, err := result.OK, error(nil)
	if dj, ok := v.Inner.(DetailJudge); ok {
		c, err = dj.VerifyDetail(r, out, judge, d)
	} else if judge {
		c, err = v.Verify(r, out)
	}
	if !judge {
		return c, err
	}
	if rc, ok := v.compare(r, out); ok {
		return rc, statusErr(rc)
	}
	return c, err
}

// compare judges an answer by its recorded status, when its request has one.
func (v RecordedStatus) compare(r *result.Request, out *result.Outcome) (result.Class, bool) {
	rec, ok := r.SourceState.(*recorded)
	if !ok || rec.status == 0 || !out.Answered {
		return result.OK, false
	}
	if out.Status == rec.status {
		return result.OK, true
	}
	return result.Check, true
}

func statusErr(c result.Class) error {
	if c == result.OK {
		return nil
	}
	return ErrStatusDiffers
}
