#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Record real xentrace files under QEMU (TCG), for the reader's tests and
# the speed benchmark.
#
#   record-qemu.sh [--mode physical|cluster|mixed] [--cpus N] [--secs S]
#                  [--job JOB.json] [--xen XEN] [--out DIR]
#
# Boots build/xen/xen (make hv; or --xen) with build/dom0's kernel (make dom0) and an
# initramfs made of build/dom0/initramfs plus Debian's xentrace (with its
# shared libraries) and build/bin/ipibench-xtrace (probes/collect.c).  In
# dom0 it records with xentrace while dom0 keeps busy (S rounds of dd,
# ls -R /sys, sync), then either the same with ipibench-xtrace, or, with
# --job, runs the agent on JOB (whose workloads may ask for traces):
#   DIR/xentrace.xt   written by xentrace -e all
#   DIR/ipibench.xt   written by ipibench-xtrace -e all (no --job)
#   DIR/ipibench.json what ipibench-xtrace counted (lost records...)
#   DIR/agent.json, DIR/*.xtrace   the agent's results and traces (--job)
#   DIR/console.log   the serial console
# Default DIR: build/trace-qemu/MODE-N.  Nothing here is part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=mixed cpus=8 secs=5 job='' out='' xen=build/xen/xen
while [ $# -gt 0 ]; do
	case $1 in
	--mode) mode=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--job) job=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--xen) xen=$2; shift 2 ;;
	*) echo "usage: record-qemu.sh [--mode M] [--cpus N] [--secs S] [--job F] [--xen X] [--out DIR]" >&2; exit 2 ;;
	esac
done
out=${out:-build/trace-qemu/$mode-$cpus}
dom0=build/dom0
for f in "$xen" "$dom0/vmlinux" "$dom0/initramfs/init" build/bin/ipibench-xtrace; do
	[ -e "$f" ] || { echo "record-qemu: $f missing (make hv dom0 build/bin/ipibench-xtrace)" >&2; exit 1; }
done
work=build/trace-qemu/work
rm -rf "$work" && mkdir -p "$work/share" "$out"
root=$work/root
cp -a "$dom0/initramfs" "$root"

# Debian's xentrace and the libraries it needs.
xu=build/trace-qemu/xen-utils
if [ ! -x "$xu/usr/lib/xen-4.17/bin/xentrace" ]; then
	mkdir -p "$xu"
	(cd "$xu" && apt-get download -q xen-utils-4.17 2>&1 | grep -v unsandboxed || true)
	dpkg-deb -x "$xu"/xen-utils-4.17_*.deb "$xu"
fi
cp "$xu/usr/lib/xen-4.17/bin/xentrace" "$root/bin/xentrace"
mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu"
for l in $(ldd "$root/bin/xentrace" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
	case $l in
	/lib64/*) cp -L "$l" "$root/lib64/" ;;
	*) cp -L "$l" "$root/lib/x86_64-linux-gnu/" ;;
	esac
done
cp build/bin/ipibench-xtrace "$root/bin/"
# The agent as built now (it links probes/collect.c).
[ -x build/bin/ipibench-agent ] && cp build/bin/ipibench-agent "$root/bin/"
[ -n "$job" ] && cp "$job" "$work/share/job.json"

cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in \$(cat /etc/modules.order); do insmod /lib/modules/\$m || echo "rec: insmod \$m failed"; done
mount -t xenfs xenfs /proc/xen 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ipibench /out || echo "rec: no 9p share"
busy() { i=0; while [ \$i -lt $secs ]; do dd if=/dev/zero of=/tmp/z bs=64k count=64 2>/dev/null; ls -R /sys >/dev/null 2>&1; sync; i=\$((i+1)); done; }
echo "rec: xentrace start"
# xentrace writes straight from the foreign-mapped buffers, which 9p
# cannot take (EFAULT): write to RAM, then copy.
xentrace -e all -S 32 /tmp/xentrace.xt & p=\$!
busy; sleep 1; kill -INT \$p; wait \$p; echo "rec: xentrace rc=\$?"
cp /tmp/xentrace.xt /out/xentrace.xt; rm -f /tmp/xentrace.xt
if [ -f /out/job.json ]; then
	# The agent traces the workloads whose job entry asks ("trace": {...}).
	ipibench-agent --job /out/job.json --output /out; echo "rec: agent rc=\$?"
else
	echo "rec: ipibench-xtrace start"
	ipibench-xtrace -e all -s 32 -p 20 /out/ipibench.xt > /out/ipibench.json & p=\$!
	busy; sleep 1; kill -INT \$p; wait \$p; echo "rec: ipibench-xtrace rc=\$?"
fi
sync; umount /out; echo "rec: done"; poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

echo "record-qemu: booting $mode, $cpus CPUs (TCG: a minute or more)"
timeout 900 nice qemu-system-x86_64 -machine q35,kernel-irqchip=split -cpu qemu64,+x2apic \
	-device intel-iommu,intremap=on,eim=on -smp "$cpus" -m 2048 -display none \
	-monitor none -serial stdio -no-reboot \
	-kernel "$xen" \
	-append "console=com1 com1=115200 dom0_mem=512M dom0_max_vcpus=1 loglvl=all noreboot x2apic-mode=$mode console_timestamps=boot" \
	-initrd "$dom0/vmlinux console=hvc0 quiet,$work/initrd.gz" \
	-virtfs "local,path=$work/share,mount_tag=ipibench,security_model=none,id=fs0" \
	</dev/null >"$out/console.log" 2>&1 &
qpid=$!
# Stop QEMU once dom0 says it is done (poweroff with many CPUs is slow).
while kill -0 $qpid 2>/dev/null; do
	if grep -q "rec: done" "$out/console.log"; then sleep 2; kill $qpid 2>/dev/null || true; break; fi
	sleep 2
done
wait $qpid 2>/dev/null || true
grep "rec:" "$out/console.log" || true
for f in "$work"/share/*; do
	[ "$(basename "$f")" = job.json ] || mv "$f" "$out/"
done
ls -la "$out"
