#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make dom0: the dom0 kernel and initramfs for the QEMU host backend.
#
#   images/dom0.sh OUTDIR AGENT
#
# OUTDIR/vmlinuz         Debian's linux-image-amd64 kernel (extracted, never
#                        installed on the host)
# OUTDIR/vmlinux         the same, decompressed: Xen loads an ELF directly,
#                        while decompressing the bzImage takes it ~14 s
#                        under TCG
# OUTDIR/initrd.gz       busybox-static + the modules below + the agent
# OUTDIR/kernel-version  the kernel package version
set -euo pipefail
out=${1:?usage: images/dom0.sh OUTDIR AGENT}
agent=${2:?usage: images/dom0.sh OUTDIR AGENT}
top=$(cd "$(dirname "$0")/.." && pwd)
# What the agent needs: the Xen device nodes, virtio-pci, 9p for getting
# files out, virtio-blk for the block I/O workload.
MODULES="xen-privcmd xenfs xen-evtchn xen-gntdev virtio_pci virtio_blk 9pnet_virtio 9p"
mkdir -p "$out/dl"
out=$(cd "$out" && pwd)

# 1. The kernel package (linux-image-amd64 is a metapackage: take the image
#    it depends on).
if [ ! -f "$out/kernel-version" ] || [ ! -d "$out/kernel" ]; then
	dep=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -n "$dep" ] || { echo "dom0: cannot resolve linux-image-amd64 (apt-get update?)" >&2; exit 1; }
	echo "dom0: fetching $dep"
	rm -f "$out"/dl/*.deb
	(cd "$out/dl" && apt-get download -q "$dep" 2>&1 | grep -v '^W: Download is performed unsandboxed') || {
		echo "dom0: apt-get download $dep failed" >&2; exit 1; }
	rm -rf "$out/kernel"
	dpkg-deb -x "$out"/dl/"$dep"_*.deb "$out/kernel.tmp"
	mv "$out/kernel.tmp" "$out/kernel"
	dpkg-deb --showformat='${Package} ${Version}\n' -W "$out"/dl/"$dep"_*.deb >"$out/kernel-version"
fi
kver=$(ls "$out/kernel/lib/modules" | head -1)
cp -p "$out/kernel/boot/vmlinuz-$kver" "$out/vmlinuz"
if [ ! -f "$out/vmlinux" ] || [ "$out/vmlinuz" -nt "$out/vmlinux" ]; then
	# The payload is the first xz stream inside the bzImage (CONFIG_KERNEL_XZ).
	off=$(grep -abo -m1 $'\xfd7zXZ' "$out/vmlinuz" | head -1 | cut -d: -f1)
	[ -n "$off" ] || { echo "dom0: no xz payload in $out/vmlinuz" >&2; exit 1; }
	tail -c +$((off + 1)) "$out/vmlinuz" | xz -dc 2>/dev/null >"$out/vmlinux.tmp" || true
	head -c 4 "$out/vmlinux.tmp" | grep $'\x7fELF' >/dev/null || {
		echo "dom0: $out/vmlinux: the xz payload is not an ELF kernel" >&2; exit 1; }
	mv "$out/vmlinux.tmp" "$out/vmlinux"
fi

# 2. Module load order (images/modorder.sh).
mod_who=dom0
# shellcheck source=images/modorder.sh
. "$top/images/modorder.sh"
mod_index "$out/kernel/lib/modules/$kver"
for m in $MODULES; do visit "$m"; done

# 3. The initramfs.
root=$out/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,lib/modules,proc,sys,dev,out,tmp}
cp /bin/busybox "$root/bin/busybox"
cp "$agent" "$root/bin/ipibench-agent"
cp "$top/images/dom0/init" "$root/init"
chmod 755 "$root/init"
: >"$root/etc/modules.order"
for n in "${order[@]}"; do
	cp "${path[$n]}" "$root/lib/modules/$n.ko"
	echo "$n.ko" >>"$root/etc/modules.order"
done
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -6) >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
echo "dom0: $out/vmlinux ($(cat "$out/kernel-version")), $out/initrd.gz (${#order[@]} modules, agent)"
