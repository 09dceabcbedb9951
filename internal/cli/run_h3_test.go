package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/internal/faults"
	"github.com/rpcbench/rpcbench/serve/items"
	"github.com/rpcbench/rpcbench/summary"
)

// itemsCA writes the certificate of items server s to a file for --cacert and returns its path.
func itemsCA(t *testing.T, s *items.Server) string {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return ca
}

// TestRunHTTP3Items creates 30 items over HTTP/3 with --cacert: the store holds 30, the report
// counts 30 answers 201 over h3 connections, QUIC v1; without the CA the handshakes fail with
// class tls, and --insecure gets through.
func TestRunHTTP3Items(t *testing.T) {
	s := startItems(t, items.Config{H3Addr: "127.0.0.1:0"})
	url := "https://" + s.H3Addr() + "/rpz/items"
	body := `{"id":"i{{seq}}","name":"n"}`
	r := runJSON(t, "run", "--http3", "--cacert", itemsCA(t, s), "--requests", "30", "--connections", "3", "-X", "POST", "--body", body, url)
	if s.Len() != 30 || r.Requests.Sent != 30 || r.Requests.OK != 30 || r.Status["201"] != 30 || len(r.Errors) != 0 {
		t.Errorf("store holds %d; report: sent %d, ok %d, status %v, errors %v; want 30 created, all 201", s.Len(), r.Requests.Sent, r.Requests.OK, r.Status, r.Errors)
	}
	c := r.Connections
	if c.Protocols["h3"] != c.Opened || c.Opened == 0 || c.QUIC == nil || c.QUIC.Versions["v1"] != c.Opened || c.TLS == nil || c.Connect != nil {
		t.Errorf("connections %+v, QUIC %+v: want every one h3, QUIC v1, with a handshake time and no TCP connect", c, c.QUIC)
	}
	if c.QUIC != nil && (c.QUIC.Sent == 0 || c.QUIC.Received == 0) {
		t.Errorf("QUIC packets %+v: want the packets of 30 requests counted", c.QUIC.QUICPackets)
	}
	if r.Config.Protocol != "h3" {
		t.Errorf("the report's plan speaks %q, want h3", r.Config.Protocol)
	}

	refused := reportOf(t, "run", "--http3", "--requests", "2", "--connections", "1", "--format", "json", "--quiet", url+"/i1")
	if refused.Errors["tls"] != 2 || refused.Requests.Unsent != 2 || refused.Connections.Failed != 2 {
		t.Errorf("without the CA: errors %v, unsent %d, connections failed %d; want 2 tls, both unsent, 2 failed", refused.Errors, refused.Requests.Unsent, refused.Connections.Failed)
	}
	insecure := runJSON(t, "run", "--http3", "--insecure", "--requests", "2", "--connections", "1", url+"/i1")
	if insecure.Requests.OK != 2 || insecure.Status["200"] != 2 {
		t.Errorf("--insecure: ok %d, status %v; want 2 answers 200", insecure.Requests.OK, insecure.Status)
	}
}

