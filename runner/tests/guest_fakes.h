/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runner/tests/guest_fakes.h: the fakes test_guest and test_guest_nic put
 * on PATH for the guest lifecycle (runner/guest.h), and what both check
 * of a run (header-only, like tests/unit/unit.h).  xl, xentrace, ip,
 * modprobe, ping and ab, each a shell script written by setup(): they
 * record their argv in FAKE/calls and their pids in FAKE/pids, keep a
 * "domain" as the file FAKE/dom-NAME while it exists, and do what
 * FAKE/mode[-PATH], FAKE/xentrace, FAKE/br, FAKE/modprobe, FAKE/ping,
 * FAKE/ping-out and FAKE/ab say.
 *
 *   cmocka_unit_test_setup_teardown(test, setup, tu_teardown)
 *
 * Two binaries, so that make check runs the two halves side by side: the
 * lifecycle's waits are most of their time, not CPU.
 */
#ifndef IPIBENCH_RUNNER_TESTS_GUEST_FAKES_H
#define IPIBENCH_RUNNER_TESTS_GUEST_FAKES_H

#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "runner/config.h"
#include "runner/guest.h"
#include "runner/runner.h"

static const char fake_xl[] =
	"#!/bin/sh\n"
	"f=$IPB_FAKE\n"
	"echo \"xl $*\" >>\"$f/calls\"\n"
	"case $1 in\n"
	"list) [ -e \"$f/dom-$2\" ] && exit 0; echo \"$2 is an invalid domain identifier\" >&2; exit 1 ;;\n"
	"destroy) rm -f \"$f/dom-$2\"; exit 0 ;;\n"
	"dmesg) echo '(XEN) d1v0 Triple fault'; exit 0 ;;\n"
	"create) ;;\n"
	"*) exit 2 ;;\n"
	"esac\n"
	"cfg=$3\n"
	"name=$(sed -n 's/^name = \"\\(.*\\)\"$/\\1/p' \"$cfg\")\n"
	"p=$(sed -n 's/.*ipb.ipi=\\([a-z]*\\).*/\\1/p' \"$cfg\")\n"
	"mode=$(cat \"$f/mode-$p\" 2>/dev/null || cat \"$f/mode\" 2>/dev/null || echo ok)\n"
	"echo $$ >>\"$f/pids\"\n"
	"touch \"$f/dom-$name\"\n"
	/* the console lives as long as the domain does */
	"alive() { i=0; while [ -e \"$f/dom-$name\" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done; }\n"
	"echo \"IPB-GUEST-UP 2 vCPUs, 6.1.0-57-amd64\\r\"\n"
	/* an HVM guest with a NIC (guest/init's ipb.nic): serves, held
	 * after its end marker when ipb.hold */
	"if grep -q 'ipb.nic=' \"$cfg\"; then\n"
	"  [ $mode = nostart ] && { alive; exit 0; }\n"
	"  echo 'IPB-GUEST-START nic 10.0.0.2 -s 60'\n"
	"  [ $mode = hang ] && { alive; exit 0; }\n"
	"  echo 'IPB-GUEST-STOP rc=0'\n"
	"  echo 'IPB-GUEST-DONE'\n"
	"  grep -q 'ipb.hold' \"$cfg\" && { alive; exit 0; }\n"
	"  sleep 0.5; rm -f \"$f/dom-$name\"; exit 0\n"
	"fi\n"
	/* a console that grows all the time it is read (a kernel's printk) */
	"[ $mode = chatty ] && { i=0; while [ $i -lt 100000 ]; do echo \"[ $i.000] line $i\"; i=$((i+1)); done; }\n"
	"case $mode in\n"
	"nostart) alive; exit 0 ;;\n"
	"die) rm -f \"$f/dom-$name\"; echo 'Kernel panic'; exit 0 ;;\n"
	"badcfg) rm -f \"$f/dom-$name\"; echo 'Parsing config from x: failed'; exit 1 ;;\n"
	"esac\n"
	"echo \"IPB-GUEST-START ipbipi path=$p -s 1\"\n"
	"[ $mode = hang ] && { alive; exit 0; }\n"
	"echo \"ipbipi: 4321 IPIs sent, path $p\"\n"
	"echo 'IPB-GUEST-STOP rc=0'\n"
	"echo 'IPB-GUEST-DONE'\n"
	"[ $mode = nopoweroff ] && { alive; exit 0; }\n"
	"sleep 0.5\n"
	"rm -f \"$f/dom-$name\"\n";

