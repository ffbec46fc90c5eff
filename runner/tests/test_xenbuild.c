/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hypervisor builds: version names, modes per version, [matrix] xen and --xen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runner/config.h"
#include "runner/xenbuild.h"

static char root[] = "/tmp/ipibench-xenbuild-XXXXXX";

/* A multiboot header at a 4-byte boundary: magic, flags 0, checksum. */
static const char multiboot[] = "\0\0\0\x02\xb0\xad\x1b\0\0\0\0\xfe\x4f\x52\xe4";

/* ROOT/NAME/xen, and its build-info line when INFO is not NULL. */
static void fake_build(const char *name, const char *info)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/xen", root, name);
	f = fopen(p, "w");
	assert_non_null(f);
	/* A multiboot header after an ELF-like start, as Xen's xen has. */
	fputs("\x7f" "ELF not really a hypervisor\n", f);
	fwrite(multiboot, 1, sizeof(multiboot) - 1, f);
	fclose(f);
	if (info) {
		snprintf(p, sizeof(p), "%s/%s/build-info", root, name);
		f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "%s\nBUILT=2026-12-01T12:00:00Z\n", info);
		fclose(f);
	}
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	setenv("IPIBENCH_BUILD", root, 1);
	fake_build("xen-4.17", "XEN_VERSION=4.17.5 XEN_SOURCE=debian:4.17.5+72-g01140da4e8-1 "
		   "SERIES=4.17 SERIES_HASH=4763966888cd723f BUILD_HASH=c5993f38996e4979");
	fake_build("xen-4.20", "XEN_VERSION=4.20.4 XEN_SOURCE=tree:4.20.4 SERIES=4.20 "
		   "SERIES_HASH=0123456789abcdef FIXES=credit2-migrate-resist BUILD_HASH=c5993f38996e4979");
	fake_build("xen-src-4.23-dev-196-gc447b7308b", "XEN_VERSION=4.23-unstable "
		   "XEN_SOURCE=git:4.23-dev-196-gc447b7308b SERIES=staging SERIES_HASH=feed "
		   "BUILD_HASH=c5993f38996e4979 TREE_HASH=beef");
	fake_build("mine", NULL);
	fake_build("bad", "XEN_VERSION=four SERIES_HASH=x");
	/* build/xen: the link to the 4.17 build, as scripts/hv.sh leaves it. */
	char p[512];
	snprintf(p, sizeof(p), "%s/xen", root);
	return symlink("xen-4.17", p);
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void test_version_parse(void **state)
{
	static const struct { const char *s; int rc; unsigned int a, b; } cases[] = {
		{ "4.17.5", 0, 4, 17 },
		{ "4.17.5+72-g01140da4e8-1", 0, 4, 17 },   /* Debian's package version */
		{ "4.20.4", 0, 4, 20 },
		{ "4.20", 0, 4, 20 },
		{ "4.23-unstable", 0, 4, 23 },
		{ "4.21.0-rc3", 0, 4, 21 },
		{ "", -1, 0, 0 }, { "four", -1, 0, 0 }, { "4", -1, 0, 0 }, { "4.", -1, 0, 0 },
		{ "4.x", -1, 0, 0 }, { "4.17abc", -1, 0, 0 }, { "0.1", -1, 0, 0 },
		{ "-4.17", -1, 0, 0 }, { "4.100", -1, 0, 0 },
	};

	(void)state;
	assert_int_equal(xen_version_parse(NULL, NULL, NULL), -1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int a = 0, b = 0;
		int rc = xen_version_parse(cases[i].s, &a, &b);

		if (rc != cases[i].rc || (!rc && (a != cases[i].a || b != cases[i].b)))
			fail_msg("'%s': rc %d, %u.%u", cases[i].s, rc, a, b);
	}
}

static void test_modes_per_version(void **state)
{
	char buf[64];

	(void)state;
	assert_true(xen_has_mode(4, 17, "cluster"));
	assert_true(xen_has_mode(4, 19, "cluster"));
	assert_false(xen_has_mode(4, 20, "cluster"));
	assert_false(xen_has_mode(4, 23, "cluster"));
	assert_false(xen_has_mode(5, 0, "cluster"));
	assert_true(xen_has_mode(0, 0, "cluster"));     /* unknown version */
	assert_true(xen_has_mode(4, 23, "physical"));
	assert_true(xen_has_mode(4, 23, "mixed"));
	assert_false(xen_has_mode(4, 17, "bogus"));
	assert_false(xen_has_mode(4, 17, NULL));
	assert_string_equal(xen_modes_text(4, 17, buf, sizeof(buf)), "physical, cluster, mixed");
	assert_string_equal(xen_modes_text(4, 20, buf, sizeof(buf)), "physical, mixed");
}

