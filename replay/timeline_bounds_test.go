package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A speed or a rate so low that the replay would outlast a time.Duration is refused, naming it:
// its due times would wrap around (a run that sent part of the recording and exited 0).
func TestScanRefusesAReplayTooLong(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "a.log")
	line := `127.0.0.1 - - [01/Mar/2024:10:00:0%d +0000] "GET /a HTTP/1.1" 200 5 "-" "-"` + "\n"
	var b strings.Builder
	for i := range 3 {
		b.WriteString(strings.Replace(line, "%d", string(rune('0'+i)), 1))
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Files: []string{log}, Base: "http://127.0.0.1:1", Speed: 1e-300}, "speed 1e-300"},
		{Options{Files: []string{log}, Base: "http://127.0.0.1:1", Rate: 1e-300}, "rate 1e-300/s"},
	} {
		if _, err := Scan(c.o); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "years") {
			t.Errorf("%+v: got %v; want a refusal naming %q and how long it would take", c.o, err, c.want)
		}
	}
	if _, err := Scan(Options{Files: []string{log}, Base: "http://127.0.0.1:1", Speed: 1e-6}); err != nil {
		t.Errorf("speed 1e-6 (a 35-day replay): %v; want it accepted", err)
	}
}
