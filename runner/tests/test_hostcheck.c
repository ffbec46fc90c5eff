/* SPDX-License-Identifier: GPL-3.0-or-later */
/* host check: the facts parsed from what Xen and its tools print
 * (tests/data/hostcheck/), and the findings of configs on canned facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/hostcheck.h"
#include "runner/runner.h"
#include "tests/unit/unit.h"

#define DATA "tests/data/hostcheck/"

/* Facts from the canned texts (NULL: that one not there). */
static void facts_of(struct hc_facts *f, const char *info, const char *dmesg, const char *freq,
		     const char *cstate)
{
	const char *files[] = { info, dmesg, freq, cstate, "cpuinfo" };
	int (*parse[])(struct hc_facts *, const char *, const char *, char *, size_t) = {
		hc_parse_xl_info, hc_parse_xl_dmesg, hc_parse_cpufreq, hc_parse_max_cstate,
		hc_parse_cpuinfo,
	};
	char path[256], err[400];

	hc_facts_init(f);
	for (size_t i = 0; i < 5; i++) {
		if (!files[i])
			continue;
		snprintf(path, sizeof(path), DATA "%s", files[i]);
		char *t = tu_slurp(path);
		assert_non_null(t);
		if (parse[i](f, files[i], t, err, sizeof(err)))
			fail_msg("%s: %s", files[i], err);
		free(t);
	}
}

/* The findings of TEXT (a config named m.ini; NULL: the host alone). */
static unsigned int judge(const struct hc_facts *f, const char *text, struct hc_finding *out)
{
	struct config c;
	char e[512];
	unsigned int n;

	if (!text)
		return hc_judge(f, NULL, NULL, out, HC_MAX_FINDINGS);
	if (config_load_string("m.ini", text, &c, e, sizeof(e)))
		fail_msg("%s", e);
	n = hc_judge(f, &c, "m.ini", out, HC_MAX_FINDINGS);
	config_free(&c);
	return n;
}

/* The finding of LEVEL whose text has SUB, or NULL. */
static const struct hc_finding *find(const struct hc_finding *fs, unsigned int n,
				     enum hc_level l, const char *sub)
{
	for (unsigned int i = 0; i < n; i++)
		if (fs[i].level == l && strstr(fs[i].text, sub))
			return &fs[i];
	return NULL;
}

static void test_parse_417_with_slots(void **s)
{
	struct hc_facts f;

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	assert_string_equal(f.xen_version, "4.17.5");
	assert_int_equal(f.xen_major, 4);
	assert_int_equal(f.xen_minor, 17);
	assert_int_equal(f.debug, 0);
	assert_string_equal(f.genapic, "x2apic_mixed");   /* the last driver Xen switched to */
	assert_int_equal(f.nr_cpus, 24);
	assert_int_equal(f.threads_per_core, 2);
	assert_int_equal(f.allowed_cpus, 32);
	assert_int_equal(f.hotplug_cpus, 8);
	assert_int_equal(f.madt_enabled, 24);
	assert_int_equal(f.madt_disabled, 8);
	assert_int_equal(f.napic, 24);
	assert_int_equal(f.apic_ids[12], 16);   /* 12 cores per 16-ID cluster */
	assert_int_equal(hc_clusters(&f), 2);
	assert_int_equal(f.intremap, 1);
	assert_string_equal(f.cpufreq_driver, "acpi-cpufreq");
	assert_string_equal(f.governor, "performance");
	assert_int_equal(f.turbo, 0);
	assert_int_equal(f.max_cstate, 1);
	assert_string_equal(f.microcode, "0xa0011d5");
	assert_string_equal(f.cpu_model, "AMD EPYC 7443 24-Core Processor");
	assert_string_equal(f.xen_cmdline, "console=com1 com1=115200,8n1 dom0_mem=4096M,max:4096M "
			    "loglvl=all x2apic-mode=mixed");
	assert_int_equal(hc_takes_shorthand(&f), 0);
}

