package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// Methods are the methods an Ethereum crawl can write, in the order it walks them.
var Methods = []string{
	"eth_blockNumber",
	"eth_getBlockByNumber", "eth_getBlockByHash", "eth_getLogs",
	"eth_getTransactionByHash", "eth_getTransactionReceipt", "debug_traceTransaction",
	"eth_call", "eth_estimateGas",
	"eth_getBalance", "eth_getTransactionCount", "eth_getCode",
	"eth_getStorageAt", "debug_storageRangeAt",
}

// Defaults of Ethereum.
const (
	DefaultStoragePages    = 2
	DefaultStoragePageSize = 1024
	DefaultTimeout         = 30 * time.Second
)

// Ethereum says what an Ethereum crawl walks and where it writes. The zero value is not usable:
// it needs URL and Out.
type Ethereum struct {
	// URL is the node's HTTP endpoint. Its user-info, if any, is sent as Basic authorization and
	// left out of the target files; the values of its key-like query parameters are written
	// REDACTED (plan.RedactURL) unless ShowSecrets.
	URL string
	// ShowSecrets writes the key-like query values of URL into the target files as they are.
	ShowSecrets bool
	// Header holds extra request headers (e.g. an API key), sent to the node and not written.
	Header []transport.Header
	// From and To are the first and last blocks to walk. Latest: To is the node's head.
	From, To uint64
	Latest   bool
	// Methods are the methods to write, from the package's Methods; empty: all of them.
	Methods []string
	// Out is the directory of the files; it is created if need be.
	Out string
	// Rate bounds the requests per second sent to the node; 0: no bound.
	Rate float64
	// Timeout bounds one request; 0: DefaultTimeout.
	Timeout time.Duration
	// StoragePages and StoragePageSize say how many debug_storageRangeAt pages of how many slots
	// to walk per contract and block; 0: the defaults.
	StoragePages, StoragePageSize int
	// Resume continues the crawl recorded in Out's state file instead of starting a new one.
	Resume bool
	// Progress, if set, is called after each block is written, from Run's goroutine.
	Progress func(Progress)
}

// Progress is where a crawl is.
type Progress struct {
	Step           string // a jsonrpc crawl's step; Block is then its number and Done, Total its calls
	Block          uint64 // the block just written
	Done, Total    uint64 // blocks written (this run and earlier ones) and to write
	Sent, Requests int    // requests sent to the node and written, over the whole crawl
}

// Summary is what a crawl wrote.
type Summary struct {
	State *State
	// Resumed is the block this run started from when it resumed a crawl.
	Resumed *uint64
}

// Validate says what is wrong with e, or returns nil.
func (e *Ethereum) Validate() error {
	var errs []error
	if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
		errs = append(errs, fmt.Errorf("URL %q: want http://host:port/ or https://…", plan.RedactURL(e.URL)))
	}
	if e.Out == "" {
		errs = append(errs, errors.New("no output directory"))
	}
	if !e.Latest && e.To < e.From {
		errs = append(errs, fmt.Errorf("blocks %d to %d: want From ≤ To", e.From, e.To))
	}
	for _, m := range e.Methods {
		if !slices.Contains(Methods, m) {
			errs = append(errs, fmt.Errorf("method %q: want one of %s", m, strings.Join(Methods, ", ")))
		}
	}
	if e.Rate < 0 || e.StoragePages < 0 || e.StoragePageSize < 0 || e.Timeout < 0 {
		errs = append(errs, errors.New("Rate, StoragePages, StoragePageSize and Timeout must not be negative"))
	}
	return errors.Join(errs...)
}

