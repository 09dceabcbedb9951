package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// StateFile is the name of the file in the output directory that records a crawl's progress.
const StateFile = "gen-state.json"

// State is what a crawl has written: its range and methods, the next block to walk, and for each
// file the bytes that hold whole blocks. It is written after every block, atomically (a new file
// renamed over the old), so that it always describes files that are valid.
type State struct {
	Version int `json:"version"`
	// Kind is the crawl's kind: "ethereum" or "jsonrpc" (whose From and To number its steps).
	Kind string `json:"kind"`
	// StepsFile is the steps file of a jsonrpc crawl.
	StepsFile string `json:"steps_file,omitempty"`
	// From and To are the blocks to walk, both included; Next is the next one (To+1 when done).
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	Next uint64 `json:"next"`
	// Methods are the methods asked for, in the order given.
	Methods         []string `json:"methods"`
	StoragePages    int      `json:"storage_pages"`
	StoragePageSize int      `json:"storage_page_size"`
	// Requests counts the requests written per method; Errors those of them the node answered
	// with an error (written too: the node answers them, with that error).
	Requests map[string]int `json:"requests"`
	Errors   map[string]int `json:"errors,omitempty"`
	// Unfilled counts, per method, the calls of a jsonrpc crawl not made because a template's
	// reference selected nothing (or null).
	Unfilled map[string]int `json:"unfilled,omitempty"`
	// Skipped holds the methods the node does not have, with its answer.
	Skipped map[string]string `json:"skipped,omitempty"`
	// Sizes holds, per file name, the bytes of whole blocks written.
	Sizes map[string]int64 `json:"sizes"`
	// Sent counts the requests sent to the node, by every run of the crawl.
	Sent int `json:"sent"`
}

const stateVersion = 1

// ReadState reads the state file of dir; (nil, nil) when there is none.
func ReadState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("gen: %s: not a crawl's state: %v", filepath.Join(dir, StateFile), err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("gen: %s: version %d; want %d", filepath.Join(dir, StateFile), s.Version, stateVersion)
	}
	return &s, nil
}

// TargetsFile and CallsFile name a method's files.
func TargetsFile(method string) string { return method + ".jsonl" }

// CallsFile names the calls file of method.
func CallsFile(method string) string { return method + ".calls.jsonl" }

// corpus writes the files of a crawl. Lines of the block being walked are kept in memory and
// written at commit, whole.
type corpus struct {
	dir   string
	url   string // written into each target line
	state *State
	files map[string]*os.File
	bufs  map[string][]byte // file name → lines not yet committed
	order []string          // file names in order of first use, for deterministic commits
	// count and errs count the requests and error answers of the block being walked, per method.
	count, errs map[string]int
}

func newCorpus(dir, url string, st *State) *corpus {
	return &corpus{dir: dir, url: url, state: st, files: map[string]*os.File{}, bufs: map[string][]byte{},
		count: map[string]int{}, errs: map[string]int{}}
}

// reopen opens the files a resumed crawl wrote, cut to the bytes of whole blocks.
func (c *corpus) reopen() error {
	names := make([]string, 0, len(c.state.Sizes))
	for name := range c.state.Sizes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.ContainsAny(name, `/\`) || name == StateFile {
			return fmt.Errorf("gen: %s: file name %q: want a method's file", filepath.Join(c.dir, StateFile), name)
		}
		p := filepath.Join(c.dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("gen: resuming: %w", err)
		}
		st, err := f.Stat()
		if err == nil && st.Size() < c.state.Sizes[name] {
			err = fmt.Errorf("%s holds %d bytes; the state says %d were written: was it edited?", p, st.Size(), c.state.Sizes[name])
		}
		if err == nil {
			err = f.Truncate(c.state.Sizes[name])
		}
		if err == nil {
			_, err = f.Seek(c.state.Sizes[name], 0)
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("gen: resuming: %w", err)
		}
		c.files[name] = f
		c.order = append(c.order, name)
	}
	return nil
}

// add keeps a request of method for the block being walked, in both formats; failed says the
// node answered it with an error.
func (c *corpus) add(method string, params json.RawMessage, failed bool) {
	c.count[method]++
	if failed {
		c.errs[method]++
	}
	id := uint64(c.state.Requests[method] + c.count[method])
	body := Body(nil, id, method, params)
	t, _ := json.Marshal(struct {
		Name   string              `json:"name"`
		Method string              `json:"method"`
		URL    string              `json:"url"`
		Header map[string][]string `json:"header"`
		Body   []byte              `json:"body"`
	}{method, "POST", c.url, map[string][]string{"Content-Type": {"application/json"}}, body})
	c.line(TargetsFile(method), t)
	call := fmt.Appendf(nil, `{"method":%s`, mustJSON(method))
	if len(params) > 0 {
		call = append(append(call, `,"params":`...), params...)
	}
	c.line(CallsFile(method), append(call, '}'))
}

func (c *corpus) line(name string, b []byte) {
	if _, ok := c.bufs[name]; !ok {
		if _, open := c.files[name]; !open {
			c.order = append(c.order, name)
		}
	}
	c.bufs[name] = append(append(c.bufs[name], b...), '\n')
}

// discard drops the lines of the block being walked.
func (c *corpus) discard() {
	clear(c.bufs)
	clear(c.count)
	clear(c.errs)
}

// commit writes the lines of the block just walked and records next as the block to walk next.
func (c *corpus) commit(next uint64, sent int) error {
	for _, name := range c.order {
		b, ok := c.bufs[name]
		if !ok {
			continue
		}
		f := c.files[name]
		if f == nil {
			var err error
			if f, err = os.OpenFile(filepath.Join(c.dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
				return fmt.Errorf("gen: %w", err)
			}
			c.files[name] = f
		}
		if _, err := f.Write(b); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		c.state.Sizes[name] += int64(len(b))
	}
	for m, n := range c.count {
		c.state.Requests[m] += n
	}
	for m, n := range c.errs {
		c.state.Errors[m] += n
	}
	c.discard()
	c.state.Sent += sent
	c.state.Next = next
	return c.saveState()
}

// saveState writes the state to a new file and renames it over the old one.
func (c *corpus) saveState() error {
	b, err := json.MarshalIndent(c.state, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.dir, StateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, StateFile)); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}

func (c *corpus) close() error {
	var first error
	for _, f := range c.files {
		if err := f.Close(); err != nil && first == nil {
			first = fmt.Errorf("gen: %w", err)
		}
	}
	return first
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
