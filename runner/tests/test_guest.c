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
#include "safeio/safeio.h"

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

	for (int tries = 0; tries < 50; tries++) {
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
		usleep(100000);
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
	g.timeout = 3;
	return g;
}

static struct guest_spec spec(const struct cfg_guest *g, const char *id)
{
	struct guest_spec s = {
		.g = g, .name = "ipb-test", .kernel = "/k", .ramdisk = "/r", .dir = tu_dir,
		.id = id, .settle_s = 0, .poweroff_s = 2, .xl_s = 5, .trace_slack_s = 1,
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
		{ "nostart", "ok", GO_START_TIMEOUT, 1, "no IPB-GUEST-START on the console within 3 s" },
		{ "die", "ok", GO_DIED, 0, "console ended before IPB-GUEST-START" },
		{ "badcfg", "ok", GO_DIED, 0, "xl create -c: exit status 1 before IPB-GUEST-START" },
		{ "hang", "ok", GO_DONE_TIMEOUT, 1, "no IPB-GUEST-DONE" },
		{ "nopoweroff", "ok", GO_NO_POWEROFF, 1, "did not power off within 2 s" },
		{ "hang", "fail", GO_TRACE_FAILED, 1, "xentrace -e 0x000affff: exit status 3" },
		{ "hang", "hang", GO_TRACE_FAILED, 1, "still running after 2 s, killed" },
		{ "hang", "empty", GO_TRACE_FAILED, 1, "no trace, or an empty one" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cfg_guest g = guest();
		struct guest_spec s = spec(&g, "evtchn-r0");
		struct guest_result r;
		char *calls;
		double t0 = now_s();

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
		assert_true(now_s() - t0 < 15);
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
	for (int i = 0; i < 200; i++) {
		char *t = tu_slurp(path);
		int has = t && strstr(t, GUEST_MARK_START);

		free(t);
		if (has)
			return;
		usleep(100000);
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

		g.timeout = 60;
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
		{ "[host]\nbackend = local\n[matrix]\n[guest]\ntype = hvm\nnic = e1000e\n",
		  "[guest]: type = hvm: not yet in the runner" },
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
	};

	/* The fakes' orphans come to us, so none_left() sees them go. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
