/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/runlevel.c: run-level samples, the unit of every comparison.
 *
 * Per-call samples of one boot are not independent observations of a mode
 * (the boot decides much of the time per call), so comparisons use:
 *   - loops: one value per timed loop ("loops" in results.json), ns per
 *     call = ns / calls; replicated within one boot;
 *   - boots: one value per ok run, the mean ns per call of its loops (or,
 *     for results without loops, the mean of its per-call samples), so the
 *     variance between boots is in the error;
 *   - loop pairs: for paired sender workloads (senders = A, B), per pair
 *     the B loop and the A loop of one boot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "ipibench/counters.h"
#include "ipibench/senders.h"

static bool sender_valid(const char *s)
{
	return s && ipibench_sender_index(s, strlen(s)) >= 0;
}

/* params.senders: "physical, cluster" or ["physical", "cluster"]. */
static void parse_senders(struct group *g, json_t *params)
{
	if (g->senders[0])
		return;
	json_t *s = json_object_get(params, "senders");
	char buf[64] = "";
	if (json_is_string(s)) {
		snprintf(buf, sizeof(buf), "%s", json_string_value(s));
	} else if (json_is_array(s) && json_array_size(s) == 2 &&
		   json_is_string(json_array_get(s, 0)) && json_is_string(json_array_get(s, 1))) {
		snprintf(buf, sizeof(buf), "%s,%s", json_string_value(json_array_get(s, 0)),
			 json_string_value(json_array_get(s, 1)));
	}
	char *save = NULL, *a = strtok_r(buf, ", \t", &save), *b = strtok_r(NULL, ", \t", &save);
	if (a && b && sender_valid(a) && sender_valid(b)) {
		g->senders[0] = xstrdup(a);
		g->senders[1] = xstrdup(b);
	}
}

static int loop_num(json_t *o, const char *key, bool need, double *out, const char *jp,
		    size_t i, char *err, const char *file)
{
	json_t *v = json_object_get(o, key);
	if (!v && !need) {
		*out = NAN;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		an_err(err, "%s: %s.loops[%zu].%s: %s", file, jp, i, key,
		       v ? "not an integer >= 0" : "missing");
		return -1;
	}
	*out = (double)json_integer_value(v);
	return 0;
}

static int parse_loop(struct run_rec *r, json_t *o, const char *jp, size_t i,
		      size_t nloops, const char *file, char *err)
{
	if (!json_is_object(o)) {
		an_err(err, "%s: %s.loops[%zu]: not an object", file, jp, i);
		return -1;
	}
	struct loop l = { .pair = -1, .arm = -1 };
	if (loop_num(o, IPB_KEY(LOOP_NS), true, &l.ns, jp, i, err, file) ||
	    loop_num(o, IPB_KEY(LOOP_CALLS), true, &l.calls, jp, i, err, file) ||
	    loop_num(o, IPB_KEY(LOOP_CYCLES), false, &l.cycles, jp, i, err, file) ||
	    loop_num(o, IPB_KEY(LOOP_CHUNKS), false, &l.chunks, jp, i, err, file))
		return -1;
	if (l.calls < 1) {
		an_err(err, "%s: %s.loops[%zu].calls: must be >= 1", file, jp, i);
		return -1;
	}
	json_t *s = json_object_get(o, IPB_KEY(LOOP_SENDER));
	if (s && (!json_is_string(s) || !sender_valid(json_string_value(s)))) {
		an_err(err, "%s: %s.loops[%zu].sender: expected genapic, physical or cluster",
		       file, jp, i);
		return -1;
	}
	if (s)
		snprintf(l.sender, sizeof(l.sender), "%s", json_string_value(s));
	double v;
	if (json_object_get(o, IPB_KEY(LOOP_PAIR))) {
		if (loop_num(o, IPB_KEY(LOOP_PAIR), true, &v, jp, i, err, file))
			return -1;
		/* Pairs are numbered from 0 in order: an index is below the
		 * number of loops of its workload. */
		if (v >= (double)nloops) {
			an_err(err, "%s: %s.loops[%zu].pair: %.0f is not below the number of loops (%zu)",
			       file, jp, i, v, nloops);
			return -1;
		}
		l.pair = (long)v;
	}
	if (json_object_get(o, IPB_KEY(LOOP_ARM))) {
		if (loop_num(o, IPB_KEY(LOOP_ARM), true, &v, jp, i, err, file))
			return -1;
		if (v > 1) {
			an_err(err, "%s: %s.loops[%zu].arm: must be 0 or 1", file, jp, i);
			return -1;
		}
		l.arm = (int)v;
	}
	r->loops = xrealloc(r->loops, (r->nloops + 1) * sizeof(*r->loops));
	r->loops[r->nloops++] = l;
	return 0;
}

