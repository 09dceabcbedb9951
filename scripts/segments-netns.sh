#!/usr/bin/env bash
# Runs one plan split in execution segments, each generator in a network namespace of its own (its
# own TCP stack, ports and loopback), against a target in another namespace reached over veth links
# on one bridge; merges the segments and checks that intended, sent and completed equal those of
# the plan's schedule. Everything it makes it removes on exit.
#
#   scripts/segments-netns.sh            4 generators, 2000/s for 3 s (6000 arrivals)
#   N=8 RATE=4000 scripts/segments-netns.sh
#
# It needs to make network namespaces (root, or CAP_NET_ADMIN, and `ip netns`). Where they cannot
# be made (an unprivileged container, a CI runner) it says so and exits 0: SKIPPED, nothing proved.
#
# Exit codes: 0 the merged counts equal the schedule (or skipped); 1 they do not; 2 a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

n=${N:-4}
rate=${RATE:-2000}
secs=3
want=$((rate * secs))
tag=rbseg$$
target=${tag}t
work=$(mktemp -d)
made=()

cleanup() {
  [[ -n ${srv_pid:-} ]] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! ip netns add "$target" 2>"$work/err"; then
  echo "segments-netns: SKIPPED: cannot make a network namespace here ($(cat "$work/err")); run it as root on a Linux host" >&2
  exit 0
fi
made+=("$target")

go build -o "$work/rpcbench" ./cmd/rpcbench || exit 2
rb=$work/rpcbench

# the target's namespace: a bridge at 10.77.0.1 that every generator's link joins
ip -n "$target" link set lo up &&
  ip -n "$target" link add br0 type bridge &&
  ip -n "$target" addr add 10.77.0.1/24 dev br0 &&
  ip -n "$target" link set br0 up || exit 2
for k in $(seq 1 "$n"); do
  ns=${tag}g$k
  ip netns add "$ns" || exit 2
  made+=("$ns")
  ip link add "${tag}a$k" netns "$ns" type veth peer name "${tag}b$k" netns "$target" &&
    ip -n "$ns" link set lo up &&
    ip -n "$ns" addr add "10.77.0.$((k + 1))/24" dev "${tag}a$k" &&
    ip -n "$ns" link set "${tag}a$k" up &&
    ip -n "$target" link set "${tag}b$k" master br0 &&
    ip -n "$target" link set "${tag}b$k" up || exit 2
done

ip netns exec "$target" "$rb" serve lab --addr 10.77.0.1:8084 >"$work/serve.log" 2>&1 &
srv_pid=$!
for _ in $(seq 50); do
  grep -q 8084 "$work/serve.log" && break
  sleep 0.1
done

at=$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%S.%NZ)
pids=()
for k in $(seq 1 "$n"); do
  ip netns exec "${tag}g$k" "$rb" run --quiet --segment "$k/$n" --start-at "$at" --rate "$rate" --duration "${secs}s" \
    --out "$work/seg-$k.rb" http://10.77.0.1:8084/get >"$work/run-$k.txt" 2>&1 &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
if ((failed)); then
  cat "$work"/run-*.txt >&2
  echo "segments-netns: a generator failed" >&2
  exit 2
fi

"$rb" report --merge "$work"/seg-*.rb || exit 2
"$rb" report --merge --format json "$work"/seg-*.rb >"$work/merged.json" || exit 2
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["requests"]; print(r["intended"], r["sent"], r["completed"])' "$work/merged.json")
if [[ $got != "$want $want $want" ]]; then
  echo "segments-netns: merged intended, sent, completed = $got; want $want each" >&2
  exit 1
fi
echo "segments-netns: $n generators in their own network namespaces: intended, sent and completed $want each, as planned"
