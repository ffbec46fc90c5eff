/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `ipibench trace ...` as a command: output, JSON, exit status. */
#include <fcntl.h>
#include <lzma.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "probes/events.h"
#include "probes/probes.h"
#include "probes/trace.h"
#include "probes/tests/trace_run.h"
#include "probes/tests/xtbuild.h"
#include "tests/unit/unit.h"

/* The tests' two trace files (each test writes them before it reads
 * them), in the group's own directory (tu_setup()), removed with it at the
 * end even when an assertion failed. */
static char pa[96], pb[96];

static int setup(void **st)
{
	if (tu_setup(st))
		return -1;
	snprintf(pa, sizeof(pa), "%s/a.xt", tu_dir);
	snprintf(pb, sizeof(pb), "%s/b.xt", tu_dir);
	return 0;
}

static void write_file(const char *path, const struct xtb *x)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(x->b, 1, x->len, f), x->len);
	fclose(f);
}

/* Profile A: the seed's "before" shape; B: "after". */
static void make_profiles(const char *a, const char *b)
{
	struct xtb x;
	uint64_t t = 1;

	xtb_init(&x);
	xtb_chunk(&x, 0);
	for (int i = 0; i < 300; i++) {
		XTB_REC(&x, 0x00081102, t++, 1, 2, 3);
		XTB_REC(&x, 0x00082004, 0, 0xf0, 0, 0);	/* INJ_VIRQ */
		XTB_REC(&x, 0x00081001, t++);
	}
	for (int i = 0; i < 10; i++)
		XTB_REC(&x, 0x00082013, 0, 1);		/* HLT */
	xtb_end(&x);
	write_file(a, &x);
	free(x.b);
	xtb_init(&x);
	xtb_chunk(&x, 0);
	for (int i = 0; i < 160; i++) {
		XTB_REC(&x, 0x00081102, t++, 1, 2, 3);
		XTB_REC(&x, 0x00081001, t++);
	}
	XTB_REC(&x, 0x00082004, 0, 0xf0, 0, 0);
	for (int i = 0; i < 12; i++)
		XTB_REC(&x, 0x00082013, 0, 1);
	XTB_REC(&x, 0x00082021, 0, 1, 2, 3, 4, 5, 6);	/* NPF: new in B */
	xtb_end(&x);
	write_file(b, &x);
	free(x.b);
}

static void test_help_and_usage(void **st)
{
	(void)st;
	assert_int_equal(run("--help", NULL), 0);
	assert_non_null(strstr(out, "summary"));
	assert_non_null(strstr(out, "diff"));
	assert_int_equal(run("ipi", "--help", NULL), 0);
	assert_non_null(strstr(out, "most recently began before it (on any CPU)"));
	assert_int_equal(run("summary", "--help", NULL), 0);
	/* The options list is the table that is parsed: --tsc-khz and --top,
	 * taken by every subcommand, were once missing from it. */
	assert_non_null(strstr(out, "      --json                print JSON instead of a table\n"));
	assert_non_null(strstr(out, "      --tsc-khz KHZ"));
	assert_non_null(strstr(out, "      --top N"));
	assert_non_null(strstr(out, "  -h, --help                this help\n"));
	assert_int_equal(run("diff", "--help", NULL), 0);
	/* --guest-reference (report's spelling; --reference, the old one, is
	 * taken but not listed) and the seed rows without a measured counterpart. */
	assert_non_null(strstr(out, "      --guest-reference FILE"));
	assert_null(strstr(out, "      --reference"));
	assert_non_null(strstr(out, "(no measured counterpart)"));
	assert_non_null(strstr(out, "vlapic_accept_pic_intr (PVH has no vPIC"));
	assert_int_equal(run("--help", NULL), 0);
	assert_non_null(strstr(out, "diff A B [--json] [--strict] [--top N] [--guest-reference FILE]"));
	assert_int_equal(run("irq", "--help", NULL), 0);
	assert_int_equal(run("bogus", NULL), 2);
	assert_int_equal(run("summary", NULL), 2);
	assert_int_equal(run("diff", "onlyone", NULL), 2);
	assert_int_equal(run("summary", "--frobnicate", "x", NULL), 2);
	assert_int_equal(run("ipi", "--tsc-khz", "abc", "x", NULL), 2);
}

static void test_summary_json_and_errors(void **st)
{
	const char *a = pa, *b = pb;
	json_t *j, *ev;
	json_error_t e;
	size_t i;
	int found = 0;

	(void)st;
	make_profiles(a, b);
	assert_int_equal(run("summary", "--json", a, NULL), 0);
	j = json_loads(out, 0, &e);
	assert_non_null(j);
	ev = json_object_get(json_array_get(json_object_get(j, "files"), 0), "events");
	for (i = 0; i < json_array_size(ev); i++) {
		json_t *r = json_array_get(ev, i);

		if (!strcmp(json_string_value(json_object_get(r, "name")), "VMEXIT")) {
			assert_int_equal(json_integer_value(json_object_get(r, "count")), 300);
			found = 1;
		}
	}
	assert_true(found);
	json_decref(j);
	/* Text: a row per name. */
	assert_int_equal(run("summary", a, NULL), 0);
	assert_non_null(strstr(out, "         300  INJ_VIRQ"));
	/* Missing file, and a file that is not a trace. */
	assert_int_equal(run("summary", "/nonexistent/x.xt", NULL), 1);
	assert_non_null(strstr(out, "/nonexistent/x.xt"));
	{
		FILE *f = fopen(b, "wb");

		fputs("hello, I am not a trace\n", f);
		fclose(f);
	}
	assert_int_equal(run("summary", b, NULL), 1);
	assert_non_null(strstr(out, "not a xentrace file"));
	assert_non_null(strstr(out, "offset 0"));
}