/* Arms of the paired loops of one run: "arm" when given, else by sender
 * (senders[0] is A), else (A/A without "arm") by order within the pair. */
static void assign_arms(const struct group *g, struct run_rec *r)
{
	const char *a = g->senders[0], *b = g->senders[1];
	if (!a) {	/* no params.senders: order of first appearance */
		for (size_t i = 0; i < r->nloops; i++)
			if (r->loops[i].pair >= 0) {
				if (!a)
					a = r->loops[i].sender;
				else if (!b && strcmp(r->loops[i].sender, a))
					b = r->loops[i].sender;
			}
	}
	bool same = !b || !strcmp(a, b);
	/* pair < nloops (parse_loop): which pairs have had a loop, O(n) */
	bool *seen = xcalloc(r->nloops, sizeof(*seen));
	for (size_t i = 0; i < r->nloops; i++) {
		struct loop *l = &r->loops[i];
		if (l->pair < 0)
			continue;
		bool earlier = seen[l->pair];
		seen[l->pair] = true;
		if (l->arm >= 0)
			continue;
		if (!same) {
			l->arm = strcmp(l->sender, a) ? 1 : 0;
			continue;
		}
		r->arm_by_order = true;
		l->arm = earlier;
	}
	free(seen);
}

int runlevel_add(struct group *g, const char *file, const char *run_id, json_t *w,
		 size_t first_sample, const char *jp, char *err)
{
	g->rr = xrealloc(g->rr, (g->nrr + 1) * sizeof(*g->rr));
	struct run_rec *r = &g->rr[g->nrr++];
	memset(r, 0, sizeof(*r));
	r->id = xstrdup(run_id);
	for (size_t i = first_sample; i < g->n; i++)
		r->percall_sum += g->ns[i];
	r->percall_n = g->n - first_sample;
	parse_senders(g, json_object_get(w, IPB_KEY(WL_PARAMS)));
	json_t *loops = json_object_get(w, IPB_KEY(WL_LOOPS));
	if (!loops)
		return 0;
	if (!json_is_array(loops)) {
		an_err(err, "%s: %s.loops: not an array", file, jp);
		return -1;
	}
	size_t nl = json_array_size(loops);
	if (nl > AN_MAX_LOOPS) {
		an_err(err, "%s: %s.loops: %zu loops, more than %d", file, jp, nl, AN_MAX_LOOPS);
		return -1;
	}
	for (size_t i = 0; i < nl; i++)
		if (parse_loop(r, json_array_get(loops, i), jp, i, nl, file, err))
			return -1;
	assign_arms(g, r);
	return 0;
}

void runlevel_free(struct group *g)
{
	for (size_t i = 0; i < g->nrr; i++) {
		free(g->rr[i].id);
		free(g->rr[i].loops);
	}
	free(g->rr);
	free(g->senders[0]);
	free(g->senders[1]);
	g->rr = NULL;
	g->nrr = 0;
}

static bool mode_loop(const struct loop *l)
{
	return l->pair < 0 && (!*l->sender || !strcmp(l->sender, "genapic"));
}

size_t runlevel_mode_loops(const struct group *g)
{
	size_t n = 0;
	for (size_t r = 0; r < g->nrr; r++)
		for (size_t i = 0; i < g->rr[r].nloops; i++)
			n += mode_loop(&g->rr[r].loops[i]);
	return n;
}

