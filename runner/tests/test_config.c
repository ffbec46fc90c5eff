/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Configs: valid ones load with defaults; every kind of mistake is refused with FILE:LINE. */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runner/backend.h"
#include "runner/backends/qemu.h"
#include "runner/backends/reboot.h"
#include "runner/config.h"
#include "lib/safeio.h"
#include "tests/unit/unit.h"

static const char good[] =
	"; a smoke config\n"
	"[host]\n"
	"cpus = 16\n"
	"maxcpus = 20\n"
	"[matrix]\n"
	"modes = physical, mixed\n"
	"repetitions = 2\n"
	"order = randomized\n"
	"[workload:flush]\n"
	"type = flush_tlb_all\n"
	"iterations = 500\n"
	"[workload:ipi3]\n"
	"type = ipi_mask\n"
	"mask = 1,17,19\n"
	"shorthand = false\n";

static void test_good(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	assert_int_equal(config_load_string("good.ini", good, &c, err, sizeof(err)), 0);
	assert_string_equal(c.host.backend, "qemu");
	assert_int_equal(c.host.cpus, 16);
	assert_int_equal(c.host.maxcpus, 20);
	assert_int_equal(c.matrix.nmodes, 2);
	assert_string_equal(c.matrix.modes[1], "mixed");
	assert_int_equal(c.matrix.order, ORDER_RANDOMIZED);
	assert_int_equal(c.nwl, 2);
	assert_int_equal(json_integer_value(json_object_get(c.wl[0].params, "iterations")), 500);
	/* defaults filled in */
	assert_true(json_is_true(json_object_get(c.wl[1].params, "shorthand")) == 0);
	assert_string_equal(json_string_value(json_object_get(c.wl[1].params, "mask")), "1,17,19");
	assert_int_equal(json_integer_value(json_object_get(c.wl[1].params, "cpu")), 0);
	assert_string_equal(c.host.name, "qemu-16cpu");
	config_free(&c);
}

static void expect_error(const char *text, const char *msg)
{
	struct config c;
	char err[256] = "";

	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
}

/* [host] topology and profile: the slots are maxcpus, cpus defaults to
 * them (or to the profile's), the counts are checked, a sweep stays within. */
static void test_topology(void **s)
{
	static const char wl[] = "[matrix]\nmodes=mixed\n[workload:f]\ntype=flush_tlb_all\n";
	struct config c;
	char err[256] = "", text[512];

	(void)s;
	snprintf(text, sizeof(text), "[host]\ntopology = sockets=2,cores=12,threads=2\n%s", wl);
	if (config_load_string("x.ini", text, &c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(c.host.has_topo);
	assert_int_equal(c.host.topo.cores, 12);
	assert_int_equal(c.host.cpus, 48);
	assert_int_equal(c.host.maxcpus, 48);
	config_free(&c);

	snprintf(text, sizeof(text), "[host]\ntopology = dies=3,cores=5\ncpus = 14\n%s", wl);
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.cpus, 14);
	assert_int_equal(c.host.maxcpus, 15);
	config_free(&c);

	snprintf(text, sizeof(text), "[host]\nprofile = epyc-9754-512\n%s", wl);
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.cpus, 512);
	assert_int_equal(c.host.maxcpus, 512);
	assert_int_equal(c.host.topo.cores, 128);
	assert_string_equal(c.host.profile, "epyc-9754-512");
	config_free(&c);

	/* A profile's CPUs can be fewer: the rest are hotplug slots. */
	snprintf(text, sizeof(text), "[host]\nprofile = ice-lake-96\ncpus = 90\n%s", wl);
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.cpus, 90);
	assert_int_equal(c.host.maxcpus, 96);
	config_free(&c);

	snprintf(text, sizeof(text), "[host]\ntopology = sockets=2,cores=4\n[matrix]\nmodes=mixed\n"
		 "cpus = 4, 8\n[workload:f]\ntype=flush_tlb_all\n");
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.maxcpus, 8);
	config_free(&c);

	expect_error("[host]\ntopology = sockets=2,cores=0\n", "x.ini:2: topology = sockets=2,cores=0: "
		     "cores=0: expected a count from 1 to 4096");
	expect_error("[host]\ntopology = sockets=2;cores=4\n", "x.ini:2: topology = sockets=2;cores=4: ");
	expect_error("[host]\nprofile = cray-1\n", "x.ini:2: profile = cray-1: expected one of ice-lake-96, ");
	snprintf(text, sizeof(text), "[host]\ntopology = cores=4\nmaxcpus = 6\n%s", wl);
	expect_error(text, "x.ini:3: maxcpus = 6: the topology (sockets=1,dies=1,cores=4,threads=1) has 4 CPU slots");
	snprintf(text, sizeof(text), "[host]\ntopology = cores=4\ncpus = 5\n%s", wl);
	expect_error(text, "x.ini:3: cpus = 5: the topology (sockets=1,dies=1,cores=4,threads=1) has 4 CPU slots");
	snprintf(text, sizeof(text), "[host]\nprofile = ice-lake-96\ntopology = cores=4\n%s", wl);
	expect_error(text, "x.ini:2: profile = ice-lake-96: give a profile or a topology, not both");
	expect_error("[host]\ntopology = cores=4\n[matrix]\nmodes=mixed\ncpus = 2, 6\n"
		     "[workload:f]\ntype=flush_tlb_all\n",
		     "x.ini:5: cpus: 6 is more than the topology's 4 CPU slots");
}

static void test_errors(void **s)
{
	(void)s;
	expect_error("[host]\ncpus = lots\n", "x.ini:2: cpus = 'lots': expected an integer");
	expect_error("[host]\ncpus = 8\ncolour = blue\n", "x.ini:3: unknown key 'colour' in [host]");
	expect_error("[host]\n[matrix]\nmodes = physical, flat\n",
		     "x.ini:3: modes: 'flat' is not a mode (physical, cluster, mixed)");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = warp\n",
		     "x.ini:6: type = 'warp': unknown workload type");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = flush_tlb_all\niterations = 0\n",
		     "x.ini:7: iterations = '0': expected an integer from 1 to 1000000");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = ipi_mask\nmask = 3-1\n",
		     "x.ini:7: mask = '3-1'");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = pingpong\nspeed = 3\n",
		     "x.ini:7: unknown key 'speed' for a workload of type pingpong");
	expect_error("[host]\ncpus=8\ncpus=9\n", "x.ini:3: duplicate key 'cpus' in [host]");
	/* Refused where the config is read, not when QEMU's argv is built
	 * (-initrd splits "kernel args,initrd" on commas). */
	expect_error("[host]\ncpus=8\ndom0_cmdline = console=hvc0,ttyS0\n[matrix]\nmodes=mixed\n"
		     "[workload:a]\ntype=flush_tlb_all\n",
		     "x.ini:3: dom0_cmdline = console=hvc0,ttyS0: no ',' allowed");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n", "x.ini: no [workload:NAME] section");
	expect_error("[host]\ncpus=8\n", "x.ini: missing section [matrix]");
	expect_error("[matrix]\nmodes=mixed\n", "x.ini: missing section [host]");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[gadgets]\nx=1\n", "x.ini:5: unknown section [gadgets]");
	expect_error("[host]\nthis line has no equals sign\n", "x.ini:2: syntax error");
	expect_error("[host]\ncpus=16\nmaxcpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype=flush_tlb_all\n",
		     "maxcpus (8) is below cpus (16)");
}

static void test_sweep(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	assert_int_equal(config_load("configs/sweep.ini", &c, err, sizeof(err)), 0);
	assert_int_equal(c.matrix.ncpus, 7);
	assert_int_equal(c.matrix.cpus[6], 512);
	assert_int_equal(c.host.maxcpus - c.host.cpus, 16);
	config_free(&c);
	/* A sweep on a profile: the present CPUs change, the slots do not. */
	assert_int_equal(config_load("configs/sweep-epyc7443.ini", &c, err, sizeof(err)), 0);
	assert_int_equal(c.matrix.ncpus, 4);
	assert_int_equal(c.matrix.cpus[0], 12);
	assert_int_equal(c.host.maxcpus, 96);
	config_free(&c);
	expect_error("[host]\n[matrix]\nmodes=mixed\ncpus = 8, 8\n", "x.ini:4: cpus: 8 is listed twice");
	expect_error("[host]\n[matrix]\nmodes=mixed\ncpus = 8, x\n", "x.ini:4: cpus = 'x'");
}

/*
 * The hypervisor builds the shipped configs name ([matrix] xen = 4.17,
 * src-4.20.4), as make hv leaves them: a xen file and the build-info line
 * the loader reads the version from.  A config is checked against the
 * builds it names, and the unit stage runs before any 4.20 build.
 */
