/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The reboot backend's host side: GRUB's environment block (checked against
 * grub-editenv when it is installed), the custom.cfg entries, the shipped
 * systemd unit, the pending state, the per-run decision, and `ipibench host
 * install|status|uninstall` on a scratch root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"
#include <jansson.h>

#include "runner/backend.h"
#include "runner/backends/reboot.h"
#include "runner/runner.h"
#include "runner/util.h"

static void spit(const char *path, const char *text)
{
	assert_int_equal(tu_write(path, text), 0);
}


/* ---- grubenv ------------------------------------------------------------- */

static void test_grubenv_roundtrip(void **s)
{
	struct grubenv e = { 0 }, back;
	char block[GRUBENV_SIZE], err[256];

	(void)s;
	assert_int_equal(grubenv_set(&e, "next_entry", "ipibench-mixed"), 0);
	assert_int_equal(grubenv_set(&e, "weird", "a\\b\nc"), 0);
	assert_int_equal(grubenv_set(&e, "next_entry", "ipibench-physical"), 0); /* replaces */
	assert_int_equal(e.n, 2);
	assert_int_equal(grubenv_format(&e, block, err, sizeof(err)), 0);
	assert_memory_equal(block, GRUBENV_SIG, strlen(GRUBENV_SIG));
	assert_int_equal(block[GRUBENV_SIZE - 1], '#');
	/* Escapes as grub_envblk_set writes them. */
	assert_non_null(memmem(block, sizeof(block), "weird=a\\\\b\\\nc\n", 14));
	assert_int_equal(grubenv_parse(block, sizeof(block), &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(grubenv_get(&back, "next_entry"), "ipibench-physical");
	assert_string_equal(grubenv_get(&back, "weird"), "a\\b\nc");
	grubenv_unset(&back, "next_entry");
	assert_null(grubenv_get(&back, "next_entry"));
	assert_int_equal(back.n, 1);
	/* Bad names. */
	assert_int_equal(grubenv_set(&e, "a=b", "x"), -1);
	assert_int_equal(grubenv_set(&e, "", "x"), -1);
}

static void test_grubenv_parse_grub_block(void **s)
{
	/* A block as grub-editenv / GRUB's save_env leave it (padding, a comment). */
	char block[GRUBENV_SIZE], err[256];
	struct grubenv e;
	const char *text = GRUBENV_SIG "saved_entry=0\n# a comment\nnext_entry=\n";

	(void)s;
	memset(block, '#', sizeof(block));
	memcpy(block, text, strlen(text));
	assert_int_equal(grubenv_parse(block, sizeof(block), &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 2);
	assert_string_equal(grubenv_get(&e, "saved_entry"), "0");
	assert_string_equal(grubenv_get(&e, "next_entry"), "");
	block[0] = 'X';
	assert_int_equal(grubenv_parse(block, sizeof(block), &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a GRUB environment block"));
}

static void test_grubenv_full(void **s)
{
	struct grubenv e = { 0 };
	char block[GRUBENV_SIZE], err[256], big[600];

	(void)s;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(grubenv_set(&e, "a", big), 0);
	assert_int_equal(grubenv_format(&e, block, err, sizeof(err)), 0);
	assert_int_equal(grubenv_set(&e, "b", big), 0);
	assert_int_equal(grubenv_format(&e, block, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "full"));
}

static void test_grubenv_file_in_place(void **s)
{
	char path[128], err[256], cmd[300];
	struct grubenv e = { 0 }, back;
	struct stat a, b;

	(void)s;
	snprintf(path, sizeof(path), "%s/grubenv", tu_dir);
	assert_int_equal(grubenv_load(path, &e, err, sizeof(err)), 1);    /* missing = empty */
	assert_int_equal(grubenv_store(path, &e, err, sizeof(err)), 0);  /* creates */
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(a.st_size, GRUBENV_SIZE);
	grubenv_set(&e, "next_entry", "ipibench-cluster");
	grubenv_set(&e, "ipibench_run", "0a1b2c3d-cluster-r1");
	assert_int_equal(grubenv_store(path, &e, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);   /* same file: GRUB's blocks stay */
	assert_int_equal(b.st_size, GRUBENV_SIZE);
	assert_int_equal(grubenv_load(path, &back, err, sizeof(err)), 0);
	assert_string_equal(grubenv_get(&back, "next_entry"), "ipibench-cluster");

	/* GRUB's own tool reads what we wrote, and we read what it writes. */
	if (find_program("grub-editenv")) {
		snprintf(cmd, sizeof(cmd), "grub-editenv %s list | grep -qx next_entry=ipibench-cluster", path);
		assert_int_equal(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "grub-editenv %s set next_entry=ipibench-mixed saved_entry=2", path);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(grubenv_load(path, &back, err, sizeof(err)), 0);
		assert_string_equal(grubenv_get(&back, "next_entry"), "ipibench-mixed");
		assert_string_equal(grubenv_get(&back, "saved_entry"), "2");
		assert_string_equal(grubenv_get(&back, "ipibench_run"), "0a1b2c3d-cluster-r1");
	} else {
		fprintf(stderr, "(grub-editenv not installed: cross-check skipped)\n");
	}

	/* Not a 1024-byte block: refused, not rewritten. */
	spit(path, "# GRUB Environment Block\n");
	assert_int_equal(grubenv_load(path, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exactly 1024 bytes"));
}

/* ---- entries, custom.cfg, unit -------------------------------------------- */

static void fill_install(struct host_install *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->grub_xen, "/ipibench/xen.gz");
	strcpy(h->grub_kernel, "/vmlinuz-6.1.0-57-amd64");
	strcpy(h->grub_initrd, "/initrd.img-6.1.0-57-amd64");
	strcpy(h->grub_fs, "ext2");
	strcpy(h->xen_cmdline, "dom0_mem=4G dom0_max_vcpus=1");
	strcpy(h->dom0_cmdline, "root=UUID=abc ro quiet");
}

static void test_entries(void **s)
{
	struct host_install h;
	char text[8192];

	(void)s;
	fill_install(&h);
	assert_int_equal(host_entries_text(&h, text, sizeof(text)), 0);
	assert_true(!strncmp(text, HOST_CFG_BEGIN "\n", strlen(HOST_CFG_BEGIN) + 1));
	assert_non_null(strstr(text, HOST_CFG_END "\n"));
	for (const char *m = "physical\0cluster\0mixed\0"; *m; m += strlen(m) + 1) {
		char want[512];

		snprintf(want, sizeof(want), "menuentry 'ipibench: Xen x2apic-mode=%s' --id ipibench-%s {", m, m);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof(want), "\tmultiboot2 '/ipibench/xen.gz' dom0_mem=4G dom0_max_vcpus=1 "
			 "x2apic-mode=%s ipibench.run=${ipibench_run} ${ipibench_cmdline}\n", m);
		assert_non_null(strstr(text, want));
	}
	assert_non_null(strstr(text, "\tload_env ipibench_run ipibench_cmdline\n"));
	assert_non_null(strstr(text, "\tsearch --no-floppy --file --set=root '/ipibench/xen.gz'\n"));
	assert_non_null(strstr(text, "\tmodule2 '/vmlinuz-6.1.0-57-amd64' placeholder root=UUID=abc ro quiet\n"));
	assert_non_null(strstr(text, "\tmodule2 --nounzip '/initrd.img-6.1.0-57-amd64'\n"));

	/* A quote in a path is escaped for GRUB's single quotes. */
	strcpy(h.grub_kernel, "/it's/vmlinuz");
	assert_int_equal(host_entries_text(&h, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "module2 '/it'\\''s/vmlinuz' placeholder"));
	/* Command lines reach Xen and dom0 word for word: a word GRUB's lexer
	 * would read ($ expands, ; ends the command, # a comment) is quoted,
	 * whitespace (the newline /proc/cmdline ends with) only separates. */
	strcpy(h.xen_cmdline, "dom0_mem=4G $evil;reboot\nloglvl=all #x");
	strcpy(h.dom0_cmdline, "root=UUID=abc it's\n");
	assert_int_equal(host_entries_text(&h, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "\tmultiboot2 '/ipibench/xen.gz' dom0_mem=4G '$evil;reboot' loglvl=all '#x' "
				     "x2apic-mode=physical "));
	assert_non_null(strstr(text, " placeholder root=UUID=abc 'it'\\''s'\n"));
	assert_null(strstr(text, "\nreboot"));
	/* Too small a buffer is an error, not a cut entry. */
	assert_int_equal(host_entries_text(&h, text, 100), -1);
}

static void test_cfg_strip(void **s)
{
	struct host_install h;
	char block[8192], cfg[16384];
	int found;
	char *out;

	(void)s;
	fill_install(&h);
	assert_int_equal(host_entries_text(&h, block, sizeof(block)), 0);
	snprintf(cfg, sizeof(cfg), "menuentry 'mine' {\n}\n%sset foo=bar\n", block);
	out = host_cfg_strip(cfg, &found);
	assert_int_equal(found, 1);
	assert_string_equal(out, "menuentry 'mine' {\n}\nset foo=bar\n");
	free(out);
	out = host_cfg_strip("menuentry 'mine' {\n}\n", &found);
	assert_int_equal(found, 0);
	assert_string_equal(out, "menuentry 'mine' {\n}\n");
	free(out);
}

static void test_unit_file_matches(void **s)
{
	char text[4096];
	char *shipped = tu_slurp("runner/host/ipibench-resume.service");

	(void)s;
	assert_non_null(shipped);
	/* The shipped file is the template; install fills in the two paths. */
	assert_int_equal(host_unit_text("@IPIBENCH@", "@BUILD@", text, sizeof(text)), 0);
	assert_string_equal(text, shipped);
	assert_int_equal(host_unit_text("/opt/ipibench/build/bin/ipibench", "/opt/ipibench/build",
					text, sizeof(text)), 0);
	assert_non_null(strstr(text, "\nExecStart=/opt/ipibench/build/bin/ipibench run --resume ${IPIBENCH_RESULTS}\n"));
	assert_non_null(strstr(text, "\nEnvironmentFile=/var/lib/ipibench/pending\n"));
	assert_non_null(strstr(text, "\nConditionPathExists=/var/lib/ipibench/pending\n"));
	assert_non_null(strstr(text, "\nWantedBy=multi-user.target\n"));
	/* After Debian's xen.service: before it, /proc/xen is not mounted yet
	 * and every run of the resumed matrix failed "not a Xen dom0". */
	assert_non_null(strstr(text, "\nAfter=local-fs.target xen.service proc-xen.mount xenstored.service\n"));
	free(shipped);
}

static void test_grub_path(void **s)
{
	char buf[4096];

	(void)s;
	assert_int_equal(host_grub_path("/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	/* /proc is its own filesystem: the path inside it. */
	assert_int_equal(host_grub_path("/proc/version", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/version");
	assert_int_equal(host_grub_path("/nonexistent/x", buf, sizeof(buf)), -1);
}

/* ---- state and decisions --------------------------------------------------- */

static void test_pending_roundtrip(void **s)
{
	struct host_pending p = { 0 }, q;
	char path[128], err[256];

	(void)s;
	snprintf(path, sizeof(path), "%s/pending", tu_dir);
	assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), 1);
	strcpy(p.results, "/var/lib/ipibench/results/m1");
	strcpy(p.matrix, "deadbeef");
	strcpy(p.reboot_for, "ipibench.run=deadbeef-physical-r1");
	strcpy(p.mode, "physical");
	p.reboots = 3;
	p.boots = 2;
	strcpy(p.started, "ipibench.run=deadbeef-physical-r1");
	assert_int_equal(host_pending_store(path, &p, err, sizeof(err)), 0);
	assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), 0);
	assert_int_equal(q.boots, 2);
	assert_string_equal(q.started, p.started);
	assert_string_equal(q.results, p.results);
	assert_string_equal(q.matrix, "deadbeef");
	assert_string_equal(q.reboot_for, p.reboot_for);
	assert_string_equal(q.mode, "physical");
	assert_int_equal(q.reboots, 3);
	/* It is a systemd EnvironmentFile: plain KEY=VALUE lines. */
	char *t = tu_slurp(path);
	assert_non_null(strstr(t, "\nIPIBENCH_RESULTS=/var/lib/ipibench/results/m1\n"));
	free(t);
	spit(path, "garbage\n");
	assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), -1);
	/* Counts by the config's integer rule: decimal as written, bounded. */
	static const char *const bad[] = { "010", "0x10", "-1", "1e3", "99999999999", " 3", "" };
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		char text[256];
		snprintf(text, sizeof(text), "IPIBENCH_RESULTS=/r\nIPIBENCH_MATRIX=m\n"
			 "IPIBENCH_%s=%s\n", b % 2 ? "RUN_BOOTS" : "REBOOTS", bad[b]);
		spit(path, text);
		assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), -1);
		assert_non_null(strstr(err, b % 2 ? "IPIBENCH_RUN_BOOTS" : "IPIBENCH_REBOOTS"));
		assert_non_null(strstr(err, path));
		assert_null(strchr(err, '\n'));
	}
	spit(path, "IPIBENCH_RESULTS=/r\nIPIBENCH_MATRIX=m\nIPIBENCH_REBOOTS=12\n"
	     "IPIBENCH_RUN_BOOTS=0\n");
	assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), 0);
	assert_int_equal(q.reboots, 12);
	assert_int_equal(q.boots, 0);

	/* Written atomically by safeio: a symlink planted where the old code
	 * put its temp file is not followed, and no temp file is left. */
	char victim[160], planted[160];
	snprintf(victim, sizeof(victim), "%s/victim", tu_dir);
	snprintf(planted, sizeof(planted), "%s.tmp", path);
	spit(victim, "keep me\n");
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(host_pending_store(path, &p, err, sizeof(err)), 0);
	t = tu_slurp(victim);
	assert_string_equal(t, "keep me\n");
	free(t);
	assert_int_equal(host_pending_load(path, &q, err, sizeof(err)), 0);
	assert_string_equal(q.matrix, "deadbeef");
	unlink(planted);
	unlink(victim);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = pending", tu_dir);
	assert_int_equal(system(cmd), 0);
}