/* The boot's value: mean ns per call of its mode loops, else of its calls. */
static bool boot_value(const struct run_rec *r, double *v)
{
	double s = 0;
	size_t n = 0;
	for (size_t i = 0; i < r->nloops; i++)
		if (mode_loop(&r->loops[i])) {
			s += r->loops[i].ns / r->loops[i].calls;
			n++;
		}
	if (n) {
		*v = s / (double)n;
		return true;
	}
	if (r->percall_n) {
		*v = r->percall_sum / (double)r->percall_n;
		return true;
	}
	return false;
}

static size_t boots_with_value(const struct group *g)
{
	size_t n = 0;
	double v;
	for (size_t r = 0; r < g->nrr; r++)
		n += boot_value(&g->rr[r], &v);
	return n;
}

enum rl_unit runlevel_unit(struct group *const *gs, size_t n)
{
	bool boots = n > 0, loops = n > 0;
	for (size_t i = 0; i < n; i++) {
		boots &= boots_with_value(gs[i]) >= 2;
		loops &= runlevel_mode_loops(gs[i]) >= 2;
	}
	return boots ? RL_BOOTS : loops ? RL_LOOPS : RL_NONE;
}

double *runlevel_sample(const struct group *g, enum rl_unit unit, size_t *n)
{
	*n = 0;
	double *v = xcalloc(unit == RL_LOOPS ? runlevel_mode_loops(g) + 1 : g->nrr + 1,
			    sizeof(double));
	for (size_t r = 0; r < g->nrr; r++) {
		const struct run_rec *rr = &g->rr[r];
		if (unit == RL_BOOTS && boot_value(rr, &v[*n]))
			(*n)++;
		else if (unit == RL_LOOPS)
			for (size_t i = 0; i < rr->nloops; i++)
				if (mode_loop(&rr->loops[i]))
					v[(*n)++] = rr->loops[i].ns / rr->loops[i].calls;
	}
	if (!*n) {
		free(v);
		return NULL;
	}
	return v;
}

/* Paired loops by pair index, then by position: qsort's order. */
static int cmp_pair(const void *x, const void *y)
{
	const struct loop *a = *(const struct loop *const *)x, *b = *(const struct loop *const *)y;

	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Indexed by the loops that are there (sorted by pair), never by the pair
 * numbers themselves: O(n log n) in the loops of the run. */
size_t runlevel_pairs(const struct group *g, size_t r, double **a, double **b,
		      const char **name_a, const char **name_b)
{
	const struct run_rec *rr = &g->rr[r];
	*a = *b = NULL;
	*name_a = g->senders[0] ? g->senders[0] : "";
	*name_b = g->senders[1] ? g->senders[1] : "";
	size_t nl = 0;
	const struct loop **pl = xcalloc(rr->nloops, sizeof(*pl));
	for (size_t i = 0; i < rr->nloops; i++)
		if (rr->loops[i].pair >= 0)
			pl[nl++] = &rr->loops[i];
	qsort(pl, nl, sizeof(*pl), cmp_pair);
	size_t np = 0;
	double *pa = xcalloc(nl / 2 + 1, sizeof(double));
	double *pb = xcalloc(nl / 2 + 1, sizeof(double));
	/* pair p is complete when it has exactly one A and one B loop */
	for (size_t i = 0; i < nl;) {
		size_t e = i;
		int na = 0, nb = 0;
		double va = 0, vb = 0;
		for (; e < nl && pl[e]->pair == pl[i]->pair; e++) {
			const struct loop *l = pl[e];
			if (l->arm == 0) {
				na++;
				va = l->ns / l->calls;
				if (!**name_a)
					*name_a = l->sender;
			} else {
				nb++;
				vb = l->ns / l->calls;
				if (!**name_b)
					*name_b = l->sender;
			}
		}
		if (na == 1 && nb == 1) {
			pa[np] = va;
			pb[np++] = vb;
		}
		i = e;
	}
	free(pl);
	if (!np) {
		free(pa);
		free(pb);
		return 0;
	}
	*a = pa;
	*b = pb;
	return np;
}

const char *rl_unit_name(enum rl_unit u)
{
	return u == RL_BOOTS ? "boots" : u == RL_LOOPS ? "loops" : "none";
}