static const struct {
	const char *dir, *info;
} shipped_builds[] = {
	{ "xen-4.17", "XEN_VERSION=4.17.5 XEN_SOURCE=debian:4.17.5 SERIES=4.17 SERIES_HASH=0\n" },
	{ "xen-src-4.20.4", "XEN_VERSION=4.20.4 XEN_SOURCE=tree:4.20.4 SERIES=4.20 SERIES_HASH=0\n" },
};

/* Every shipped config is valid: configs/ and the integration tests' data. */
static void test_shipped_configs(void **s)
{
	const char *pats[] = { "configs/*.ini", "tests/integration/data/*.ini", NULL };
	struct config c;
	char err[256] = "", d[600], f[700];
	size_t n = 0;

	(void)s;
	for (size_t i = 0; i < sizeof(shipped_builds) / sizeof(shipped_builds[0]); i++) {
		snprintf(d, sizeof(d), "%s/%s", tu_dir, shipped_builds[i].dir);
		assert_int_equal(mkdir(d, 0755), 0);
		snprintf(f, sizeof(f), "%s/xen", d);
		/* A multiboot header: magic, flags 0, checksum (a hypervisor image). */
		FILE *x = fopen(f, "w");
		assert_non_null(x);
		assert_int_equal(fwrite("\x02\xb0\xad\x1b\0\0\0\0\xfe\x4f\x52\xe4", 1, 12, x), 12);
		fclose(x);
		snprintf(f, sizeof(f), "%s/build-info", d);
		assert_int_equal(tu_write(f, shipped_builds[i].info), 0);
	}
	setenv("IPIBENCH_BUILD", tu_dir, 1);
	for (const char **p = pats; *p; p++) {
		glob_t g;

		assert_int_equal(glob(*p, 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i++, n++) {
			if (config_load(g.gl_pathv[i], &c, err, sizeof(err)))
				fail_msg("%s", err);
			/* a workload each: the dom0's, or the guest's own */
			assert_true(c.nwl > 0 || c.guest.given);
			config_free(&c);
		}
		globfree(&g);
	}
	unsetenv("IPIBENCH_BUILD");
	assert_true(n >= 5);
	/* The names they use, exactly. */
	assert_int_equal(config_load("configs/seed-96cpu.ini", &c, err, sizeof(err)), 0);
	assert_string_equal(c.host.name, "qemu-tcg-96cpu");
	bool have_allbut = false;
	for (unsigned int i = 0; i < c.nwl; i++)
		have_allbut |= !strcmp(c.wl[i].name, "ipi-allbut");
	assert_true(have_allbut);
	config_free(&c);
	/* The seed's experiment (seeds/004): both paths, its mask and window. */
	assert_int_equal(config_load("configs/seed-004.ini", &c, err, sizeof(err)), 0);
	assert_true(c.guest.given);
	assert_string_equal(c.host.backend, "local");
	assert_int_equal(c.guest.npaths, 2);
	assert_int_equal(c.guest.paths[0], IPI_PATH_EVTCHN);
	assert_int_equal(c.guest.paths[1], IPI_PATH_APIC);
	assert_int_equal(c.guest.vcpus, 2);
	assert_int_equal(c.guest.trace_mask, 0x0008ffff);
	assert_int_equal(c.guest.trace_secs, 5);
	config_free(&c);
}

/* A config of [host] KEY = VALUE and a valid rest; the error, or "" when it loads. */
static const char *host_value(const char *key, const char *value, char *err, size_t len)
{
	char text[512];
	struct config c;

	snprintf(text, sizeof(text), "[host]\n%s = %s\n[matrix]\nmodes = mixed\n"
		 "[workload:a]\ntype = flush_tlb_all\n", key, value);
	err[0] = '\0';
	if (config_load_string("r.ini", text, &c, err, len) == 0)
		config_free(&c);
	return err;
}

/* Every integer key: both ends of its range load, one past either end does not. */
static void test_integer_ranges(void **s)
{
	static const struct { const char *sec, *key; long min, max; } keys[] = {
		{ "host", "cpus", 1, 4096 },
		{ "host", "maxcpus", 1, 4096 },
		{ "host", "memory", 256, 1 << 20 },
		{ "host", "dom0_memory", 128, 1 << 20 },
		{ "host", "timeout", 10, 86400 },
		{ "host", "stall", 0, 86400 },
		{ "host", "disk_mb", 0, 1 << 20 },
		{ "matrix", "repetitions", 1, 1000 },
		{ "matrix", "seed", 0, 0x7fffffff },
		{ "matrix", "cpus", 1, 4096 },
	};
	char err[256], v[32], want[128];

	(void)s;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const long vals[4] = { keys[i].min, keys[i].max, keys[i].min - 1, keys[i].max + 1 };

		for (int k = 0; k < 4; k++) {
			char text[512];
			struct config c;
			int rc;

			snprintf(v, sizeof(v), "%ld", vals[k]);
			if (!strcmp(keys[i].sec, "host"))
				/* maxcpus may not be below cpus: cpus = 1 beside it */
				snprintf(text, sizeof(text), "[host]\n%s%s = %s\n[matrix]\nmodes = mixed\n"
					 "[workload:a]\ntype = flush_tlb_all\n",
					 !strcmp(keys[i].key, "maxcpus") ? "cpus = 1\n" : "", keys[i].key, v);
			else
				snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes = mixed\n%s = %s\n"
					 "[workload:a]\ntype = flush_tlb_all\n", keys[i].key, v);
			err[0] = '\0';
			rc = config_load_string("r.ini", text, &c, err, sizeof(err));
			if (k < 2) {
				if (rc)
					fail_msg("[%s] %s = %s refused: %s", keys[i].sec, keys[i].key, v, err);
				if (!strcmp(keys[i].key, "cpus") && !strcmp(keys[i].sec, "host"))
					assert_int_equal(c.host.cpus, vals[k]);
				if (!strcmp(keys[i].key, "repetitions"))
					assert_int_equal(c.matrix.repetitions, vals[k]);
				config_free(&c);
				continue;
			}
			if (!rc)
				fail_msg("[%s] %s = %s accepted", keys[i].sec, keys[i].key, v);
			snprintf(want, sizeof(want), "%s = '%s': expected an integer from %ld to %ld",
				 keys[i].key, v, keys[i].min, keys[i].max);
			if (!strstr(err, want))
				fail_msg("expected '%s' in '%s'", want, err);
		}
	}
	/* Overflow and signs. */
	assert_non_null(strstr(host_value("cpus", "99999999999999999999", err, sizeof(err)),
			       "r.ini:2: cpus = '99999999999999999999': expected an integer"));
	assert_non_null(strstr(host_value("cpus", "-1", err, sizeof(err)), "r.ini:2: cpus = '-1'"));
	assert_non_null(strstr(host_value("memory", "4294967552", err, sizeof(err)),
			       "r.ini:2: memory = '4294967552'"));
	assert_non_null(strstr(host_value("cpus", "8x", err, sizeof(err)), "r.ini:2: cpus = '8x'"));
}

/* Host and workload names follow the name rule (sio_name_ok): no paths. */
static void test_names(void **s)
{
	struct config c;
	char err[256];

	(void)s;
	assert_non_null(strstr(host_value("name", "../../../../tmp/x", err, sizeof(err)),
			       "r.ini:2: name = ../../../../tmp/x: a host name is"));
	assert_non_null(strstr(host_value("name", "/tmp/x", err, sizeof(err)), "r.ini:2: name = /tmp/x"));
	assert_non_null(strstr(host_value("name", "a/b", err, sizeof(err)), "r.ini:2: name = a/b"));
	assert_non_null(strstr(host_value("name", "..", err, sizeof(err)), "r.ini:2: name = .."));
	assert_non_null(strstr(host_value("name", ".hidden", err, sizeof(err)), "r.ini:2: name = .hidden"));
	assert_non_null(strstr(host_value("name", "<script>", err, sizeof(err)), "r.ini:2: name = <script>"));
	assert_non_null(strstr(host_value("name", "a b", err, sizeof(err)), "r.ini:2: name = a b"));
	assert_string_equal(host_value("name", "Lab-Host_2.rack1", err, sizeof(err)), "");
	assert_string_equal(host_value("name", "qemu-tcg-96cpu", err, sizeof(err)), "");
	/* 64 bytes is the rule's limit, and host.name holds 63 */
	char longname[80];
	memset(longname, 'h', 64);
	longname[64] = '\0';
	assert_non_null(strstr(host_value("name", longname, err, sizeof(err)), "r.ini:2: name = hhh"));
	longname[63] = '\0';
	assert_string_equal(host_value("name", longname, err, sizeof(err)), "");

	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:../../x]\ntype=flush_tlb_all\n",
		     "x.ini:4: [workload:../../x]: a workload name is");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:]\ntype=flush_tlb_all\n",
		     "x.ini:4: [workload:]: a workload name is");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:_x]\ntype=flush_tlb_all\n",
		     "x.ini:4: [workload:_x]: a workload name is");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:a..b]\ntype=flush_tlb_all\n",
		     "x.ini:4: [workload:a..b]: a workload name is");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:<b>]\ntype=flush_tlb_all\n",
		     "x.ini:4: [workload:<b>]: a workload name is");
	assert_int_equal(config_load_string("x.ini", "[host]\n[matrix]\nmodes=mixed\n"
		"[workload:Flush.v2_a-1]\ntype=flush_tlb_all\n", &c, err, sizeof(err)), 0);
	assert_string_equal(c.wl[0].name, "Flush.v2_a-1");
	config_free(&c);
}

