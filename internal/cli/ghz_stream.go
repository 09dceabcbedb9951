package cli

import (
	"flag"
	"regexp"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// ghzStreamFlags are ghz's flags for streaming calls, with ghz's meaning where rpcbench can honour
// it, and rpcbench's own --stream-rate and --streams.
type ghzStreamFlags struct {
	interval, callDuration time.Duration
	callCount              int
	dynamic                bool
	rate                   rateFlag
	streams                int
	client                 string
}

func (f *ghzStreamFlags) define(fs *flag.FlagSet) {
	fs.Var(durationFlag{&f.interval}, "stream-interval", "client- and bidi-streaming calls: send a call's messages this `DURATION` apart, on a schedule from the call's start")
	fs.IntVar(&f.callCount, "stream-call-count", 0, "client- and bidi-streaming calls send `N` messages, the data's in turn; a server-streaming call ends after N answers (0: the data's messages once, every answer)")
	fs.Var(durationFlag{&f.callDuration}, "stream-call-duration", "client- and bidi-streaming calls send for this `DURATION`, then close their side; a server-streaming call ends after it")
	fs.BoolVar(&f.dynamic, "stream-dynamic-messages", false, "render the data's templates anew for every message of a stream, not once a call")
	fs.Var(&f.rate, "stream-rate", "client- and bidi-streaming calls: send a call's messages at this `RATE` (100/s), as --stream-interval 10ms; a bidi call's answers timed per message")
	fs.IntVar(&f.streams, "streams", 0, "calls one connection carries at once before another opens, up to --connections")
	fs.StringVar(&f.client, "grpc-client", "", "`CLIENT` of unary calls: auto (rpcbench's own HTTP/2 client) or grpc-go, to compare (streaming calls always use grpc-go)")
}

// maxDynamicMessages bounds the messages of a call that --stream-dynamic-messages renders: each
// call renders them all when it starts.
const maxDynamicMessages = 10000

// ghzTimestamp finds rpcbench's templates of the time, into which ghz's {{.Timestamp…}} turn.
var ghzTimestamp = regexp.MustCompile(`\{\{-?\s*now`)

// apply puts the streaming flags into p, whose only endpoint's body is the data as rpcbench's
// template, and refuses what rpcbench cannot do as ghz would.
func (f *ghzStreamFlags) apply(p *plan.Plan) error {
	switch {
	case f.interval > 0 && f.rate.set:
		return usagef("--stream-interval and --stream-rate say the same (--stream-interval 10ms is --stream-rate 100/s): give one")
	case f.callCount < 0:
		return usagef("--stream-call-count %d: want a number of messages, or 0 for the data's", f.callCount)
	case f.streams < 0:
		return usagef("--streams %d: want 1 or more calls a connection, or 0 for no cap", f.streams)
	case checkGRPCClient(f.client) != nil:
		return checkGRPCClient(f.client)
	case f.callDuration > 0 && f.callDuration >= p.HTTP.Timeout:
		return usagef("--stream-call-duration %v: each call's deadline (-t %v) would end the stream first; raise -t above it", f.callDuration, p.HTTP.Timeout)
	}
	p.HTTP.Streams = f.streams
	p.GRPC.Client = f.client
	p.GRPC.StreamRate = f.rate.v
	if f.interval > 0 {
		p.GRPC.StreamRate = float64(time.Second) / float64(f.interval)
	}
	p.GRPC.StreamCount, p.GRPC.StreamDuration = f.callCount, f.callDuration
	if f.dynamic {
		return f.dynamicMessages(p)
	}
	return nil
}

// dynamicMessages makes each message of a stream a template of its own, which rpcbench renders
// when the call starts, so that each gets its own values ({{newUUID}}, {{randomString 8}}, …) as
// with ghz's --stream-dynamic-messages: with --stream-call-count N, the body becomes the N
// messages, the data's in turn. The times are those of the call's start, not of each message's
// send: refused with a paced stream, in which the two differ.
func (f *ghzStreamFlags) dynamicMessages(p *plan.Plan) error {
	body := string(p.Endpoints[0].Body)
	switch {
	case !plan.HasTemplate(body):
		return usagef("--stream-dynamic-messages renders the data anew for every message, and the data has no template ({{…}}) to render: leave it out")
	case ghzTimestamp.MatchString(body) && p.GRPC.StreamRate > 0:
		return usagef("--stream-dynamic-messages with a time template ({{.Timestamp…}}) in a paced stream: rpcbench renders a call's messages when it starts, so each would carry the call's start, not its own send time")
	case f.callCount == 0:
		return nil // each message of the data is a template of its own already
	case f.callCount > maxDynamicMessages:
		return usagef("--stream-dynamic-messages with --stream-call-count %d: rpcbench renders a call's messages when it starts, at most %d", f.callCount, maxDynamicMessages)
	}
	msgs := []string{strings.TrimSpace(body)}
	if strings.HasPrefix(msgs[0], "[") {
		var ok bool
		if msgs, ok = splitArray(msgs[0]); !ok || len(msgs) == 0 {
			return usagef("--stream-dynamic-messages: the data is not an array of messages: want [{…}, {…}]")
		}
	}
	var b strings.Builder
	for i := range f.callCount {
		b.WriteString(msgs[i%len(msgs)])
		b.WriteByte('\n')
	}
	p.Endpoints[0].Body = []byte(b.String())
	p.GRPC.StreamCount = 0 // the body holds the count
	return nil
}

// splitArray splits the JSON array text s — templates ({{…}}) in it taken as they are — into the
// texts of its elements; false when s is not one array.
func splitArray(s string) ([]string, bool) {
	var elems []string
	depth, start, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "{{") {
			end := strings.Index(s[i:], "}}")
			if end < 0 {
				return nil, false
			}
			i += end + 1
			continue
		}
		c := s[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			if depth == 1 {
				start = i + 1
			}
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				if e := strings.TrimSpace(s[start:i]); e != "" || len(elems) > 0 {
					elems = append(elems, e)
				}
				return elems, c == ']' && strings.TrimSpace(s[i+1:]) == ""
			}
		case c == ',' && depth == 1:
			elems = append(elems, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return nil, false
}
