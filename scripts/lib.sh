# Shared settings and helpers of the project's bash scripts (workspace/, tests/, demo/).
# Sourced, not run:  . "$(dirname "$0")/../scripts/lib.sh"
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The kernel's Makefile refuses a source or output folder whose path holds a space or a
# colon, and resolves links, so a checkout under such a path ("/srv/my work") builds in a
# folder of its own under /var/tmp, named after the checkout.  BUILD=DIR picks any other.
if [ -z "${BUILD:-}" ]; then
	case $TOP in
	*[[:space:]:]*)
		BUILD=/var/tmp/pidfd-spawn-build.$(printf '%s' "$TOP" | sha256sum | cut -c1-12)
		[ -n "${BUILD_NOTED:-}" ] ||
			echo "note: the checkout's path has a space or a colon, which the kernel's build refuses: building in $BUILD (BUILD=DIR to choose)" >&2
		BUILD_NOTED=1
		export BUILD_NOTED ;;
	*) BUILD=$TOP/build ;;
	esac
fi
TREE=${TREE:-$BUILD/linux}
# Exported so that every script this one starts (vm/vm-run, the guest commands through
# "env BUILD=...") works on the same build folder, never on $TOP/build behind our back.
export BUILD TREE
SERIES_DIR=$TOP/series
# The RFC's patches (tests/build-suites takes its conformance programs out of one).
SEEDS=${SEEDS:-$TOP/../shared/seeds}
SEED_PATCH=$SEEDS/008-patch-selftests-pidfd-cover-pidfd-spawn-builders.patch
# The kselftest targets tests/check builds and runs: what the configuration asks for, and
# so what must report (a target whose build failed is missing, never forgotten).
KSELFTEST_TARGETS_DEFAULT="pidfd clone3 core exec proc ptrace seccomp tty"

# The kernel source the series is written against.  prepare-tree installs exactly this
# version; when apt no longer offers it, apt's candidate with a warning naming both.
KSRC_PKG=linux-source-6.12
KSRC_PIN=6.12.118-1~deb12u1
# Where the package puts the source (a knob for tests/tooling/fresh-machine only).
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/$KSRC_PKG.tar.xz}

# Packages every step needs: kernel build, QEMU, selftest build (gcc-12-multilib for the
# 32-bit pidfd_spawn_compat and the x32 pidfd_spawn_x32 selftests and the library's m32
# build: not the gcc-multilib metapackage, which conflicts with the cross compiler of
# workspace/check-configs), and the sources of other projects' posix_spawn
# tests that the library's external suite builds and runs (glibc-source, gnulib,
# libpython3.11-testsuite: tests/host.d/external-spawn-build), the man-page lint (mandoc,
# man-db: tests/host.d/man-lint) and the Debian packaging (debhelper, lintian,
# pkg-config: tests/host.d/debian-package).  The kernel source is not
# here: prepare-tree installs it pinned (installing it unpinned first would make the pin a
# downgrade as soon as Debian publishes a newer 6.12).
HOST_PACKAGES="build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils rsync ccache git python3 qemu-system-x86 libcap-dev libmount-dev
	libcap-ng-dev libnuma-dev gcc-12-multilib glibc-source gnulib libpython3.11-testsuite
	strace gdb mandoc man-db debhelper lintian pkg-config"

# The identity of commits made in the kernel tree, by the scripts and by you (prepare-tree
# writes it into build/linux/.git/config; your global git configuration is not needed).
TREE_GIT_NAME="pidfd-spawn workspace"
TREE_GIT_EMAIL="workspace@localhost"

STAMP0=$(date +%s)

# stage NAME: announce a stage of a long job with the elapsed time so far.
stage() {
	local now
	now=$(date +%s)
	printf '\n==> [%s +%ds] %s\n' "$(date +%T)" $((now - STAMP0)) "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

warn() {
	printf '\n*** WARNING: %s\n' "$*" >&2
}

# as_root COMMAND...: run a command as root: directly when we are root, else through sudo.
# Every script asks for root this way and only for installing packages.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root for '$*': run as root, or install and configure sudo"
	fi
}

# On a fresh machine unattended-upgrades holds the dpkg and lists locks for minutes: apt
# waits for the dpkg lock itself (Lock::Timeout), and a run that still failed on a lock
# is retried a bounded number of times.
APT_LOCK_TIMEOUT=${APT_LOCK_TIMEOUT:-300}
APT_LOCK_TRIES=${APT_LOCK_TRIES:-10}
APT_LOCK_SLEEP=${APT_LOCK_SLEEP:-30}

# apt_get LOG ARG...: as_root apt-get ARG..., output in LOG, retried while a lock is held.
apt_get() {
	local log=$1 try=1 status
	shift
	mkdir -p "$BUILD"
	while :; do
		status=0
		as_root env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get \
			-o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" "$@" >"$log" 2>&1 || status=$?
		[ "$status" != 0 ] || return 0
		grep -qiE 'could not get lock|unable to lock|is another process using it' "$log" || break
		[ "$try" -lt "$APT_LOCK_TRIES" ] || break
		echo "apt-get $1: a lock is held by another apt or dpkg; retrying in ${APT_LOCK_SLEEP}s ($try/$APT_LOCK_TRIES)" >&2
		sleep "$APT_LOCK_SLEEP"
		try=$((try + 1))
	done
	tail -20 "$log" >&2 || true
	die "apt-get $* failed with status $status after $try attempt(s) (log: $log)"
}

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	apt_get "$BUILD/apt-update.log" update -qq
	apt_updated=1
}