/* IPIBENCH_TRACE_HVM: tsc and why are honoured, with the same counts;
 * any other value is a usage error, refused once before any file is read,
 * and tr_summary_run() refuses it too (the report calls it). */
static int unset_hvm_env(void **st)
{
	(void)st;
	return unsetenv("IPIBENCH_TRACE_HVM");	/* also when the test failed */
}

static void test_hvm_env(void **st)
{
	char auto_out[sizeof(out)];
	struct tr_summary s;
	struct xt_file f;
	int pass;
	bool why;

	(void)st;
	make_profiles(pa, pb);
	unsetenv("IPIBENCH_TRACE_HVM");
	assert_int_equal(run("summary", "--json", pa, NULL), 0);
	memcpy(auto_out, out, sizeof(out));
	setenv("IPIBENCH_TRACE_HVM", "tsc", 1);
	assert_int_equal(run("summary", "--json", pa, NULL), 0);
	assert_string_equal(out, auto_out);
	setenv("IPIBENCH_TRACE_HVM", "why", 1);
	assert_int_equal(run("summary", pa, NULL), 0);
	assert_non_null(strstr(out, "hvm profile: file order\n"));
	setenv("IPIBENCH_TRACE_HVM", "auto", 1);
	assert_int_equal(run("summary", pa, NULL), 0);
	assert_null(strstr(out, "hvm profile:"));
	setenv("IPIBENCH_TRACE_HVM", "TSC", 1);
	assert_int_equal(run("summary", pa, "/nonexistent/x.xt", NULL), 2);
	assert_string_equal(out, "ipibench: IPIBENCH_TRACE_HVM=\"TSC\": not one of auto, tsc, why\n");
	setenv("IPIBENCH_TRACE_HVM", "a\"\033[2Jbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 1);
	assert_int_equal(run("summary", pa, NULL), 2);
	assert_string_equal(out, "ipibench: IPIBENCH_TRACE_HVM=\"a\\\"\\x1b[2Jbbbbbbbbbbbbbbbbbbbbbbbb...\": "
				 "not one of auto, tsc, why\n");
	assert_int_equal(tr_hvm_env(&pass, &why), -1);
	char err[256];

	assert_int_equal(xt_open(&f, pa, XT_XZ_MAX_BYTES, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), -1);
	tr_summary_fini(&s);
	setenv("IPIBENCH_TRACE_HVM", "tsc", 1);
	assert_int_equal(tr_hvm_env(&pass, &why), 0);
	assert_int_equal(pass, TR_HVM_TSC);
	assert_false(why);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_true(s.has_hvm);
	assert_false(s.hvm_file_order);
	tr_summary_fini(&s);
	xt_unmap(&f);
	unsetenv("IPIBENCH_TRACE_HVM");
}

static void test_strict(void **st)
{
	const char *a = pa;
	struct xtb x;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 10);
	xtb_end(&x);
	xtb_put(&x, "zz", 2);		/* trailing garbage */
	write_file(a, &x);
	free(x.b);
	assert_int_equal(run("summary", a, NULL), 0);
	assert_non_null(strstr(out, "anomalies: 2 bytes skipped"));
	assert_int_equal(run("summary", "--strict", a, NULL), 1);
}

static void test_diff_table(void **st)
{
	const char *a = pa, *b = pb;
	json_t *j, *rows, *r;
	json_error_t e;

	(void)st;
	make_profiles(a, b);
	assert_int_equal(run("diff", "--json", a, b, NULL), 0);
	j = json_loads(out, 0, &e);
	assert_non_null(j);
	rows = json_object_get(j, "rows");
	/* Sorted by impact: INJ_VIRQ (-299) first, then VMENTRY/VMEXIT (-140). */
	r = json_array_get(rows, 0);
	assert_string_equal(json_string_value(json_object_get(r, "name")), "INJ_VIRQ");
	assert_int_equal(json_integer_value(json_object_get(r, "a")), 300);
	assert_int_equal(json_integer_value(json_object_get(r, "b")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "change")), -299);
	r = json_array_get(rows, 1);
	assert_int_equal(json_integer_value(json_object_get(r, "change")), -140);
	assert_true(json_real_value(json_object_get(r, "ratio")) > 0.533 &&
		    json_real_value(json_object_get(r, "ratio")) < 0.534);
	/* NPF is new in B: no ratio. */
	for (size_t i = 0; i < json_array_size(rows); i++) {
		r = json_array_get(rows, i);
		if (!strcmp(json_string_value(json_object_get(r, "name")), "NPF"))
			assert_true(json_is_null(json_object_get(r, "ratio")));
	}
	json_decref(j);
	assert_int_equal(run("diff", a, b, NULL), 0);
	assert_non_null(strstr(out, "INJ_VIRQ                              300            1         -299    0.003"));
}

/* Two recorded HVM traces whose names sort differently by case (vlapic,
 * VMENTRY): every event is one row, with both files' counts. */
static void test_diff_hvm_fixtures(void **st)
{
	json_t *j, *rows;
	json_error_t e;
	int seen = 0;

	(void)st;
	assert_int_equal(run("diff", "--json", "probes/tests/data/hvm-pvh-boot.xt",
			     "probes/tests/data/hvm-pvh-tlbstorm.xt", NULL), 0);
	assert_non_null(j = json_loads(out, 0, &e));
	rows = json_object_get(j, "rows");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *r = json_array_get(rows, i);
		const char *name = json_string_value(json_object_get(r, "name"));

		for (size_t k = 0; k < i; k++)
			if (!strcmp(name, json_string_value(json_object_get(json_array_get(rows, k), "name"))))
				fail_msg("row %s twice", name);
		if (!strcmp(name, "VMENTRY")) {
			/* xenalyze: 61 exits in the boot, 6822 in the workload */
			assert_int_equal(json_integer_value(json_object_get(r, "a")), 61);
			assert_int_equal(json_integer_value(json_object_get(r, "b")), 6822);
			seen++;
		}
	}
	assert_int_equal(seen, 1);
	json_decref(j);
}

