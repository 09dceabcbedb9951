package kv

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble"
)

// ServeHTTP answers the /v0 API (see the package documentation).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()
	switch r.URL.Path {
	case "/v0/entity":
		s.entity(w, r)
	case "/v0/entities":
		s.entities(w, r)
	case "/v0/prefill":
		if !allow(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, s.prefilled.String()+"\n") //nolint:errcheck // the client went away
	case "/v0/status":
		if !allow(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "OK\n") //nolint:errcheck // the client went away
	default:
		http.Error(w, fmt.Sprintf("unknown path %q; want /v0/entity, /v0/entities, /v0/status or /v0/prefill", r.URL.Path), http.StatusBadRequest)
	}
}

// allow answers 405 and returns false unless r's method is one of methods.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	if slices.Contains(methods, r.Method) {
		return true
	}
	allowed := strings.Join(methods, ", ")
	w.Header().Set("Allow", allowed)
	http.Error(w, fmt.Sprintf("method %s not allowed; want %s", r.Method, allowed), http.StatusMethodNotAllowed)
	return false
}

func (s *Server) entity(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete) {
		return
	}
	id := r.URL.Query().Get("id")
	if id == "" {
		http.Error(w, "missing or empty id: want /v0/entity?id=KEY", http.StatusBadRequest)
		return
	}
	key := []byte(id)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		s.get(w, key)
	case http.MethodPut:
		s.put(w, r, key)
	case http.MethodDelete:
		if err := s.db.Delete(key, s.sync); err != nil {
			http.Error(w, "delete: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *Server) get(w http.ResponseWriter, key []byte) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "get: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer closer.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", fmt.Sprint(len(v)))
	w.WriteHeader(http.StatusOK)
	w.Write(v) //nolint:errcheck // the client went away
}

func (s *Server) put(w http.ResponseWriter, r *http.Request, key []byte) {
	if r.ContentLength > s.maxValue {
		http.Error(w, fmt.Sprintf("value of %d bytes is over the limit of %d", r.ContentLength, s.maxValue), http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxValue))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("value is over the limit of %d bytes", s.maxValue), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.db.Set(key, body, s.sync); err != nil {
		http.Error(w, "put: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// entities streams the records of [start, end) in key order, one chunk "key\nvalue" per record,
// flushed as it goes. It reads from a consistent snapshot and stops when the client goes away.
func (s *Server) entities(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet, http.MethodHead) {
		return
	}
	q := r.URL.Query()
	start := q.Get("start")
	if start == "" {
		http.Error(w, "missing or empty start: want /v0/entities?start=KEY[&end=KEY]", http.StatusBadRequest)
		return
	}
	opts := &pebble.IterOptions{LowerBound: []byte(start)}
	if end := q.Get("end"); end != "" {
		opts.UpperBound = []byte(end)
	}
	it, err := s.db.NewIter(opts)
	if err != nil {
		http.Error(w, "range: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer it.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // the status now, and chunked encoding even for an empty range
	}
	ctx := r.Context()
	var rec []byte
	for ok := it.First(); ok; ok = it.Next() {
		if ctx.Err() != nil {
			return
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return // the status is sent; a cut-short chunked body tells the client
		}
		rec = append(append(append(rec[:0], it.Key()...), '\n'), v...)
		// One Write into an empty response buffer, then Flush: exactly one chunk per record.
		if _, err := w.Write(rec); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}