/* inih's line buffer: long comments are fine, long lines are refused, lines count right. */
static void test_long_lines(void **s)
{
	char text[4096], pad[400];
	struct config c;
	char err[256];

	(void)s;
	memset(pad, 'x', 300);
	pad[300] = '\0';
	/* a 300-byte comment, then an error on line 5: reported on line 5 */
	snprintf(text, sizeof(text), "[host]\n; %s\n# %s\ncpus = 8\ncpus = 9\n", pad, pad);
	expect_error(text, "x.ini:5: duplicate key 'cpus' in [host]");
	/* an indented long comment and a long blank line */
	snprintf(text, sizeof(text), "  ; %s\n[host]\n%300s\ncpus = 8\n[matrix]\nmodes = mixed\n"
		 "; %s\n[workload:a]\ntype = flush_tlb_all\niterations = 7\n", pad, "", pad);
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.cpus, 8);
	assert_int_equal(json_integer_value(json_object_get(c.wl[0].params, "iterations")), 7);
	config_free(&c);
	/* a long key line is refused on its own line, before inih splits it */
	snprintf(text, sizeof(text), "[host]\n; ok\ncmdline = %s\n[matrix]\nmodes = mixed\n", pad);
	expect_error(text, "x.ini:3: line of 310 bytes: at most");
	snprintf(text, sizeof(text), "[host]\ncpus = 8 ; %s\n", pad);
	expect_error(text, "x.ini:2: line of");
	/* CRLF files and a last line without a newline load */
	assert_int_equal(config_load_string("x.ini", "[host]\r\ncpus = 12\r\n[matrix]\r\n"
		"modes = cluster\r\n[workload:a]\r\ntype = flush_tlb_all", &c, err, sizeof(err)), 0);
	assert_int_equal(c.host.cpus, 12);
	assert_string_equal(c.matrix.modes[0], "cluster");
	config_free(&c);
	/* control characters */
	expect_error("[host]\ncpus = 8\x01\n", "x.ini:2: control character or invalid UTF-8 (byte 0x01 at 9");
	expect_error("[host]\ncmdline = a\rb\n", "x.ini:2: control character or invalid UTF-8 (byte 0x0d");
	expect_error("[host]\ncmdline = \x1b[31m\n", "x.ini:2: control character or invalid UTF-8 (byte 0x1b");
	/* values become JSON strings: invalid UTF-8 (which jansson would drop) and C1 are refused */
	expect_error("[host]\ncmdline = a\xff\n", "x.ini:2: control character or invalid UTF-8 (byte 0xff at 12");
	expect_error("[host]\ncmdline = \xc3\n", "x.ini:2: control character or invalid UTF-8 (byte 0xc3");
	expect_error("[host]\ncmdline = \xc2\x9b\n", "x.ini:2: control character or invalid UTF-8 (byte 0xc2");
	expect_error("[host]\ncmdline = \xed\xa0\x80\n", "x.ini:2: control character or invalid UTF-8");
	expect_error("[host]\ncmdline = \xc0\xaf\n", "x.ini:2: control character or invalid UTF-8");
	/* UTF-8 text is fine, in values and comments (where anything goes) */
	assert_int_equal(config_load_string("x.ini", "; caf\xc3\xa9 \xff\x01\n[host]\n"
		"cmdline = caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n[matrix]\nmodes=mixed\n"
		"[workload:a]\ntype=flush_tlb_all\n", &c, err, sizeof(err)), 0);
	assert_string_equal(((const struct qemu_settings *)c.host.settings)->cmdline, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(json_string_value(json_object_get(json_object_get(c.sections, "host"),
							      "cmdline")), ((const struct qemu_settings *)c.host.settings)->cmdline);
	config_free(&c);
}

/* Section headers: known sections once each, names inih keeps whole. */
static void test_sections(void **s)
{
	char text[1024], a[64], b[64];
	struct config c;
	char err[256];

	(void)s;
	expect_error("[host]\ncpus=8\n[hots]\n[matrix]\nmodes=mixed\n[workload:a]\ntype=flush_tlb_all\n",
		     "x.ini:3: unknown section [hots]");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype=flush_tlb_all\n[host]\n",
		     "x.ini:7: [host] again (first at line 1)");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[matrix]\nrepetitions=2\n", "x.ini:4: [matrix] again");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[workload:a]\ntype=flush_tlb_all\n"
		     "[workload:a]\niterations=5\n", "x.ini:6: [workload:a] again (first at line 4)");
	expect_error("[host]\n[ host ]\n", "x.ini:2: unknown section [ host ]");
	expect_error("[Host]\n", "x.ini:1: unknown section [Host]");
	expect_error("[host\ncpus=8\n", "x.ini:1: '[' without ']'");
	expect_error("[host] cpus=8\n", "x.ini:1: text after the section header");
	expect_error("cpus=8\n[host]\n", "x.ini:1: 'cpus' before any [section]");
	expect_error("[]\n", "x.ini:1: unknown section []");
	/* an inline comment after a header is fine */
	assert_int_equal(config_load_string("x.ini", "[host] ; the host\ncpus=8\n[matrix]\n"
		"modes=mixed\n[workload:a]\ntype=flush_tlb_all\n", &c, err, sizeof(err)), 0);
	config_free(&c);
	/* the longest workload names: two sharing 39 bytes stay two workloads */
	memset(a, 'w', CFG_WL_NAME_MAX);
	a[CFG_WL_NAME_MAX] = '\0';
	memcpy(b, a, sizeof(b));
	b[CFG_WL_NAME_MAX - 1] = 'z';
	snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes=mixed\n[workload:%s]\ntype=flush_tlb_all\n"
		 "[workload:%s]\ntype=ipi_mask\n", a, b);
	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nwl, 2);
	assert_string_equal(c.wl[0].name, a);
	assert_string_equal(c.wl[1].name, b);
	assert_string_equal(c.wl[1].type->type, "ipi_mask");
	config_free(&c);
	/* one byte more and inih would cut it: refused */
	snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes=mixed\n[workload:%sw]\ntype=flush_tlb_all\n", a);
	expect_error(text, "x.ini:4: section name of 50 bytes: at most 49");
	/* an empty [host] is a [host] with defaults */
	assert_int_equal(config_load_string("x.ini", "[host]\n[matrix]\nmodes=mixed\n"
		"[workload:a]\ntype=flush_tlb_all\n", &c, err, sizeof(err)), 0);
	assert_string_equal(c.host.name, "qemu-8cpu");
	config_free(&c);
}

/* What config_load reads: regular files within SIO_MAX_CONFIG, refused at once otherwise. */
/* config_load() of PATH holding the LEN bytes of TEXT; err: 256 bytes. */
static int load_bytes(const char *path, const char *text, size_t len, struct config *c,
		      char *err)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return config_load(path, c, err, 256);
}