// Run walks blocks From to To of the node and writes the corpus. It returns what was written so
// far with an error when the node fails to answer, answers something that is not JSON-RPC, or
// ctx is done: the files then hold every block before the one being walked, and Resume continues
// from there.
func (e Ethereum) Run(ctx context.Context) (*Summary, error) {
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	if len(e.Methods) == 0 {
		e.Methods = Methods
	}
	if e.StoragePages == 0 {
		e.StoragePages = DefaultStoragePages
	}
	if e.StoragePageSize == 0 {
		e.StoragePageSize = DefaultStoragePageSize
	}
	if e.Timeout == 0 {
		e.Timeout = DefaultTimeout
	}
	w := &walker{cfg: &e, crawler: crawler{client: newClient(e.URL, e.Header, e.Rate, e.Timeout)}, want: map[string]bool{}}
	for _, m := range e.Methods {
		w.want[m] = true
	}
	st, err := e.start()
	if err != nil {
		return nil, err
	}
	sum := &Summary{State: st}
	if e.Resume {
		next := st.Next
		sum.Resumed = &next
	}
	w.corpus = newCorpus(e.Out, publicURL(e.URL, e.ShowSecrets), st)
	if err := w.corpus.reopen(); err != nil {
		return sum, err
	}
	err = w.run(ctx)
	if cerr := w.corpus.close(); err == nil {
		err = cerr
	}
	return sum, err
}

// start reads the state of a resumed crawl, or makes a new one (refusing to write over one).
func (e *Ethereum) start() (*State, error) {
	if err := os.MkdirAll(e.Out, 0o755); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	old, err := ReadState(e.Out)
	if err != nil {
		return nil, err
	}
	if !e.Resume {
		if old != nil {
			return nil, fmt.Errorf("gen: %s holds a crawl (blocks %d to %d, next %d): continue it with Resume, or write to another directory", e.Out, old.From, old.To, old.Next)
		}
		return &State{Version: stateVersion, Kind: "ethereum", From: e.From, To: e.To, Next: e.From,
			Methods: e.Methods, StoragePages: e.StoragePages, StoragePageSize: e.StoragePageSize,
			Requests: map[string]int{}, Errors: map[string]int{}, Skipped: map[string]string{}, Sizes: map[string]int64{}}, nil
	}
	if old == nil {
		return nil, fmt.Errorf("gen: %s holds no crawl to resume (no %s)", e.Out, StateFile)
	}
	if old.Kind != "ethereum" {
		return nil, fmt.Errorf("gen: %s holds a crawl of kind %q, not ethereum", e.Out, old.Kind)
	}
	if !slices.Equal(old.Methods, e.Methods) || old.StoragePages != e.StoragePages || old.StoragePageSize != e.StoragePageSize {
		return nil, fmt.Errorf("gen: resuming %s: its crawl writes methods %s with %d storage pages of %d; got %s with %d of %d",
			e.Out, strings.Join(old.Methods, ","), old.StoragePages, old.StoragePageSize, strings.Join(e.Methods, ","), e.StoragePages, e.StoragePageSize)
	}
	for _, m := range []*map[string]int{&old.Requests, &old.Errors} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	if old.Skipped == nil {
		old.Skipped = map[string]string{}
	}
	if old.Sizes == nil {
		old.Sizes = map[string]int64{}
	}
	return old, nil
}

// walker walks the blocks.
type walker struct {
	crawler
	cfg  *Ethereum
	want map[string]bool
}

// crawler sends the calls of a crawl and writes them.
type crawler struct {
	client *client
	corpus *corpus
	sent   int // requests sent since the last commit
}

func (w *walker) run(ctx context.Context) error {
	st := w.corpus.state
	head, err := w.head(ctx)
	if err != nil {
		return err
	}
	if w.cfg.Latest && !w.cfg.Resume {
		st.To = head
		if st.To < st.From {
			return fmt.Errorf("gen: from block %d: the node's head is %d", st.From, head)
		}
	}
	if st.To > head {
		return fmt.Errorf("gen: to block %d: the node's head is %d", st.To, head)
	}
	if !w.cfg.Resume {
		if err := w.corpus.commit(st.Next, w.flushSent()); err != nil { // eth_blockNumber's line, and a state file at once
			return err
		}
	}
	for n := st.Next; n <= st.To; n++ {
		if err := w.block(ctx, n); err != nil {
			w.corpus.discard()
			st.Sent += w.flushSent()
			w.corpus.saveState() //nolint:errcheck // the skipped methods learnt; the error said first matters more
			if ctx.Err() != nil {
				return fmt.Errorf("gen: stopped at block %d (blocks %d to %d are written): %w", n, st.From, int64(n)-1, ctx.Err())
			}
			return fmt.Errorf("gen: block %d: %w (blocks %d to %d are written)", n, err, st.From, int64(n)-1)
		}
		if err := w.corpus.commit(n+1, w.flushSent()); err != nil {
			return err
		}
		if w.cfg.Progress != nil {
			total := 0
			for _, c := range st.Requests {
				total += c
			}
			w.cfg.Progress(Progress{Block: n, Done: n + 1 - st.From, Total: st.To + 1 - st.From, Sent: st.Sent, Requests: total})
		}
	}
	if sent := w.flushSent(); sent > 0 { // a resumed crawl that had nothing left asked for the head
		st.Sent += sent
		return w.corpus.saveState()
	}
	return nil
}

