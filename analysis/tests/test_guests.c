/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/tests/test_guests.c: the report's "Guest IPIs and interrupts"
 * (report_guests.c) on a results directory made here: the guest-run
 * fixtures of probes/tests/data (hvm-pvh-ipbipi-{kernel,apic}[-sched].xt.xz,
 * unpacked with xz into the test's directory) and a results.json listing
 * them as guest_runs[].  Every figure of report.json is checked against one
 * the test computes itself from `ipibench trace summary --json` of the same
 * traces (the per-vCPU profile: exits, injections by vector, MSR writes;
 * the event rows; for the evtchn path the event_channel_op calls), and the
 * seed's rows against results/reference/seed-004.json read here.  Then the
 * refusals: a trace name that leaves the directory, a missing file, a
 * symbolic link, a file that is no trace, an unknown IPI path, bad counts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/report.h"
#include "analysis/tests/helpers.h"
#include "probes/hvm.h"
#include "probes/probes.h"

#define FX "probes/tests/data/hvm-pvh-ipbipi-"
#define SEED "results/reference/seed-004.json"

static const char *const names[4] = { "kernel", "kernel-sched", "apic", "apic-sched" };

/* fn(argv) with stdout into PATH; its exit status. */
static int run_to(int (*fn)(int, char **), char **argv, const char *path)
{
	int argc = 0, fd, saved, rc;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return rc;
}

/* DIR/hvm-pvh-ipbipi-NAME.xt from the committed .xt.xz. */
static void unpack(const char *dir, const char *name)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "xz -dc '" FX "%s.xt.xz' > '%s/hvm-pvh-ipbipi-%s.xt'", name, dir,
		 name);
	assert_int_equal(system(cmd), 0);
}

static void write_results(const char *dir, const char *guest_runs)
{
	char *p = path2(dir, "results.json"), *text;

	text = xasprintf("{\"schema_version\": 1, \"host\": {\"name\": \"testhost\", \"backend\": "
			 "\"qemu\", \"cpus\": 2, \"emulated\": true}, \"runs\": [], \"guest_runs\": %s}",
			 guest_runs);
	assert_int_equal(tu_write(p, text), 0);
	free(text);
	free(p);
}

static const char good_runs[] =
	"[{\"ipi_path\": \"evtchn\", \"status\": \"ok\", \"workload\": \"ipbipi\","
	"  \"counts\": {\"ipis_sent\": 3309, \"rounds\": 30, \"kernel\": \"6.1.0-57-amd64\", \"done\": true},"
	"  \"traces\": {\"hvm\": \"hvm-pvh-ipbipi-kernel.xt\", \"hvm_sched\": \"hvm-pvh-ipbipi-kernel-sched.xt\"}},"
	" {\"ipi_path\": \"apic\", \"status\": \"failed\", \"outcome\": \"died\"},"
	" {\"ipi_path\": \"apic\", \"counts\": {\"ipis_sent\": 483},"
	"  \"traces\": {\"hvm\": \"g/apic/hvm-pvh-ipbipi-apic.xt\", \"hvm_sched\": \"hvm-pvh-ipbipi-apic-sched.xt\"}}]";

/* What the test computes from trace summary --json of one trace. */
struct want {
	uint64_t ipis, exits, inj, inj_ipi, inj_irq, icr_writes, evtchn_op;
	json_t *reasons;	/* name -> count */
	json_t *events;		/* name -> count */
};

static bool guest_vcpu(json_t *v, bool sched)
{
	json_int_t dom = json_integer_value(json_object_get(v, "domain"));

	if (!sched)
		return json_is_true(json_object_get(v, "default_domain"));
	return dom != 0 && dom < 32767;
}

