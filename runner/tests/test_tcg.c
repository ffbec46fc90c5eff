/* SPDX-License-Identifier: GPL-3.0-or-later */
/* QEMU's TCG threading: the [host] tcg key and the qemu backend's command line. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner/backends/qemu.h"
#include "runner/config.h"
#include "runner/hostopts.h"
#include "runner/needs.h"
#include "runner/util.h"

#define HOSTCFG_REST "[matrix]\nmodes = mixed\n[workload:a]\ntype = flush_tlb_all\n"
#include "runner/tests/hostcfg.h"

static void test_config_key(void **s)
{
	struct config c;
	char err[256];

	(void)s;
	/* Not given: multi, today's behaviour. */
	assert_int_equal(load_host("cpus = 16\n", &c, err, sizeof(err)), 0);
	assert_string_equal(QS(&c)->tcg, "multi");
	assert_string_equal(QS(&c)->tcg, TCG_DEFAULT);
	config_free(&c);
	assert_int_equal(load_host("tcg = single\n", &c, err, sizeof(err)), 0);
	assert_string_equal(QS(&c)->tcg, "single");
	config_free(&c);
	assert_int_equal(load_host("backend = qemu\ntcg = multi\n", &c, err, sizeof(err)), 0);
	assert_string_equal(QS(&c)->tcg, "multi");
	/* It is part of the config results.json keeps. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(c.sections, "host"),
							      "tcg")), "multi");
	config_free(&c);

	expect_error("cpus = 8\ntcg = mttcg\n",
		     "t.ini:3: tcg = 'mttcg': expected multi or single");
	expect_error("tcg = Single\n",
		     "t.ini:2: tcg = 'Single': expected multi or single");
	expect_error("tcg = \n", "t.ini:2: tcg = '': expected multi or single");
	expect_error("tcg = multi\ntcg = single\n", "t.ini:3: duplicate key 'tcg' in [host]");
	/* A real host has no emulator: the line of the key, whichever comes first. */
	expect_error("tcg = single\nbackend = local\n",
		     "t.ini:2: tcg = single: a key of the qemu backend, not of backend = local");
	expect_error("backend = reboot\ncpus = 4\ntcg = multi\n",
		     "t.ini:4: tcg = multi: a key of the qemu backend, not of backend = reboot");
	/* Not given on a real host: fine (and recorded as null there). */
	assert_int_equal(load_host("backend = local\n", &c, err, sizeof(err)), 0);
	config_free(&c);
	assert_true(tcg_threading_ok("multi"));
	assert_true(tcg_threading_ok("single"));
	assert_false(tcg_threading_ok(NULL));
	assert_false(tcg_threading_ok("multi "));
	assert_false(tcg_threading_ok(""));
}

/* The value that follows FLAG in argv (NULL when FLAG is absent); *count: how often. */
static const char *arg_after(char **argv, int n, const char *flag, int *count)
{
	const char *v = NULL;

	*count = 0;
	for (int i = 0; i + 1 < n; i++)
		if (!strcmp(argv[i], flag)) {
			(*count)++;
			v = argv[i + 1];
		}
	return v;
}

/* A run's options for the qemu backend with its default settings in *q. */
static void qemu_opts(struct host_opts *o, struct qemu_settings *q, unsigned int cpus,
		      unsigned int maxcpus, const char *mode)
{
	host_settings_defaults(&backend_qemu, q);
	host_opts_default(o, cpus);
	o->maxcpus = maxcpus;
	o->mode = mode;
	o->workdir = "/tmp/w";
	o->settings = q;
}

static int build(const char *tcg, char **argv, char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN],
		 struct host_result *r)
{
	static struct qemu_settings q;
	struct host_opts o;

	qemu_opts(&o, &q, 16, 20, "cluster");
	if (tcg)
		snprintf(q.tcg, sizeof(q.tcg), "%s", tcg);
	memset(r, 0, sizeof(*r));
	return qemu_build_argv(&o, argv, bufs, r);
}

static void test_command_line(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	char *argv[QEMU_MAX_ARGS];
	struct host_result r;
	int n, k;

	(void)s;
	/* The default: multi, said on the command line. */
	n = build(NULL, argv, bufs, &r);
	assert_true(n > 0 && n < QEMU_MAX_ARGS);
	assert_null(argv[n]);
	assert_string_equal(argv[0], "qemu-system-x86_64");
	assert_string_equal(arg_after(argv, n, "-accel", &k), "tcg,thread=multi");
	assert_int_equal(k, 1);
	assert_string_equal(arg_after(argv, n, "-smp", &k), "16,maxcpus=20");
	assert_non_null(strstr(arg_after(argv, n, "-name", &k), ",debug-threads=on"));
	assert_non_null(strstr(r.xen_cmdline, "x2apic-mode=cluster"));

	n = build("single", argv, bufs, &r);
	assert_true(n > 0);
	assert_string_equal(arg_after(argv, n, "-accel", &k), "tcg,thread=single");
	assert_int_equal(k, 1);
	/* The threading is QEMU's business, not Xen's. */
	assert_null(strstr(r.xen_cmdline, "thread"));

	n = build("multi", argv, bufs, &r);
	assert_string_equal(arg_after(argv, n, "-accel", &k), "tcg,thread=multi");

	/* What QEMU would refuse ("Invalid 'thread' setting") is refused first. */
	assert_int_equal(build("rr", argv, bufs, &r), -1);
	assert_string_equal(r.error, "TCG threading 'rr': expected multi or single");
	assert_int_equal(build("single,foo=1", argv, bufs, &r), -1);
}