/* The guest (real domains, not dom0) of a fixture, from summary --json of
 * the .xt.xz itself: exits closed, injections, the IPIs it sent. */
struct gfig {
	json_int_t exits, inj, inj_irq, ipis;
	char path[16];
};

static void guest_fig(const char *xz, struct gfig *g)
{
	json_t *j, *doms, *d;
	json_error_t e;
	size_t i;
	int n = 0;

	memset(g, 0, sizeof(*g));
	assert_int_equal(run("summary", "--json", xz, NULL), 0);
	assert_non_null(j = json_loads(out, 0, &e));
	doms = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(j, "files"), 0),
			       "hvm"), "guests"), "domains");
	json_array_foreach(doms, i, d) {
		json_int_t dom = json_integer_value(json_object_get(d, "domain"));

		if (dom == 0 || json_is_true(json_object_get(d, "default_domain")))
			continue;
		n++;
		g->exits = json_integer_value(json_object_get(d, "exits_closed"));
		g->inj = json_integer_value(json_object_get(json_object_get(d, "injections"), "all"));
		g->inj_irq = json_integer_value(json_object_get(json_object_get(d, "injections"), "interrupts"));
		g->ipis = json_integer_value(json_object_get(json_object_get(d, "ipis"), "sent"));
		snprintf(g->path, sizeof(g->path), "%s", json_string_value(json_object_get(d, "ipi_path")));
		/* the denominator is named, and the ratio is count over it */
		assert_string_equal(json_string_value(json_object_get(json_object_get(d, "per_ipi"),
								      "denominator")), "ipis.sent");
		assert_true(fabs(json_real_value(json_object_get(json_object_get(d, "per_ipi"), "exits")) -
				 (double)g->exits / (double)g->ipis) < 1e-9);
	}
	assert_int_equal(n, 1);
	json_decref(j);
}

static json_t *prow(json_t *rows, const char *name, const char *per)
{
	size_t i;
	json_t *r;

	json_array_foreach(rows, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "name")), name) &&
		    !strcmp(json_string_value(json_object_get(r, "per")), per))
			return r;
	fail_msg("no per-IPI row %s per %s", name, per);
	return NULL;
}

/* diff's "per IPI" rows on the two paths' fixtures, read as .xt.xz:
 * each side's count over its own denominator, and which way it moved. */
static void test_diff_per_ipi(void **st)
{
	static const char ka[] = "probes/tests/data/hvm-pvh-ipbipi-kernel-sched.xt.xz";
	static const char kb[] = "probes/tests/data/hvm-pvh-ipbipi-apic-sched.xt.xz";
	struct gfig a, b;
	json_t *j, *rows, *r;
	json_error_t e;
	size_t i;
	char line[160];

	(void)st;
	guest_fig(ka, &a);
	guest_fig(kb, &b);
	assert_string_equal(a.path, "evtchn");
	assert_string_equal(b.path, "apic");
	assert_int_equal(run("diff", "--json", ka, kb, NULL), 0);
	assert_non_null(j = json_loads(out, 0, &e));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "per_ipi"), "ipis_a")), a.ipis);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "per_ipi"), "ipis_b")), b.ipis);
	rows = json_object_get(json_object_get(j, "per_ipi"), "rows");
	r = prow(rows, "exits", "IPI sent");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "a"), "count")), a.exits);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "a"), "denominator")), a.ipis);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "b"), "count")), b.exits);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "b"), "denominator")), b.ipis);
	r = prow(rows, "exits", "interrupt");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "a"), "denominator")), a.inj_irq);
	r = prow(rows, "injections", "IPI sent");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "b"), "count")), b.inj);
	/* every row's direction is its two exact ratios' */
	json_array_foreach(rows, i, r) {
		json_int_t na = json_integer_value(json_object_get(json_object_get(r, "a"), "count"));
		json_int_t da = json_integer_value(json_object_get(json_object_get(r, "a"), "denominator"));
		json_int_t nb = json_integer_value(json_object_get(json_object_get(r, "b"), "count"));
		json_int_t db = json_integer_value(json_object_get(json_object_get(r, "b"), "denominator"));
		const char *mv = json_string_value(json_object_get(r, "moved"));

		assert_true(da > 0 && db > 0);
		assert_string_equal(mv, nb * da > na * db ? "up" : nb * da < na * db ? "down" : "flat");
	}
	json_decref(j);
	/* the table says the same, with its denominators */
	assert_int_equal(run("diff", ka, kb, NULL), 0);
	assert_non_null(strstr(out, "per IPI and per interrupt"));
	snprintf(line, sizeof(line), "%-28s %-10s %10lld %10lld %10lld %10lld", "exits", "IPI sent",
		 (long long)a.exits, (long long)a.ipis, (long long)b.exits, (long long)b.ipis);
	assert_non_null(strstr(out, line));
	/* summary's text names the path and the denominators */
	assert_int_equal(run("summary", kb, NULL), 0);
	snprintf(line, sizeof(line), "path apic, %lld IPIs sent;", (long long)b.ipis);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "not the sub-op"));
	/* an xz file and its unpacked bytes: the same summary */
	{
		char cmd[600], *z;

		snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", kb, pa);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(run("summary", "--json", kb, NULL), 0);
		z = strdup(out);
		assert_int_equal(run("summary", "--json", pa, NULL), 0);
		json_t *x = json_loads(z, 0, &e), *y = json_loads(out, 0, &e);
		json_t *fx = json_array_get(json_object_get(x, "files"), 0);
		json_t *fy = json_array_get(json_object_get(y, "files"), 0);

		json_object_del(fx, "file");
		json_object_del(fy, "file");
		assert_true(json_equal(fx, fy));
		json_decref(x);
		json_decref(y);
		free(z);
	}
}