# apt_install ARG...: apt-get install, quietly, log in build/apt.log.
apt_install() {
	apt_get "$BUILD/apt.log" install -y -qq --no-install-recommends "$@"
}

installed_version() { # installed_version PKG: the installed version, or nothing
	# dpkg-query exits 1 for a package it has never heard of: that is "nothing", not a
	# failure (under pipefail it would end the caller silently).
	local status
	status=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null) || true
	awk '$3 == "installed" { print $4 }' <<<"$status"
}

# ensure_packages PKG...: install what is missing, once; apt-get update only when needed.
ensure_packages() {
	local missing=() p status pkg want ok_ st installed
	# One query for all (exits 1 when any is unknown to dpkg: that one is just missing).
	status=$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null) || true
	for p in "$@"; do
		installed=
		while read -r pkg want ok_ st; do
			[ "$pkg" != "$p" ] || [ "$st" != installed ] || installed=1
		done <<<"$status"
		[ -n "$installed" ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	stage "apt: installing ${missing[*]}"
	apt_update
	apt_install "${missing[@]}"
}

# git for the scripts' own work (the kernel tree, check-series' worktree): the user's
# global and system configuration is not read, so a commit.gpgsign, tag.gpgSign, hooks
# path, template or format.* setting there cannot break or change what the scripts do,
# and git never needs $HOME.  The tree's own .git/config (its identity) still applies.
sgit() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c commit.gpgsign=false \
		-c tag.gpgSign=false -c core.hooksPath=/dev/null -c core.autocrlf=false "$@"
}

# git in the kernel tree with a fixed identity, so commits are reproducible everywhere.
tgit() {
	sgit -C "$TREE" -c user.name="$TREE_GIT_NAME" -c user.email="$TREE_GIT_EMAIL" "$@"
}

# LC_ALL=C: the scripts grep make's and gcc's messages, which must be in English.
lmake() {
	LC_ALL=C make "$@"
}

# exit_reason STATUS: how a command ended, for a one-line failure message.
exit_reason() {
	if [ "$1" = 137 ]; then
		echo "killed by SIGKILL (status 137: out of memory?)"
	elif [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null || echo "nal $(($1 - 128))") (status $1)"
	else
		echo "exit status $1"
	fi
}

# make_failure STATUS LOG: why a make failed, in a few words (a compiler killed by the
# OOM killer leaves make exiting 2 with "Error 137" or "Killed signal" in its log).
make_failure() {
	local why
	why=$(exit_reason "$1")
	if [ "$1" -le 128 ] && grep -qE 'Killed signal terminated|Error 137|^Killed$' "$2" 2>/dev/null; then
		why="$why; a compiler was killed (out of memory?)"
	fi
	echo "$why"
}

# ccache_dir: $CCACHE_DIR, else ~/.cache/ccache when HOME is set and writable, else
# $BUILD/ccache (HOME unset, read-only or missing, e.g. env -i HOME=/nonexistent).
ccache_dir() {
	if [ -n "${CCACHE_DIR:-}" ]; then
		echo "$CCACHE_DIR"
	elif [ -n "${HOME:-}" ] && mkdir -p "$HOME/.cache/ccache" 2>/dev/null &&
		[ -w "$HOME/.cache/ccache" ]; then
		echo "$HOME/.cache/ccache"
	else
		echo "$BUILD/ccache"
	fi
}

series_files() {
	[ -f "$SERIES_DIR/series" ] || die "no series list at $SERIES_DIR/series"
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SERIES_DIR/series" || true
}

# series_check: every file series/series names exists (else git am and the digest would
# fail far from the cause).
series_check() {
	local p files
	files=$(series_files) || exit 1
	for p in $files; do
		[ -f "$SERIES_DIR/$p" ] || die "series/series names $p, which is not in $SERIES_DIR"
	done
}

# A digest of the series, kept in the tree, tells whether the applied patches are current.
series_digest() {
	local files
	series_check
	files=$(series_files) || exit 1
	# shellcheck disable=SC2086 # one patch file name per word
	(cd "$SERIES_DIR" && cat series $files) | sha256sum | cut -d' ' -f1
}

# unexported_work: describe commits or edits in the kernel tree that series/ does not hold
# (prints nothing when the tree matches the series it was prepared from or exported to).
unexported_work() {
	tgit rev-parse -q --verify pristine >/dev/null 2>&1 || return 0
	if [ -d "$TREE/.git/rebase-apply" ] || [ -d "$TREE/.git/rebase-merge" ]; then
		echo "a git am or rebase is in progress in $TREE"
	fi
	tgit diff --quiet HEAD 2>/dev/null || echo "$TREE has uncommitted edits"
	if [ "$(tgit rev-parse HEAD)" != "$(cat "$TREE/.git/series-head" 2>/dev/null)" ]; then
		echo "$TREE has commits that series/ does not hold (HEAD $(tgit rev-parse --short HEAD))"
	fi
}
