package plan

import (
	"fmt"
	"net/url"

	"github.com/rpcbench/rpcbench/result"
)

// Source fills in the request for each arrival. Implementations are safe for concurrent use; each
// sender owns its Request, and Fill may keep buffers in it between calls.
type Source interface {
	// Fill sets r to the request of arrival i. An error stops the run (e.g. data ran out).
	Fill(i uint64, r *result.Request) error
}

// StaticSource sends the plan's endpoints in turn, unchanged: arrival i gets endpoint i mod n.
// Build it with NewStaticSource; it is immutable and safe for concurrent use.
type StaticSource struct {
	reqs []result.Request
}

// NewStaticSource prepares the endpoints of a Normalized, valid plan.
func NewStaticSource(endpoints []Endpoint) (*StaticSource, error) {
	s := &StaticSource{}
	for i, e := range endpoints {
		u, err := url.Parse(e.URL)
		if err != nil {
			return nil, fmt.Errorf("plan: endpoint %d: %w", i+1, err)
		}
		s.reqs = append(s.reqs, result.Request{
			Endpoint: i,
			Method:   e.Method,
			Scheme:   u.Scheme,
			Host:     u.Host,
			Path:     []byte(u.RequestURI()),
			Header:   e.Header,
			Body:     e.Body,
		})
	}
	return s, nil
}

// Fill implements Source.
func (s *StaticSource) Fill(i uint64, r *result.Request) error {
	*r = s.reqs[i%uint64(len(s.reqs))]
	return nil
}
