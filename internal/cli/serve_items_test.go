package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
)

func TestServeItemsFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := []cliCase{
		{"help", []string{"--help"}, ExitOK, []string{"Examples:", "rpcbench serve items --tls", "-grpc-addr", "-no-reflection", "-payload-bytes"}, nil},
		{"negative payload", []string{"--payload-bytes", "-1"}, ExitUsage, nil, []string{"--payload-bytes -1 is out of range"}},
		{"payload not a number", []string{"--payload-bytes", "lots"}, ExitUsage, nil, []string{"-payload-bytes"}},
		{"cert without key", []string{"--cert", garbage}, ExitUsage, nil, []string{"--cert and --key go together"}},
		{"missing cert file", []string{"--cert", missing, "--key", garbage}, ExitUsage, nil, []string{"--cert " + missing, "no such file"}},
		{"garbage cert file", []string{"--cert", garbage, "--key", garbage}, ExitUsage, nil, []string{"--cert " + garbage, "want PEM files"}},
		{"bad grpc addr", []string{"--grpc-addr", "127.0.0.1:notaport"}, ExitCannotStart, nil, []string{"serve items", "gRPC"}},
		{"stray argument", []string{"extra"}, ExitUsage, nil, []string{`unexpected argument "extra"`}},
	}
	runCLICases(t, []string{"serve", "items"}, tests)
}

// TestServeItemsRuns starts `serve items --tls` in-process, uses both services at the addresses it
// printed and stops it.
func TestServeItemsRuns(t *testing.T) {
	t.Parallel()
	lw, stop := startServeKind(t, "items", false, "--tls", "--payload-bytes", "4")
	httpLine, grpcLine := lw.next(t), lw.next(t)
	url, ok := strings.CutPrefix(httpLine, "items listening on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("first line %q; want \"items listening on https://127.0.0.1:PORT …\"", httpLine)
	}
	grpcAddr, ok := strings.CutPrefix(grpcLine, "items listening on grpcs://")
	grpcAddr, _, _ = strings.Cut(grpcAddr, " ")
	if !ok || !strings.HasPrefix(grpcAddr, "127.0.0.1:") {
		t.Fatalf("second line %q; want \"items listening on grpcs://127.0.0.1:PORT …\"", grpcLine)
	}
	if note := lw.next(t); !strings.Contains(note, "self-signed") {
		t.Errorf("third line %q; want a note on the self-signed certificate", note)
	}

	// The test does not get the certificate from the CLI: it skips verification, on loopback only.
	tc := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // a loopback test server
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 10 * time.Second}
	resp, err := c.Post(url+"/rpz/items", "application/json", strings.NewReader(`{"id":"cli","name":"n"}`))
	if err != nil {
		t.Fatal(err)
	}
	var it struct{ ID, Payload string }
	err = json.NewDecoder(resp.Body).Decode(&it)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 201 || it.ID != "cli" || it.Payload != "abcd" {
		t.Errorf("POST over HTTPS: status %d, %+v, %v; want 201, id cli, payload abcd", resp.StatusCode, it, err)
	}

	conn, err := grpc.NewClient("passthrough:///"+grpcAddr, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := rpzpb.NewItemServiceClient(conn).GetItem(ctx, &rpzpb.GetItemRequest{Id: "cli"})
	if err != nil || got.GetName() != "n" || len(got.GetPayload()) != 4 {
		t.Errorf("gRPC GetItem(cli) = %v, %v; want name n and 4 bytes of payload", got, err)
	}
	conn.Close()
	if err := stop(); err != nil {
		t.Errorf("run after cancel: %v; want nil (clean shutdown)", err)
	}
}