static void test_ipi_text(void **st)
{
	const char *a = pa;
	struct xtb x;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 39, 39, 4000);
	xtb_chunk(&x, 1);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 3000, 0xf1);
	xtb_end(&x);
	write_file(a, &x);
	free(x.b);
	assert_int_equal(run("ipi", "--tsc-khz", "2000000", a, NULL), 0);
	assert_non_null(strstr(out, "physical"));
	assert_non_null(strstr(out, "39.00 ICR writes per op"));
	assert_non_null(strstr(out, "1000"));	/* 2000 cycles at 2 GHz = 1000 ns */
	assert_non_null(strstr(out, "physical     0xf1     39          1        39.00"));
}

/* Lines in out (each message is one line). */
static int lines(void)
{
	int n = 0;

	for (const char *p = out; *p; p++)
		n += *p == '\n';
	return n;
}

/* Empty, chunkless and record-less files: every subcommand refuses them
 * alike, exit 1 and one line naming the file. */
static void test_nothing_to_analyse(void **st)
{
	const char *a = pa, *b = pb;
	char e[96], h[96], g[96];
	const char *subs[] = { "summary", "ipi", "irq" };
	struct xtb x;
	FILE *f;

	(void)st;
	snprintf(e, sizeof(e), "%s/empty.xt", tu_dir);
	snprintf(h, sizeof(h), "%s/chunks-only.xt", tu_dir);
	snprintf(g, sizeof(g), "%s/text.xt", tu_dir);
	assert_int_equal(tu_write(e, ""), 0);	/* 0 bytes */
	xtb_init(&x);			/* two chunks, no record in them */
	xtb_chunk(&x, 0);
	xtb_end(&x);
	xtb_chunk(&x, 1);
	xtb_end(&x);
	write_file(h, &x);
	free(x.b);
	f = fopen(g, "wb");
	assert_non_null(f);
	fputs("not a trace at all\n", f);
	fclose(f);
	make_profiles(a, b);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(run(subs[i], e, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, e));
		assert_non_null(strstr(out, "empty file"));
		assert_int_equal(run(subs[i], "--json", e, NULL), 1);
		assert_non_null(strstr(out, "empty file"));
		assert_int_equal(run(subs[i], h, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, h));
		assert_non_null(strstr(out, "no trace records"));
		assert_int_equal(run(subs[i], g, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, g));
		assert_non_null(strstr(out, "not a xentrace file"));
		/* A good file beside it is still read; the status says one failed. */
		assert_int_equal(run(subs[i], a, e, NULL), 1);
		assert_non_null(strstr(out, a));
		assert_non_null(strstr(out, e));
	}
	assert_int_equal(run("diff", a, e, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, e));
	assert_int_equal(run("diff", h, b, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, "no trace records"));
	assert_int_equal(run("diff", a, b, NULL), 0);
}

/* --top and --tsc-khz refuse numbers out of range with one line. */
static void test_numbers_out_of_range(void **st)
{
	const char *a = pa, *b = pb;
	const char *bad_top[] = { "-1", "4294967296", "18446744073709551617", "", "1x", "+3",
				  " 2", "abc" };
	const char *bad_khz[] = { "0", "-5", "nan", "inf", "1e10", "1e400", "", "2GHz" };

	(void)st;
	make_profiles(a, b);
	for (size_t i = 0; i < sizeof(bad_top) / sizeof(bad_top[0]); i++) {
		assert_int_equal(run("diff", "--top", bad_top[i], a, b, NULL), 2);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "--top wants a whole number from 0 to 4294967295"));
	}
	for (size_t i = 0; i < sizeof(bad_khz) / sizeof(bad_khz[0]); i++) {
		assert_int_equal(run("ipi", "--tsc-khz", bad_khz[i], a, NULL), 2);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "--tsc-khz wants"));
	}
	/* In range: 1 row and the rest counted; the largest; 0 = all. */
	assert_int_equal(run("diff", "--top", "1", a, b, NULL), 0);
	assert_non_null(strstr(out, "INJ_VIRQ"));
	assert_null(strstr(out, "VMEXIT"));
	assert_non_null(strstr(out, "more rows; --top 0 shows all"));
	assert_int_equal(run("diff", "--top", "4294967295", a, b, NULL), 0);
	assert_non_null(strstr(out, "VMEXIT"));
	assert_null(strstr(out, "more rows"));
	assert_int_equal(run("diff", "--top", "0", a, b, NULL), 0);
	assert_non_null(strstr(out, "NPF"));
}

/* Options getopt_long accepts (abbreviations, --opt=value, after the files)
 * are never taken for file names; "--" ends the options. */
