#!/bin/bash
# SPDX-License-Identifier: MIT
# t-symbols: the symbol versions of build/libpidfdspawn.so (issue 35,
# item 7; src/libpidfdspawn.map):
#   - every pidfdspawn_* function is in the library's own node,
#     pidfdspawn_version@@PIDFDSPAWN_0 among them, none unversioned;
#   - posix_spawn and posix_spawnp keep glibc's versions (@@GLIBC_2.15,
#     and the old generation for compatibility), the rest of the
#     posix_spawn family stays unversioned (posix_spawnattr_init), so that
#     under LD_PRELOAD it binds whatever version a program asks for;
#   - no internal pfs_* symbol is exported; the soname is
#     libpidfdspawn.so.0 and the file is named by the header's version;
#   - a program linked against the .so that calls pidfdspawn_probe()
#     records "libpidfdspawn.so.0: PIDFDSPAWN_0" (not GLIBC_2.15), and
#     runs with it, reporting the header's version.
# Built into build/tests/t-symbols by the Makefile, so run-all runs it,
# on the host and in the VM guest (which has the host's tools; it writes
# only under $TMPDIR).  No skip: readelf and cc are what built the
# library.  TAP 13.
set -uo pipefail

build=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd -P)
lib=${PIDFDSPAWN_LIBRARY_DIR:-$(cd "$build/.." && pwd)}
so=$build/libpidfdspawn.so
cc=${CC:-cc}
n=0 failed=0
ok() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
diag() { sed 's/^/# /'; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfs-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..8"
# The defined dynamic symbols, one "name[@[@]version]" a line.
readelf -W --dyn-syms "$so" >"$tmp/dynsym" 2>"$tmp/readelf.err"
rc=$?
awk '$7 != "UND" && $8 != "" && $5 != "LOCAL" { print $8 }' "$tmp/dynsym" |
	sort -u >"$tmp/defined"
[ "$rc" = 0 ] && [ -s "$tmp/defined" ]
ok $? "readelf --dyn-syms reads $so ($(wc -l <"$tmp/defined") defined symbols)"
[ "$rc" = 0 ] || diag <"$tmp/readelf.err"

has() { grep -qx -- "$1" "$tmp/defined"; }

has 'pidfdspawn_version@@PIDFDSPAWN_0' && has 'pidfdspawn_probe@@PIDFDSPAWN_0' &&
	has 'pidfdspawn_builder_run@@PIDFDSPAWN_0'
ok $? "pidfdspawn_version, pidfdspawn_probe, pidfdspawn_builder_run are @@PIDFDSPAWN_0"

others=$(grep '^pidfdspawn_' "$tmp/defined" | grep -v '@@PIDFDSPAWN_0$' | tr '\n' ' ')
count=$(grep -c '^pidfdspawn_.*@@PIDFDSPAWN_0$' "$tmp/defined")
[ -z "$others" ] && [ "$count" -ge 30 ]
ok $? "all $count pidfdspawn_* symbols are in PIDFDSPAWN_0${others:+; not: $others}"

has 'posix_spawn@@GLIBC_2.15' && has 'posix_spawnp@@GLIBC_2.15'
ok $? "posix_spawn@@GLIBC_2.15 and posix_spawnp@@GLIBC_2.15 (glibc's current versions)"

versioned=$(grep -E '^(posix_spawn|pidfd_spawn)' "$tmp/defined" | grep '@' |
	grep -Ev '^posix_spawnp?@' | tr '\n' ' ')
has 'posix_spawnattr_init' && has 'posix_spawn_file_actions_adddup2' &&
	has 'pidfd_spawn' && [ -z "$versioned" ]
ok $? "posix_spawnattr_init and the rest of the family are unversioned${versioned:+; versioned: $versioned}"

leaked=$(grep -E '^_?pfs_' "$tmp/defined" | tr '\n' ' ')
version=$(sed -n 's/^#define PIDFDSPAWN_VERSION_STRING[^"]*"\(.*\)"/\1/p' "$lib/include/pidfdspawn.h")
soname=$(readelf -W -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -z "$leaked" ] && [ "$soname" = libpidfdspawn.so.0 ] && [ -n "$version" ] &&
	[ "$(readlink -f "$so")" = "$build/libpidfdspawn.so.$version" ]
ok $? "no pfs_* exported${leaked:+ ($leaked)}; soname $soname; the file is libpidfdspawn.so.$version"

# A program of the library's own interface, linked against the .so.
cat >"$tmp/use.c" <<'EOC'
#include <stdio.h>
#include <pidfdspawn.h>
int main(void)
{
	printf("%s %s 0x%x\n", pidfdspawn_version(), PIDFDSPAWN_VERSION_STRING,
	       pidfdspawn_probe());
	return 0;
}
EOC
"$cc" -o "$tmp/use" "$tmp/use.c" -I"$lib/include" -L"$build" -lpidfdspawn \
	>"$tmp/cc.log" 2>&1
rc=$?
readelf -W -V "$tmp/use" >"$tmp/verneed" 2>&1
# .gnu.version_r: "File: libpidfdspawn.so.0 ..." then its "Name: ..." lines.
needs=$(awk '/File:/ { f = ($0 ~ /File: libpidfdspawn\.so\.0/) }
	f && /Name:/ { for (i = 1; i <= NF; i++) if ($i == "Name:") print $(i + 1) }' \
	"$tmp/verneed" | sort -u | tr '\n' ' ')
[ "$rc" = 0 ] && [ "$needs" = "PIDFDSPAWN_0 " ]
ok $? "a program calling pidfdspawn_probe() records libpidfdspawn.so.0: ${needs:-nothing}(only PIDFDSPAWN_0)"
[ "$rc" = 0 ] || diag <"$tmp/cc.log"

out=$(LD_LIBRARY_PATH=$build "$tmp/use" 2>&1)
[ "${out%% 0x*}" = "$version $version" ]
ok $? "it runs against the .so, which reports the header's version ($out)"
exit "$failed"
