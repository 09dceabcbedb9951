#!/usr/bin/env bash
# Installs the load generators rpcbench is compared with, at pinned versions, into scripts/.tools
# (or $RPCBENCH_TOOLS). Safe to run again: what is installed already is kept. Prints what it could
# not install and carries on, so that a comparison runs with the peers that are there.
#
#   scripts/install.sh            all peers
#   scripts/install.sh oha k6     only these (apt: the Debian packages)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$TOOLS/bin" "$TOOLS/stamps"
failed=()
installed=()

stamp() { printf '%s/stamps/%s-%s' "$TOOLS" "$1" "$2"; }
done_already() { [[ -e $(stamp "$1" "$2") && -x $TOOLS/bin/$1 ]]; }
mark() { : >"$(stamp "$1" "$2")"; installed+=("$1 $2"); }

# Debian packages: wrk (closed loop), nginx (the HTTP target), hyperfine, h2load (nghttp2-client:
# the HTTP/2 reference); time for /usr/bin/time.
apt_peers() {
	local missing=() p
	have wrk || missing+=(wrk)
	have nginx || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
	have hyperfine || missing+=(hyperfine)
	have h2load || missing+=(nghttp2-client)
	[[ -x /usr/bin/time ]] || missing+=(time)
	have taskset || missing+=(util-linux)
	have jq || missing+=(jq)
	((${#missing[@]})) || return 0
	if [[ $(id -u) != 0 ]] || ! have apt-get; then
		failed+=("${missing[@]} (Debian packages: run as root with apt-get, or install them yourself)")
		return 0
	fi
	log "apt-get install ${missing[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
		failed+=("${missing[@]} (apt-get failed)")
	fi
}

# go install of a pinned version: hey, ghz, k6, fortio.
go_install() { # name module version
	local name=$1 mod=$2 ver=$3
	done_already "$name" "$ver" && return 0
	have go || { failed+=("$name $ver (no go on PATH)"); return 0; }
	log "go install $mod@$ver"
	if GOBIN="$TOOLS/bin" GOFLAGS=-buildvcs=false go install "$mod@$ver"; then
		mark "$name" "$ver"
	else
		failed+=("$name $ver (go install $mod@$ver failed)")
	fi
}

# For modules whose version list some module proxies refuse (so go install …@VERSION fails even
# with a version): download the module in a scratch module, then build from the module cache.
go_build_from_cache() { # name module version [package dir inside the module]
	local name=$1 mod=$2 ver=$3 pkg=${4:-.} scratch dir
	done_already "$name" "$ver" && return 0
	have go || { failed+=("$name $ver (no go on PATH)"); return 0; }
	log "go mod download $mod@$ver; go build"
	scratch=$(mktemp -d)
	if (cd "$scratch" && go mod init scratch >/dev/null 2>&1 &&
		go mod download "$mod@$ver") &&
		dir=$(cd "$scratch" && go mod download -json "$mod@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') &&
		[[ -n $dir ]] &&
		(cd "$dir" && GOFLAGS='-buildvcs=false -mod=mod' go build -o "$TOOLS/bin/$name" "$pkg"); then
		mark "$name" "$ver"
	else
		failed+=("$name $ver (go mod download $mod@$ver and go build failed)")
	fi
	rm -rf "$scratch"
}

cargo_install() { # name crate version
	local name=$1 crate=$2 ver=$3
	done_already "$name" "$ver" && return 0
	have cargo || { failed+=("$name $ver (no cargo on PATH)"); return 0; }
	log "cargo install $crate --version $ver"
	if cargo install --quiet --locked --root "$TOOLS" "$crate" --version "$ver"; then
		mark "$name" "$ver"
	else
		failed+=("$name $ver (cargo install $crate --version $ver failed)")
	fi
}

want() { (($# == 0)) && return 0; local w; for w in "${wanted[@]}"; do [[ $w == "$1" ]] && return 0; done; return 1; }
wanted=("$@")
for w in "${wanted[@]}"; do
	case $w in
	apt | hey | ghz | fortio | vegeta | bombardier | k6 | oha) ;;
	*) log "install.sh: unknown peer $w (apt, hey, ghz, fortio, vegeta, bombardier, k6, oha)"; exit 2 ;;
	esac
done
pick() { ((${#wanted[@]} == 0)) || want "$1"; }

pick apt && apt_peers
pick hey && go_install hey github.com/rakyll/hey "$HEY_VERSION"
pick ghz && go_install ghz github.com/bojand/ghz/cmd/ghz "$GHZ_VERSION"
pick fortio && go_install fortio fortio.org/fortio "$FORTIO_VERSION"
pick vegeta && go_build_from_cache vegeta github.com/tsenart/vegeta/v12 "$VEGETA_VERSION"
pick bombardier && go_build_from_cache bombardier github.com/codesenberg/bombardier "$BOMBARDIER_VERSION"
pick k6 && go_install k6 go.k6.io/k6 "$K6_VERSION"
pick oha && cargo_install oha oha "$OHA_VERSION"

log "peers in $TOOLS/bin: $(find "$TOOLS/bin" -mindepth 1 -maxdepth 1 -printf '%f ')"
((${#installed[@]})) && log "installed now: ${installed[*]}"
if ((${#failed[@]})); then
	log "could not install:"
	printf '  %s\n' "${failed[@]}" >&2
fi
exit 0
