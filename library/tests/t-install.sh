#!/bin/bash
# SPDX-License-Identifier: MIT
# The .pc's ${prefix} is matched literally throughout:
# shellcheck disable=SC2016
# t-install: "make install DESTDIR=... PREFIX=/usr" of the library, as a
# distribution package would do it (issue 20, item 10):
#   - the posix_spawn family's pages are in section 3pidfdspawn
#     (man3/NAME.3pidfdspawn), none is man3/posix_spawn*.3, so the C
#     library's posix_spawn(3) is not shadowed; every .so link resolves;
#   - the .pc file has libdir=${prefix}/... and includedir=${prefix}/...
#     (absolute only for a directory outside the prefix);
#   - pkg-config under PKG_CONFIG_SYSROOT_DIR finds the installed header
#     and library, and a program builds with its flags.
# Built into build/tests/t-install by the Makefile, so run-all runs it
# (host hook); in the VM guest it only checks the host's build tree.
# Skipped where make, pkg-config or cc is missing or the tree is read-only.
# PIDFDSPAWN_LIBRARY_DIR: the library's source directory (default: this
# script's, ../.. from build/tests).  TAP 13.
set -uo pipefail

lib=${PIDFDSPAWN_LIBRARY_DIR:-$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)}
n=0 failed=0
ok() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
diag() { sed 's/^/# /'; }

echo "TAP version 13"
for tool in make pkg-config "${CC:-cc}"; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP no $tool here"
		exit 0
	fi
done
# In the VM (vm/vm-run's guest: "vmrun." on the kernel command line;
# PIDFDSPAWN_T_INSTALL_GUEST=1 to try it) the project is shared writable,
# but the guest must not build in it: make install runs on the host.  The
# guest checks what the host built, without a skip (host-library and
# guest-library are must-run suites: a skip fails them).
if [ "${PIDFDSPAWN_T_INSTALL_GUEST:-}" = 1 ] || grep -q 'vmrun\.' /proc/cmdline 2>/dev/null; then
	echo "1..2"
	pc=$lib/build/libpidfdspawn.pc
	grep -qx 'libdir=${prefix}/lib' "$pc" && grep -qx 'includedir=${prefix}/include' "$pc"
	ok $? "in the VM (make install runs on the host): build/libpidfdspawn.pc has libdir=\${prefix}/lib, includedir=\${prefix}/include"
	bad=$(grep -L '^\(\.so man3/[a-z0-9_]*\.3pidfdspawn\|\.TH [A-Z0-9_]* 3pidfdspawn \)' "$lib"/man/posix_spawn*.3 "$lib"/man/pidfd_spawn*.3 | tr '\n' ' ')
	[ -z "$bad" ] && [ -f "$lib/man/posix_spawn.3" ]
	ok $? "in the VM: every man/posix_spawn*.3 is in section 3pidfdspawn (.TH or .so)${bad:+: not $bad}"
	exit "$failed"
fi
if [ ! -f "$lib/Makefile" ] || [ ! -w "$lib" ] || [ ! -w "$lib/build" ]; then
	echo "1..0 # SKIP $lib cannot be built here (read-only)"
	exit 0
fi
echo "1..12"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfs-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
make -C "$lib" install DESTDIR="$dest" PREFIX=/usr >"$tmp/make.log" 2>&1
rc=$?
ok "$rc" "make -C library install DESTDIR=\$tmp PREFIX=/usr (exit status $rc)"
[ "$rc" = 0 ] || tail -20 "$tmp/make.log" | diag

man3=$dest/usr/share/man/man3
shadowing=$(cd "$man3" 2>/dev/null && ls -d posix_spawn*.3 pidfd_spawn*.3 2>/dev/null)
[ -z "$shadowing" ] && [ -d "$man3" ]
ok $? "no page in man3/ is posix_spawn*.3 or pidfd_spawn*.3 (would shadow the C library's)"
[ -z "$shadowing" ] || echo "$shadowing" | diag

count=$(find "$man3" -maxdepth 1 -name 'posix_spawn*.3pidfdspawn' 2>/dev/null | wc -l)
[ "$count" -ge 20 ] && [ -f "$man3/posix_spawn.3pidfdspawn" ] &&
	[ -f "$man3/pidfd_spawn.3pidfdspawn" ] &&
	head -1 "$man3/posix_spawn.3pidfdspawn" | grep -q '^\.TH POSIX_SPAWN 3pidfdspawn '
ok $? "the family's pages are man3/*.3pidfdspawn ($count posix_spawn*), .TH section 3pidfdspawn"

# Every .so link names an installed page; nothing still points at the
# family's old names in section 3.
bad=
for p in "$man3"/*; do
	target=$(sed -n 's/^\.so //p' "$p")
	[ -z "$target" ] || [ -f "$dest/usr/share/man/$target" ] || bad="$bad ${p##*/}->$target"
