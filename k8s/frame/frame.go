package frame

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A framed file is a file written into a log (a pod's standard output) between two marker lines,
// gzip-compressed and base64-encoded in lines of LineWidth characters, so that it survives
// whatever else the log holds and a log collector that splits long lines:
//
//	==== rpcbench file begin: seg.rb gzip+base64 ====
//	H4sIAAAAAAAA/+x9a3Mbx5HgZ0kXf4…
//	==== rpcbench file end: 48213 bytes, sha256 5e8c… ====
//
// The end line gives the length and SHA-256 of the file as it was, to tell a damaged frame.
const (
	frameBegin    = "==== rpcbench file begin: "
	frameEnd      = "==== rpcbench file end: "
	frameTail     = " ===="
	frameEncoding = "gzip+base64"
	LineWidth     = 76
)

// Write writes the content of r to w as a framed file named name (a name without spaces or
// line breaks, e.g. seg-3.rb). It streams: r is read once, in pieces.
func Write(w io.Writer, name string, r io.Reader) error {
	if name == "" || strings.ContainsAny(name, " \t\r\n") {
		return fmt.Errorf("frame: name %q: want a file name without spaces", name)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s%s %s%s\n", frameBegin, name, frameEncoding, frameTail)
	lw := &lineWriter{w: bw}
	enc := base64.NewEncoder(base64.StdEncoding, lw)
	gz := gzip.NewWriter(enc)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(gz, h), r)
	if err != nil {
		return fmt.Errorf("frame: framing %s: %w", name, err)
	}
	if err := gz.Close(); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	lw.end()
	fmt.Fprintf(bw, "%s%d bytes, sha256 %s%s\n", frameEnd, n, hex.EncodeToString(h.Sum(nil)), frameTail)
	return bw.Flush()
}

// lineWriter breaks what it is given into lines of LineWidth characters.
type lineWriter struct {
	w   *bufio.Writer
	col int
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), LineWidth-l.col)
		l.w.Write(p[:k])
		p, l.col = p[k:], l.col+k
		if l.col == LineWidth {
			l.w.WriteByte('\n')
			l.col = 0
		}
	}
	return n, nil
}

// end finishes the last, shorter line.
func (l *lineWriter) end() {
	if l.col > 0 {
		l.w.WriteByte('\n')
		l.col = 0
	}
}

// File is one framed file read back from a log.
type File struct {
	Name string
	Data []byte
}

// MaxSize bounds a framed file read back (after decompression).
const MaxSize = 1 << 30

// Read returns the framed files of a log in order, ignoring every other line. A frame cut
// short (no end line), damaged (its length or SHA-256 differ from its end line's) or not
// decodable is an error naming its begin line.
func Read(r io.Reader) ([]File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // other lines of a log may be long
	var frames []File
	var body bytes.Buffer
	var name string
	begin, line := 0, 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(l, frameBegin); ok && strings.HasSuffix(rest, frameTail) {
			if begin > 0 {
				return frames, fmt.Errorf("frame: the framed file %s of line %d is cut short: another begins at line %d", name, begin, line)
			}
			f := strings.Fields(strings.TrimSuffix(rest, frameTail))
			if len(f) != 2 || f[1] != frameEncoding {
				return frames, fmt.Errorf("frame: line %d: a framed file of an unknown form %q: want NAME %s", line, rest, frameEncoding)
			}
			name, begin = f[0], line
			body.Reset()
			continue
		}
		if begin == 0 {
			continue
		}
		if rest, ok := strings.CutPrefix(l, frameEnd); ok && strings.HasSuffix(rest, frameTail) {
			data, err := decodeFrame(body.Bytes(), strings.TrimSuffix(rest, frameTail))
			if err != nil {
				return frames, fmt.Errorf("frame: the framed file %s of line %d: %w", name, begin, err)
			}
			frames = append(frames, File{Name: name, Data: data})
			begin = 0
			continue
		}
		body.WriteString(l)
	}
	if err := sc.Err(); err != nil {
		return frames, fmt.Errorf("frame: reading a log: %w", err)
	}
	if begin > 0 {
		return frames, fmt.Errorf("frame: the framed file %s of line %d is cut short: no end line", name, begin)
	}
	return frames, nil
}

// decodeFrame decodes a frame's body and checks it against its end line: "N bytes, sha256 HEX".
func decodeFrame(body []byte, end string) ([]byte, error) {
	var n int64
	var sum string
	f := strings.Fields(end)
	if len(f) != 4 || f[1] != "bytes," || f[2] != "sha256" {
		return nil, fmt.Errorf("an end line of an unknown form %q", end)
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 || n > MaxSize {
		return nil, fmt.Errorf("a length %q: want 0 to %d bytes", f[0], MaxSize)
	}
	sum = f[3]
	raw, err := base64.StdEncoding.DecodeString(string(body))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(gz, n+1))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	if int64(len(data)) != n {
		return nil, fmt.Errorf("%d bytes; the end line says %d", len(data), n)
	}
	h := sha256.Sum256(data)
	if hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("its SHA-256 differs from the end line's: damaged")
	}
	return data, nil
}