static void want_of(const char *dir, const char *name, bool apic, struct want *w)
{
	char *xt = xasprintf("%s/hvm-pvh-ipbipi-%s.xt", dir, name), *js = path2(dir, "summary.json");
	char *argv[] = { "trace", "summary", "--json", xt, NULL };
	json_error_t je;
	json_t *root, *f, *v, *e;
	size_t i, j;
	bool sched = strstr(name, "sched") != NULL;

	memset(w, 0, sizeof(*w));
	w->reasons = json_object();
	w->events = json_object();
	assert_int_equal(run_to(cmd_trace, argv, js), 0);
	root = json_load_file(js, 0, &je);
	assert_non_null(root);
	f = json_array_get(json_object_get(root, "files"), 0);
	json_array_foreach(json_object_get(f, "events"), i, e)
		json_object_set_new(w->events, json_string_value(json_object_get(e, "name")),
				    json_integer(json_integer_value(json_object_get(e, "count"))));
	json_array_foreach(json_object_get(json_object_get(f, "hvm"), "vcpus"), i, v) {
		if (!guest_vcpu(v, sched))
			continue;
		w->exits += (uint64_t)json_integer_value(json_object_get(v, "exits_closed"));
		json_array_foreach(json_object_get(v, "inj_virq"), j, e) {
			uint64_t n = (uint64_t)json_integer_value(json_object_get(e, "count"));

			w->inj += n;
			/* the workload's IPI vector on the apic path: 0xfd */
			if (apic && json_integer_value(json_object_get(e, "vector")) == 0xfd)
				w->inj_ipi += n;
		}
		json_array_foreach(json_object_get(v, "msr_write"), j, e)
			if (!strcmp(json_string_value(json_object_get(e, "msr")), "0x00000830"))
				w->icr_writes += (uint64_t)json_integer_value(json_object_get(e, "count"));
		json_array_foreach(json_object_get(v, "exit_reasons"), j, e) {
			const char *r = json_string_value(json_object_get(e, "reason"));
			json_int_t have = json_integer_value(json_object_get(w->reasons, r));

			json_object_set_new(w->reasons, r, json_integer(have +
				json_integer_value(json_object_get(e, "count"))));
		}
	}
	json_array_foreach(json_object_get(json_object_get(json_object_get(f, "hvm"), "guests"),
					   "domains"), i, v)
		if (guest_vcpu(v, sched))
			w->evtchn_op += (uint64_t)json_integer_value(
				json_object_get(json_object_get(v, "ipis"), "evtchn_op_calls"));
	w->inj_irq = w->inj - w->inj_ipi;
	/* every ICR write of the ipbipi module is an IPI to the other vCPU */
	w->ipis = apic ? w->icr_writes : w->evtchn_op;
	json_decref(root);
	unlink(js);
	free(js);
	free(xt);
}

static void want_free(struct want *w)
{
	json_decref(w->reasons);
	json_decref(w->events);
}

static json_int_t ji(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	if (!json_is_integer(v))
		fail_msg("%s%s%s: not an integer", a, b ? "." : "", b ? b : "");
	return json_integer_value(v);
}

static void near(json_t *v, uint64_t n, uint64_t d)
{
	assert_true(d > 0);
	assert_true(json_is_number(v));
	assert_true(fabs(json_number_value(v) - (double)n / (double)d) < 1e-9);
}

static void check_trace(json_t *t, const struct want *w)
{
	const char *key;
	json_t *v;
	size_t i;

	assert_int_equal(ji(t, "ipis", "sent"), w->ipis);
	assert_int_equal(ji(t, "exits", NULL), w->exits);
	assert_int_equal(ji(t, "injections", "all"), w->inj);
	assert_int_equal(ji(t, "injections", "ipi_vectors"), w->inj_ipi);
	assert_int_equal(ji(t, "injections", "interrupts"), w->inj_irq);
	near(json_object_get(json_object_get(t, "per_ipi"), "exits"), w->exits, w->ipis);
	near(json_object_get(json_object_get(t, "per_ipi"), "injections"), w->inj, w->ipis);
	near(json_object_get(json_object_get(t, "per_interrupt"), "exits"), w->exits, w->inj_irq);
	assert_int_equal(json_array_size(json_object_get(t, "exit_reasons")), json_object_size(w->reasons));
	json_array_foreach(json_object_get(t, "exit_reasons"), i, v) {
		key = json_string_value(json_object_get(v, "reason"));
		assert_int_equal(ji(v, "count", NULL), json_integer_value(json_object_get(w->reasons, key)));
		near(json_object_get(v, "per_ipi"), (uint64_t)ji(v, "count", NULL), w->ipis);
	}
}

