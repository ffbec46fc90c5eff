#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make test-host: boot the real Debian test host (images/host-image.sh) under
# QEMU TCG from its disk: BIOS, GRUB (Debian's grub.cfg), Debian's Xen 4.17,
# a systemd dom0 on the serial console; log in as root there and ask the
# host what it is (Xen's version and command line, the x2APIC driver, dom0's
# capabilities, systemd's state), then power it off.
#
#   scripts/test-host.sh IMAGEDIR [OUTDIR]    (OUTDIR default IMAGEDIR/boot)
#
# With TEST_HOST_DEBS=DIR (make test-host: BUILD/deb), end to end as a user
# would, through a 9p share (OUTDIR/share: the .debs, size.sed, e2e.ini,
# images/host/e2e-guest.sh): apt installs the packages offline, `ipibench host
# install`, the package's real-host configs (/usr/share/ipibench/configs)
# copied and sized for this host with size.sed (below), `ipibench host
# check` of both, the shipped mode matrix (host-matrix.ini: physical,
# cluster, mixed, two boots each, interleaved) through real reboots (GRUB's
# one-shot entries, ipibench-resume.service resuming it), then
# host-dom0.ini (backend = local) on the host as the matrix left it (its
# last entry: mixed), each result set reported here and its report
# checked, then host status, the matrix's results copied out, host
# uninstall, and GRUB and systemd compared with before; then host install
# again, a matrix left pending (its run killed at its reboot command) and
# apt-get purge: the maintainer scripts end the matrix and remove
# /boot/ipibench, the GRUB block, the grubenv variables, the unit and its
# link, /var/lib/ipibench; GRUB and systemd compared with before install.
# TEST_HOST_FAULTS=1 (with TEST_HOST_DEBS; make test-host TEST_HOST_E2E=1
# TEST_HOST_FAULTS=1) adds, between the matrix and host status: backend =
# local on the host as the matrix left it (its last entry: the patched Xen
# in mixed mode); a matrix hard reset (QEMU monitor system_reset) in its
# first run, which the unit reruns on the next boots; a matrix whose
# entry's Xen panics ([host] cmdline = dom0_mem=1M), which falls back to
# GRUB's default entry and is recorded failed once; then backend = local
# on that default entry (Debian's unpatched Xen: its workloads refused).
#
# TEST_HOST_BOOT=direct boots the image's own Xen, dom0 kernel and initramfs
# (IMAGEDIR/rootfs/boot, the command lines of grub.cfg's default entry) with
# QEMU's -kernel/-initrd instead of BIOS and GRUB: the same dom0 userspace
# from the same disk, without GRUB in the path (login sooner than through
# GRUB, docs/measurements.md, since the machine keeps Xen's stacks off
# GRUB's code pages: see the QEMU line).
# Not with TEST_HOST_DEBS: the reboot backend needs GRUB's one-shot entries.
# TEST_HOST_XEN=FILE (direct only) boots that hypervisor instead of the
# image's Debian one, with the same command line: an ELF such as
# build/xen/xen (the patched 4.17.5 of make hv) or a xen.gz.
# TEST_HOST_XEN_ARGS=ARGS (direct only) appends ARGS to that command line.
#
# TEST_HOST_HVM=DIR (direct only): the emulated CPU gains AMD SVM with
# nested paging (QEMU TCG emulates it; Xen then lists hvm and hap in
# virt_caps), QEMU runs multi-threaded TCG (below), and after the login
# checks the host runs `ipibench run -c CONFIG` for each config of
# TEST_HOST_HVM_CONFIGS in turn (default TEST_HOST_GUEST_CONFIG, by
# default configs/seed-004.ini: PVH guests through xl, one per IPI path,
# each recorded with xentrace while it runs its IPI workload;
# configs/seed-004-nic.ini: HVM guests with an emulated e1000e, one per
# MSI path, dom0's ping -f through the recordings and ab after them;
# runner/guest.h) with build/bin/ipibench (a static PIE) from a 9p share
# (TEST_HOST_HVM_REPEAT=K: each config K times in the one boot, as
# NAME-1 ... NAME-K, a host left running under guest after guest);
# then checks each guest run ended ok, its traces are there and not
# empty, xl list has no domain but dom0, and the paths' profiles differ
# where they must.  DIR has the guest's initrd.gz (images/guest-initramfs.sh;
# make guest, with e1000e.ko), its kernel as vmlinux (PVH) and as
# vmlinuz (make dom0's bzImage: HVM); each config's result set comes out
# in OUTDIR/share/out/NAME (NAME: the config's file name without .ini;
# the report of `ipibench trace diff` of the two HVM traces against
# results/reference/seed-004.json in OUTDIR/trace-diff-NAME.txt).
#
# TEST_HOST_QEMU=FILE: the emulator (default qemu-system-x86_64 from
# PATH).  make test-guests and test-guests-nic pass make qemu's build
# (scripts/qemu-build.sh: Debian 13's QEMU with scripts/emu/'s fixes),
# since the distribution's loses a halted CPU's wake-up under SVM
# (docs/stalls.md).
#
# TEST_HOST_QEMU_TRACE=1: QEMU's QMP events (WATCHDOG, SHUTDOWN and its
# reason, ...) into OUTDIR/qmp-events.log, the CPUs' registers at a
# SHUTDOWN (below).  TEST_HOST_TCO_RESET=1: the board's TCO watchdog may
# reset it, as QEMU's q35 does by default (scripts/test-host-board.sh: what
# took the host down under HVM guests, docs/guests.md).
#
# A wait that ends with QEMU still running (the test's timeout, or with
# TEST_HOST_STALL=S no console output for S seconds) first collects the
# host's evidence into OUTDIR/stall/ with `ipibench host capture`: QEMU's
# threads, its monitor (info registers -a, info lapic), Xen's debug keys
# (docs/stalls.md says how to read it).
#
# The image is booted with -snapshot: the cached disk stays as built.  QEMU
# runs in its own process group, killed on every way out (trap).  Each
# check prints "ok   ..." or "FAIL ..."; the times are from QEMU's start.
set -uo pipefail
img=${1:?usage: scripts/test-host.sh IMAGEDIR [OUTDIR]}/disk.img
out=${2:-$(dirname "$img")/boot}
# From QEMU's start to the last check, not per step (elapsed): one boot
# to login, the end-to-end stage and TEST_HOST_FAULTS take the times of
# docs/measurements.md, two to three times as long on a busy machine, so
# 40 min is not ample for TEST_HOST_FAULTS: make test-host-faults gives it
# more.
timeout=${TEST_HOST_TIMEOUT:-2400}
boot=${TEST_HOST_BOOT:-grub}
password=ipibench
[ -f "$img" ] || { echo "test-host: $img missing (make host-image)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
log=$out/console.log
fifo=$out/serial
mkfifo "$fifo.in" "$fifo.out"
debs=${TEST_HOST_DEBS:-}
faults=${TEST_HOST_FAULTS:-}
[ -z "$faults" ] || [ -n "$debs" ] || { echo "test-host: TEST_HOST_FAULTS needs TEST_HOST_DEBS (make test-host TEST_HOST_E2E=1)" >&2; exit 1; }
monitor=(-monitor none)
top=$(cd "$(dirname "$0")/.." && pwd)
extra=(-no-reboot)
if [ -n "$debs" ]; then
	share=$out/share
	mkdir -p "$share/debs" "$share/out"
	cp "$debs"/ipibench_*_amd64.deb "$debs"/ipibench-xen-4.17_*_amd64.deb "$share/debs/" ||
		{ echo "test-host: no packages in $debs (make deb)" >&2; exit 1; }
	cp "$top/images/host/e2e-guest.sh" "$share/"
	# The shipped configs are sized for a 96-CPU box: 10000-call loops,
	# 500-3000 of them per workload, about 10 minutes (dom0) and 2 minutes
	# a boot (matrix) there.  A flush takes about 100 us on this 2-CPU
	# host under TCG, so as shipped they would take hours (a loop of
	# 10000 flushes is 1 s).  A user edits a copy of them the same way:
	# the host's CPUs, and loops of 1000 calls, 10 per workload here.
	printf '%s\n' 's/^cpus = .*/cpus = 2/' 's/^runs = .*/runs = 10/' \
		's/^iterations = .*/iterations = 1000/' 's/^timeout = .*/timeout = 900/' >"$share/size.sed"
	cat >"$share/e2e.ini" <<'EOF'
; scripts/test-host.sh: the reboot backend on the Debian test host (2 CPUs)
[host]
backend = reboot
name = debian-host
cpus = 2
timeout = 900

[matrix]
modes = physical, mixed
repetitions = 1
order = interleaved

[workload:flush]
type = flush_tlb_all
iterations = 50
EOF
	# Reboots are the point; the share is the way in and out.
	extra=(-virtfs "local,path=$share,mount_tag=e2e,security_model=none")
	if [ -n "$faults" ]; then
		# backend = local, on whatever the host booted.
		sed -e 's/^backend = .*/backend = local/' -e 's/^name = .*/name = debian-host-local/' \
			-e 's/^modes = .*/modes = mixed, physical/' \
			-e '1s/.*/; mk\/test-host.sh TEST_HOST_FAULTS: the local backend on the booted host/' \
			"$share/e2e.ini" >"$share/local.ini"
		# 200,000 flushes (~100 µs each here): the first run lasts ~20 s,
		# long enough to be reset in the middle of it.
		sed -e 's/^name = .*/name = debian-host-kill/' -e 's/^iterations = .*/iterations = 200000/' \
			-e '1s/.*/; mk\/test-host.sh TEST_HOST_FAULTS: a hard reset during the first run/' \
			"$share/e2e.ini" >"$share/kill.ini"
		# Xen panics building dom0: "Domain 0 allocation is too small".
		sed -e 's/^name = .*/name = debian-host-panic\ncmdline = dom0_mem=1M/' -e 's/^modes = .*/modes = mixed/' \
			-e '1s/.*/; mk\/test-host.sh TEST_HOST_FAULTS: the entry'"'"'s Xen panics/' \
			"$share/e2e.ini" >"$share/panic.ini"
		# The QEMU monitor on a pipe, as the serial line: system_reset.
		mon=$out/monitor
		mkfifo "$mon.in" "$mon.out"
		# shellcheck disable=SC2054 # QEMU's options are comma-separated
		monitor=(-chardev "pipe,id=m0,path=$mon" -mon chardev=m0,mode=readline)
	fi
fi
# TEST_HOST_MONITOR=1 (not with the fault cases, which use the monitor):
# QEMU's human monitor on OUTDIR/monitor.sock, to look into a host that
# hangs (`info cpus`, `info registers -a`: CS 0xe008 is Xen).
if [ "${TEST_HOST_MONITOR:-}" = 1 ] && [ -z "$faults" ]; then
	monitor=(-monitor "unix:$out/monitor.sock,server=on,wait=off")
fi
hvm=${TEST_HOST_HVM:-}
qemu_bin=${TEST_HOST_QEMU:-qemu-system-x86_64}
command -v "$qemu_bin" >/dev/null || { echo "test-host: TEST_HOST_QEMU=$qemu_bin: no such program" >&2; exit 1; }
cpu=qemu64,+x2apic
tcg_thread=${TEST_HOST_TCG_THREAD:-single}
[ -z "${TEST_HOST_HVM_NIC:-}" ] || { echo "test-host: TEST_HOST_HVM_NIC is gone: TEST_HOST_HVM=DIR TEST_HOST_HVM_CONFIGS=configs/seed-004-nic.ini (README)" >&2; exit 1; }
if [ -n "$hvm" ]; then
	[ "$boot" = direct ] || { echo "test-host: TEST_HOST_HVM needs TEST_HOST_BOOT=direct" >&2; exit 1; }
	[ -f "$hvm/initrd.gz" ] || { echo "test-host: $hvm/initrd.gz missing (images/guest-initramfs.sh)" >&2; exit 1; }
	[ -f "$hvm/vmlinux" ] || { echo "test-host: $hvm/vmlinux missing (make guest)" >&2; exit 1; }
	gconfigs=${TEST_HOST_HVM_CONFIGS:-${TEST_HOST_GUEST_CONFIG:-$top/configs/seed-004.ini}}
	share=$out/share
	# The configs' kernels and ramdisk: build/guest/ from where it runs.
	mkdir -p "$share/build/guest" "$share/out"
	cp "$hvm/initrd.gz" "$hvm/vmlinux" "$share/build/guest/"
	[ ! -f "$hvm/vmlinuz" ] || cp "$hvm/vmlinuz" "$share/build/guest/"
	cp "$top/build/bin/ipibench" "$share/" || { echo "test-host: no build/bin/ipibench (make build)" >&2; exit 1; }
	gnames=
	repeat=${TEST_HOST_HVM_REPEAT:-1}
	case $repeat in 0*|*[!0-9]*|'') echo "test-host: TEST_HOST_HVM_REPEAT=$repeat: a count from 1 expected" >&2; exit 2 ;; esac
	for gc in $gconfigs; do
		[ -f "$gc" ] || gc=$top/$gc
		[ -f "$gc" ] || { echo "test-host: TEST_HOST_HVM_CONFIGS: no $gc" >&2; exit 1; }
		gn=$(basename "$gc" .ini)
		case $gn in *[!A-Za-z0-9._-]*) echo "test-host: $gc: a config name of letters, digits, '.', '_', '-'" >&2; exit 1 ;; esac
		if grep -qE '^nic *=' "$gc"; then
			[ -f "$hvm/vmlinuz" ] || { echo "test-host: $hvm/vmlinuz missing (an HVM guest's bzImage: cp build/dom0/vmlinuz build/guest/)" >&2; exit 1; }
		fi
		for ((k = 1; k <= repeat; k++)); do
			gk=$gn
			[ "$repeat" -eq 1 ] || gk=$gn-$k
			cp "$gc" "$share/$gk.ini"
			gnames="$gnames $gk"
		done
	done
	# Xen 4.17's SVM wants NPT for HAP; Next-RIP saves it decoding on exits.
	cpu=$cpu,+svm,+npt,+nrip-save
	# One TCG thread per CPU, not round-robin.  QEMU's VMRUN delivers an
	# injected interrupt (EVENTINJ) itself but leaves the vector in
	# exception_index; a bare exit request before the next exception or
	# #VMEXIT (the round-robin kick timer, every 100 ms) makes cpu_exec
	# deliver that vector once more, as an exception, whatever the guest's
	# IF.  A guest IPI upcall taken in user mode was so delivered again at
	# the handler's first instruction, before its SWAPGS: a page fault on
	# %gs, recursive, "stack guard page was hit" (docs/guests.md).  The multi-
	# threaded TCG has no kick timer.
	tcg_thread=${TEST_HOST_TCG_THREAD:-multi}
	extra+=(-virtfs "local,path=$share,mount_tag=e2e,security_model=none")
