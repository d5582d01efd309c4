#!/bin/bash
# SPDX-License-Identifier: MIT
# t-examples: the example programs (build/examples/) do what they say on
# this kernel, which the library's probe (build/examples/probe) decides:
#   - probe prints the features, "builder" first where the kernel has
#     one, an empty line and a reason on stderr where it has none; it
#     agrees with PIDFDSPAWN_EXPECT_BUILDER when that is set;
#   - builder-echo runs echo through the builder API where there is a
#     builder, and otherwise says "this kernel has no pidfd spawn builder"
#     and exits with 69 (EX_UNAVAILABLE), never 1 or a bare strerror;
#   - spawn-ls spawns ls on every kernel, through the fallback (and says
#     why) where there is no builder.
# Built into build/tests/t-examples by the Makefile, so run-all runs it,
# on the host and in the VM guest.  TAP 13.
set -uo pipefail

build=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd -P)
ex=$build/examples
n=0 failed=0
ok() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
diag() { sed 's/^/# /'; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfs-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..5"

"$ex/probe" >"$tmp/probe.out" 2>"$tmp/probe.err"
rc=$?
features=$(cat "$tmp/probe.out")
case " $features " in
*" builder "*) has=1 ;;
*) has=0 ;;
esac
if [ "$has" = 1 ]; then
	[ "$rc" = 0 ] && [ "${features%% *}" = builder ] && [ ! -s "$tmp/probe.err" ]
	ok $? "probe: this kernel has a builder: '$features'"
else
	[ "$rc" = 0 ] && [ -z "$features" ] &&
		grep -q 'this kernel has no pidfd spawn builder' "$tmp/probe.err"
	ok $? "probe: no builder here: an empty line, the reason on stderr (exit status $rc)"
fi
diag <"$tmp/probe.err"

# The expectation of the environment, when it states one.
if [ -n "${PIDFDSPAWN_EXPECT_BUILDER+set}" ]; then
	case " ${PIDFDSPAWN_EXPECT_BUILDER//,/ } " in
	*" builder "*) want=1 ;;
	*) want=0 ;;
	esac
	[ "$has" = "$want" ]
	ok $? "the probe agrees with PIDFDSPAWN_EXPECT_BUILDER='$PIDFDSPAWN_EXPECT_BUILDER' (builder: $has)"
else
	# Nothing to compare with: the probe must at least be stable.
	[ "$("$ex/probe" 2>/dev/null)" = "$features" ]
	ok $? "no PIDFDSPAWN_EXPECT_BUILDER: a second probe says the same ('$features')"
fi

"$ex/builder-echo" >"$tmp/echo.out" 2>"$tmp/echo.err"
rc=$?
if [ "$has" = 1 ]; then
	[ "$rc" = 0 ] && grep -qx 'hello from the builder' "$tmp/echo.out" &&
		grep -qx 'pid [0-9]* exited with 0' "$tmp/echo.out"
	ok $? "builder-echo runs echo through the builder (exit status $rc)"
	[ ! -s "$tmp/echo.err" ]
	ok $? "builder-echo where there is a builder: nothing on stderr"
else
	[ "$rc" = 69 ]
	ok $? "builder-echo without a builder exits with 69, EX_UNAVAILABLE (exit status $rc)"
	[ ! -s "$tmp/echo.out" ] &&
		grep -qx 'builder-echo: this kernel has no pidfd spawn builder (.*)' "$tmp/echo.err"
	ok $? "builder-echo without a builder says 'this kernel has no pidfd spawn builder' on stderr"
fi
diag <"$tmp/echo.err"

"$ex/spawn-ls" >"$tmp/ls.out" 2>"$tmp/ls.err"
rc=$?
if [ "$has" = 1 ]; then
	[ "$rc" = 0 ] && grep -qx '/' "$tmp/ls.out" &&
		grep -qx 'backend \(builder\|fallback\), status 0' "$tmp/ls.out"
else
	[ "$rc" = 0 ] && grep -qx '/' "$tmp/ls.out" &&
		grep -qx 'backend fallback (this kernel has no pidfd spawn builder), status 0' "$tmp/ls.out"
fi
ok $? "spawn-ls spawns ls -d / and names the backend (exit status $rc)"
diag <"$tmp/ls.out"
exit "$failed"
