package plan

import (
	"io"
	"strings"
	"testing"
)

func TestReadData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		cols     []string
		rows     [][]string
	}{
		{"csv", "user_id,name\nu1,ann\nu2,\"bob, jr\"\n", []string{"user_id", "name"}, [][]string{{"u1", "ann"}, {"u2", "bob, jr"}}},
		{"csv with BOM and CRLF", "\ufeffid\r\n7\r\n", []string{"id"}, [][]string{{"7"}}},
		{"json lines", "{\"id\": 1, \"name\": \"ann\"}\n\n{\"name\": \"bob\", \"id\": 2.5, \"tags\": [1, 2], \"x\": null}\n",
			[]string{"id", "name", "tags", "x"}, [][]string{{"1", "ann", "", ""}, {"2.5", "bob", "[1,2]", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ReadData("users", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(d.Columns, "|") != strings.Join(tt.cols, "|") {
				t.Errorf("columns: got %q; want %q", d.Columns, tt.cols)
			}
			if d.Len() != len(tt.rows) {
				t.Fatalf("rows: got %d; want %d", d.Len(), len(tt.rows))
			}
			for i, row := range tt.rows {
				for j, want := range row {
					if got := d.Value(i, j); got != want {
						t.Errorf("row %d column %s: got %q; want %q", i, tt.cols[j], got, want)
					}
				}
			}
		})
	}
}

func TestReadDataErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", "users.csv: empty data file"},
		{"header only", "id\n", "users.csv: no rows"},
		{"field count", "a,b\n1,2\n3\n", "users.csv:3: want 2 fields"},
		{"bad quote", "a\n\"x\n", "users.csv:2"},
		{"duplicate column", "a,a\n1,2\n", `column "a" is named twice`},
		{"spaces in name", "user id\n1\n", `column name "user id"`},
		{"json not an object", "{\"a\":1}\n[1]\n", "users.csv:2: want a JSON object"},
		{"json trailing", "{\"a\":1} {\"a\":2}\n", "users.csv:1: want one JSON object per line"},
		{"json broken", "{\"a\":\n", "users.csv:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadData("users.csv", strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadData(%q): got %v; want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

func FuzzReadData(f *testing.F) {
	for _, s := range []string{"id,name\n1,a\n", "{\"id\":1}\n{\"id\":\"x\"}\n", "a\n\"b\"\"c\"\n", "{", "\ufeff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadData("f", strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "plan: f") {
				t.Fatalf("ReadData(%q): got error %q; want it to start with the file's name", s, err)
			}
			return
		}
		if d.Len() == 0 || len(d.Columns) == 0 {
			t.Fatalf("ReadData(%q): got %d rows of %d columns and no error; want some of each", s, d.Len(), len(d.Columns))
		}
		for i := range d.Len() {
			for j := range d.Columns {
				_ = d.Value(i, j)
			}
		}
	})
}

// TestDataEndlessLine: a source without line ends (say /dev/zero) is refused after one long line,
// not read until memory runs out.
func TestDataEndlessLine(t *testing.T) {
	t.Parallel()
	for _, start := range []string{"", "id\n", "{\"id\":1}\n"} {
		r := io.MultiReader(strings.NewReader(start), zeros{})
		_, err := ReadData("zero", r)
		if err == nil || !strings.Contains(err.Error(), "zero:") || !strings.Contains(err.Error(), "is longer than 16 MiB") {
			t.Errorf("after %q: got %v; want a line too long, naming the file", start, err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
