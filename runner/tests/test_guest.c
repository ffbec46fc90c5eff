/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The guest lifecycle (runner/guest.h) against a fake xl and xentrace on
 * PATH, written by the test: they record their argv in FAKE/calls, keep a
 * "domain" as the file FAKE/dom-NAME while it exists, and do what
 * FAKE/mode[-PATH] and FAKE/xentrace say (ok, nostart, die, hang,
 * nopoweroff; ok, fail, hang, empty).  Every way out destroys the guest,
 * checks it is gone, and leaves no process behind; SIGTERM destroys then
 * kills; `ipibench run` keeps results.json valid when killed and
 * --resume finishes only the unfinished guest runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "runner/config.h"
#include "runner/guest.h"
#include "runner/results.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "lib/safeio.h"

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

/* The whole way: the xl config, the console, both traces, the power-off. */
static void test_ok(void **state)
{
	struct cfg_guest g = guest();
	struct guest_spec s = spec(&g, "evtchn-r0");
	struct guest_result r;
	char path[PATH_MAX + 64], *calls, *text;

	(void)state;
	assert_int_equal(guest_run(&s, &r), 0);
	assert_int_equal(r.outcome, GO_OK);
	assert_true(r.gone);
	assert_false(r.destroyed);   /* it powered itself off */
	assert_true(r.t_start >= 0 && r.t_traced >= r.t_start && r.t_done >= r.t_traced);
	assert_string_equal(r.xl_cfg, "guests/evtchn-r0/xl.cfg");
	assert_string_equal(r.console, "guests/evtchn-r0/console.log");
	assert_string_equal(r.trace_hvm, "guests/evtchn-r0/hvm.xt");
	assert_string_equal(r.trace_sched, "guests/evtchn-r0/hvm_sched.xt");
	calls = fake_file("calls");
	snprintf(path, sizeof(path), "xl create -c %s/guests/evtchn-r0/xl.cfg\n", tu_dir);
	assert_non_null(strstr(calls, path));
	/* the scheduler class first, then the config's mask, each -T secs */
	snprintf(path, sizeof(path), "xentrace -D -e 0x000affff -T 1 %s/guests/evtchn-r0/hvm_sched.xt\n"
		 "xentrace -D -e 0x0008ffff -T 1 %s/guests/evtchn-r0/hvm.xt\n", tu_dir, tu_dir);
	assert_non_null(strstr(calls, path));
	assert_int_equal(count(calls, "xl destroy"), 0);
	assert_int_equal(count(calls, "xl dmesg"), 0);
	assert_string_equal(r.xl_dmesg, "");
	free(calls);
	snprintf(path, sizeof(path), "%s/guests/evtchn-r0/xl.cfg", tu_dir);
	text = tu_slurp(path);
	assert_non_null(strstr(text, "name = \"ipb-test\"\nkernel = \"/k\"\nramdisk = \"/r\"\n"));
	assert_non_null(strstr(text, "ipb.ipi=kernel"));
	free(text);
	snprintf(path, sizeof(path), "%s/guests/evtchn-r0/hvm.xt", tu_dir);
	text = tu_slurp(path);
	assert_string_equal(text, "TRACE");
	free(text);
	snprintf(path, sizeof(path), "%s/guests/evtchn-r0/console.log", tu_dir);
	text = tu_slurp(path);
	json_t *ct = guest_console_counts(text);
	free(text);
	assert_int_equal(json_integer_value(json_object_get(ct, "ipis_sent")), 4321);
	assert_string_equal(json_string_value(json_object_get(ct, "ipbipi_path")), "kernel");
	assert_string_equal(json_string_value(json_object_get(ct, "kernel")), "6.1.0-57-amd64");
	assert_int_equal(json_integer_value(json_object_get(ct, "vcpus")), 2);
	json_decref(ct);
	none_left();
	dom_gone("ipb-test");

	/* the same with a console written while it is read */
	put(fake, "mode", "chatty", 0644);
	assert_int_equal(guest_run(&s, &r), 0);
	assert_int_equal(r.outcome, GO_OK);
	none_left();
}

/* Each way a guest run goes wrong: its outcome, xl destroy when the guest
 * was still there, and nothing left, within its bounds. */
