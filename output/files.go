package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes a file the user named. A regular file (or a path that does not exist
// yet) is written through a temporary file in the same directory and renamed over it, so that a
// half-written file never replaces a good one. A symbolic link is followed, and its target written
// the same way; a device or a pipe (/dev/stdout, /dev/null, a FIFO) is written through in place,
// never replaced by a regular file. A write error, e.g. ENOSPC from /dev/full, is returned.
func WriteFile(path string, write func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return writeThrough(path, write) // a dangling link: create its target
		}
		path = target
		fi, err = os.Lstat(path)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
		}
	}
	if err == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	}
	if err == nil && !fi.Mode().IsRegular() {
		return writeThrough(path, write)
	}
	return writeAtomic(path, write)
}

// writeThrough writes path in place (truncating it), as a shell redirection would.
func writeThrough(path string, write func(io.Writer) error) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	bw := bufio.NewWriter(fh)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomic writes a file through a temporary file in the same directory, so that a half-written
// file never replaces a good one. Use WriteFile for paths the user names.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes the file private; a report is as readable as a file the shell would make
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
