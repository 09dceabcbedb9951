package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// fullDevice returns a device that fails every write with ENOSPC: a fresh one in dir when the test
// may make devices (so that a regression replaces a copy, never the system's), else /dev/full.
func fullDevice(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		path := filepath.Join(dir, "full")
		if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
			return path
		}
		t.Skip("cannot make a device here, and would not risk /dev/full as root")
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/full here")
	}
	return "/dev/full"
}

// A report written to /dev/full fails with the device's error and a non-zero exit, and the device
// stays a device: it is written through, never replaced by a regular file.
func TestOutputToDeviceReportsItsError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := fullDevice(t, dir)
	rb := filepath.Join(dir, "run.rb")
	labRun(t, lab.Config{}, "--out", rb)
	srv := startLab(t, lab.Config{})
	tests := []struct {
		name string
		args []string
	}{
		{"run --report-file", []string{"run", "--rate", "50", "--duration", "200ms", "--quiet", "--report-file", full, srv.URL()}},
		{"run --html", []string{"run", "--rate", "50", "--duration", "200ms", "--quiet", "--html", full, srv.URL()}},
		{"report -o", []string{"report", "-o", full, rb}},
		{"report --format html -o", []string{"report", "--format", "html", "-o", full, rb}},
	}
	for _, tt := range tests {
		code, _, stderr := cliRun(t, tt.args...)
		if code != ExitCannotStart || !strings.Contains(stderr, "no space left on device") {
			t.Errorf("%s %s: got exit %d, stderr %q; want %d and the device's error", tt.name, full, code, stderr, ExitCannotStart)
		}
		if fi, err := os.Lstat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s: got %s %v (%v); want it still a character device", tt.name, full, fi.Mode(), err)
		}
	}
}
