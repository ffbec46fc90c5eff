/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/tests/test_report_plots.c: the report's plots say what is true.
 * The ICR chart on the kept 96-CPU results (paired senders per routine, no
 * group for a workload that wrote no ICR); the send-to-receive timeline on
 * a run directory made of probes/tests/data's real agent traces, against
 * the trace reader and against an oracle written from the pairing rule;
 * hostile traces.
 */
#include <libgen.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "ipibench/apic-trace.h"
#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"
#include "probes/probes.h"
#include "probes/trace.h"

#define SEED96 "results/history/seed-96cpu-20261201"
#define XT "probes/tests/data"

static char *find_dat(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *p = NULL;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".dat"))
			p = path2(dir, e->d_name);
	if (d)
		closedir(d);
	return p;
}

static int report(const char *out, const char *in)
{
	char *argv[] = { "report", "-q", "--no-reference", "-o", (char *)out, (char *)in, NULL };
	return run_quiet(cmd_report, argv);
}

/* ---- the ICR chart ------------------------------------------------------- */
static void icr_chart_per_routine(void **state)
{
	char *o = *state;
	assert_int_equal(report(o, SEED96), 0);
	char *dat = find_dat(o, "icr-");
	assert_non_null(dat);
	/* each routine its own group; the pooled mean (50.5) nowhere; the
	 * vector workload, which sends nothing, no group */
	expect_in_file(dat, "\nflush 95 6 6\n", "\nflush-senders-physical 95 95 95\n",
		       "\nflush-senders-cluster 6 6 6\n", "\nflush-aa-cluster 6 6 6\n");
	expect_not_in_file(dat, "50.5", "\nvectors ", "\nflush-senders ");
	free(dat);
	char *md = path2(o, "report.md");
	expect_in_file(md, "Not drawn: vectors (no ICR write in any mode).",
		       "one group per send routine, `WORKLOAD/ROUTINE`");
	free(md);
}

/* The same results without counters_by_sender: the paired workload has no
 * figure per routine, so it is left out, not drawn as the pooled mean. */
static void paired_without_by_sender_left_out(void **state)
{
	char *o = *state, *in = tmp_subdir(o, "in"), *out = tmp_subdir(o, "out");
	json_error_t je;
	json_t *root = json_load_file(SEED96 "/results.json", 0, &je), *run, *w;
	size_t i, j;
	assert_non_null(root);
	json_array_foreach(json_object_get(root, "runs"), i, run)
		json_array_foreach(json_object_get(run, "workloads"), j, w)
			json_object_del(w, "counters_by_sender");
	char *p = path2(in, "results.json");
	assert_int_equal(json_dump_file(root, p, 0), 0);
	json_decref(root);
	assert_int_equal(report(out, p), 0);
	char *dat = find_dat(out, "icr-");
	assert_non_null(dat);
	expect_not_in_file(dat, "50.5", "flush-senders", "vectors");
	expect_in_file(dat, "\nflush 95 6 6\n");
	free(dat);
	char *md = path2(out, "report.md");
	expect_in_file(md, "flush-senders (paired, without counters_by_sender)",
		       "flush-aa (paired, without counters_by_sender)");
	free(md);
	free(p);
	free(in);
	free(out);
}

/* counters_by_sender and trace are validated where read. */
static void refused_in_results(void **state)
{
	char *o = *state;
	static const char *const bad[] = {
		"\"counters_by_sender\": {\"warp\": {\"operations\": 1, \"icr_writes\": 1}}",
		"\"counters_by_sender\": {\"cluster\": {\"operations\": -1, \"icr_writes\": 1}}",
		"\"counters_by_sender\": []",
		"\"trace\": \"../etc/passwd\"",
		"\"trace\": \"/abs/t.xt\"",
		"\"trace\": 7",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char *p = path2(o, "results.json");
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "{\"schema_version\": 1, \"host\": {\"backend\": \"qemu\", \"name\": \"h\", "
			"\"cpus\": 4}, \"runs\": [{\"id\": \"physical-r0\", \"mode\": \"physical\", "
			"\"status\": \"ok\", \"workloads\": [{\"name\": \"flush\", \"type\": "
			"\"flush_tlb_all\", \"status\": \"ok\", %s}]}]}\n", bad[k]);
		fclose(f);
		char *out = path2(o, "out");
		assert_int_equal(report(out, p), 1);
		rm_rf(out);
		free(out);
		free(p);
	}
}