done
[ -n "$(ls "$man3")" ] && [ -z "$bad" ]
ok $? "every .so link in man3/ resolves in the installed tree${bad:+:$bad}"

refs=$(grep -l '^\.BR \(posix_spawn[a-z0-9_]*\|pidfd_spawnp\?\) (3)' "$man3"/pidfdspawn_*.3 2>/dev/null)
[ -z "$refs" ]
ok $? "the library's own pages refer to posix_spawn(3pidfdspawn), not the C library's page"
[ -z "$refs" ] || echo "$refs" | diag

# Names that share a page are links in the source tree and .so links
# installed; the overview is in section 7.
so=$(sed -n 's/^\.so //p' "$man3/pidfdspawn_builder_free.3" 2>/dev/null)
[ "$so" = man3/pidfdspawn_builder_new.3 ]
ok $? "a name that shares a page is installed as a .so link to it (got '$so')"
grep -q '^\.TH PIDFDSPAWN 7' "$dest/usr/share/man/man7/pidfdspawn.7" 2>/dev/null
ok $? "the overview pidfdspawn(7) is installed in man7/"

# man(1), where it and the C library's page are here: with the installed
# tree first in the search path, "man posix_spawn" is still the system's.
if command -v man >/dev/null && sys=$(man -M /usr/share/man -w 3 posix_spawn 2>/dev/null); then
	got=$(man -M "$dest/usr/share/man:/usr/share/man" -w 3 posix_spawn 2>/dev/null)
	ours=$(man -M "$dest/usr/share/man:/usr/share/man" -w 3pidfdspawn posix_spawn 2>/dev/null)
	[ "$got" = "$sys" ] && [ "$ours" = "$man3/posix_spawn.3pidfdspawn" ]
	ok $? "man 3 posix_spawn is the system's ($got), man 3pidfdspawn posix_spawn the library's ($ours)"
else
	# No skip (must-run suite): without man(1), by the names man(1) uses.
	[ ! -e "$man3/posix_spawn.3" ] && [ ! -e "$man3/posix_spawn.3.gz" ] &&
		[ -f "$man3/posix_spawn.3pidfdspawn" ]
	ok $? "no man(1) or system posix_spawn(3) here: man3/posix_spawn.3 absent, posix_spawn.3pidfdspawn present"
fi

pc=$dest/usr/lib/pkgconfig/libpidfdspawn.pc
grep -qx 'prefix=/usr' "$pc" && grep -qx 'libdir=${prefix}/lib' "$pc" &&
	grep -qx 'includedir=${prefix}/include' "$pc"
ok $? "the .pc has prefix=/usr, libdir=\${prefix}/lib, includedir=\${prefix}/include"
[ -f "$pc" ] && grep 'dir=\|prefix=' "$pc" | diag

# pkg-config as a cross build uses it: only the DESTDIR's .pc, its paths
# under the sysroot (system directories not filtered out, to see them).
flags=$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig \
	PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 \
	PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config --cflags --libs libpidfdspawn 2>&1)
rc=$?
inc='' libdir=''
for f in $flags; do
	case $f in
	-I*) inc=${f#-I} ;;
	-L*) libdir=${f#-L} ;;
	esac
done
[ "$rc" = 0 ] && [ -f "$inc/pidfdspawn.h" ] && [ -e "$libdir/libpidfdspawn.so" ] &&
	[[ " $flags " == *" -lpidfdspawn "* ]]
ok $? "pkg-config --cflags --libs under the DESTDIR sysroot: '$flags' (header and library found)"

cat >"$tmp/use.c" <<'EOF'
#include <pidfdspawn.h>
int main(void) { return pidfdspawn_backend_name(PIDFDSPAWN_BACKEND_NONE) == 0; }
EOF
# shellcheck disable=SC2086
"${CC:-cc}" -o "$tmp/use" "$tmp/use.c" $flags >"$tmp/cc.log" 2>&1
rc=$?
ok "$rc" "a program builds against the installed tree with those flags"
[ "$rc" = 0 ] || diag <"$tmp/cc.log"

# A libdir outside the prefix stays absolute.
make -C "$lib" install DESTDIR="$tmp/other" PREFIX=/opt/pfs LIBDIR=/usr/lib64 \
	>"$tmp/make2.log" 2>&1 &&
	pc2=$tmp/other/usr/lib64/pkgconfig/libpidfdspawn.pc &&
	grep -qx 'prefix=/opt/pfs' "$pc2" && grep -qx 'libdir=/usr/lib64' "$pc2" &&
	grep -qx 'includedir=${prefix}/include' "$pc2"
ok $? "PREFIX=/opt/pfs LIBDIR=/usr/lib64: libdir=/usr/lib64 (outside the prefix), includedir=\${prefix}/include"
exit "$failed"