static void test_options_are_not_files(void **st)
{
	const char *a = pa, *b = pb;
	struct xtb x;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 39, 39, 4000);
	xtb_end(&x);
	write_file(a, &x);
	free(x.b);
	assert_int_equal(run("ipi", "--tsc", "2000000", a, NULL), 0);
	assert_non_null(strstr(out, "(TSC 2000000 kHz)"));
	assert_null(strstr(out, "No such file"));
	assert_int_equal(run("ipi", a, "--tsc-k", "2000000", NULL), 0);
	assert_non_null(strstr(out, "(TSC 2000000 kHz)"));
	assert_int_equal(run("ipi", "--tsc-khz=2000000", a, "--js", NULL), 0);
	assert_non_null(strstr(out, "\"tsc_khz\": 2000000"));
	make_profiles(a, b);
	assert_int_equal(run("diff", "--to", "1", a, b, NULL), 0);
	assert_non_null(strstr(out, "more rows"));
	/* Three files for diff, with "--top 1" between them: a usage error. */
	assert_int_equal(run("diff", a, "--top", "1", b, a, NULL), 2);
	assert_non_null(strstr(out, "usage: ipibench trace diff"));
	/* "--" ends the options: "--json" is then a (missing) file. */
	assert_int_equal(run("summary", a, "--", "--json", NULL), 1);
	assert_non_null(strstr(out, "--json"));
	/* Ambiguous or valueless: refused with one line, not read as files. */
	assert_int_equal(run("ipi", a, "--t", "5", NULL), 2);
	assert_int_equal(lines(), 1);
	assert_int_equal(run("diff", a, b, "--top", NULL), 2);
	assert_int_equal(lines(), 1);
}

/* ---- diff --reference: the seed's profiles beside two measured traces ---- */

#define SEED_REF "results/reference/seed-004.json"

/* probes/tests/data/NAME.xt.xz unpacked into the group's directory. */
static void unpack(const char *name, char *path, size_t len)
{
	char cmd[600];

	snprintf(path, len, "%s/%s.xt", tu_dir, name);
	snprintf(cmd, sizeof(cmd), "xz -dc 'probes/tests/data/%s.xt.xz' > '%s'", name, path);
	assert_int_equal(system(cmd), 0);
}

static json_t *row_named(json_t *rows, const char *name)
{
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *r = json_array_get(rows, i);

		if (!strcmp(json_string_value(json_object_get(r, "name")), name))
			return r;
	}
	fail_msg("no row %s", name);
	return NULL;
}

/* The event counts of `trace summary --json FILE`, name -> count. */
static json_t *summary_counts(const char *file)
{
	json_t *j, *ev, *m = json_object();
	json_error_t e;

	assert_int_equal(run("summary", "--json", file, NULL), 0);
	assert_non_null(j = json_loads(out, 0, &e));
	ev = json_object_get(json_array_get(json_object_get(j, "files"), 0), "events");
	for (size_t i = 0; i < json_array_size(ev); i++)
		json_object_set(m, json_string_value(json_object_get(json_array_get(ev, i), "name")),
				json_object_get(json_array_get(ev, i), "count"));
	json_decref(j);
	return m;
}

static const char *dir_of(json_t *r, const char *kind, const char *side)
{
	json_t *v = json_object_get(json_object_get(json_object_get(r, "direction"), kind), side);

	return json_is_string(v) ? json_string_value(v) : "(null)";
}

/* The kernel path (event channels) as before, the APIC path as after, the
 * seed-mask traces of the ipbipi guest (docs/guests.md): every measured row is trace summary's count of its file, every
 * seed column is the reference file's, and the directions are those of
 * the numbers.  Under emulation the seed's collapse of INJ_VIRQ and
 * INTR_WINDOW does not appear: per exit they go up, the other way. */