/* ---- the timeline ---------------------------------------------------------- */
static void copy_file(const char *from, const char *to)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = fopen(from, "rb");
	assert_non_null(f);
	FILE *t = fopen(to, "wb");
	assert_non_null(t);
	char buf[65536];
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		assert_int_equal(fwrite(buf, 1, n, t), n);
	fclose(f);
	fclose(t);
	free(s);
}

/* DIR as a run directory: results.json with a flush workload in physical
 * and cluster mode and a flush_mask in physical mode, each naming its
 * trace in DIR/traces/ (the committed agent traces). */
static void make_run(const char *dir, const char *phys, const char *clus, const char *mask)
{
	char *tr = tmp_subdir(dir, "traces");
	const char *names[3] = { "physical-r0-flush.xtrace", "cluster-r0-flush.xtrace",
				 "physical-r0-flush-mask.xtrace" };
	const char *from[3] = { phys, clus, mask };
	for (size_t k = 0; k < 3; k++)
		if (from[k]) {
			char *p = path2(tr, names[k]);
			copy_file(from[k], p);
			free(p);
		}
	free(tr);
	json_t *runs = json_pack(
		"[{s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:{s:i, s:i}, s:s},"
		"{s:s, s:s, s:s, s:s, s:{s:i, s:i}, s:s}]},"
		" {s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:{s:i, s:i}, s:s}]}]",
		"id", "physical-r0", "mode", "physical", "genapic", "x2apic_phys", "status", "ok",
		"workloads", "name", "flush", "type", "flush_tlb_all", "status", "ok", "path",
		"genapic", "counters", "operations", 50, "icr_writes", 1950, "trace",
		"traces/physical-r0-flush.xtrace",
		"name", "flush-mask", "type", "flush_mask", "status", "ok", "path", "genapic",
		"counters", "operations", 50, "icr_writes", 150, "trace",
		"traces/physical-r0-flush-mask.xtrace",
		"id", "cluster-r0", "mode", "cluster", "genapic", "x2apic_cluster", "status", "ok",
		"workloads", "name", "flush", "type", "flush_tlb_all", "status", "ok", "path",
		"genapic", "counters", "operations", 50, "icr_writes", 150, "trace",
		"traces/cluster-r0-flush.xtrace");
	assert_non_null(runs);
	json_t *root = json_pack("{s:i, s:s, s:{s:s, s:s, s:b, s:i}, s:o}", "schema_version", 1,
				 "created", "2026-11-30T09:00:00Z", "host", "backend", "qemu",
				 "name", "agent", "emulated", 1, "cpus", 40, "runs", runs);
	char *p = path2(dir, "results.json");
	assert_int_equal(json_dump_file(root, p, JSON_INDENT(1)), 0);
	json_decref(root);
	free(p);
}

/* The lines of index IDX (blocks parted by two blank lines) of a .dat. */
static size_t dat_rows(const char *path, int idx)
{
	char *s = slurp(path);
	assert_non_null(s);
	size_t rows = 0;
	int cur = 0;
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "# index ", 8)) {
			cur = atoi(l + 8);
			continue;
		}
		if (*l != '#' && cur == idx)
			rows++;
	}
	free(s);
	return rows;
}

static json_t *timeline_of(json_t *rep, const char *workload, const char *mode)
{
	size_t i;
	json_t *b;
	json_array_foreach(json_object_get(rep, "workloads"), i, b)
		if (!strcmp(json_string_value(json_object_get(b, "workload")), workload))
			return json_find(json_object_get(b, "timelines"), "mode", mode);
	return NULL;
}

