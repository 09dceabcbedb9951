package grpcx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzFromProto compiles fuzzed .proto sources: a bad one is an error that names the file (with
// its line and column, as protocompile reports them), never a panic or a hang; a good one resolves
// the methods it declares.
func FuzzFromProto(f *testing.F) {
	f.Add(`syntax = "proto3"; package p; message M { string id = 1; } service S { rpc Get(M) returns (M); }`)
	f.Add(`syntax = "proto3"; package p; service S { rpc Get(M) returns (M); }`)
	f.Add(`syntax = "proto2"; message M { required int32 a = 1; }`)
	f.Add(`syntax = "proto3"; import "missing.proto"; message M {}`)
	f.Add("syntax = \"proto3\";\nmessage M {\n  string id = 1\n}\n")
	f.Add(``)
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.proto"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := FromProto(ctx, []string{dir}, "f.proto")
		if err != nil {
			if !strings.Contains(err.Error(), "proto") {
				t.Errorf("error %q names no file", err)
			}
			return
		}
		svcs, err := r.Services(ctx)
		if err != nil {
			t.Errorf("compiled, but Services: %v", err)
		}
		_ = svcs
	})
}
