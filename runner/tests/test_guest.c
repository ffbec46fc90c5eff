/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The guest lifecycle (runner/guest.h) against the fakes of
 * runner/tests/guest_fakes.h: a PVH guest's whole way, and each way it
 * goes wrong (no start, death, a hang, no power-off, a recording that
 * fails or hangs).  Every way out destroys the guest, checks it is gone,
 * and leaves no process behind; SIGTERM destroys then kills; `ipibench
 * run` keeps results.json valid when killed and --resume finishes only
 * the unfinished guest runs.  An HVM guest with a NIC: test_guest_nic.
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
#include "runner/tests/guest_fakes.h"

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
	};

	/* The fakes' orphans come to us, so none_left() sees them go. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
