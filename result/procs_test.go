package result

import (
	"bytes"
	"testing"
)

// The generator's CPU count travels in the trailer, and a merged run keeps the smallest: one
// segment on one CPU is enough to put the merged figures in doubt.
func TestTrailerProcs(t *testing.T) {
	t.Parallel()
	write := func(procs int) *File {
		t.Helper()
		var b bytes.Buffer
		w, err := NewWriter(&b, Header{Endpoints: []string{"a"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteInterval(NewInterval(1)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(Trailer{Intended: 1, Procs: procs}); err != nil {
			t.Fatal(err)
		}
		f, err := Read(&b, "run.rb", nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if got := write(3).Run().Procs; got != 3 {
		t.Errorf("procs read back %d; want 3", got)
	}
	m, err := Merge(write(4), write(1), write(0), write(2))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Run().Procs; got != 1 {
		t.Errorf("merged procs %d; want 1 (the fewest known)", got)
	}
}
