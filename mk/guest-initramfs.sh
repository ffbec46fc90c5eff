#!/usr/bin/env bash
# The guest initramfs of the HVM trace: busybox-static, the tlbstorm
# workload (mk/guest/tlbstorm.c, static) and mk/guest/init.  The kernel is
# the test host's own Debian kernel (its /boot/vmlinuz-*), so nothing here
# needs modules.
#
#   mk/guest-initramfs.sh OUTDIR      -> OUTDIR/initrd.gz, OUTDIR/tlbstorm
set -euo pipefail
out=${1:?usage: mk/guest-initramfs.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
bb=/bin/busybox
file -L "$bb" 2>/dev/null | grep -q 'statically linked' ||
	{ echo "guest-initramfs: $bb is not busybox-static (make deps)" >&2; exit 1; }
mkdir -p "$out"
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread -o "$out/tlbstorm" "$top/mk/guest/tlbstorm.c"
cp "$bb" "$root/bin/busybox"
cp "$out/tlbstorm" "$root/bin/tlbstorm"
install -m 755 "$top/mk/guest/init" "$root/init"
(cd "$root" && find . | LC_ALL=C sort | "$bb" cpio -o -H newc 2>/dev/null | gzip -6) >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
echo "guest-initramfs: $out/initrd.gz ($(stat -c %s "$out/initrd.gz") bytes)"
