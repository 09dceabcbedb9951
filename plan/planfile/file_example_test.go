package planfile_test

import (
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/plan/planfile"
)

// ExampleReadFile reads a plan file and shows the plan of step 2 of a scenario against a target.
func ExampleReadFile() {
	const text = `targets:
  a: {url: "http://127.0.0.1:8080/"}
  b: {url: "http://127.0.0.1:8081/"}
scenarios:
  read:
    path: /v0/entity?id=1
    steps: [50, 100]
    step: 5m
    ramp: 1m
`
	b, err := planfile.ReadFile("bench.yaml", strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := b.Scenarios[0]
	p := s.PlanFor(b.Targets[1], 1, b.Dir)
	fmt.Println(p.Endpoints[0].URL)
	fmt.Println(s.Describe(1, false))

	_, err = planfile.ReadFile("bench.yaml", strings.NewReader(strings.Replace(text, "ramp:", "rmap:", 1)))
	fmt.Println(err)
	// Output:
	// http://127.0.0.1:8081/v0/entity?id=1
	// closed model, 100 connections, 1m0s warm-up, 5m0s measured
	// bench.yaml:9:5: scenarios.read.rmap: unknown key "rmap"; want one of: endpoints, path, method, body, targets_file, targets_format, order, data, data_order, rewrite_host, setup, setup_count, weights, header, jsonrpc, checks, protocol, subscribe, model, rate, duration, requests, connections, stages, steps, step, ramp, ramp_from, warmup, grace, interval, send_slack, timeout, connect_timeout, insecure, no_reuse, streams, sender, tls, slo, require_valid, capacity, replay, alone, stats, sweep, diff
}
