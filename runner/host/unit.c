/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The systemd unit's text, from the template the shipped file matches. */
#include <string.h>

#include "runner/host/unit.h"

/* The template of runner/host/ipibench-resume.service (a unit test keeps them equal). */
static const char unit_template[] =
"# ipibench-resume.service: after each reboot of a test host, finish the\n"
"# x2APIC mode matrix the reboot backend left pending.  Shipped by the Debian\n"
"# package (from a checkout, 'ipibench host install' writes it to /etc), not\n"
"# enabled: the reboot backend enables it before its first reboot and\n"
"# disables it when the matrix is done, as 'ipibench host uninstall' does.\n"
"[Unit]\n"
"Description=ipibench: resume the pending x2APIC mode matrix\n"
"Documentation=man:ipibench-host(1) man:ipibench-run(1)\n"
"ConditionPathExists=/var/lib/ipibench/pending\n"
"# Debian's xen.service (an LSB script) mounts xenfs on /proc/xen and starts\n"
"# xenstored; other distributions have proc-xen.mount and xenstored.service.\n"
"After=local-fs.target xen.service proc-xen.mount xenstored.service\n"
"\n"
"[Service]\n"
"Type=oneshot\n"
"EnvironmentFile=/var/lib/ipibench/pending\n"
"Environment=IPIBENCH_BUILD=@BUILD@\n"
"ExecStart=@IPIBENCH@ run --resume ${IPIBENCH_RESULTS}\n"
"StandardOutput=journal+console\n"
"StandardError=journal+console\n"
"TimeoutStartSec=infinity\n"
"\n"
"[Install]\n"
"WantedBy=multi-user.target\n";

int host_unit_text(const char *ipibench, const char *build, char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = unit_template; *p;) {
		const char *sub = NULL;
		size_t skip = 1;

		if (!strncmp(p, "@IPIBENCH@", 10))
			sub = ipibench, skip = 10;
		else if (!strncmp(p, "@BUILD@", 7))
			sub = build, skip = 7;
		if (sub) {
			size_t sl = strlen(sub);
			if (n + sl >= len)
				return -1;
			memcpy(buf + n, sub, sl);
			n += sl;
		} else {
			if (n + 1 >= len)
				return -1;
			buf[n++] = *p;
		}
		p += skip;
	}
	buf[n] = '\0';
	return 0;
}
