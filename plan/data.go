package plan

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DataOrder says which row of the data file each request reads.
type DataOrder string

// The data orders.
const (
	// DataSequential reads the rows in turn and starts over after the last (the default).
	DataSequential DataOrder = "sequential"
	// DataRandom reads a row at random for each request.
	DataRandom DataOrder = "random"
	// DataUnique gives each row to one request only; the run stops when every row was used.
	DataUnique DataOrder = "unique"
)

// ErrDataExhausted is wrapped by the error a Source returns when DataUnique ran out of rows.
var ErrDataExhausted = errors.New("unique data ran out")

// Data is a data file read into memory: named columns, and rows of values that templates read as
// {{.column}}. Build it with ReadData; it is immutable and safe for concurrent use.
type Data struct {
	// Name is the file's name as the user gave it, for messages.
	Name string
	// Columns are the field names, in the order of the file.
	Columns []string
	rows    [][][]byte
}

// Len returns the number of rows.
func (d *Data) Len() int { return len(d.rows) }

// Value returns the value of column col in row i as text.
func (d *Data) Value(i, col int) string { return string(d.rows[i][col]) }

// ReadData reads a data file: CSV whose first record names the columns, or JSON lines (one object
// per line; strings are used as they are, other values as their JSON text, null as empty). The
// format is told by the first character: '{' means JSON lines. name labels errors ("users.csv:3:
// …").
func ReadData(name string, r io.Reader) (*Data, error) {
	d := &Data{Name: name}
	br := bufio.NewReader(&lineCap{r: r})
	var err error
	if first, _ := peekNonSpace(br); first == '{' {
		err = d.readJSONLines(br)
	} else {
		err = d.readCSV(br)
	}
	if err != nil {
		return nil, err
	}
	if len(d.Columns) == 0 {
		return nil, fmt.Errorf("plan: %s: no fields: want objects with fields, e.g. {\"user_id\": \"u1\"}", name)
	}
	if len(d.rows) == 0 {
		return nil, fmt.Errorf("plan: %s: no rows of data: want a header line and at least one row", name)
	}
	return d, nil
}

// peekNonSpace returns the first byte that is not white space (or a UTF-8 byte order mark),
// consuming what came before it.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3) //nolint:errcheck // peeked
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
			return b[0], nil
		}
		br.Discard(1) //nolint:errcheck // peeked
	}
}

func (d *Data) readCSV(r io.Reader) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("plan: %s: empty data file: want a CSV header line naming the columns", d.Name)
	}
	if err != nil {
		return d.csvError(err)
	}
	if err := d.setColumns(header, 1); err != nil {
		return err
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return d.csvError(err)
		}
		row := make([][]byte, len(rec))
		for i, v := range rec {
			row[i] = []byte(v)
		}
		d.rows = append(d.rows, row)
	}
}

func (d *Data) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return fmt.Errorf("plan: %s:%d: want %d fields as in the header, got another count", d.Name, pe.Line, len(d.Columns))
		}
		return fmt.Errorf("plan: %s:%d:%d: %v", d.Name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("plan: %s: %w", d.Name, err)
}

// setColumns checks the column names read on line.
func (d *Data) setColumns(names []string, line int) error {
	seen := map[string]bool{}
	for i, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return fmt.Errorf("plan: %s:%d: column %d has no name", d.Name, line, i+1)
		case strings.ContainsAny(n, " \t\"`{}"):
			return fmt.Errorf("plan: %s:%d: column name %q: want a name without spaces, quotes or braces, as {{.%s}} reads it", d.Name, line, n, n)
		case seen[n]:
			return fmt.Errorf("plan: %s:%d: column %q is named twice", d.Name, line, n)
		}
		seen[n] = true
		d.Columns = append(d.Columns, n)
	}
	return nil
}

func (d *Data) readJSONLines(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxDataLine+1)
	index := map[string]int{}
	var objs []map[int][]byte
	for line := 1; sc.Scan(); line++ {
		if err := sc.Err(); err != nil {
			break // the reader failed mid-line: what Scan handed over is a fragment
		}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		obj, err := d.jsonObject(text, line, index)
		if err != nil {
			return err
		}
		objs = append(objs, obj)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("plan: %s: %w", d.Name, err)
	}
	for _, obj := range objs {
		row := make([][]byte, len(d.Columns))
		for i := range row {
			row[i] = obj[i]
		}
		d.rows = append(d.rows, row)
	}
	return nil
}

// jsonObject reads one line's object; index maps column names (added as they first appear) to
// their position.
func (d *Data) jsonObject(text []byte, line int, index map[string]int) (map[int][]byte, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("plan: %s:%d: %s", d.Name, line, fmt.Sprintf(format, a...))
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad("want a JSON object {\"field\": value, …}, got %.40q", text)
	}
	obj := map[int][]byte{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad("%v", err)
		}
		key := tok.(string) // object keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, bad("field %q: %v", key, err)
		}
		col, ok := index[key]
		if !ok {
			if err := d.setColumns([]string{key}, line); err != nil {
				return nil, err
			}
			col = len(d.Columns) - 1
			index[key] = col
		}
		obj[col] = jsonText(raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("want one JSON object per line, found more after it")
	}
	return obj, nil
}

// jsonText returns a JSON value as a template inserts it: a string's text, null as nothing, any
// other value as its JSON.
func jsonText(raw json.RawMessage) []byte {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []byte(s)
		}
	case string(raw) == "null":
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.Bytes()
	}
	return []byte(raw)
}

// maxDataLine bounds a line of a data file, so that a file without line ends (a device, a binary
// file given by mistake) is refused instead of read into memory whole.
const maxDataLine = 16 << 20

// lineCap passes r through, failing once a line grows past maxDataLine bytes.
type lineCap struct {
	r    io.Reader
	line int // bytes since the last line end
	n    int // line ends seen
}

func (c *lineCap) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			c.line, c.n = 0, c.n+1
			continue
		}
		if c.line++; c.line > maxDataLine {
			return 0, fmt.Errorf("line %d is longer than %d MiB: want a CSV or JSON-lines data file", c.n+1, maxDataLine>>20)
		}
	}
	return n, err
}

// MaxBodyBytes bounds a request body read from a file: every sender holds it.
const MaxBodyBytes = 64 << 20

// ReadBodyFile reads a request body from path, refusing one larger than MaxBodyBytes (or a source
// without end, such as a device) instead of reading it into memory whole.
func ReadBodyFile(path string) ([]byte, error) { return readBody(OSFiles(nil), path) }
