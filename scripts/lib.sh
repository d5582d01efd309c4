# Shared settings and helpers of the project's bash scripts (workspace/, tests/, demo/).
# Sourced, not run:  . "$(dirname "$0")/../scripts/lib.sh"
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
SERIES_DIR=$TOP/series

# The kernel source the series is written against.  prepare-tree installs exactly this
# version; when apt no longer offers it, apt's candidate with a warning naming both.
KSRC_PKG=linux-source-6.12
KSRC_PIN=6.12.118-1~deb12u1

# Packages every step needs: kernel build, QEMU, selftest build (gcc-multilib for the
# 32-bit pidfd_spawn_compat selftest).  The kernel source is not
# here: prepare-tree installs it pinned (installing it unpinned first would make the pin a
# downgrade as soon as Debian publishes a newer 6.12).
HOST_PACKAGES="build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils rsync ccache git python3 qemu-system-x86 libcap-dev libmount-dev
	libcap-ng-dev libnuma-dev gcc-multilib"

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

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	as_root apt-get update -qq || die "apt-get update failed"
	apt_updated=1
}

# apt_install ARG...: apt-get install, quietly, log in build/apt.log.
apt_install() {
	mkdir -p "$BUILD"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
		>"$BUILD/apt.log" 2>&1 || { tail -20 "$BUILD/apt.log" >&2; die "apt-get install $* failed (log: $BUILD/apt.log)"; }
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
	local missing=() p
	for p in "$@"; do
		[ -n "$(installed_version "$p")" ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	stage "apt: installing ${missing[*]}"
	apt_update
	apt_install "${missing[@]}"
}

# git in the kernel tree with a fixed identity, so commits are reproducible everywhere.
tgit() {
	git -C "$TREE" -c user.name="$TREE_GIT_NAME" -c user.email="$TREE_GIT_EMAIL" \
		-c core.autocrlf=false "$@"
}

series_files() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SERIES_DIR/series" 2>/dev/null || true
}

# A digest of the series, kept in the tree, tells whether the applied patches are current.
series_digest() {
	(cd "$SERIES_DIR" && cat series $(series_files)) 2>/dev/null | sha256sum | cut -d' ' -f1
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
