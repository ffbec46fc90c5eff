/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runner/needs.c (`ipibench run -c FILE --needs`, make bench's first step):
 * every shipped config's prerequisite check in a clean tree (IPIBENCH_BUILD
 * an empty folder: nothing built), on a machine that is not a Xen dom0 and
 * has no installed host, then on a dom0 and an installed host (the files
 * the checks read are the test's own), and the refusals' exact lines.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "runner/config.h"
#include "runner/needs.h"
#include "runner/runner.h"
#include "tests/unit/unit.h"

#define NOT_DOM0 "backend = local needs a Xen dom0 (%s says control_d); this machine is not one"

/* Each shipped config and what it needs built here: NULL targets for a
 * local backend's refusal off a dom0; on_dom0 the targets there; reboot:
 * refused, dom0 or not, on a host without `ipibench host install`. */
static const struct shipped {
	const char *file, *targets, *on_dom0;
	int reboot;
} shipped[] = {
	{ "configs/emu-flush16.ini", "hv dom0", NULL, 0 },
	{ "configs/emu-insn-epyc7443.ini", "hv dom0 plugin", NULL, 0 },
	{ "configs/emu-insn16.ini", "hv dom0 plugin", NULL, 0 },
	{ "configs/emu-insn512.ini", "hv dom0 plugin", NULL, 0 },
	{ "configs/host-dom0.ini", NULL, "agent", 0 },
	{ "configs/host-matrix.ini", NULL, NULL, 1 },
	{ "configs/repro-credit2-strand.ini", "hv dom0", NULL, 0 },
	{ "configs/seed-004-nic.ini", NULL, "agent guest", 0 },
	{ "configs/seed-004.ini", NULL, "agent guest", 0 },
	{ "configs/seed-512cpu.ini", "hv dom0 qemu", NULL, 0 },
	{ "configs/seed-96cpu.ini", "hv dom0", NULL, 0 },
	{ "configs/smoke.ini", "hv dom0", NULL, 0 },
	{ "configs/soak-flush16.ini", "hv dom0", NULL, 0 },
	{ "configs/soak-multi.ini", "hv dom0", NULL, 0 },
	{ "configs/soak-single.ini", "hv dom0", NULL, 0 },
	{ "configs/sweep-epyc7443.ini", "hv dom0", NULL, 0 },
	{ "configs/sweep.ini", "hv dom0", NULL, 0 },
};

static const struct shipped *find_shipped(const char *file)
{
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++)
		if (!strcmp(shipped[i].file, file))
			return &shipped[i];
	return NULL;
}

/* config_needs() on FILE (or TEXT, named FILE): 0 with targets, or -1 with err. */
static int needs_of(const char *file, const char *text, const char *caps, const char *root,
		    char *targets, char *err, size_t errlen)
{
	struct config c;
	struct host_needs n = { .xen_caps = caps, .root = root };
	char e[512];
	int rc;

	if (text ? config_load_string(file, text, &c, e, sizeof(e)) :
		   config_load(file, &c, e, sizeof(e)))
		fail_msg("%s", e);
	err[0] = '\0';
	rc = config_needs(&c, file, &n, err, errlen);
	strcpy(targets, n.targets);
	config_free(&c);
	return rc;
}

/* DIR/NAME with TEXT: its path (static buffer per call site's copy). */
static void put(char *path, size_t len, const char *name, const char *text)
{
	snprintf(path, len, "%s/%s", tu_dir, name);
	assert_int_equal(tu_write(path, text), 0);
}

static void test_shipped_configs_clean_tree(void **s)
{
	char caps[128], dom0[128], noroot[128], t[256], err[700], want[700];
	glob_t g;

	(void)s;
	snprintf(noroot, sizeof(noroot), "%s/root", tu_dir);
	assert_int_equal(mkdir(noroot, 0755), 0);
	put(caps, sizeof(caps), "caps-domu", "");
	put(dom0, sizeof(dom0), "caps-dom0", "control_d\n");
	snprintf(t, sizeof(t), "%s/build", tu_dir);
	assert_int_equal(mkdir(t, 0755), 0);
	setenv("IPIBENCH_BUILD", t, 1);   /* nothing built */
	assert_int_equal(glob("configs/*.ini", 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, sizeof(shipped) / sizeof(shipped[0]));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *f = g.gl_pathv[i];
		const struct shipped *sh = find_shipped(f);

		if (!sh)
			fail_msg("%s: a shipped config this test does not know: add what it needs", f);
		int rc = needs_of(f, NULL, caps, noroot, t, err, sizeof(err));
		if (sh->reboot) {
			snprintf(want, sizeof(want), "%s: backend = reboot needs an installed host: run "
				 "'ipibench host install' on it first (no %s/var/lib/ipibench/host.json)",
				 f, noroot);
			assert_int_equal(rc, -1);
			assert_string_equal(err, want);
			assert_int_equal(needs_of(f, NULL, dom0, noroot, t, err, sizeof(err)), -1);
			assert_string_equal(err, want);
			continue;
		}
		if (sh->targets) {
			if (rc)
				fail_msg("%s: refused: %s", f, err);
			if (strcmp(t, sh->targets))
				fail_msg("%s: needs '%s', not '%s'", f, t, sh->targets);
		} else {
			snprintf(want, sizeof(want), "%s: " NOT_DOM0, f, caps);
			assert_int_equal(rc, -1);
			assert_string_equal(err, want);
		}
		/* on a Xen dom0 */
		rc = needs_of(f, NULL, dom0, noroot, t, err, sizeof(err));
		assert_int_equal(rc, 0);
		assert_string_equal(t, sh->on_dom0 ? sh->on_dom0 : sh->targets);
	}
	globfree(&g);
	unsetenv("IPIBENCH_BUILD");
}