static void test_files(void **s)
{
	const char *refused[][2] = {
		{ "/dev/zero", "/dev/zero: not a regular file" },
		{ "/dev/urandom", "/dev/urandom: not a regular file" },
		{ "configs", "configs: not a regular file" },
		{ "configs/no-such.ini", "configs/no-such.ini: No such file" },
	};
	char path[64], err[256];
	struct config c;
	time_t t0 = time(NULL);
	FILE *f;

	(void)s;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		err[0] = '\0';
		assert_int_equal(config_load(refused[i][0], &c, err, sizeof(err)), -1);
		if (!strstr(err, refused[i][1]))
			fail_msg("expected '%s' in '%s'", refused[i][1], err);
	}
	assert_true(time(NULL) - t0 < 5);
	/* too big */
	snprintf(path, sizeof(path), "/tmp/ipibench-cfg-%d.ini", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), SIO_MAX_CONFIG + 1), 0);
	fclose(f);
	assert_int_equal(config_load(path, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than the"));
	/* a NUL byte is refused on its line */
	assert_int_equal(load_bytes(path, "[host]\ncpus = 8\n\0x = 1\n", 24, &c, err), -1);
	assert_non_null(strstr(err, ":3: NUL byte at byte 1 of the line"));
	/* in a comment too: a config is text */
	assert_int_equal(load_bytes(path, "[host]\n; a\0b\ncpus = 8\n", 23, &c, err), -1);
	assert_non_null(strstr(err, ":2: NUL byte at byte 4 of the line"));
	/* the text is kept as read, for DIR/config.ini */
	assert_int_equal(load_bytes(path, good, strlen(good), &c, err), 0);
	assert_int_equal(c.textlen, strlen(good));
	assert_memory_equal(c.text, good, strlen(good));
	config_free(&c);
	unlink(path);
}

static void test_cpu_lists(void **s)
{
	unsigned char b[8];

	(void)s;
	assert_int_equal(keys_cpus_parse("1,17,33", b, 64), 0);
	assert_int_equal(b[0], 0x02);
	assert_int_equal(b[2], 0x02);
	assert_int_equal(b[4], 0x02);
	assert_int_equal(keys_cpus_parse("0-7", b, 64), 0);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(keys_cpus_parse("64", b, 64), -1);
	assert_int_equal(keys_cpus_parse("1,,2", b, 64), -1);
	assert_int_equal(keys_cpus_parse("", b, 64), -1);
	assert_int_equal(keys_cpus_parse("a", b, 64), -1);
}

/* The order within each pair of senders comes from [matrix] seed and the
 * run's position unless the workload sets its own seed. */
static void test_job_pair_seeds(void **s)
{
	static const char text[] =
		"[host]\ncpus = 16\n[matrix]\nmodes = physical, mixed\nseed = 7\n"
		"[workload:pairs]\ntype = flush_tlb_all\nsenders = physical, cluster\n"
		"[workload:own]\ntype = flush_tlb_all\nsenders = cluster, cluster\nseed = 99\n"
		"[workload:plain]\ntype = flush_tlb_all\n";
	static const char text8[] =
		"[host]\ncpus = 16\n[matrix]\nmodes = physical, mixed\nseed = 8\n"
		"[workload:pairs]\ntype = flush_tlb_all\nsenders = physical, cluster\n";
	struct config c, c8;
	char err[256] = "";

	(void)s;
	assert_int_equal(config_load_string("pairs.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(config_load_string("pairs8.ini", text8, &c8, err, sizeof(err)), 0);
	json_t *j0 = config_job(&c, 0), *j1 = config_job(&c, 1), *j0b = config_job(&c, 0);
	json_t *k0 = config_job(&c8, 0);
#define SEED(j, w) json_integer_value(json_object_get(json_object_get(json_array_get( \
		json_object_get(j, "workloads"), w), "params"), "seed"))
	assert_true(SEED(j0, 0) >= 1 && SEED(j0, 0) <= 0x7fffffff);
	assert_true(SEED(j0, 0) != SEED(j1, 0));	/* each boot its own order */
	assert_int_equal(SEED(j0, 0), SEED(j0b, 0));	/* and the same again */
	assert_true(SEED(j0, 0) != SEED(k0, 0));	/* from [matrix] seed */
	assert_int_equal(SEED(j0, 1), 99);		/* the workload's own */
	assert_int_equal(SEED(j1, 1), 99);
	assert_int_equal(SEED(j0, 2), 0);		/* no senders: untouched */
#undef SEED
	/* The config itself is not changed by making a job. */
	assert_int_equal(json_integer_value(json_object_get(c.wl[0].params, "seed")), 0);
	json_decref(j0), json_decref(j1), json_decref(j0b), json_decref(k0);
	config_free(&c);
	config_free(&c8);
}

extern const struct host_backend_ops backend_skeleton;

/* The backends are described by the table: its names, its flags. */
static void test_backends(void **s)
{
	char names[128];
	struct config c;
	char err[256];

	(void)s;
	expect_error("[host]\nbackend = cloud\n",
		     "x.ini:2: backend = 'cloud': expected qemu, local or reboot");
	assert_string_equal(host_backend_names(names, sizeof(names), 0), "qemu, local or reboot");
	assert_string_equal(host_backend_names(names, sizeof(names), HB_EMULATED), "qemu");
	assert_string_equal(host_backend_names(names, 4, 0), "qem");
	for (size_t i = 0; host_backends[i]; i++) {
		assert_non_null(host_backends[i]->run);
		assert_non_null(host_backends[i]->describe_key);
		assert_ptr_equal(host_backend_find(host_backends[i]->name), host_backends[i]);
	}
	/* The default backend is the table's first, and it is emulated. */
	assert_int_equal(config_load_string("d.ini", "[host]\n[matrix]\nmodes=mixed\n"
					    "[workload:a]\ntype=flush_tlb_all\n", &c, err,
					    sizeof(err)), 0);
	assert_string_equal(c.host.backend, host_backends[0]->name);
	assert_true(host_backend_find(c.host.backend)->flags & HB_EMULATED);
	config_free(&c);
	/* The skeleton compiles against backend.h but is in no table. */
	assert_null(host_backend_find(backend_skeleton.name));
	{
		struct host_opts o = { .mode = "mixed", .cpus = 2, .quiet = 1 };
		struct host_result r = { .agent_rc = 0 };

		assert_int_equal(backend_skeleton.run(&o, &r), -1);
		assert_string_equal(r.error, "the skeleton backend reaches no host (mode mixed)");
		assert_int_equal(r.agent_rc, -1);
		backend_skeleton.describe(&o, names, sizeof(names));
		assert_string_equal(names, "skeleton host, 2 CPUs");
		/* The real-hardware backends describe themselves alike. */
		host_backend_find("local")->describe(&o, names, sizeof(names));
		assert_memory_equal(names, "real hardware (local backend) on ", 33);
		host_backend_find("reboot")->describe(&o, names, sizeof(names));
		assert_memory_equal(names, "real hardware (reboot backend, GRUB one-shot entries) on ", 57);
	}
}

/*
 * Each backend owns its [host] keys: its table is complete, a config is
 * checked against the chosen backend's table (wherever backend is said),
 * and the defaults are the table's.
 */
