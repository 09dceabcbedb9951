# shellcheck shell=bash disable=SC2034 # the variables set here are read by the scripts that source it
# Shared by the comparison scripts (compare.sh, install.sh, soak.sh): where the peers live, how to build rpcbench, and the targets
# (nginx, rpcbench serve lab, rpcbench serve items) started on 127.0.0.1 and stopped on exit.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
TOOLS=${RPCBENCH_TOOLS:-$BENCH_DIR/.tools}
export PATH="$TOOLS/bin:$PATH"

# Pinned versions of the peers (see scripts/README.md for why these).
VEGETA_VERSION=v12.12.0
BOMBARDIER_VERSION=v1.2.6
FORTIO_VERSION=v1.68.2
GHZ_VERSION=v0.93.0
HEY_VERSION=v0.1.5
K6_VERSION=v1.8.1
OHA_VERSION=1.16.0

log() { printf '%s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# Cores: the generator runs on GEN_CPU, the target on TARGET_CPU.
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}

WORK=
PIDS=()

# bench_init makes the run's temporary directory and stops every target on exit.
bench_init() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpcbench-bench.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

bench_cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	PIDS=()
	[[ -n $WORK && -d $WORK ]] && rm -rf "$WORK"
	return 0
}

# stop_target PID stops one target started by a start_ function.
stop_target() {
	local p=$1 rest=() q
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	for q in "${PIDS[@]}"; do [[ $q == "$p" ]] || rest+=("$q"); done
	PIDS=("${rest[@]}")
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port: a port below the kernel's ephemeral range (32768 and up by default), where no outgoing
# connection of the generators can hold it between the check and the target's bind.
free_port() {
	local p i lo=32768
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	((lo > 12000)) || lo=32768
	for ((i = 0; i < 200; i++)); do
		p=$((10000 + RANDOM % (lo - 10000)))
		port_open "$p" || { printf '%s\n' "$p"; return 0; }
	done
	die "no free port on 127.0.0.1"
}

# wait_port PORT PID LOG: until PORT accepts connections (10 s at most) while PID lives.
wait_port() {
	local i
	for ((i = 0; i < 200; i++)); do
		port_open "$1" && return 0
		kill -0 "$2" 2>/dev/null || { cat "$3" >&2; die "target exited before listening on 127.0.0.1:$1"; }
		sleep 0.05
	done
	cat "$3" >&2
	die "target not listening on 127.0.0.1:$1 after 10 s"
}

# build_rpcbench builds rpcbench from this checkout into $WORK (or uses $RPCBENCH if set).
build_rpcbench() {
	if [[ -n ${RPCBENCH:-} ]]; then
		RPCBENCH_BIN=$RPCBENCH
		return 0
	fi
	RPCBENCH_BIN=$WORK/rpcbench
	(cd "$REPO_DIR" && go build -o "$RPCBENCH_BIN" ./cmd/rpcbench) || die "go build ./cmd/rpcbench failed"
}

# rpcbench_version: the checkout's commit, "+changes" when its Go code differs from that commit;
# with $RPCBENCH, that binary's own version and its path (it need not be this checkout's).
rpcbench_version() {
	local v
	if [[ -n ${RPCBENCH:-} ]]; then
		v=$("$RPCBENCH" version 2>/dev/null | head -n1) || v="rpcbench (version unknown)"
		printf '%s (%s)\n' "${v:-rpcbench (version unknown)}" "$RPCBENCH"
		return 0
	fi
	v=$(cd "$REPO_DIR" && git rev-parse --short HEAD 2>/dev/null) || v=unknown
	if [[ $v != unknown ]] && ! (cd "$REPO_DIR" && git diff --quiet HEAD -- '*.go' go.mod go.sum); then
		v+="+changes"
	fi
	printf 'rpcbench %s (this checkout)\n' "$v"
}

# start_nginx: one nginx process (worker_processes 1, master_process off) on TARGET_CPU,
# answering every request with 200 "ok". Sets TARGET_URL and TARGET_PID.
start_nginx() {
	local nginx dir port
	nginx=$(command -v nginx || true)
	[[ -n $nginx ]] || nginx=/usr/sbin/nginx
	[[ -x $nginx ]] || die "nginx not found: run scripts/install.sh as root, or install nginx"
	port=$(free_port)
	dir=$WORK/nginx-$port
	mkdir -p "$dir"
	cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    keepalive_requests 1000000000;
    keepalive_timeout 300s;
    server {
        listen 127.0.0.1:$port;
        location / { return 200 "ok"; }
    }
}
CONF
	taskset -c "$TARGET_CPU" "$nginx" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" >"$dir/out.log" 2>&1 &
	TARGET_PID=$!
	PIDS+=("$TARGET_PID")
	wait_port "$port" "$TARGET_PID" "$dir/out.log"
	TARGET_URL=http://127.0.0.1:$port/
}

# start_lab [FLAGS…]: rpcbench serve lab on TARGET_CPU. Sets TARGET_URL and TARGET_PID.
start_lab() {
	local port log
	port=$(free_port)
	log=$WORK/lab-$port.log
	taskset -c "$TARGET_CPU" "$RPCBENCH_BIN" serve lab --addr "127.0.0.1:$port" "$@" >"$log" 2>&1 &
	TARGET_PID=$!
	PIDS+=("$TARGET_PID")
	wait_port "$port" "$TARGET_PID" "$log"
	TARGET_URL=http://127.0.0.1:$port/
}

# start_items [h3]: rpcbench serve items (a grpc-go server) on TARGET_CPU; with h3, over TLS
# (self-signed) and HTTP/3 on the UDP port of the same number. Sets GRPC_ADDR, TARGET_URL and
# TARGET_PID.
start_items() {
	local port gport log extra=() scheme=http
	port=$(free_port)
	gport=$(free_port)
	log=$WORK/items-$port.log
	[[ ${1:-} == h3 ]] && { extra=(--h3-addr "127.0.0.1:$port"); scheme=https; }
	taskset -c "$TARGET_CPU" "$RPCBENCH_BIN" serve items --addr "127.0.0.1:$port" --grpc-addr "127.0.0.1:$gport" "${extra[@]}" >"$log" 2>&1 &
	TARGET_PID=$!
	PIDS+=("$TARGET_PID")
	wait_port "$port" "$TARGET_PID" "$log"
	wait_port "$gport" "$TARGET_PID" "$log"
	GRPC_ADDR=127.0.0.1:$gport
	TARGET_URL=$scheme://127.0.0.1:$port/
}

# start_fortio_ping: fortio server (its gRPC ping service, with reflection) on TARGET_CPU.
# Sets GRPC_ADDR and TARGET_PID.
start_fortio_ping() {
	local port gport log
	have fortio || die "fortio not found: run scripts/install.sh fortio"
	port=$(free_port)
	gport=$(free_port)
	log=$WORK/fortio-$gport.log
	taskset -c "$TARGET_CPU" fortio server -quiet -http-port "127.0.0.1:$port" -grpc-port "127.0.0.1:$gport" \
		-redirect-port disabled >"$log" 2>&1 &
	TARGET_PID=$!
	PIDS+=("$TARGET_PID")
	wait_port "$gport" "$TARGET_PID" "$log"
	GRPC_ADDR=127.0.0.1:$gport
}