static void test_diff_reference(void **st)
{
	char ka[300], ab[300];
	json_t *j, *rows, *ref, *sa, *sb, *r, *dirs;
	json_error_t e;
	const char *seedonly[] = { "CPUID", "NPF", "TRAP", "vlapic_accept_pic_intr" };

	(void)st;
	unpack("hvm-pvh-ipbipi-kernel", ka, sizeof(ka));
	unpack("hvm-pvh-ipbipi-apic", ab, sizeof(ab));
	sa = summary_counts(ka);
	sb = summary_counts(ab);
	assert_non_null(ref = json_load_file(SEED_REF, 0, &e));

	/* --reference: the old spelling of --guest-reference, still taken */
	assert_int_equal(run("diff", ka, ab, "--reference", SEED_REF, "--json", NULL), 0);
	assert_non_null(j = json_loads(out, 0, &e));
	rows = json_object_get(j, "rows");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "reference"), "name")),
			    "seed-004");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "reference"), "note")),
			       "nothing is per IPI"));
	/* Every row of the reference, on both sides, is in the diff with the
	 * file's counts. */
	for (int side = 0; side < 2; side++) {
		json_t *ev = json_object_get(json_object_get(json_object_get(ref, "profiles"),
							     side ? "after" : "before"), "events");

		assert_int_equal(json_array_size(ev), 13);
		for (size_t i = 0; i < json_array_size(ev); i++) {
			json_t *e1 = json_array_get(ev, i);

			r = row_named(rows, json_string_value(json_object_get(e1, "name")));
			assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "seed"),
									    side ? "after" : "before")),
					 json_integer_value(json_object_get(e1, "count")));
		}
	}
	/* Every measured row is trace summary's count; the rows neither trace
	 * has are "-" (null) measured. */
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const char *name;

		r = json_array_get(rows, i);
		name = json_string_value(json_object_get(r, "name"));
		if (json_is_null(json_object_get(r, "a"))) {
			assert_null(json_object_get(sa, name));
			assert_null(json_object_get(sb, name));
			assert_true(json_is_null(json_object_get(r, "b")));
			continue;
		}
		assert_int_equal(json_integer_value(json_object_get(r, "a")),
				 json_is_integer(json_object_get(sa, name)) ?
				 json_integer_value(json_object_get(sa, name)) : 0);
		assert_int_equal(json_integer_value(json_object_get(r, "b")),
				 json_is_integer(json_object_get(sb, name)) ?
				 json_integer_value(json_object_get(sb, name)) : 0);
	}
	/* The rows of the finding. */
	r = row_named(rows, "INJ_VIRQ");
	assert_int_equal(json_integer_value(json_object_get(r, "a")), 1965);
	assert_int_equal(json_integer_value(json_object_get(r, "b")), 244);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "seed"), "before")), 64067);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "seed"), "after")), 174);
	assert_string_equal(dir_of(r, "count", "seed"), "down");
	assert_string_equal(dir_of(r, "count", "measured"), "down");
	assert_string_equal(dir_of(r, "count", "verdict"), "same");
	assert_string_equal(dir_of(r, "per_exit", "seed"), "down");
	assert_string_equal(dir_of(r, "per_exit", "measured"), "up");
	assert_string_equal(dir_of(r, "per_exit", "verdict"), "opposite");
	assert_true(json_real_value(json_object_get(json_object_get(r, "per_exit_ratio"), "seed")) < 0.01);
	assert_true(json_real_value(json_object_get(json_object_get(r, "per_exit_ratio"), "measured")) > 1);
	r = row_named(rows, "INTR_WINDOW");
	assert_string_equal(dir_of(r, "per_exit", "verdict"), "opposite");
	r = row_named(rows, "HLT");	/* 34638 -> 36542 in the seed, fewer measured */
	assert_string_equal(dir_of(r, "count", "seed"), "up");
	assert_string_equal(dir_of(r, "count", "verdict"), "opposite");
	r = row_named(rows, "VMEXIT");
	assert_string_equal(dir_of(r, "per_exit", "verdict"), "unchanged");
	r = row_named(rows, "RDTSC");	/* measured only: no seed columns */
	assert_null(json_object_get(r, "seed"));
	for (size_t i = 0; i < 4; i++) {
		r = row_named(rows, seedonly[i]);
		assert_true(json_is_null(json_object_get(r, "a")));
		assert_string_equal(dir_of(r, "count", "verdict"), "no measured counterpart");
	}
	r = row_named(rows, "CPUID");	/* 260 -> 260 */
	assert_string_equal(dir_of(r, "count", "seed"), "flat");
	dirs = json_object_get(json_object_get(j, "directions"), "count");
	assert_int_equal(json_array_size(json_object_get(dirs, "no_measured_counterpart")), 4);
	assert_int_equal(json_array_size(json_object_get(dirs, "opposite")), 1);
	json_decref(j);

	/* The table: the seed's columns beside the measured ones, "-" where
	 * nothing was measured, the direction lines and the note. */
	assert_int_equal(run("diff", ka, ab, "--guest-reference", SEED_REF, NULL), 0);
	assert_non_null(strstr(out, "seed before"));
	assert_non_null(strstr(out, "reference: " SEED_REF " (seed-004: Boris Ostrovsky"));
	assert_non_null(strstr(out, "\nINJ_VIRQ                             1965          244        -1721"
				    "    0.124        64067          174    0.003     0.005     1.044  down/down same\n"));
	assert_non_null(strstr(out, "\nvlapic_accept_pic_intr                  -            -            -"
				    "        -       370610       381812    1.030     1.903         -  up/- no measured counterpart\n"));
	assert_non_null(strstr(out, "    opposite: HLT (up/down)\n"));
	assert_non_null(strstr(out, "INJ_VIRQ (down/up)"));
	assert_non_null(strstr(out, "nothing is per IPI or per interrupt here"));
	/* --top keeps the direction lines whole. */
	assert_int_equal(run("diff", ka, ab, "--guest-reference", SEED_REF, "--top", "2", NULL), 0);
	assert_non_null(strstr(out, "more rows"));
	assert_non_null(strstr(out, "vlapic_accept_pic_intr (up/-)"));
	/* Only diff takes it. */
	assert_int_equal(run("summary", ka, "--guest-reference", SEED_REF, NULL), 2);
	json_decref(sa);
	json_decref(sb);
	json_decref(ref);
	unlink(ka);
	unlink(ab);
}

/* A broken reference is refused before any trace is read: exit 1, one line
 * naming the file and the JSON path. */
