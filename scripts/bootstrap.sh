#!/bin/sh
# Install the Debian packages cidkit needs to build and test, only those
# that are missing.  Run as root on a fresh Debian machine (make does it).
# Arguments name more packages a target needs (scripts/vs-librseq.sh).
set -eu

pkgs="meson ninja-build gcc g++ clang libclang-rt-14-dev make python3 pkg-config valgrind
	scdoc binutils man-db python3-matplotlib pyflakes3
	qemu-system-x86 qemu-system-arm busybox-static gcc-aarch64-linux-gnu
	libc6-dev-arm64-cross zstd file
	qemu-system-misc qemu-system-ppc gcc-riscv64-linux-gnu gcc-powerpc64le-linux-gnu
	gcc-s390x-linux-gnu libc6-dev-riscv64-cross libc6-dev-ppc64el-cross
	libc6-dev-s390x-cross
	libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd xz-utils
	libjansson-dev
	parallel $*"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "bootstrap: installing$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "cidkit: bootstrap needs root to install:$missing" >&2
	exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