static const char fake_xentrace[] =
	"#!/bin/sh\n"
	"f=$IPB_FAKE\n"
	"echo \"xentrace $*\" >>\"$f/calls\"\n"
	"echo $$ >>\"$f/pids\"\n"
	"for a; do out=$a; done\n"
	"case $(cat \"$f/xentrace\" 2>/dev/null || echo ok) in\n"
	"fail) echo 'xentrace: cannot map the buffers' >&2; exit 3 ;;\n"
	"hang) sleep 1000 ;;\n"
	"empty) : >\"$out\" ;;\n"
	"*) printf 'TRACE' >\"$out\" ;;\n"
	"esac\n";

/* dom0's side: FAKE/br is the bridge while it exists (its address in it),
 * FAKE/modprobe fail makes modprobe fail. */
static const char fake_ip[] =
	"#!/bin/sh\n"
	"f=$IPB_FAKE\n"
	"echo \"ip $*\" >>\"$f/calls\"\n"
	"case \"$*\" in\n"
	"'link show dev xenbr0') [ -e \"$f/br\" ] && { echo '5: xenbr0: <BROADCAST,UP> mtu 1500'; exit 0; }\n"
	"  echo 'Device \"xenbr0\" does not exist.' >&2; exit 1 ;;\n"
	"'link add name xenbr0 type bridge') touch \"$f/br\"; exit 0 ;;\n"
	"'addr add '*' dev xenbr0') echo \"$3\" >\"$f/br\"; exit 0 ;;\n"
	"'link set dev xenbr0 up') exit 0 ;;\n"
	"'-4 -o addr show dev xenbr0') a=$(cat \"$f/br\")\n"
	"  [ -n \"$a\" ] && echo \"5: xenbr0    inet $a brd 10.0.0.255 scope global xenbr0\\       valid_lft forever\"\n"
	"  exit 0 ;;\n"
	"'link del dev xenbr0') rm -f \"$f/br\"; exit 0 ;;\n"
	"esac\n"
	"exit 2\n";

static const char fake_modprobe[] =
	"#!/bin/sh\n"
	"echo \"modprobe $*\" >>\"$IPB_FAKE/calls\"\n"
	"[ \"$(cat \"$IPB_FAKE/modprobe\" 2>/dev/null)\" = fail ] && { echo 'modprobe: FATAL: Module xen-netback not found'; exit 1; }\n"
	"exit 0\n";

/* FAKE/ping: ok, noanswer (no first answer), die (the flood fails at
 * once); FAKE/ping-out: the flood's summary instead of a good one.  The
 * flood says its summary on SIGINT, as iputils' ping does; its trap is
 * the script's first act, before any command forks, as iputils' handler
 * is set before its first packet. */
static const char fake_ping[] =
	"#!/bin/sh\n"
	"f=$IPB_FAKE\n"
	"summary() { if [ -e \"$f/ping-out\" ]; then cat \"$f/ping-out\"; else\n"
	"  printf -- '--- 10.0.0.2 ping statistics ---\\n1000 packets transmitted, 990 received, 1%% packet loss, time 9000ms\\n'\n"
	"  printf 'rtt min/avg/max/mdev = 0.100/0.500/2.000/0.200 ms, pipe 2, ipg/ewma 9.009/0.452 ms\\n'; fi; }\n"
	"trap 'echo \"ping INT\" >>\"$f/calls\"; summary; exit 0' INT\n"
	"echo \"ping $*\" >>\"$f/calls\"\n"
	"echo $$ >>\"$f/pids\"\n"
	"m=$(cat \"$f/ping\" 2>/dev/null || echo ok)\n"
	"case \"$*\" in\n"
	"'-c 1 '*) [ $m = noanswer ] && exit 1; echo '64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.5 ms'; exit 0 ;;\n"
	"esac\n"
	"[ $m = die ] && { echo 'ping: sendmsg: Network is unreachable'; exit 2; }\n"
	"i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
	"summary\n";