/* A missing capabilities file (no Xen at all) is the same refusal. */
static void test_no_xen_at_all(void **s)
{
	char t[256], err[700], want[700], none[128];

	(void)s;
	snprintf(none, sizeof(none), "%s/no-such-capabilities", tu_dir);
	assert_int_equal(needs_of("configs/seed-004.ini", NULL, none, NULL, t, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "configs/seed-004.ini: " NOT_DOM0, none);
	assert_string_equal(err, want);
}

/* backend = reboot: refused until `ipibench host install` wrote host.json. */
static void test_reboot_needs_installed_host(void **s)
{
	char t[256], err[700], want[700], root[128], hj[256];
	const char *ini = "[host]\nbackend = reboot\nname = lab\ncpus = 8\n[matrix]\nrepetitions = 1\n"
			  "[workload:flush]\ntype = flush_tlb_all\n";

	(void)s;
	snprintf(root, sizeof(root), "%s/host", tu_dir);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(needs_of("lab.ini", ini, NULL, root, t, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "lab.ini: backend = reboot needs an installed host: run "
		 "'ipibench host install' on it first (no %s/var/lib/ipibench/host.json)", root);
	assert_string_equal(err, want);
	snprintf(hj, sizeof(hj), "%s/var", root);
	assert_int_equal(mkdir(hj, 0755), 0);
	snprintf(hj, sizeof(hj), "%s/var/lib", root);
	assert_int_equal(mkdir(hj, 0755), 0);
	snprintf(hj, sizeof(hj), "%s/var/lib/ipibench", root);
	assert_int_equal(mkdir(hj, 0755), 0);
	snprintf(hj, sizeof(hj), "%s/var/lib/ipibench/host.json", root);
	assert_int_equal(tu_write(hj, "{}"), 0);
	assert_int_equal(needs_of("lab.ini", ini, NULL, root, t, err, sizeof(err)), 0);
	assert_string_equal(t, "");
}

/* A [guest] image outside build/guest/ must be there; one in it is make guest's. */
static void test_guest_images(void **s)
{
	char t[256], err[700], want[700], dom0[128], ini[1024], kernel[128];

	(void)s;
	put(dom0, sizeof(dom0), "caps", "control_d\n");
	snprintf(kernel, sizeof(kernel), "%s/vmlinux", tu_dir);
	snprintf(ini, sizeof(ini), "[host]\nbackend = local\n[matrix]\nrepetitions = 1\n[guest]\nkernel = %s\n"
		 "ramdisk = build/guest/initrd.gz\n", kernel);
	assert_int_equal(needs_of("g.ini", ini, dom0, NULL, t, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "g.ini: [guest] kernel = %s: No such file or directory "
		 "(make guest builds the default in build/guest/)", kernel);
	assert_string_equal(err, want);
	assert_int_equal(tu_write(kernel, "x"), 0);
	assert_int_equal(needs_of("g.ini", ini, dom0, NULL, t, err, sizeof(err)), 0);
	assert_string_equal(t, "agent guest");
}

/* host_needs_add(): each target once, in order. */
static void test_needs_add(void **s)
{
	struct host_needs n = { .targets = "" };

	(void)s;
	host_needs_add(&n, "dom0");
	host_needs_add(&n, "hv");
	host_needs_add(&n, "dom0");
	host_needs_add(&n, "d");
	host_needs_add(&n, "hv");
	assert_string_equal(n.targets, "dom0 hv d");
}

/* `ipibench run -c FILE --needs`: the targets on stdout, status 0; with
 * -o, --xen or --resume it is a usage error. */
static void test_cmd_run_needs(void **s)
{
	char out[128], build[128];

	(void)s;
	snprintf(build, sizeof(build), "%s/build", tu_dir);
	assert_int_equal(mkdir(build, 0755), 0);
	setenv("IPIBENCH_BUILD", build, 1);
	snprintf(out, sizeof(out), "%s/stdout", tu_dir);
	fflush(stdout);
	int saved = dup(1), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	int rc = cmd_run(4, (char *[]){ "run", "-c", "configs/emu-insn16.ini", "--needs", NULL });
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(rc, 0);
	char *got = tu_slurp(out);
	assert_non_null(got);
	assert_string_equal(got, "hv dom0 plugin\n");
	free(got);
	fflush(stderr);
	assert_int_equal(cmd_run(6, (char *[]){ "run", "-c", "configs/smoke.ini", "--needs",
						 "-o", "x", NULL }), 2);
	unsetenv("IPIBENCH_BUILD");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shipped_configs_clean_tree, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_no_xen_at_all, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_reboot_needs_installed_host, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_guest_images, tu_setup, tu_teardown),
		cmocka_unit_test(test_needs_add),
		cmocka_unit_test_setup_teardown(test_cmd_run_needs, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