/* The report of the four traces: every figure against the test's own. */
static void guest_section(void **state)
{
	char *dir = *state, *out = path2(dir, "out"), *md, *p;
	char *argv[] = { "report", "-q", "-o", out, "--guest-reference", SEED, dir, NULL };
	struct want w[4];
	json_error_t je;
	json_t *rep, *g, *runs, *seed;
	size_t i;

	for (i = 0; i < 4; i++)
		unpack(dir, names[i]);
	write_results(dir, good_runs);
	for (i = 0; i < 4; i++)
		want_of(dir, names[i], i >= 2, &w[i]);
	/* the runner's layout: a trace in a subdirectory (guests/ID/hvm.xt) */
	{
		char *g1 = path2(dir, "g"), *g2 = path2(dir, "g/apic");
		char *from = path2(dir, "hvm-pvh-ipbipi-apic.xt");
		char *to = path2(dir, "g/apic/hvm-pvh-ipbipi-apic.xt");

		assert_int_equal(mkdir(g1, 0700), 0);
		assert_int_equal(mkdir(g2, 0700), 0);
		assert_int_equal(rename(from, to), 0);
		free(g1);
		free(g2);
		free(from);
		free(to);
	}
	/* the fixtures are what the section is about: both paths sent IPIs */
	assert_true(w[1].ipis > 500 && w[3].ipis > 50 && w[3].inj_ipi > 0 && w[1].inj_ipi == 0);
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	p = path2(out, "report.json");
	rep = json_load_file(p, 0, &je);
	free(p);
	assert_non_null(rep);
	g = json_object_get(rep, "guests");
	assert_true(json_is_true(json_object_get(g, "emulated_counts_not_times")));
	runs = json_object_get(g, "runs");
	assert_int_equal(json_array_size(runs), 2);
	for (i = 0; i < 2; i++) {
		json_t *run = json_array_get(runs, i), *tr = json_object_get(run, "traces");

		assert_string_equal(json_string_value(json_object_get(run, "ipi_path")),
				    i ? "apic" : "evtchn");
		assert_string_equal(json_string_value(json_object_get(run, "figures_from")), "hvm_sched");
		check_trace(json_object_get(tr, "hvm"), &w[2 * i]);
		check_trace(json_object_get(tr, "hvm_sched"), &w[2 * i + 1]);
		assert_string_equal(json_string_value(json_object_get(json_object_get(tr, "hvm_sched"),
								      "ipi_path_seen")), i ? "apic" : "evtchn");
	}
	assert_int_equal(ji(json_array_get(runs, 0), "counts", "ipis_sent"), 3309);
	/* the counts' integers only; the failed run left out and counted */
	assert_null(json_object_get(json_object_get(json_array_get(runs, 0), "counts"), "kernel"));
	assert_int_equal(json_integer_value(json_object_get(g, "runs_not_ok")), 1);

	/* the top moving reasons: recomputed, |apic/IPI - evtchn/IPI| largest first */
	{
		json_t *mv = json_object_get(g, "top_moving_exits"), *all = json_array(), *v;
		const char *key;

		json_object_foreach(w[1].reasons, key, v)
			json_array_append_new(all, json_string(key));
		json_object_foreach(w[3].reasons, key, v)
			if (!json_object_get(w[1].reasons, key))
				json_array_append_new(all, json_string(key));
		size_t n = json_array_size(all);
		double *d = calloc(n, sizeof(*d));

		for (i = 0; i < n; i++) {
			const char *r = json_string_value(json_array_get(all, i));
			d[i] = fabs((double)json_integer_value(json_object_get(w[3].reasons, r)) / (double)w[3].ipis -
				    (double)json_integer_value(json_object_get(w[1].reasons, r)) / (double)w[1].ipis);
		}
		assert_int_equal(json_array_size(mv), n < 5 ? n : 5);
		json_array_foreach(mv, i, v) {
			const char *r = json_string_value(json_object_get(v, "reason"));
			size_t k, above = 0, me = n;

			for (k = 0; k < n; k++)
				if (!strcmp(json_string_value(json_array_get(all, k)), r))
					me = k;
			assert_true(me < n);
			for (k = 0; k < n; k++)
				above += d[k] > d[me] + 1e-12;
			assert_true(above <= i);	/* none that moved more is left out */
			assert_int_equal(ji(v, "evtchn", "count"),
					 json_integer_value(json_object_get(w[1].reasons, r)));
			assert_int_equal(ji(v, "apic", "count"),
					 json_integer_value(json_object_get(w[3].reasons, r)));
			assert_int_equal(ji(v, "evtchn", "denominator"), w[1].ipis);
			assert_int_equal(ji(v, "apic", "denominator"), w[3].ipis);
		}
		free(d);
		json_decref(all);
	}

	/* beside the seed: its counts from the file, the measured from the hvm traces */
	seed = json_object_get(g, "seed");
	assert_non_null(seed);
	assert_string_equal(json_string_value(json_object_get(seed, "traces")), "hvm");
	{
		json_t *ref = json_load_file(SEED, 0, &je), *row, *e;
		json_t *before = json_object_get(json_object_get(json_object_get(ref, "profiles"), "before"), "events");
		size_t k;

		assert_non_null(ref);
		assert_true(json_array_size(json_object_get(seed, "rows")) >= json_array_size(before));
		json_array_foreach(before, k, e) {
			const char *nm = json_string_value(json_object_get(e, "name"));

			row = json_find(json_object_get(seed, "rows"), "event", nm);
			assert_non_null(row);
			assert_int_equal(ji(json_object_get(row, "seed"), "before", NULL),
					 json_integer_value(json_object_get(e, "count")));
			assert_int_equal(ji(json_object_get(row, "measured"), "evtchn", NULL),
					 json_integer_value(json_object_get(w[0].events, nm)));
			assert_int_equal(ji(json_object_get(row, "measured"), "apic", NULL),
					 json_integer_value(json_object_get(w[2].events, nm)));
			{
				json_int_t ca = json_integer_value(json_object_get(w[0].events, nm));
				json_int_t cb = json_integer_value(json_object_get(w[2].events, nm));
				const char *mv = json_string_value(json_object_get(json_object_get(row, "measured"), "moved"));

				assert_string_equal(mv, !ca && !cb ? "-" : cb > ca ? "up" : cb < ca ? "down" : "flat");
			}
		}
		row = json_find(json_object_get(seed, "rows"), "event", "VMEXIT");
		assert_string_equal(json_string_value(json_object_get(json_object_get(row, "seed"), "moved")), "down");
		json_decref(ref);
	}

	/* report.md: the section, its figures as the test formats them */
	p = path2(out, "report.md");
	md = slurp(p);
	free(p);
	{
		char exits_per_ipi[64], row[128];

		snprintf(exits_per_ipi, sizeof(exits_per_ipi), "| %.3f |",
			 (double)w[3].exits / (double)w[3].ipis);
		snprintf(row, sizeof(row), "| %llu | %llu | %llu | 0 | %llu |",
			 (unsigned long long)w[3].ipis, (unsigned long long)w[3].icr_writes,
			 (unsigned long long)w[3].evtchn_op, (unsigned long long)w[3].exits);
		expect_in_text(md, "## Guest IPIs and interrupts", "not times", "not the sub-op",
			       "hvm_sched: hvm-pvh-ipbipi-apic-sched.xt (real domains)",
			       "guest_runs\\[2\\]", "1 guest run not ok", "ipis_sent=3309 rounds=30", exits_per_ipi, row,
			       "| VMEXIT | 307527 | 166479 |", "moved: seed / measured");
	}
	free(md);
	for (i = 0; i < 4; i++)
		want_free(&w[i]);
	json_decref(rep);

	/* the same traces kept as .xt.xz: read directly, the same figures */
	for (i = 0; i < 4; i++) {
		char *a = xasprintf("%s/hvm-pvh-ipbipi-%s.xt", dir, names[i]);
		unlink(a);
		free(a);
		char cmd[1024];
		snprintf(cmd, sizeof(cmd), "cp '" FX "%s.xt.xz' '%s/%s'", names[i], dir,
			 strcmp(names[i], "apic") ? "" : "g/apic/");
		assert_int_equal(system(cmd), 0);
	}
	{
		char *gr = xasprintf("%s", good_runs), *q;
		struct sbuf b = { 0 };

		for (q = gr; *q; q++) {	/* NAME.xt" -> NAME.xt.xz" */
			sb_printf(&b, "%c", *q);
			if (q[0] == 't' && q[-1] == 'x' && q[-2] == '.' && q[1] == '"')
				sb_puts(&b, ".xz");
		}
		write_results(dir, b.s);
		sb_free(&b);
		free(gr);
	}
	char *out2 = path2(dir, "out2");
	char *argv2[] = { "report", "-q", "-o", out2, "--no-reference", dir, NULL };
	assert_int_equal(run_quiet(cmd_report, argv2), 0);
	p = path2(out2, "report.json");
	json_t *rep2 = json_load_file(p, 0, &je);
	free(p);
	p = path2(out, "report.json");
	rep = json_load_file(p, 0, &je);
	free(p);
	for (i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++) {
			json_t *t1 = json_object_get(json_object_get(json_array_get(json_object_get(
				json_object_get(rep, "guests"), "runs"), i), "traces"), guest_trace_key[k]);
			json_t *t2 = json_object_get(json_object_get(json_array_get(json_object_get(
				json_object_get(rep2, "guests"), "runs"), i), "traces"), guest_trace_key[k]);

			assert_non_null(t2);
			json_object_del(t1, "file");
			json_object_del(t2, "file");
			assert_true(json_equal(t1, t2));
		}
	assert_null(json_object_get(json_object_get(rep2, "guests"), "seed"));	/* --no-reference */
	json_decref(rep);
	json_decref(rep2);
	free(out2);
	free(out);
}

