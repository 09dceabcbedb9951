# shellcheck shell=bash
# Shared by the bench/ scripts: where the peers live, how to build rpcbench, and the targets
# (nginx, rpcbench serve lab, rpcbench serve items) started on 127.0.0.1 and stopped on exit.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
TOOLS=${RPCBENCH_TOOLS:-$BENCH_DIR/.tools}
export PATH="$TOOLS/bin:$PATH"

# Pinned versions of the peers (see bench/README.md for why these).
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
