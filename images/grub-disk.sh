#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A BIOS disk image that boots a Xen host through real GRUB, without root:
# the test host of the reboot backend (tests/integration/test_reboot.c).
#
#   images/grub-disk.sh OUTDIR CONFIG [LOCAL_CONFIG]
#
# OUTDIR/disk.img   MBR disk: GRUB's boot.img in sector 0, core.img in the
#                   gap after it (sectors 1..2047), one ext2 partition at
#                   1 MiB made with mke2fs -d (no loop device, no mount):
#     /boot/grub/grub.cfg      Debian-like: load_env, the one-shot next_entry
#                              dance of 00_header (GRUB clears next_entry
#                              itself with save_env), a default Xen entry,
#                              and 41_custom's "source custom.cfg" where
#                              'ipibench host install' puts its entries
#     /boot/grub/grubenv       1024-byte environment block
#     /boot/xen.gz             the host's "default" Xen (no x2apic-mode)
#     /boot/vmlinux-KVER, /boot/initrd.img-KVER   dom0 (default entry's)
#     /e2e/xen.gz              what 'ipibench host install --xen' installs
#     /e2e/e2e.ini             the config the first boot runs
#     /e2e/local.ini           LOCAL_CONFIG, run with the local backend once
#                              the matrix is done (optional)
#     /e2e/start               first-boot trigger (removed when used)
# OUTDIR/part-offset  byte offset of the partition (for debugfs 'img?offset=')
#
# The dom0 initramfs is build/dom0/initramfs plus ext4 modules, the ipibench
# command with its shared libraries, and an init that plays the systemd
# unit's role: mount the disk, start the matrix on the first boot, and after
# every later boot run 'ipibench run --resume DIR' when the unit is enabled
# and /var/lib/ipibench/pending exists.
set -euo pipefail
out=${1:?usage: images/grub-disk.sh OUTDIR CONFIG}
config=${2:?usage: images/grub-disk.sh OUTDIR CONFIG}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${IPIBENCH_BUILD:-$top/build}
grubdir=/usr/lib/grub/i386-pc
for f in "$build/xen/xen.gz" "$build/dom0/vmlinux" "$build/dom0/initramfs/init" \
	 "$build/bin/ipibench" "$build/bin/ipibench-agent" "$grubdir/boot.img" "$config"; do
	[ -e "$f" ] || { echo "grub-disk: $f missing (make hv dom0 build; grub-pc-bin)" >&2; exit 1; }