static void test_failures(void **state)
{
	static const struct {
		const char *mode, *xentrace;
		enum guest_outcome outcome;
		int destroyed;
		const char *msg;
	} cases[] = {
		{ "nostart", "ok", GO_START_TIMEOUT, 1, "no IPB-GUEST-START on the console within 0.8 s" },
		{ "die", "ok", GO_DIED, 0, "console ended before IPB-GUEST-START" },
		{ "badcfg", "ok", GO_DIED, 0, "xl create -c: exit status 1 before IPB-GUEST-START" },
		{ "hang", "ok", GO_DONE_TIMEOUT, 1, "no IPB-GUEST-DONE" },
		{ "nopoweroff", "ok", GO_NO_POWEROFF, 1, "did not power off within 0.8 s" },
		{ "hang", "fail", GO_TRACE_FAILED, 1, "xentrace -e 0x000affff: exit status 3" },
		{ "hang", "hang", GO_TRACE_FAILED, 1, "still running after 1.3 s, killed" },
		{ "hang", "empty", GO_TRACE_FAILED, 1, "no trace, or an empty one" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cfg_guest g = guest();
		struct guest_spec s = spec(&g, "evtchn-r0");
		struct guest_result r;
		char *calls;
		double t0 = now_s();

		/* the fakes answer at once: short bounds are what is waited for */
		s.timeout_ms = 800;
		s.poweroff_ms = 800;

		put(fake, "mode", cases[i].mode, 0644);
		put(fake, "xentrace", cases[i].xentrace, 0644);
		put(fake, "calls", "", 0644);
		assert_int_equal(guest_run(&s, &r), -1);
		if (r.outcome != cases[i].outcome || !strstr(r.error, cases[i].msg))
			fail_msg("%zu (%s, xentrace %s): outcome %s, '%s'", i, cases[i].mode,
				 cases[i].xentrace, guest_outcome_name(r.outcome), r.error);
		assert_int_equal(r.destroyed, cases[i].destroyed);
		assert_true(r.gone);
		/* Xen's log kept beside it */
		assert_string_equal(r.xl_dmesg, "guests/evtchn-r0/xl-dmesg.log");
		char dm[PATH_MAX + 64], *dt;
		snprintf(dm, sizeof(dm), "%s/%s", tu_dir, r.xl_dmesg);
		dt = tu_slurp(dm);
		assert_non_null(dt);
		assert_non_null(strstr(dt, "Triple fault"));
		free(dt);
		assert_true(now_s() - t0 < 10);
		calls = fake_file("calls");
		assert_int_equal(count(calls, "xl destroy ipb-test\n"), cases[i].destroyed);
		/* gone is what xl list said after it */
		assert_non_null(strstr(strrchr(calls, '\n') ? calls : calls, "xl list ipb-test\n"));
		free(calls);
		none_left();
		dom_gone("ipb-test");
	}
}

/* A domain of that name already there is not ours: refused, left alone;
 * no xl on PATH is said as such. */
static void test_not_ours(void **state)
{
	struct cfg_guest g = guest();
	struct guest_spec s = spec(&g, "evtchn-r0");
	struct guest_result r;
	char *calls;

	(void)state;
	put(fake, "dom-ipb-test", "", 0644);
	assert_int_equal(guest_run(&s, &r), -1);
	assert_int_equal(r.outcome, GO_ERROR);
	assert_non_null(strstr(r.error, "a domain named ipb-test is already there"));
	calls = fake_file("calls");
	assert_int_equal(count(calls, "xl create"), 0);
	assert_int_equal(count(calls, "xl destroy"), 0);
	free(calls);
	unlink(strcat(strcpy((char[PATH_MAX + 32]){ 0 }, fake), "/dom-ipb-test"));

	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(guest_run(&s, &r), -1);
	assert_int_equal(r.outcome, GO_ERROR);
	assert_non_null(strstr(r.error, "cannot run xl"));
}

/* Wait (at most 20 s) for the console of guest run ID in DIR to show the
 * start; else PID (the runner under test) is killed and the test fails. */
static void wait_started(const char *dir, const char *id, pid_t pid)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/guests/%s/console.log", dir, id);
	for (struct tu_wait w = tu_wait_start(20000); tu_wait_more(&w);) {
		char *t = tu_slurp(path);
		int has = t && strstr(t, GUEST_MARK_START);

		free(t);
		if (has)
			return;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fail_msg("%s never showed %s", path, GUEST_MARK_START);
}

/* SIGTERM while the guest runs: destroyed, checked, then the signal kills. */
static void test_sigterm(void **state)
{
	int st;
	pid_t pid;
	char *calls;

	(void)state;
	put(fake, "mode", "hang", 0644);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cfg_guest g = guest();
		struct guest_spec s = spec(&g, "evtchn-r0");
		struct guest_result r;

		s.timeout_ms = 60000;
		guest_run(&s, &r);
		if (r.outcome == GO_INTERRUPTED && r.signal && r.gone)
			guest_reraise(r.signal);
		_exit(r.outcome == GO_INTERRUPTED ? 3 : 4);
	}
	wait_started(tu_dir, "evtchn-r0", pid);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	calls = fake_file("calls");
	assert_int_equal(count(calls, "xl destroy ipb-test\n"), 1);
	free(calls);
	none_left();
	dom_gone("ipb-test");
}

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

/* `ipibench run` of a [guest] config: killed in its second guest run, the
 * results are valid and say so; --resume runs that one only. */
