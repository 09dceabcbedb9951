package plan

import (
	"slices"
	"testing"
)

// SetFlag replaces the number after the flag and nothing else: the shell's characters that end
// the value's word (";", ")", "&&", "|", "'") stay where they were.
func TestSetFlagKeepsTheShellsCharacters(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"(rpcbench serve jsonrpc --addr 127.0.0.1:1 --blocks 1024)": "(rpcbench serve jsonrpc --addr 127.0.0.1:1 --blocks 7)",
		"./daemon --blocks 1024; echo x":                            "./daemon --blocks 7; echo x",
		"./daemon --blocks=1024&& true":                             "./daemon --blocks=7&& true",
		"./daemon --blocks   1024|cat":                              "./daemon --blocks   7|cat",
		"sh -c './daemon --blocks 1024'":                            "sh -c './daemon --blocks 7'",
		"./daemon --blocks 1024":                                    "./daemon --blocks 7",
	} {
		got, ok := SetFlag([]string{cmd}, true, "--blocks", "7")
		if !ok || !slices.Equal(got, []string{want}) {
			t.Errorf("%s: %q %v; want %q", cmd, got, ok, want)
		}
	}
	// Values that are not a plain whole number are not replaced (the plan file refuses them).
	for _, cmd := range [][]string{
		{"./daemon --blocks 1.5"}, {"./daemon --blocks=10k"}, {"./daemon --blocks $N"}, {"./daemon --blocks x;"},
	} {
		if got, ok := SetFlag(cmd, true, "--blocks", "7"); ok || !slices.Equal(got, cmd) {
			t.Errorf("%q: %q %v; want it refused", cmd, got, ok)
		}
	}
	for _, c := range []struct{ cmd, want []string }{
		{[]string{"d", "--blocks", "1024", ";"}, []string{"d", "--blocks", "7", ";"}},
		{[]string{"d", "--blocks=1024"}, []string{"d", "--blocks=7"}},
		{[]string{"d", "--blocks", "1024)"}, nil},
		{[]string{"d", "--blocks=x"}, nil},
	} {
		got, ok := SetFlag(c.cmd, false, "--blocks", "7")
		if ok != (c.want != nil) || c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%q: %q %v; want %q", c.cmd, got, ok, c.want)
		}
	}
}