static void test_diff_reference_refused(void **st)
{
	char bad[200];
	json_t *ref;
	json_error_t e;

	(void)st;
	make_profiles(pa, pb);
	snprintf(bad, sizeof(bad), "%s/bad-ref.json", tu_dir);
	assert_non_null(ref = json_load_file(SEED_REF, 0, &e));
	json_integer_set(json_object_get(json_array_get(json_object_get(json_object_get(
		json_object_get(ref, "profiles"), "after"), "events"), 3), "count"), -174);
	assert_int_equal(json_dump_file(ref, bad, 0), 0);
	json_decref(ref);
	assert_int_equal(run("diff", pa, pb, "--reference", bad, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, bad));
	assert_non_null(strstr(out, "$.profiles.after.events[3].count: -174 is negative"));
	assert_int_equal(run("diff", pa, pb, "--reference", "/nonexistent/ref.json", "--json", NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, "/nonexistent/ref.json"));
	/* Not a reference profile: the flush_tlb_all reference. */
	assert_int_equal(run("diff", pa, pb, "--reference", "results/reference/seed-96cpu.json", NULL), 1);
	assert_non_null(strstr(out, "seed-96cpu.json: $.workload_type: \"hvm_profile\" expected"));
	unlink(bad);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * What is not a trace file is refused at once, in one line, by every
 * subcommand: a FIFO (opening it used to wait for a writer for ever), a
 * directory, a device, a 64 GiB sparse file (more than the bound: it
 * kept summary busy past 20 s) and a sparse file under the bound (the
 * hole's offset named).
 */
static void test_not_trace_files(void **st)
{
	char fifo[128], big[128], holes[128], tail[128];
	const char *subs[] = { "summary", "ipi", "irq" };
	struct xtb x;
	double t0;
	int fd;

	(void)st;
	snprintf(fifo, sizeof(fifo), "%s/fifo.xt", tu_dir);
	snprintf(big, sizeof(big), "%s/big.xt", tu_dir);
	snprintf(holes, sizeof(holes), "%s/holes.xt", tu_dir);
	snprintf(tail, sizeof(tail), "%s/tail.xt", tu_dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64ll << 30), 0);
	close(fd);
	fd = open(holes, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1ll << 30), 0);
	close(fd);
	make_profiles(pa, pb);
	/* A trace, then 1 GiB more of nothing: the hole where it stops. */
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 5);
	xtb_end(&x);
	write_file(tail, &x);
	free(x.b);
	assert_int_equal(truncate(tail, (1ll << 30) + 4096), 0);
	alarm(20);	/* a hang fails the test instead of stalling it */
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(run(subs[i], fifo, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "fifo.xt: not a regular file"));
		assert_int_equal(run(subs[i], tu_dir, NULL), 1);
		assert_non_null(strstr(out, "not a regular file"));
		assert_int_equal(run(subs[i], "/dev/null", NULL), 1);
		assert_non_null(strstr(out, "/dev/null: not a regular file"));
		t0 = now_s();
		assert_int_equal(run(subs[i], big, NULL), 1);
		assert_true(now_s() - t0 < 0.5);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "68719476736 bytes, more than the 8589934592"));
		assert_non_null(strstr(out, "--max-gib"));
		t0 = now_s();
		assert_int_equal(run(subs[i], holes, NULL), 1);
		assert_true(now_s() - t0 < 0.5);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "holes.xt: offset 0: a hole of unwritten bytes"));
		assert_int_equal(run(subs[i], tail, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "tail.xt: offset "));
		assert_non_null(strstr(out, ": a hole of unwritten bytes"));
	}
	assert_int_equal(run("diff", pa, fifo, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, "not a regular file"));
	assert_int_equal(run("diff", big, pb, NULL), 1);
	assert_int_equal(lines(), 1);
	/* The bound is an option: whole GiB, decimal, 1 to 1024. */
	assert_int_equal(run("summary", "--max-gib", "1024", big, NULL), 1);
	assert_non_null(strstr(out, "a hole of unwritten bytes"));
	assert_int_equal(run("summary", "--max-gib", "1", pa, NULL), 0);
	{
		const char *bad[] = { "0", "1025", "0x10", "1e1", "1.5", "-1", " 8", "" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(run("summary", "--max-gib", bad[i], pa, NULL), 2);
			assert_int_equal(lines(), 1);
			assert_non_null(strstr(out, "--max-gib wants a whole decimal number"));
		}
	}
	alarm(0);
	unlink(big);
	unlink(holes);
	unlink(tail);
	unlink(fifo);
}

/* An .xz file that unpacks to zeros is refused at the first 64 KiB block
 * of them, before it fills 2 GiB of memory. */
static void test_xz_zeros(void **st)
{
	size_t n = 8u << 20, cap = 1u << 20, outlen = 0;
	uint8_t *zeros = calloc(1, n), *xz = malloc(cap);
	char p[128];
	FILE *f;

	(void)st;
	assert_non_null(zeros);
	assert_non_null(xz);
	assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, zeros, n, xz,
						 &outlen, cap), LZMA_OK);
	snprintf(p, sizeof(p), "%s/zeros.xt.xz", tu_dir);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(xz, 1, outlen, f), outlen);
	fclose(f);
	assert_int_equal(run("summary", p, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, "zeros.xt.xz: xz: unpacked offset 0: 65536 zero bytes: "
				    "not a xentrace file"));
	free(zeros);
	free(xz);
	unlink(p);
}

/*
 * File names reach the terminal quoted and escaped (an escape sequence
 * and a newline used to clear the screen and forge a line), and JSON
 * keeps a name that is not UTF-8 as \xNN text (it used to vanish:
 * {"files":[]}, and diff --json exited 1 with no message).
 */
static void test_names_escaped(void **st)
{
	char evil[160], missing[160];
	const char *subs[] = { "summary", "ipi", "irq" };
	json_t *j;
	json_error_t je;

	(void)st;
	snprintf(evil, sizeof(evil), "%s/x\033[2J\nfake line\xff.xt", tu_dir);
	snprintf(missing, sizeof(missing), "%s/gone\033]0;t\007\n.xt", tu_dir);
	make_profiles(evil, pb);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(run(subs[i], evil, NULL), 0);
		assert_null(strchr(out, '\033'));
		assert_non_null(strstr(out, "x\\x1b[2J\\x0afake line\\xff.xt"));
		assert_int_equal(run(subs[i], missing, NULL), 1);
		assert_int_equal(lines(), 1);
		assert_null(strchr(out, '\033'));
		assert_null(strchr(out, '\007'));
		assert_non_null(strstr(out, "gone\\x1b]0;t\\x07\\x0a.xt"));
		assert_int_equal(run(subs[i], "--json", evil, NULL), 0);
		j = json_loads(out, 0, &je);
		assert_non_null(j);
		assert_int_equal(json_array_size(json_object_get(j, "files")), 1);
		assert_non_null(strstr(json_string_value(json_object_get(
			json_array_get(json_object_get(j, "files"), 0), "file")),
			"x\033[2J\nfake line\\xff.xt"));
		json_decref(j);
	}
	assert_int_equal(run("diff", evil, pb, NULL), 0);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "A: \""));
	assert_int_equal(run("diff", "--json", evil, pb, NULL), 0);
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "a"), "file")),
			       "fake line\\xff.xt"));
	json_decref(j);
	unlink(evil);
}

