/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The guest lifecycle (runner/guest.h) of an HVM guest with a NIC, against
 * the fakes of runner/tests/guest_fakes.h: dom0's side (xen-netback, the
 * bridge) made and removed, the ping flood through both recordings then
 * stopped, ab after it, their summaries parsed; each way that goes wrong,
 * with the guest destroyed, the flood stopped, the bridge removed when
 * ipibench made it and nothing left; SIGTERM during the flood; `ipibench
 * run` of a NIC config; the summaries as untrusted text.
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
