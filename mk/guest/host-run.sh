#!/bin/sh
# Runs on the test host (dom0), from mk/test-host.sh's 9p share (TEST_HOST_HVM=1):
# PVH guests (the host's own Debian kernel or SHAREDIR/guest/vmlinux,
# mk/guest-initramfs.sh's initramfs, 2 vCPUs, 256 MiB), one after the other,
# one per IPI path of the guest kernel; for each, the seed's xentrace
# recordings while the guest runs its IPI workload; every guest destroyed
# afterwards whatever happened.
#
#   sh host-run.sh SHAREDIR       (SHAREDIR/guest/initrd.gz in, SHAREDIR/out/ out)
#
# IPB_GUEST_PATHS (default "evtchn apic") names the guests, in order:
#   tlbstorm  the guest's defaults, tlbstorm's TLB shootdowns (event-channel
#             IPIs, Xen's upcall vector 243);
#   evtchn    the ipbipi module's reschedule IPIs by the kernel's smp_ops:
#             event channels (EVTCHNOP_send, vector 243);
#   apic      the same IPIs by apic->send_IPI: x2APIC ICR writes to Xen's
#             emulated local APIC, vector 0xfd (a PVH guest has no switch
#             for its own IPIs: xen_nopv/nopv are HVM-only, and see
#             novector);
#   novector  xen_no_vector_callback: no Xen upcall vector, so no Xen
#             smp_ops either (a PVH guest has no PCI platform device for
#             the event channels then).
# IPB_GUEST_BOOT_SECS (default 600): how long a guest may take to its workload.
# IPB_GUEST_HAP (default 0: shadow paging; 1: nested paging).
# IPB_GUEST_HAP_PROBE=1 adds one hap=1 boot of tlbstorm at the end,
# reported but not counted in rc.
#
# Prints IPB-* markers on the host console; the last is "IPB-HVM rc=N".
share=${1:?usage: host-run.sh SHAREDIR}
out=$share/out
name=ipb-guest
secs=${IPB_GUEST_SECS:-30}   # workload length; the two traces take 5 s each
paths=${IPB_GUEST_PATHS:-evtchn apic}
hap=${IPB_GUEST_HAP:-0}
rc=0
say() { echo "IPB-HVM $*"; }
gone() {  # the guest and its console reader stopped
	xl list "$name" >/dev/null 2>&1 && { xl destroy "$name"; say "guest destroyed"; }
	[ -n "${conpid:-}" ] && kill "$conpid" 2>/dev/null
	conpid=
}
finish() {
	gone
	xl list "$name" >/dev/null 2>&1 && rc=1
	xl list >"$out/xl-list.txt" 2>&1
	xl dmesg >"$out/xl-dmesg.txt" 2>&1
	sync
	echo "IPB-HVM rc=$rc"
}
trap finish EXIT
# wait_for FILE REGEX SECONDS: until FILE has REGEX, or the guest is gone.
# Seconds by the clock: each turn's `xl list` takes a second or more here.
wait_for() {
	start=$(date +%s)
	while [ $(( $(date +%s) - start )) -lt "$3" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		[ $(( $(date +%s) - start )) -gt 5 ] && ! xl list "$name" >/dev/null 2>&1 &&
			{ grep -q "$2" "$1" 2>/dev/null; return; }
		sleep 1
	done
	grep -q "$2" "$1" 2>/dev/null
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
# guest PATH HAP ARGS: one guest, its workload, its traces (PATH-hapHAP).
# 0 if its workload finished and it powered itself off.
guest() {
	tag=$1-hap$2
	cat >/tmp/$name.cfg <<CFG
# mk/guest/host-run.sh: PVH (Xen's own emulated local APIC, no device model), path $1
type = "pvh"
name = "$name"
kernel = "$kernel"
ramdisk = "$share/guest/initrd.gz"
extra = "console=hvc0 earlyprintk=xen loglevel=4 ipb.secs=$secs $3"
memory = 256
vcpus = 2
hap = $2
on_poweroff = "destroy"
on_reboot = "destroy"
on_crash = "destroy"
CFG
	cp /tmp/$name.cfg "$out/$name-$tag.cfg"
	con=$out/guest-console-$tag.log
	xl dmesg -c >>"$out/xl-dmesg-before-guests.txt"
	t0=$(date +%s)
	# -c: the console is attached before the guest runs its first instruction.
	xl create -c /tmp/$name.cfg </dev/null >"$con" 2>&1 &
	conpid=$!
	if ! wait_for "$con" IPB-GUEST-START "${IPB_GUEST_BOOT_SECS:-600}"; then
		say "$tag: the guest died before its workload"
		xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -80 >"$out/guest-xen-$tag.txt"
		gone
		return 1
	fi
	say "$tag: guest workload started after $(( $(date +%s) - t0 )) s"
	sleep 2
	# Two recordings of the same workload: the scheduler class first
	# (runstate changes name the domain and vCPU on each pCPU), then the
	# seed's mask alone (HVM events only: xenalyze puts it all in its
	# default domain).
	for t in hvm-sched:0x000affff hvm:0x0008ffff; do
		f=${t%%:*}-$tag mask=${t#*:}
		xentrace -D -e "$mask" -T 5 /tmp/$f.xt >"$out/xentrace-$f.txt" 2>&1
		trc=$?
		cp /tmp/$f.xt "$out/$f.xt"
		rm -f /tmp/$f.xt
		say "$tag: xentrace -e $mask rc=$trc, $(stat -c %s "$out/$f.xt") bytes"
		[ $trc -eq 0 ] || return 1
	done
	if wait_for "$con" IPB-GUEST-DONE $((secs * 3 + 60)); then
		# poweroff -f: the guest is gone by itself (on_poweroff = destroy).
		i=0
		while xl list "$name" >/dev/null 2>&1 && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
		xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -80 >"$out/guest-xen-$tag.txt"
		if xl list "$name" >/dev/null 2>&1; then
			say "$tag: guest workload done, but the guest did not power off"
			gone
			return 1
		fi
		say "$tag: guest workload done, guest powered off after $(( $(date +%s) - t0 )) s"
		gone
		return 0
	fi
	say "$tag: no IPB-GUEST-DONE"
	xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -80 >"$out/guest-xen-$tag.txt"
	gone
	return 1
}
args_of() {
	case $1 in
	tlbstorm) echo "" ;;
	evtchn) echo "ipb.ipi=kernel" ;;
	apic) echo "ipb.ipi=apic" ;;
	novector) echo "xen_no_vector_callback" ;;
	*) return 1 ;;
	esac
}
# Each guest ends with "IPB-HVM PATH-hapN: end rc=N" (mk/test-host.sh waits for it).
for p in $paths; do
	a=$(args_of "$p") || { say "unknown path $p"; rc=1; continue; }
	guest "$p" "$hap" "$a"
	r=$?
	say "$p-hap$hap: end rc=$r"
	[ $r -eq 0 ] || rc=1
done
if [ "${IPB_GUEST_HAP_PROBE:-}" = 1 ] && [ "$hap" != 1 ]; then
	guest tlbstorm 1 ""
	say "tlbstorm-hap1: end rc=$? (a probe: not in rc)"
fi