static void test_run_resume(void **state)
{
	char cfg[PATH_MAX], out[PATH_MAX], text[2048], err[512], *calls;
	struct results res;
	json_t *gr;
	pid_t pid;
	int st;

	(void)state;
	snprintf(cfg, sizeof(cfg), "%s/g.ini", tu_dir);
	snprintf(out, sizeof(out), "%s/out", tu_dir);
	put(tu_dir, "vmlinux", "k", 0644);
	put(tu_dir, "initrd.gz", "r", 0644);
	snprintf(text, sizeof(text), "[host]\nbackend = local\n[matrix]\n[guest]\n"
		 "ipi_path = evtchn, apic\ntrace_secs = 1\ntimeout = 60\n"
		 "kernel = %s/vmlinux\nramdisk = %s/initrd.gz\n", tu_dir, tu_dir);
	put(tu_dir, "g.ini", text, 0644);
	put(fake, "mode-apic", "hang", 0644);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { "run", "-c", cfg, "-o", out, "-q", NULL };
		_exit(cmd_run(6, argv));
	}
	wait_started(out, "apic-r0", pid);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	none_left();
	dom_gone("ipibench-apic-r0");
	assert_int_equal(results_open(&res, out, err, sizeof(err)), 0);
	gr = results_guest_runs(&res);
	assert_int_equal(json_array_size(gr), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(gr, 0), "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(json_array_get(gr, 1), "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(json_array_get(gr, 1), "outcome")),
			    "interrupted");
	assert_true(json_is_true(json_object_get(json_array_get(gr, 1), "destroyed")));
	/* the finished run's keys, as docs/results-schema.md has them */
	json_t *g0 = json_array_get(gr, 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(g0, "traces"), "hvm")),
			    "guests/evtchn-r0/hvm.xt");
	assert_string_equal(json_string_value(json_object_get(json_object_get(g0, "traces"),
							      "hvm_sched")), "guests/evtchn-r0/hvm_sched.xt");
	assert_string_equal(json_string_value(json_object_get(g0, "workload")), "ipbipi");
	assert_string_equal(json_string_value(json_object_get(g0, "ipi_path")), "evtchn");
	assert_string_equal(json_string_value(json_object_get(g0, "xl_config")), "guests/evtchn-r0/xl.cfg");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(g0, "counts"),
							    "ipis_sent")), 4321);
	assert_non_null(json_object_get(g0, "started"));
	assert_true(json_is_real(json_object_get(g0, "start_s")));
	results_close(&res);

	put(fake, "mode-apic", "ok", 0644);
	put(fake, "calls", "", 0644);
	char *argv[] = { "run", "--resume", out, "-q", NULL };
	assert_int_equal(run_cmd(argv), 0);
	calls = fake_file("calls");
	assert_int_equal(count(calls, "xl create"), 1);
	assert_non_null(strstr(calls, "guests/apic-r0/xl.cfg"));
	free(calls);
	assert_int_equal(results_open(&res, out, err, sizeof(err)), 0);
	gr = results_guest_runs(&res);
	assert_string_equal(json_string_value(json_object_get(json_array_get(gr, 1), "status")), "ok");
	assert_null(json_object_get(json_array_get(gr, 1), "error"));
	results_close(&res);
	none_left();
}

/* What runs guests: the local backend only, without dom0 workloads. */
static void test_run_refusals(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "[host]\n[matrix]\n[guest]\n", "backend = local" },
		{ "[host]\nbackend = local\n[matrix]\n[guest]\n[workload:f]\ntype = flush_tlb_all\n",
		  "[workload:NAME]: not yet with [guest]" },
		{ "[host]\nbackend = local\n[matrix]\ncpus = 2, 4\n[guest]\n", "[matrix] cpus" },
	};
	char cfg[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 32];

	(void)state;
	snprintf(cfg, sizeof(cfg), "%s/g.ini", tu_dir);
	snprintf(out, sizeof(out), "%s/out", tu_dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "run", "-c", cfg, "-o", out, NULL };
		int fd = dup(2), efd;
		char epath[PATH_MAX + 16], *e;

		put(tu_dir, "g.ini", bad[i].text, 0644);
		snprintf(epath, sizeof(epath), "%s/stderr", tu_dir);
		efd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(efd, 2);
		int rc = run_cmd(argv);
		dup2(fd, 2);
		close(fd);
		close(efd);
		assert_int_equal(rc, 2);
		e = tu_slurp(epath);
		if (!strstr(e, bad[i].msg))
			fail_msg("%zu: expected '%s' in '%s'", i, bad[i].msg, e);
		free(e);
		snprintf(path, sizeof(path), "%s/results.json", out);
		assert_int_equal(access(path, F_OK), -1);
	}
}

/* paging = hap is refused in one line naming the config's line on a CPU
 * of QEMU's models (whose TCG SVM misreports CR reads, docs/guests.md),
 * and let through elsewhere, with shadow paging, or with no model known.
 * The model is /proc/cpuinfo's first "model name" as hc_parse_cpuinfo()
 * reads it (test_hostcheck: the first counts, a control byte refused). */
