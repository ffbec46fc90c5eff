#!/bin/sh
# Runs on the test host (dom0), from mk/test-host.sh's 9p share
# (TEST_HOST_HVM_NIC): HVM guests with an emulated NIC, one after the
# other, one per MSI path of IPB_NIC_PATHS; for each, a ping flood from
# dom0 to the guest's eth0 while xentrace records the seed's masks, then
# ab against the guest's httpd; every guest destroyed afterwards whatever
# happened.  (mk/guest/host-run.sh is the PVH guests' script.)
#
#   sh host-nic.sh SHAREDIR   (SHAREDIR/nic/{vmlinuz,initrd.gz} in, SHAREDIR/out/ out)
#
# The guest: xl type = "hvm" through Debian's device model (qemu-system-xen,
# SeaBIOS, hvmloader), direct kernel boot (make dom0's bzImage and
# mk/guest-initramfs.sh's initramfs with e1000e.ko: /init's ipb.nic mode),
# 2 vCPUs, 256 MiB, shadow paging (hap = 0: nested paging under QEMU's
# NPT does not boot, README), the serial console, no disk, an emulated
# e1000e (MSI-X) on the bridge xenbr0 (10.0.0.1 in dom0, the guest
# 10.0.0.2); xen_emul_unplug=never keeps the emulated NIC in use.
# IPB_NIC_PATHS (default "default nopv"):
#   default  the guest's own choice: Linux on Xen HVM maps MSIs to pirqs
#            (event channels, Xen's upcall vector 243);
#   nopv     xen_nopv: no Xen features, the MSI's vector delivered by the
#            emulated local APIC.
# IPB_GUEST_BOOT_SECS (default 1200): from xl create to the guest's workload.
# IPB_GUEST_SECS (default 60): how long the guest serves (guest time).
# IPB_NIC_HOLD=1: the guest does not power itself off at the end (ipb.hold)
# but waits to be destroyed.
#
# Prints IPB-NIC markers on the host console; the last is "IPB-NIC rc=N".
share=${1:?usage: host-nic.sh SHAREDIR}
out=$share/out
name=ipb-nic
secs=${IPB_GUEST_SECS:-60}
paths=${IPB_NIC_PATHS:-default nopv}
gaddr=10.0.0.2
hold=
[ "${IPB_NIC_HOLD:-}" != 1 ] || hold=" ipb.hold"
rc=0
say() { echo "IPB-NIC $*"; }
gone() {  # the guest, its console reader and the load stopped
	[ -n "${pingpid:-}" ] && kill "$pingpid" 2>/dev/null
	pingpid=
	xl list "$name" >/dev/null 2>&1 && { xl destroy "$name"; say "guest destroyed"; }
	[ -n "${conpid:-}" ] && kill "$conpid" 2>/dev/null
	conpid=
}
finish() {
	gone
	xl list "$name" >/dev/null 2>&1 && rc=1
	xl list >"$out/nic-xl-list.txt" 2>&1
	xl dmesg >"$out/nic-xl-dmesg.txt" 2>&1
	sync
	echo "IPB-NIC rc=$rc"
}
trap finish EXIT
# wait_for FILE REGEX SECONDS: until FILE has REGEX, or the guest is gone.
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
xl info >"$out/nic-xl-info.txt" 2>&1
say "$(grep -E '^(virt_caps|xen_version|nr_cpus)' "$out/nic-xl-info.txt" | tr -s ' ' | tr '\n' ';')"
grep -q '^virt_caps.*hvm' "$out/nic-xl-info.txt" || { say "no hvm in virt_caps"; rc=1; exit; }
for f in /usr/lib/xen-4.17/boot/hvmloader /usr/libexec/xen-qemu-system-i386 /usr/share/seabios/bios-256k.bin; do
	[ -f "$f" ] || { say "no $f (mk/host-image.sh: xen-system-amd64, qemu-system-xen)"; rc=1; exit; }