/*
 * The oracle: the operations of FILE by the rule docs/reports.md states,
 * from the raw records (xt_merge, not the analysis): a CPU's ICR writes up
 * to its send record are one operation, a receive belongs to the
 * operation of its vector that last began before it; of the complete
 * operations of the widest send's most frequent (mode, vector), the
 * lower median of first record to last receive, in TSC cycles.
 */
struct orc_op {
	uint64_t first, last;
	uint32_t vec, dests, nrecv;
	int mode;
};
static uint64_t oracle_median(const char *file, size_t *nops, uint32_t *dests)
{
	struct xt_file f;
	struct xt_anom an = { 0 };
	char err[256];
	struct xt_rec r;
	assert_int_equal(xt_open(&f, file, 1u << 30, err, sizeof(err)), 0);
	struct xt_merge *m = xt_merge_open(&f, &an);
	assert_non_null(m);
	static struct orc_op ops[8192];
	static uint64_t cur[XT_MAX_CPUS];
	uint64_t start_op[256], start_tsc[256], n = 0;
	bool start_ok[256] = { 0 };
	memset(ops, 0, sizeof(ops));
	for (size_t c = 0; c < XT_MAX_CPUS; c++)
		cur[c] = UINT64_MAX;
	while (xt_merge_next(m, &r)) {
		uint32_t v;
		if (r.event == TRC_HW_APIC_ICR_WRITE || r.event == TRC_HW_APIC_SEND_IPI_MASK ||
		    r.event == TRC_HW_APIC_SEND_IPI_ALLBUT) {
			v = (r.event == TRC_HW_APIC_ICR_WRITE ? r.d[1] : r.d[0]) & 0xff;
			if (cur[r.cpu] == UINT64_MAX) {
				assert_true(n < 8192);
				cur[r.cpu] = n++;
				ops[cur[r.cpu]] = (struct orc_op){ .first = r.tsc, .mode = -1 };
				start_op[v] = cur[r.cpu];
				start_tsc[v] = r.tsc;
				start_ok[v] = true;
			}
			if (r.event != TRC_HW_APIC_ICR_WRITE) {
				struct orc_op *o = &ops[cur[r.cpu]];
				o->vec = v;
				o->dests = r.d[1];
				o->mode = r.event == TRC_HW_APIC_SEND_IPI_ALLBUT ? 2 :
					  (r.d[0] & TRC_HW_APIC_LOGICAL) ? 1 : 0;
				cur[r.cpu] = UINT64_MAX;
			}
		} else if (r.event == TRC_HW_APIC_IPI_RECV) {
			v = r.d[0] & 0xff;
			if (start_ok[v] && r.tsc >= start_tsc[v]) {
				ops[start_op[v]].nrecv++;
				if (r.tsc > ops[start_op[v]].last)
					ops[start_op[v]].last = r.tsc;
			}
		}
	}
	xt_merge_close(m);
	xt_unmap(&f);
	uint32_t wide = 0;
	for (uint64_t i = 0; i < n; i++)
		if (ops[i].mode >= 0 && ops[i].dests > wide)
			wide = ops[i].dests;
	size_t cnt[3][256] = { { 0 } }, best = 0;
	int bm = 0, bv = 0;
	for (uint64_t i = 0; i < n; i++)
		if (ops[i].mode >= 0 && ops[i].dests == wide && ops[i].nrecv == wide &&
		    ++cnt[ops[i].mode][ops[i].vec] > best) {
			best = cnt[ops[i].mode][ops[i].vec];
			bm = ops[i].mode;
			bv = (int)ops[i].vec;
		}
	uint64_t lat[8192];
	size_t k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (ops[i].mode == bm && (int)ops[i].vec == bv && ops[i].dests == wide &&
		    ops[i].nrecv == wide)
			lat[k++] = ops[i].last - ops[i].first;
	for (size_t a = 1; a < k; a++)	/* insertion sort */
		for (size_t b = a; b > 0 && lat[b - 1] > lat[b]; b--) {
			uint64_t t = lat[b];
			lat[b] = lat[b - 1];
			lat[b - 1] = t;
		}
	*nops = k;
	*dests = wide;
	assert_true(k > 0);
	return lat[(k - 1) / 2];
}

