#!/usr/bin/env bash
# replay-throughput.sh: what a replay costs the generator, network aside — lines parsed and
# scheduled per CPU-second, and the peak RSS — on a combined access log generated to SIZE MiB
# (default 1024: 1 GiB, about 9.5 million lines). The log goes to a temporary directory (or DIR)
# and is removed after.
#
#   scripts/replay-throughput.sh [SIZE_MIB] [DIR]
set -euo pipefail
size_mib=${1:-1024}
if [ -n "${2:-}" ]; then
	dir=$2
	log="$dir/replay-throughput.log"
	trap 'rm -f "$log"' EXIT
else
	dir=$(mktemp -d)
	log="$dir/replay-throughput.log"
	trap 'rm -rf "$dir"' EXIT
fi
cd "$(dirname "$0")/.."

# A thousand lines a second (the log's times have one-second resolution, as nginx writes them),
# ids in the paths, about 110 bytes a line.
echo "generating $size_mib MiB of access log in $dir" >&2
awk -v max=$((size_mib * 1024 * 1024)) 'BEGIN {
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", mon, " ")
	t = 1709287200; bytes = 0; k = 0
	while (bytes < max) {
		s = t + int(k / 1000)
		line = sprintf("192.0.2.%d - - [%s +0000] \"GET /v0/items/%d?page=%d HTTP/1.1\" 200 %d \"-\" \"curl/8.5.0\"",
			k % 250, strftime("%d/" mon[strftime("%m", s, 1) + 0] "/%Y:%H:%M:%S", s, 1), k % 100000, k % 30, 100 + k % 900)
		print line
		bytes += length(line) + 1
		k++
	}
}' > "$log"
ls -l "$log" >&2
go run ./scripts/replaythroughput "$log"