fi
direct=()
case $boot in
grub) ;;
direct)
	[ -z "$debs" ] || { echo "test-host: TEST_HOST_BOOT=direct has no GRUB to reboot through (TEST_HOST_DEBS)" >&2; exit 1; }
	bootdir=$(dirname "$img")/rootfs/boot
	cfg=$bootdir/grub/grub.cfg
	# The first Xen entry of Debian's grub.cfg: multiboot2 XEN ARGS, module2 KERNEL ARGS, module2 --nounzip INITRD.
	entry=$(awk '/^menuentry .*Xen hypervisor/{on=1} on&&/^}/{exit} on' "$cfg")
	xen=$(awk '$1=="multiboot2"{print $2; exit}' <<<"$entry")
	xargs=$(awk '$1=="multiboot2"{$1=$2=$3=""; print; exit}' <<<"$entry" | sed 's/\${xen_rm_opts}//')
	xargs="$xargs${TEST_HOST_XEN_ARGS:+ $TEST_HOST_XEN_ARGS}"
	kernel=$(awk '$1=="module2" && $2!="--nounzip"{print $2; exit}' <<<"$entry")
	kargs=$(awk '$1=="module2" && $2!="--nounzip"{$1=$2=$3=""; print; exit}' <<<"$entry")
	initrd=$(awk '$1=="module2" && $2=="--nounzip"{print $3; exit}' <<<"$entry")
	[ -n "$xen" ] && [ -n "$kernel" ] && [ -n "$initrd" ] ||
		{ echo "test-host: $cfg: no Xen entry with multiboot2/module2 lines" >&2; exit 1; }
	# QEMU's multiboot loader takes an ELF, not xen.gz.
	xen=${TEST_HOST_XEN:-$(dirname "$img")/rootfs$xen}
	[ -f "$xen" ] || { echo "test-host: no hypervisor $xen" >&2; exit 1; }
	if gzip -t "$xen" 2>/dev/null; then
		zcat "$xen" >"$out/xen" || { echo "test-host: cannot unpack $xen" >&2; exit 1; }
	else
		cp "$xen" "$out/xen"
	fi
	case "$out$kernel$initrd$kargs" in *,*) echo "test-host: a comma in a path or dom0 argument (-initrd)" >&2; exit 1;; esac
	direct=(-kernel "$out/xen" -append "$xargs" -initrd "$(dirname "$img")/rootfs$kernel $kargs,$(dirname "$img")/rootfs$initrd")
	;;