/* The events of a Chrome JSON export whose KEY is true. */
static size_t chrome_count(const json_t *root, const char *key)
{
	size_t i, n = 0;
	json_t *e;
	json_array_foreach(json_object_get(root, "traceEvents"), i, e)
		if (json_is_true(json_object_get(e, key)))
			n++;
	return n;
}

/* Timeline T (report.json) of the report in OUT (report.md: MD) links
 * PLOT.perfetto.json, the report's Chrome export of TRACE: there, JSON,
 * one arrow per receive trace ipi pairs with its operation, the run's
 * metadata; report.md's link to it resolves from report.md's folder. */
static void check_export(const char *out, const char *md, json_t *t, const char *plot,
			 const char *trace, const char *workload, const char *mode)
{
	char *name = xasprintf("%s.perfetto.json", plot);
	assert_string_equal(json_string_value(json_object_get(t, "export")), name);
	assert_null(json_object_get(t, "export_command"));
	assert_null(json_object_get(t, "export_warning"));
	char *link = xasprintf("[%s](%s)", name, name);
	expect_in_file(md, link, "Every operation of the trace, for Perfetto's UI");
	/* the link's target, from report.md's folder */
	char *mdc = xstrdup(md), *dir = dirname(mdc), *target = path2(dir, name);
	char *to = realpath(target, NULL), *want = path2(out, name), *wto = realpath(want, NULL);
	assert_non_null(to);
	assert_non_null(wto);
	assert_string_equal(to, wto);
	json_error_t je;
	json_t *root = json_load_file(want, 0, &je);
	if (!root)
		fail_msg("%s: %s (line %d)", want, je.text, je.line);
	struct xt_file f;
	struct tr_ipi a;
	char err[256];
	assert_int_equal(xt_open(&f, trace, 1u << 30, err, sizeof(err)), 0);
	assert_int_equal(tr_ipi_run(&a, &f), 0);
	assert_true(a.recv > a.unmatched);
	assert_int_equal(chrome_count(root, "flow_in"), a.recv - a.unmatched);
	tr_ipi_fini(&a);
	xt_unmap(&f);
	json_t *m = json_array_get(json_object_get(json_object_get(root, "metadata"), "files"), 0);
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "mode")), mode);
	assert_string_equal(json_string_value(json_object_get(m, "workload")), workload);
	assert_int_equal(json_integer_value(json_object_get(m, "flows")), a.recv - a.unmatched);
	json_decref(root);
	free(name);
	free(link);
	free(mdc);
	free(target);
	free(to);
	free(want);
	free(wto);
}

