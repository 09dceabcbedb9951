// Package planfile reads plan files: YAML that names targets and scenarios (the schema is in
// docs/plan-files.md) into a plan.Bench — scenarios × targets, each run a plan.Plan — with every
// mistake placed at its line, column and key (plan.FileError). It reads and checks the shape of
// the description only; the runs are prepared (and their load validated) by bench.Check, whose
// problems ScenarioError places at their scenario's key.
package planfile