func (w *crawler) flushSent() int {
	n := w.client.sent - w.sent
	w.sent = w.client.sent
	return n
}

// head asks the node for its latest block.
func (w *walker) head(ctx context.Context) (uint64, error) {
	record := w.want["eth_blockNumber"] && !w.cfg.Resume
	res, err := w.send(ctx, "eth_blockNumber", json.RawMessage(`[]`), record)
	if err != nil {
		return 0, fmt.Errorf("gen: eth_blockNumber: %w", err)
	}
	var s string
	if json.Unmarshal(res, &s) != nil {
		return 0, fmt.Errorf("gen: eth_blockNumber: the node answered %s; want a hex quantity like \"0x1b4\"", clip(res, 60))
	}
	n, err := parseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("gen: eth_blockNumber: the node answered %q: %v", s, err)
	}
	return n, nil
}

// errSkipped says that the node does not have the method (and it was noted).
var errSkipped = errors.New("method skipped")

// send calls method and, when record is set, writes the request. The node's error answers are
// written too (they are answers), except "method not found": the method is then skipped with a
// note, and errSkipped returned. Without an error, the result is returned (it may be null).
func (w *crawler) send(ctx context.Context, method string, params json.RawMessage, record bool) (json.RawMessage, error) {
	if _, skipped := w.corpus.state.Skipped[method]; skipped {
		return nil, errSkipped
	}
	res, err := w.client.call(ctx, method, params)
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		if rpcErr.MethodNotFound() {
			w.corpus.state.Skipped[method] = rpcErr.Error()
			return nil, errSkipped
		}
		if record {
			w.corpus.add(method, params, true)
		}
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, clip(params, 160), err)
	}
	if record {
		w.corpus.add(method, params, false)
	}
	return res, nil
}

// maybe is send for a method written only when asked for: it returns (nil, nil) when the method
// is not asked for, skipped, or answered with an error, and fails only when no answer came.
func (w *walker) maybe(ctx context.Context, method string, params ...any) (json.RawMessage, error) {
	if !w.want[method] {
		return nil, nil
	}
	return w.quiet(w.send(ctx, method, mustJSON(params), true))
}

// quiet keeps the errors that stop a crawl: no answer, or a cancelled context.
func (w *walker) quiet(res json.RawMessage, err error) (json.RawMessage, error) {
	var rpcErr *RPCError
	if errors.Is(err, errSkipped) || errors.As(err, &rpcErr) {
		return nil, nil
	}
	return res, err
}

func quantity(n uint64) string { return "0x" + strconv.FormatUint(n, 16) }

func parseQuantity(s string) (uint64, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" {
		return 0, fmt.Errorf("want a 0x-prefixed hex quantity")
	}
	return strconv.ParseUint(h, 16, 64)
}

// publicURL is u as written into target files: without its user-info, and its secret query
// values redacted as every output of rpcbench redacts them (plan.ShownURL).
func publicURL(u string, showSecrets bool) string {
	u = plan.ShownURL(u, showSecrets)
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	if path == "" && !strings.HasSuffix(rest, "/") {
		return scheme + "://" + host + "/"
	}
	return scheme + "://" + host + "/" + path
}
