package plan

import (
	"fmt"
	"regexp"
	"strings"
)

// ghzAction is one template action: {{ … }}, its words.
var ghzAction = regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`)

// FromGHZTemplate rewrites a request body written with ghz's template data and functions into
// rpcbench's templates, for the gRPC method call ("package.Service/Method"):
//
//	{{.RequestNumber}}        {{seq}}        the request's number, from 0
//	{{.TimestampUnix}}        {{nowUnix}}    Unix seconds
//	{{.TimestampUnixMilli}}   {{now}}        Unix milliseconds
//	{{.Timestamp}}            {{nowRFC3339}} RFC 3339
//	{{newUUID}}               {{uuid}}       a random UUID
//	{{randomString N}}        {{randString N}}
//	{{randomInt MIN MAX}}     {{randInt MIN MAX}}
//	{{.FullyQualifiedName}}, {{.MethodName}}, {{.ServiceName}}: the call's names, as text
//
// rpcbench's own templates pass through. Any other ghz data ({{.WorkerID}},
// {{.TimestampUnixNano}}, …) is an error that names it.
func FromGHZTemplate(body, call string) (string, error) {
	svc, method, err := SplitGRPCMethod(call)
	if err != nil {
		return "", err
	}
	simple := map[string]string{
		".RequestNumber":      "{{seq}}",
		".TimestampUnix":      "{{nowUnix}}",
		".TimestampUnixMilli": "{{now}}",
		".Timestamp":          "{{nowRFC3339}}",
		"newUUID":             "{{uuid}}",
		".FullyQualifiedName": svc + "." + method,
		".MethodName":         method,
		".ServiceName":        svc,
	}
	var bad error
	out := ghzAction.ReplaceAllStringFunc(body, func(a string) string {
		words := strings.Fields(ghzAction.FindStringSubmatch(a)[1])
		if len(words) == 0 {
			return a
		}
		if r, ok := simple[words[0]]; ok && len(words) == 1 {
			return r
		}
		switch words[0] {
		case "randomString":
			return "{{randString " + strings.Join(words[1:], " ") + "}}"
		case "randomInt":
			return "{{randInt " + strings.Join(words[1:], " ") + "}}"
		}
		if strings.HasPrefix(words[0], ".") && bad == nil {
			bad = fmt.Errorf("template %s: ghz's data here are .RequestNumber, .TimestampUnix, .TimestampUnixMilli, .Timestamp, .FullyQualifiedName, .MethodName and .ServiceName", a)
		}
		return a
	})
	if bad != nil {
		return "", bad
	}
	return out, nil
}
