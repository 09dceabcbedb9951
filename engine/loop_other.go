//go:build !linux

package engine

import "github.com/rpcbench/rpcbench/plan"

// newLoopSender returns nil: the event loop of HTTP/1.1 is Linux's.
func newLoopSender(plan.Plan, []string, bool) sender { return nil }
