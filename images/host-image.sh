#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real Debian 12 Xen test host as a raw disk image, from Debian's packages
# only: mmdebstrap of bookworm with systemd, grub-pc, linux-image-amd64 and
# Debian's own xen-system-amd64 (the host's stock Xen 4.17), GRUB in the MBR
# and a grub.cfg made by Debian's own grub-mkconfig (/etc/grub.d), a root
# password on the serial console.  What `make test-host` boots (scripts/test-host.sh).
#
#   images/host-image.sh OUTDIR      -> OUTDIR/disk.img (+ key, build.log)
#
# Needs root (mmdebstrap --mode=root; chroot for grub-mkconfig).  No loop
# device and no mount: the ext4 partition is made from the tree with
# mke2fs -d at 1 MiB into the image, GRUB's boot.img and a core.img made
# with the image's own grub-mkimage go into sector 0 and the gap after it
# (what grub-install --target=i386-pc writes), its modules into
# /boot/grub/i386-pc.  grub-mkconfig runs in the chroot with a grub-probe
# that answers for the disk the image will be (/dev/vda1, its UUID); on the
# booted host update-grub and grub-probe are Debian's, unchanged.
#
# Cached: OUTDIR/key is the hash of the package list, the apt source and
# this script and images/host/; when it matches, nothing is rebuilt.
set -euo pipefail
out=${1:?usage: images/host-image.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
# The host's packages (mmdebstrap --variant=minbase --include).
PKGS=(systemd-sysv udev kmod e2fsprogs procps apt
      grub-pc linux-image-amd64 xen-system-amd64
      libjansson4 libinih1 libgsl27
      qemu-system-xen iproute2 iputils-ping apache2-utils)
# (libjansson4, libinih1, libgsl27 are what ipibench_*.deb Depends on:
# under QEMU the host has no network, so scripts/test-host.sh's offline apt
# install needs them here.  qemu-system-xen is the HVM guests' device
# model (hvmloader comes with xen-system-amd64: /usr/lib/xen-4.17/boot);
# iproute2 makes the guests' bridge (xenbr0) for Xen's vif-bridge,
# iputils-ping and apache2-utils (ab) drive the emulated NIC's workload
# from dom0: runner/guest.h, configs/seed-004-nic.ini.)
ROOT_PASSWORD=ipibench
# Under QEMU the image is a virtio disk, /dev/vda (GRUB's hd0): see images/host/grub-probe.
SIZE_MB=${HOST_IMAGE_MB:-3072}
# Xen's and dom0's command lines of the default (Debian) Xen entry.
XEN_CMDLINE="console=com1 com1=115200 dom0_mem=512M,max:512M dom0_max_vcpus=1 loglvl=all console_timestamps=boot"
# quiet: every console line goes through Xen's emulated UART.  pci=nommconf:
# under TCG this PV dom0 spent over 15 minutes mapping q35's 256 MiB of
# PCI MMCONFIG page by page (Xen's '0' key: its stack in 0xb0000000-
# 0xbfffffff); type 1 config access serves virtio's devices as well.
DOM0_CMDLINE="console=hvc0 quiet systemd.show_status=1 pci=nommconf clocksource=xen"

[ "$(id -u)" -eq 0 ] || { echo "host-image: needs root (mmdebstrap --mode=root, chroot)" >&2; exit 1; }
for p in mmdebstrap mke2fs; do
	command -v $p >/dev/null || { echo "host-image: $p not found (make deps)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
sources=$(bash "$top/scripts/deps.sh" stanza deb "$suite $suite-updates")
# Two caches: the tree mmdebstrap made (OUTDIR/rootfs, tree.key: the package
# list, the apt source), and the disk made from it (disk.img, key: tree.key,
# this script and images/host/).
tree_key=$( { printf '%s\n' "$suite" "${PKGS[@]}" "$sources"; } | sha256sum | cut -c1-16)
key=$( { echo "$tree_key $SIZE_MB $ROOT_PASSWORD $XEN_CMDLINE $DOM0_CMDLINE"; cat "$0" "$top"/images/host/*; } |
	sha256sum | cut -c1-16)
if [ -f "$out/disk.img" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	echo "host-image: up to date ($out/disk.img, key $key)"
	exit 0
fi
start=$(date +%s)
rm -f "$out/disk.img" "$out/key"
root=$out/rootfs
printf '%s\n' "$sources" >"$out/sources"

# 1. The tree (Debian's packages, nothing else).
log=$out/build.log
if [ -d "$root" ] && [ "$(cat "$out/tree.key" 2>/dev/null)" = "$tree_key" ]; then
	echo "host-image: tree up to date ($root, key $tree_key)"
else
	rm -rf "$root" "$root.tmp" "$out/tree.key" "$out/uuid"
	echo "host-image: mmdebstrap $suite: ${PKGS[*]} (log: $log)"
	if ! mmdebstrap --mode=root --variant=minbase --include="$(IFS=,; echo "${PKGS[*]}")" \
		--aptopt='Acquire::Languages "none"' "$suite" "$root.tmp" "$out/sources" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "host-image: mmdebstrap failed: $log" >&2
		exit 1
	fi
	mv "$root.tmp" "$root"
	echo "$tree_key" >"$out/tree.key"
	echo "host-image: tree in $(( $(date +%s) - start ))s"
fi

# 2. The host's own settings (images/host/customize, in a chroot of the tree):
# hostname, fstab, root password, /etc/default/grub.d, grub.cfg from
# Debian's grub-mkconfig, GRUB's modules and core.img.  The UUID is the
# tree's, kept in OUTDIR/uuid.
[ -s "$out/uuid" ] || cat /proc/sys/kernel/random/uuid >"$out/uuid"
uuid=$(cat "$out/uuid")
h=$out/hooks
rm -rf "$h"
mkdir -p "$h"
cp "$top/images/host/grub-probe" "$h/"
{
	echo "# ipibench test host (images/host-image.sh): serial console, Xen by default."
	echo "GRUB_TIMEOUT=1"
	echo "GRUB_TERMINAL=serial"
	echo "GRUB_SERIAL_COMMAND=\"serial --unit=0 --speed=115200\""
	echo "GRUB_CMDLINE_LINUX=\"$DOM0_CMDLINE\""
	echo "GRUB_CMDLINE_LINUX_DEFAULT=\"\""
	echo "GRUB_CMDLINE_XEN_DEFAULT=\"$XEN_CMDLINE\""
	echo "GRUB_DISABLE_OS_PROBER=true"
	echo "XEN_OVERRIDE_GRUB_DEFAULT=1"
} >"$h/grub-default.cfg"
if ! sh "$top/images/host/customize" "$root" "$h" "$uuid" "$ROOT_PASSWORD" >>"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "host-image: images/host/customize failed: $log" >&2
	exit 1
fi
grep -q "multiboot2.*xen" "$root/boot/grub/grub.cfg" ||
	{ echo "host-image: $root/boot/grub/grub.cfg has no Xen entry" >&2; exit 1; }

# 2. The disk: MBR (boot.img's code, one active Linux partition at 1 MiB),
# core.img in the gap, ext4 made from the tree.
off=$((2048 * 512))
img=$out/disk.img.tmp
rm -f "$img"
truncate -s $(( (SIZE_MB + 1) * 1024 * 1024 )) "$img"
mke2fs -q -F -t ext4 -U "$uuid" -L ipibench-host -E offset=$off -d "$root" "$img" "${SIZE_MB}M"
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
	$((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
{ printf '\x80\xfe\xff\xff\x83\xfe\xff\xff'; printf "$(le32 2048)$(le32 $((SIZE_MB * 2048)))"; } |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
dd if="$h/boot.img" of="$img" bs=440 count=1 conv=notrunc status=none
core_sectors=$(( ($(stat -c %s "$h/core.img") + 511) / 512 ))
[ "$core_sectors" -lt 2047 ] || { echo "host-image: core.img too big for the MBR gap" >&2; exit 1; }
dd if="$h/core.img" of="$img" bs=512 seek=1 conv=notrunc status=none
mv "$img" "$out/disk.img"
echo "$key" >"$out/key"
kver=$(ls "$root/boot" | sed -n 's/^vmlinuz-//p' | head -1)
xver=$(ls "$root/boot" | sed -n 's/^xen-\(.*\)\.gz$/\1/p' | head -1)
echo "host-image: $out/disk.img in $(( $(date +%s) - start ))s (Debian $suite, Linux $kver, Xen $xver, ${SIZE_MB} MiB ext4 UUID $uuid, key $key)"
