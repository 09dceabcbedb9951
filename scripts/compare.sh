#!/usr/bin/env bash
# Runs rpcbench and the peers scripts/install.sh installed against the same targets, each generator
# pinned to GEN_CPU and the target to TARGET_CPU, and prints Markdown tables side by side: the
# generator's CPU time (user+sys) and maximum resident set from /usr/bin/time, rates and latency from
# each tool's own output.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	cat <<'USAGE'
Usage: scripts/compare.sh [options]

Scenarios (--scenarios, comma-separated; default closed,rate,memory,grpc,h2c,h3,stall):
  closed   closed loop: C busy connections for D against nginx
  rate     fixed rates (--rates) for D against nginx
  memory   2,000/s against nginx for each of --memory-durations: maximum resident set
  grpc     gRPC unary calls, C in flight: closed loop and each of --grpc-rates, rpcbench and ghz
           against rpcbench serve items (rpz.ItemService/GetItem), and rpcbench, ghz and fortio
           against fortio server's ping service (fgrpc.PingServer/Ping; fortio's gRPC client
           calls nothing else); each on one connection but fortio (C connections, its way)
  h2c      HTTP/2 over cleartext, C streams on one connection, closed loop: rpcbench --h2c,
           h2load and oha --http2 against rpcbench serve items (Go's h2c server)
  h3       HTTP/3 against HTTP/2, C streams on one connection, closed loop: rpcbench --http3 and
           rpcbench (h2 by ALPN) against rpcbench serve items over TLS with --h3-addr, requests
           per CPU-second of each; h2load -c 1 -m C (h2) and h2load --npn-list=h3 beside them,
           when the installed h2load speaks HTTP/3 (Debian's 1.52 is built without QUIC: no row)
  stall    1,000/s against rpcbench serve lab stalling 1 s every 5 s: latency percentiles beside
           the ground truth the stall schedule gives

Options:
  --scenarios LIST         which scenarios (see above)
  --tools LIST             which generators (default: every one found of rpcbench, rpcbench-slack
                           (rpcbench --send-slack 1ms, fixed rates only), rpcbench-grpc-go
                           (rpcbench --grpc-client grpc-go, gRPC only), rpcbench-goroutines
                           (rpcbench --sender goroutines, HTTP/1.1 only), wrk, wrk2, bombardier,
                           oha, fortio, vegeta, hey, k6, ghz)
  --duration D             length of each closed and rate run, in seconds (default 10)
  --rates LIST             rates of the rate scenario, per second (default 2000,5000,20000)
  --grpc-rates LIST        rates of the grpc scenario, per second (default 5000)
  --memory-durations LIST  lengths of the memory runs, in seconds (default 60,600)
  --connections C          connections of every generator (default 50)
  --rounds N               run every tool N times, interleaved; tables show min–max (default 1)
  --quick                  smoke run: 2 s runs, one rate (2000), memory for 5 s, a 4 s stall test
  --doc                    also write the tables into docs/performance.md (between its markers)
  --keep DIR               keep the tools' raw outputs in DIR
  -h, --help               this text

Environment: GEN_CPU (default 0) and TARGET_CPU (default 1) choose the cores; RPCBENCH a binary
to use instead of building ./cmd/rpcbench; RPCBENCH_TOOLS where scripts/install.sh put the peers;
WRK2 a wrk2 binary (wrk2 is in no package registry; without it bombardier is the fixed-rate
reference). h2load is Debian's nghttp2-client.
USAGE
}

scenarios=closed,rate,memory,grpc,h2c,h3,stall
grpc_rates=5000
tools=
duration=10
rates=2000,5000,20000
memdurs=60,600
conns=50
rounds=1
doc=0
keep=
stall_rate=1000 stall_len=1 stall_every=5 stall_dur=10 # seconds
quick=0

need_arg() { [[ $# -ge 2 && -n $2 ]] || { log "compare.sh: $1 needs a value"; usage >&2; exit 2; }; }
while (($#)); do
	case $1 in
	--scenarios) need_arg "$@"; scenarios=$2; shift 2 ;;
	--tools) need_arg "$@"; tools=$2; shift 2 ;;
	--duration) need_arg "$@"; duration=${2%s}; shift 2 ;;
	--rates) need_arg "$@"; rates=$2; shift 2 ;;
	--grpc-rates) need_arg "$@"; grpc_rates=$2; shift 2 ;;
	--memory-durations) need_arg "$@"; memdurs=$2; shift 2 ;;
	--connections) need_arg "$@"; conns=$2; shift 2 ;;
	--rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--doc) doc=1; shift ;;
	--keep) need_arg "$@"; keep=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) log "compare.sh: unknown argument $1"; usage >&2; exit 2 ;;
	esac
done
if ((quick)); then
	duration=2 rates=2000 grpc_rates=2000 memdurs=5 rounds=1
	stall_len=0.5 stall_every=2 stall_dur=4
