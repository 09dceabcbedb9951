#!/bin/sh
# Write-up (e): the item service over HTTP, HTTPS, gRPC and gRPC over TLS, side by side, then the
# counter contention table. Run it from anywhere, with rpcbench on your PATH:
#
#   examples/writeups/items.sh [RUN-DIRECTORY]                # about 4 minutes
#
# Its results: RUN-DIRECTORY/http and RUN-DIRECTORY/grpc (the two plans' run directories),
# RUN-DIRECTORY/transports.md (the reads over the four transports compared with HTTP) and
# RUN-DIRECTORY/contention.txt. ITERATIONS sets the adds per goroutine of the contention table.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-items-$(date +%Y%m%d-%H%M%S)}
iterations=${ITERATIONS:-100000}
status=0
rpcbench bench --quiet --format markdown --out-dir "$out/http" "$here/items-http.yaml" > /dev/null || status=$?
rpcbench bench --quiet --format markdown --out-dir "$out/grpc" "$here/items-grpc.yaml" > /dev/null || status=$?
rpcbench report --format markdown --label HTTP --label HTTPS --label gRPC --label 'gRPC+TLS' \
  "$out/http/read.http.rb" "$out/http/read.https.rb" "$out/grpc/read.grpc.rb" "$out/grpc/read.grpcs.rb" \
  | tee "$out/transports.md"
rpcbench contention --goroutines 500 --iterations "$iterations" --shards 500 | tee "$out/contention.txt"
exit "$status"