static void timeline_on_real_traces(void **state)
{
	char *o = *state, *run = tmp_subdir(o, "run"), *out = tmp_subdir(o, "out");
	make_run(run, XT "/agent-flush-phys40.xt", XT "/agent-flush-cluster40.xt",
		 XT "/agent-flush-mask-phys40.xt");
	/* a file beside a trace named as trace export would: not the report's */
	char *exp = path2(run, "traces/physical-r0-flush.xtrace.perfetto.json");
	copy_file(SEED96 "/results.json", exp);
	free(exp);
	assert_int_equal(report(out, run), 0);
	char *md = path2(out, "report.md");
	expect_not_in_file(md, "../run/traces/");
	char *jp = path2(out, "report.json");
	json_error_t je;
	json_t *rep = json_load_file(jp, 0, &je);
	free(jp);
	assert_non_null(rep);
	static const struct {
		const char *workload, *mode, *trace;
		int icr;
	} want[] = {
		{ "flush", "physical", XT "/agent-flush-phys40.xt", 39 },
		{ "flush", "cluster", XT "/agent-flush-cluster40.xt", 3 },
		{ "flush-mask", "physical", XT "/agent-flush-mask-phys40.xt", 3 },
	};
	for (size_t k = 0; k < 3; k++) {
		json_t *t = timeline_of(rep, want[k].workload, want[k].mode);
		assert_non_null(t);
		assert_null(json_object_get(t, "warning"));
		size_t nops;
		uint32_t dests;
		uint64_t med = oracle_median(want[k].trace, &nops, &dests);
		/* the traces carry apic:tsc_khz: ns */
		assert_string_equal(json_string_value(json_object_get(t, "unit")), "ns");
		double khz = 2095999.0;
		assert_int_equal(json_integer_value(json_object_get(t, "operations")), nops);
		assert_int_equal(json_integer_value(json_object_get(t, "destinations")), dests);
		assert_int_equal(json_integer_value(json_object_get(t, "icr_writes")), want[k].icr);
		/* (report.json keeps 12 significant digits) */
		double want_ns = (double)med * 1e6 / khz;
		assert_true(fabs(json_real_value(json_object_get(t, "median")) - want_ns) <
			    1e-9 * want_ns);
		/* the plot's data: every destination's receive, every ICR write */
		const char *plot = json_string_value(json_object_get(t, "plot"));
		assert_non_null(plot);
		char *name = xasprintf("%s.dat", plot), *dat = path2(out, name);
		assert_int_equal(dat_rows(dat, 1), dests);
		assert_int_equal(dat_rows(dat, 0), want[k].icr);
		assert_int_equal(dat_rows(dat, 2), 1);
		free(name);
		free(dat);
		name = xasprintf("%s.png", plot);
		dat = path2(out, name);
		assert_true(is_png(dat));
		free(dat);
		free(name);
		/* the title gives the median */
		name = xasprintf("%s.gp", plot);
		dat = path2(out, name);
		char b[64];
		snprintf(b, sizeof(b), "(the median of %zu)", nops);
		expect_in_file(dat, b, "send to last receive");
		free(dat);
		free(name);
		/* the trace's export, written by the report beside the plot */
		check_export(out, md, t, plot, want[k].trace, want[k].workload, want[k].mode);
	}
	json_decref(rep);
	expect_in_file(md, "Send-to-receive timeline");
	free(md);
	free(run);
	free(out);
}

/* FN(OUT, IN) with stderr in the file ERRF: its exit status. */
static int report_err(const char *out, const char *in, const char *errf)
{
	fflush(stderr);
	int saved = dup(2), fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	int rc = report(out, in);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return rc;
}

/* report_err() with IPIBENCH_REPORT_EXPORT_MAX set to LIMIT for that
 * report only. */
static int report_limit(const char *out, const char *in, const char *errf, const char *limit)
{
	assert_int_equal(setenv("IPIBENCH_REPORT_EXPORT_MAX", limit, 1), 0);
	int rc = report_err(out, in, errf);
	assert_int_equal(unsetenv("IPIBENCH_REPORT_EXPORT_MAX"), 0);
	return rc;
}

