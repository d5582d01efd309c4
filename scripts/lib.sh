# Shared settings and helpers for the workspace scripts. Sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
SERIES_DIR=$TOP/series

KSRC_PKG=linux-source-6.12
KSRC_PIN=6.12.118-1~deb12u1

# Packages every step needs: kernel build, QEMU, selftest build.
HOST_PACKAGES="$KSRC_PKG build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils rsync ccache git python3 qemu-system-x86 libcap-dev libmount-dev
	libcap-ng-dev libnuma-dev"

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

# ensure_packages PKG...: install what is missing, once; apt-get update only when needed.
ensure_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	stage "apt: installing ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		>"$BUILD/apt.log" 2>&1 || { tail -20 "$BUILD/apt.log" >&2; die "apt-get install failed (log: $BUILD/apt.log)"; }
}

# git in the kernel tree with a fixed identity, so commits are reproducible everywhere.
tgit() {
	git -C "$TREE" -c user.name="pidfd-spawn workspace" -c user.email="workspace@localhost" \
		-c core.autocrlf=false "$@"
}

series_files() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SERIES_DIR/series" 2>/dev/null || true
}

# A digest of the series, kept in the tree, tells whether the applied patches are current.
series_digest() {
	(cd "$SERIES_DIR" && cat series $(series_files)) 2>/dev/null | sha256sum | cut -d' ' -f1
}
