#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Run on the booted Debian test host by scripts/test-host.sh (as root, from the
# 9p share /mnt/e2e that holds debs/, e2e.ini and out/):
#   e2e-guest.sh install   apt install the packages, ipibench host install,
#                          the package's two real-host configs copied and
#                          sized for this host (size.sed, as a user edits
#                          them), ipibench host check of both, then the
#                          shipped mode matrix, host-matrix.ini (it reboots)
#   e2e-guest.sh dom0      after the matrix, on the host as it left it (its
#                          last entry: the patched Xen in mixed mode):
#                          host-dom0.ini (backend = local), results to out/
#   e2e-guest.sh finish    after the matrix: status, results to out/,
#                          host uninstall, and GRUB and systemd compared
#                          with what they were before install
#   e2e-guest.sh purge     host install again, a matrix left pending as a
#                          reboot leaves it (the run killed at its reboot
#                          command), then apt-get purge: nothing of
#                          ipibench left, GRUB and systemd as before install
# With TEST_HOST_FAULTS=1, between the two (each RESULTS/NAME, out/NAME):
#   e2e-guest.sh local     backend = local on the host as the matrix left it
#                          (its last entry, the patched Xen in mixed mode)
#   e2e-guest.sh kill      a reboot matrix the host reruns after a hard
#                          reset in its first run (it reboots)
#   e2e-guest.sh panic     a reboot matrix whose entry's Xen panics (it
#                          reboots)
#   e2e-guest.sh after     after both: backend = local on GRUB's default
#                          entry (Debian's unpatched Xen), the host's
#                          state, the results to out/
# Each step ends with a line "IPB-<STEP> rc=N" that the host waits for.
set -u
share=/mnt/e2e
results=/var/lib/ipibench/results/e2e
configs=/usr/share/ipibench/configs
snap() {  # the files of GRUB and systemd, with their content hashes
	(cd / && find boot/grub etc/systemd/system lib/systemd/system \
		\( -type f -o -type l \) ! -name grubenv | LC_ALL=C sort |
		while read -r f; do
			if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(md5sum <"$f" | cut -c1-32)"; fi
		done
	 # grubenv by its non-empty variables: GRUB itself leaves next_entry= there.
	 grub-editenv /boot/grub/grubenv list | grep -v '=$' | sed 's/^/grubenv: /')
}
case "${1:-}" in
install)
	snap >/root/before.txt
	apt-get install -y -q "$share"/debs/*.deb
	echo "IPB-APT rc=$?"
	ipibench --version
	ipibench host install --yes
	echo "IPB-INSTALL rc=$?"
	ipibench host status
	for c in host-dom0 host-matrix; do
		sed -f "$share/size.sed" "$configs/$c.ini" >"/root/$c.ini" || echo "IPB-SIZE rc=1 $c"
	done
	ipibench host check -c /root/host-dom0.ini -c /root/host-matrix.ini
	echo "IPB-CHECK rc=$?"
	ipibench run -c /root/host-matrix.ini -o "$results"
	echo "IPB-RUN rc=$?"
	;;
dom0)
	ipibench run -c /root/host-dom0.ini -o "$results-dom0"
	echo "IPB-DOM0-RUN rc=$?"
	rm -rf "$share/out/dom0" && cp -r "$results-dom0" "$share/out/dom0"
	echo "IPB-DOM0 rc=$?"
	;;
local)
	ipibench run -c "$share/local.ini" -o "$results-local"
	echo "IPB-LOCAL-RUN rc=$?"
	rm -rf "$share/out/local" && cp -r "$results-local" "$share/out/local"
	echo "IPB-LOCAL rc=$?"
	;;
kill|panic)
	ipibench run -c "$share/$1.ini" -o "$results-$1"
	echo "IPB-RUN rc=$?"
	;;
after)
	ipibench run -c "$share/local.ini" -o "$results-stock"
	echo "IPB-STOCK-RUN rc=$?"
	# Nothing left to resume, no one-shot entry: the host stays up.
	echo "IPB-STATE unit=$(systemctl is-enabled ipibench-resume.service 2>&1)" \
		"pending=$(test -e /var/lib/ipibench/pending && echo yes || echo no)" \
		"next_entry=$(grub-editenv /boot/grub/grubenv list | sed -n 's/^next_entry=//p')"
	ok=0
	for n in kill panic stock; do
		rm -rf "$share/out/$n" && cp -r "$results-$n" "$share/out/$n" || ok=1
	done
	echo "IPB-FCOPY rc=$ok"
	;;
finish)
	ipibench host status
	echo "IPB-STATUS rc=$?"
	rm -rf "$share/out/e2e"
	cp -r "$results" "$share/out/e2e"
	echo "IPB-COPY rc=$?"
	ipibench host uninstall
	echo "IPB-UNINSTALL rc=$?"
	# The package's own unit stays while it is installed (purge removes it).
	snap | grep -v '^lib/systemd/system/ipibench-resume.service ' >/root/after.txt
	if diff -u /root/before.txt /root/after.txt; then
		echo "IPB-DIFF rc=0 (GRUB and systemd as before install)"
	else
		echo "IPB-DIFF rc=1"
	fi
	;;
purge)
	ipibench host install --yes
	echo "IPB-REINSTALL rc=$?"
	# The first run's reboot, without the reboot: the matrix stays pending.
	IPIBENCH_REBOOT_CMD=true ipibench run -c "$share/e2e.ini" -o "$results-purge" >/root/purge-run.log 2>&1 &
	pid=$!
	n=0
	until grep -q "rebooting: true" /root/purge-run.log || [ $n -ge 300 ]; do sleep 1; n=$((n + 1)); done
	kill -9 $pid
	wait $pid 2>/dev/null
	echo "IPB-PENDING unit=$(systemctl is-enabled ipibench-resume.service 2>&1)" \
		"pending=$(test -e /var/lib/ipibench/pending && echo yes || echo no)" \
		"next_entry=$(grub-editenv /boot/grub/grubenv list | sed -n 's/^next_entry=//p')"
	apt-get purge -y -q ipibench ipibench-xen-4.17
	echo "IPB-PURGE rc=$?"
	left=
	for f in /boot/ipibench /var/lib/ipibench /lib/systemd/system/ipibench-resume.service \
		 /usr/lib/systemd/system/ipibench-resume.service /etc/systemd/system/ipibench-resume.service \
		 /etc/systemd/system/multi-user.target.wants/ipibench-resume.service /usr/lib/ipibench; do
		if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
	done
	grep -qs '^### BEGIN ipibench' /boot/grub/custom.cfg && left="$left custom.cfg-block"
	grub-editenv /boot/grub/grubenv list | grep -q '^ipibench_\|^next_entry=ipibench' &&
		left="$left grubenv:$(grub-editenv /boot/grub/grubenv list | grep '^ipibench_\|^next_entry=ipibench' | tr '\n' ' ')"
	dpkg -l ipibench ipibench-xen-4.17 2>/dev/null | grep -q '^[ir]' && left="$left dpkg-status"
	echo "IPB-LEFT [${left# }]"
	snap >/root/purged.txt
	if diff -u /root/before.txt /root/purged.txt; then
		echo "IPB-PDIFF rc=0 (GRUB and systemd as before install)"
	else
		echo "IPB-PDIFF rc=1"
	fi
	;;
*)
	echo "usage: e2e-guest.sh install|dom0|local|kill|panic|after|finish|purge" >&2
	exit 2
	;;
esac