static size_t count_in(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A trace over the size limit (IPIBENCH_REPORT_EXPORT_MAX, here 50,000
 * bytes: the 85,780-byte physical trace is over it, the others not): no
 * export, report.md and report.json give the command that writes it, and
 * that command does. */
static void export_over_the_limit(void **state)
{
	char *o = *state, *run = tmp_subdir(o, "run"), *out = tmp_subdir(o, "out");
	char *errf = path2(o, "stderr");
	make_run(run, XT "/agent-flush-phys40.xt", XT "/agent-flush-cluster40.xt",
		 XT "/agent-flush-mask-phys40.xt");
	assert_int_equal(report_limit(out, run, errf, "50000"), 0);
	char *jp = path2(out, "report.json");
	json_error_t je;
	json_t *rep = json_load_file(jp, 0, &je);
	assert_non_null(rep);
	json_t *t = timeline_of(rep, "flush", "physical");
	assert_true(json_is_null(json_object_get(t, "export")));
	const char *plot = json_string_value(json_object_get(t, "plot"));
	char *trace = path2(run, "traces/physical-r0-flush.xtrace");
	char *name = xasprintf("%s.perfetto.json", plot), *dest = path2(out, name);
	char *cmd = xasprintf("ipibench trace export %s --format chrome -o %s", trace, dest);
	assert_string_equal(json_string_value(json_object_get(t, "export_command")), cmd);
	assert_false(access(dest, F_OK) == 0);
	/* the smaller traces are exported */
	t = timeline_of(rep, "flush", "cluster");
	assert_non_null(json_string_value(json_object_get(t, "export")));
	assert_null(json_object_get(t, "export_command"));
	char *md = path2(out, "report.md"), *mcmd = xasprintf("over the report's export limit: `%s` writes it", cmd);
	expect_in_file(md, mcmd);
	char *e = slurp(errf);
	expect_in_text(e, "over the report's export limit (50000)", cmd);
	assert_int_equal(count_in(e, "warning"), 0);
	free(e);
	/* the command, run as printed, writes the export */
	char *argv[] = { "trace", "export", trace, "--format", "chrome", "-o", dest, NULL };
	assert_int_equal(run_quiet(cmd_trace, argv), 0);
	json_t *x = json_load_file(dest, 0, &je);
	assert_non_null(x);
	assert_true(chrome_count(x, "flow_in") > 0);
	json_decref(x);
	json_decref(rep);
	free(jp);
	free(trace);
	free(name);
	free(dest);
	free(cmd);
	free(md);
	free(mcmd);
	free(errf);
	free(run);
	free(out);
}

/* IPIBENCH_REPORT_EXPORT_MAX set to what is no number of bytes (not a
 * non-negative integer, or past 2^64 - 1): one warning line naming it
 * and its value, however many traces the report exports, and the default
 * limit (32 MiB) used: the 85,780-byte physical trace is exported, which
 * 50000, the number "50000x" starts with, would refuse. */
static void export_limit_not_a_number(void **state)
{
	static const char *const bad[] = { "50000x", "-50000", "18446744073709551616" };
	char *o = *state, *run = tmp_subdir(o, "run"), *errf = path2(o, "stderr");
	make_run(run, XT "/agent-flush-phys40.xt", XT "/agent-flush-cluster40.xt",
		 XT "/agent-flush-mask-phys40.xt");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char sub[16];
		snprintf(sub, sizeof(sub), "out%zu", i);
		char *out = tmp_subdir(o, sub);
		assert_int_equal(report_limit(out, run, errf, bad[i]), 0);
		char *e = slurp(errf);
		char *want = xasprintf("ipibench report: warning: IPIBENCH_REPORT_EXPORT_MAX=\"%s\" is "
				       "not a number of bytes from 0 to 18446744073709551615: the export "
				       "limit is its default, 33554432 bytes\n", bad[i]);
		if (!strstr(e, want) || count_in(e, "IPIBENCH_REPORT_EXPORT_MAX") != 1)
			fail_msg("%s: wanted once '%s' in:\n%s", bad[i], want, e);
		assert_int_equal(count_in(e, "over the report's export limit"), 0);
		free(want);
		free(e);
		char *jp = path2(out, "report.json");
		json_error_t je;
		json_t *rep = json_load_file(jp, 0, &je);
		assert_non_null(rep);
		json_t *t = timeline_of(rep, "flush", "physical");
		assert_non_null(json_string_value(json_object_get(t, "export")));
		assert_null(json_object_get(t, "export_command"));
		json_decref(rep);
		free(jp);
		free(out);
	}
	free(errf);
	free(run);
}

/* The export refused (its file cannot be put in place: a directory holds
 * its name) or partial (the trace has garbage after its records): the
 * report is still written, with one warning line; a refusal gives no
 * link. */
