package plan

import "sync/atomic"

// onCheck, when set, is told of every Validate ("validate") and Normalized ("normalize") of a Plan.
// Only the package's tests set it (export_test.go), to count the checks of one run: a plan is
// validated and normalised once, by Prepare. Nil in production: one atomic load per check.
var onCheck atomic.Pointer[func(what string)]

func checked(what string) {
	if f := onCheck.Load(); f != nil {
		(*f)(what)
	}
}