// TestRunHTTP3Auto: --http3=auto speaks h3 to the port the Alt-Svc of items names, and HTTP/2
// to items that offers none; it says which on stderr.
func TestRunHTTP3Auto(t *testing.T) {
	with := startItems(t, items.Config{H3Addr: "127.0.0.1:0"})
	if err := with.Put("a", "x"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := mainOut("run", "--http3=auto", "--cacert", itemsCA(t, with), "--requests", "5", "--connections", "1", "--format", "json", "--quiet", with.URL()+"/rpz/items/a")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeSummary(t, stdout)
	if want := "this run speaks HTTP/3 (h3) to " + with.H3Addr() + " over UDP"; !strings.Contains(stderr, want) || r.Connections.Protocols["h3"] != 1 || r.Requests.OK != 5 {
		t.Errorf("stderr %q (want %q), protocols %v, ok %d; want 5 answers over one h3 connection", stderr, want, r.Connections.Protocols, r.Requests.OK)
	}

	without := startItems(t, items.Config{TLS: true})
	if err := without.Put("a", "x"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = mainOut("run", "--http3=auto", "--cacert", itemsCA(t, without), "--requests", "5", "--connections", "1", "--format", "json", "--quiet", without.URL()+"/rpz/items/a")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r = decodeSummary(t, stdout)
	if want := "offers no h3 (Alt-Svc: none)"; !strings.Contains(stderr, want) || r.Connections.Protocols["h2"] != 1 || r.Requests.OK != 5 {
		t.Errorf("stderr %q (want %q), protocols %v, ok %d; want 5 answers over one h2 connection", stderr, want, r.Connections.Protocols, r.Requests.OK)
	}
}

func TestParseAltSvcH3(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{`h3=":443"; ma=3600, h2=":443"`, ":443", ""},
		{`h2=":1", h3="alt.test:8443"`, "alt.test:8443", ""},
		{`h3-29=":443"`, "", ""}, // a draft version is not h3
		{`clear`, "", ""},
		{``, "", ""},
		{`h3=443`, "", "not a quoted authority"},
	} {
		got, err := parseAltSvcH3(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseAltSvcH3(%q) = %q, %v; want %q, error %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestRunHTTP3Usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http3", "--h2c", "https://127.0.0.1:1/"}, "--http3 and --h2c: give one of them"},
		{[]string{"--http3", "--http1", "https://127.0.0.1:1/"}, "--http3 and --http1: give one of them"},
		{[]string{"--http3=maybe", "https://127.0.0.1:1/"}, `want --http3 (always), --http3=auto`},
		{[]string{"--http3=auto", "http://127.0.0.1:1/"}, `--http3=auto: it probes the https:// origin of the URLs; "http://127.0.0.1:1/" has none`},
		{[]string{"--http3", "http://127.0.0.1:1/"}, "protocol h3 does not carry http:// URLs"},
	} {
		code, _, stderr := mainOut(append([]string{"run", "--requests", "1"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

func decodeSummary(t *testing.T, stdout string) *summary.Summary {
	t.Helper()
	var s summary.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, stdout)
	}
	return &s
}

// JSON-RPC over HTTP/3 is judged as over HTTP/1.1 and HTTP/2: a method's error answers are
// status failures by code, an answer with another id a protocol error, every id sent once.
func TestRunJSONRPCOverHTTP3(t *testing.T) {
	node := &rpcNode{}
	addr := faults.NewH3(t, 0, node).Addr
	calls := writeFile(t, t.TempDir(), "calls.jsonl", `{"method":"eth_blockNumber"}
{"method":"eth_fail","params":[],"name":"bad"}
{"method":"eth_wrongid","params":{"a":1}}
`)
	code, s, stderr := rpcRun(t, "run", "--http3", "--insecure", "--calls", calls, "--requests", "30", "--connections", "3", "https://"+addr+"/")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if len(s.Endpoints) != 3 || s.Requests.Sent != 30 || s.Connections.Protocols["h3"] == 0 {
		t.Fatalf("endpoints %d, sent %d, protocols %v; want 3 methods, 30 sent, over h3", len(s.Endpoints), s.Requests.Sent, s.Connections.Protocols)
	}
	ok, bad, wrong := s.Endpoints[0], s.Endpoints[1], s.Endpoints[2]
	if ok.Requests.OK != ok.Requests.Sent || ok.Requests.Sent < 9 {
		t.Errorf("eth_blockNumber: sent %d, ok %d; want about 10, all ok", ok.Requests.Sent, ok.Requests.OK)
	}
	if got := failures(bad.Stats); len(got) != 1 || got["status: jsonrpc -32601 Method not found"] != bad.Requests.Sent || bad.Requests.Sent < 9 {
		t.Errorf("bad: failures %v; want all %d as jsonrpc -32601", got, bad.Requests.Sent)
	}
	if got := failures(wrong.Stats)["protocol: jsonrpc: answer id does not match the request"]; got != wrong.Requests.Sent || got < 9 {
		t.Errorf("wrong id: failures %v; want all %d as protocol errors", failures(wrong.Stats), wrong.Requests.Sent)
	}
	if n, repeated := node.uniqueIDs(); n != 30 || repeated {
		t.Errorf("server saw %d ids, repeated %v; want 30 unique", n, repeated)
	}
}

// TestRunHTTP3ServerStopsAnswering: one connection, requests one after another; the server
// answers 12, then drops every packet. The 2 requests after are sent on the open connection and
// time out; ok + failed = sent + unsent. A server that drops UDP from the start is met as
// handshakes without an answer: class quic-handshake, not sent; one after another, each tries its
// own connection.
//
// The timeout bounds the first request's QUIC handshake too: 1 s, not less, so that a handshake
// slowed by the race detector on a busy machine is not taken for the server's silence (at 150 ms
// one was, at a load average of 25). Each request after the 12th waits it out, hence only 2.
func TestRunHTTP3ServerStopsAnswering(t *testing.T) {
	addr := faults.NewH3(t, 12, nil).Addr
	r := reportOf(t, "run", "--http3", "--insecure", "--requests", "14", "--connections", "1", "--timeout", "1s", "--format", "json", "--quiet", "https://"+addr+"/")
	q := r.Requests
	if q.OK != 12 || r.Errors["timeout"] != 2 || len(r.Errors) != 1 || q.Sent != 14 || q.Unsent != 0 || q.OK+q.Errors != q.Sent+q.Unsent {
		t.Errorf("ok %d, errors %v (%d), sent %d, unsent %d; want 12 ok, then 2 timeouts, all sent, ok+failed = sent+unsent", q.OK, r.Errors, q.Errors, q.Sent, q.Unsent)
	}
	if r.Connections.Opened != 1 {
		t.Errorf("%d connections opened; want the requests after the silence on the one open connection", r.Connections.Opened)
	}

	dropping := faults.NewH3(t, 0, nil)
	dropping.Drop()
	r = reportOf(t, "run", "--http3", "--insecure", "--requests", "4", "--connections", "1", "--connect-timeout", "150ms", "--format", "json", "--quiet", "https://"+dropping.Addr+"/")
	q = r.Requests
	if r.Errors["quic-handshake"] != 4 || q.Unsent != 4 || q.Sent != 0 || q.OK+q.Errors != q.Sent+q.Unsent || r.Connections.Failed != 4 {
		t.Errorf("errors %v, sent %d, unsent %d, connections failed %d; want 4 quic-handshake, unsent, 4 connections failed", r.Errors, q.Sent, q.Unsent, r.Connections.Failed)
	}
	found := false
	for _, m := range r.ErrorMessages {
		found = found || m.Class == "quic-handshake" && m.Count == 4 && strings.Contains(m.Message, "QUIC handshake with ADDR got no answer within")
	}
	if !found || len(r.ErrorMessages) != 1 {
		t.Errorf("messages %+v: want the quic-handshake failure named once, 4 times", r.ErrorMessages)
	}
}