/* ---- an HVM guest's emulated NIC: msi_path pirq -> apic, per interrupt ---- */

#define NFX "probes/tests/data/hvm-nic-"
/* the fixtures of guest/host-nic.sh: pirq is the guest's default path,
 * apic xen_nopv's */
static const char *const nic_names[4] = { "default", "default-sched", "nopv", "nopv-sched" };

struct nwant {
	uint64_t exits, vmexit, vmmcall, inj, inj_irq, icr_ipis;
	json_t *vectors;	/* "0xNN" -> injections */
	json_t *reasons;	/* name -> count */
};

/* From trace summary --json's guest domains of one NIC trace. */
static void nwant_of(const char *dir, const char *name, struct nwant *w)
{
	char *xt = xasprintf("%s/hvm-nic-%s.xt.xz", dir, name), *js = path2(dir, "summary.json");
	char *argv[] = { "trace", "summary", "--json", xt, NULL };
	json_error_t je;
	json_t *root, *d, *e;
	size_t i, j;
	bool sched = strstr(name, "sched") != NULL, real = false;

	memset(w, 0, sizeof(*w));
	w->vectors = json_object();
	w->reasons = json_object();
	assert_int_equal(run_to(cmd_trace, argv, js), 0);
	root = json_load_file(js, 0, &je);
	assert_non_null(root);
	json_t *doms = json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(root, "files"), 0), "hvm"), "guests"), "domains");
	json_array_foreach(doms, i, d)
		real |= guest_vcpu(d, true) && json_integer_value(json_object_get(d, "vmexit")) > 0;
	assert_true(real == sched);
	json_array_foreach(doms, i, d) {
		if (real ? !(guest_vcpu(d, true) && json_integer_value(json_object_get(d, "vmexit")) > 0)
			 : !guest_vcpu(d, false))
			continue;
		w->exits += (uint64_t)json_integer_value(json_object_get(d, "exits_closed"));
		w->vmexit += (uint64_t)json_integer_value(json_object_get(d, "vmexit"));
		w->icr_ipis += (uint64_t)ji(d, "ipis", "icr_ipis");
		w->vmmcall += (uint64_t)ji(d, "ipis", "vmmcall");
		json_array_foreach(json_object_get(d, "inj_virq"), j, e) {
			uint64_t n = (uint64_t)json_integer_value(json_object_get(e, "count"));
			char v[16];

			snprintf(v, sizeof(v), "0x%02x", (unsigned)json_integer_value(json_object_get(e, "vector")));
			w->inj += n;
			if (!strcmp(json_string_value(json_object_get(e, "kind")), "interrupt"))
				w->inj_irq += n;
			json_object_set_new(w->vectors, v, json_integer(
				json_integer_value(json_object_get(w->vectors, v)) + (json_int_t)n));
		}
		json_array_foreach(json_object_get(d, "exit_reasons"), j, e) {
			const char *r = json_string_value(json_object_get(e, "reason"));

			json_object_set_new(w->reasons, r, json_integer(json_integer_value(
				json_object_get(w->reasons, r)) + json_integer_value(json_object_get(e, "count"))));
		}
	}
	json_decref(root);
	unlink(js);
	free(js);
	free(xt);
}

