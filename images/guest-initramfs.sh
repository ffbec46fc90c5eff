#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The guest initramfs of the HVM trace: busybox-static, the tlbstorm
# workload (guest/tlbstorm.c, static), guest/init and, with
# GUEST_KDIR, the ipbipi module (guest/ipbipi: a guest's two IPI paths)
# built against that guest kernel's headers.
#
#   [GUEST_KDIR=/usr/src/linux-headers-RELEASE] images/guest-initramfs.sh OUTDIR [DOM0DIR]
#                                     -> OUTDIR/initrd.gz, OUTDIR/tlbstorm
# With DOM0DIR (make guest: build/dom0), the guest kernel is make dom0's:
# DOM0DIR/vmlinux is copied to OUTDIR/vmlinux and GUEST_KDIR defaults to
# the headers of its release (DOM0DIR/kernel-version; make deps installs
# them), GUEST_MODDIR to DOM0DIR/kernel/lib/modules/RELEASE, and its
# bzImage (DOM0DIR/vmlinuz, what an HVM guest's direct boot takes) is
# copied to OUTDIR/vmlinuz.
# With GUEST_MODDIR=/lib/modules/RELEASE of the guest kernel (make dom0's:
# build/dom0/kernel/lib/modules/6.1.0-57-amd64) the emulated NIC's driver,
# e1000e.ko (Debian builds it as a module; it needs no other), goes in
# too, for /init's NIC mode (ipb.nic=ADDR: the HVM NIC guests of configs/seed-004-nic.ini).
# RELEASE must be the guest kernel's (build/dom0/vmlinux: 6.1.0-57-amd64,
# Debian's linux-headers-6.1.0-57-amd64): the guest's insmod refuses a module
# built for another (its vermagic).
set -euo pipefail
out=${1:?usage: images/guest-initramfs.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
bb=/bin/busybox
file -L "$bb" 2>/dev/null | grep 'statically linked' >/dev/null ||
	{ echo "guest-initramfs: $bb is not busybox-static (make deps)" >&2; exit 1; }
mkdir -p "$out"
if [ -n "${2:-}" ]; then
	pkg=$(awk '{print $1; exit}' "$2/kernel-version" 2>/dev/null)
	rel=${pkg#linux-image-}
	[ -n "$rel" ] && [ -f "$2/vmlinux" ] ||
		{ echo "guest-initramfs: $2: no kernel-version or vmlinux (make dom0)" >&2; exit 1; }
	GUEST_KDIR=${GUEST_KDIR:-/usr/src/linux-headers-$rel}
	[ -f "$GUEST_KDIR/Makefile" ] ||
		{ echo "guest-initramfs: no headers of $rel in $GUEST_KDIR (make deps installs linux-headers-$rel; if make dom0's kernel is older than apt's, rebuild it: rm -r $2 && make dom0)" >&2; exit 1; }
	GUEST_MODDIR=${GUEST_MODDIR:-$2/kernel/lib/modules/$rel}
	cp "$2/vmlinux" "$out/vmlinux.tmp"
	mv "$out/vmlinux.tmp" "$out/vmlinux"
	if [ -f "$2/vmlinuz" ]; then
		cp "$2/vmlinuz" "$out/vmlinuz.tmp"
		mv "$out/vmlinuz.tmp" "$out/vmlinuz"
	fi
fi
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread -o "$out/tlbstorm" "$top/guest/tlbstorm.c"
cp "$bb" "$root/bin/busybox"
cp "$out/tlbstorm" "$root/bin/tlbstorm"
install -m 755 "$top/guest/init" "$root/init"
if [ -n "${GUEST_KDIR:-}" ]; then
	[ -f "$GUEST_KDIR/Makefile" ] || { echo "guest-initramfs: GUEST_KDIR=$GUEST_KDIR: no kernel headers there" >&2; exit 1; }
	kb=$out/ipbipi
	rm -rf "$kb"
	mkdir -p "$kb" "$root/lib"
	cp "$top/guest/ipbipi/ipbipi.c" "$top/guest/ipbipi/Kbuild" "$kb/"
	make -s -C "$GUEST_KDIR" M="$(cd "$kb" && pwd)" modules >"$kb/build.log" 2>&1 ||
		{ echo "guest-initramfs: building ipbipi failed: $kb/build.log" >&2; exit 1; }
	cp "$kb/ipbipi.ko" "$root/lib/ipbipi.ko"
	echo "guest-initramfs: ipbipi.ko for $(strings "$kb/ipbipi.ko" | sed -n 's/^vermagic=//p')"
fi
if [ -n "${GUEST_MODDIR:-}" ]; then
	ko=$(find "$GUEST_MODDIR/kernel/drivers/net/ethernet/intel/e1000e" -name 'e1000e.ko*' 2>/dev/null | head -1)
	case $ko in
	*.ko) ;;
	*) echo "guest-initramfs: GUEST_MODDIR=$GUEST_MODDIR: no uncompressed e1000e.ko there" >&2; exit 1 ;;
	esac
	mkdir -p "$root/lib"
	cp "$ko" "$root/lib/e1000e.ko"
	echo "guest-initramfs: e1000e.ko for $(strings "$ko" | sed -n 's/^vermagic=//p')"
fi
(cd "$root" && find . | LC_ALL=C sort | "$bb" cpio -o -H newc 2>/dev/null | gzip -6) >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
echo "guest-initramfs: $out/initrd.gz ($(stat -c %s "$out/initrd.gz") bytes)"
