package monitor

import (
	"strings"
	"testing"
)

func TestParseCPUStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    uint64
		wantErr string
	}{
		{"usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n", 1234, ""},
		{"user_usec 1\nusage_usec 99\n", 99, ""},                  // order does not matter
		{"usage_usec 5\nnr_periods 0\nthrottled_usec 0\n", 5, ""}, // cpu controller's extra keys
		{"user_usec 1\n", 0, "found none"},                        // no usage line
		{"usage_usec -4\n", 0, `line 1: want "usage_usec N"`},     // negative
		{"", 0, "found none"},                                     // empty file
	}
	for _, tt := range tests {
		got, err := parseCPUStat(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseCPUStat(%q): got %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseCPUStat(%q): got %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseIOStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		r, w    uint64
		wantErr string
	}{
		{"8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=12252 dbytes=0 dios=0\n", 90430464, 299008000, ""},
		{"8:0 rbytes=1 wbytes=2\n253:1 rbytes=10 wbytes=20 rios=1\n", 11, 22, ""}, // summed over devices
		{"", 0, 0, ""}, // no I/O yet
		{"rbytes=1\n", 0, 0, `line 1: want "MAJOR:MINOR`},
		{"8:0 rbytes\n", 0, 0, "want key=value"},
		{"8:0 wbytes=x\n", 0, 0, "wbytes: want an unsigned integer"},
	}
	for _, tt := range tests {
		r, w, err := parseIOStat(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseIOStat(%q): got %v; want error containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || r != tt.r || w != tt.w {
			t.Errorf("parseIOStat(%q): got %d, %d, %v; want %d, %d", tt.in, r, w, err, tt.r, tt.w)
		}
	}
}

func TestParseSingleValueAndProcs(t *testing.T) {
	t.Parallel()
	if got, err := parseSingleValue("73400320\n"); err != nil || got != 73400320 {
		t.Errorf("got %d, %v; want 73400320", got, err)
	}
	if _, err := parseSingleValue("max\n"); err == nil || !strings.Contains(err.Error(), `got "max"`) {
		t.Errorf("got %v; want an error quoting max", err)
	}
	if got, err := parseCgroupProcs("12\n345\n\n"); err != nil || len(got) != 2 || got[0] != 12 || got[1] != 345 {
		t.Errorf("got %v, %v; want [12 345]", got, err)
	}
	if _, err := parseCgroupProcs("12\nx\n"); err == nil || !strings.Contains(err.Error(), `line 2: want a PID, got "x"`) {
		t.Errorf("got %v; want line 2 named", err)
	}
}

func FuzzParseCPUStat(f *testing.F) {
	f.Add("usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n")
	f.Add("usage_usec 18446744073709551615\n")
	f.Add("usage_usec\n")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseCPUStat(s)
		if err != nil && n != 0 {
			t.Errorf("got %d with error %v; want 0", n, err)
		}
	})
}

func FuzzParseIOStat(f *testing.F) {
	f.Add("8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=12252 dbytes=0 dios=0\n")
	f.Add("8:0 rbytes=1 wbytes=2\n253:1 rbytes=10 wbytes=20\n")
	f.Add("8:0 rbytes==\n")
	f.Fuzz(func(t *testing.T, s string) {
		r, w, err := parseIOStat(s)
		if err != nil && (r != 0 || w != 0) {
			t.Errorf("got %d, %d with error %v; want zeros", r, w, err)
		}
	})
}

func FuzzParseCgroupProcs(f *testing.F) {
	f.Add("12\n345\n")
	f.Add("0\n")
	f.Add("-1\n")
	f.Fuzz(func(t *testing.T, s string) {
		pids, err := parseCgroupProcs(s)
		for _, p := range pids {
			if err == nil && p <= 0 {
				t.Errorf("got PID %d from %q; want only positive PIDs", p, s)
			}
		}
		if _, err := parseSingleValue(s); err == nil && strings.TrimSpace(s) == "" {
			t.Errorf("parseSingleValue(%q): got no error for an empty file", s)
		}
	})
}
