#!/bin/sh
# A smoke suite of the kind a plan file runs as a command scenario, reporting as test runners that
# write JUnit XML do (pytest --junitxml, maven surefire, jest-junit): it checks the service at
# $RPCBENCH_TARGET_URL with curl and writes its report to $RPCBENCH_JUNIT (smoke.xml without it).
# examples/smoke-junit.yaml runs it against each target and counts its test cases.
url=${RPCBENCH_TARGET_URL:-http://127.0.0.1:8080/}
url=${url%/}
out=${RPCBENCH_JUNIT:-smoke.xml}
cases='' tests=0 failures=0

# check NAME WANT METHOD PATH [BODY]: one test case, passed when the status is WANT
check() {
	name=$1 want=$2 method=$3 path=$4
	if [ -n "$5" ]; then
		got=$(curl -s -o /dev/null -w '%{http_code}' -X "$method" --data "$5" "$url$path")
	else
		got=$(curl -s -o /dev/null -w '%{http_code}' -X "$method" "$url$path")
	fi
	tests=$((tests + 1))
	if [ "$got" = "$want" ]; then
		cases="$cases<testcase classname=\"smoke\" name=\"$name\"/>"
	else
		failures=$((failures + 1))
		cases="$cases<testcase classname=\"smoke\" name=\"$name\"><failure message=\"$method $path: status $got; want $want\"/></testcase>"
	fi
}

check read 200 GET '/v0/entity?id=1'
check write 200 PUT '/v0/entity?id=2' '{"n":1}'
check list 200 GET '/v0/entities'

printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="smoke" tests="%d" failures="%d">%s</testsuite></testsuites>\n' \
	"$tests" "$failures" "$cases" >"$out"
[ "$failures" -eq 0 ]