static const char nic_runs[] =
	"[{\"msi_path\": \"pirq\", \"ipi_path\": \"evtchn\", \"status\": \"ok\", \"workload\": \"nic\","
	"  \"counts\": {\"done\": true}, \"load\": {\"bridge\": \"xenbr0\", \"ping\": {\"transmitted\": 5000,"
	"  \"received\": 4950, \"log\": \"x\", \"deeper\": {\"n\": 1}}, \"ab\": {\"requests_per_s\": 12.5}},"
	"  \"traces\": {\"hvm\": \"hvm-nic-default.xt.xz\", \"hvm_sched\": \"hvm-nic-default-sched.xt.xz\"}},"
	" {\"msi_path\": \"apic\", \"status\": \"failed\", \"outcome\": \"start-timeout\"},"
	" {\"msi_path\": \"apic\", \"load\": {\"ping\": {\"received\": 4990}},"
	"  \"traces\": {\"hvm\": \"hvm-nic-nopv.xt.xz\", \"hvm_sched\": \"hvm-nic-nopv-sched.xt.xz\"}},"
	" {\"ipi_path\": \"evtchn\", \"counts\": {\"ipis_sent\": 3309},"
	"  \"traces\": {\"hvm\": \"hvm-pvh-ipbipi-kernel.xt.xz\"}}]";

/* The NIC runs in their own section beside a guest-IPI run, each figure
 * per interrupt against the test's own from trace summary --json. */