/* dom0's kernel command line: quiet by default, [host] dom0_cmdline
 * replaces it, and a comma (QEMU's -initrd separator) is refused. */
static void test_dom0_cmdline(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	static struct qemu_settings q;
	char *argv[QEMU_MAX_ARGS];
	struct host_opts o;
	struct host_result r;
	const char *initrd;
	int n, k;

	(void)s;
	qemu_opts(&o, &q, 4, 4, "mixed");
	memset(&r, 0, sizeof(r));
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0);
	initrd = arg_after(argv, n, "-initrd", &k);
	assert_int_equal(k, 1);
	assert_non_null(strstr(initrd, " console=hvc0 quiet,"));

	snprintf(q.dom0_cmdline, sizeof(q.dom0_cmdline), "console=hvc0 initcall_debug");
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0);
	initrd = arg_after(argv, n, "-initrd", &k);
	assert_non_null(strstr(initrd, " console=hvc0 initcall_debug,"));
	assert_null(strstr(initrd, "quiet"));
	/* It is dom0's, not Xen's. */
	assert_null(strstr(r.xen_cmdline, "initcall_debug"));

	snprintf(q.dom0_cmdline, sizeof(q.dom0_cmdline), "console=hvc0,ttyS0");
	memset(&r, 0, sizeof(r));
	assert_int_equal(qemu_build_argv(&o, argv, bufs, &r), -1);
	assert_non_null(strstr(r.error, "dom0_cmdline = 'console=hvc0,ttyS0': no commas"));
}

/* QEMU's -initrd ends a module's file name at a space and splits the list
 * at commas: a dom0 kernel or initramfs path with either is refused in one
 * line naming it (IPIBENCH_BUILD, boot --kernel/--initrd, a checkout's
 * folder), not booted as a name cut short. */
static void test_module_paths(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	static struct qemu_settings q;
	char *argv[QEMU_MAX_ARGS];
	struct host_opts o;
	struct host_result r;
	int n, k;

	(void)s;
	qemu_opts(&o, &q, 4, 4, "mixed");
	q.kernel = "/home/me/my builds/guest/bzImage";
	memset(&r, 0, sizeof(r));
	assert_int_equal(qemu_build_argv(&o, argv, bufs, &r), -1);
	assert_string_equal(r.error, "the dom0 kernel /home/me/my builds/guest/bzImage has a "
			    "space, which QEMU's -initrd cannot take (it splits the modules at "
			    "commas and ends a file name at a space): use a path without one");
	q.kernel = "/b/bzImage";
	q.initrd = "/b/init\trd";
	memset(&r, 0, sizeof(r));
	assert_int_equal(qemu_build_argv(&o, argv, bufs, &r), -1);
	assert_non_null(strstr(r.error, "the initramfs"));
	q.initrd = "/b/a,b";
	memset(&r, 0, sizeof(r));
	assert_int_equal(qemu_build_argv(&o, argv, bufs, &r), -1);
	assert_non_null(strstr(r.error, "has a comma"));
	q.initrd = "/b/initrd";
	o.workdir = "/tmp/a b";   /* -virtfs takes spaces */
	memset(&r, 0, sizeof(r));
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0);
	assert_string_equal(arg_after(argv, n, "-initrd", &k),
			    "/b/bzImage console=hvc0 quiet,/b/initrd");
	q.kernel = q.initrd = NULL;
}

/*
 * [host] qemu: Debian's emulator on PATH by default, make qemu's with
 * "built" (and --needs then asks for make qemu), boot's --qemu over both;
 * anything else refused with its line.
 */