done
# The PV vif backend libxl sets up beside the emulated NIC, and the bridge
# Xen's vif-bridge puts the device model's tap into.
modprobe xen-netback 2>/dev/null
ip link show xenbr0 >/dev/null 2>&1 || ip link add xenbr0 type bridge
ip addr add 10.0.0.1/24 dev xenbr0 2>/dev/null
ip link set xenbr0 up
say "bridge: $(ip -br addr show xenbr0 | tr -s ' ')"
xl set-parameters guest_loglvl=all
# guest PATH ARGS: one guest, its load, its traces (nic-PATH).
guest() {
	tag=nic-$1
	cat >/tmp/$name.cfg <<CFG
# mk/guest/host-nic.sh: HVM, an emulated e1000e, MSI path $1
type = "hvm"
name = "$name"
device_model_version = "qemu-xen"
kernel = "$share/nic/vmlinuz"
ramdisk = "$share/nic/initrd.gz"
cmdline = "console=ttyS0 loglevel=4 xen_emul_unplug=never ipb.nic=$gaddr ipb.secs=$secs${hold} $2"
memory = 256
vcpus = 2
hap = 0
serial = "pty"
vnc = 0
vga = "none"
vif = [ 'model=e1000e,bridge=xenbr0,mac=00:16:3e:1b:00:02' ]
on_poweroff = "destroy"
on_reboot = "destroy"
on_crash = "destroy"
CFG
	cp /tmp/$name.cfg "$out/$name-$tag.cfg"
	con=$out/guest-console-$tag.log
	xl dmesg -c >>"$out/nic-xl-dmesg-before-guests.txt"
	t0=$(date +%s)
	xl create -c /tmp/$name.cfg </dev/null >"$con" 2>&1 &
	conpid=$!
	if ! wait_for "$con" IPB-GUEST-START "${IPB_GUEST_BOOT_SECS:-1200}"; then
		say "$tag: the guest died before its workload ($(( $(date +%s) - t0 )) s)"
		xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -200 >"$out/guest-xen-$tag.txt"
		cp /var/log/xen/qemu-dm-$name.log "$out/qemu-dm-$tag.log" 2>/dev/null
		gone
		return 1
	fi
	say "$tag: guest serving after $(( $(date +%s) - t0 )) s"
	n=0
	until ping -c 1 -W 2 $gaddr >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 20 ] || { say "$tag: the guest does not answer pings"; gone; return 1; }
	done
	# The load: a ping flood (as fast as the replies come, 100 a second at
	# least) through both recordings.
	ping -q -f -w 60 $gaddr >"$out/ping-$tag.txt" 2>&1 &
	pingpid=$!
	sleep 2
	for t in hvm-sched:0x000affff hvm:0x0008ffff; do
		f=${t%%:*}-$tag mask=${t#*:}
		xentrace -D -e "$mask" -T 5 /tmp/$f.xt >"$out/xentrace-$f.txt" 2>&1
		trc=$?
		cp /tmp/$f.xt "$out/$f.xt"
		rm -f /tmp/$f.xt
		say "$tag: xentrace -e $mask rc=$trc, $(stat -c %s "$out/$f.xt") bytes"
		[ $trc -eq 0 ] || { gone; return 1; }
	done
	kill -INT "$pingpid" 2>/dev/null
	wait "$pingpid"
	pingpid=
	say "$tag: ping -f: $(grep -E 'transmitted|rtt' "$out/ping-$tag.txt" | tr '\n' ' ')"
	ab -q -t 10 -c 1 http://$gaddr/ >"$out/ab-$tag.txt" 2>&1
	say "$tag: ab -t 10 -c 1 rc=$?: $(grep -E '^(Complete requests|Requests per second|Time per request)' "$out/ab-$tag.txt" | head -2 | tr -s ' ' | tr '\n' ' ')"
	if wait_for "$con" IPB-GUEST-DONE $((secs * 3 + 60)); then
		i=0
		[ -z "$hold" ] || { say "$tag: guest workload done, held (ipb.hold): destroying it"; i=60; }
		while xl list "$name" >/dev/null 2>&1 && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
		xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -200 >"$out/guest-xen-$tag.txt"
		cp /var/log/xen/qemu-dm-$name.log "$out/qemu-dm-$tag.log" 2>/dev/null
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
	xl dmesg | grep -a "(d[1-9][0-9]*)" | tail -200 >"$out/guest-xen-$tag.txt"
	cp /var/log/xen/qemu-dm-$name.log "$out/qemu-dm-$tag.log" 2>/dev/null
	gone
	return 1
}
args_of() {
	case $1 in
	default) echo "" ;;
	nopv) echo "xen_nopv" ;;
	*) return 1 ;;
	esac
}
# Each guest ends with "IPB-NIC nic-PATH: end rc=N" (mk/test-host.sh waits for it).
for p in $paths; do
	a=$(args_of "$p") || { say "unknown path $p"; rc=1; continue; }
	guest "$p" "$a"
	r=$?
	say "nic-$p: end rc=$r"
	[ $r -eq 0 ] || rc=1
done
