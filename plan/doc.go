// Package plan says what to send: the endpoints (method, URL, headers, body), the load (open model
// at a rate, or closed model with a number of connections, in stages, for a duration or a number of
// requests) and how requests travel (time limits, TLS). A Plan is a plain, serialisable struct: its
// zero value plus a URL is a valid plan, Validate reports every problem at once, and the report
// repeats the plan back so that a saved report explains itself.
//
// A plan file (package planfile, YAML) holds several: named targets, and named scenarios that each become
// a Plan per target and step (Scenario.PlanFor); package bench runs them.
//
// It is the first step of the flow plan → schedule → engine → transport → result → summary →
// report.
package plan
