package diff

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/rpcbench/rpcbench/jsondiff"
)

// record is one line of a record file: the request and every answer, and for a mismatch the
// differences.
type record struct {
	ID      int             `json:"id"`
	Method  string          `json:"method"`
	Where   string          `json:"where,omitempty"`
	Request json.RawMessage `json:"request"`
	// Pinned is the block put in place of "latest", "pending" or an omitted one; Request is then
	// the body as sent.
	Pinned   string          `json:"pinned,omitempty"`
	Skipped  string          `json:"skipped,omitempty"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Answers  []recordAnswer  `json:"answers"`
}

type recordAnswer struct {
	URL       string                `json:"url"`
	Status    int                   `json:"status"`
	LatencyMS float64               `json:"latency_ms"`
	Class     string                `json:"class,omitempty"`
	Error     string                `json:"error,omitempty"`
	Body      json.RawMessage       `json:"body,omitempty"`
	Diffs     []jsondiff.Difference `json:"diffs,omitempty"`
	// Noise are the differences at paths where the reference instance differed too.
	Noise []jsondiff.Difference `json:"noise,omitempty"`
}

// WriteRecord writes r as one JSON line: the request (as sent, when a block was pinned), the
// expected answer if any, and each server's answer (bodies as JSON when they are, else as
// strings) with its differences from the reference and its noise; a skipped request has no
// answers.
func WriteRecord(w io.Writer, servers []string, r *Result) error {
	q := r.Request
	rec := record{ID: q.ID, Method: q.Label, Where: q.Where, Request: raw(q.Body), Pinned: r.Pinned, Skipped: r.Skipped, Answers: []recordAnswer{}}
	if r.Sent != nil {
		rec.Request = raw(r.Sent)
	}
	if q.Expected != nil {
		rec.Expected = raw(q.Expected)
	}
	for k, a := range r.Answers {
		if r.Skipped != "" {
			break
		}
		ra := recordAnswer{URL: servers[k], Status: a.Status, LatencyMS: float64(a.Latency.Microseconds()) / 1000,
			Class: a.Class, Error: a.Error, Diffs: r.Diffs[k], Noise: r.noise(k)}
		if a.Class == "" {
			ra.Body = raw(a.Body)
		}
		rec.Answers = append(rec.Answers, ra)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// raw returns b as a JSON value: itself, compacted, when it is JSON, else a JSON string.
func raw(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(b)) > 0 && json.Compact(&buf, b) == nil {
		return buf.Bytes()
	}
	s, _ := json.Marshal(string(b))
	return s
}

// LogHeader is the header line of a request log (see WriteLog).
var LogHeader = []string{"id", "method", "where", "server", "sent", "latency_ms", "status", "class", "equal"}

// WriteLog writes one CSV row per server for r: request id, method, where it was written, the
// server, when the request was sent (RFC 3339, UTC), its latency in milliseconds, the answer's
// status, the error class ("" when it answered) and whether the answer equals the reference
// (noise aside). A skipped request, sent to none, has no rows.
func WriteLog(w *csv.Writer, servers []string, r *Result) error {
	if r.Skipped != "" {
		return nil
	}
	for k, a := range r.Answers {
		eq := a.Class == "" && len(r.Diffs[k]) == 0
		row := []string{strconv.Itoa(r.Request.ID), r.Request.Label, r.Request.Where, servers[k],
			a.Sent.UTC().Format(time.RFC3339Nano), strconv.FormatFloat(float64(a.Latency.Microseconds())/1000, 'f', 3, 64),
			strconv.Itoa(a.Status), a.Class, strconv.FormatBool(eq)}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}
