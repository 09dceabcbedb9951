package plan

import (
	"strings"
	"testing"
)

func TestFromGHZTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{`{"id":"{{.RequestNumber}}"}`, `{"id":"{{seq}}"}`, ""},
		{`{{.TimestampUnix}} {{ .TimestampUnixMilli }} {{.Timestamp}}`, `{{nowUnix}} {{now}} {{nowRFC3339}}`, ""},
		{`{{newUUID}}`, `{{uuid}}`, ""},
		{`{{randomString 8}}-{{randomInt 1 10}}`, `{{randString 8}}-{{randInt 1 10}}`, ""},
		{`{{.FullyQualifiedName}} {{.ServiceName}} {{.MethodName}}`, `rpz.ItemService.CreateItem rpz.ItemService CreateItem`, ""}, // text, not templates
		{`{"id":"{{randInt 0 9}}","n":"{{seq}}"}`, `{"id":"{{randInt 0 9}}","n":"{{seq}}"}`, ""},                                  // rpcbench's own pass
		{`{"id":"abc","name":"Name"}`, `{"id":"abc","name":"Name"}`, ""},
		{`{{.WorkerID}}`, "", "template {{.WorkerID}}: ghz's data here are .RequestNumber"},
	}
	for _, tt := range tests {
		got, err := FromGHZTemplate(tt.in, "rpz.ItemService/CreateItem")
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("FromGHZTemplate(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}
