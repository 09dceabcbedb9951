package mesh

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
)

// State is the chain's state as it travels from peer to peer and back; its JSON form is the answer
// of the gateway, field for field the answer of the MeshRPC suite, so scripts written against the
// suite read it unchanged:
//
//	{"State":{"Start":1558817006608054800,"Current":1558817006641384200,"Last":"E",
//	          "Queue":["A","B","C","D","E"],"QueueIdx":0,"Limit":1000,"HopCount":1000,
//	          "HopLatency":33329},"Error":null}
//
// The zero value is an empty chain. A State is a plain value: copy it freely, but do not share one
// between goroutines that change it.
type State struct {
	// Start is when the gateway began the chain, in Unix nanoseconds.
	Start int64
	// Current is in Unix nanoseconds. While the chain is under way it is when the most recent hop
	// arrived at its peer, as in the suite; in the gateway's answer it is when the answer got back to
	// the gateway: Start plus the round trip measured by the gateway's clock alone. (The suite's last
	// peer stamps Current on its own clock, so its HopLatency leaves out the way back.)
	Current int64
	// Last is the name of the peer the most recent hop arrived at: at the end, the chain's last peer,
	// Queue[(Limit−1) mod len(Queue)] ("E" for 1000 hops over A–E).
	Last string
	// Queue is the peers to visit, in order, starting again at the front after the last.
	Queue []string
	// QueueIdx is the index in Queue of the peer that receives the state next: a peer that receives
	// it moves QueueIdx on by one, cyclically, as the suite's peers do. At the end it is
	// Limit mod len(Queue): 0 after 1000 hops over A–E, wrapped to the queue's start.
	QueueIdx int
	// Limit is the number of hops to make.
	Limit int
	// HopCount is the number of hops made so far; Limit once the chain has finished.
	HopCount int
	// HopLatency is (Current − Start) / HopCount in nanoseconds, set by the gateway at the end.
	HopLatency int64
}

// Response is the gateway's answer: the State and, if the chain failed, what went wrong. Error is
// null in JSON when the chain succeeded; else State is as far as the chain got (the zero State if
// the request was refused). The zero value is an empty success; a plain value like State.
type Response struct {
	State State
	Error *string
}

// HopRequest is the body of POST /peer/hop and POST /staticPeer/hop: the queue of peer names to
// visit, cyclically, and the number of hops to make. The zero value is refused (empty queue, limit 0).
type HopRequest struct {
	Queue []string `json:"queue"`
	Limit int      `json:"limit"`
}

// Limits on a request, whatever the Config.
const (
	// MaxQueue is the most names a queue may hold.
	MaxQueue = 1000
	// MaxNameLen is the longest peer name.
	MaxNameLen = 64
	// DefaultMaxLimit is the largest hop limit accepted when Config.MaxLimit is zero. A chain of N
	// hops holds N calls open at once, each with its goroutines and buffers, so memory grows with the
	// limit: measured, about 30 KiB per open hop over gRPC, 40 KiB over h2c and 55 KiB over HTTP/1.1,
	// so 10,000 hops take 300 to 550 MiB.
	DefaultMaxLimit = 10_000
	// maxBody bounds every request body the gateway and the peers read.
	maxBody = 1 << 20
)

// ErrBadRequest is wrapped by every error about a request's content (an empty queue, an unknown peer,
// a limit out of range): the gateway answers it with 400.
var ErrBadRequest = errors.New("bad request")

// ErrChain is wrapped by the error of a chain that did not finish: a hop failed or the chain's
// deadline passed. The gateway answers it with 502, or 504 if it also wraps ErrTimeout.
var ErrChain = errors.New("chain failed")

// ErrTimeout is wrapped, beside ErrChain, when the chain did not finish before its deadline.
var ErrTimeout = errors.New("chain timed out")

func badRequest(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, a...))
}

// validName reports whether s can name a peer: 1 to MaxNameLen letters, digits, '_', '-' or '.'.
func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// checkRequest validates a request against the known peers and the largest limit.
func checkRequest(req HopRequest, peers map[string]string, maxLimit int) error {
	if len(req.Queue) == 0 {
		return badRequest("queue is empty; want peer names such as %s", quoteNames(peers))
	}
	if len(req.Queue) > MaxQueue {
		return badRequest("queue has %d names; want at most %d", len(req.Queue), MaxQueue)
	}
	for i, n := range req.Queue {
		if _, ok := peers[n]; !ok {
			return badRequest("queue[%d]: unknown peer %q; want one of %s", i, n, quoteNames(peers))
		}
	}
	if req.Limit < 1 || req.Limit > maxLimit {
		return badRequest("limit: got %d; want 1 to %d", req.Limit, maxLimit)
	}
	return nil
}

// quoteNames lists the peer names, sorted and quoted.
func quoteNames(peers map[string]string) string {
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// DefaultNames returns the names of the peers Start runs: A B C D E, as in the MeshRPC suite.
func DefaultNames() []string { return []string{"A", "B", "C", "D", "E"} }

// ParsePeers parses a peer directory such as "A=127.0.0.1:9001,B=127.0.0.1:9002": comma-separated
// NAME=HOST:PORT pairs, names unique. The error names the pair at fault.
func ParsePeers(s string) (map[string]string, error) {
	peers := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no peers; want NAME=HOST:PORT pairs separated by commas, such as A=127.0.0.1:9001,B=127.0.0.1:9002")
	}
	for i, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		name, addr, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("pair %d %q: want NAME=HOST:PORT", i+1, pair)
		}
		if err := checkPeer(name, addr); err != nil {
			return nil, fmt.Errorf("pair %d %q: %v", i+1, pair, err)
		}
		if _, dup := peers[name]; dup {
			return nil, fmt.Errorf("pair %d %q: peer %q named twice", i+1, pair, name)
		}
		peers[name] = addr
	}
	return peers, nil
}

// checkPeer validates one directory entry.
func checkPeer(name, addr string) error {
	if !validName(name) {
		return fmt.Errorf("peer name %q: want 1 to %d letters, digits, '_', '-' or '.'", name, MaxNameLen)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || strings.ContainsAny(host+port, "/?#@ ") {
		return fmt.Errorf("peer %s address %q: want HOST:PORT", name, addr)
	}
	return nil
}

// checkPeers validates a whole directory.
func checkPeers(peers map[string]string) error {
	if len(peers) == 0 {
		return errors.New("no peers")
	}
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := checkPeer(n, peers[n]); err != nil {
			return err
		}
	}
	return nil
}

// FormatPeers is the inverse of ParsePeers: NAME=ADDR pairs sorted by name.
func FormatPeers(peers map[string]string) string {
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n + "=" + peers[n]
	}
	return strings.Join(names, ",")
}