/* Xen 4.20's console timestamps and its version line. */
static void test_parse_420(void **s)
{
	struct hc_facts f;

	(void)s;
	facts_of(&f, NULL, "xl-dmesg-420", NULL, NULL);
	assert_string_equal(f.xen_version, "4.20.4");
	assert_int_equal(f.xen_minor, 20);
	assert_int_equal(f.debug, 1);
	assert_int_equal(f.hotplug_cpus, 0);
	assert_int_equal(f.intremap, 0);
	assert_string_equal(f.genapic, "x2apic_mixed");
}

/* No hotpluggable or disabled CPUs: flush_tlb_all takes the shorthand. */
static void test_no_slots_warns_shorthand(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	const struct hc_finding *x;

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-noslots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	assert_int_equal(hc_takes_shorthand(&f), 1);
	n = judge(&f, NULL, fs);
	x = find(fs, n, HC_WARNING, "no hotpluggable or disabled CPUs: flush_tlb_all takes the "
		 "ALLBUT shorthand");
	assert_non_null(x);
	assert_non_null(strstr(x->text, "physical and mixed boots send the same"));
	assert_non_null(strstr(x->fix, "maxcpus="));
	assert_non_null(strstr(x->fix, "xen-hptool cpu-offline"));
	/* A config comparing flush_tlb_all between modes is told so by its workload. */
	n = judge(&f, "[host]\nbackend = reboot\ncpus = 24\n[matrix]\nmodes = physical, mixed\n"
		  "repetitions = 2\n[workload:flush]\ntype = flush_tlb_all\n", fs);
	x = find(fs, n, HC_WARNING, "flush_tlb_all between modes");
	assert_non_null(x);
	assert_string_equal(x->where, "m.ini: [workload:flush]");
	/* maxcpus= below the CPUs present leaves one unaccounted: the genapic path. */
	strcat(f.xen_cmdline, " maxcpus=23");
	assert_int_equal(hc_takes_shorthand(&f), 0);
	n = judge(&f, NULL, fs);
	assert_null(find(fs, n, HC_WARNING, "ALLBUT"));
}

static const char matrix_ini[] =
	"[host]\n"
	"backend = reboot\n"
	"cpus = 24\n"
	"cmdline = max_cstate=1 cpufreq=xen:performance\n"
	"\n"
	"[matrix]\n"
	"modes = physical, cluster, mixed\n"
	"repetitions = 2\n"
	"[workload:pairs]\n"
	"type = flush_tlb_all\n"
	"senders = physical, cluster\n";

/* A build folder DIR/NAME/xen with a multiboot header and build-info of VERSION. */
static void fake_build(const char *name, const char *version)
{
	char path[256], info[128];
	const uint32_t mb[3] = { 0x1BADB002u, 0, (uint32_t)-(0x1BADB002u) };

	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/xen", tu_dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/xen/xen", tu_dir, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(mb, sizeof(mb), 1, fp), 1);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/%s/xen/build-info", tu_dir, name);
	snprintf(info, sizeof(info), "XEN_VERSION=%s SERIES=4.17\n", version);
	assert_int_equal(tu_write(path, info), 0);
	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	setenv("IPIBENCH_BUILD", path, 1);
}

