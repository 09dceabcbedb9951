package plan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Stdin is the name under which a plan reads standard input: a target file "-".
const Stdin = "-"

// OSFiles returns the file system through which Prepare reads the files a plan names from the
// operating system: names as a user types them, relative to the working directory or absolute;
// the name "-" reads stdin (nil: standard input is refused). Unlike os.DirFS, it takes absolute
// and ../ names, since they come from the user's own command line or plan file.
func OSFiles(stdin io.Reader) fs.FS { return osFiles{stdin: stdin} }

type osFiles struct{ stdin io.Reader }

func (o osFiles) Open(name string) (fs.File, error) {
	if name == Stdin {
		if o.stdin == nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("standard input is not given")}
		}
		return stdinFile{o.stdin}, nil
	}
	return os.Open(name)
}

// stdinFile is standard input as an fs.File.
type stdinFile struct{ r io.Reader }

func (s stdinFile) Read(b []byte) (int, error) { return s.r.Read(b) }
func (stdinFile) Close() error                 { return nil }
func (stdinFile) Stat() (fs.FileInfo, error)   { return stdinInfo{}, nil }

type stdinInfo struct{}

func (stdinInfo) Name() string       { return "stdin" }
func (stdinInfo) Size() int64        { return 0 }
func (stdinInfo) Mode() fs.FileMode  { return fs.ModeNamedPipe }
func (stdinInfo) ModTime() time.Time { return time.Time{} }
func (stdinInfo) IsDir() bool        { return false }
func (stdinInfo) Sys() any           { return nil }

// readBody reads a request body from name in fsys, refusing one larger than MaxBodyBytes (or a
// source without end, such as a device) instead of reading it into memory whole.
func readBody(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBodyBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB: want a smaller request body", name, MaxBodyBytes>>20)
	}
	return b, nil
}

// joinDir returns name relative to dir, unless name is absolute.
func joinDir(dir, name string) string {
	if filepath.IsAbs(name) || dir == "" || dir == "." {
		return name
	}
	return filepath.Join(dir, name)
}
