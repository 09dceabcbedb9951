package frame

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// A framed file comes back byte for byte from a log that holds other lines around it; its lines
// are never longer than LineWidth.
func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 300_000) // random bytes: gzip cannot shrink them, many lines
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	for _, data := range [][]byte{nil, []byte("{\"format\":\"rpcbench\"}\n"), big} {
		var log bytes.Buffer
		log.WriteString("Latency p99 12ms\n")
		if err := Write(&log, "seg-3.rb", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		log.WriteString("rpcbench run: done\n")
		for i, l := range strings.Split(log.String(), "\n") {
			if !strings.HasPrefix(l, "====") && len(l) > LineWidth {
				t.Fatalf("line %d is %d characters; want at most %d", i+1, len(l), LineWidth)
			}
		}
		frames, err := Read(&log)
		if err != nil {
			t.Fatal(err)
		}
		if len(frames) != 1 || frames[0].Name != "seg-3.rb" || !bytes.Equal(frames[0].Data, data) {
			t.Fatalf("got %d frames (%+v); want seg-3.rb with the %d bytes written", len(frames), frames, len(data))
		}
	}
}

func TestReadDamaged(t *testing.T) {
	t.Parallel()
	var good bytes.Buffer
	if err := Write(&good, "a.rb", strings.NewReader(strings.Repeat("interval\n", 50))); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(good.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines; want begin, one line of body, end:\n%s", len(lines), good.String())
	}
	flip := []byte(lines[1])
	flip[30] ^= 1 // one bit of the compressed body
	for _, tt := range []struct{ name, log, want string }{
		{"no end line", lines[0] + "\n" + lines[1] + "\n", "cut short: no end line"},
		{"a second begin", lines[0] + "\n" + lines[1] + "\n" + good.String(), "another begins at line 3"},
		{"a flipped bit", lines[0] + "\n" + string(flip) + "\n" + lines[2] + "\n", "a.rb of line 1"},
		{"a wrong length", lines[0] + "\n" + lines[1] + "\n" + strings.Replace(lines[2], "450 bytes", "451 bytes", 1) + "\n", "450 bytes; the end line says 451"},
		{"a wrong sum", lines[0] + "\n" + lines[1] + "\n" + strings.Replace(lines[2], "sha256 ", "sha256 0", 1) + "\n", "damaged"},
		{"an unknown encoding", strings.Replace(lines[0], "gzip+base64", "zstd", 1) + "\n", "unknown form"},
	} {
		if _, err := Read(strings.NewReader(tt.log)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Read = %v; want an error with %q", tt.name, err, tt.want)
		}
	}
	if err := Write(&good, "a b", strings.NewReader("")); err == nil {
		t.Errorf("a name with a space: no error")
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, "x.rb", strings.NewReader("hello\n")) //nolint:errcheck
	f.Add(b.String())
	f.Add("==== rpcbench file begin: x gzip+base64 ====\n====\n")
	f.Fuzz(func(t *testing.T, log string) {
		frames, _ := Read(strings.NewReader(log))
		for _, fr := range frames {
			var again bytes.Buffer
			if err := Write(&again, fr.Name, bytes.NewReader(fr.Data)); err != nil {
				t.Fatal(err)
			}
			back, err := Read(&again)
			if err != nil || len(back) != 1 || !bytes.Equal(back[0].Data, fr.Data) {
				t.Fatalf("a frame read back does not survive a round trip: %v", err)
			}
		}
	})
}