done
for p in grub-mkimage grub-editenv mke2fs; do
	command -v $p >/dev/null || { echo "grub-disk: $p not found (grub-common, e2fsprogs)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
kmods=$(ls -d "$build"/dom0/kernel/lib/modules/* | head -1)
kver=${kmods##*/}

# 1. The dom0 initramfs: the QEMU backend's one + ext4 + ipibench + init.
ird=$out/initramfs
rm -rf "$ird"
cp -a "$build/dom0/initramfs" "$ird"
mod_who=grub-disk
# shellcheck source=images/modorder.sh
. "$top/images/modorder.sh"
mod_index "$kmods"
while read -r m; do seen[${m%.ko}]=1; done <"$ird/etc/modules.order"
for m in crc32c_generic ext4; do visit "$m"; done
for n in "${order[@]}"; do
	cp "${path[$n]}" "$ird/lib/modules/$n.ko"
	echo "$n.ko" >>"$ird/etc/modules.order"
done
cp "$build/bin/ipibench" "$ird/bin/ipibench"
cp "$build/bin/ipibench-agent" "$ird/bin/ipibench-agent"
# The shared libraries ipibench needs, at the paths the loader looks in
# (none for the static build make build makes; ldd fails on those).
if readelf -l "$build/bin/ipibench" | grep 'Requesting program interpreter' >/dev/null; then
	ldd "$build/bin/ipibench" | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "$ird$(dirname "$lib")"
		cp -L "$lib" "$ird$lib"
	done
fi
cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
# ipibench reboot-backend test host: dom0 init (busybox).  Plays systemd's
# part for ipibench-resume.service.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mkdir -p /proc /sys /dev /host /tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /etc/modules.order); do
	insmod /lib/modules/$m 2>/dev/null || echo "e2e: insmod $m failed"
done
mount -t xenfs xenfs /proc/xen 2>/dev/null
echo "ipibench: dom0 up"
n=0
while [ ! -b /dev/vda1 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
mount -t ext2 /dev/vda1 /host || { echo "e2e: cannot mount /dev/vda1"; poweroff -f; }
export IPIBENCH_HOST_ROOT=/host IPIBENCH_AGENT=/bin/ipibench-agent
export IPIBENCH_REBOOT_CMD="sync; reboot -f"
if [ -f /host/e2e/start ]; then
	rm -f /host/e2e/start
	sync
	# Xen's and dom0's command lines: the running ones (install's defaults).
	echo "e2e: first boot: host install and run"
	ipibench host install --yes --xen /host/e2e/xen.gz \
		--kernel /host/boot/vmlinux-KVER --initrd /host/boot/initrd.img-KVER \
		--results /host/results
	echo "e2e: host install rc=$?"
	ipibench host status
	ipibench run -c /host/e2e/e2e.ini -o /host/results/e2e
	echo "e2e: run rc=$?"
elif [ -L /host/etc/systemd/system/multi-user.target.wants/ipibench-resume.service ] &&
     [ -f /host/var/lib/ipibench/pending ]; then
	. /host/var/lib/ipibench/pending
	echo "e2e: unit: ipibench run --resume $IPIBENCH_RESULTS"
	ipibench run --resume "$IPIBENCH_RESULTS"
	echo "e2e: resume rc=$?"
	# Matrix done: the local backend on this boot (one mode right, one not).
	if [ ! -f /host/var/lib/ipibench/pending ] && [ -f /host/e2e/local.ini ]; then
		ipibench run -c /host/e2e/local.ini -o /host/results/local
		echo "e2e: local rc=$?"
	fi
else
	echo "e2e: nothing pending"
fi
ipibench host status
sync
umount /host
echo "e2e: idle"
sleep 2
poweroff -f
EOF
sed -i "s/KVER/$kver/g" "$ird/init"
chmod 755 "$ird/init"

# 2. The partition's files.
root=$out/root
rm -rf "$root"
mkdir -p "$root/boot/grub" "$root/e2e" "$root/results"
cp "$build/xen/xen.gz" "$root/boot/xen.gz"
cp "$build/xen/xen.gz" "$root/e2e/xen.gz"
cp "$build/dom0/vmlinux" "$root/boot/vmlinux-$kver"
(cd "$ird" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -6) >"$root/boot/initrd.img-$kver"
cp "$config" "$root/e2e/e2e.ini"
[ -z "${3:-}" ] || cp "$3" "$root/e2e/local.ini"
: >"$root/e2e/start"
grub-editenv "$root/boot/grub/grubenv" create
xencmd="console=com1 com1=115200 dom0_mem=512M dom0_max_vcpus=1 loglvl=all console_timestamps=boot"
cat >"$root/boot/grub/grub.cfg" <<EOF
# Debian-like grub.cfg (the parts of 00_header, 20_linux_xen and 41_custom
# that matter for one-shot boots).
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
if [ -s \$prefix/grubenv ]; then
  load_env
fi
if [ "\${next_entry}" ] ; then
   set default="\${next_entry}"
   set next_entry=
   save_env next_entry
   set boot_once=true
else
   set default="0"
fi
set timeout=1
echo "grub: default=\${default} boot_once=\${boot_once}"
menuentry 'Debian GNU/Linux, with Xen hypervisor' --id xen-default {
	insmod part_msdos
	insmod ext2
	search --no-floppy --file --set=root /boot/xen.gz
	echo 'Loading Xen (default entry) ...'
	multiboot2 /boot/xen.gz $xencmd
	module2 /boot/vmlinux-$kver placeholder console=hvc0 quiet
	module2 --nounzip /boot/initrd.img-$kver
}
### BEGIN /etc/grub.d/41_custom ###
if [ -f  \${config_directory}/custom.cfg ]; then
  source \${config_directory}/custom.cfg
elif [ -z "\${config_directory}" -a -f  \$prefix/custom.cfg ]; then
  source \$prefix/custom.cfg
fi
### END /etc/grub.d/41_custom ###
EOF

# 3. The image: ext2 at 1 MiB, MBR partition entry, boot.img + core.img.
off=$((2048 * 512))
size_mb=$(( ($(du -sm "$root" | cut -f1) * 3) / 2 + 64 ))
img=$out/disk.img
rm -f "$img" "$img.tmp"
truncate -s $(( (size_mb + 1) * 1024 * 1024 )) "$img.tmp"
mke2fs -q -F -t ext2 -L ipibench-e2e -E offset=$off -d "$root" "$img.tmp" "${size_mb}M"
sectors=$((size_mb * 2048))
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
	$((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
# Entry 1: active, CHS fields saturated (LBA is what counts), type 0x83.
{ printf '\x80\xfe\xff\xff\x83\xfe\xff\xff'; printf "$(le32 2048)$(le32 $sectors)"; } |
	dd of="$img.tmp" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img.tmp" bs=1 seek=510 conv=notrunc status=none
# boot.img: its code only (bytes 0..439), the partition table stays.  Its
# default kernel sector is 1, where core.img goes; core.img's diskboot
# blocklist defaults to "from sector 2, the rest of core.img".
dd if="$grubdir/boot.img" of="$img.tmp" bs=440 count=1 conv=notrunc status=none
grub-mkimage -O i386-pc -d "$grubdir" -o "$out/core.img" -p '(hd0,msdos1)/boot/grub' \
	biosdisk part_msdos part_gpt ext2 normal configfile search search_fs_file loadenv \
	test echo multiboot2 gzio serial terminal sleep reboot halt
core_sectors=$(( ($(stat -c %s "$out/core.img") + 511) / 512 ))
[ "$core_sectors" -lt 2047 ] || { echo "grub-disk: core.img too big for the MBR gap" >&2; exit 1; }
dd if="$out/core.img" of="$img.tmp" bs=512 seek=1 conv=notrunc status=none
mv "$img.tmp" "$img"
echo $off >"$out/part-offset"
echo "grub-disk: $img (${size_mb} MiB ext2 at $off, core.img $core_sectors sectors, dom0 $kver)"