/* FAKE/ab: ok, fail, garbled. */
static const char fake_ab[] =
	"#!/bin/sh\n"
	"f=$IPB_FAKE\n"
	"echo \"ab $*\" >>\"$f/calls\"\n"
	"echo $$ >>\"$f/pids\"\n"
	"case $(cat \"$f/ab\" 2>/dev/null || echo ok) in\n"
	"fail) echo 'apr_socket_recv: Connection refused (111)' >&2; exit 1 ;;\n"
	"garbled) printf 'Complete requests:      lots\\nFailed requests: 0\\n'; exit 0 ;;\n"
	"esac\n"
	"printf 'Server Software:\\nDocument Path:          /\\nComplete requests:      1234\\n'\n"
	"printf 'Failed requests:        0\\nRequests per second:    123.40 [#/sec] (mean)\\n'\n"
	"printf 'Time per request:       8.104 [ms] (mean)\\n'\n";

static char fake[PATH_MAX], bin[PATH_MAX];

static void put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(tu_write(path, text), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static int setup(void **state)
{
	static char path[PATH_MAX * 2];

	if (tu_setup(state))
		return -1;
	snprintf(fake, sizeof(fake), "%s/fake", tu_dir);
	snprintf(bin, sizeof(bin), "%s/bin", tu_dir);
	if (mkdir(fake, 0755) || mkdir(bin, 0755))
		return -1;
	put(bin, "xl", fake_xl, 0755);
	put(bin, "xentrace", fake_xentrace, 0755);
	put(bin, "ip", fake_ip, 0755);
	put(bin, "modprobe", fake_modprobe, 0755);
	put(bin, "ping", fake_ping, 0755);
	put(bin, "ab", fake_ab, 0755);
	setenv("IPB_FAKE", fake, 1);
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", bin);
	setenv("PATH", path, 1);
	return 0;
}

static char *fake_file(const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", fake, name);
	return tu_slurp(path);
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* No process the fakes started is alive (orphans come to us: a subreaper). */
static void none_left(void)
{
	char *pids = fake_file("pids");

	for (struct tu_wait w = tu_wait_start(5000); tu_wait_more(&w);) {
		int alive = 0;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		for (char *p = pids; p && *p;) {
			long pid = strtol(p, &p, 10);

			if (pid > 0 && (kill((pid_t)pid, 0) == 0 || kill(-(pid_t)pid, 0) == 0))
				alive = 1;
			while (*p == '\n')
				p++;
		}
		if (!alive) {
			free(pids);
			return;
		}
	}
	fail_msg("a process of the fakes outlived the guest run: %s", pids);
}

static void dom_gone(const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/dom-%s", fake, name);
	assert_int_equal(access(path, F_OK), -1);
}

static struct cfg_guest guest(void)
{
	struct cfg_guest g;

	memset(&g, 0, sizeof(g));
	g.vcpus = 2;
	g.memory = 256;
	g.ipi_path = IPI_PATH_EVTCHN;
	g.trace_mask = 0x0008ffff;
	g.trace_secs = 1;
	g.timeout = 60;   /* the config's; guest_spec's timeout_ms bounds the run */
	return g;
}

static struct guest_spec spec(const struct cfg_guest *g, const char *id)
{
	struct guest_spec s = {
		.g = g, .name = "ipb-test", .kernel = "/k", .ramdisk = "/r", .dir = tu_dir,
		.id = id, .timeout_ms = 3000, .settle_ms = 0, .poweroff_ms = 2000, .xl_ms = 5000,
		.trace_slack_ms = 300,
	};
	return s;
}

/* `ipibench run ARGV` in a child: its exit status (128 + a signal). */
static int run_cmd(char **argv)
{
	int argc = 0, st;
	pid_t pid = fork();

	while (argv[argc])
		argc++;
	if (pid == 0)
		_exit(cmd_run(argc, argv));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