static void test_decide(void **s)
{
	char why[512], m[200];
	const char *cl = "console=com1 dom0_mem=512M x2apic-mode=physical ipibench.run=cafe0001-physical-r1";
	struct host_pending p = { .boots = 1 };

	(void)s;
	reboot_marker("cafe0001", "physical-r1", m, sizeof(m));
	assert_string_equal(m, "ipibench.run=cafe0001-physical-r1");
	strcpy(p.reboot_for, m);
	/* Booted for this run, right driver: run here. */
	assert_int_equal(reboot_decide("physical", m, "x2apic_phys", cl, &p, why, sizeof(why)),
			 STEP_RUN_HERE);
	/* Booted for this run, but Xen chose another driver: fail, no reboot loop. */
	assert_int_equal(reboot_decide("physical", m, "x2apic_mixed", cl, &p, why, sizeof(why)),
			 STEP_FAIL);
	assert_non_null(strstr(why, "selected x2apic_mixed, not x2apic_phys"));
	/* Right driver but booted for another run (or by hand): reboot for this one. */
	reboot_marker("cafe0001", "mixed-r1", m, sizeof(m));
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed", NULL, why,
				       sizeof(why)), STEP_REBOOT);
	assert_int_equal(reboot_decide("mixed", m, "x2apic_phys", cl, &p, why, sizeof(why)),
			 STEP_REBOOT);
	/* We rebooted for this run and came back without its marker before it
	 * started: the entry did not come up (GRUB, or a Xen panic that fell
	 * back to the default entry).  Failed, not rebooted again. */
	strcpy(p.reboot_for, m);
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed", &p, why,
				       sizeof(why)), STEP_FAIL);
	assert_non_null(strstr(why, "before the run started"));
	assert_non_null(strstr(why, "Xen panic"));
	assert_null(strchr(why, '\n'));
	/* ... a marker left from an earlier run is not this one's start. */
	strcpy(p.started, "ipibench.run=cafe0001-physical-r1");
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed", &p, why,
				       sizeof(why)), STEP_FAIL);
	/* It had started on its boot and the host came back without it: the
	 * host went down during the run (a reset): boot its entry once more. */
	strcpy(p.started, m);
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed", &p, why,
				       sizeof(why)), STEP_REBOOT);
	assert_non_null(strstr(why, "went down while this run ran (boot 1 of at most 2)"));
	/* ... and again on that boot: bounded, failed. */
	p.boots = HOST_RUN_MAX_BOOTS;
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed", &p, why,
				       sizeof(why)), STEP_FAIL);
	assert_non_null(strstr(why, "on each of its 2 boots"));
	/* Booted for it on the retry: run here, whatever was started before. */
	assert_int_equal(reboot_decide("mixed", m, "x2apic_mixed", "x2apic-mode=mixed ipibench.run=cafe0001-mixed-r1",
				       &p, why, sizeof(why)), STEP_RUN_HERE);
	/* Whole words only: r1 is not r10. */
	reboot_marker("cafe0001", "physical-r10", m, sizeof(m));
	assert_int_equal(reboot_decide("physical", m, "x2apic_phys", cl, NULL, why, sizeof(why)),
			 STEP_REBOOT);
	assert_true(cmdline_has_word("a b  c", "b"));
	assert_false(cmdline_has_word("a bb c", "b"));
	assert_false(cmdline_has_word("", "b"));
}

