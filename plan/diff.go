package plan

// ScenarioDiff makes a scenario a diff (diff: in a plan file): each of its requests goes to every
// target it compares at once and their answers are compared, as `rpcbench diff` compares URLs,
// instead of a load against each target in turn. The scenario's requests and load (rate, stages,
// duration, connections, warm-up) are the diff's; its paths are relative to each target's URL.
// `rpcbench diff --plan FILE --scenario NAME` runs it. The rules are kept as the diff command's
// flags write them, checked when the file is read.
type ScenarioDiff struct {
	// Targets name the targets compared, the first the primary that the others are compared
	// with; empty: every target of the file but the reference, in the file's order.
	Targets []string `json:"targets,omitempty"`
	// Reference names a second instance of the primary: the paths where the two answer
	// differently are noise (--reference).
	Reference string `json:"reference,omitempty"`
	// NoiseThreshold is the share of a method's requests in which the two instances must differ
	// at a path for it to be noise; 0: any one (--noise-threshold).
	NoiseThreshold float64 `json:"noise_threshold,omitempty"`
	// Ignore and Unordered are JSON paths not compared, and arrays compared in any order
	// (--ignore, --unordered).
	Ignore    []string `json:"ignore,omitempty"`
	Unordered []string `json:"unordered,omitempty"`
	// Tolerance are the numbers' bounds, "PATH=N" or "PATH=N%" (--tolerance).
	Tolerance []string `json:"tolerance,omitempty"`
	// Rules compare a method's JSON-RPC errors by code or by presence only, "METHOD=RULE" each
	// (--rule).
	Rules []string `json:"rules,omitempty"`
	// NullMissing, StrictNumbers and KeepMessages are --null-missing, --strict-numbers and
	// --keep-messages.
	NullMissing   bool `json:"null_missing,omitempty"`
	StrictNumbers bool `json:"strict_numbers,omitempty"`
	KeepMessages  bool `json:"keep_messages,omitempty"`
	// PinBlock and SkipAboveHead are --pin-block and --skip-above-head.
	PinBlock      bool `json:"pin_block,omitempty"`
	SkipAboveHead bool `json:"skip_above_head,omitempty"`
	// StopAtFirst ends the diff at the first request whose answers differ (--stop-at-first).
	StopAtFirst bool `json:"stop_at_first,omitempty"`
}

// IsDiff reports whether s is a diff scenario.
func (s Scenario) IsDiff() bool { return s.Diff != nil }
