package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
)

// ghz's streaming flags against serve items: the messages of a JSON-lines file or of an array,
// --stream-call-count (sends of a client or bidi stream, answers of a server stream, which the
// call then ends and counts OK), --stream-interval (a schedule, each answer timed), and
// --stream-dynamic-messages (each message rendered anew). Counts by hand.
func TestGHZStreams(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	for _, id := range []string{"1", "2", "3"} {
		if err := s.Put(id, "item "+id); err != nil {
			t.Fatal(err)
		}
	}
	lines := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(lines, []byte("{\"id\":\"a\",\"name\":\"A\"}\n{\"id\":\"b\",\"name\":\"B\"}\n{\"id\":\"c\",\"name\":\"C\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ghz := func(args ...string) []string {
		return append([]string{"--insecure", "-c", "2"}, append(args, s.GRPCAddr())...)
	}
	for _, tc := range []struct {
		name           string
		args           []string
		sent, received uint64 // messages in all
		timed          bool   // answers timed from their messages' due times
	}{
		// client-streaming, the file's 3 items a call: 4 calls send 12, get 4 answers
		{"JSON lines", ghz("--call", "rpz.ItemService/CreateItems", "-D", lines, "-n", "4"), 12, 4, false},
		// ghz's array, 5 messages a call from 2: 4 calls send 20
		{"array and count", ghz("--call", "rpz.ItemService/CreateItems", "-d", `[{"id":"d","name":"D"},{"id":"e","name":"E"}]`, "--stream-call-count", "5", "-n", "4"), 20, 4, false},
		// bidi, 4 ids 5 ms apart: 4 calls send 16 and get 16 answers, each timed
		{"bidi on a schedule", ghz("--call", "rpz.ItemService/GetItems", "-d", `[{"id":"1"},{"id":"2"}]`, "--stream-call-count", "4", "--stream-interval", "5ms", "-n", "4"), 16, 16, true},
		// the same at --stream-rate 200/s
		{"stream rate", ghz("--call", "rpz.ItemService/GetItems", "-d", `{"id":"3"}`, "--stream-call-count", "4", "--stream-rate", "200/s", "-n", "4"), 16, 16, true},
		// server-streaming: 2 answers of the 6 asked for, the call then ended, counted OK
		{"server stream count", ghz("--call", "rpz.ItemService/ListItems", "-d", `{"ids":["1","2","3","1","2","3"]}`, "--stream-call-count", "2", "-n", "4"), 4, 8, false},
	} {
		got := runGHZJSON(t, tc.args...)
		m := got.Messages
		if got.Requests.OK != 4 || got.Status["OK"] != 4 || m == nil || m.Sent != tc.sent || m.Received != tc.received {
			t.Errorf("%s: ok %d, status %v, messages %+v; want 4 OK, %d sent, %d received", tc.name, got.Requests.OK, got.Status, m, tc.sent, tc.received)
		}
		if (got.MessageLatency != nil) != tc.timed {
			t.Errorf("%s: message latency %v; want it only for a paced bidi stream", tc.name, got.MessageLatency)
		}
		// 4 messages 5 ms apart: the last is due 15 ms after the call's start
		if tc.timed && got.Latency.Min < 15 {
			t.Errorf("%s: the shortest call took %v ms; want at least 15, until its last message was due", tc.name, got.Latency.Min)
		}
	}
	if n := s.Len(); n != 3+3+2 {
		t.Errorf("the server holds %d items; want the 3 put, a, b, c and d, e", n)
	}
	// {{newUUID}} in 5 messages a call: rendered once a call and repeated, as ghz does, 3 items
	// for 3 calls; with --stream-dynamic-messages, once a message, 15
	for _, tc := range []struct {
		dynamic bool
		items   int
	}{{false, 3}, {true, 15}} {
		fresh := startItems(t, items.Config{})
		args := []string{"--insecure", "-c", "1", "-n", "3", "--call", "rpz.ItemService/CreateItems", "-d", `{"id":"{{newUUID}}","name":"n"}`, "--stream-call-count", "5"}
		if tc.dynamic {
			args = append(args, "--stream-dynamic-messages")
		}
		got := runGHZJSON(t, append(args, fresh.GRPCAddr())...)
		if got.Requests.OK != 3 || got.Messages == nil || got.Messages.Sent != 15 || fresh.Len() != tc.items {
			t.Errorf("dynamic %v: ok %d, messages %+v, %d items; want 3 OK, 15 sent, %d items", tc.dynamic, got.Requests.OK, got.Messages, fresh.Len(), tc.items)
		}
	}
}

// slowList streams items 20 ms apart until the call ends.
type slowList struct {
	rpzpb.UnimplementedItemServiceServer
}

func (slowList) ListItems(_ *rpzpb.ListItemsRequest, stream grpc.ServerStreamingServer[rpzpb.Item]) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := stream.Send(&rpzpb.Item{Id: "1"}); err != nil {
			return err
		}
		select {
		case <-tick.C:
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
}

// --stream-call-duration ends a server stream that would go on for ever, counted OK, after it.
func TestGHZStreamCallDuration(t *testing.T) {
	t.Parallel()
	addr := startTestGRPC(t, slowList{})
	got := runGHZJSON(t, "--insecure", "--call", "rpz.ItemService/ListItems", "-d", `{"ids":["1"]}`,
		"--stream-call-duration", "1s", "-n", "2", "-c", "2", addr)
	if got.Requests.OK != 2 || got.Messages == nil || got.Messages.Received < 2 {
		t.Errorf("ok %d, messages %+v; want 2 calls OK, each with answers", got.Requests.OK, got.Messages)
	}
	// the histogram keeps 3 significant digits: a call of 1,000.2 ms may read 999.936 ms
	if got.Latency.Min < 999 || got.Latency.Max > 10000 {
		t.Errorf("calls of %v to %v ms; want each ended at 1 s, well before its 20 s deadline", got.Latency.Min, got.Latency.Max)
	}
}

// What rpcbench cannot do as ghz would is refused, exit 2, saying why.
func TestGHZStreamUsageErrors(t *testing.T) {
	t.Parallel()
	s := startItems(t, items.Config{})
	call := []string{"--insecure", "--call", "rpz.ItemService/GetItems"}
	runCLICases(t, []string{"ghz"}, []cliCase{
		{"interval and rate", append(call, "-d", `{"id":"1"}`, "--stream-interval", "10ms", "--stream-rate", "100/s", s.GRPCAddr()), ExitUsage, nil,
			[]string{"--stream-interval and --stream-rate say the same"}},
		{"longer than the deadline", append(call, "-d", `{"id":"1"}`, "--stream-call-duration", "30s", s.GRPCAddr()), ExitUsage, nil,
			[]string{"--stream-call-duration 30s: each call's deadline (-t 20s) would end the stream first"}},
		{"a negative count", append(call, "-d", `{"id":"1"}`, "--stream-call-count", "-1", s.GRPCAddr()), ExitUsage, nil,
			[]string{"--stream-call-count -1: want a number of messages"}},
		{"dynamic without a template", append(call, "-d", `{"id":"1"}`, "--stream-dynamic-messages", s.GRPCAddr()), ExitUsage, nil,
			[]string{"the data has no template ({{…}}) to render"}},
		{"dynamic times, paced", append(call, "-d", `{"id":"{{.TimestampUnix}}"}`, "--stream-dynamic-messages", "--stream-interval", "1s", s.GRPCAddr()), ExitUsage, nil,
			[]string{"each would carry the call's start, not its own send time"}},
		{"dynamic, too many", append(call, "-d", `{"id":"{{newUUID}}"}`, "--stream-dynamic-messages", "--stream-call-count", "10001", s.GRPCAddr()), ExitUsage, nil,
			[]string{"--stream-call-count 10001: rpcbench renders a call's messages when it starts, at most 10000"}},
		{"an array to a unary method", []string{"--insecure", "--call", "rpz.ItemService/CreateItem", "-d", `[{"id":"1"},{"id":"2"}]`, s.GRPCAddr()}, ExitUsage, nil,
			[]string{"/rpz.ItemService/CreateItem is unary: it takes one request message, not an array of them"}},
		{"an array to a server stream", []string{"--insecure", "--call", "rpz.ItemService/ListItems", "-d", `[{"ids":["1"]}]`, s.GRPCAddr()}, ExitUsage, nil,
			[]string{"/rpz.ItemService/ListItems is server-streaming: it takes one request message, not an array of them"}},
		{"an unknown client", append(call, "-d", `{"id":"1"}`, "--grpc-client", "h3", s.GRPCAddr()), ExitUsage, nil,
			[]string{`--grpc-client "h3": want auto`}},
	})
	// the streaming flags, and the client, show in the plan the JSON report repeats
	got := runGHZJSON(t, append(call, "-d", `{"id":"x"}`, "-n", "1", "--stream-interval", "4ms", "--stream-call-count", "3", "--stream-call-duration", "1s", "--streams", "5",
		"--grpc-client", "grpc-go", s.GRPCAddr())...)
	if g := got.Config.GRPC; g.StreamRate != 250 || g.StreamCount != 3 || g.StreamDuration != time.Second || got.Config.HTTP.Streams != 5 || g.Client != "grpc-go" {
		t.Errorf("plan: %+v, streams %d; want 250 messages/s (4 ms apart), 3 a call, for at most 1s, 5 calls a connection, client grpc-go", g, got.Config.HTTP.Streams)
	}
}

// splitArray finds the elements of ghz's array data, templates and all; false for what is not one
// array.
func TestSplitArray(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`[{"id":"a"}, {"id":"b"}]`, []string{`{"id":"a"}`, `{"id":"b"}`}, true},
		// a template outside a string, one with a comma and a bracket inside, a string with them
		{`[{"n":{{seq}}},{"s":"{{pick "a,]" "b"}}"},{"t":"x,\"]"}]`, []string{`{"n":{{seq}}}`, `{"s":"{{pick "a,]" "b"}}"}`, `{"t":"x,\"]"}`}, true},
		// nested arrays stay whole
		{`[{"ids":["1","2"]},{"ids":[]}]`, []string{`{"ids":["1","2"]}`, `{"ids":[]}`}, true},
		{`[]`, nil, true},
		{`[{"id":"a"}] {"id":"b"}`, nil, false}, // something after the array
		{`[{"id":"a"}`, nil, false},             // not closed
		{`[{"id":"{{seq"}]`, nil, false},        // a template not closed
	}
	for _, tc := range tests {
		got, ok := splitArray(tc.in)
		if ok != tc.ok || tc.ok && !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
