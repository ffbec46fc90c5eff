#!/bin/sh
# Run on the booted Debian test host by mk/test-host.sh (as root, from the
# 9p share /mnt/e2e that holds debs/, e2e.ini and out/):
#   e2e-guest.sh install   apt install the packages, ipibench host install,
#                          then the reboot-backend matrix (it reboots)
#   e2e-guest.sh finish    after the matrix: status, results to out/,
#                          host uninstall, and GRUB and systemd compared
#                          with what they were before install
# Each step ends with a line "IPB-<STEP> rc=N" that the host waits for.
set -u
share=/mnt/e2e
results=/var/lib/ipibench/results/e2e
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
	ipibench run -c "$share/e2e.ini" -o "$results"
	echo "IPB-RUN rc=$?"
	;;
finish)
	ipibench host status
	echo "IPB-STATUS rc=$?"
	rm -rf "$share/out/e2e"
	cp -r "$results" "$share/out/e2e"
	echo "IPB-COPY rc=$?"
	ipibench host uninstall
	echo "IPB-UNINSTALL rc=$?"
	snap >/root/after.txt
	if diff -u /root/before.txt /root/after.txt; then
		echo "IPB-DIFF rc=0 (GRUB and systemd as before install)"
	else
		echo "IPB-DIFF rc=1"
	fi
	;;
*)
	echo "usage: e2e-guest.sh install|finish" >&2
	exit 2
	;;
esac