static void export_refused_or_partial(void **state)
{
	char *o = *state, *run = tmp_subdir(o, "run"), *out = tmp_subdir(o, "out");
	char *errf = path2(o, "stderr"), *bad = path2(o, "tail.xt");
	copy_file(XT "/agent-flush-cluster40.xt", bad);
	FILE *f = fopen(bad, "ab");
	assert_non_null(f);
	for (int i = 0; i < 4096; i++)
		fputc((i * 2654435761u) >> 13 & 0xff, f);
	fclose(f);
	make_run(run, XT "/agent-flush-phys40.xt", bad, XT "/agent-flush-mask-phys40.xt");
	/* the physical flush's export name taken by a directory */
	assert_int_equal(report_err(out, run, errf), 0);
	char *jp = path2(out, "report.json");
	json_error_t je;
	json_t *rep = json_load_file(jp, 0, &je);
	assert_non_null(rep);
	const char *name = json_string_value(json_object_get(timeline_of(rep, "flush", "physical"),
							     "export"));
	assert_non_null(name);
	char *dest = path2(out, name);
	assert_int_equal(unlink(dest), 0);
	assert_int_equal(mkdir(dest, 0700), 0);
	char *sub = path2(dest, "x");
	f = fopen(sub, "w");	/* not empty: rename cannot replace it */
	assert_non_null(f);
	fclose(f);
	json_decref(rep);
	assert_int_equal(report_err(out, run, errf), 0);
	rep = json_load_file(jp, 0, &je);
	assert_non_null(rep);
	json_t *t = timeline_of(rep, "flush", "physical");
	assert_true(json_is_null(json_object_get(t, "export")));
	assert_non_null(json_string_value(json_object_get(t, "export_warning")));
	assert_non_null(json_string_value(json_object_get(t, "plot")));
	/* the partial one: linked, valid JSON, its anomaly said */
	t = timeline_of(rep, "flush", "cluster");
	const char *pn = json_string_value(json_object_get(t, "export"));
	assert_non_null(pn);
	char *pp = path2(out, pn);
	json_t *x = json_load_file(pp, 0, &je);
	assert_non_null(x);
	json_t *m = json_array_get(json_object_get(json_object_get(x, "metadata"), "files"), 0);
	assert_true(json_object_size(json_object_get(m, "anomalies")) > 0);
	json_decref(x);
	char *e = slurp(errf);
	assert_int_equal(count_in(e, "ipibench report: warning: "), 2);
	assert_int_equal(count_in(e, ": no Perfetto export\n"), 1);
	assert_int_equal(count_in(e, ": partial Perfetto export: "), 1);
	expect_in_text(e, "runs[0].workloads[0].trace", "runs[1].workloads[0].trace");
	free(e);
	char *md = path2(out, "report.md");
	expect_in_file(md, "Send-to-receive timeline");
	free(md);
	json_decref(rep);
	free(pp);
	free(sub);
	free(dest);
	free(jp);
	free(bad);
	free(errf);
	free(run);
	free(out);
}

/* tr_ipi_run_each()'s receives are trace ipi's: the latencies they give
 * (from their operation's first record), put in trace ipi's histogram, are
 * trace ipi's to the bucket, and its receives and unmatched ones are trace
 * ipi's counts. */
struct same {
	struct hist lat[TR_NMODES];
	uint64_t recv, unmatched;
};
static void same_cb(void *arg, const struct tr_ipi_ev *e)
{
	struct same *s = arg;
	if (e->kind == TR_EV_RECV) {
		s->recv++;
		if (e->send == TR_NO_SEND)
			s->unmatched++;
		else
			hist_add(&s->lat[e->mode], e->tsc - e->op_tsc);
	}
}