static void nic_section(void **state)
{
	char *dir = *state, *out = path2(dir, "out"), *md, *p, cmd[1024];
	char *argv[] = { "report", "-q", "-o", out, "--guest-reference", SEED, dir, NULL };
	struct nwant w[4];
	json_error_t je;
	json_t *rep, *g, *runs, *mv, *v;
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "cp '" NFX "%s.xt.xz' '%s/'", nic_names[i], dir);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "cp '" FX "kernel.xt.xz' '%s/'", dir);
	assert_int_equal(system(cmd), 0);
	write_results(dir, nic_runs);
	for (i = 0; i < 4; i++)
		nwant_of(dir, nic_names[i], &w[i]);
	/* the fixtures are what the section is about: pirq's events through
	 * VMMCALLs, none on the apic path, which injects the MSIs' own vectors */
	assert_true(w[1].vmmcall > 0 && w[3].vmmcall == 0 && w[1].inj_irq > 0 && w[3].inj_irq > 0);
	assert_true(json_integer_value(json_object_get(w[1].vectors, "0xf3")) > 0);
	assert_int_equal(json_integer_value(json_object_get(w[3].vectors, "0xf3")), 0);
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	p = path2(out, "report.json");
	rep = json_load_file(p, 0, &je);
	free(p);
	assert_non_null(rep);
	/* the IPI run in its own section, the NIC runs in theirs */
	assert_int_equal(json_array_size(json_object_get(json_object_get(rep, "guests"), "runs")), 1);
	g = json_object_get(rep, "guest_nic");
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "unit")), "interrupt");
	assert_int_equal(json_integer_value(json_object_get(g, "runs_not_ok")), 1);
	runs = json_object_get(g, "runs");
	assert_int_equal(json_array_size(runs), 2);
	for (i = 0; i < 2; i++) {
		json_t *run = json_array_get(runs, i);

		assert_string_equal(json_string_value(json_object_get(run, "msi_path")), i ? "apic" : "pirq");
		for (size_t k = 0; k < 2; k++) {
			const struct nwant *x = &w[2 * i + k];
			json_t *t = json_object_get(json_object_get(run, "traces"), guest_trace_key[k]), *e;
			size_t j;

			assert_non_null(t);
			assert_int_equal(ji(t, "exits", NULL), x->exits);
			assert_int_equal(ji(t, "vmexit", NULL), x->vmexit);
			assert_int_equal(ji(t, "vmmcall", NULL), x->vmmcall);
			assert_int_equal(ji(t, "injections", "interrupts"), x->inj_irq);
			assert_int_equal(ji(t, "ipis", "icr_ipis"), x->icr_ipis);
			near(json_object_get(json_object_get(t, "per_interrupt"), "exits"), x->exits, x->inj_irq);
			near(json_object_get(json_object_get(t, "per_interrupt"), "vmmcall"), x->vmmcall, x->inj_irq);
			assert_int_equal(json_array_size(json_object_get(t, "vectors")), json_object_size(x->vectors));
			json_array_foreach(json_object_get(t, "vectors"), j, e)
				assert_int_equal(ji(e, "count", NULL), json_integer_value(json_object_get(
					x->vectors, json_string_value(json_object_get(e, "vector")))));
			json_array_foreach(json_object_get(json_object_get(t, "per_interrupt"), "exit_reasons"), j, e) {
				const char *r = json_string_value(json_object_get(e, "reason"));

				assert_int_equal(ji(e, "count", NULL), json_integer_value(json_object_get(x->reasons, r)));
				near(json_object_get(e, "per_unit"), (uint64_t)ji(e, "count", NULL), x->inj_irq);
			}
		}
	}
	/* the load's numbers only */
	assert_int_equal(ji(json_array_get(runs, 0), "load", "ping.received"), 4950);
	assert_int_equal(json_object_size(json_object_get(json_array_get(runs, 0), "load")), 3);
	/* moved most per interrupt: VMMCALL's reason is among them (pirq's only), each
	 * recomputed over the interrupts of its side */
	mv = json_object_get(g, "top_moving_exits");
	assert_true(json_array_size(mv) > 0);
	json_array_foreach(mv, i, v) {
		const char *r = json_string_value(json_object_get(v, "reason"));

		assert_int_equal(ji(v, "pirq", "count"), json_integer_value(json_object_get(w[1].reasons, r)));
		assert_int_equal(ji(v, "apic", "count"), json_integer_value(json_object_get(w[3].reasons, r)));
		assert_int_equal(ji(v, "pirq", "denominator"), w[1].inj_irq);
		assert_int_equal(ji(v, "apic", "denominator"), w[3].inj_irq);
		near(json_object_get(json_object_get(v, "apic"), "per_interrupt"),
		     (uint64_t)ji(v, "apic", "count"), w[3].inj_irq);
	}
	assert_string_equal(json_string_value(json_object_get(json_object_get(g, "seed"), "before_beside")), "pirq");
	p = path2(out, "report.md");
	md = slurp(p);
	free(p);
	{
		char row[160];

		snprintf(row, sizeof(row), "| %llu | 0xf3: %llu",
			 (unsigned long long)w[1].inj_irq,
			 (unsigned long long)json_integer_value(json_object_get(w[1].vectors, "0xf3")));
		expect_in_text(md, "## Guest IPIs and interrupts", "## Guest device interrupts (an emulated NIC)",
			       "Exits per interrupt, by reason, pirq (guest_runs[0], hvm_sched) -> apic",
			       "ping.transmitted=5000 ping.received=4950 ab.requests_per_s=12.5",
			       "1 guest run not ok", row, "| pirq / interrupt |", "guest_runs\\[2\\] | apic |");
	}
	free(md);
	for (i = 0; i < 4; i++) {
		json_decref(w[i].vectors);
		json_decref(w[i].reasons);
	}
	json_decref(rep);
	free(out);
}