static void test_hap_refused(void **state)
{
	static const char qemu[] = "QEMU Virtual CPU version 2.5+";
	static const char tcg_max[] = "QEMU TCG CPU version 2.5+";
	static const char epyc[] = "AMD EPYC 7543P 32-Core Processor";
	static const char nasty[] = "QEMU Virtual CPU version \x1b[2J";
	static const char fake[] = "A QEMU Virtual CPU version 2.5+";
	char cfg[PATH_MAX], err[512];
	struct config c;

	(void)state;
	snprintf(cfg, sizeof(cfg), "%s/hap.ini", tu_dir);
	put(tu_dir, "hap.ini", "[host]\nbackend = local\n[matrix]\n[guest]\nvcpus = 2\n"
	    "paging = hap\n", 0644);
	assert_int_equal(config_load(cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.hap, 1);
	assert_int_equal(c.guest.hap_line, 6);
	err[0] = '\0';
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", qemu, err, sizeof(err)), 1);
	static const char head[] = "hap.ini:6: paging = hap: this host's CPU is QEMU's "
		"(QEMU Virtual CPU version 2.5+), ";
	if (strncmp(err, head, strlen(head)) ||
	    !strstr(err, "CR0 read") || !strstr(err, "use paging = shadow") || strchr(err, '\n'))
		fail_msg("refusal: '%s'", err);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", tcg_max, err, sizeof(err)), 1);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", nasty, err, sizeof(err)), 1);
	if (strchr(err, '\x1b') || !strstr(err, "\\x1b"))
		fail_msg("the model is shown escaped: '%s'", err);
	/* A real CPU, one that only names QEMU, no model, unread. */
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", epyc, err, sizeof(err)), 0);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", fake, err, sizeof(err)), 0);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", "", err, sizeof(err)), 0);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", NULL, err, sizeof(err)), 0);
	config_free(&c);
	/* Shadow paging (the default) runs on QEMU's CPU. */
	put(tu_dir, "hap.ini", "[host]\nbackend = local\n[matrix]\n[guest]\npaging = shadow\n", 0644);
	assert_int_equal(config_load(cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.hap, 0);
	assert_int_equal(guest_hap_refused(&c.guest, "hap.ini", qemu, err, sizeof(err)), 0);
	config_free(&c);
}

/* The console is untrusted: only well-formed lines count. */
static void test_console_counts(void **state)
{
	json_t *o;

	(void)state;
	o = guest_console_counts("[  1.0] boot\r\nIPB-GUEST-UP 2 vCPUs, 6.1.0-57-amd64\r\n"
				 "IPB-GUEST-START ipbipi path=apic -s 30\n"
				 "ipbipi: 99 IPIs sent, path apic\nIPB-GUEST-STOP rc=0\nIPB-GUEST-DONE");
	assert_int_equal(json_integer_value(json_object_get(o, "ipis_sent")), 99);
	assert_string_equal(json_string_value(json_object_get(o, "workload")), "ipbipi");
	assert_int_equal(json_integer_value(json_object_get(o, "workload_rc")), 0);
	assert_true(json_is_true(json_object_get(o, "done")));
	json_decref(o);
	o = guest_console_counts("IPB-GUEST-UP 0 vCPUs, x\nipbipi: -5 IPIs sent, path apic\n"
				 "ipbipi: 5 IPIs sent, path a\"b\nIPB-GUEST-STOP rc=300\n"
				 "IPB-GUEST-UP 2 vCPUs, 6.1 trailing\n");
	assert_int_equal(json_object_size(o), 0);
	json_decref(o);
}

/* An HVM guest with a NIC (type = hvm, nic = e1000e), the defaults of the
 * NIC load; ping_wait_ms small. */
static struct cfg_guest nic_guest(enum cfg_msi_path m)
{
	struct cfg_guest g = guest();

	g.type = GUEST_HVM;
	g.nic = "e1000e";
	g.msi_path = m;
	snprintf(g.nic_address, sizeof(g.nic_address), "10.0.0.2");
	snprintf(g.dom0_address, sizeof(g.dom0_address), "10.0.0.1");
	g.ping_secs = 60;
	g.ab_secs = 10;
	return g;
}

/* Where NEEDLE is in TEXT (-1: not there), for the order of the calls. */
static long at(const char *text, const char *needle)
{
	const char *p = text ? strstr(text, needle) : NULL;

	return p ? p - text : -1;
}

static int bridge_there(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/br", fake);
	return access(path, F_OK) == 0;
}

/* The whole NIC run: dom0's side made and removed, the flood through both
 * recordings then stopped, ab after it, the summaries parsed, the held
 * guest destroyed after its end marker as an ok end. */
