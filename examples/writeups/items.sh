#!/bin/sh
# Write-up (e): the item service over HTTP, HTTPS, gRPC and gRPC over TLS, side by side, then the
# counter contention table. Run it from anywhere, with rpcbench on your PATH:
#
#   examples/writeups/items.sh [RUN-DIRECTORY]                # about 6 minutes
#
# Its results: RUN-DIRECTORY/http and RUN-DIRECTORY/grpc (the two plans' run directories),
# RUN-DIRECTORY/transports.md (the four transports compared with HTTP: maximum throughput at 100
# connections, then reads at a fixed 2,000/s; the 10,000-item preload, outside both, is timed in
# each plan's report, section preload), RUN-DIRECTORY/grpc/ghz.grpc.out and ghz.grpcs.out (the
# write-up's ghz run through `rpcbench ghz`: ghz's summary, histogram and latency distribution)
# and RUN-DIRECTORY/contention.txt. ITERATIONS sets the adds per goroutine of the contention table.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-items-$(date +%Y%m%d-%H%M%S)}
iterations=${ITERATIONS:-100000}
status=0
rpcbench bench --quiet --format markdown --out-dir "$out/http" "$here/items-http.yaml" > /dev/null || status=$?
rpcbench bench --quiet --format markdown --out-dir "$out/grpc" "$here/items-grpc.yaml" > /dev/null || status=$?
# the four transports side by side, each against HTTP: first the headline, the maximum throughput
# at 100 connections (scenario max), then the reads at a fixed 2,000/s (scenario read)
transports() {
  rpcbench report --format markdown --label HTTP --label HTTPS --label gRPC --label 'gRPC+TLS' \
    "$out/http/$1.http.rb" "$out/http/$1.https.rb" "$out/grpc/$1.grpc.rb" "$out/grpc/$1.grpcs.rb"
}
{
  printf '# Maximum throughput at 100 connections\n\n'
  transports max
  printf '\n# Reads at a fixed 2,000/s\n\n'
  transports read
} | tee "$out/transports.md"
rpcbench contention --goroutines 500 --iterations "$iterations" --shards 500 | tee "$out/contention.txt"
exit "$status"
