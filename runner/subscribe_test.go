package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/runner"
)

// silentUnsubscribe is a loopback JSON-RPC WebSocket server that answers eth_subscribe with an id
// and one notification, answers any other call, and never answers eth_unsubscribe: the first one
// it reads closes unsub.
func silentUnsubscribe(t *testing.T) (url string, unsub <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow() //nolint:errcheck // the test's end
		for {
			_, m, err := c.Read(r.Context())
			if err != nil {
				return
			}
			var call struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(m, &call) != nil {
				return
			}
			var out []string
			switch call.Method {
			case "eth_subscribe":
				out = []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0xabc"}`, call.ID),
					`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xabc","result":{"number":"0x1"}}}`}
			case "eth_unsubscribe":
				once.Do(func() { close(ch) })
			default:
				out = []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, call.ID)}
			}
			for _, o := range out {
				if c.Write(r.Context(), websocket.MessageText, []byte(o)) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return strings.Replace(srv.URL, "http://", "ws://", 1) + "/", ch
}

// A second interrupt (Options.Cut) ends the wait for the unsubscribe answers at once, as it cuts
// the calls in flight, and the run still reports what was measured: the server never answers the
// unsubscribe and the wait may last an hour (--connect-timeout), so only the cut ends the run.
// Alone and beside calls.
func TestCutEndsTheUnsubscribeWait(t *testing.T) {
	t.Parallel()
	for _, calls := range []bool{false, true} {
		t.Run(fmt.Sprintf("calls %v", calls), func(t *testing.T) {
			t.Parallel()
			url, unsub := silentUnsubscribe(t)
			p := plan.Plan{Endpoints: []plan.Endpoint{{URL: url}}, Load: plan.Load{Duration: 2 * time.Second},
				HTTP:      plan.HTTP{ConnectTimeout: time.Hour},
				Subscribe: &plan.Subscribe{Method: "eth_subscribe", Params: json.RawMessage(`["newHeads"]`), Count: 1}}
			if calls {
				p.JSONRPC = plan.JSONRPC{Calls: []plan.Call{{Method: "eth_blockNumber"}}}
				p.Load.Connections, p.Load.Rate, p.Load.Model = 1, 20, plan.Open
			}
			prep, err := plan.Prepare(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			cut := make(chan struct{})
			go func() {
				<-unsub // the subscription's hold is over and its unsubscribe sent: a second Ctrl-C
				close(cut)
			}()
			type outcome struct {
				run *runner.Outcome
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				run, err := runner.Run(context.Background(), prep, runner.Options{Cut: cut})
				done <- outcome{run, err}
			}()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(time.Minute): // the hold is 2 s; without the cut the wait is an hour
				t.Fatal("the run still waits for the unsubscribe answer a minute after the cut")
			}
			if o.err != nil {
				t.Fatal(o.err)
			}
			u := o.run.Summary.Subscriptions
			if u == nil || u.Opened != 1 || u.Messages != 1 || u.UnsubscribeSent != 1 || u.Unsubscribed != 0 {
				t.Fatalf("subscriptions %+v; want 1 opened, its 1 notification, 1 unsubscribe sent and none answered", u)
			}
			if o.run.Result.Interrupted {
				t.Error("a run whose hold was whole (cut in the wait for the unsubscribe answers) is marked interrupted")
			}
		})
	}
}
