#!/bin/sh
# Runs on the test host (dom0), from mk/test-host.sh's 9p share (TEST_HOST_HVM=1):
# one PVH guest (the host's own Debian kernel, mk/guest-initramfs.sh's
# initramfs, 2 vCPUs, 256 MiB), the seed's xentrace recording while the guest
# runs its IPI workload, the guest destroyed afterwards whatever happened.
#
#   sh host-run.sh SHAREDIR       (SHAREDIR/guest/initrd.gz in, SHAREDIR/out/ out)
#
# Prints IPB-* markers on the host console; the last is "IPB-HVM rc=N".
share=${1:?usage: host-run.sh SHAREDIR}
out=$share/out
name=ipb-guest
secs=${IPB_GUEST_SECS:-40}   # workload length; the two traces take 5 s each
rc=0
say() { echo "IPB-HVM $*"; }
finish() {
	xl list "$name" >/dev/null 2>&1 && { xl destroy "$name"; say "guest destroyed"; }
	[ -n "${conpid:-}" ] && kill "$conpid" 2>/dev/null
	xl list "$name" >/dev/null 2>&1 && rc=1
	xl list >"$out/xl-list.txt" 2>&1
	xl dmesg >"$out/xl-dmesg.txt" 2>&1
	sync
	echo "IPB-HVM rc=$rc"
}
trap finish EXIT
# wait_for FILE REGEX SECONDS
wait_for() {
	i=0
	while [ $i -lt "$3" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 1
		i=$((i + 1))
	done
	return 1
}
mkdir -p "$out"
xl info >"$out/xl-info.txt" 2>&1
say "$(grep -E '^(virt_caps|xen_version|nr_cpus)' "$out/xl-info.txt" | tr -s ' ' | tr '\n' ';')"
grep -q '^virt_caps.*hvm' "$out/xl-info.txt" || { say "no hvm in virt_caps"; rc=1; exit; }
# The guest kernel: the host's own Debian kernel unless IPB_GUEST_KERNEL says.
kernel=${IPB_GUEST_KERNEL:-$(ls /boot/vmlinuz-* | head -1)}
# The guest's early messages (earlyprintk=xen: port 0xe9) are Xen's guest
# debug level.
xl set-parameters guest_loglvl=all
# create HAP: start the guest with hap = 1 (nested paging) or 0 (shadow).
# 0 once its console shows the workload started, 1 if the guest died first.
# Shadow first: under QEMU TCG's nested paging both Debian kernels tried
# (6.1.0-50, 6.1.0-57) died 0.7 s into their boot (README).
create() {
	cat >/tmp/$name.cfg <<CFG
# mk/guest/host-run.sh: PVH (Xen's own emulated local APIC, no device model)
type = "pvh"
name = "$name"
kernel = "$kernel"
ramdisk = "$share/guest/initrd.gz"
extra = "console=hvc0 earlyprintk=xen loglevel=4 ipb.secs=$secs"
memory = 256
vcpus = 2
hap = $1
on_poweroff = "destroy"
on_reboot = "destroy"
on_crash = "destroy"
CFG
	cp /tmp/$name.cfg "$out/$name-hap$1.cfg"
	t0=$(date +%s)
	# -c: the console is attached before the guest runs its first instruction.
	xl create -c /tmp/$name.cfg </dev/null >"$out/guest-console.log" 2>&1 &
	conpid=$!
	i=0
	while [ $i -lt 900 ]; do
		grep -q IPB-GUEST-START "$out/guest-console.log" && break
		[ $i -gt 5 ] && ! xl list "$name" >/dev/null 2>&1 && break
		sleep 1
		i=$((i + 1))
	done
	xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -60 >"$out/guest-xen-hap$1.txt"
	cp "$out/guest-console.log" "$out/guest-console-hap$1.log"
	grep -q IPB-GUEST-START "$out/guest-console.log" && return 0
	say "hap=$1: the guest died before its workload ($(wc -l <"$out/guest-xen-hap$1.txt") Xen lines of it)"
	xl destroy "$name" 2>/dev/null
	kill "$conpid" 2>/dev/null
	return 1
}
if create 0 || create 1; then
	say "guest created ($(grep '^hap' /tmp/$name.cfg))"
else
	rc=1
	exit
fi
say "guest workload started after $(( $(date +%s) - t0 )) s"
sleep 2
# Two recordings of the same workload (the scheduler one first: the guest
# of the README died seconds into its workload): the seed's mask (HVM events only: no
# scheduler records, so a reader cannot tell domains apart and xenalyze
# puts it all in its default domain) and the same with the scheduler class
# (runstate changes name the domain and vCPU on each pCPU).
for t in hvm-sched:0x000affff hvm:0x0008ffff; do
	f=${t%%:*} mask=${t#*:}
	xentrace -D -e "$mask" -T 5 /tmp/$f.xt >"$out/xentrace-$f.txt" 2>&1
	trc=$?
	cp /tmp/$f.xt "$out/$f.xt"
	say "xentrace -e $mask rc=$trc, $(stat -c %s /tmp/$f.xt) bytes"
	[ $trc -eq 0 ] || rc=1
done
wait_for "$out/guest-console.log" IPB-GUEST-DONE $((secs * 3 + 60)) && say "guest workload done" ||
	{ say "no IPB-GUEST-DONE"; rc=1; }
sleep 2
