#!/usr/bin/env bash
# Soak: rpcbench at 1,000/s against nginx for an hour (not for CI), its resident set sampled every
# 10 s. Prints the series and whether memory stayed flat: the largest sample of the last quarter of
# the run within 10 % (+1 MB) of the largest of the first quarter (the first tenth, warm-up, left
# out), with the least-squares slope beside it.
#
#   scripts/soak.sh                                  1 h at 1,000/s
#   scripts/soak.sh --duration 300 --rate 2000       shorter, faster
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

duration=3600 rate=1000 interval=10
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; printf 'Options: --duration SECONDS (3600), --rate PER_SECOND (1000), --interval SECONDS (10)\n'; }
while (($#)); do
	case $1 in
	--duration | --rate | --interval)
		[[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -gt 0 ]] || { log "soak.sh: $1 needs a positive whole number"; exit 2; }
		case $1 in --duration) duration=$2 ;; --rate) rate=$2 ;; --interval) interval=$2 ;; esac
		shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) log "soak.sh: unknown argument $1"; usage >&2; exit 2 ;;
	esac
done

bench_init
build_rpcbench
start_nginx
log "soak: rpcbench run --rate $rate --duration ${duration}s against $TARGET_URL, RSS every ${interval}s"
taskset -c "$GEN_CPU" "$RPCBENCH_BIN" run --rate "$rate" --duration "${duration}s" --quiet --format json "$TARGET_URL" >"$WORK/run.json" 2>"$WORK/run.err" &
gen=$!
PIDS+=("$gen")
series=$WORK/rss.tsv
: >"$series"
start=$SECONDS
while kill -0 "$gen" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$gen/status" 2>/dev/null || true)
	[[ -n $rss ]] && printf '%d\t%d\n' "$((SECONDS - start))" "$rss" | tee -a "$series" | awk '{ printf "%6d s  %7.1f MB\n", $1, $2 / 1024 }' >&2
	sleep "$interval"
done
rc=0
wait "$gen" || rc=$?
((rc == 0)) || { cat "$WORK/run.err" >&2; die "rpcbench run failed (status $rc)"; }

printf '# rpcbench %s/s for %s s: resident set every %s s\n\n| s | RSS MB |\n|---:|---:|\n' "$rate" "$duration" "$interval"
awk '{ printf "| %d | %.1f |\n", $1, $2 / 1024 }' "$series"
jq -r '"\nrequests: intended \(.requests.intended), completed \(.requests.completed), errors \(.requests.errors); latency p99 \(.latency_ms.p99) ms"' "$WORK/run.json"
awk '
	{ t[NR] = $1; m[NR] = $2 / 1024 }
	END {
		if (NR < 8) { print "too few samples for a verdict (run longer)"; exit 1 }
		s = int(NR / 10) + 1; n = NR - s + 1; q = int(n / 4); if (q < 1) q = 1
		for (i = s; i < s + q; i++) if (m[i] > first) first = m[i]
		for (i = NR - q + 1; i <= NR; i++) if (m[i] > last) last = m[i]
		for (i = s; i <= NR; i++) { sx += t[i]; sy += m[i]; sxx += t[i] * t[i]; sxy += t[i] * m[i] }
		slope = (n * sxy - sx * sy) / (n * sxx - sx * sx) * 3600
		flat = (last <= first * 1.10 + 1)
		printf "\nfirst quarter max %.1f MB, last quarter max %.1f MB, slope %+.2f MB/h: %s\n", first, last, slope, flat ? "flat" : "NOT flat"
		exit flat ? 0 : 1
	}' "$series"