static void test_last_pending(void **s)
{
	json_error_t je;
	json_t *r = json_loads("{\"runs\": ["
		"{\"id\": \"physical-r1\", \"status\": \"failed\"},"
		"{\"id\": \"mixed-r1\", \"status\": \"running\"},"
		"{\"id\": \"physical-r2\", \"status\": \"pending\"},"
		"{\"id\": \"mixed-r2\", \"status\": \"ok\"}]}", 0, &je);

	(void)s;
	assert_non_null(r);
	assert_false(results_last_pending(r, "mixed-r1"));   /* physical-r2 still to do */
	assert_true(results_last_pending(r, "physical-r2"));  /* only an ok run after it */
	assert_true(results_last_pending(r, "mixed-r2"));
	json_decref(r);
}

/* ---- ipibench host on a scratch root ---------------------------------------- */

static int host(const char *const *args)
{
	char *argv[32];
	int n = 0;

	for (; *args; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return cmd_host(n, argv);
}

/* The files `host install` copies and names under tu_dir: K the dom0
 * kernel, I its initramfs, X the patched Xen. */
static void boot_files(char k[static 256], char i[static 256], char x[static 256])
{
	snprintf(k, 256, "%s/boot/vmlinuz-test", tu_dir);
	spit(k, "kernel");
	snprintf(i, 256, "%s/boot/initrd.img-test", tu_dir);
	spit(i, "initrd");
	snprintf(x, 256, "%s/src/xen.gz", tu_dir);
	spit(x, "xen");
}

static void test_host_install_status_uninstall(void **s)
{
	char p[256], k[256], i[256], x[256], res[256];
	struct host_layout l;
	struct host_install h;
	char err[512];

	(void)s;
	snprintf(p, sizeof(p), "mkdir -p %s/boot/grub %s/src", tu_dir, tu_dir);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/boot/grub/custom.cfg", tu_dir);
	spit(p, "menuentry 'mine' {\n}\n");
	snprintf(p, sizeof(p), "%s/boot/grub/grub.cfg", tu_dir);
	spit(p, "source ${config_directory}/custom.cfg\n");
	boot_files(k, i, x);
	snprintf(res, sizeof(res), "%s/results", tu_dir);

	assert_int_equal(host((const char *[]){ "host", "install", "--root", tu_dir, "--xen", x,
			"--kernel", k, "--initrd", i, "--xen-cmdline", "loglvl=all x2apic-mode=cluster",
			"--dom0-cmdline", "placeholder BOOT_IMAGE=/vmlinuz root=/dev/vda1", "--results", res,
			"--yes", NULL }), 0);
	/* Twice: the block is replaced, not duplicated.  Every option that
	 * would set another x2APIC mode than the entry's is left out. */
	assert_int_equal(host((const char *[]){ "host", "install", "--root", tu_dir, "--xen", x,
			"--kernel", k, "--initrd", i, "--xen-cmdline",
			"loglvl=all x2apic-mode=cluster x2apic_phys=1 no-x2apic x2apic=false apic=default",
			"--dom0-cmdline", "placeholder BOOT_IMAGE=/vmlinuz root=/dev/vda1", "--results", res,
			"--yes", NULL }), 0);

	host_layout_init(&l, tu_dir);
	char *cfg = tu_slurp(l.custom_cfg);
	assert_non_null(cfg);
	assert_true(!strncmp(cfg, "menuentry 'mine' {\n}\n", 21));   /* the user's entry stays */
	assert_non_null(strstr(cfg, "--id ipibench-mixed {"));
	assert_null(strstr(strstr(cfg, HOST_CFG_BEGIN) + 1, HOST_CFG_BEGIN));
	/* The requested mode comes from the entry; the old word is dropped; BOOT_IMAGE too. */
	assert_null(strstr(cfg, "loglvl=all x2apic-mode=cluster x2apic-mode"));
	assert_non_null(strstr(cfg, " loglvl=all x2apic-mode=physical ipibench.run="));
	assert_null(strstr(cfg, "x2apic_phys"));
	assert_null(strstr(cfg, "no-x2apic"));
	assert_null(strstr(cfg, "x2apic=false"));
	assert_null(strstr(cfg, "apic=default"));
	assert_non_null(strstr(cfg, "' placeholder root=/dev/vda1\n"));  /* one placeholder */
	free(cfg);
	assert_int_equal(host_install_load(&l, &h, err, sizeof(err)), 0);
	assert_true(h.assume_yes);
	assert_string_equal(h.results, res);
	struct stat st;
	assert_int_equal(stat(l.grubenv, &st), 0);
	assert_int_equal(st.st_size, GRUBENV_SIZE);
	assert_int_equal(stat(h.xen, &st), 0);
	char *unit = tu_slurp(l.unit);
	assert_non_null(unit);
	assert_non_null(strstr(unit, " run --resume ${IPIBENCH_RESULTS}\n"));
	free(unit);
	assert_int_equal(access(l.unit_link, F_OK), -1);      /* enabled only by a matrix */
	assert_int_equal(host((const char *[]){ "host", "status", "--root", tu_dir, NULL }), 0);

	/* A matrix in progress, as the reboot backend leaves it. */
	struct grubenv e;
	assert_int_equal(grubenv_load(l.grubenv, &e, err, sizeof(err)), 0);
	grubenv_set(&e, "next_entry", "ipibench-mixed");
	grubenv_set(&e, "ipibench_run", "x-mixed-r1");
	grubenv_set(&e, "saved_entry", "0");
	assert_int_equal(grubenv_store(l.grubenv, &e, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/etc/systemd/system/multi-user.target.wants", tu_dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(symlink("/etc/systemd/system/" HOST_UNIT_NAME, l.unit_link), 0);

	assert_int_equal(host((const char *[]){ "host", "uninstall", "--root", tu_dir, NULL }), 0);
	cfg = tu_slurp(l.custom_cfg);
	assert_string_equal(cfg, "menuentry 'mine' {\n}\n");
	free(cfg);
	assert_int_equal(access(l.unit, F_OK), -1);
	assert_int_equal(lstat(l.unit_link, &st), -1);
	assert_int_equal(access(l.host_json, F_OK), -1);
	assert_int_equal(access(h.xen, F_OK), -1);
	assert_int_equal(access(res, F_OK), 0);                 /* results are kept */
	assert_int_equal(grubenv_load(l.grubenv, &e, err, sizeof(err)), 0);
	assert_null(grubenv_get(&e, "next_entry"));
	assert_null(grubenv_get(&e, "ipibench_run"));
	assert_string_equal(grubenv_get(&e, "saved_entry"), "0");  /* not ours: kept */
	assert_int_equal(host((const char *[]){ "host", "status", "--root", tu_dir, NULL }), 1);
}

/* The package's unit, when it is the one install would write, is used as it
 * is: nothing in /etc (an earlier /etc copy goes), the enable link points at
 * it, and uninstall leaves it to the package. */
/* Without --dom0-cmdline the entries boot dom0 with this kernel's own
 * command line (/proc/cmdline: a file of size 0 that safeio's regular-file
 * rule would refuse), BOOT_IMAGE= and initrd= left out. */
static void test_host_install_proc_cmdline(void **s)
{
	char p[256], k[256], i[256], x[256], pc[4096] = "";
	struct host_layout l;
	FILE *f = fopen("/proc/cmdline", "r");
	int kept = 0;

	(void)s;
	assert_non_null(f);
	assert_non_null(fgets(pc, sizeof(pc), f));
	fclose(f);
	snprintf(p, sizeof(p), "mkdir -p %s/boot/grub %s/src", tu_dir, tu_dir);
	assert_int_equal(system(p), 0);
	boot_files(k, i, x);
	host_layout_init(&l, tu_dir);
	assert_int_equal(host((const char *[]){ "host", "install", "--root", tu_dir, "--xen", x,
			"--kernel", k, "--initrd", i, "--xen-cmdline", "loglvl=all", NULL }), 0);
	char *cfg = tu_slurp(l.custom_cfg);
	assert_non_null(cfg);
	for (char *w = strtok(pc, " \t\n"); w; w = strtok(NULL, " \t\n")) {
		if (!strncmp(w, "BOOT_IMAGE=", 11) || !strncmp(w, "initrd=", 7) ||
		    !strcmp(w, "placeholder"))
			continue;
		if (!strstr(cfg, w))
			fail_msg("dom0's command line word %s is not in the entries:\n%s", w, cfg);
		kept++;
	}
	print_message("host install: %d words of /proc/cmdline in the entries\n", kept);
	free(cfg);
}

static void test_host_install_packaged_unit(void **s)
{
	char p[256], k[256], i[256], x[256], exe[PATH_MAX], text[4096];
	struct host_layout l;
	struct stat st;
	ssize_t n;

	(void)s;
	snprintf(p, sizeof(p), "mkdir -p %s/boot/grub %s/src %s/lib/systemd/system", tu_dir, tu_dir,
		 tu_dir);
	assert_int_equal(system(p), 0);
	boot_files(k, i, x);
	host_layout_init(&l, tu_dir);
	const char *install[] = { "host", "install", "--root", tu_dir, "--xen", x, "--kernel", k,
				  "--initrd", i, "--xen-cmdline", "loglvl=all", "--dom0-cmdline", "ro", NULL };

	/* A package's unit for another binary: install writes its own to /etc. */
	spit(l.unit_pkg[0], "[Service]\nExecStart=/usr/lib/ipibench/bin/ipibench run --resume x\n");
	assert_int_equal(host(install), 0);
	assert_int_equal(access(l.unit, R_OK), 0);
	assert_string_equal(host_unit_path(&l), l.unit);

	/* The package's unit runs this binary: it is the one used. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(host_unit_text(exe, build_dir(), text, sizeof(text)), 0);
	spit(l.unit_pkg[0], text);
	assert_int_equal(host(install), 0);
	assert_int_equal(access(l.unit, F_OK), -1);
	assert_string_equal(host_unit_path(&l), l.unit_pkg[0]);
	assert_int_equal(host((const char *[]){ "host", "status", "--root", tu_dir, NULL }), 0);

	/* Enabled as the backend enables it, then uninstalled. */
	snprintf(p, sizeof(p), "mkdir -p %s/etc/systemd/system/multi-user.target.wants", tu_dir);
	assert_int_equal(system(p), 0);
	assert_int_equal(symlink("/lib/systemd/system/" HOST_UNIT_NAME, l.unit_link), 0);
	assert_int_equal(host((const char *[]){ "host", "uninstall", "--root", tu_dir, NULL }), 0);
	assert_int_equal(lstat(l.unit_link, &st), -1);
	assert_int_equal(access(l.unit_pkg[0], R_OK), 0);       /* the package's, kept */
	assert_int_equal(access(l.host_json, F_OK), -1);
}

static void test_host_errors(void **s)
{
	char k[256];

	(void)s;
	/* No GRUB directory under this root. */
	snprintf(k, sizeof(k), "%s/nogrub", tu_dir);
	mkdir(k, 0755);
	assert_int_equal(host((const char *[]){ "host", "install", "--root", k, "--xen", "/nonexistent",
			"--kernel", "/proc/version", "--initrd", "/proc/version",
			"--xen-cmdline", "", NULL }), 1);
	assert_int_equal(host((const char *[]){ "host", "frobnicate", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "status", "extra", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "--help", NULL }), 0);
	/* Registered backends: the config's backend names resolve. */
	assert_non_null(host_backend_find("local"));
	assert_non_null(host_backend_find("reboot"));
}

/* getopt reads the options: --root=DIR, and a --root with no value is refused
 * (the hand scan used to act on / then). */
static void test_host_options(void **s)
{
	char r[128];

	(void)s;
	snprintf(r, sizeof(r), "--root=%s", tu_dir);
	assert_int_equal(host((const char *[]){ "host", "status", r, NULL }), 1);
	assert_int_equal(host((const char *[]){ "host", "status", "--root", tu_dir, NULL }), 1);
	assert_int_equal(host((const char *[]){ "host", "status", "--root", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "uninstall", "--root", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "install", "--root", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "status", "--colour", NULL }), 2);
	assert_int_equal(host((const char *[]){ "host", "status", "--help", NULL }), 0);
	assert_int_equal(host((const char *[]){ "host", "frobnicate", "--root", tu_dir, NULL }), 2);
}

/* host.json is read as untrusted input: a regular file holding an object. */
static void test_host_json_refused(void **s)
{
	struct host_layout l;
	struct host_install h;
	char path[128], err[512];

	(void)s;
	host_layout_init(&l, tu_dir);
	snprintf(path, sizeof(path), "%s/var/lib/ipibench", tu_dir);
	assert_int_equal(run_mkdirs(path), 0);
	spit(l.host_json, "[1]");
	assert_int_equal(host_install_load(&l, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host.json: $: expected an object"));
	spit(l.host_json, "{\"xen\": ");
	assert_int_equal(host_install_load(&l, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host.json:1:"));
	unlink(l.host_json);
	assert_int_equal(mkfifo(l.host_json, 0600), 0);
	assert_int_equal(host_install_load(&l, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host.json: not a regular file"));
	unlink(l.host_json);
	spit(l.host_json, "{\"xen\": 5, \"results\": \"/r\"}");
	assert_int_equal(host_install_load(&l, &h, err, sizeof(err)), 0);
	assert_string_equal(h.xen, "");
	assert_string_equal(h.results, "/r");
}

/* `host status` with its output captured into out (NUL-terminated). */
static char out[1 << 14];

static int host_status_out(const char *root)
{
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	rc = host((const char *[]){ "host", "status", "--root", root, NULL });
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

/*
 * `host status --root IMG` on a hostile image: FIFOs where the pending
 * file, host.json, grubenv and GRUB's configs are are refused at once
 * (the pending file and grubenv used to be opened blocking: status hung),
 * and escape sequences and newlines in host.json and pending values are
 * printed escaped (they used to reach the terminal raw).
 */
static void test_host_status_hostile(void **s)
{
	struct host_layout l;
	struct grubenv e = { 0 };
	char p[300], err[512];

	(void)s;
	host_layout_init(&l, tu_dir);
	snprintf(p, sizeof(p), "%s/var/lib/ipibench", tu_dir);
	assert_int_equal(run_mkdirs(p), 0);
	snprintf(p, sizeof(p), "%s/boot/grub", tu_dir);
	assert_int_equal(run_mkdirs(p), 0);
	alarm(20);	/* a hang fails the test instead of stalling it */
	/* Every file a FIFO. */
	assert_int_equal(mkfifo(l.host_json, 0600), 0);
	assert_int_equal(mkfifo(l.pending, 0600), 0);
	assert_int_equal(mkfifo(l.grubenv, 0600), 0);
	assert_int_equal(mkfifo(l.custom_cfg, 0600), 0);
	assert_int_equal(mkfifo(l.grub_cfg, 0600), 0);
	assert_int_equal(host_status_out(tu_dir), 1);
	assert_non_null(strstr(out, "host.json: not a regular file"));
	assert_non_null(strstr(out, "grubenv: not a regular file"));
	assert_non_null(strstr(out, "pending: not a regular file"));
	unlink(l.host_json);
	unlink(l.pending);
	unlink(l.grubenv);

	/* Escape sequences and newlines in the values. */
	spit(l.host_json, "{\"installed\": \"now\\u001b[2J\\nipibench host: installed forged\","
	     " \"xen\": \"/x\\u001b]0;title\\u0007\", \"results\": \"/r\\r\\n\","
	     " \"xen_cmdline\": \"a\\nb\", \"kernel\": \"\\u009b31m\", \"initrd\": \"i\"}");
	spit(l.pending, "IPIBENCH_RESULTS=/nonexistent\033[31m\nIPIBENCH_MATRIX=m\n"
	     "IPIBENCH_REBOOT_FOR=x\033[2Jy\n");
	grubenv_set(&e, "next_entry", "ipibench\033[5m");
	assert_int_equal(grubenv_store(l.grubenv, &e, err, sizeof(err)), 0);
	assert_int_equal(host_status_out(tu_dir), 0);
	assert_null(strchr(out, '\033'));
	assert_null(strchr(out, '\007'));
	assert_null(strchr(out, '\r'));
	assert_null(strstr(out, "\xc2\x9b"));
	assert_null(strstr(out, "\nipibench host: installed forged"));
	assert_non_null(strstr(out, "installed \"now\\x1b[2J\\x0aipibench host: installe"));
	assert_non_null(strstr(out, "xen cmdline: \"a\\x0ab\""));
	assert_non_null(strstr(out, "next boot once into \"ipibench\\x1b[5m\""));
	assert_non_null(strstr(out, "pending: \"/nonexistent\\x1b[31m/results.json\": "));
	assert_non_null(strstr(out, "last reboot for \"x\\x1b[2Jy\""));
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grubenv_roundtrip),
		cmocka_unit_test(test_grubenv_parse_grub_block),
		cmocka_unit_test(test_grubenv_full),
		cmocka_unit_test_setup_teardown(test_grubenv_file_in_place, tu_setup, tu_teardown),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_cfg_strip),
		cmocka_unit_test(test_unit_file_matches),
		cmocka_unit_test(test_grub_path),
		cmocka_unit_test_setup_teardown(test_pending_roundtrip, tu_setup, tu_teardown),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_last_pending),
		cmocka_unit_test_setup_teardown(test_host_install_status_uninstall, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_install_packaged_unit, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_install_proc_cmdline, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_errors, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_json_refused, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_options, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_status_hostile, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests_name("runner: reboot backend host side", tests, NULL, NULL);
}
