#!/usr/bin/env bash
# Checks the module and its dependencies for known vulnerabilities with govulncheck
# (golang.org/x/vuln), installed at a pinned version into a temporary directory.
#
#   scripts/vulncheck.sh              check ./... against https://vuln.go.dev
#   GOVULNDB=file:///path/to/db scripts/vulncheck.sh    against a local copy of the database
#
# Exit codes:
#   0  no known vulnerability affects the code
#   1  vulnerabilities found (govulncheck lists them)
#   2  govulncheck could not be installed or failed for another reason
#   3  the vulnerability database cannot be reached: NOTHING WAS CHECKED
#
# It needs the network (the Go module proxy to install govulncheck, the database to check), so CI
# on a machine without it does not run it.
set -uo pipefail
cd "$(dirname "$0")/.."

version=v1.9.0 # golang.org/x/vuln; update with care, as any dependency
db=${GOVULNDB:-https://vuln.go.dev}

bin=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$bin" "$out"' EXIT

if ! GOBIN=$bin go install "golang.org/x/vuln/cmd/govulncheck@$version" 2>"$out"; then
  cat "$out" >&2
  echo "vulncheck: could not install govulncheck $version (is the Go module proxy reachable?)" >&2
  exit 2
fi

"$bin/govulncheck" -db "$db" ./... >"$out" 2>&1
rc=$?
cat "$out"
case $rc in
0)
  echo "vulncheck: no known vulnerability affects rpcbench (database $db)"
  exit 0
  ;;
3)
  echo "vulncheck: vulnerabilities found (see above)" >&2
  exit 1
  ;;
esac
# govulncheck says "fetching vulnerabilities" when the database cannot be read
if grep -qiE 'fetching vulnerabilities|vuln\.go\.dev|no such host|dial tcp|connection refused|network is unreachable|i/o timeout|TLS handshake' "$out"; then
  echo "vulncheck: the vulnerability database $db cannot be reached: NOTHING WAS CHECKED" >&2
  exit 3
fi
echo "vulncheck: govulncheck failed (exit $rc)" >&2
exit 2