static void test_nic_ok(void **state)
{
	struct cfg_guest g = nic_guest(MSI_PATH_APIC);
	struct guest_spec s = spec(&g, "apic-r0");
	struct guest_result r;
	char path[PATH_MAX + 64], *calls, *text;

	(void)state;
	s.ping_wait_ms = 3000;
	/* the runner's settle after the flood's start (its default): the fake
	 * ping says it started before xentrace does */
	s.settle_ms = 300;
	assert_int_equal(guest_run(&s, &r), 0);
	if (r.outcome != GO_OK)
		fail_msg("outcome %s: %s", guest_outcome_name(r.outcome), r.error);
	assert_true(r.gone);
	assert_true(r.destroyed);
	assert_string_equal(r.end, "destroy");
	assert_non_null(strstr(r.end_reason, "ipb.hold"));
	assert_string_equal(r.bridge, "made");
	/* the figures, from the fakes' summaries */
	assert_true(r.load.have_ping && r.load.have_rtt && r.load.have_ab);
	assert_int_equal(r.load.ping_tx, 1000);
	assert_int_equal(r.load.ping_rx, 990);
	assert_true(r.load.ping_loss == 1.0);
	assert_true(r.load.rtt_min == 0.1 && r.load.rtt_avg == 0.5 && r.load.rtt_max == 2.0 &&
		    r.load.rtt_mdev == 0.2);
	assert_int_equal(r.load.ab_complete, 1234);
	assert_int_equal(r.load.ab_failed, 0);
	assert_true(r.load.ab_rps == 123.4);
	assert_string_equal(r.load.ping_log, "guests/apic-r0/ping.log");
	assert_string_equal(r.load.ab_log, "guests/apic-r0/ab.log");
	/* in this order: dom0's side, the guest, its first answer, the flood,
	 * both recordings, the flood's end, ab, the destroy, the bridge's end */
	calls = fake_file("calls");
	static const char *const order[] = {
		"modprobe xen-netback\n", "ip link show dev xenbr0\n",
		"ip link add name xenbr0 type bridge\n", "ip addr add 10.0.0.1/24 dev xenbr0\n",
		"ip link set dev xenbr0 up\n", "xl create -c ", "ping -c 1 -W 2 10.0.0.2\n",
		"ping -q -f -w 60 10.0.0.2\n", "xentrace -D -e 0x000affff", "xentrace -D -e 0x0008ffff",
		"ping INT\n", "ab -q -t 10 -c 1 http://10.0.0.2/\n", "xl destroy ipb-test\n",
		"ip link del dev xenbr0\n",
	};
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		if (at(calls, order[i - 1]) < 0 || at(calls, order[i]) <= at(calls, order[i - 1]))
			fail_msg("'%s' not before '%s' in:\n%s", order[i - 1], order[i], calls);
	assert_int_equal(count(calls, "xl destroy"), 1);
	free(calls);
	assert_false(bridge_there());
	snprintf(path, sizeof(path), "%s/guests/apic-r0/xl.cfg", tu_dir);
	text = tu_slurp(path);
	assert_non_null(strstr(text, "xen_nopv"));
	assert_non_null(strstr(text, "ipb.hold"));
	assert_non_null(strstr(text, "vif = [ 'model=e1000e,bridge=xenbr0' ]"));
	free(text);
	none_left();
	dom_gone("ipb-test");

	/* a bridge already there with dom0's address: used, left as it was */
	put(fake, "br", "10.0.0.1/24\n", 0644);
	put(fake, "calls", "", 0644);
	g.msi_path = MSI_PATH_PIRQ;
	assert_int_equal(guest_run(&s, &r), 0);
	assert_string_equal(r.bridge, "there");
	calls = fake_file("calls");
	assert_int_equal(count(calls, "ip link add"), 0);
	assert_int_equal(count(calls, "ip addr add"), 0);
	assert_int_equal(count(calls, "ip link del"), 0);
	free(calls);
	assert_true(bridge_there());
	none_left();
	dom_gone("ipb-test");
}

/* Each way the NIC run goes wrong: its outcome and message, the guest
 * destroyed when it was there, the flood stopped, the bridge removed when
 * ipibench made it, nothing left. */
