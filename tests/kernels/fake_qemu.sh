#!/bin/sh
# A stand-in for qemu-system-x86_64 with no kernel: the initramfs's own
# /init, run on this machine in a sandbox (tests/kernels/status.py).
#
# Called as kernel-lab calls QEMU (-initrd FILE, -serial stdio, ...).  The
# initramfs kernel-lab wrote is unpacked (busybox cpio, newc, as the kernel
# unpacks it) into a tmpfs of a new mount namespace, and its /init (the
# lab's real script, with the static busybox from the archive) runs there
# chrooted, as PID 1 of new user, PID and network namespaces, its standard
# output and error on ours: the "console" kernel-lab reads.  Its
# `reboot -f` ends that PID namespace (reboot(2) there kills its init), as
# a reset ends QEMU with -no-reboot; we exit 0, as QEMU does.
#
# The sandbox's root is nobody outside: run as root, we first become an
# unused uid (setpriv), so that the script's writes to /proc/sys (its
# printk level) cannot reach this machine; its mounts stay in its own
# namespace.  The archive's device nodes cannot be made there: each is a
# bind of the host's /dev/null (the only one /init opens by name).  Exit 1
# with a 'fake-qemu:' line when the sandbox cannot be made.
#
# FAKE_QEMU_HANG_BOOTS=FILE holding N > 0: this boot never reaches /init
# (prints a firmware-like line and sleeps); N - 1 is written back.
# FAKE_QEMU_PANIC_BOOTS=FILE holding N > 0: this boot panics before /init
# (prints the kernel's panic line and exits); N - 1 is written back.
# FAKE_QEMU_IPS="IP..." (hex): -monitor unix:PATH,... is answered by
# fake_monitor.py, its vCPUs at those instruction pointers.
set -u
initrd=
monitor=
while [ $# -gt 0 ]; do
	[ "$1" = -initrd ] && initrd=$2
	case "$1" in -monitor) case "$2" in unix:*) monitor=${2#unix:} monitor=${monitor%%,*} ;; esac ;; esac
	shift
done
if [ -n "$monitor" ] && [ -n "${FAKE_QEMU_IPS:-}" ]; then
	# shellcheck disable=SC2086 # IPs: words
	python3 "$(dirname "$(readlink -f "$0")")/fake_monitor.py" "$monitor" $FAKE_QEMU_IPS &
fi
[ -r "$initrd" ] || { echo "fake-qemu: no -initrd" >&2; exit 1; }
hang=${FAKE_QEMU_HANG_BOOTS:-}
if [ -n "$hang" ] && [ "$(cat "$hang")" -gt 0 ]; then
	echo $(($(cat "$hang") - 1)) >"$hang"
	echo "fake-qemu: Probing EDD (edd=off to disable)... ok"
	exec sleep 100000
fi
panic=${FAKE_QEMU_PANIC_BOOTS:-}
if [ -n "$panic" ] && [ "$(cat "$panic")" -gt 0 ]; then
	echo $(($(cat "$panic") - 1)) >"$panic"
	echo "[    5.538376] Kernel panic - not syncing: Fatal exception in interrupt"
	exit 0
fi
priv=
[ "$(id -u)" -eq 0 ] && priv="setpriv --reuid=100000 --regid=100000 --clear-groups"
# shellcheck disable=SC2016 # expanded in the sandbox
# shellcheck disable=SC2086 # priv: words
$priv unshare --map-root-user --mount --pid --net --fork --kill-child \
	env CHROOT="$(command -v chroot)" BUSYBOX="$(command -v busybox)" sh -c '
	mount -t tmpfs -o mode=755 tmpfs /mnt || exit 1
	cd /mnt && "$BUSYBOX" cpio -i -d -m -H newc 2>/dev/null
	[ -x /mnt/init ] || { echo "fake-qemu: no /init in the initramfs"; exit 1; }
	for n in /mnt/dev/console /mnt/dev/null; do
		: >"$n" 2>/dev/null; mount --bind /dev/null "$n" || exit 1
	done
	exec env -i HOME=/ TERM=linux "$CHROOT" /mnt /init </dev/null' <"$initrd" 2>&1
rc=$?
# 128 + SIGHUP: the namespace's init ended by its reboot(2); 0: it ran
# off its end.  Anything else: no sandbox (its reason is on the console).
case $rc in
0 | 129) exit 0 ;;
*)
	echo "fake-qemu: the sandbox ended with status $rc" >&2
	exit 1
	;;
esac