static void test_resolve(void **state)
{
	struct xen_build b;
	char err[512], want[600];

	(void)state;
	/* A version name: BUILD/xen-N/xen. */
	assert_int_equal(xen_build_resolve("4.20", &b, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/xen-4.20/xen", root);
	assert_string_equal(b.path, want);
	assert_string_equal(b.label, "4.20");
	assert_string_equal(b.version, "4.20.4");
	assert_string_equal(b.source, "tree:4.20.4");
	assert_string_equal(b.series, "4.20");
	assert_string_equal(b.series_hash, "0123456789abcdef");
	assert_string_equal(b.fixes, "credit2-migrate-resist");
	assert_int_equal(b.major, 4);
	assert_int_equal(b.minor, 20);
	/* The same by its folder, or by the binary. */
	snprintf(want, sizeof(want), "%s/xen-4.20", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), 0);
	assert_string_equal(b.label, "4.20");
	snprintf(want, sizeof(want), "%s/xen-src-4.23-dev-196-gc447b7308b/xen", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), 0);
	assert_string_equal(b.label, "src-4.23-dev-196-gc447b7308b");
	assert_string_equal(b.source, "git:4.23-dev-196-gc447b7308b");
	assert_int_equal(b.minor, 23);
	/* The default: BUILD/xen, the link to 4.17, labelled by where it leads. */
	assert_int_equal(xen_build_resolve(NULL, &b, err, sizeof(err)), 0);
	assert_string_equal(b.label, "4.17");
	assert_string_equal(b.version, "4.17.5");
	assert_string_equal(b.fixes, "");       /* a build-info from before FIXES */
	/* No build-info: a build of unknown version, every mode allowed. */
	snprintf(want, sizeof(want), "%s/mine/xen", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), 0);
	assert_string_equal(b.version, "");
	assert_int_equal(xen_build_mode_check(&b, "cluster", err, sizeof(err)), 0);

	/* Refusals, one line each. */
	assert_int_equal(xen_build_resolve("4.21", &b, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s/xen-4.21/xen is not built (make hv fetches XEN=4.17 or "
		 "4.20; name a build of your own tree by its path, build/xen-src-ID/xen)", root);
	assert_string_equal(err, want);
	assert_int_equal(xen_build_resolve("staging", &b, err, sizeof(err)), -1);
	assert_string_equal(err, "neither a version name (4.17, 4.20), a build's name (src-ID for "
			    "build/xen-src-ID) nor a path to a built xen");
	/* A build's label names it too (what results.json's xen_build holds). */
	assert_int_equal(xen_build_resolve("src-4.23-dev-196-gc447b7308b", &b, err, sizeof(err)), 0);
	assert_string_equal(b.version, "4.23-unstable");
	assert_int_equal(xen_build_resolve("/nonexistent/xen", &b, err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/xen: No such file or directory (make hv builds it)");
	/* build-info is read like any untrusted input: a FIFO is refused, not waited on. */
	fake_build("fifo", NULL);
	snprintf(want, sizeof(want), "%s/fifo/build-info", root);
	assert_int_equal(mkfifo(want, 0644), 0);
	snprintf(want, sizeof(want), "%s/fifo/xen", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/fifo/build-info: not a regular file"));
	snprintf(want, sizeof(want), "%s/bad/xen", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/bad/build-info: XEN_VERSION=four: not a Xen version"));
}

/* A build is a version name, a build's name or a path to a multiboot image:
 * xen = ../../etc/passwd, a text file, a name with '..' are refused. */
static void test_not_a_build(void **state)
{
	struct xen_build b;
	char err[512], want[600];

	(void)state;
	assert_int_equal(xen_build_resolve("../../../../etc/passwd", &b, err, sizeof(err)), -1);
	assert_string_equal(err, "../../../../etc/passwd: not a hypervisor image (no multiboot "
			    "header in its first 32 KiB)");
	snprintf(want, sizeof(want), "%s/xen-4.17/build-info", root);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/xen-4.17/build-info: not a hypervisor image"));
	/* No folder name reaches BUILD/xen-NAME but a name's. */
	assert_int_equal(xen_build_resolve("..", &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "neither a version name"));
	/* A header whose checksum does not add up is no header. */
	snprintf(want, sizeof(want), "%s/badsum.bin", root);
	FILE *f = fopen(want, "w");
	assert_non_null(f);
	fwrite("\x02\xb0\xad\x1b\0\0\0\0\0\0\0\0", 1, 12, f);
	fclose(f);
	assert_int_equal(xen_build_resolve(want, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a hypervisor image"));
}

static void test_mode_check(void **state)
{
	struct xen_build b;
	char err[512];

	(void)state;
	assert_int_equal(xen_build_resolve("4.20", &b, err, sizeof(err)), 0);
	assert_int_equal(xen_build_mode_check(&b, "mixed", err, sizeof(err)), 0);
	assert_int_equal(xen_build_mode_check(&b, "physical", err, sizeof(err)), 0);
	assert_int_equal(xen_build_mode_check(&b, "cluster", err, sizeof(err)), -1);
	assert_string_equal(err, "Xen 4.20.4 (4.20) has no cluster mode (removed in Xen 4.20, "
			    "where x2apic-mode=cluster boots mixed); its modes are physical, mixed");
	assert_int_equal(xen_build_resolve("4.17", &b, err, sizeof(err)), 0);
	assert_int_equal(xen_build_mode_check(&b, "cluster", err, sizeof(err)), 0);
}

/* Load [host] HOST [matrix] MATRIX and one workload. */
static int load(const char *host, const char *matrix, struct config *c, char *err, size_t len)
{
	char text[1024];

	snprintf(text, sizeof(text), "[host]\n%s[matrix]\n%s[workload:a]\ntype = flush_tlb_all\n",
		 host, matrix);
	err[0] = '\0';
	return config_load_string("t.ini", text, c, err, len);
}

static void expect_error(const char *host, const char *matrix, const char *msg)
{
	struct config c;
	char err[512];

	assert_int_equal(load(host, matrix, &c, err, sizeof(err)), -1);
	if (strcmp(err, msg))
		fail_msg("expected '%s', got '%s'", msg, err);
}

static void test_config_axis(void **state)
{
	struct config c;
	char err[512];

	(void)state;
	/* Two builds, no modes: each build's own. */
	assert_int_equal(load("cpus = 8\n", "xen = 4.17, 4.20\nrepetitions = 2\n", &c, err,
			      sizeof(err)), 0);
	assert_int_equal(c.matrix.nxen, 2);
	assert_string_equal(c.matrix.xen[0].label, "4.17");
	assert_string_equal(c.matrix.xen[1].label, "4.20");
	assert_ptr_equal(c.matrix.build, &c.matrix.xen[0]);
	assert_int_equal(c.matrix.nmodes, 3);
	config_use_build(&c, 1);
	assert_ptr_equal(c.matrix.build, &c.matrix.xen[1]);
	assert_int_equal(c.matrix.nmodes, 2);
	assert_string_equal(c.matrix.modes[0], "physical");
	assert_string_equal(c.matrix.modes[1], "mixed");
	config_use_build(&c, 0);
	assert_int_equal(c.matrix.nmodes, 3);
	assert_string_equal(c.matrix.modes[1], "cluster");
	/* --xen replaces the axis. */
	assert_int_equal(config_set_xen(&c, "4.20", err, sizeof(err)), 0);
	assert_int_equal(c.matrix.nxen, 1);
	assert_string_equal(c.matrix.build->version, "4.20.4");
	assert_int_equal(c.matrix.nmodes, 2);
	config_free(&c);

	/* Named modes are kept, and must exist in every build. */
	assert_int_equal(load("cpus = 8\n", "modes = physical, mixed\nxen = 4.17, 4.20\n", &c,
			      err, sizeof(err)), 0);
	config_use_build(&c, 1);
	assert_int_equal(c.matrix.nmodes, 2);
	config_free(&c);
	expect_error("cpus = 8\n", "modes = physical, cluster\nxen = 4.17, 4.20\n",
		     "t.ini:4: modes = cluster: Xen 4.20.4 (4.20) has no cluster mode (removed in "
		     "Xen 4.20, where x2apic-mode=cluster boots mixed); its modes are physical, mixed");
	assert_int_equal(load("cpus = 8\n", "modes = cluster\n", &c, err, sizeof(err)), 0);
	assert_int_equal(config_set_xen(&c, "4.20", err, sizeof(err)), -1);
	assert_string_equal(err, "--xen 4.20: modes = cluster: Xen 4.20.4 (4.20) has no cluster "
			    "mode (removed in Xen 4.20, where x2apic-mode=cluster boots mixed); "
			    "its modes are physical, mixed");
	config_free(&c);

	/* Without xen: the default build (4.17 here), every mode. */
	assert_int_equal(load("cpus = 8\n", "repetitions = 1\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c.matrix.nxen, 1);
	assert_string_equal(c.matrix.build->label, "4.17");
	assert_int_equal(c.matrix.nmodes, 3);
	config_free(&c);

	expect_error("cpus = 8\n", "xen = 4.17, 4.17\n", "t.ini:4: xen: 4.17 is listed twice");
	expect_error("cpus = 8\n", "xen = ,\n",
		     "t.ini:4: xen = ,: an empty item (a comma with nothing before or after it)");
	snprintf(err, sizeof(err), "t.ini:4: xen = 4.21: %s/xen-4.21/xen is not built (make hv "
		 "fetches XEN=4.17 or 4.20; name a build of your own tree by its path, "
		 "build/xen-src-ID/xen)", root);
	expect_error("cpus = 8\n", "xen = 4.17, 4.21\n", err);
	expect_error("backend = local\n", "xen = 4.17\n",
		     "t.ini:4: xen: backend = local runs the hypervisor its host booted; a build "
		     "axis needs a backend that boots a build (qemu)");
	expect_error("cpus = 8\n", "cpus = 8, 16\nxen = 4.17, 4.20\n",
		     "t.ini:5: xen: several builds and a CPU sweep (cpus = ...) in one config are "
		     "not supported: one config per build");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_modes_per_version),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_not_a_build),
		cmocka_unit_test(test_mode_check),
		cmocka_unit_test(test_config_axis),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