static void test_nic_failures(void **state)
{
	static const struct {
		const char *file, *text;   /* FAKE/FILE = TEXT */
		enum guest_outcome outcome;
		int created;               /* the guest was created (and so destroyed) */
		const char *msg;
	} cases[] = {
		{ "modprobe", "fail", GO_DOM0_FAILED, 0, "modprobe xen-netback: exit status 1" },
		{ "br", "192.168.0.1/24\n", GO_DOM0_FAILED, 0,
		  "the bridge xenbr0 is there without dom0's 10.0.0.1/24" },
		{ "ping", "noanswer", GO_LOAD_FAILED, 1, "the guest does not answer ping at 10.0.0.2 within 0.5 s" },
		{ "ping", "die", GO_LOAD_FAILED, 1, "ping -f ended (exit status 2) before the recordings did" },
		{ "ping-out", "PING 10.0.0.2 56(84) bytes of data.\nsomething else\n", GO_LOAD_FAILED, 1,
		  "guests/pirq-r0/ping.log: no ping summary" },
		{ "ping-out", "10 packets transmitted, 11 received, 0% packet loss\n", GO_LOAD_FAILED, 1,
		  "ping.log: 11 received of 10 transmitted" },
		{ "ping-out", "10 packets transmitted, 10 received, 0% packet loss, time 9ms\n", GO_LOAD_FAILED, 1,
		  "ping.log: 10 answers but no rtt line" },
		{ "ab", "fail", GO_LOAD_FAILED, 1, "ab -t 10 -c 1 http://10.0.0.2/: exit status 1" },
		{ "ab", "garbled", GO_LOAD_FAILED, 1,
		  "guests/pirq-r0/ab.log: 'Complete requests:' is not followed by a count" },
		{ "xentrace", "fail", GO_TRACE_FAILED, 1, "xentrace -e 0x000affff: exit status 3" },
		{ "mode", "nostart", GO_START_TIMEOUT, 1, "no IPB-GUEST-START" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cfg_guest g = nic_guest(MSI_PATH_PIRQ);
		struct guest_spec s = spec(&g, "pirq-r0");
		struct guest_result r;
		char *calls, path[PATH_MAX + 32];
		int preset = !strcmp(cases[i].file, "br");
		double t0 = now_s();

		s.ping_wait_ms = 500;
		s.timeout_ms = 1500;   /* the nostart case waits it out */
		/* the flood's start before the recordings, as in ipibench run: the
		 * fake ping has its SIGINT trap by then */
		s.settle_ms = 300;
		/* the device model's log, kept beside a failed HVM run's */
		char dmdir[PATH_MAX + 16];
		snprintf(dmdir, sizeof(dmdir), "%s/xenlog", tu_dir);
		mkdir(dmdir, 0755);
		put(dmdir, "qemu-dm-ipb-test.log", "qemu-system-i386: -serial pty: char device redirected\n", 0644);
		s.dm_log_dir = dmdir;
		put(fake, "calls", "", 0644);
		put(fake, cases[i].file, cases[i].text, 0644);
		assert_int_equal(guest_run(&s, &r), -1);
		if (r.outcome != cases[i].outcome || !strstr(r.error, cases[i].msg))
			fail_msg("%zu (%s = %s): outcome %s, '%s'", i, cases[i].file, cases[i].text,
				 guest_outcome_name(r.outcome), r.error);
		assert_int_equal(r.destroyed, cases[i].created);
		assert_true(r.gone);
		assert_true(now_s() - t0 < 20);
		assert_string_equal(r.dm_log, "guests/pirq-r0/qemu-dm.log");
		snprintf(path, sizeof(path), "%s/%s", tu_dir, r.dm_log);
		char *dm = tu_slurp(path);
		assert_non_null(dm);
		assert_non_null(strstr(dm, "char device redirected"));
		free(dm);
		calls = fake_file("calls");
		assert_int_equal(count(calls, "xl create"), cases[i].created);
		assert_int_equal(count(calls, "xl destroy ipb-test\n"), cases[i].created);
		/* what ipibench made, it removed; someone else's bridge stays */
		assert_int_equal(count(calls, "ip link del dev xenbr0\n"), count(calls, "ip link add"));
		free(calls);
		assert_int_equal(bridge_there(), preset);
		none_left();
		dom_gone("ipb-test");
		snprintf(path, sizeof(path), "%s/%s", fake, cases[i].file);
		unlink(path);
	}
}

/* Wait (at most 20 s) for the fakes' calls to have NEEDLE; else PID is
 * killed and the test fails. */
static void wait_call(const char *needle, pid_t pid)
{
	for (struct tu_wait w = tu_wait_start(20000); tu_wait_more(&w);) {
		char *t = fake_file("calls");
		int has = t && strstr(t, needle);

		free(t);
		if (has)
			return;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fail_msg("the fakes never saw '%s'", needle);
}

/* SIGTERM while the flood runs (a recording hangs): the guest destroyed,
 * the flood stopped, the bridge removed, then the signal kills. */
static void test_nic_sigterm(void **state)
{
	int st;
	pid_t pid;
	char *calls;

	(void)state;
	put(fake, "xentrace", "hang", 0644);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cfg_guest g = nic_guest(MSI_PATH_PIRQ);
		struct guest_spec s = spec(&g, "pirq-r0");
		struct guest_result r;

		s.timeout_ms = 60000;
		g.trace_secs = 30;
		s.ping_wait_ms = 5000;
		s.settle_ms = 300;
		guest_run(&s, &r);
		if (r.outcome == GO_INTERRUPTED && r.signal && r.gone)
			guest_reraise(r.signal);
		_exit(r.outcome == GO_INTERRUPTED ? 3 : 4);
	}
	wait_call("xentrace -D -e 0x000affff", pid);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	calls = fake_file("calls");
	assert_non_null(strstr(calls, "ping -q -f -w 60 10.0.0.2\n"));
	assert_int_equal(count(calls, "xl destroy ipb-test\n"), 1);
	assert_int_equal(count(calls, "ip link del dev xenbr0\n"), 1);
	free(calls);
	assert_false(bridge_there());
	none_left();
	dom_gone("ipb-test");
}

/* `ipibench run` of an HVM NIC config: one guest run per MSI path, each
 * with its IPI path, its load and its end in results.json. */
static void test_nic_run(void **state)
{
	char cfg[PATH_MAX], out[PATH_MAX], text[2048], err[512];
	struct results res;
	json_t *gr;

	(void)state;
	snprintf(cfg, sizeof(cfg), "%s/n.ini", tu_dir);
	snprintf(out, sizeof(out), "%s/out", tu_dir);
	put(tu_dir, "vmlinuz", "k", 0644);
	put(tu_dir, "initrd.gz", "r", 0644);
	snprintf(text, sizeof(text), "[host]\nbackend = local\n[matrix]\n[guest]\ntype = hvm\n"
		 "nic = e1000e\nmsi_path = pirq, apic\ntrace_secs = 1\ntimeout = 60\nab_secs = 3\n"
		 "kernel = %s/vmlinuz\nramdisk = %s/initrd.gz\n", tu_dir, tu_dir);
	put(tu_dir, "n.ini", text, 0644);
	char *argv[] = { "run", "-c", cfg, "-o", out, "-q", NULL };
	assert_int_equal(run_cmd(argv), 0);
	none_left();
	assert_int_equal(results_open(&res, out, err, sizeof(err)), 0);
	gr = results_guest_runs(&res);
	assert_int_equal(json_array_size(gr), 2);
	static const char *const ids[] = { "pirq-r0", "apic-r0" }, *ipis[] = { "evtchn", "apic" };
	for (size_t i = 0; i < 2; i++) {
		json_t *g = json_array_get(gr, i), *load = json_object_get(g, "load");

		assert_string_equal(json_string_value(json_object_get(g, "id")), ids[i]);
		assert_string_equal(json_string_value(json_object_get(g, "msi_path")), i ? "apic" : "pirq");
		assert_string_equal(json_string_value(json_object_get(g, "ipi_path")), ipis[i]);
		assert_string_equal(json_string_value(json_object_get(g, "workload")), "nic");
		assert_string_equal(json_string_value(json_object_get(g, "status")), "ok");
		assert_string_equal(json_string_value(json_object_get(g, "outcome")), "ok");
		assert_string_equal(json_string_value(json_object_get(g, "end")), "destroy");
		assert_true(json_is_true(json_object_get(g, "destroyed")));
		assert_non_null(json_object_get(g, "end_reason"));
		json_t *ping = json_object_get(load, "ping"), *ab = json_object_get(load, "ab");
		assert_int_equal(json_integer_value(json_object_get(ping, "transmitted")), 1000);
		assert_int_equal(json_integer_value(json_object_get(ping, "received")), 990);
		assert_true(json_real_value(json_object_get(ping, "loss_pct")) == 1.0);
		assert_true(json_real_value(json_object_get(json_object_get(ping, "rtt_ms"), "avg")) == 0.5);
		assert_int_equal(json_integer_value(json_object_get(ab, "complete")), 1234);
		assert_int_equal(json_integer_value(json_object_get(ab, "failed")), 0);
		assert_true(json_real_value(json_object_get(ab, "requests_per_s")) == 123.4);
		assert_int_equal(json_integer_value(json_object_get(ab, "t_secs")), 3);
		assert_string_equal(json_string_value(json_object_get(load, "bridge_was")), "made");
		assert_string_equal(json_string_value(json_object_get(json_object_get(g, "counts"),
								      "workload")), "nic");
	}
	results_close(&res);
	assert_false(bridge_there());
}

/* ping's and ab's summaries are untrusted: only well-formed ones count. */
static void test_load_summaries(void **state)
{
	struct guest_load l;
	char err[256];

	(void)state;
	memset(&l, 0, sizeof(l));
	/* iputils' own, with errors and the flood's ipg/ewma */
	assert_int_equal(guest_ping_summary("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n\n"
					    "--- 10.0.0.2 ping statistics ---\r\n"
					    "8413 packets transmitted, 8200 received, +3 errors, 2.53180% packet loss, time 9999ms\r\n"
					    "rtt min/avg/max/mdev = 0.331/1.093/24.120/0.944 ms, pipe 2, ipg/ewma 1.188/0.822 ms\n",
					    &l, err, sizeof(err)), 0);
	assert_int_equal(l.ping_tx, 8413);
	assert_int_equal(l.ping_rx, 8200);
	assert_true(fabs(l.ping_loss - 2.5318) < 1e-9);
	assert_true(l.rtt_max == 24.12);
	static const struct { const char *text, *msg; } badping[] = {
		{ "", "no ping summary" },
		{ "x packets transmitted, 1 received, 0% packet loss\n", "not ping's 'N packets transmitted" },
		{ "1 packets transmitted, 1 received, 0% packet loss\n2 packets transmitted, 2 received, 0% packet loss\n",
		  "two 'packets transmitted' lines" },
		{ "10 packets transmitted, 5 received, 0% packet loss\n", "0% packet loss, but 5 of 10 came back" },
		{ "10 packets transmitted, 10 received, 120% packet loss\n", "not a percentage" },
		{ "10 packets transmitted, 10 received, lossy\n", "no '% packet loss'" },
		{ "0 packets transmitted, 0 received, 0% packet loss\n", "0 received of 0 transmitted" },
		{ "10 packets transmitted, 0 received, 100% packet loss, time 9ms\n", "no answer to 10 pings" },
		{ "10 packets transmitted, 10 received, 0% packet loss\nrtt min/avg/max/mdev = 1/2/x/4 ms\n",
		  "not ping's 'rtt" },
		{ "10 packets transmitted, 10 received, 0% packet loss\nrtt min/avg/max/mdev = 3.0/2.0/4.0/0.1 ms\n",
		  "not in order" },
		{ "99999999999999999999 packets transmitted, 1 received, 0% packet loss\n", "not ping's" },
	};
	for (size_t i = 0; i < sizeof(badping) / sizeof(badping[0]); i++) {
		err[0] = '\0';
		if (guest_ping_summary(badping[i].text, &l, err, sizeof(err)) != -1 ||
		    !strstr(err, badping[i].msg))
			fail_msg("ping %zu: expected '%s', got '%s'", i, badping[i].msg, err);
		assert_false(l.have_ping);
	}
	assert_int_equal(guest_ab_summary("This is ApacheBench, Version 2.3\nComplete requests:      57\n"
					  "Failed requests:        2\n   (Connect: 0, Receive: 0, Length: 2, Exceptions: 0)\n"
					  "Requests per second:    5.70 [#/sec] (mean)\n", &l, err, sizeof(err)), 0);
	assert_int_equal(l.ab_complete, 57);
	assert_int_equal(l.ab_failed, 2);
	assert_true(l.ab_rps == 5.7);
	/* none completed is a figure, not a refusal */
	assert_int_equal(guest_ab_summary("Complete requests:      0\nFailed requests:        0\n"
					  "Requests per second:    0.00 [#/sec] (mean)\n", &l, err, sizeof(err)), 0);
	assert_int_equal(l.ab_complete, 0);
	/* as ab 2.3 ends it when none completed (a real run on the emulated
	 * host, apic-r0): no rates at all */
	l.ab_rps = 7;
	assert_int_equal(guest_ab_summary("Benchmarking 10.0.0.2 (be patient).....done\n\n\n"
					  "Concurrency Level:      1\nTime taken for tests:   11.228 seconds\n"
					  "Complete requests:      0\nFailed requests:        0\n"
					  "Total transferred:      0 bytes\nHTML transferred:       0 bytes\n",
					  &l, err, sizeof(err)), 0);
	assert_int_equal(l.ab_complete, 0);
	assert_true(l.ab_rps == 0);
	assert_true(l.have_ab);
	static const struct { const char *text, *msg; } badab[] = {
		{ "", "no 'Complete requests:' line" },
		{ "Complete requests: 5\nFailed requests: 0\n", "no 'Requests per second:' line" },
		{ "Complete requests: 5\nComplete requests: 6\n", "'Complete requests:' twice" },
		{ "Complete requests: -5\nFailed requests: 0\nRequests per second: 1 [#/sec]\n", "not followed by a count" },
		{ "Complete requests: 5 x\nFailed requests: 0\nRequests per second: 1 [#/sec]\n", "not followed by a count" },
		{ "Complete requests: 5\nFailed requests: 0\nRequests per second: nan [#/sec]\n", "'R [#/sec]'" },
		{ "Complete requests: 5\nFailed requests: 0\nRequests per second: 1e999 [#/sec]\n", "'R [#/sec]'" },
		{ "Complete requests: 5\nFailed requests: 6\nRequests per second: 1 [#/sec]\n", "5 complete requests, 6 failed" },
	};
	for (size_t i = 0; i < sizeof(badab) / sizeof(badab[0]); i++) {
		err[0] = '\0';
		if (guest_ab_summary(badab[i].text, &l, err, sizeof(err)) != -1 || !strstr(err, badab[i].msg))
			fail_msg("ab %zu: expected '%s', got '%s'", i, badab[i].msg, err);
		assert_false(l.have_ab);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ok, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_sigterm, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_run_resume, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_run_refusals, setup, tu_teardown),
		cmocka_unit_test(test_console_counts),
		cmocka_unit_test_setup_teardown(test_hap_refused, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_nic_ok, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_nic_failures, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_nic_sigterm, setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_nic_run, setup, tu_teardown),
		cmocka_unit_test(test_load_summaries),
	};

	/* The fakes' orphans come to us, so none_left() sees them go. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