static void pairing_is_trace_ipis(void **state)
{
	(void)state;
	static const char *const files[] = { XT "/agent-flush-phys40.xt",
					     XT "/agent-flush-cluster40.xt",
					     XT "/agent-flush-mask-phys40.xt" };
	for (size_t k = 0; k < 3; k++) {
		struct xt_file f;
		char err[256];
		struct tr_ipi a, b;
		static struct same s;
		memset(&s, 0, sizeof(s));
		for (int m = 0; m < TR_NMODES; m++)
			hist_init(&s.lat[m]);
		assert_int_equal(xt_open(&f, files[k], 1u << 30, err, sizeof(err)), 0);
		assert_int_equal(tr_ipi_run(&a, &f), 0);
		assert_int_equal(tr_ipi_run_each(&b, &f, same_cb, &s), 0);
		assert_int_equal(s.recv, a.recv);
		assert_int_equal(s.unmatched, a.unmatched);
		for (int m = 0; m < TR_NMODES; m++) {
			assert_int_equal(s.lat[m].count, a.mode[m].lat.count);
			assert_int_equal(hist_quantile(&s.lat[m], 0.5), hist_quantile(&a.mode[m].lat, 0.5));
			assert_int_equal(s.lat[m].max, a.mode[m].lat.max);
		}
		tr_ipi_fini(&a);
		tr_ipi_fini(&b);
		xt_unmap(&f);
	}
}

/* Hostile traces: the report is written, without the timeline, with one
 * warning line each; never a crash. */
static void hostile_traces(void **state)
{
	char *o = *state;
	char *garbage = path2(o, "garbage.xt"), *trunc = path2(o, "trunc.xt"),
	     *empty = path2(o, "empty.xt");
	FILE *f = fopen(garbage, "wb");
	assert_non_null(f);
	for (int i = 0; i < 8192; i++)
		fputc((i * 2654435761u) >> 13 & 0xff, f);
	fclose(f);
	/* the physical trace cut inside a record */
	char *s = NULL;
	{
		FILE *in = fopen(XT "/agent-flush-phys40.xt", "rb");
		assert_non_null(in);
		s = malloc(1001);
		assert_int_equal(fread(s, 1, 1001, in), 1001);
		fclose(in);
		FILE *t = fopen(trunc, "wb");
		fwrite(s, 1, 1001, t);
		fclose(t);
		free(s);
		t = fopen(empty, "wb");
		fclose(t);
	}
	char *run = tmp_subdir(o, "run"), *out = tmp_subdir(o, "out");
	make_run(run, garbage, trunc, empty);
	char *errf = path2(o, "stderr");
	fflush(stderr);
	int saved = dup(2), fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	int rc = report(out, run);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, 0);
	char *e = slurp(errf);
	assert_non_null(e);
	size_t warns = 0;
	for (char *p = e; (p = strstr(p, "ipibench report: warning: ")); p++)
		warns++;
	assert_int_equal(warns, 3);
	expect_in_text(e, "runs[0].workloads[0].trace", "runs[1].workloads[0].trace",
		       "runs[0].workloads[1].trace", ": no timeline\n");
	free(e);
	char *md = path2(out, "report.md");
	expect_in_file(md, "no timeline: ");
	free(md);
	assert_null(find_dat(out, "timeline-"));
	/* a symbolic link, a directory, a missing file: the same */
	char *t1 = path2(run, "traces/physical-r0-flush.xtrace");
	char *t2 = path2(run, "traces/cluster-r0-flush.xtrace");
	char *t3 = path2(run, "traces/physical-r0-flush-mask.xtrace");
	unlink(t1);
	assert_int_equal(symlink(XT "/agent-flush-phys40.xt", t1), 0);
	unlink(t2);
	assert_int_equal(mkdir(t2, 0700), 0);
	unlink(t3);
	char *out2 = tmp_subdir(o, "out2");
	fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	rc = report(out2, run);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, 0);
	e = slurp(errf);
	expect_in_text(e, "a symbolic link", "a directory or device", "No such file");
	free(e);
	assert_null(find_dat(out2, "timeline-"));
	free(t1);
	free(t2);
	free(t3);
	free(out2);
	free(errf);
	free(run);
	free(out);
	free(garbage);
	free(trunc);
	free(empty);
}

int main(void)
{
	an_quiet = true;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(icr_chart_per_routine, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(paired_without_by_sender_left_out, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(refused_in_results, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(timeline_on_real_traces, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(export_over_the_limit, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(export_limit_not_a_number, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(export_refused_or_partial, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(pairing_is_trace_ipis),
		cmocka_unit_test_setup_teardown(hostile_traces, tmpdir_setup, tmpdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
