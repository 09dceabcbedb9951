package plan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTargets writes t in format (TargetsHTTP or TargetsJSON) so that ReadTargets reads it back
// equal. The text format keeps bodies in files: saveBody stores entry i's body and returns the
// path to write after "@" (relative to the target file's directory); it is not called for the JSON
// format, which holds bodies in base64.
func WriteTargets(w io.Writer, t *Targets, format string, saveBody func(i int, body []byte) (string, error)) error {
	bw := bufio.NewWriter(w)
	for i, e := range t.Entries {
		var err error
		switch format {
		case TargetsHTTP:
			err = writeHTTPEntry(bw, i, e, saveBody)
		case TargetsJSON:
			err = writeJSONEntry(bw, e)
		default:
			return fmt.Errorf("plan: target format %q: want http or json", format)
		}
		if err != nil {
			return fmt.Errorf("plan: writing target %d: %w", i+1, err)
		}
	}
	return bw.Flush()
}

func writeHTTPEntry(w *bufio.Writer, i int, e Endpoint, saveBody func(int, []byte) (string, error)) error {
	if i > 0 {
		w.WriteString("\n")
	}
	if e.Name != "" {
		if strings.ContainsAny(e.Name, "\r\n") || strings.TrimSpace(e.Name) != e.Name {
			return fmt.Errorf("name %q cannot be written on one comment line", e.Name)
		}
		fmt.Fprintf(w, "# name: %s\n", e.Name)
	}
	if e.Weight != 0 {
		fmt.Fprintf(w, "# weight: %s\n", strconv.FormatFloat(e.Weight, 'g', -1, 64))
	}
	method := e.Method
	if method == "" {
		method = "GET"
	}
	fmt.Fprintf(w, "%s %s\n", method, e.URL)
	for _, h := range e.Header {
		if strings.TrimSpace(h.Value) != h.Value {
			return fmt.Errorf("header %s: the text format cannot keep spaces around a value", h.Name)
		}
		fmt.Fprintf(w, "%s: %s\n", h.Name, h.Value)
	}
	if e.Body != nil {
		if saveBody == nil {
			return fmt.Errorf("the text format keeps bodies in files, and no place to save them was given")
		}
		ref, err := saveBody(i, e.Body)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "@%s\n", ref)
	}
	return nil
}

func writeJSONEntry(w *bufio.Writer, e Endpoint) error {
	jt := jsonTarget{Name: e.Name, Weight: e.Weight, Method: e.Method, URL: e.URL, Body: e.Body}
	if jt.Method == "" {
		jt.Method = "GET"
	}
	if len(e.Header) > 0 {
		jt.Header = map[string][]string{}
		for _, h := range e.Header {
			jt.Header[h.Name] = append(jt.Header[h.Name], h.Value)
		}
	}
	b, err := json.Marshal(jt)
	if err != nil {
		return err
	}
	w.Write(b)
	w.WriteString("\n")
	return nil
}