/* --tsc-khz is a decimal whole number of kHz in range (0x10, 1e3 and 1.5
 * used to pass); the file's own apic:tsc_khz record out of that range is
 * ignored, with a message naming its offset. */
static void test_tsc_khz_decimal(void **st)
{
	const char *bad[] = { "0x10", "1e3", "1.5", "999", "100000001", "010x", "+2000000",
			      "2000000 " };
	const uint32_t bad_rec[] = { 0, 1, 999, 100000001, 0xffffffffu };
	struct xtb x;

	(void)st;
	make_profiles(pa, pb);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run("ipi", "--tsc-khz", bad[i], pa, NULL), 2);
		assert_int_equal(lines(), 1);
		assert_non_null(strstr(out, "--tsc-khz wants a whole decimal number of kHz from "
					    "1000 to 100000000"));
	}
	assert_int_equal(run("ipi", "--tsc-khz", "1000", pa, NULL), 0);
	assert_int_equal(run("ipi", "--tsc-khz", "100000000", pa, NULL), 0);
	for (size_t i = 0; i < sizeof(bad_rec) / sizeof(bad_rec[0]); i++) {
		xtb_init(&x);
		xtb_chunk(&x, 0);
		XTB_REC(&x, IPB_TRC_APIC_TSC_KHZ, 0, bad_rec[i]);
		XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 1, 1, 4000);
		xtb_end(&x);
		write_file(pa, &x);
		free(x.b);
		assert_int_equal(run("ipi", pa, NULL), 0);
		assert_non_null(strstr(out, "offset 12: apic:tsc_khz record says"));
		assert_non_null(strstr(out, "TSC frequency unknown"));
		assert_int_equal(run("ipi", "--strict", pa, NULL), 1);
		assert_int_equal(run("ipi", "--json", pa, NULL), 0);
		assert_non_null(strstr(out, "\"tsc_khz\": null"));
	}
	/* In range, it is used. */
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_TSC_KHZ, 0, 2000000);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 1, 1, 4000);
	xtb_end(&x);
	write_file(pa, &x);
	free(x.b);
	assert_int_equal(run("ipi", "--strict", pa, NULL), 0);
	assert_non_null(strstr(out, "TSC 2000000 kHz"));
}

/* Zero bytes written where a chunk should start (a zero-filled file, the
 * tail a crash leaves): the walker stops at the first 64 KiB of them,
 * naming the offset, instead of scanning on; a file of zeros has no chunk
 * and is refused in one line. */
static void test_zero_runs(void **st)
{
	char zeros[128], tail[128];
	struct xtb x;
	FILE *f;
	size_t len;

	(void)st;
	snprintf(zeros, sizeof(zeros), "%s/zeros.xt", tu_dir);
	snprintf(tail, sizeof(tail), "%s/zero-tail.xt", tu_dir);
	uint8_t *z = calloc(1, 16u << 20);
	assert_non_null(z);
	f = fopen(zeros, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(z, 1, 16u << 20, f), 16u << 20);
	fclose(f);
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 5);
	xtb_end(&x);
	len = x.len;
	xtb_put(&x, z, 1u << 20);
	write_file(tail, &x);
	free(x.b);
	free(z);
	assert_int_equal(run("summary", zeros, NULL), 1);
	assert_int_equal(lines(), 1);
	assert_non_null(strstr(out, "zeros.xt: not a xentrace file: no cpu_change record from "
				    "offset 0"));
	assert_int_equal(run("summary", tail, NULL), 0);
	char want[160];
	snprintf(want, sizeof(want), "zero-tail.xt: offset %zu: 65536 zero bytes where a "
		 "cpu_change record was expected: no trace from here on, the last 1048576 "
		 "bytes skipped", len);
	assert_non_null(strstr(out, want));
	assert_int_equal(run("summary", "--strict", tail, NULL), 1);
	assert_int_equal(run("ipi", tail, NULL), 0);
	assert_non_null(strstr(out, want));
	assert_int_equal(run("irq", tail, NULL), 0);
	assert_non_null(strstr(out, want));
	unlink(zeros);
	unlink(tail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_and_usage),
		cmocka_unit_test(test_summary_json_and_errors),
		cmocka_unit_test(test_strict),
		cmocka_unit_test_teardown(test_hvm_env, unset_hvm_env),
		cmocka_unit_test(test_diff_table),
		cmocka_unit_test(test_diff_hvm_fixtures),
		cmocka_unit_test(test_diff_per_ipi),
		cmocka_unit_test(test_ipi_text),
		cmocka_unit_test(test_nothing_to_analyse),
		cmocka_unit_test(test_numbers_out_of_range),
		cmocka_unit_test(test_options_are_not_files),
		cmocka_unit_test(test_diff_reference),
		cmocka_unit_test(test_diff_reference_refused),
		cmocka_unit_test(test_not_trace_files),
		cmocka_unit_test(test_xz_zeros),
		cmocka_unit_test(test_names_escaped),
		cmocka_unit_test(test_tsc_khz_decimal),
		cmocka_unit_test(test_zero_runs),
	};

	return cmocka_run_group_tests(tests, setup, tu_teardown);
}