static void test_emulator(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	static struct qemu_settings q;
	char *argv[QEMU_MAX_ARGS], want[PATH_MAX + 64];
	struct host_opts o;
	struct host_result r;
	struct host_needs nd = { 0 };
	struct config c;
	char err[256];

	(void)s;
	assert_int_equal(load_host("cpus = 16\n", &c, err, sizeof(err)), 0);
	assert_string_equal(QS(&c)->emulator, "system");
	config_free(&c);
	assert_int_equal(load_host("qemu = built\n", &c, err, sizeof(err)), 0);
	assert_string_equal(QS(&c)->emulator, "built");
	assert_string_equal(json_string_value(json_object_get(json_object_get(c.sections, "host"),
							      "qemu")), "built");
	config_free(&c);
	expect_error("qemu = /usr/bin/qemu-system-x86_64\n",
		     "t.ini:2: qemu = '/usr/bin/qemu-system-x86_64': expected system or built");
	expect_error("backend = local\nqemu = built\n",
		     "t.ini:3: qemu = built: a key of the qemu backend, not of backend = local");

	qemu_opts(&o, &q, 4, 4, "mixed");
	memset(&r, 0, sizeof(r));
	assert_true(qemu_build_argv(&o, argv, bufs, &r) > 0);
	assert_string_equal(argv[0], QEMU_BINARY);
	nd.default_build = 1;
	assert_int_equal(backend_qemu.needs(&q, &nd, err, sizeof(err)), 0);
	assert_string_equal(nd.targets, "hv dom0");

	snprintf(q.emulator, sizeof(q.emulator), "built");
	memset(&r, 0, sizeof(r));
	assert_true(qemu_build_argv(&o, argv, bufs, &r) > 0);
	snprintf(want, sizeof(want), "%s/qemu/qemu-system-x86_64", build_dir());
	assert_string_equal(argv[0], want);
	nd.targets[0] = '\0';
	assert_int_equal(backend_qemu.needs(&q, &nd, err, sizeof(err)), 0);
	assert_string_equal(nd.targets, "hv dom0 qemu");

	q.qemu = "/opt/q/qemu-system-x86_64";
	memset(&r, 0, sizeof(r));
	assert_true(qemu_build_argv(&o, argv, bufs, &r) > 0);
	assert_string_equal(argv[0], "/opt/q/qemu-system-x86_64");
	q.qemu = NULL;
	snprintf(q.emulator, sizeof(q.emulator), "system");
}

/* A topology goes to -smp with its levels, maxcpus their product. */
static void test_topology_smp(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	static struct qemu_settings q;
	char *argv[QEMU_MAX_ARGS];
	struct host_result r;
	struct host_opts o;
	struct topo t = { 1, 3, 5, 1 };
	int n, k;

	(void)s;
	qemu_opts(&o, &q, 14, 15, "mixed");
	o.topo = &t;
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0);
	assert_string_equal(arg_after(argv, n, "-smp", &k),
			    "14,sockets=1,dies=3,cores=5,threads=1,maxcpus=15");
	/* maxcpus other than the slots: QEMU would refuse it; so do we. */
	o.maxcpus = 16;
	assert_int_equal(qemu_build_argv(&o, argv, bufs, &r), -1);
	assert_string_equal(r.error, "topology of 15 CPU slots with cpus 14, maxcpus 16");
}

/* Boot timeouts grow with the CPUs, much faster multi-threaded. */
/* The hypervisor's idle timeout and run lifetime: an emulated host's,
 * unless [host] cmdline, which comes after them on Xen's command line,
 * sets others. */
static void test_idle_timeout(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	static struct qemu_settings q;
	char *argv[QEMU_MAX_ARGS];
	struct host_result r;
	struct host_opts o;
	const char *ours, *theirs;

	(void)s;
	assert_true(build(NULL, argv, bufs, &r) > 0);
	assert_non_null(strstr(r.xen_cmdline, " ipibench-idle-timeout=60"));
	assert_non_null(strstr(r.xen_cmdline, " ipibench-run-lifetime=600"));

	qemu_opts(&o, &q, 16, 20, "mixed");
	snprintf(q.cmdline, sizeof(q.cmdline), "%s", "ipibench-idle-timeout=5 ipibench-run-lifetime=60");
	memset(&r, 0, sizeof(r));
	assert_true(qemu_build_argv(&o, argv, bufs, &r) > 0);
	ours = strstr(r.xen_cmdline, "ipibench-idle-timeout=60");
	theirs = strstr(r.xen_cmdline, "ipibench-idle-timeout=5");
	assert_non_null(ours);
	assert_non_null(theirs);
	/* Xen takes the last: the config's. */
	assert_true(theirs > ours);
	ours = strstr(r.xen_cmdline, "ipibench-run-lifetime=600");
	assert_non_null(ours);
	theirs = strstr(ours + strlen("ipibench-run-lifetime=600"), "ipibench-run-lifetime=60");
	assert_non_null(theirs);
}

static void test_timeouts(void **s)
{
	(void)s;
	assert_int_equal(host_default_timeout(8, true), 272);
	assert_int_equal(host_default_timeout(512, true), 2288);
	/* Multi: at least twice the measured 946 s at 256 CPUs on top. */
	assert_true(host_default_timeout(256, false) >= 240 + 1024 + 2 * 946 - 1);
	assert_true(host_default_timeout(512, false) > 6 * host_default_timeout(512, true));
	assert_true(host_default_timeout(16, false) < 400);
	assert_int_equal(host_default_timeout(4096, false), 86400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_dom0_cmdline),
		cmocka_unit_test(test_module_paths),
		cmocka_unit_test(test_emulator),
		cmocka_unit_test(test_topology_smp),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_idle_timeout),
	};
	return cmocka_run_group_tests_name("runner: tcg threading", tests, NULL, NULL);
}