*) echo "test-host: TEST_HOST_BOOT=$boot: grub or direct" >&2; exit 1 ;;
esac
[ -z "${TEST_HOST_XEN:-}" ] || [ "$boot" = direct ] || { echo "test-host: TEST_HOST_XEN needs TEST_HOST_BOOT=direct" >&2; exit 1; }
[ -z "${TEST_HOST_XEN_ARGS:-}" ] || [ "$boot" = direct ] || { echo "test-host: TEST_HOST_XEN_ARGS needs TEST_HOST_BOOT=direct" >&2; exit 1; }
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

qpid=
cleanup() {
	if [ -n "$qpid" ]; then
		kill -KILL -- "-$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	[ -z "${catpid:-}" ] || kill "$catpid" 2>/dev/null
	[ -z "${moncat:-}" ] || kill "$moncat" 2>/dev/null
	[ -z "${qmppid:-}" ] || kill "$qmppid" 2>/dev/null
	rm -f "$fifo.in" "$fifo.out" "${mon:-$fifo}.in" "${mon:-$fifo}.out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The board (q35, its memory layout, its watchdog): scripts/test-host-board.sh.
# shellcheck source=scripts/test-host-board.sh
. "$top/scripts/test-host-board.sh"
# TEST_HOST_QEMU_LOG=ITEMS (e.g. cpu_reset): QEMU's -d ITEMS into
# OUTDIR/qemu-d.log (cpu_reset: the CPUs' state and "Triple fault" when the
# emulated machine resets; with -no-reboot QEMU then exits with status 0;
# trace:tco_*: the TCO watchdog's reloads and expiries), each line with
# its host time (-msg timestamp=on: "PID@SECONDS.USEC:event ...").
[ -z "${TEST_HOST_QEMU_LOG:-}" ] || extra+=(-d "$TEST_HOST_QEMU_LOG" -D "$out/qemu-d.log" -msg timestamp=on)
# TEST_HOST_QEMU_TRACE=1: QEMU's QMP events into OUTDIR/qmp-events.log
# (scripts/qmp-events.py), with -action shutdown=pause: a SHUTDOWN names its
# reason (guest-shutdown: a power-off; guest-reset: a reset, which
# -no-reboot turns into a shutdown) and the machine stops there, the CPUs'
# registers are logged (who was running: Xen, dom0 or an HVM guest), then
# QEMU quits.  (This Debian QEMU's trace backend has no
# qemu_system_shutdown_request event: QMP is where the reason is.)
qmp=
if [ "${TEST_HOST_QEMU_TRACE:-}" = 1 ]; then
	qmp=$out/qmp.sock
	extra+=(-qmp "unix:$qmp,server=on,wait=off" -action shutdown=pause)
fi
# A QMP socket of its own for the evidence of a host that stops (capture,
# below), the vCPU threads named ("CPU 1/TCG") and QEMU's pid kept.
evqmp=$out/capture.sock
"$qemu_bin" --version | head -1 | sed 's/^/test-host: /'
start=$(date +%s.%N)
setsid "$qemu_bin" -accel tcg,thread="$tcg_thread" "${test_host_board[@]}" -cpu "$cpu" \
	-device intel-iommu,intremap=on,eim=on -smp 2 -m 2048 \
	-name ipibench-test-host,debug-threads=on -pidfile "$out/qemu.pid" \
	-qmp "unix:$evqmp,server=on,wait=off" \
	-display none "${monitor[@]}" -snapshot "${extra[@]}" \
	-chardev pipe,id=s0,path="$fifo" -serial chardev:s0 \
	-drive file="$img",format=raw,if=virtio "${direct[@]}" >"$out/qemu.log" 2>&1 &
qpid=$!
if [ -n "$qmp" ]; then
	python3 "$top/scripts/qmp-events.py" "$qmp" "$out/qmp-events.log" 2>>"$out/qmp-events.err" &
	qmppid=$!
fi
# Keep the input end open (QEMU would see EOF) and copy the output.
exec 3<>"$fifo.in"
cat "$fifo.out" >"$log" &
catpid=$!
if [ -n "$faults" ]; then
	exec 4<>"$mon.in"
	cat "$mon.out" >"$out/monitor.log" &
	moncat=$!
fi

elapsed() { echo "$(date +%s.%N) $start" | awk '{printf "%.0f", $1 - $2}'; }
# wait_for REGEX: until a console line after the last match has it (CRs
# and escapes dropped); the next wait starts after that line.  (Not after
# all the console had when this one matched: Xen writes "Xen version" and
# "Switched to APIC driver" within a second, and the second was skipped.)
# While $giveup is set, a line matching it before REGEX ends the wait at
# once with status 2 (the command REGEX belonged to has ended without it,
# e.g. `ipibench run` refusing its config), and $seen stays where it was.
# TEST_HOST_STALL=S (0, the default: off): a wait also ends, with status
# 3, once the console has had no output for S seconds.
seen=0
giveup=
stall=${TEST_HOST_STALL:-0}
case $stall in *[!0-9]*|'') echo "test-host: TEST_HOST_STALL=$stall: seconds expected" >&2; exit 2 ;; esac
wait_for() {
	local at
	while :; do
		at=$(IPB_RE=$1 IPB_GIVEUP=$giveup LC_ALL=C awk -v from="$seen" '
			{ n += length($0) + 1; if (n <= from) next
			  l = $0; gsub(/\r/, "", l); gsub(/\033\[[0-9;?]*[A-Za-z]/, "", l)
			  if (l ~ ENVIRON["IPB_RE"]) { print n; exit }
			  if (ENVIRON["IPB_GIVEUP"] != "" && l ~ ENVIRON["IPB_GIVEUP"]) { print "giveup"; exit } }' "$log" 2>/dev/null)
		if [ "$at" = giveup ]; then
			return 2
		elif [ -n "$at" ]; then
			seen=$at
			return 0
		fi
		kill -0 "$qpid" 2>/dev/null || return 1
		[ "$(elapsed)" -lt "$timeout" ] || return 1
		if [ "$stall" -gt 0 ] && [ $(($(date +%s) - $(stat -c %Y "$log"))) -ge "$stall" ]; then
			return 3
		fi
		sleep 1
	done
}
# capture WHY: a host that stopped making progress, while QEMU still runs:
# its evidence into OUTDIR/stall/ (`ipibench host capture`, docs/stalls.md):
# QEMU's threads, its monitor (registers, local APICs), Xen's debug keys.
capture() {
	local pid
	pid=$(cat "$out/qemu.pid" 2>/dev/null)
	"$top/build/bin/ipibench" host capture --qmp "$evqmp" --serial "$fifo.in" --console "$log" \
		${pid:+--pid "$pid"} --cpus 2 --after "$(elapsed)" --reason "$1" -o "$out" 2>&1 |
		sed 's/^/     /'
}
# Xen keeps 128 bytes of serial input for dom0 and drops the rest
# (console.c: SERIAL_RX_SIZE) until dom0 reads them: a 220-byte line lost
# its middle once under load.  So 64 bytes at a time, half a second apart.
send() {
	local s=$1
	while [ ${#s} -gt 64 ]; do
		printf '%s' "${s:0:64}" >&3
		s=${s:64}
		sleep 0.5
	done
	printf '%s\r' "$s" >&3
}
# With TEST_HOST_QEMU_TRACE=1: ", QMP SHUTDOWN reason R (guest G)" of
# the first SHUTDOWN event QEMU sent (the next is scripts/qmp-events.py's own
# quit), with the WATCHDOG action before it if any; or nothing.
shutdown_why() {
	[ -s "$out/qmp-events.log" ] || return 0
	jq -rs '[.[] | .event? | select(.event? == "WATCHDOG") | .data.action][0] as $w |
		[.[] | .event? | select(.event? == "SHUTDOWN") | .data][0] // empty |
		", QMP SHUTDOWN reason \(.reason) (guest \(.guest))" +
		(if $w then " after WATCHDOG action \($w)" else "" end)' "$out/qmp-events.log" 2>/dev/null
}
step() {  # NAME REGEX
	local rc=0
	wait_for "$2" || rc=$?
	if [ "$rc" -eq 0 ]; then
		t=$(elapsed)
		ok "$1 (${t}s)"
		echo "$1 $t" >>"$out/times"
	elif [ "$rc" -eq 2 ]; then
		fail "$1: /$giveup/ came first, at $(elapsed)s; the console from the command on:"
		plain | tail -n 15 | sed 's/^/     /'
		exit 1
	elif [ "$rc" -eq 3 ]; then
		fail "$1: no console output for ${stall}s, at $(elapsed)s (QEMU running): stalled; see $log"
		capture stall
		exit 1
	else
		if kill -0 "$qpid" 2>/dev/null; then
			fail "$1: no /$2/ within ${timeout}s (QEMU running); see $log"
			capture timeout
		else
			# How it went: its exit status (128+N: signal N), when it stopped.
			wait "$qpid"
			fail "$1: no /$2/ (QEMU gone at $(elapsed)s or before, exit status $?$(shutdown_why)); see $log"
			qpid=
		fi
		exit 1
	fi
}

[ "$boot" = direct ] || step "GRUB menu (Debian grub.cfg)" "Debian GNU/Linux, with Xen hypervisor"
step "Xen starts" "Xen version 4\.17"
[ -z "${TEST_HOST_XEN:-}" ] || grep -a 'Xen version 4' "$log" | head -1 | sed 's/^/     /'
step "Xen selects an x2APIC driver" "Switched to APIC driver x2apic"
step "Xen builds dom0 (Debian's kernel)" "Building a PV Dom0"
step "serial login prompt (systemd serial-getty on hvc0)" "ipibench-host login: "
send root
step "password prompt" "Password: "
send "$password"
step "root shell" "root@ipibench-host:~# *$"
send "echo IPB-BEGIN; uname -r; ps -o comm= -p 1; xl info | grep -E '^(xen_version|xen_commandline)'; xl dmesg | grep -o 'Switched to APIC driver [a-z0-9_]*'; cat /proc/xen/capabilities; systemctl is-system-running; echo IPB-END"
step "facts from the booted host" "^IPB-END"
# The console as text: no CRs, no escapes (bash's bracketed-paste mode
# puts "ESC[?2004l CR" before each command's first output line).
plain() { tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g'; }
facts=$(plain | sed -n '/^IPB-BEGIN/,/^IPB-END/p')
echo "$facts" | sed 's/^/     /'
grep -q '^xen_version *: 4\.17' <<<"$facts" && ok "xl info: Xen 4.17 (Debian's xen-hypervisor)" ||
	fail "xl info: no xen_version 4.17"
grep -qx 'systemd' <<<"$facts" && ok "init is systemd" || fail "PID 1 is not systemd"
grep -q '^control_d' <<<"$facts" && ok "dom0 is the control domain" || fail "no control_d in /proc/xen/capabilities"
grep -qE '^(running|degraded)$' <<<"$facts" && ok "systemd: $(grep -E '^(running|degraded)$' <<<"$facts")" ||
	fail "systemctl is-system-running: neither running nor degraded"
send "systemctl --failed --no-legend --plain | cat; echo IPB-FAILED-END"
wait_for "^IPB-FAILED-END" && plain | sed -n '/systemctl --failed/,/^IPB-FAILED-END/p' |
	sed '1d;$d;s/^/     failed unit: /'
if [ -n "$hvm" ]; then
	send "mkdir -p /mnt/e2e && mount -t 9p -o trans=virtio,version=9p2000.L e2e /mnt/e2e && cd /mnt/e2e && xl info | grep -E '^(virt_caps|xen_version)'; cd; echo IPB-MOUNTED"
	step "Xen lists hvm in virt_caps (emulated SVM)" "^virt_caps.*hvm"
	step "the share is mounted" "^IPB-MOUNTED"
fi
# One config's guest runs: NAME (share/NAME.ini), its results in
# share/out/NAME, checked.
guest_set() {
	local gn=$1 ini=$share/$1.ini kind ids what p st t f left
	if grep -qE '^nic *=' "$ini"; then
		kind=nic what="an HVM guest with an emulated NIC is created, serves dom0's load, is destroyed"
		ids=$(awk -F' *= *' '$1=="msi_path"{gsub(/,/," ",$2); print $2}' "$ini")
		ids=${ids:-pirq}
	else
		kind=pvh what="a PVH guest is created, runs its workload, is gone"
		ids=$(awk -F' *= *' '$1=="ipi_path"{gsub(/,/," ",$2); print $2}' "$ini")
		ids=${ids:-evtchn}
	fi
	local t0
	t0=$(elapsed)
	# The result set on the host's own disk while xentrace writes, then
	# copied out; IPB-RUN rc= whatever happened.  Also copied every 20 s
	# while it runs: the emulated host has gone down under an HVM guest
	# (docs/guests.md), and what was there by then is kept, with Xen's log and the
	# device models' (out/live-NAME/).
	send "cd /mnt/e2e && mkdir -p out/live-$gn && { while sleep 20; do cp -r /tmp/$gn out/ 2>/dev/null; xl dmesg >out/live-$gn/xl-dmesg.txt 2>&1; cp /var/log/xen/qemu-dm-*.log out/live-$gn/ 2>/dev/null; sync; done & } && ./ipibench run -c $gn.ini -o /tmp/$gn; echo IPB-RUN $gn rc=\$?; kill %1; cp -r /tmp/$gn out/; xl list >out/xl-list-$gn.txt 2>&1; sync; cd; echo IPB-COPIED $gn"
	giveup="^IPB-RUN $gn rc=[0-9]"
	step "$gn: ipibench run plans the guest runs" "ipibench run: [0-9]+ guest runs"
	for p in $ids; do
		step "$gn: $p-r0: $what" "\\[[0-9]+/[0-9]+\\] $p-r0: (ok|failed)"
	done
	giveup=
	step "$gn: ipibench run ends" "IPB-RUN $gn rc=[0-9]"
	step "$gn: the results are copied out" "^IPB-COPIED $gn"
	echo "$gn $(( $(elapsed) - t0 ))" >>"$out/set-times"
	ok "$gn: ipibench run on the host took $(( $(elapsed) - t0 )) s"
	plain | sed -n "/ipibench run -c $gn.ini/,/IPB-RUN $gn/p" | grep -aE '^(\[[0-9]+/[0-9]+\]|ipibench run)' | sed 's/^/     /'
	plain | grep -a "IPB-RUN $gn rc=0" >/dev/null && ok "$gn: ipibench run: every guest run ok" ||
		fail "$gn: ipibench run: $(plain | grep -a "IPB-RUN $gn rc=" | tail -1)"
	res=$share/out/$gn/results.json
	for p in $ids; do
		if [ $kind = nic ]; then
			st=$(jq -r --arg id "$p-r0" '.guest_runs[] | select(.id == $id) | "\(.status) \(.outcome) \(.end) \(.destroyed) \(.gone) ping \(.load.ping.transmitted)/\(.load.ping.received) rtt_avg \(.load.ping.rtt_ms.avg) ab \(.load.ab.complete) failed \(.load.ab.failed) rps \(.load.ab.requests_per_s)"' "$res" 2>/dev/null)
			[ "${st%% *}" = ok ] && ok "$p-r0: results.json: $st (status outcome end destroyed gone; the load)" ||
				fail "$p-r0: results.json: '${st:-no such guest run}' (status outcome end destroyed gone; $res)"
			jq -r --arg id "$p-r0" '.guest_runs[] | select(.id == $id) | .error // empty' "$res" 2>/dev/null | sed 's/^/     error: /'
			sed -n '/IPB-GUEST-UP/,/IPB-GUEST-DONE/p' "$share/out/$gn/guests/$p-r0/console.log" 2>/dev/null |
				tr -d '\r' | grep -aE 'IPB-|eth0|MSI|pirq' | sed 's/^/     guest: /'
		else
			st=$(jq -r --arg id "$p-r0" '.guest_runs[] | select(.id == $id) | "\(.status) \(.outcome) \(.counts.ipis_sent) \(.gone)"' "$res" 2>/dev/null)
			[ "${st%% *}" = ok ] && ok "$p-r0: results.json: $st (status outcome ipis_sent gone)" ||
				fail "$p-r0: results.json: '${st:-no such guest run}' (status outcome ipis_sent gone; $res)"
			sed -n '/IPB-GUEST-UP/,/IPB-GUEST-DONE/p' "$share/out/$gn/guests/$p-r0/console.log" 2>/dev/null |
				tr -d '\r' | grep -aE 'IPB-|ipbipi' | sed 's/^/     guest: /'
		fi
		for t in hvm hvm_sched; do
			f=$share/out/$gn/$(jq -r --arg id "$p-r0" --arg t "$t" '.guest_runs[] | select(.id == $id) | .traces[$t] // "none"' "$res" 2>/dev/null)
			[ -s "$f" ] && ok "$p-r0: traces.$t out of the host: $f ($(stat -c %s "$f") bytes)" ||
				fail "$p-r0: traces.$t: no trace, or an empty one, at $f"
		done
	done
	# dom0 and nothing else: the header and Domain-0.
	left=$(grep -vE '^(Name|Domain-0) ' "$share/out/xl-list-$gn.txt" 2>/dev/null)
	[ -s "$share/out/xl-list-$gn.txt" ] && [ -z "$left" ] && ok "$gn: xl list: dom0 only, no guest left" ||
		fail "$gn: xl list: a domain left, or no list: $left ($share/out/xl-list-$gn.txt)"
	local first last
	first=$(set -- $ids; echo "$1") last=$(set -- $ids; eval "echo \${$#}")
	a=$share/out/$gn/guests/$first-r0/hvm.xt b=$share/out/$gn/guests/$last-r0/hvm.xt
	if [ "$first" != "$last" ] && [ -s "$a" ] && [ -s "$b" ]; then
		"$top/build/bin/ipibench" trace diff "$a" "$b" --guest-reference "$top/results/reference/seed-004.json" \
			>"$out/trace-diff-$gn.txt" 2>&1 && ok "$gn: trace diff $first -> $last against the seed: $out/trace-diff-$gn.txt" ||
			fail "$gn: ipibench trace diff: $(tail -1 "$out/trace-diff-$gn.txt")"
	fi
	if [ $kind = nic ]; then
		# The host once went down under these guests (the board's TCO
		# watchdog after a dom0 stall, scripts/test-host-board.sh, docs/guests.md).
		kill -0 "$qpid" 2>/dev/null && ok "$gn: the test host is still up after its HVM guests" ||
			fail "$gn: the test host went down with an HVM guest${qmp:+ (QMP: $(shutdown_why))}"
		# The report's NIC section: exits per interrupt, pirq -> apic.
		if "$top/build/bin/ipibench" report -q "$share/out/$gn" -o "$out/report-$gn" >"$out/report-$gn.log" 2>&1; then
			rj=$out/report-$gn/report.json
			n=$(jq -r '.guest_nic.top_moving_exits | length' "$rj" 2>/dev/null)
			[ "${n:-0}" -gt 0 ] 2>/dev/null && ok "$gn: the report names the exits that moved per interrupt: $(jq -r '[.guest_nic.top_moving_exits[] | "\(.reason) \(.moved)"] | join(", ")' "$rj")" ||
				fail "$gn: no guest_nic.top_moving_exits in $rj"
			# The MSI paths' profiles (the seed-mask traces, traces.hvm):
			# VMMCALL on the pirq path only (the upcall's hypercalls),
			# injections on the NIC's own vectors (not the upcall
			# vector 243) on the apic path only, where the emulated APIC
			# delivers the MSIs.  From report.json, not from text:
			# "VMMCALL DEVICE-INJECTIONS" of the path's one run, the
			# latter INJ_VIRQ on Linux's device vectors 0x20-0xeb (below
			# the local APIC timer's 0xec and the upcall's 0xf3; the
			# report writes a vector as 0x%02x, so strings compare).
			local sp sa
			nicfig() {
				jq -r --arg p "$1" '[.guest_nic.runs[] | select(.msi_path == $p) | .traces.hvm | select(. != null)]
					| select(length == 1) | .[0]
					| "\(.vmmcall) \([.vectors[] | select(.vector >= "0x20" and .vector <= "0xeb") | .count] | add // 0)"' "$rj" 2>/dev/null
			}
			sp=$(nicfig pirq) sa=$(nicfig apic)
			echo "$gn: VMMCALL, injections on device vectors: pirq ${sp:-none}, apic ${sa:-none}" >>"$out/nic-profiles"
			if [ -z "$sp" ] || [ -z "$sa" ]; then
				fail "$gn: report.json has no single traces.hvm run per MSI path (pirq ${sp:-none}, apic ${sa:-none}): $rj"
			elif [ "${sp%% *}" -gt 0 ] && [ "${sa%% *}" = 0 ] && [ "${sp##* }" = 0 ] && [ "${sa##* }" -gt 0 ]; then
				ok "$gn: the MSI paths' profiles differ: VMMCALL ${sp%% *} -> ${sa%% *}, injections on device vectors (the NIC's MSIs) ${sp##* } -> ${sa##* }"
			else
				fail "$gn: the MSI paths' profiles: VMMCALL ${sp%% *} -> ${sa%% *}, injections on device vectors ${sp##* } -> ${sa##* } (want >0 -> 0 and 0 -> >0)"
			fi
		else
			fail "$gn: ipibench report of the NIC runs failed: $(tail -1 "$out/report-$gn.log")"
		fi
		return
	fi
	# The report derives the per-IPI figures from the set's traces; the
	# two paths must differ where they must: ICR IPIs on the apic run
	# only, injections on an IPI vector on the apic run only.
	if "$top/build/bin/ipibench" report -q "$share/out/$gn" -o "$out/report-$gn" >"$out/report-$gn.log" 2>&1; then
		ok "$gn: ipibench report of the guest runs: $out/report-$gn/report.md"
		rj=$out/report-$gn/report.json
		fig() { jq -r --arg p "$1" "[.guests.runs[] | select(.ipi_path == \$p) | .traces.hvm_sched.$2][0] // \"none\"" "$rj" 2>/dev/null; }
		ea=$(fig evtchn ipis.icr_ipis) aa=$(fig apic ipis.icr_ipis)
		ev=$(fig evtchn injections.ipi_vectors) av=$(fig apic injections.ipi_vectors)
		ep=$(fig evtchn per_ipi.exits) ap=$(fig apic per_ipi.exits)
		[ "$ea" = 0 ] && [ "$ev" = 0 ] && [ "${aa:-0}" -gt 0 ] 2>/dev/null && [ "${av:-0}" -gt 0 ] 2>/dev/null &&
			ok "$gn: the paths' profiles differ: ICR IPIs $ea -> $aa, injections on IPI vectors $ev -> $av; exits per IPI $ep -> $ap" ||
			fail "$gn: the paths' profiles: ICR IPIs $ea -> $aa, injections on IPI vectors $ev -> $av (want 0 -> >0 both; $rj)"
		n=$(jq -r '.guests.top_moving_exits | length' "$rj" 2>/dev/null)
		[ "${n:-0}" -gt 0 ] 2>/dev/null && ok "$gn: the report names the exits that moved per IPI: $(jq -r '[.guests.top_moving_exits[] | "\(.reason) \(.moved)"] | join(", ")' "$rj")" ||
			fail "$gn: no top_moving_exits in $rj"
	else
		fail "$gn: ipibench report of the guest runs failed: $(tail -1 "$out/report-$gn.log")"
	fi
}
if [ -n "$hvm" ]; then
	for gn in $gnames; do
		guest_set "$gn"
	done
fi
login() {
	send ""
	step "$1: serial login prompt" "ipibench-host login: "
	send root
	step "$1: password prompt" "Password: "
	send "$password"
	step "$1: root shell" "root@ipibench-host:~# *$"
}
# jq-free checks of a results.json: JSONPATH-ish lines "RUNID STATUS GENAPIC ERROR".
runs_of() {
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r.get("id"), r.get("status"), r.get("genapic") or "-", r.get("error") or "-")' "$1" 2>&1
}
check_run() {  # FILE ID STATUS ERROR-REGEX|- WHAT
	local l
	l=$(runs_of "$1" | awk -v id="$2" '$1 == id')
	if [ -n "$l" ] && [ "$(awk '{print $2}' <<<"$l")" = "$3" ] &&
		{ [ "$4" = - ] || grep -qE -- "$4" <<<"$l"; }; then
		ok "$5"
	else
		fail "$5: $1: ${l:-no run $2}"
	fi
	echo "     $l"
}
mount9p="mount -t 9p -o trans=virtio,version=9p2000.L e2e /mnt/e2e"
faults_stages() {
	local r=$share/out since
	# 1. backend = local on the host as the matrix left it: its last
	# entry, the patched Xen in mixed mode, until the next reboot.
	send "$mount9p; sh /mnt/e2e/e2e-guest.sh local"
	step "local: ipibench run, backend = local, modes = mixed, physical" "IPB-LOCAL-RUN rc="
	step "local: results copied out of the host" "IPB-LOCAL rc=0"
	check_run "$r/local/results.json" mixed-r0 ok - "local: mixed on the booted patched Xen (x2apic_mixed): ok"
	check_run "$r/local/results.json" physical-r0 failed "^physical-r0 failed .*this host booted Xen with x2apic_mixed .*not physical mode" \
		"local: physical refused in one line (the host booted mixed)"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; w=r["workloads"][0]; sys.exit(not (w["status"]=="ok" and r["hv"]["genapic"]=="x2apic_mixed"))' \
		"$r/local/results.json" && ok "local: the mixed run's workload ok, genapic from the patched hypervisor" ||
		fail "local: no ok workload or hv.genapic in $r/local/results.json"

	# 2. A hard reset while the first run of a matrix runs.
	send "sh /mnt/e2e/e2e-guest.sh kill"
	step "kill: the first run reboots into ipibench-physical" "next boot \(once\): ipibench-physical"
	step "kill: GRUB boots ipibench-physical" "Booting .ipibench: Xen x2apic-mode=physical"
	step "kill: the unit starts the first run on its boot" "booted for this run: Xen selected x2apic_phys"
	step "kill: its workload runs" "agent: workload flush \(flush_tlb_all\) start"
	since=$seen
	printf 'system_reset\n' >&4
	ok "kill: hard reset through the QEMU monitor (system_reset) at $(elapsed)s"
	step "kill: after the reset GRUB boots its default entry (the one-shot one was used)" "Booting .Debian GNU/Linux, with Xen hypervisor"
	# Nothing the killed run wrote after its start made it to the console.
	if LC_ALL=C awk -v from="$since" '{ n += length($0) + 1 } n > from' "$log" | grep -a "agent: workload flush done" >/dev/null; then
		fail "kill: the workload finished before the reset (make the run longer)"
	else
		ok "kill: the reset came while the workload ran (no 'flush done' before the next boot)"
	fi
	step "kill: the unit resumes: the host went down in the run, its entry is booted again" \
		"went down while this run ran \(boot 1 of at most 2\)"
	step "kill: GRUB boots ipibench-physical again" "Booting .ipibench: Xen x2apic-mode=physical"
	step "kill: the rerun finishes" "physical-r0: ok"
	step "kill: then the mixed run's boot" "Booting .ipibench: Xen x2apic-mode=mixed"
	step "kill: the matrix finishes, the unit disabled" "matrix finished"
	step "kill: 2 of 2 runs ok" "2 of 2 runs ok"
	login "after the reset matrix"

	# 3. The entry's Xen panics: GRUB falls back, the run fails once.
	send "$mount9p; sh /mnt/e2e/e2e-guest.sh panic"
	step "panic: the run reboots into ipibench-mixed ([host] cmdline = dom0_mem=1M)" "next boot \(once\): ipibench-mixed"
	step "panic: GRUB boots ipibench-mixed" "Booting .ipibench: Xen x2apic-mode=mixed"
	step "panic: its Xen panics" "Panic on CPU"
	since=$seen
	plain | grep -a -A2 'Panic on CPU' | head -3 | sed 's/^/     /'
	step "panic: Xen reboots, GRUB boots its default entry" "Booting .Debian GNU/Linux, with Xen hypervisor"
	# The backend ends the matrix before the run's line is printed.
	step "panic: the matrix finishes, the unit disabled" "matrix finished"
	step "panic: the unit records the run failed" "mixed-r0: failed: "
	plain | grep -a 'mixed-r0: failed: ' | tail -1 | sed 's/^.*ipibench\[[0-9]*\]: /     /'
	step "panic: 0 of 1 runs ok" "0 of 1 runs ok"
	login "after the panicking entry"
	n=$(LC_ALL=C awk -v from="$since" '{ n += length($0) + 1 } n > from' "$log" | grep -ac "Xen version 4")
	[ "$n" -eq 1 ] && ok "panic: one boot after the panic (no reboot loop)" ||
		fail "panic: $n Xen boots after the panic, want 1"

	# 4. backend = local on GRUB's default entry: Debian's own Xen.
	send "$mount9p; sh /mnt/e2e/e2e-guest.sh after"
	step "stock: ipibench run, backend = local, on Debian's unpatched Xen" "IPB-STOCK-RUN rc="
	step "the host's state after the faults" "IPB-STATE "
	st=$(plain | grep -a '^IPB-STATE ' | tail -1)
	echo "     $st"
	grep -q "unit=disabled pending=no next_entry=$" <<<"$st" && ok "nothing pending, unit disabled, no one-shot entry" ||
		fail "state after the faults: $st"
	step "fault results copied out of the host" "IPB-FCOPY rc=0"
	check_run "$r/stock/results.json" mixed-r0 failed "XEN_SYSCTL_ipibench" \
		"stock: the workload refused in one line (no XEN_SYSCTL_ipibench)"
	check_run "$r/kill/results.json" physical-r0 ok - "kill: results.json: the reset run ok"
	check_run "$r/kill/results.json" mixed-r0 ok - "kill: results.json: the mixed run ok"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; sys.exit(not all(x["workloads"][0]["status"]=="ok" for x in r))' \
		"$r/kill/results.json" && ok "kill: both runs have their workload's results" ||
		fail "kill: a run without its workload in $r/kill/results.json"
	check_run "$r/panic/results.json" mixed-r0 failed "before the run started.*Xen panic" \
		"panic: results.json: the run failed, with its one-line reason"
}
if [ -n "$debs" ]; then
	send "mkdir -p /mnt/e2e && mount -t 9p -o trans=virtio,version=9p2000.L e2e /mnt/e2e && sh /mnt/e2e/e2e-guest.sh install"
	step "apt install ./ipibench_*.deb ./ipibench-xen-4.17_*.deb (offline)" "IPB-APT rc=0"
	step "ipibench host install --yes" "IPB-INSTALL rc=0"
	step "ipibench host check -c host-dom0.ini -c host-matrix.ini (the package's, sized)" "IPB-CHECK rc="
	plain | sed -n '/^IPB-INSTALL rc=/,/^IPB-CHECK rc=/p' | sed '1d;$d;s/^/     /'
	plain | grep -a '^IPB-CHECK rc=0' >/dev/null && ok "ipibench host check: both configs can run here" ||
		fail "ipibench host check: $(plain | grep -a '^IPB-CHECK rc=' | tail -1)"
	step "the shipped matrix: next boot once into its first entry" "next boot \\(once\\): ipibench-(physical|cluster|mixed)"
	# Six boots: physical, cluster, mixed, twice, interleaved.
	m0=$seen
	for b in 1 2 3 4 5 6; do
		step "matrix boot $b: GRUB boots the patched Xen" "Booting .ipibench: Xen x2apic-mode=(physical|cluster|mixed)"
		step "matrix boot $b: Xen selects its mode's APIC driver" "Switched to APIC driver x2apic_(phys|cluster|mixed)"
	done
	# The backend disables the unit before the run prints its tally.
	step "the unit is disabled, next boot GRUB's default" "matrix finished"
	step "the unit finishes the matrix" "6 of 6 runs ok"
	boots=$(LC_ALL=C awk -v from="$m0" '{ n += length($0) + 1 } n > from' "$log" | tr -d '\r' |
		grep -ao 'Booting .ipibench: Xen x2apic-mode=[a-z]*' | sed 's/.*=//' | tr '\n' ' ')
	[ "$boots" = "physical cluster mixed physical cluster mixed " ] &&
		ok "six GRUB boots, interleaved: $boots" || fail "the matrix's boots: '$boots', want physical cluster mixed twice"
	echo "matrix $(elapsed)" >>"$out/times"
	login "after the matrix"
	send "$mount9p; sh /mnt/e2e/e2e-guest.sh dom0"
	step "host-dom0.ini: ipibench run, backend = local, in the booted mode" "IPB-DOM0-RUN rc="
	step "host-dom0.ini: results copied out of the host" "IPB-DOM0 rc=0"
	plain | grep -a '^IPB-DOM0-RUN rc=0' >/dev/null && ok "host-dom0.ini: every run ok" ||
		fail "host-dom0.ini: $(plain | grep -a '^IPB-DOM0-RUN rc=' | tail -1)"
	echo "dom0 $(elapsed)" >>"$out/times"
	[ -z "$faults" ] || faults_stages
	send "mount -t 9p -o trans=virtio,version=9p2000.L e2e /mnt/e2e; sh /mnt/e2e/e2e-guest.sh finish"
	step "ipibench host status" "IPB-STATUS rc=0"
	step "results copied out of the host" "IPB-COPY rc=0"
	step "ipibench host uninstall" "IPB-UNINSTALL rc=0"
	if wait_for "IPB-DIFF rc="; then
		grep -aq "IPB-DIFF rc=0" "$log" && ok "GRUB and systemd as before install (diff of /boot/grub and the unit folders)" ||
			fail "GRUB or systemd differ from before install: $(plain | sed -n '/^--- \/root\/before/,/IPB-DIFF/p' | head -20)"
	else
		fail "no IPB-DIFF"
	fi
	send "sh /mnt/e2e/e2e-guest.sh purge"
	step "ipibench host install again" "IPB-REINSTALL rc=0"
	step "a matrix left pending at its first reboot" "IPB-PENDING "
	st=$(plain | grep -a '^IPB-PENDING ' | tail -1)
	echo "     $st"
	grep -q "unit=enabled pending=yes next_entry=ipibench-physical" <<<"$st" &&
		ok "pending: the unit enabled, the pending file, the one-shot entry" || fail "not pending: $st"
	step "apt-get purge ipibench ipibench-xen-4.17" "IPB-PURGE rc=0"
	step "after purge" "IPB-LEFT "
	st=$(plain | grep -a '^IPB-LEFT ' | tail -1)
	[ "$st" = "IPB-LEFT []" ] && ok "purge: nothing of ipibench left (/boot/ipibench, the GRUB block, grubenv, the unit and its link, /var/lib/ipibench)" ||
		fail "purge left: $st"
	if wait_for "IPB-PDIFF rc="; then
		grep -aq "IPB-PDIFF rc=0" "$log" && ok "purge: GRUB and systemd as before install" ||
			fail "purge: GRUB or systemd differ from before install: $(plain | sed -n '/^--- \/root\/before/,/IPB-PDIFF/p' | tail -20)"
	else
		fail "no IPB-PDIFF"
	fi
	# The reports, from the results as they came off the host.  Verdicts
	# only where the design carries them: between modes the matrix's boot
	# is the unit (two per mode); the dom0 set has one boot in one mode,
	# so no mode is compared with another there.  An emulated host's
	# times are never judged (.emulated: its verdicts are null).
	report_set() {	# NAME WANT-RUNS MODE...
		local name=$1 want=$2 res=$share/out/$1/results.json rj m n
		shift 2
		[ -f "$res" ] || { fail "$name: no $res"; return; }
		n=$(jq '[.runs[] | select(.status == "ok")] | length' "$res")
		[ "$n" = "$want" ] && ok "$name: results.json: $n runs ok" || fail "$name: results.json: $n runs ok, want $want"
		for m in "$@"; do
			n=$(jq --arg m "$m" '[.runs[] | select(.mode == $m and .status == "ok")] | length' "$res")
			echo "     $name: $m: $n boots ok"
		done
		if ! "$top/build/bin/ipibench" report "$share/out/$name" -o "$out/report-$name" >"$out/report-$name.log" 2>&1; then
			fail "$name: ipibench report failed: $out/report-$name.log"
			return
		fi
		ok "$name: ipibench report of the host's results: $out/report-$name/report.md"
		rj=$out/report-$name/report.json
		jq -r '.workloads[] | "     \(.workload): modes \(.modes | map(.mode? // .) | tostring), emulated \(.emulated), unit \(.comparison.unit // "-"), verdict \(.comparison.verdict // "none")"' "$rj" 2>/dev/null
		REPORT_JSON=$rj
	}
	report_set e2e 6 physical cluster mixed
	res=$share/out/e2e/results.json
	for m in physical cluster mixed; do
		n=$(jq --arg m "$m" '[.runs[] | select(.mode == $m and .status == "ok")] | length' "$res" 2>/dev/null)
		[ "${n:-0}" -ge 2 ] && ok "matrix: $n boots in $m mode" || fail "matrix: ${n:-0} boots in $m mode, want 2"
	done
	if [ -f "${REPORT_JSON:-}" ]; then
		# The flush loop compared between modes with the boot as its unit.
		u=$(jq -r '[.workloads[] | select(.workload == "flush") | .comparison.unit][0] // "none"' "$REPORT_JSON")
		case $u in boots*) ok "matrix report: flush compared between modes, unit: $u" ;;
		*) fail "matrix report: flush's unit is '$u', want the boots" ;; esac
		v=$(jq -r '[.workloads[] | select(.emulated == true) | .comparison.verdict | select(. != null)] | length' "$REPORT_JSON")
		[ "$v" = 0 ] && ok "matrix report: no time verdict on an emulated host's workloads" ||
			fail "matrix report: $v verdicts on emulated times"
	fi
	REPORT_JSON=
	report_set dom0 1 mixed
	if [ -f "${REPORT_JSON:-}" ]; then
		n=$(jq '[.workloads[] | select((.modes | length) > 1)] | length' "$REPORT_JSON")
		[ "$n" = 0 ] && ok "dom0 report: one mode, no mode compared with another" ||
			fail "dom0 report: $n workloads with more than one mode"
	fi
fi
if [ -n "$qmp" ]; then
	# The board's watchdog never acted (QEMU reports a WATCHDOG event
	# before its action; scripts/test-host-board.sh).
	w=$(jq -rc 'select(.event.event? == "WATCHDOG") | .event.data.action' "$out/qmp-events.log" 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';')
	[ -z "$w" ] && ok "QMP: no WATCHDOG event up to the host's power-off ($out/qmp-events.log)" ||
		fail "QMP: the board's watchdog acted: $w ($out/qmp-events.log)"
fi
send poweroff
if wait_for "reboot: Power down|System halted|Power down"; then
	for _ in $(seq 120); do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
fi
kill -0 "$qpid" 2>/dev/null && echo "     (QEMU still up after poweroff: killed)"
echo "test-host: boot to login $(awk '/^serial login/{print $NF}' "$out/times")s, $fails failed; console: $log"
[ $fails -eq 0 ]