static void test_420_refuses_cluster(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	const struct hc_finding *x;
	char nobuild[128];

	(void)s;
	/* No build here: the running Xen is the one the entries boot. */
	snprintf(nobuild, sizeof(nobuild), "%s/nobuild", tu_dir);
	setenv("IPIBENCH_BUILD", nobuild, 1);
	facts_of(&f, "xl-info-420", "xl-dmesg-420", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	n = judge(&f, matrix_ini, fs);
	x = find(fs, n, HC_ERROR, "mode cluster");
	assert_non_null(x);
	assert_string_equal(x->where, "m.ini:7");
	assert_string_equal(x->text, "mode cluster: this Xen (4.20.4) has no cluster mode");
	assert_string_equal(x->fix, "remove it from [matrix] modes");
	/* Without cluster: no error. */
	n = judge(&f, "[host]\nbackend = reboot\ncpus = 24\n[matrix]\nmodes = physical, mixed\n"
		  "repetitions = 2\n[workload:f]\ntype = flush_tlb_all\nsender = physical\n", fs);
	for (unsigned int i = 0; i < n; i++)
		if (fs[i].level == HC_ERROR)
			fail_msg("unexpected error: %s", fs[i].text);
	/* A running 4.20 whose installed build (the reboot entries' Xen) is 4.17:
	 * the build decides. */
	fake_build("b417", "4.17.5");
	n = judge(&f, matrix_ini, fs);
	assert_null(find(fs, n, HC_ERROR, "has no cluster mode"));
	/* (this host's interrupt remapping is off: that still refuses cluster) */
	assert_non_null(find(fs, n, HC_ERROR, "mode cluster: interrupt remapping is off"));
	/* A 4.20 build: refused by the build's version. */
	fake_build("b420", "4.20.4");
	assert_int_equal(config_load_string("m.ini", matrix_ini, &(struct config){ 0 },
					    (char[512]){ 0 }, 512), -1);   /* config_load() already */
	setenv("IPIBENCH_BUILD", nobuild, 1);
	/* 4.17 offers it. */
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	n = judge(&f, matrix_ini, fs);
	assert_null(find(fs, n, HC_ERROR, "cluster"));
	unsetenv("IPIBENCH_BUILD");
}

static void test_intremap_off_refuses_cluster(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	const struct hc_finding *x;

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	f.intremap = 0;
	n = judge(&f, matrix_ini, fs);
	x = find(fs, n, HC_ERROR, "mode cluster: interrupt remapping is off");
	assert_non_null(x);
	assert_string_equal(x->where, "m.ini:7");
	assert_non_null(strstr(x->fix, "interrupt remapping in the firmware"));
	assert_non_null(find(fs, n, HC_WARNING, "interrupt remapping is off"));
}

static void test_power_state_warnings(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	const struct hc_finding *x;

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-ondemand", "xenpm-max-cstate-unlimited");
	assert_string_equal(f.governor, "ondemand");
	assert_int_equal(f.turbo, 1);
	assert_int_equal(f.max_cstate, 1000);
	n = judge(&f, NULL, fs);
	x = find(fs, n, HC_WARNING, "cpufreq governor ondemand");
	assert_non_null(x);
	assert_string_equal(x->fix, "cpufreq=xen:performance on Xen's command line");
	x = find(fs, n, HC_WARNING, "turbo is on");
	assert_non_null(x);
	assert_non_null(strstr(x->fix, "xenpm disable-turbo-mode"));
	x = find(fs, n, HC_WARNING, "deep C-states allowed (max C-state unlimited)");
	assert_non_null(x);
	assert_string_equal(x->fix, "max_cstate=1 on Xen's command line");
	assert_non_null(find(fs, n, HC_INFO, "SMT on (2 threads per core)"));
	/* The reboot entries' [host] cmdline pins them for the matrix. */
	n = judge(&f, matrix_ini, fs);
	assert_null(find(fs, n, HC_WARNING, "cpufreq governor"));
	assert_null(find(fs, n, HC_WARNING, "C-state"));
	assert_non_null(find(fs, n, HC_WARNING, "turbo is on"));
	/* Pinned and off: none of them. */
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	n = judge(&f, NULL, fs);
	assert_null(find(fs, n, HC_WARNING, "cpufreq"));
	assert_null(find(fs, n, HC_WARNING, "turbo"));
	assert_null(find(fs, n, HC_WARNING, "C-state"));
}

/* backend = local runs in the mode the host booted. */
static void test_local_booted_mode(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	const struct hc_finding *x;
	const char *ini = "[host]\nbackend = local\ncpus = 24\n[matrix]\nmodes = physical\n"
			  "[workload:f]\ntype = flush_tlb_all\n";

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	n = judge(&f, ini, fs);
	x = find(fs, n, HC_ERROR, "mode physical: this host booted x2apic_mixed (mixed mode)");
	assert_non_null(x);
	assert_string_equal(x->where, "m.ini:5");
	assert_non_null(strstr(x->fix, "modes = mixed"));
	assert_non_null(find(fs, n, HC_INFO, "one boot: the report compares the send routines"));
	assert_null(find(fs, n, HC_WARNING, "CPUs online"));
	/* A CPU count that is not the host's. */
	n = judge(&f, "[host]\nbackend = local\ncpus = 96\n[matrix]\nmodes = mixed\n"
		  "[workload:f]\ntype = flush_tlb_all\n", fs);
	x = find(fs, n, HC_WARNING, "cpus = 96, but this host has 24 CPUs online");
	assert_non_null(x);
	assert_string_equal(x->where, "m.ini:3");
	assert_string_equal(x->fix, "set [host] cpus = 24");
	n = judge(&f, "[host]\nbackend = local\ncpus = 24\n[matrix]\nmodes = mixed\n"
		  "[workload:f]\ntype = flush_tlb_all\n", fs);
	assert_null(find(fs, n, HC_ERROR, "mode"));
	/* With the booted mode among them, the others' runs fail: a warning. */
	n = judge(&f, "[host]\nbackend = local\ncpus = 24\n[matrix]\nmodes = mixed, physical\n"
		  "[workload:f]\ntype = flush_tlb_all\n", fs);
	assert_null(find(fs, n, HC_ERROR, "mode"));
	x = find(fs, n, HC_WARNING, "mode physical: this host booted x2apic_mixed");
	assert_non_null(x);
	assert_non_null(strstr(x->text, "that mode's runs will fail"));
}

/* The shipped real-host configs on the canned 4.17 host with slots: no error. */
static void test_shipped_configs(void **s)
{
	struct hc_facts f;
	struct hc_finding fs[HC_MAX_FINDINGS];
	const char *files[] = { "configs/host-dom0.ini", "configs/host-matrix.ini" };
	struct config c;
	char e[512];

	(void)s;
	facts_of(&f, "xl-info-417", "xl-dmesg-slots", "xenpm-cpufreq-performance", "xenpm-max-cstate-1");
	for (size_t i = 0; i < 2; i++) {
		if (config_load(files[i], &c, e, sizeof(e)))
			fail_msg("%s", e);
		unsigned int n = hc_judge(&f, &c, files[i], fs, HC_MAX_FINDINGS);
		for (unsigned int k = 0; k < n; k++)
			if (fs[k].level == HC_ERROR)
				fail_msg("%s: %s", files[i], fs[k].text);
		if (i == 1)
			assert_non_null(find(fs, n, HC_INFO, "2 boots per mode: between-mode verdicts"));
		config_free(&c);
	}
}

/* What cannot be what Xen and its tools print is refused with name:line. */
static void test_refusals(void **s)
{
	struct hc_facts f;
	char err[400];

	(void)s;
	hc_facts_init(&f);
	assert_int_equal(hc_parse_xl_info(&f, "xl info", "host : a\nxen_version : x.y\n", err,
					  sizeof(err)), -1);
	assert_string_equal(err, "xl info:2: xen_version 'x.y': not a Xen version");
	assert_int_equal(hc_parse_xl_info(&f, "xl info", "nr_cpus : 0x10\n", err, sizeof(err)), -1);
	assert_string_equal(err, "xl info:1: nr_cpus '0x10': expected a count");
	assert_int_equal(hc_parse_xl_info(&f, "xl info", "xen_commandline : a\x1b[2Jb\n", err,
					  sizeof(err)), -1);
	assert_string_equal(err, "xl info:1: xen_commandline: a control character or non-ASCII byte");
	assert_int_equal(hc_parse_xl_dmesg(&f, "xl dmesg", "(XEN) x\n(XEN) ACPI: X2APIC "
					   "(apic_id[0xzz] uid[0x01] enabled)\n", err, sizeof(err)), -1);
	assert_string_equal(err, "xl dmesg:2: a MADT entry Xen would not print");
	assert_int_equal(hc_parse_cpufreq(&f, "xenpm", "turbo mode : maybe\n", err, sizeof(err)), -1);
	assert_string_equal(err, "xenpm:1: turbo mode 'maybe': not what xenpm prints");
	assert_int_equal(hc_parse_max_cstate(&f, "xenpm", "Max possible C-state: deep\n", err,
					     sizeof(err)), -1);
	assert_string_equal(err, "xenpm:1: max C-state 'deep': not C<n> or unlimited");
	/* No VT-d line (AMD-Vi): Xen's command line decides. */
	hc_facts_init(&f);
	hc_intremap_from_cmdline(&f);
	assert_int_equal(f.intremap, -1);
	strcpy(f.xen_cmdline, "console=com1 iommu=verbose,no-intremap x2apic-mode=mixed");
	hc_intremap_from_cmdline(&f);
	assert_int_equal(f.intremap, 0);
	/* xenpm without cpufreq: Xen drives no frequency. */
	hc_facts_init(&f);
	assert_int_equal(hc_parse_cpufreq(&f, "xenpm", "[CPU0] failed to get cpufreq parameter\n",
					  err, sizeof(err)), 0);
	assert_string_equal(f.cpufreq_driver, "none");
}

/* hc_collect() through a command runner that the test replaces. */
static char *canned(void *ctx, const char *const argv[])
{
	const char *const *names = ctx;
	char path[256];

	if (!strcmp(argv[0], "xl"))
		snprintf(path, sizeof(path), DATA "%s", !strcmp(argv[1], "info") ? names[0] : names[1]);
	else
		snprintf(path, sizeof(path), DATA "%s", !strcmp(argv[1], "get-cpufreq-para") ?
			 names[2] : names[3]);
	return tu_slurp(path);
}

static void test_collect(void **s)
{
	const char *names[] = { "xl-info-420", "xl-dmesg-420", "xenpm-cpufreq-ondemand",
				"xenpm-max-cstate-1" };
	struct hc_source src = { .root = NULL, .cmd = canned, .ctx = names };
	struct hc_facts f;
	char err[400];
	json_t *j;

	(void)s;
	assert_int_equal(hc_collect(&f, &src, err, sizeof(err)), 0);
	assert_string_equal(f.xen_version, "4.20.4");
	assert_string_equal(f.governor, "ondemand");
	assert_int_equal(f.hotplug_cpus, 0);
	j = hc_facts_json(&f);
	assert_true(json_is_true(json_object_get(j, "flush_takes_shorthand")));
	assert_int_equal(json_integer_value(json_object_get(j, "x2apic_clusters")), 2);
	assert_true(json_is_false(json_object_get(j, "interrupt_remapping")));
	json_decref(j);
}

/* DIR/REL made (with its parents), and SRC's text copied to it. */
static void put_copy(const char *rel, const char *src)
{
	char path[256], *t = tu_slurp(src);

	assert_non_null(t);
	snprintf(path, sizeof(path), "%s/%s", tu_dir, rel);
	for (char *p = path + strlen(tu_dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_int_equal(tu_write(path, t), 0);
	free(t);
}

/* /proc/cpuinfo's model: the first "model name" line's (not "model names",
 * not a line that only contains the words); a control byte in it is
 * refused naming the file and line. */
static void test_parse_cpuinfo(void **s)
{
	struct hc_facts f;
	char err[400];

	(void)s;
	hc_facts_init(&f);
	assert_int_equal(hc_parse_cpuinfo(&f, "ci", "processor\t: 0\n"
					  "not model name: QEMU Virtual CPU version 2.5+\n"
					  "model names\t: QEMU TCG CPU version 2.5+\n"
					  "model name\t: AMD EPYC 7543P 32-Core Processor\n"
					  "processor\t: 1\n"
					  "model name\t: QEMU Virtual CPU version 2.5+\n",
					  err, sizeof(err)), 0);
	assert_string_equal(f.cpu_model, "AMD EPYC 7543P 32-Core Processor");
	hc_facts_init(&f);
	assert_int_equal(hc_parse_cpuinfo(&f, "ci", "processor\t: 0\n"
					  "model name\t: QEMU Virtual CPU version \x1b[2J\n",
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ci:2: model name"));
	hc_facts_init(&f);
	assert_int_equal(hc_parse_cpuinfo(&f, "ci", "", err, sizeof(err)), 0);
	assert_string_equal(f.cpu_model, "");
}

/* A file under a root: its text, or NULL, named, when it is larger than
 * the bound; nothing and no error when it is not there.  This host's /proc
 * files (size 0) are read as far as the bound. */
static void test_read_text(void **s)
{
	char err[400] = "", path[256], *t;

	(void)s;
	snprintf(path, sizeof(path), "%s/facts", tu_dir);
	assert_int_equal(tu_write(path, "0123456789"), 0);
	t = hc_read_text(tu_dir, "/facts", 64, err, sizeof(err));
	assert_non_null(t);
	assert_string_equal(t, "0123456789");
	free(t);
	assert_null(hc_read_text(tu_dir, "/facts", 4, err, sizeof(err)));
	assert_non_null(strstr(err, "facts"));
	err[0] = '\0';
	assert_null(hc_read_text(tu_dir, "/nothing", 64, err, sizeof(err)));
	assert_string_equal(err, "");
	t = hc_read_text(NULL, "/proc/self/status", 5, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(strlen(t), 5);
	free(t);
}

/* cmd_run's stderr while it runs ARGV: its exit status, the text in *err. */
static int run_captured(char **argv, int argc, char **err)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/stderr", tu_dir);
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	int rc = cmd_run(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*err = tu_slurp(path);
	return rc;
}

/* ipibench run on a captured 4.20 host: the matrix with cluster is refused in
 * one line before any run (no results folder); without cluster it starts,
 * its warnings said once and kept in results.json's host object. */
static void test_run_preflight(void **s)
{
	char out[128], ini[128], *err;
	int rc;

	(void)s;
	put_copy("root/var/lib/ipibench/facts/xl-info", DATA "xl-info-420");
	put_copy("root/var/lib/ipibench/facts/xl-dmesg", DATA "xl-dmesg-420");
	put_copy("root/var/lib/ipibench/facts/xenpm-cpufreq", DATA "xenpm-cpufreq-performance");
	put_copy("root/var/lib/ipibench/facts/xenpm-max-cstate", DATA "xenpm-max-cstate-1");
	snprintf(out, sizeof(out), "%s/root", tu_dir);
	setenv("IPIBENCH_HOST_ROOT", out, 1);
	snprintf(out, sizeof(out), "%s/nobuild", tu_dir);
	setenv("IPIBENCH_BUILD", out, 1);   /* the running Xen is the one that boots */
	snprintf(out, sizeof(out), "%s/m1", tu_dir);
	rc = run_captured((char *[]){ "run", "-c", "configs/host-matrix.ini", "-o", out, NULL }, 5, &err);
	assert_int_equal(rc, 2);
	assert_non_null(err);
	assert_string_equal(err, "ipibench run: configs/host-matrix.ini:33: mode cluster: this Xen "
			    "(4.20.4) has no cluster mode; remove it from [matrix] modes\n");
	free(err);
	assert_int_equal(access(out, F_OK), -1);

	snprintf(ini, sizeof(ini), "%s/m2.ini", tu_dir);
	assert_int_equal(tu_write(ini, "[host]\nbackend = reboot\ncpus = 24\n[matrix]\n"
				  "modes = physical, mixed\nrepetitions = 2\n[workload:f]\n"
				  "type = flush_tlb_all\n"), 0);
	snprintf(out, sizeof(out), "%s/m2", tu_dir);
	rc = run_captured((char *[]){ "run", "-c", ini, "-o", out, NULL }, 5, &err);
	assert_int_equal(rc, 1);   /* the runs fail: no host install under the root */
	assert_non_null(err);
	const char *w = "ipibench run: warning: no hotpluggable or disabled CPUs";
	char *first = strstr(err, w);
	assert_non_null(first);
	assert_null(strstr(first + 1, w));   /* once */
	free(err);
	snprintf(ini, sizeof(ini), "%s/m2/results.json", tu_dir);
	json_t *r = json_load_file(ini, 0, NULL);
	assert_non_null(r);
	json_t *pf = json_object_get(json_object_get(r, "host"), "preflight");
	assert_true(json_is_true(json_object_get(json_object_get(pf, "facts"),
						 "flush_takes_shorthand")));
	int found = 0;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(pf, "warnings"), i, x)
		found |= strstr(json_string_value(json_object_get(x, "text")), "ALLBUT") != NULL;
	assert_true(found);
	json_decref(r);
	unsetenv("IPIBENCH_HOST_ROOT");
	unsetenv("IPIBENCH_BUILD");
}

/* ipibench host check on a captured 4.20 host: what it is, and the
 * matrix config it cannot run (exit status 1). */
static void test_cmd_host_check(void **s)
{
	char root[128], out[128];

	(void)s;
	put_copy("root/var/lib/ipibench/facts/xl-info", DATA "xl-info-420");
	put_copy("root/var/lib/ipibench/facts/xl-dmesg", DATA "xl-dmesg-420");
	put_copy("root/proc/cpuinfo", DATA "cpuinfo");
	snprintf(root, sizeof(root), "%s/root", tu_dir);
	snprintf(out, sizeof(out), "%s/nobuild", tu_dir);
	setenv("IPIBENCH_BUILD", out, 1);   /* the running Xen is the one that boots */
	snprintf(out, sizeof(out), "%s/stdout", tu_dir);
	fflush(stdout);
	int saved = dup(1), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	int rc = cmd_host(8, (char *[]){ "host", "check", "--root", root, "-c",
					 "configs/host-matrix.ini", "-c", "configs/host-dom0.ini", NULL });
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	char *got = tu_slurp(out);
	assert_non_null(got);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(got, "Xen: 4.20.4 (debug build)\nmodes offered: physical, mixed\n"));
	assert_non_null(strstr(got, "x2APIC IDs: 0-11, 16-27 (2 clusters of 16 IDs)\n"));
	assert_non_null(strstr(got, "flush_tlb_all: the ALLBUT shorthand"));
	assert_non_null(strstr(got, "CPU: AMD EPYC 7443 24-Core Processor, microcode 0xa0011d5\n"));
	assert_non_null(strstr(got, "configs/host-matrix.ini: cannot run here (backend = reboot)\n"
			       "  error: configs/host-matrix.ini:33: mode cluster: this Xen (4.20.4) "
			       "has no cluster mode\n      fix: remove it from [matrix] modes\n"));
	assert_non_null(strstr(got, "configs/host-dom0.ini: can run here (backend = local)\n"));
	free(got);
	unsetenv("IPIBENCH_BUILD");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_417_with_slots),
		cmocka_unit_test(test_parse_420),
		cmocka_unit_test(test_no_slots_warns_shorthand),
		cmocka_unit_test_setup_teardown(test_420_refuses_cluster, tu_setup, tu_teardown),
		cmocka_unit_test(test_intremap_off_refuses_cluster),
		cmocka_unit_test(test_power_state_warnings),
		cmocka_unit_test(test_local_booted_mode),
		cmocka_unit_test(test_shipped_configs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_parse_cpuinfo),
		cmocka_unit_test_setup_teardown(test_read_text, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_run_preflight, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_host_check, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
