package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// oneIntervalFile is a result file of one interval (2 requests sent, answered OK), what more
// writes after it, and its trailer.
func oneIntervalFile(t *testing.T, more func(*Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Endpoints: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	iv := NewInterval(1)
	iv.End = time.Second
	iv.Endpoints[0].Sent, iv.Endpoints[0].OK, iv.Endpoints[0].Completed = 2, 2, 2
	if err := w.WriteInterval(iv); err != nil {
		t.Fatal(err)
	}
	if err := more(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(Trailer{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// subsFile is a result file of one interval with the subscriptions record subs (none when "").
func subsFile(t *testing.T, subs string) []byte {
	t.Helper()
	return oneIntervalFile(t, func(w *Writer) error {
		if subs == "" {
			return nil
		}
		return w.WriteSubscriptions(json.RawMessage(subs))
	})
}

// The subscriptions record comes back as written; a file without one has none; a merge keeps
// the one file's that had them, and none of two that each had their own.
func TestSubscriptionsRecord(t *testing.T) {
	t.Parallel()
	const subs = `{"request":"eth_subscribe [\"newHeads\"]","opened":2,"messages":40}`
	raw := subsFile(t, subs)
	if !bytes.Contains(raw, []byte(`{"kind":"subscriptions","subscriptions":`+subs+"}\n")) {
		t.Errorf("no subscriptions line in:\n%s", raw)
	}
	f, err := Read(bytes.NewReader(raw), "s.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Subscriptions) != subs || f.CutShort() || f.Total.Endpoints[0].OK != 2 {
		t.Errorf("read %s (cut short %v, %d ok); want %s and the interval", f.Subscriptions, f.CutShort(), f.Total.Endpoints[0].OK, subs)
	}
	plain, err := Read(bytes.NewReader(subsFile(t, "")), "p.rb", nil)
	if err != nil || plain.Subscriptions != nil {
		t.Fatalf("a file without the record: %s, %v", plain.Subscriptions, err)
	}
	if m, err := Merge(plain, f); err != nil || string(m.Subscriptions) != subs {
		t.Errorf("merged with a file without: %s, %v; want the one file's", m.Subscriptions, err)
	}
	other, err := Read(bytes.NewReader(subsFile(t, subs)), "o.rb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Merge(f, other); err != nil || m.Subscriptions != nil {
		t.Errorf("two files with subscriptions merged: %s, %v; want none", m.Subscriptions, err)
	}
}

// A subscriptions record that is not one is an error naming the file and the line.
func TestSubscriptionsRecordBad(t *testing.T) {
	t.Parallel()
	good := string(subsFile(t, `{"opened":1}`))
	line := `{"kind":"subscriptions","subscriptions":{"opened":1}}` + "\n"
	for _, c := range []struct{ name, file, want string }{
		{"two", strings.Replace(good, line, line+line, 1), "s.rb:4: a second subscriptions record"},
		{"no figures", strings.Replace(good, line, `{"kind":"subscriptions"}`+"\n", 1), "s.rb:3: a subscriptions record without its figures"},
		{"an array", strings.Replace(good, line, `{"kind":"subscriptions","subscriptions":[1]}`+"\n", 1), "s.rb:3: a subscriptions record without its figures"},
		{"not JSON", strings.Replace(good, line, `{"kind":"subscriptions","subscriptions":{"opened":}}`+"\n", 1), "s.rb:3:"},
	} {
		if c.file == good {
			t.Fatalf("%s: the file is unchanged", c.name)
		}
		_, err := Read(strings.NewReader(c.file), "s.rb", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