static void test_backend_settings(void **s)
{
	static const char rest[] = "[matrix]\nmodes = mixed\n[workload:a]\ntype = flush_tlb_all\n";
	char err[256], text[512], buf[64];
	struct config c;

	(void)s;
	for (size_t i = 0; host_backends[i]; i++)
		if (host_settings_verify(host_backends[i], err, sizeof(err)))
			fail_msg("%s", err);
	assert_int_equal(host_settings_verify(&backend_skeleton, err, sizeof(err)), 0);
	/* Every backend key's own table is complete too, and its default
	 * backend is the first of the registry. */
	if (config_tables_verify(err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(keys_find(host_common_settings, "backend")->def, host_backends[0]->name);
	/* The verifier refuses what a table must not hold. */
	{
		struct st { unsigned int n; char t[4]; };
		const struct key twice[] = {
			HS_UINT_KEY("n", struct st, n, 1, 9, "1", "a number"),
			HS_UINT_KEY("n", struct st, n, 1, 9, "1", "a number"),
			{ NULL },
		}, bad_def[] = {
			HS_UINT_KEY("n", struct st, n, 1, 9, "10", "a number"),
			{ NULL },
		}, common[] = {
			HS_UINT_KEY("cpus", struct st, n, 1, 9, "1", "a number"),
			{ NULL },
		}, no_help[] = {
			HS_TEXT_KEY("t", struct st, t, "", ""),
			{ NULL },
		};
		struct host_backend_ops be = { .name = "t", .settings_size = sizeof(struct st) };

		be.settings = twice;
		assert_int_equal(host_settings_verify(&be, err, sizeof(err)), -1);
		assert_string_equal(err, "t: n twice");
		be.settings = bad_def;
		assert_int_equal(host_settings_verify(&be, err, sizeof(err)), -1);
		assert_string_equal(err, "t: the default of n: n = '10': expected an integer from 1 to 9");
		be.settings = common;
		assert_int_equal(host_settings_verify(&be, err, sizeof(err)), -1);
		assert_string_equal(err, "t: cpus is a key of every backend");
		be.settings = no_help;
		assert_int_equal(host_settings_verify(&be, err, sizeof(err)), -1);
		assert_string_equal(err, "t: t has no help");
		be.settings = common;
		be.settings_size = 2;
		assert_int_equal(host_settings_verify(&be, err, sizeof(err)), -1);
		assert_string_equal(err, "t: cpus lies outside its settings struct (2 bytes)");
	}
	/* The defaults come from the table: qemu's memory is 2048. */
	snprintf(text, sizeof(text), "[host]\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(((const struct qemu_settings *)c.host.settings)->mem_mb, 2048);
	assert_string_equal(keys_text(keys_find(backend_qemu.settings, "memory"),
					      c.host.settings, buf, sizeof(buf)), "2048");
	config_free(&c);
	/* A key of one backend is refused on another, on its own line, before
	 * or after backend = ... (they were accepted and ignored). */
	snprintf(text, sizeof(text), "[host]\nmemory = 4096\nbackend = local\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "d.ini:2: memory = 4096: a key of the qemu backend, not of backend = local");
	snprintf(text, sizeof(text), "[host]\nbackend = local\ncpus = 2\ncmdline = x\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "d.ini:4: cmdline = x: a key of the qemu or reboot backend, "
			    "not of backend = local");
	assert_string_equal(host_setting_owners(buf, sizeof(buf), "cmdline"), "qemu or reboot");
	assert_string_equal(host_setting_owners(buf, sizeof(buf), "nope"), "");
	/* The reboot backend keeps its own cmdline. */
	snprintf(text, sizeof(text), "[host]\ncmdline = loglvl=all\nbackend = reboot\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), 0);
	assert_string_equal(((const struct reboot_settings *)c.host.settings)->cmdline, "loglvl=all");
	config_free(&c);
	/* A key no backend has is said at once. */
	snprintf(text, sizeof(text), "[host]\nmemroy = 4096\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "d.ini:2: unknown key 'memroy' in [host]");
	/* A backend's value is checked by its rule, on its line. */
	snprintf(text, sizeof(text), "[host]\ncpus = 2\ndisk_mb = x\n%s", rest);
	assert_int_equal(config_load_string("d.ini", text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "d.ini:3: disk_mb = 'x': expected an integer from 0 to 1048576");
}

/* A [workload:w] of TYPE with BODY; the error, "" when it loads. */
static const char *wl_value(const char *type, const char *body, char *err, size_t len)
{
	char text[512];
	struct config c;

	snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes = mixed\n[workload:w]\ntype = %s\n%s",
		 type, body);
	err[0] = '\0';
	if (config_load_string("w.ini", text, &c, err, len) == 0)
		config_free(&c);
	return err;
}

/* A config sets what the agent accepts, by the same rules (workloads/wlspec.c). */
static void test_workload_rules(void **s)
{
	char err[256];

	(void)s;
	assert_string_equal(wl_value("ipi_mask", "vector = 0\n", err, sizeof(err)), "");
	assert_string_not_equal(wl_value("ipi_mask", "vector = 256\n", err, sizeof(err)), "");
	assert_string_not_equal(wl_value("pingpong", "a = 0\n", err, sizeof(err)), "");
	assert_string_not_equal(wl_value("ipi_mask", "mask = none\n", err, sizeof(err)), "");
	assert_string_not_equal(wl_value("flush_mask", "iterations = 0\n", err, sizeof(err)), "");
	/* Rules across params were the agent's only; now the config's too. */
	assert_non_null(strstr(wl_value("ipi_mask", "sender = physical\nsenders = physical, cluster\n",
					err, sizeof(err)), "not both"));
	assert_non_null(strstr(wl_value("flush_tlb_all", "timing = per-call\n"
					"senders = physical, cluster\n", err, sizeof(err)), "timing"));
	/* A trace mask the agent could not use is refused before anything boots. */
	assert_non_null(strstr(wl_value("ipi_mask", "trace = bogus\n", err, sizeof(err)),
			       "workload w: trace mask"));
	assert_string_equal(wl_value("ipi_mask", "trace = 0x00804000\n", err, sizeof(err)), "");
}

/* Integers are decimal, as written: 010 is not 8 nor 10, 0x10 not 16; a
 * trace mask is hex with its 0x (the agent reads it with C's prefixes). */
static void test_decimal_only(void **s)
{
	static const char *const bad[] = { "010", "0x10", "0X10", "+5", "-1", "1e3", "1.5", "00",
					   "5 0", NULL };
	char err[256], text[512];

	(void)s;
	for (const char *const *b = bad; *b; b++) {
		snprintf(text, sizeof(text), "iterations = %s\n", *b);
		if (!strstr(wl_value("flush_tlb_all", text, err, sizeof(err)),
			    "iterations = '") || !strstr(err, "expected an integer from 1 to 1000000"))
			fail_msg("iterations = %s: '%s'", *b, err);
	}
	assert_string_equal(wl_value("flush_tlb_all", "iterations = 010\n", err, sizeof(err)),
			    "w.ini:6: iterations = '010': expected an integer from 1 to 1000000, "
			    "written in decimal digits (no leading 0, 0x, sign or space)");
	assert_string_equal(wl_value("flush_tlb_all", "iterations = 10\n", err, sizeof(err)), "");
	assert_string_equal(wl_value("pingpong", "cpu = 0\n", err, sizeof(err)), "");
	/* [host] and [matrix] integers by the same rule. */
	expect_error("[host]\ncpus = 0x10\n", "x.ini:2: cpus = '0x10': expected an integer from 1 "
		     "to 4096, written in decimal digits");
	expect_error("[host]\n[matrix]\nrepetitions = 02\n", "x.ini:3: repetitions = '02'");
	expect_error("[host]\n[matrix]\ncpus = 4, 010\n", "x.ini:3: cpus = '010'");
	/* Hex where hex is meant: [guest] trace_mask, a workload's trace. */
	snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes=mixed\n[guest]\ntrace_mask = %s\n",
		 "0x-1");
	expect_error(text, "x.ini:5: trace_mask = '0x-1'");
	assert_non_null(strstr(wl_value("ipi_mask", "trace = 010\n", err, sizeof(err)),
			       "trace mask must be a non-zero hex number"));
	assert_non_null(strstr(wl_value("ipi_mask", "trace = 0x\n", err, sizeof(err)),
			       "trace mask"));
	assert_non_null(strstr(wl_value("ipi_mask", "trace = 0x100000000\n", err, sizeof(err)),
			       "trace mask"));
}

/* Every list key refuses an empty item: a comma with nothing before or
 * after it is a mistake, not a shorter list. */
static void test_empty_list_items(void **s)
{
	static const char *const lists[][2] = {
		{ "[host]\n[matrix]\nmodes = physical,,cluster\n", "x.ini:3: modes = " },
		{ "[host]\n[matrix]\nmodes = physical, \n", "x.ini:3: modes = " },
		{ "[host]\n[matrix]\nmodes = ,mixed\n", "x.ini:3: modes = " },
		{ "[host]\n[matrix]\ncpus = 4,,8\n", "x.ini:3: cpus = " },
		{ "[host]\n[matrix]\nxen = 4.17,\n", "x.ini:3: xen = " },
		{ "[host]\n[matrix]\nmodes=mixed\n[guest]\nipi_path = evtchn,,apic\n",
		  "x.ini:5: ipi_path = " },
		{ "[host]\n[matrix]\nmodes=mixed\n[guest]\ntype = hvm\nmsi_path = pirq,\n",
		  "x.ini:6: msi_path = " },
		{ "[host]\n[matrix]\nmodes=mixed\n[workload:w]\ntype = ipi_mask\nmask = 1,\n",
		  "x.ini:6: mask = '1,'" },
		{ "[host]\n[matrix]\nmodes=mixed\n[workload:w]\ntype = ipi_mask\nmask = 1,,2\n",
		  "x.ini:6: mask = '1,,2'" },
		{ "[host]\n[matrix]\nmodes=mixed\n[workload:w]\ntype = ipi_mask\n"
		  "senders = physical,\n", "x.ini:6: senders = 'physical,': an empty item" },
	};

	char text[512];

	(void)s;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		/* else valid: a workload when there is none */
		snprintf(text, sizeof(text), "%s%s", lists[i][0], strstr(lists[i][0], "[workload:") ?
			 "" : "[workload:f]\ntype=flush_tlb_all\n");
		expect_error(text, lists[i][1]);
	}
	expect_error("[host]\n[matrix]\nmodes = physical,,cluster\n[workload:f]\ntype=flush_tlb_all\n",
		     "an empty item (a comma with nothing before or after it)");
}

/* inih would end a value at " ;" (an inline comment) and say nothing:
 * refused, on its line. */
static void test_inline_comments(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	expect_error("[host]\n[matrix]\nmodes = mixed ; physical\n[workload:f]\ntype=flush_tlb_all\n",
		     "x.ini:3: ';' after a space at byte 15: comments go on a line of their own");
	expect_error("[host]\ncpus = 4\t# four\n[matrix]\nmodes=mixed\n[workload:f]\ntype=flush_tlb_all\n",
		     "x.ini:2: '#' after a space at byte 10");
	expect_error("[host]\n[matrix]\nmodes=mixed\n[guest]\ncmdline = loglevel=8 ;x\n",
		     "x.ini:5: ';' after a space");
	/* Whole-line comments, and ';' inside a word, stay as they are. */
	assert_string_equal(wl_value("flush_tlb_all", "; a comment\n  # another\n", err,
				     sizeof(err)), "");
	assert_int_equal(config_load_string("x.ini", "[host]\n[matrix]\nmodes=mixed\n[guest]\n"
					    "cmdline = a=1;b=2\n", &c, err, sizeof(err)), 0);
	assert_string_equal(c.guest.cmdline, "a=1;b=2");
	config_free(&c);
}

/* The x2APIC mode is [matrix] modes' to choose: a command line that sets
 * it would have the run measure another mode than it records. */
static void test_cmdline_apic(void **s)
{
	static const char *const words[] = { "x2apic-mode=physical", "x2apic_mode=cluster",
					     "x2apic_phys=1", "x2apic-phys", "no-x2apic_phys",
					     "x2apic=0", "nox2apic", "apic=bigsmp", NULL };
	static const char rest[] = "[matrix]\nmodes=mixed\n[workload:f]\ntype=flush_tlb_all\n";
	char text[512];

	(void)s;
	for (const char *const *w = words; *w; w++) {
		snprintf(text, sizeof(text), "[host]\ncmdline = loglvl=all %s\n%s", *w, rest);
		char want[256];
		snprintf(want, sizeof(want), "x.ini:2: cmdline: %s: [matrix] modes chooses the "
			 "x2APIC mode", *w);
		expect_error(text, want);
		snprintf(text, sizeof(text), "[host]\nbackend = reboot\ncmdline = %s\n%s", *w, rest);
		expect_error(text, "x.ini:3: cmdline: ");
		snprintf(text, sizeof(text), "[host]\n[matrix]\nmodes=mixed\n[guest]\ncmdline = %s\n",
			 *w);
		expect_error(text, "x.ini:5: cmdline: ");
	}
}

/* A CPU number names a CPU the run has: cpu = 100 on a 4-CPU host is
 * refused on its line; lists stay within the CPU slots. */
static void test_cpu_numbers(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	expect_error("[host]\ncpus = 4\n[matrix]\nmodes=mixed\n[workload:w]\ntype = pingpong\n"
		     "cpu = 100\n", "x.ini:7: cpu = 100: the run has 4 CPUs (0 to 3)");
	expect_error("[host]\ncpus = 4\n[matrix]\nmodes=mixed\n[workload:w]\ntype = pingpong\n"
		     "peer = 4\n", "x.ini:7: peer = 4: the run has 4 CPUs");
	expect_error("[host]\ncpus = 8\n[matrix]\nmodes=mixed\ncpus = 2, 8\n[workload:w]\n"
		     "type = ipi_mask\ncpu = 3\n", "x.ini:8: cpu = 3: the run has 2 CPUs (0 to 1) at "
		     "its sweep's least");
	expect_error("[host]\ncpus = 4\nmaxcpus = 6\n[matrix]\nmodes=mixed\n[workload:w]\n"
		     "type = ipi_mask\nmask = 1-6\n",
		     "x.ini:8: mask = 1-6: CPU 6, but the run has 6 CPU slots (0 to 5)");
	assert_int_equal(config_load_string("x.ini", "[host]\ncpus = 4\nmaxcpus = 6\n[matrix]\n"
					    "modes=mixed\n[workload:w]\ntype = ipi_mask\n"
					    "mask = 1-5\ncpu = 3\n", &c, err, sizeof(err)), 0);
	config_free(&c);
}

/* [guest]: absent means the defaults; each key checked, on its line; the xl
 * config it renders carries the IPI path's kernel argument. */
static void test_guest(void **s)
{
	static const char base[] = "[host]\n[matrix]\nmodes=mixed\n[workload:f]\ntype=flush_tlb_all\n";
	struct config c;
	char err[256] = "", text[1024], xl[1024];

	(void)s;
	assert_int_equal(config_load_string("g.ini", base, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.given, 0);
	assert_int_equal(c.guest.vcpus, 2);
	assert_int_equal(c.guest.memory, 256);
	assert_int_equal(c.guest.ipi_path, IPI_PATH_EVTCHN);
	assert_int_equal(c.guest.hap, 0);
	config_free(&c);

	snprintf(text, sizeof(text), "%s[guest]\ntype = pvh\nvcpus = 4\nmemory = 512\n"
		 "cmdline = loglevel=4 ipb.secs=30\nipi_path = apic\npaging = hap\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.given, 1);
	assert_int_equal(c.guest.vcpus, 4);
	assert_int_equal(c.guest.memory, 512);
	assert_string_equal(c.guest.cmdline, "loglevel=4 ipb.secs=30");
	assert_string_equal(cfg_ipi_path_name(c.guest.ipi_path), "apic");
	assert_int_equal(c.guest.hap, 1);
	assert_true(config_guest_xl(&c.guest, "g1", "/boot/vmlinuz", "/i.gz", xl, sizeof(xl)) > 0);
	assert_non_null(strstr(xl, "extra = \"loglevel=4 ipb.secs=30 ipb.ipi=apic\"\n"));
	assert_non_null(strstr(xl, "type = \"pvh\"\nname = \"g1\"\nkernel = \"/boot/vmlinuz\"\n"));
	assert_non_null(strstr(xl, "memory = 512\nvcpus = 4\nhap = 1\n"));
	assert_non_null(strstr(xl, "on_crash = \"destroy\"\n"));
	assert_int_equal(config_guest_xl(&c.guest, "g1", "/boot/vmlinuz", "/i.gz", xl, 100), -1);
	/* the section's text is kept, as every section's */
	assert_string_equal(json_string_value(json_object_get(json_object_get(c.sections, "guest"),
							      "ipi_path")), "apic");
	config_free(&c);

	/* the default path, no cmdline: no stray space */
	snprintf(text, sizeof(text), "%s[guest]\nvcpus = 1\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_true(config_guest_xl(&c.guest, "g", "k", "r", xl, sizeof(xl)) > 0);
	assert_non_null(strstr(xl, "extra = \"ipb.ipi=kernel\"\n"));
	/* the runner's defaults: one evtchn run, the seed's mask and window */
	assert_int_equal(c.guest.npaths, 1);
	assert_int_equal(c.guest.paths[0], IPI_PATH_EVTCHN);
	assert_int_equal(c.guest.trace_mask, 0x0008ffff);
	assert_int_equal(c.guest.trace_secs, 5);
	assert_string_equal(c.guest.kernel, "build/guest/vmlinux");
	config_free(&c);

	/* both paths, in the given order; no [workload:NAME] needed with [guest] */
	assert_int_equal(config_load_string("g.ini", "[host]\nbackend = local\n[matrix]\n[guest]\n"
					    "ipi_path = apic, evtchn\ntrace_mask = 0x000affff\n"
					    "trace_secs = 7\ntimeout = 60\nkernel = /k\nramdisk = /r\n",
					    &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.npaths, 2);
	assert_int_equal(c.guest.paths[0], IPI_PATH_APIC);
	assert_int_equal(c.guest.paths[1], IPI_PATH_EVTCHN);
	assert_int_equal(c.guest.ipi_path, IPI_PATH_APIC);
	assert_int_equal(c.guest.trace_mask, 0x000affff);
	assert_int_equal(c.guest.trace_secs, 7);
	assert_int_equal(c.guest.timeout, 60);
	assert_string_equal(c.guest.ramdisk, "/r");
	assert_int_equal(c.nwl, 0);
	config_free(&c);
	assert_int_equal(config_load_string("g.ini", "[host]\n[matrix]\n", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no [workload:NAME] section"));
	/* type = hvm: the device model, the serial console, the emulated NIC
	 * on the bridge with the PV unplug off, and the MSI path's switch */
	snprintf(text, sizeof(text), "%s[guest]\ntype = hvm\nnic = e1000e\nmsi_path = apic\n"
		 "nic_address = 192.168.7.2\ncmdline = loglevel=4\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_string_equal(cfg_guest_type_name(c.guest.type), "hvm");
	assert_string_equal(c.guest.nic, "e1000e");
	assert_string_equal(cfg_msi_path_name(c.guest.msi_path), "apic");
	assert_true(config_guest_xl(&c.guest, "n1", "/k/vmlinuz", "/k/i.gz", xl, sizeof(xl)) > 0);
	assert_string_equal(xl,
			    "type = \"hvm\"\n"
			    "name = \"n1\"\n"
			    "device_model_version = \"qemu-xen\"\n"
			    "kernel = \"/k/vmlinuz\"\n"
			    "ramdisk = \"/k/i.gz\"\n"
			    "cmdline = \"console=ttyS0 xen_emul_unplug=never ipb.nic=192.168.7.2 xen_nopv "
			    "loglevel=4 ipb.ipi=kernel ipb.hold\"\n"
			    "memory = 256\n"
			    "vcpus = 2\n"
			    "hap = 0\n"
			    "serial = \"pty\"\n"
			    "vnc = 0\n"
			    "vga = \"none\"\n"
			    "vif = [ 'model=e1000e,bridge=xenbr0' ]\n"
			    "on_poweroff = \"destroy\"\n"
			    "on_reboot = \"destroy\"\n"
			    "on_crash = \"destroy\"\n");
	config_free(&c);
	/* the defaults: pirq MSIs (no xen_nopv), the default address; no NIC, no vif */
	snprintf(text, sizeof(text), "%s[guest]\ntype = hvm\nnic = e1000e\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.msi_path, MSI_PATH_PIRQ);
	assert_true(config_guest_xl(&c.guest, "n", "k", "r", xl, sizeof(xl)) > 0);
	assert_non_null(strstr(xl, "cmdline = \"console=ttyS0 xen_emul_unplug=never ipb.nic=10.0.0.2 "
			       "ipb.ipi=kernel ipb.hold\"\n"));
	/* the NIC load's defaults, one MSI path */
	assert_true(cfg_guest_nic_runs(&c.guest));
	assert_true(cfg_guest_held(&c.guest));
	assert_string_equal(c.guest.dom0_address, "10.0.0.1");
	assert_int_equal(c.guest.ping_secs, 60);
	assert_int_equal(c.guest.ab_secs, 10);
	assert_int_equal(c.guest.nmsi, 1);
	assert_null(strstr(xl, "xen_nopv"));
	config_free(&c);
	snprintf(text, sizeof(text), "%s[guest]\ntype = hvm\nmsi_path = pirq\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_true(config_guest_xl(&c.guest, "n", "k", "r", xl, sizeof(xl)) > 0);
	assert_non_null(strstr(xl, "cmdline = \"console=ttyS0 ipb.ipi=kernel ipb.hold\"\n"));
	assert_false(cfg_guest_nic_runs(&c.guest));
	assert_null(strstr(xl, "vif"));
	assert_int_equal(config_guest_xl(&c.guest, "n", "k", "r", xl, 200), -1);
	config_free(&c);
	/* a PVH guest renders as before: no device model */
	snprintf(text, sizeof(text), "%s[guest]\ntype = pvh\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.type, GUEST_PVH);
	assert_true(config_guest_xl(&c.guest, "n", "k", "r", xl, sizeof(xl)) > 0);
	assert_null(strstr(xl, "device_model"));
	assert_null(strstr(xl, "ipb.hold"));   /* a PVH guest powers itself off */
	assert_false(cfg_guest_held(&c.guest));
	config_free(&c);
	/* both MSI paths, in order, each with its IPI path; the NIC load's keys;
	 * dom0's address the first of the guest's /24 unless given */
	snprintf(text, sizeof(text), "%s[guest]\nnic = e1000e\nmsi_path = apic, pirq\n"
		 "nic_address = 192.168.7.1\nping_secs = 30\nab_secs = 5\ntype = hvm\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.guest.nmsi, 2);
	assert_int_equal(c.guest.msi_paths[0], MSI_PATH_APIC);
	assert_int_equal(c.guest.msi_paths[1], MSI_PATH_PIRQ);
	assert_int_equal(cfg_msi_path_ipi(MSI_PATH_APIC), IPI_PATH_APIC);
	assert_int_equal(cfg_msi_path_ipi(MSI_PATH_PIRQ), IPI_PATH_EVTCHN);
	assert_string_equal(c.guest.dom0_address, "192.168.7.2");
	assert_int_equal(c.guest.ping_secs, 30);
	assert_int_equal(c.guest.ab_secs, 5);
	config_free(&c);
	snprintf(text, sizeof(text), "%s[guest]\ntype = hvm\nnic = e1000e\ndom0_address = 10.0.0.9\n", base);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_string_equal(c.guest.dom0_address, "10.0.0.9");
	config_free(&c);

	static const struct { const char *lines, *msg; } bad[] = {
		{ "vcpus = 0\n", "g.ini:7: vcpus" },
		{ "vcpus = 129\n", "g.ini:7: vcpus" },
		{ "memory = 32\n", "g.ini:7: memory" },
		{ "memory = lots\n", "g.ini:7: memory" },
		{ "type = xen\n", "g.ini:7: type = 'xen': expected pvh or hvm" },
		{ "type = hvm\nnic = e1000\n", "g.ini:8: nic = e1000: the 82540EM has no MSI (INTx only); expected e1000e" },
		{ "nic = rtl8139\n", "g.ini:7: nic = rtl8139: the RTL8139 has no MSI" },
		{ "type = hvm\nnic = ne2k\n", "g.ini:8: nic = 'ne2k': expected e1000e" },
		/* the HVM-only keys on a PVH guest, refused on their own line
		 * whichever comes first */
		{ "nic = e1000e\nvcpus = 2\n", "g.ini:7: nic = e1000e: a pvh guest has no device model to emulate it (type = hvm)" },
		{ "vcpus = 2\nnic = e1000e\ntype = pvh\n", "g.ini:8: nic = e1000e: a pvh guest" },
		{ "vcpus = 2\nmsi_path = apic\n", "g.ini:8: msi_path: xen_nopv is HVM-only (type = hvm)" },
		{ "nic_address = 10.0.0.9\n", "g.ini:7: nic_address: no emulated NIC (type = hvm, nic = e1000e)" },
		{ "type = hvm\nnic_address = 10.0.0\n", "g.ini:8: nic_address = '10.0.0': expected a dotted IPv4 address" },
		{ "type = hvm\nnic_address = 10.0.0.256\n", "g.ini:8: nic_address = '10.0.0.256'" },
		{ "type = hvm\nnic_address = 1.2.3.4.5.6.7.8.9\n", "g.ini:8: nic_address = " },
		{ "type = hvm\nmsi_path = evtchn\n", "g.ini:8: msi_path = 'evtchn': expected pirq or apic" },
		{ "type = hvm\nmsi_path = apic, apic\n", "g.ini:8: msi_path: apic is listed twice" },
		/* each key's guest kinds come from its row of the table */
		{ "type = hvm\nping_secs = 30\n", "g.ini:8: ping_secs: no emulated NIC (type = hvm, nic = e1000e)" },
		{ "ab_secs = 3\n", "g.ini:7: ab_secs: no emulated NIC" },
		{ "type = hvm\nnic_address = 10.0.0.3\n", "g.ini:8: nic_address: no emulated NIC" },
		{ "type = hvm\nnic = e1000e\nipi_path = apic\n",
		  "g.ini:9: ipi_path: a guest with a NIC runs the NIC load, not ipbipi: its runs are msi_path's" },
		{ "type = hvm\nnic = e1000e\nping_secs = 4\n", "g.ini:9: ping_secs" },
		{ "type = hvm\nnic = e1000e\nab_secs = 0\n", "g.ini:9: ab_secs" },
		{ "type = hvm\nnic = e1000e\ndom0_address = 10.0.1.1\n",
		  "g.ini:9: dom0_address 10.0.1.1 and nic_address 10.0.0.2: expected two addresses of one /24" },
		{ "type = hvm\nnic = e1000e\ndom0_address = 10.0.0.2\n", "g.ini:9: dom0_address 10.0.0.2 and" },
		{ "type = hvm\nnic = e1000e\ndom0_address = x\n", "g.ini:9: dom0_address = 'x': expected a dotted IPv4" },
		{ "type = hvm\ncmdline = ipb.hold\n", "g.ini:8: cmdline: ipb.hold is the guest type's to give" },
		{ "type = hvm\ncmdline = quiet xen_nopv\n", "g.ini:8: cmdline: xen_nopv is msi_path's to give (msi_path = apic)" },
		{ "type = hvm\ncmdline = ipb.nic=1.2.3.4\n", "g.ini:8: cmdline: ipb.nic=... is nic_address's to give" },
		{ "ipi_path = x2apic\n", "g.ini:7: ipi_path = 'x2apic': expected evtchn or apic" },
		{ "ipi_path = evtchn, x\n", "g.ini:7: ipi_path = 'x': expected evtchn or apic" },
		{ "ipi_path = apic, apic\n", "g.ini:7: ipi_path: apic is listed twice" },
		{ "kernel = a\"b\n", "g.ini:7: kernel: no '\"'" },
		{ "trace_mask = 0x0008fffz\n", "g.ini:7: trace_mask" },
		{ "trace_mask = 0\n", "g.ini:7: trace_mask" },
		{ "trace_secs = 0\n", "g.ini:7: trace_secs" },
		{ "timeout = 10\n", "g.ini:7: timeout" },
		{ "paging = ept\n", "g.ini:7: paging = 'ept': expected shadow or hap" },
		{ "vcpus = 2\ncmdline = a=\"b\"\n", "g.ini:8: cmdline: no '\"' or '\\'" },
		{ "cmdline = a\\b\n", "g.ini:7: cmdline: no '\"'" },
		{ "cmdline = quiet ipb.ipi=apic\n", "g.ini:7: cmdline: ipb.ipi=... is ipi_path's to give" },
		{ "nics = 1\n", "g.ini:7: unknown key 'nics' in [guest]" },
		{ "vcpus = 2\nvcpus = 3\n", "g.ini:8: duplicate key 'vcpus' in [guest]" },
		{ "vcpus = 2\n[guest]\n", "g.ini:8: [guest] again (first at line 6)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s[guest]\n%s", base, bad[i].lines);
		assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].msg))
			fail_msg("%zu: expected '%s' in '%s'", i, bad[i].msg, err);
	}
	/* 161 bytes of cmdline: one more than xl's line is given */
	char longer[CFG_GUEST_CMDLINE_MAX + 2];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	snprintf(text, sizeof(text), "%s[guest]\ncmdline = %s\n", base, longer);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "g.ini:7: cmdline: longer than 160 bytes"));
	longer[sizeof(longer) - 2] = '\0';
	snprintf(text, sizeof(text), "%s[guest]\ncmdline = %s\n", base, longer);
	assert_int_equal(config_load_string("g.ini", text, &c, err, sizeof(err)), 0);
	assert_int_equal(strlen(c.guest.cmdline), CFG_GUEST_CMDLINE_MAX);
	config_free(&c);

	/* `run --list`'s lines come from the same table: every key, its kinds */
	char *help = NULL;
	size_t hlen = 0;
	FILE *f = open_memstream(&help, &hlen);
	assert_non_null(f);
	config_guest_help(f);
	fclose(f);
	static const char *const lines[] = {
		"    type         the guest's type: pvh, or hvm",
		"    vcpus        the guest's vCPUs\n"
		"                 1 to 128 (default 2)\n",
		"    memory       the guest's memory, MiB\n"
		"                 64 to 65536 (default 256)\n",
		"    trace_mask   xentrace -e of the HVM recording (the scheduler class\n"
		"                 0x000affff is recorded before it)\n"
		"                 0x1 to 0xffffffff (default 0x0008ffff)\n",
		"    nic          hvm: the emulated NIC's model",
		"                 e1000e (default none)\n",
		"    msi_path     hvm: the NIC's MSIs, a list",
		"    ipi_path     pvh, hvm without a nic: the guest workload's IPIs",
		"    ping_secs    hvm with a nic: ping -f's -w",
		"    ab_secs      hvm with a nic: ab -t against the guest's httpd after the recordings, -c 1, "
		"seconds\n                 1 to 3600 (default 10)\n",
		"    nic_address  hvm with a nic: the guest's IPv4 address on the bridge\n"
		"                 dotted quad (default 10.0.0.2)\n",
		"    dom0_address hvm with a nic: ",
		"    timeout      seconds from xl create to the workload's end\n"
		"                 30 to 86400 (default 900)\n",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(help, lines[i]))
			fail_msg("run --list: no '%s' in:\n%s", lines[i], help);
	free(help);
}

/*
 * Every key config_keys() documents (ipibench.ini(5), docs/configs.md) is
 * one the parser takes in its section (a bad value may be refused, the key
 * is not), and a key it does not document is refused as unknown.
 */
struct keys_seen {
	unsigned int n, host, matrix, guest, workload;
};

static void key_taken(const struct cfg_key *k, void *data)
{
	struct keys_seen *seen = data;
	char text[1024], err[512] = "", backend[32] = "qemu", type[64] = "flush_tlb_all";
	struct config c;
	int n;

	seen->n++;
	assert_non_null(k->type);
	assert_non_null(k->range);
	assert_non_null(k->def);
	assert_true(k->help && *k->help);
	if (k->scope && !strcmp(k->section, "host"))
		assert_int_equal(sscanf(k->scope, "backend = %31s", backend), 1);
	if (k->scope && !strncmp(k->section, "workload", 8))
		assert_int_equal(sscanf(k->scope, "type = %63s", type), 1);
	if (!strcmp(k->section, "host")) {
		seen->host++;
		if (!strcmp(k->key, "backend"))
			n = snprintf(text, sizeof(text), "[host]\nbackend = %s\n[workload:w]\ntype = hv_query\n",
				     backend);
		else
			n = snprintf(text, sizeof(text), "[host]\nbackend = %s\n%s = 1\n[workload:w]\n"
				     "type = hv_query\n", backend, k->key);
	} else if (!strcmp(k->section, "matrix")) {
		seen->matrix++;
		n = snprintf(text, sizeof(text), "[host]\n[matrix]\n%s = 1\n[workload:w]\ntype = hv_query\n",
			     k->key);
	} else if (!strcmp(k->section, "guest")) {
		seen->guest++;
		n = snprintf(text, sizeof(text), "[host]\nbackend = local\n[guest]\n%s = 1\n", k->key);
	} else {
		assert_string_equal(k->section, "workload:NAME");
		seen->workload++;
		n = snprintf(text, sizeof(text), "[host]\n[workload:w]\ntype = %s\n%s%s\n", type,
			     strcmp(k->key, "type") ? k->key : "", strcmp(k->key, "type") ? " = 1" : "");
	}
	assert_true(n > 0 && (size_t)n < sizeof(text));
	if (!config_load_string("x.ini", text, &c, err, sizeof(err)))
		config_free(&c);
	if (strstr(err, "unknown key") || strstr(err, "not of backend"))
		fail_msg("[%s] %s (%s): documented but refused: %s", k->section, k->key,
			 k->scope ? k->scope : "always", err);
}

static void test_documented_keys(void **s)
{
	struct keys_seen seen = { 0 };

	(void)s;
	config_keys(key_taken, &seen);
	/* Each section's table is there ([host]: backend, topology, profile,
	 * the common and the backends' keys; [matrix]: 6; [guest]: 17). */
	assert_true(seen.host >= 8);
	assert_int_equal(seen.matrix, 6);
	assert_int_equal(seen.guest, 17);
	assert_true(seen.workload > 10);
	/* and the parser refuses what is not documented */
	expect_error("[host]\nbogus = 1\n[workload:w]\ntype = hv_query\n", "unknown key 'bogus'");
	expect_error("[host]\n[matrix]\nbogus = 1\n[workload:w]\ntype = hv_query\n",
		     "unknown key 'bogus' in [matrix]");
	expect_error("[host]\nbackend = local\n[guest]\nbogus = 1\n", "unknown key 'bogus' in [guest]");
	expect_error("[host]\n[workload:w]\ntype = hv_query\nbogus = 1\n", "unknown key 'bogus'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test_setup_teardown(test_shipped_configs, tu_setup, tu_teardown),
		cmocka_unit_test(test_integer_ranges),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_job_pair_seeds),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_backends),
		cmocka_unit_test(test_backend_settings),
		cmocka_unit_test(test_workload_rules),
		cmocka_unit_test(test_decimal_only),
		cmocka_unit_test(test_empty_list_items),
		cmocka_unit_test(test_inline_comments),
		cmocka_unit_test(test_cmdline_apic),
		cmocka_unit_test(test_cpu_numbers),
		cmocka_unit_test(test_guest),
		cmocka_unit_test(test_documented_keys),
	};
	return cmocka_run_group_tests_name("runner: config", tests, NULL, NULL);
}