/* A refusal: one line naming the results file and the JSON path. */
static void refused(const char *dir, const char *runs, const char *want)
{
	struct report r = { 0 };
	char *rj = path2(dir, "results.json");

	an_quiet = true;
	write_results(dir, runs);
	int rc = dataset_add(&r.d, dir, r.err);
	if (!rc)
		rc = guests_load(&r, SEED);
	if (rc != -1)
		fail_msg("accepted: %s", runs);
	if (!strstr(r.err, rj) || !strstr(r.err, want) || strchr(r.err, '\n'))
		fail_msg("refusal \"%s\" lacks \"%s: ... %s\"", r.err, rj, want);
	guests_free(&r);
	dataset_free(&r.d);
	free(rj);
}

static void refusals(void **state)
{
	char *dir = *state, *p;

	unpack(dir, "apic");
	p = path2(dir, "link.xt");
	assert_int_equal(symlink("hvm-pvh-ipbipi-apic.xt", p), 0);
	free(p);
	p = path2(dir, "notes.xt");
	assert_int_equal(tu_write(p, "not a trace\n"), 0);
	free(p);
	p = path2(dir, "sub");
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	/* a sparse 32 GiB file: refused by its size, nothing of it read */
	p = path2(dir, "big.xt");
	assert_int_equal(tu_write(p, ""), 0);
	assert_int_equal(truncate(p, (off_t)32 << 30), 0);
	free(p);
	p = path2(dir, "linkdir");
	assert_int_equal(symlink("sub", p), 0);
	free(p);
	p = path2(dir, "sub/hvm-pvh-ipbipi-apic.xt");
	assert_int_equal(symlink("../hvm-pvh-ipbipi-apic.xt", p), 0);
	free(p);
#define RUN(path, traces) "[{\"ipi_path\": \"" path "\", \"counts\": {}, \"traces\": " traces "}]"
	refused(dir, RUN("apic", "{\"hvm\": \"../hvm-pvh-ipbipi-apic.xt\"}"), "$.guest_runs[0].traces.hvm: must be a path in the results directory");
	refused(dir, RUN("apic", "{\"hvm_sched\": \"/etc/passwd\"}"), "$.guest_runs[0].traces.hvm_sched: must be a path in the results directory");
	refused(dir, RUN("apic", "{\"hvm\": \"..\"}"), "$.guest_runs[0].traces.hvm:");
	refused(dir, RUN("apic", "{\"hvm\": 3}"), "$.guest_runs[0].traces.hvm: must be a path in the results directory (at most 4 components of the name rule: no leading '/', no \"..\"), not an integer");
	refused(dir, RUN("apic", "{}"), "$.guest_runs[0].traces: names no trace");
	refused(dir, RUN("apic", "[]"), "$.guest_runs[0].traces: must be an object");
	refused(dir, RUN("apic", "{\"hvm\": \"missing.xt\"}"), "$.guest_runs[0].traces.hvm: missing.xt: No such file");
	refused(dir, RUN("apic", "{\"hvm\": \"link.xt\"}"), "$.guest_runs[0].traces.hvm: link.xt: not a regular file (a symbolic link)");
	refused(dir, RUN("apic", "{\"hvm\": \"sub\"}"), "$.guest_runs[0].traces.hvm: sub: not a regular file");
	refused(dir, RUN("apic", "{\"hvm\": \"notes.xt\"}"), "$.guest_runs[0].traces.hvm: notes.xt: not a xentrace file");
	refused(dir, RUN("apic", "{\"hvm\": \"big.xt\"}"), "big.xt: 34359738368 bytes, more than the 2147483648 this input may have");
	refused(dir, RUN("pirq", "{\"hvm\": \"hvm-pvh-ipbipi-apic.xt\"}"), "$.guest_runs[0].ipi_path: \"pirq\" is not an IPI path (evtchn, apic)");
	refused(dir, RUN("apic", "{\"hvm\": \"a/../hvm-pvh-ipbipi-apic.xt\"}"), "$.guest_runs[0].traces.hvm: must be a path");
	refused(dir, RUN("apic", "{\"hvm\": \"g//hvm-pvh-ipbipi-apic.xt\"}"), "$.guest_runs[0].traces.hvm: must be a path");
	refused(dir, RUN("apic", "{\"hvm\": \"a/b/c/d/e.xt\"}"), "$.guest_runs[0].traces.hvm: must be a path");
	refused(dir, RUN("apic", "{\"hvm\": \"g/\"}"), "$.guest_runs[0].traces.hvm: must be a path");
	refused(dir, RUN("apic", "{\"hvm\": \"linkdir/hvm-pvh-ipbipi-apic.xt\"}"), "$.guest_runs[0].traces.hvm: linkdir/hvm-pvh-ipbipi-apic.xt: linkdir is a symbolic link");
	refused(dir, RUN("apic", "{\"hvm\": \"nodir/x.xt\"}"), "$.guest_runs[0].traces.hvm: nodir/x.xt: nodir is missing");
	refused(dir, RUN("apic", "{\"hvm\": \"notes.xt/x.xt\"}"), "$.guest_runs[0].traces.hvm: notes.xt/x.xt: notes.xt is not a directory");
	refused(dir, "[{\"ipi_path\": 1, \"counts\": {}, \"traces\": {\"hvm\": \"x\"}}]", "$.guest_runs[0].ipi_path: must be");
	refused(dir, "[{\"ipi_path\": \"apic\", \"counts\": {\"n\": -1}, \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].counts.n: must be a count (an integer >= 0), not a negative integer");
	refused(dir, "[{\"ipi_path\": \"apic\", \"counts\": [], \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].counts: must be an object, not an array");
	refused(dir, "[{\"ipi_path\": \"apic\", \"status\": 1, \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].status: must be a string, not an integer");
	refused(dir, "[{\"msi_path\": \"evtchn\", \"traces\": {\"hvm\": \"hvm-pvh-ipbipi-apic.xt\"}}]",
		"$.guest_runs[0].msi_path: \"evtchn\" is not an MSI path (pirq, apic)");
	refused(dir, "[{\"msi_path\": 2, \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].msi_path: must be an MSI path's name (pirq, apic), not an integer");
	refused(dir, "[{\"msi_path\": \"apic\", \"load\": {\"ping_received\": -3}, \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].load.ping_received: must be a finite number >= 0");
	refused(dir, "[{\"msi_path\": \"apic\", \"load\": {\"ab\": {\"failed\": -1}}, \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].load.ab.failed: must be a finite number >= 0");
	refused(dir, "[{\"msi_path\": \"apic\", \"load\": [], \"traces\": {\"hvm\": \"x\"}}]",
		"$.guest_runs[0].load: must be an object, not an array");
	refused(dir, "{}", "$.guest_runs: must be an array, not an object");
	refused(dir, "[7]", "$.guest_runs[0]: must be an object, not an integer");
	/* a truncated xz trace: the probes library's line, after the JSON path */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "head -c 4000 '" FX "apic.xt.xz' > '%s/cut.xt.xz'", dir);
		assert_int_equal(system(cmd), 0);
	}
	refused(dir, RUN("apic", "{\"hvm\": \"cut.xt.xz\"}"), "$.guest_runs[0].traces.hvm: ");
	refused(dir, RUN("apic", "{\"hvm\": \"cut.xt.xz\"}"), "cut.xt.xz: xz: truncated xz data at compressed offset");
	/* IPIBENCH_TRACE_HVM (the traces' summaries read it): a bad value is a
	 * usage error before anything is read or written. */
	{
		char *out = path2(dir, "out");
		struct stat st;

		write_results(dir, RUN("apic", "{\"hvm\": \"hvm-pvh-ipbipi-apic.xt\"}"));
		setenv("IPIBENCH_TRACE_HVM", "yes", 1);
		expect_exit(cmd_report, 2, "report", "-q", "-o", out, dir);
		assert_int_equal(stat(out, &st), -1);
		setenv("IPIBENCH_TRACE_HVM", "tsc", 1);
		expect_exit(cmd_report, 0, "report", "-q", "-o", out, dir);
		unsetenv("IPIBENCH_TRACE_HVM");
		free(out);
	}
#undef RUN
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(guest_section, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(nic_section, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(refusals, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