fi
isnum() { [[ $1 =~ ^[0-9]+$ && $1 -gt 0 ]]; }
for v in "$duration" "$conns" "$rounds" ${rates//,/ } ${grpc_rates//,/ } ${memdurs//,/ }; do
	isnum "$v" || { log "compare.sh: $v is no positive whole number (--duration, --rates, --memory-durations, --connections and --rounds take whole numbers)"; exit 2; }
done
for s in ${scenarios//,/ }; do
	case $s in closed | rate | memory | grpc | h2c | h3 | stall) ;; *) log "compare.sh: unknown scenario $s (closed, rate, memory, grpc, h2c, h3, stall)"; exit 2 ;; esac
done
have jq || die "compare.sh needs jq (scripts/install.sh installs it)"
[[ -x /usr/bin/time ]] || die "compare.sh needs GNU time as /usr/bin/time (scripts/install.sh installs it)"
have taskset || die "compare.sh needs taskset (util-linux)"

bench_init
build_rpcbench
RAW=$WORK/raw
[[ -n $keep ]] && { mkdir -p "$keep"; RAW=$keep; }
mkdir -p "$RAW"
RESULTS=$WORK/results.tsv
: >"$RESULTS"

WRK2_BIN=${WRK2:-$(command -v wrk2 || true)}
tool_path() {
	case $1 in
	rpcbench | rpcbench-slack | rpcbench-grpc-go | rpcbench-goroutines) printf '%s\n' "$RPCBENCH_BIN" ;;
	wrk2) [[ -n $WRK2_BIN && -x $WRK2_BIN ]] && printf '%s\n' "$WRK2_BIN" ;;
	*) command -v "$1" ;;
	esac
}
all_tools=(rpcbench rpcbench-slack rpcbench-grpc-go rpcbench-goroutines wrk wrk2 bombardier oha fortio vegeta hey k6 ghz h2load)
selected=()
tools=${tools//,/ }
for t in ${tools:-${all_tools[*]}}; do
	[[ -z $t ]] && continue
	if tool_path "$t" >/dev/null; then
		selected+=("$t")
	elif [[ -n $tools ]]; then
		log "compare.sh: $t not found (scripts/install.sh installs the peers); left out"
	fi
done
((${#selected[@]})) || die "compare.sh: no generator found"
uses() { local t; for t in "${selected[@]}"; do [[ $t == "$1" ]] && return 0; done; return 1; }

# Helpers written once per run: wrk's Lua report, k6's script, vegeta's target.
cat >"$WORK/report.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
LUA
cat >"$WORK/k6.js" <<'JS'
import http from 'k6/http';
const conns = parseInt(__ENV.CONNS, 10);
export const options = __ENV.MODE === 'closed'
  ? { vus: conns, duration: __ENV.DUR, discardResponseBodies: true }
  : { discardResponseBodies: true, scenarios: { fixed: { executor: 'constant-arrival-rate',
      rate: parseInt(__ENV.RATE, 10), timeUnit: '1s', duration: __ENV.DUR,
      preAllocatedVUs: conns, maxVUs: conns } } };
export default function () { http.get(__ENV.URL); }
JS

# measure NAME LIMIT CMD…: runs CMD on GEN_CPU, stdout to $RAW/NAME.out; leaves "user sys maxrss_kb"
# in $RAW/NAME.time.
measure() {
	local name=$1 limit=$2 rc=0
	shift 2
	log "$name"
	/usr/bin/time -f '%U %S %M' -o "$RAW/$name.time" \
		timeout -k 5 "$limit" taskset -c "$GEN_CPU" "$@" >"$RAW/$name.out" 2>"$RAW/$name.err" </dev/null || rc=$?
	if ((rc)); then
		log "  $(basename "$1") exited with status $rc:"
		tail -n 3 "$RAW/$name.err" | sed 's/^/    /' >&2
	fi
	return 0
}

# run_tool SCENARIO KEY TOOL ROUND MODE RATE DUR URL: one run; appends a line to $RESULTS:
# scenario key tool round answers rate p50 p90 p99 max errors cpu_s rss_kb (latencies in ms).
run_tool() {
	local scen=$1 key=$2 tool=$3 round=$4 mode=$5 rate=$6 dur=$7 url=$8
	local name bin limit fields cpu rss
	name="${scen}-${key// /_}-$tool-$round"
	bin=$(tool_path "$tool")
	limit=$((dur + 60))
	local per=$((conns > 0 ? conns : 1))
	case $tool in
	rpcbench | rpcbench-slack | rpcbench-grpc-go | rpcbench-goroutines)
		# gRPC and h2c: C calls in flight on one connection, as ghz and h2load -c 1 -m C.
		local x=()
		[[ $url == grpc://* ]] && x=(--call "$grpc_call" --body "$grpc_body" --streams "$conns")
		[[ $scen == h2c ]] && x=(--h2c --streams "$conns")
		# h3: h2 (by ALPN) or, with key h3, HTTP/3; C streams on one connection either way.
		[[ $scen == h3 ]] && x=(--insecure --streams "$conns")
		[[ $scen == h3 && $key == h3 ]] && x+=(--http3)
		if [[ $tool == rpcbench-slack ]]; then
			# rpcbench paced as wrk2 paces: one wake-up a millisecond for every arrival due by then
			[[ $mode == closed || $scen == memory ]] && return 0
			x+=(--send-slack 1ms)
		fi
		if [[ $tool == rpcbench-goroutines ]]; then
			# HTTP/1.1 from a goroutine per connection instead of the event loop
			[[ $url == http://* && $scen != h2c && $scen != h3 ]] || return 0
			x+=(--sender goroutines)
		fi
		if [[ $tool == rpcbench-grpc-go ]]; then
			# rpcbench's unary calls on grpc-go instead of its own HTTP/2 client
			[[ $url == grpc://* ]] || return 0
			x+=(--grpc-client grpc-go)
		fi
		if [[ $mode == closed ]]; then
			measure "$name" "$limit" "$bin" run "${x[@]}" --model closed --connections "$conns" --duration "${dur}s" --quiet --format json "$url"
		else
			measure "$name" "$limit" "$bin" run "${x[@]}" --rate "$rate" --connections "$conns" --duration "${dur}s" --quiet --format json "$url"
		fi
		fields=$(jq -r '[.requests.completed, .throughput_rps, .latency_ms.p50, .latency_ms.p90, .latency_ms.p99, .latency_ms.max, .requests.errors] | @tsv' "$RAW/$name.out" 2>/dev/null) ;;
	wrk | wrk2)
		if [[ $tool == wrk ]]; then
			[[ $mode == closed ]] || return 0
			measure "$name" "$limit" "$bin" -t1 -c "$conns" -d "${dur}s" -s "$WORK/report.lua" "$url"
		else
			[[ $mode == closed ]] && return 0
			measure "$name" "$limit" "$bin" -t1 -c "$conns" -d "${dur}s" -R "$rate" -s "$WORK/report.lua" "$url"
		fi
		fields=$(grep '^{' "$RAW/$name.out" | jq -r '[.requests, .requests / (.duration_us / 1e6), .p50_us / 1e3, .p90_us / 1e3, .p99_us / 1e3, .max_us / 1e3, .errors] | @tsv' 2>/dev/null) ;;
	bombardier)
		local r=()
		[[ $mode == closed ]] || r=(-r "$rate")
		measure "$name" "$limit" "$bin" -c "$conns" -d "${dur}s" "${r[@]}" -l -o json -p r "$url"
		fields=$(jq -r '.result | (.req1xx + .req2xx + .req3xx + .req4xx + .req5xx + .others) as $n
			| [$n, $n / .timeTakenSeconds, .latency.percentiles."50" / 1e3, .latency.percentiles."90" / 1e3,
			   .latency.percentiles."99" / 1e3, .latency.max / 1e3,
			   ($n - .req2xx + ((.errors // []) | map(.count) | add // 0))] | @tsv' "$RAW/$name.out" 2>/dev/null) ;;
	oha)
		local q=() oc=$conns
		[[ $mode == closed ]] || q=(-q "$rate")
		[[ $mode == stall ]] && q+=(--latency-correction)
		# h2c: C streams on one connection.
		[[ $scen == h2c ]] && { q+=(--http2 --http2-parallel "$conns"); oc=1; }
		measure "$name" "$limit" "$bin" --no-tui --output-format json -w -c "$oc" -z "${dur}s" "${q[@]}" "$url"
		fields=$(jq -r '((.statusCodeDistribution // {}) | to_entries | map(.value) | add // 0) as $n
			| [$n, .summary.requestsPerSec, .latencyPercentiles.p50 * 1e3, .latencyPercentiles.p90 * 1e3,
			   .latencyPercentiles.p99 * 1e3, .summary.slowest * 1e3,
			   ($n - (.statusCodeDistribution."200" // 0) + ((.errorDistribution // {}) | to_entries | map(.value) | add // 0))] | @tsv' "$RAW/$name.out" 2>/dev/null) ;;
	fortio)
		local qps=0 fg=() u=$url
		[[ $mode == closed ]] || qps=$rate
		# gRPC: fgrpc.PingServer/Ping, C connections with one call in flight each (-s 1).
		[[ $url == grpc://* ]] && { fg=(-grpc -ping -s 1); u=${url#grpc://}; }
		measure "$name" "$limit" "$bin" load -quiet -c "$conns" -t "${dur}s" -qps "$qps" "${fg[@]}" -p "50,90,99" -json "$RAW/$name.json" "$u"
		fields=$(jq -r '.DurationHistogram as $h | def p(x): ($h.Percentiles[] | select(.Percentile == x) | .Value * 1e3);
			[$h.Count, .ActualQPS, p(50), p(90), p(99), $h.Max * 1e3, ($h.Count - (.RetCodes."200" // .RetCodes.OK // .RetCodes.SERVING // 0))] | @tsv' "$RAW/$name.json" 2>/dev/null) ;;
	vegeta)
		printf 'GET %s\n' "$url" >"$WORK/vegeta.txt"
		local rt=(-rate "$rate/1s")
		[[ $mode == closed ]] && rt=(-rate 0 -workers "$conns" -max-workers "$conns")
		measure "$name" "$limit" "$bin" attack -targets "$WORK/vegeta.txt" -duration "${dur}s" "${rt[@]}" -max-connections "$conns" -output "$RAW/$name.bin"
		"$bin" report -type=json "$RAW/$name.bin" >"$RAW/$name.json" 2>/dev/null || true
		fields=$(jq -r '[.requests, .throughput, .latencies."50th" / 1e6, .latencies."90th" / 1e6, .latencies."99th" / 1e6,
			.latencies.max / 1e6, (.requests - (.status_codes."200" // 0))] | @tsv' "$RAW/$name.json" 2>/dev/null)
		rm -f "$RAW/$name.bin" ;;
	hey)
		local hq=()
		[[ $mode == closed ]] || hq=(-q "$(awk -v r="$rate" -v c="$per" 'BEGIN { printf "%g", r / c }')")
		measure "$name" "$limit" "$bin" -c "$conns" -z "${dur}s" "${hq[@]}" "$url"
		fields=$(awk '
			/Requests\/sec:/ { rps = $2 }
			/Slowest:/ { max = $2 * 1000 }
			/% in / { v = $1; gsub(/%/, "", v); p[v] = $3 * 1000 }
			/^Status code distribution:/ { sec = "status"; next }
			/^Error distribution:/ { sec = "error"; next }
			sec == "status" && /^  \[[0-9]+\]/ { n += $2; if ($1 != "[200]") bad += $2 }
			sec == "error" && /^  \[[0-9]+\]/ { v = $1; gsub(/[^0-9]/, "", v); n += v; bad += v }
			END { if (rps != "") printf "%d\t%s\t%s\t%s\t%s\t%s\t%d\n", n, rps, p[50], p[90], p[99], max, bad }' "$RAW/$name.out") ;;
	k6)
		measure "$name" "$limit" env K6_NO_USAGE_REPORT=true "$bin" run --quiet --no-color --summary-export "$RAW/$name.json" \
			--summary-trend-stats 'med,p(90),p(99),max' -e MODE="$mode" -e RATE="$rate" -e DUR="${dur}s" -e CONNS="$conns" -e URL="$url" "$WORK/k6.js"
		fields=$(jq -r '.metrics as $m | $m.http_req_duration as $d
			| [$m.http_reqs.count, $m.http_reqs.rate, $d.med, $d."p(90)", $d."p(99)", $d.max, ($m.http_req_failed.passes // 0)] | @tsv' "$RAW/$name.json" 2>/dev/null) ;;
	ghz)
		local g=()
		[[ $mode == closed ]] || g=(--rps "$rate")
		measure "$name" "$limit" "$bin" --insecure --call "$grpc_call" -d "$grpc_body" \
			-c "$conns" -z "${dur}s" "${g[@]}" -O json "${url#grpc://}"
		fields=$(jq -r 'def p(x): ((.latencyDistribution // [])[] | select(.percentage == x) | .latency / 1e6);
			[.count, .rps, p(50), p(90), p(99), .slowest / 1e6, (.count - (.statusCodeDistribution.OK // 0))] | @tsv' "$RAW/$name.out" 2>/dev/null) ;;
	h2load)
		[[ $mode == closed ]] || return 0
		local hx=()
		[[ $key == h3 ]] && hx=(--npn-list=h3)
		measure "$name" "$limit" "$bin" -c 1 -m "$conns" -D "$dur" "${hx[@]}" "$url"
		# h2load prints no percentiles: count, rate, the slowest request, and failures.
		fields=$(awk '
			function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
			/^finished in/ { rps = $4 }
			/^requests:/ { done = $8; bad = $12 + $14 + $16 }
			/^time for request:/ { max = ms($5) }
			END { if (rps != "") printf "%d\t%s\t-\t-\t-\t%s\t%d\n", done, rps, max, bad }' "$RAW/$name.out") ;;
	*) return 0 ;;
	esac
	read -r cpu rss < <(tail -n 1 "$RAW/$name.time" | awk 'NF == 3 { printf "%.2f %d\n", $1 + $2, $3 }')
	if [[ -z $fields || $fields == *null* ]]; then
		log "  could not read $tool's figures (raw output in $RAW/$name.*)"
		fields=$'-\t-\t-\t-\t-\t-\t-'
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scen" "$key" "$tool" "$round" "$fields" "${cpu:--}" "${rss:--}" >>"$RESULTS"
}

# The ground truth of the stall test: a fraction f = stall/every of the arrivals meets a stall
# (the run lasts a whole number of periods, so this holds whatever the phase), and their waits are
# spread evenly over (0, stall]; the others are answered at once.
stall_truth() {
	awk -v s="$stall_len" -v e="$stall_every" 'BEGIN {
		f = s / e
		split("50 90 99", q, " ")
		for (i = 1; i <= 3; i++) { x = q[i] / 100; v[i] = (x <= 1 - f) ? 0 : s * 1000 * (x - (1 - f)) / f }
		printf "%g\t%g\t%g\t%g\n", v[1], v[2], v[3], s * 1000 }'
}

has_scenario() { [[ ,$scenarios, == *",$1,"* ]]; }
nginx_tools=()
for t in "${selected[@]}"; do [[ $t == ghz || $t == h2load ]] || nginx_tools+=("$t"); done

if has_scenario closed || has_scenario rate || has_scenario memory; then
	start_nginx
	nginx_url=$TARGET_URL
	for ((r = 1; r <= rounds; r++)); do
		if has_scenario closed; then
			for t in "${nginx_tools[@]}"; do run_tool closed closed "$t" "$r" closed 0 "$duration" "$nginx_url"; done
		fi
		if has_scenario rate; then
			for rate in ${rates//,/ }; do
				for t in "${nginx_tools[@]}"; do run_tool rate "$rate" "$t" "$r" rate "$rate" "$duration" "$nginx_url"; done
			done
		fi
	done
	if has_scenario memory; then
		for d in ${memdurs//,/ }; do
			for t in "${nginx_tools[@]}"; do
				[[ $t == wrk ]] && continue
				run_tool memory "$d" "$t" 1 rate 2000 "$d" "$nginx_url"
			done
		done
	fi
	stop_target "$TARGET_PID"
fi

grpc_call= grpc_body=
if has_scenario grpc; then
	# rpcbench and ghz against rpcbench serve items (grpc-go), reading the item "bench".
	start_items
	grpc_call=rpz.ItemService/GetItem grpc_body='{"id":"bench"}'
	curl -fsS -X POST -d '{"id":"bench","name":"bench"}' "${TARGET_URL}rpz/items" >/dev/null 2>&1 ||
		log "could not create the item the gRPC runs read"
	for ((r = 1; r <= rounds; r++)); do
		for t in rpcbench rpcbench-grpc-go ghz; do uses "$t" && run_tool grpc closed "$t" "$r" closed 0 "$duration" "grpc://$GRPC_ADDR"; done
		for rate in ${grpc_rates//,/ }; do
			for t in rpcbench rpcbench-grpc-go ghz; do uses "$t" && run_tool grpc "$rate" "$t" "$r" rate "$rate" "$duration" "grpc://$GRPC_ADDR"; done
		done
	done
	stop_target "$TARGET_PID"
	# rpcbench, ghz and fortio against fortio server's ping service (grpc-go, with reflection).
	if uses fortio; then
		start_fortio_ping
		grpc_call=fgrpc.PingServer/Ping grpc_body='{"seq":1,"ts":1}'
		for ((r = 1; r <= rounds; r++)); do
			for t in rpcbench rpcbench-grpc-go ghz fortio; do uses "$t" && run_tool grpc-ping closed "$t" "$r" closed 0 "$duration" "grpc://$GRPC_ADDR"; done
			for rate in ${grpc_rates//,/ }; do
				for t in rpcbench rpcbench-grpc-go ghz fortio; do uses "$t" && run_tool grpc-ping "$rate" "$t" "$r" rate "$rate" "$duration" "grpc://$GRPC_ADDR"; done
			done
		done
		stop_target "$TARGET_PID"
	fi
fi

if has_scenario h2c; then
	start_items
	curl -fsS -X POST -d '{"id":"bench","name":"bench"}' "${TARGET_URL}rpz/items" >/dev/null 2>&1 ||
		log "could not create the item the h2c runs read"
	for ((r = 1; r <= rounds; r++)); do
		for t in rpcbench h2load oha; do uses "$t" && run_tool h2c closed "$t" "$r" closed 0 "$duration" "${TARGET_URL}rpz/items/bench"; done
	done
	stop_target "$TARGET_PID"
fi

# h2load_h3 URL: whether the installed h2load speaks HTTP/3 to URL (built with QUIC).
h2load_h3() {
	timeout 10 h2load --npn-list=h3 -n 1 -c 1 "$1" 2>/dev/null | grep -q '^requests: 1 total, 1 started, 1 done, 1 succeeded'
}

if has_scenario h3; then
	start_items h3
	curl -fsSk -X POST -d '{"id":"bench","name":"bench"}' "${TARGET_URL}rpz/items" >/dev/null 2>&1 ||
		log "could not create the item the h3 runs read"
	h3url=${TARGET_URL}rpz/items/bench
	h2load_quic=0
	if uses h2load; then
		if h2load_h3 "$h3url"; then h2load_quic=1; else log "h2load $(h2load --version 2>&1 | sed -n 's|.*nghttp2/||p' | head -n 1) does not speak HTTP/3 (built without QUIC): no h2load h3 row"; fi
	fi
	for ((r = 1; r <= rounds; r++)); do
		for key in h2 h3; do
			uses rpcbench && run_tool h3 "$key" rpcbench "$r" closed 0 "$duration" "$h3url"
			if uses h2load && [[ $key == h2 || $h2load_quic == 1 ]]; then run_tool h3 "$key" h2load "$r" closed 0 "$duration" "$h3url"; fi
		done
	done
	stop_target "$TARGET_PID"
fi

if has_scenario stall; then
	# The first stall begins 1 ms after the start, so that every later window of whole periods holds
	# the same share of stall time, whenever it starts.
	start_lab --stall "${stall_len}s" --every "${stall_every}s" --stall-start 1ms
	for ((r = 1; r <= rounds; r++)); do
		for t in "${nginx_tools[@]}"; do
			[[ $t == wrk ]] && continue
			run_tool stall "$stall_rate" "$t" "$r" stall "$stall_rate" "$stall_dur" "$TARGET_URL"
		done
	done
	stop_target "$TARGET_PID"
fi

# Tables. Figures of several rounds show as min–max.
render() { # KIND KEY: rows of RESULTS for it, one per tool, fields joined as ranges
	awk -F '\t' -v scen="$1" -v key="$2" '
	function fmt(x, d) { return (x == "-") ? "-" : sprintf("%." d "f", x) }
	function range(lo, hi, d) { lo = fmt(lo, d); hi = fmt(hi, d); return (lo == hi) ? lo : lo "–" hi }
	$1 == scen && $2 == key {
		t = $3
		if (!(t in seen)) { seen[t] = 1; order[++n] = t }
		# 5 answers, 6 rate, 7-10 latency, 11 errors, 12 cpu, 13 rss KB; 14 answers per CPU-second
		$14 = ($12 == "-" || $5 == "-" || $12 == 0) ? "-" : $5 / $12
		$13 = ($13 == "-") ? "-" : $13 / 1024
		for (i = 5; i <= 14; i++) {
			k = t SUBSEP i
			if (!(k in lo) || ($i != "-" && ($i + 0 < lo[k] || lo[k] == "-"))) lo[k] = $i
			if (!(k in hi) || ($i != "-" && ($i + 0 > hi[k] || hi[k] == "-"))) hi[k] = $i
		}
	}
	END {
		for (j = 1; j <= n; j++) {
			t = order[j]
			printf "%s", t
			split("6:0 14:0 12:2 13:0 7:2 9:2 10:1 11:0 5:0 8:2", c, " ")
			for (i = 1; i <= 10; i++) { split(c[i], a, ":"); printf "\t%s", range(lo[t SUBSEP a[1]], hi[t SUBSEP a[1]], a[2]) }
			printf "\n"
		}
	}' "$RESULTS"
}
# render row: tool rate per-CPU-second cpu rss p50 p99 max errors answers p90

tables() {
	local key rows ok=0
	printf '_Generator on core %s, target on core %s; %s connections; CPU = user+sys seconds of the generator (/usr/bin/time); RSS = its maximum resident set; latency from each tool'"'"'s own report; %s round(s), figures of several rounds as min–max._\n\n' \
		"$GEN_CPU" "$TARGET_CPU" "$conns" "$rounds"
	if has_scenario closed; then
		rows=$(render closed closed)
		if [[ -n $rows ]]; then
			printf '### Closed loop: %s connections for %s s against nginx\n\n' "$conns" "$duration"
			printf '| tool | answers/s | answers per CPU-second | CPU s | max RSS MB | p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n'
			awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $9 }' <<<"$rows" | sort -t '|' -k4,4nr
			printf '\n'
			ok=1
		fi
	fi
	if has_scenario rate; then
		for key in ${rates//,/ }; do
			rows=$(render rate "$key")
			[[ -n $rows ]] || continue
			printf '### Fixed rate: %s/s for %s s against nginx\n\n' "$key" "$duration"
			printf '| tool | achieved/s | CPU s | CPU %% of a core | max RSS MB | p50 ms | p99 ms | max ms | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
			awk -F '\t' -v d="$duration" '
				function pct(s,   a, n) { n = split(s, a, "–"); return (a[1] == "-") ? "-" : (n == 1 ? sprintf("%.0f", 100 * a[1] / d) : sprintf("%.0f–%.0f", 100 * a[1] / d, 100 * a[2] / d)) }
				{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, pct($4), $5, $6, $7, $8, $9 }' <<<"$rows" | sort -t '|' -k4,4n
			printf '\n'
			ok=1
		done
	fi
	if has_scenario memory; then
		for key in ${memdurs//,/ }; do
			rows=$(render memory "$key")
			[[ -n $rows ]] || continue
			printf '### Memory: 2000/s for %s s against nginx\n\n' "$key"
			printf '| tool | max RSS MB | CPU s | achieved/s | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|\n'
			awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $5, $4, $2, $7, $9 }' <<<"$rows" | sort -t '|' -k3,3n
			printf '\n'
			ok=1
		done
	fi
	if has_scenario grpc; then
		local sc title
		for sc in grpc grpc-ping; do
			if [[ $sc == grpc ]]; then
				title="rpz.ItemService/GetItem against rpcbench serve items (grpc-go)"
			else
				title="fgrpc.PingServer/Ping against fortio server (grpc-go)"
			fi
			[[ -n $(render "$sc" closed) ]] || continue
			printf '### gRPC: %s, %s calls in flight, %s s\n\n' "$title" "$conns" "$duration"
			printf '| tool | load | calls/s | calls per CPU-second | CPU s | max RSS MB | p50 ms | p99 ms | errors | off the rate |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
			for key in closed ${grpc_rates//,/ }; do
				rows=$(render "$sc" "$key")
				[[ -n $rows ]] || continue
				# off the rate: answers against rate × duration (the issue's bound is 1 %).
				awk -F '\t' -v k="$key" -v d="$duration" '
					function off(s,   a, n, i, o, lo, hi) {
						if (k == "closed" || s == "-") return ""
						n = split(s, a, "–")
						for (i = 1; i <= n; i++) { o = 100 * (a[i] / (k * d) - 1); if (i == 1 || o < lo) lo = o; if (i == 1 || o > hi) hi = o }
						return (n == 1) ? sprintf("%+.2f %%", lo) : sprintf("%+.2f to %+.2f %%", lo, hi) }
					{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, (k == "closed" ? "closed loop" : k "/s"), $2, $3, $4, $5, $6, $7, $9, off($10) }' <<<"$rows"
			done
			printf '\n'
			ok=1
		done
	fi
	if has_scenario h2c; then
		rows=$(render h2c closed)
		if [[ -n $rows ]]; then
			printf '### h2c: %s streams on one connection for %s s against rpcbench serve items (Go'"'"'s h2c server)\n\n' "$conns" "$duration"
			printf '| tool | requests/s | requests per CPU-second | CPU s | max RSS MB | p50 ms | p99 ms | max ms | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
			awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' <<<"$rows" | sort -t '|' -k4,4nr
			printf '\n'
			ok=1
		fi
	fi
	if has_scenario h3; then
		local any=0
		for key in h2 h3; do [[ -n $(render h3 "$key") ]] && any=1; done
		if ((any)); then
			printf '### HTTP/3 against HTTP/2: %s streams on one connection for %s s against rpcbench serve items (TLS, self-signed; HTTP/3 by quic-go)\n\n' "$conns" "$duration"
			printf '| protocol | tool | requests/s | requests per CPU-second | CPU s | max RSS MB | p50 ms | p99 ms | max ms | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
			for key in h2 h3; do
				awk -F '\t' -v k="$key" '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, $1, $2, $3, $4, $5, $6, $7, $8, $9 }' <<<"$(render h3 "$key")"
			done
			if uses h2load && ((h2load_quic == 0)); then
				printf '\nh2load %s speaks no HTTP/3 (built without QUIC), so it has no h3 row.\n' "$(h2load --version 2>&1 | sed -n 's|.*nghttp2/||p' | head -n 1)"
			fi
			printf '\n'
			ok=1
		fi
	fi
	if has_scenario stall; then
		rows=$(render stall "$stall_rate")
		if [[ -n $rows ]]; then
			local truth
			truth=$(stall_truth)
			printf '### Accuracy: %s/s for %s s against rpcbench serve lab stalling %s s every %s s\n\n' "$stall_rate" "$stall_dur" "$stall_len" "$stall_every"
			printf 'Ground truth from the stall schedule: %s %% of the arrivals meet a stall and wait evenly up to %s s; the others are answered at once (service time ≈ 0).\n\n' \
				"$(awk -v s="$stall_len" -v e="$stall_every" 'BEGIN { printf "%g", 100 * s / e }')" "$stall_len"
			printf '| tool | p50 ms | p90 ms | p99 ms | max ms | achieved/s | errors |\n|---|---:|---:|---:|---:|---:|---:|\n'
			awk -F '\t' '{ printf "| **ground truth** | %s | %s | %s | %s | | |\n", ($1 == 0 ? "≈0" : $1), ($2 == 0 ? "≈0" : $2), ($3 == 0 ? "≈0" : $3), $4 }' <<<"$truth"
			awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $6, $11, $7, $8, $2, $9 }' <<<"$rows"
			printf '\n'
			ok=1
		fi
	fi
	((ok)) || printf 'No figures: no scenario ran.\n'
	ratios
}

# ratio_rows SCEN KEY WHAT LABEL [ME]: one row per peer that ran in the same rounds as ME (rpcbench
# by default): ME's figure over the peer's, round by round, and their median. WHAT is "work" (answers per CPU-second:
# above 1 is rpcbench ahead) or "cpu" (CPU seconds for the same load: below 1 is rpcbench ahead).
ratio_rows() {
	awk -F '\t' -v scen="$1" -v key="$2" -v what="$3" -v label="$4" -v me="${5:-rpcbench}" -v rounds="$rounds" '
	function fig() { if ($12 == "-" || $12 == 0 || $5 == "-" || $5 == 0) return ""; return (what == "cpu") ? $12 / $5 : $5 / $12 }
	$1 == scen && $2 == key && fig() != "" { v[$3, $4] = fig(); if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
	END {
		for (j = 1; j <= n; j++) {
			t = order[j]
			if (t == "rpcbench" || t == "rpcbench-slack" || t == me || t == "rpcbench-goroutines" && me != "rpcbench") continue
			m = 0; line = ""
			for (r = 1; r <= rounds; r++) {
				if (((me, r) in v) && ((t, r) in v) && v[t, r] > 0) {
					x = v[me, r] / v[t, r]; q[++m] = x; line = line sprintf(" | %.2f×", x)
				} else line = line " | –"
			}
			if (m == 0) continue
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (q[b] < q[a]) { x = q[a]; q[a] = q[b]; q[b] = x }
			med = (m % 2) ? q[(m + 1) / 2] : (q[m / 2] + q[m / 2 + 1]) / 2
			printf "| %s | %s%s | %.2f× |\n", (me == "rpcbench") ? label : label " (" me ")", t, line, med
		}
	}' "$RESULTS"
}

# ratios: rpcbench against each peer, round by round (the rounds were interleaved, so a round's
# ratio compares runs made under the same load of the machine).
ratios() {
	local rows="" key r head
	has_scenario closed && rows+=$(ratio_rows closed closed work "closed loop, answers per CPU-second")$'\n'
	if has_scenario rate; then
		for key in ${rates//,/ }; do
			rows+=$(ratio_rows rate "$key" cpu "$key/s, CPU seconds per answer")$'\n'
			rows+=$(ratio_rows rate "$key" cpu "$key/s, CPU seconds per answer" rpcbench-slack)$'\n'
		done
	fi
	if has_scenario grpc; then
		rows+=$(ratio_rows grpc closed work "gRPC closed loop (serve items), calls per CPU-second")$'\n'
		rows+=$(ratio_rows grpc closed work "gRPC closed loop (serve items), calls per CPU-second" rpcbench-grpc-go)$'\n'
		rows+=$(ratio_rows grpc-ping closed work "gRPC closed loop (fortio ping), calls per CPU-second")$'\n'
	fi
	has_scenario h2c && rows+=$(ratio_rows h2c closed work "h2c closed loop, requests per CPU-second")$'\n'
	rows=$(grep -v '^$' <<<"$rows" || true)
	[[ -n $rows ]] || return 0
	printf '### rpcbench against each peer, round by round

'
	printf 'rpcbench'"'"'s figure over the peer'"'"'s in the same round. Answers per CPU-second: above 1× rpcbench does more work per CPU-second. CPU seconds per answer at a fixed rate: below 1× rpcbench spends less.

'
	head='| measure | peer'
	for ((r = 1; r <= rounds; r++)); do head+=" | round $r"; done
	printf '%s | median |
|---|---' "$head"
	for ((r = 1; r <= rounds; r++)); do printf '|---:'; done
	printf '|---:|
%s

' "$rows"
}

versions() {
	local t
	printf -- '- %s\n' "$(rpcbench_version)"
	for t in "${selected[@]}"; do
		case $t in
		rpcbench | rpcbench-slack | rpcbench-grpc-go | rpcbench-goroutines) ;;
		wrk) printf -- '- wrk %s (Debian)\n' "$(wrk -v 2>&1 | awk 'NR == 1 { print $2 }')" ;;
		wrk2) printf -- '- wrk2 (built by hand: %s)\n' "$WRK2_BIN" ;;
		bombardier) printf -- '- bombardier %s\n' "$BOMBARDIER_VERSION" ;;
		oha) printf -- '- oha %s\n' "$OHA_VERSION" ;;
		fortio) printf -- '- fortio %s\n' "$FORTIO_VERSION" ;;
		vegeta) printf -- '- vegeta %s\n' "$VEGETA_VERSION" ;;
		hey) printf -- '- hey %s\n' "$HEY_VERSION" ;;
		k6) printf -- '- k6 %s\n' "$K6_VERSION" ;;
		ghz) if has_scenario grpc; then printf -- '- ghz %s\n' "$GHZ_VERSION"; fi ;;
		h2load) if has_scenario h2c || has_scenario h3; then printf -- '- h2load %s (Debian nghttp2-client)\n' "$(h2load --version 2>&1 | sed -n 's|.*nghttp2/||p' | head -n 1)"; fi ;;
		esac
	done
	if has_scenario closed || has_scenario rate || has_scenario memory; then
		# shellcheck disable=SC2016 # the backquotes are Markdown
		printf -- '- target: nginx %s (one process, `return 200 "ok"`)\n' \
			"$( (nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1) | sed -n 's|.*nginx/||p' | head -n 1)"
	fi
	printf -- '- targets: rpcbench serve items and serve lab from the same checkout'
	if has_scenario grpc && uses fortio; then printf ', fortio server %s (its gRPC ping service)' "$FORTIO_VERSION"; fi
	printf '\n'

}

machine() {
	local cpu
	cpu=$(awk -F ': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
	printf '%s, %s CPUs (%s), %s, %s' "$(date -u '+%Y-%m-%d')" "$(nproc)" "${cpu:-unknown CPU}" "$(uname -sm)" "$(go version 2>/dev/null | awk '{ print $3 }')"
}

report=$WORK/report.md
{
	printf 'Measured %s; load average at the end %s.\n\n' "$(machine)" "$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
	printf '**Caveat:** the figures come from %s cores shared with whatever else ran, one for the generator and one for the target; read ranges, not single figures.\n\n' "$(nproc)"
	versions
	printf '\n'
	tables
} >"$report"
cat "$report"

if ((doc)); then
	docfile=$REPO_DIR/docs/performance.md
	begin='<!-- scripts/compare.sh: begin -->'
	end='<!-- scripts/compare.sh: end -->'
	if ! grep -qF "$begin" "$docfile" || ! grep -qF "$end" "$docfile"; then
		die "compare.sh --doc: $docfile has no lines $begin and $end to write between"
	fi
	awk -v b="$begin" -v e="$end" -v f="$report" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$docfile" >"$WORK/doc.md"
	cat "$WORK/doc.md" >"$docfile"
	log "wrote the tables into $docfile"
fi
