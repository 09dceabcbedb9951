package cli

import (
	"flag"
)

// defineRequestLog defines run's --log flag.
func defineRequestLog(fs *flag.FlagSet, path *string) {
	fs.StringVar(path, "log", "", "write a CSV row per measured request to `FILE`: "+
		"id, endpoint, intended, sent, latency_ms, service_ms, status, class (written off the hot path)")
}
