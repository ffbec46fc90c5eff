/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/fuzz/fuzz_results.c: libFuzzer target for what `ipibench report`
 * and `ipibench history` read: results.json (and, as report detects inputs
 * by content, hyperfine JSON and perf stat CSV), then the statistics and
 * the escaping of every string that reaches a report.
 *
 * Invariants (abort on violation, so the fuzzer keeps the input):
 *   - a refusal is one line naming the file;
 *   - what is accepted is what validation promises: groups have a mode of
 *     ipibench/modes.h, names by sio_name_ok(), finite samples >= 0;
 *   - escaped strings hold no raw control characters and no bidi override
 *     or isolate; md_text() no bare URL; html_text() no raw < > " ';
 *     gp_quote() is one literal gnuplot reads back as the input;
 *   - loop pairs and run-level samples are bounded by the loops read.
 *
 *   make build/fuzz/fuzz_results
 *   build/fuzz/fuzz_results -max_total_time=60 build/fuzz/corpus-results analysis/fuzz/corpus
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/modes.h"
#include "lib/safeio.h"
#include "analysis/internal.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant broken: %s (%s:%d)\n", \
						 #c, __FILE__, __LINE__); abort(); } } while (0)

static void no_ctl(const char *s)
{
	for (; *s; s++)
		CHECK(!((unsigned char)*s < 0x20 || *s == 0x7f));
}

/* gp_quote(s): one literal, nothing that would end it early or expand. */
static void check_gp(const char *s)
{
	char *q = gp_quote(s);
	size_t n = strlen(q);
	no_ctl(q);
	CHECK(n >= 2 && q[0] == q[n - 1] && (q[0] == '\'' || q[0] == '"'));
	for (size_t i = 1; i + 1 < n; i++) {
		if (q[0] == '\'') {
			CHECK(q[i] != '\'');
		} else {
			CHECK(q[i] != '`' && q[i] != '@');
			if (q[i] == '\\') {
				CHECK(q[i + 1] == '"' || q[i + 1] == '\\' || q[i + 1] == '1');
				i++;
			} else {
				CHECK(q[i] != '"');
			}
		}
	}
	free(q);
}

static void check_text(const char *s)
{
	char *m = md_text(s), *c = md_code(s), *h = html_text(s);
	no_ctl(m);
	no_ctl(c);
	no_ctl(h);
	/* no bidi override or isolate passed on (shown as <U+XXXX>) */
	static const char *const bidi[] = { "\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac",
		"\xe2\x80\xad", "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa7",
		"\xe2\x81\xa8", "\xe2\x81\xa9" };
	for (size_t i = 0; i < sizeof(bidi) / sizeof(bidi[0]); i++)
		CHECK(!strstr(m, bidi[i]) && !strstr(c, bidi[i]) && !strstr(h, bidi[i]));
	/* no bare URL left for Markdown to link: "x://" has its ':' escaped */
	for (const char *u = strstr(m, "://"); u; u = strstr(u + 1, "://"))
		CHECK(u == m || !((u[-1] >= 'a' && u[-1] <= 'z') || (u[-1] >= 'A' && u[-1] <= 'Z') ||
				  (u[-1] >= '0' && u[-1] <= '9')));
	CHECK(!strpbrk(h, "<>\"'"));
	for (const char *p = m; *p; p++)
		if (strchr("|<>`[]", *p))
			CHECK(p > m && p[-1] == '\\');
	free(m);
	free(c);
	free(h);
	check_gp(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	if (!init) {
		an_quiet = true;
		init = 1;
	}
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	/* report (any input kind) and history (results.json only) */
	for (int results_only = 0; results_only < 2; results_only++) {
		struct dataset d = { .separate_sets = results_only };
		char err[AN_ERRLEN] = "";
		int rc = dataset_add_text(&d, "fuzz.json", text, size, true, results_only, err);
		if (rc) {
			CHECK(!strncmp(err, "fuzz.json", 9));
			CHECK(!strchr(err, '\n'));
		} else {
			dataset_finish(&d);
			for (size_t i = 0; i < d.ngroups; i++) {
				struct group *g = &d.groups[i];
				CHECK(ipibench_mode_genapic(g->mode));
				CHECK(sio_name_ok(g->workload) && sio_name_ok(g->type));
				CHECK(sio_name_ok(g->host) || !strcmp(g->host, "unknown"));
				for (size_t k = 0; k < g->n; k++)
					CHECK(isfinite(g->ns[k]) && g->ns[k] >= 0);
				CHECK(!g->n || (g->sum.min <= g->sum.median && g->sum.median <= g->sum.max));
				check_text(g->host);
				check_text(g->workload);
				check_text(g->mode);
				/* the run-level samples and loop pairs a report makes:
				 * bounded by the loops that are there */
				size_t nl = 0, n;
				for (size_t r = 0; r < g->nrr; r++) {
					double *a, *b;
					const char *na, *nb;
					size_t np = runlevel_pairs(g, r, &a, &b, &na, &nb);
					CHECK(2 * np <= g->rr[r].nloops);
					free(a);
					free(b);
					nl += g->rr[r].nloops;
				}
				double *x = runlevel_sample(g, RL_LOOPS, &n);
				CHECK(n <= nl);
				free(x);
				x = runlevel_sample(g, RL_BOOTS, &n);
				CHECK(n <= g->nrr);
				free(x);
			}
			for (size_t i = 0; i < d.nsets; i++) {
				check_text(d.sets[i].xen_version);
				check_text(d.sets[i].cpu_model);
				check_text(d.sets[i].commit);
				check_text(d.sets[i].created);
			}
			for (size_t i = 0; i < d.nfailed; i++)
				check_text(d.failed[i].error);
			/* The host state section: any accepted host_state renders. */
			struct sbuf hsb = { 0 };
			json_t *hs = hoststate_json(&d);
			hoststate_render_md(hs, &hsb);
			json_decref(hs);
			sb_free(&hsb);
			for (size_t i = 0; i < d.nhf; i++)
				for (size_t k = 0; k < d.hf[i].n; k++)
					check_text(d.hf[i].cmds[k].command);
			for (size_t i = 0; i < d.nperf; i++)
				for (size_t k = 0; k < d.perf[i].n; k++) {
					check_text(d.perf[i].rows[k].event);
					check_text(d.perf[i].rows[k].metric);
				}
		}
		dataset_free(&d);
	}
	/* the escapers on the raw bytes, too */
	check_text(text);
	free(text);
	return 0;
}
