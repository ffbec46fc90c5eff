/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `ipibench trace export`: the Chrome JSON checked against the Trace Event
 * Format's rules (check_tef(), written from the format's document, "Trace
 * Event Format", the JSON Object Format and each phase's section), on every
 * trace of probes/tests/data; its flows against `trace ipi`'s pairing;
 * truncated, corrupt and hostile inputs.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "probes/export.h"
#include "probes/probes.h"
#include "probes/trace.h"
#include "probes/tests/trace_run.h"
#include "lib/spawn.h"
#include "tests/unit/unit.h"

#define DATA "probes/tests/data"

/* ---- the Trace Event Format's rules ----------------------------------------------- */

/*
 * What check_tef() found besides the rules: the events by phase, and the
 * flows (v2: "bind_id" on slices with "flow_out" / "flow_in").
 */
struct tef {
	size_t events, x, i, c, m, flow_out, flow_in;
	char why[256];
};

static bool tef_fail(struct tef *t, size_t k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool tef_fail(struct tef *t, size_t k, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(t->why, sizeof(t->why), "traceEvents[%zu]: ", k);

	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/* A track: (pid, tid); its complete slices as [ts, ts + dur]. */
struct slice {
	double ts, end;
	size_t k;
};
struct track {
	json_int_t pid, tid;
	bool named;
	struct slice *s;
	size_t n, cap;
	size_t open;		/* B events not yet closed by an E */
	bool be_seen;
	double last_be;		/* the last B or E's ts */
};
struct tracks {
	struct track *t;
	size_t n, cap;
};

static struct track *track_of(struct tracks *ts, json_int_t pid, json_int_t tid)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].pid == pid && ts->t[i].tid == tid)
			return &ts->t[i];
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? 2 * ts->cap : 64;
		ts->t = realloc(ts->t, ts->cap * sizeof(*ts->t));
		assert_non_null(ts->t);
	}
	memset(&ts->t[ts->n], 0, sizeof(ts->t[0]));
	ts->t[ts->n].pid = pid;
	ts->t[ts->n].tid = tid;
	return &ts->t[ts->n++];
}

static int slice_cmp(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* the enclosing one first */
	return x->k < y->k ? -1 : x->k > y->k;
}

/* A flow id's ends: the flow_out slice's ts, the earliest flow_in's. */
struct flow {
	char *id;
	double out_ts, in_ts;
	bool out, in;
};

static const char *id_text(const json_t *v, char *b, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	snprintf(b, len, "#%" JSON_INTEGER_FORMAT, json_integer_value(v));
	return b;
}

/*
 * The rules, from the format's document:
 *  - JSON Object Format: an object whose "traceEvents" is an array of
 *    events; "displayTimeUnit", when there, "ms" or "ns".
 *  - Every event: an object with "ph" (one character) and, for every phase
 *    but metadata, "name" (a string), "pid" and "tid" (integers) and "ts"
 *    (a number of microseconds); "cat" a string, "args" an object.
 *  - Complete events ("X"): "dur" a number >= 0.  They may come in any
 *    order, but a track's slices nest: one ends before the next starts, or
 *    encloses it (what viewers need to stack them).
 *  - Duration events ("B"/"E"): on each track in timestamp order, each E
 *    closing the last open B (none open at the end).
 *  - Instant events ("i", "I"): "s", when there, "g", "p" or "t".
 *  - Counter events ("C"): "args" an object of numbers (one series each).
 *  - Metadata events ("M"): process_name, process_labels,
 *    process_sort_index, thread_name, thread_sort_index; the names'
 *    "args.name" a string, the labels' "args.labels" a string, the sort
 *    indexes' "args.sort_index" an integer.
 *  - Flow events, v2 form: "bind_id" (a string or an integer) on a slice
 *    (X, B) with "flow_out" or "flow_in" true; each flow_in's id has a
 *    flow_out slice no later than it, and each flow_out's id at least
 *    one flow_in (every flow start has its end); v1 "s"/"t"/"f" would need
 *    "id", a "t" or "f" after its "s", and each "s" its "f".
 * And one of ours: every track an event is on is named by thread_name.
 */
#define FAIL(...) do { ok = tef_fail(t, k, __VA_ARGS__); goto done; } while (0)
static bool check_tef(const json_t *root, struct tef *t)
{
	const json_t *evs = json_object_get(root, "traceEvents"), *e, *du;
	struct tracks tr = { 0 };
	struct flow *fl = NULL;
	size_t nfl = 0, capfl = 0, k;
	bool ok = true;

	memset(t, 0, sizeof(*t));
	if (!json_is_object(root) || !json_is_array(evs)) {
		snprintf(t->why, sizeof(t->why), "not an object with a traceEvents array");
		return false;
	}
	du = json_object_get(root, "displayTimeUnit");
	if (du && (!json_is_string(du) || (strcmp(json_string_value(du), "ms") &&
					  strcmp(json_string_value(du), "ns")))) {
		snprintf(t->why, sizeof(t->why), "displayTimeUnit is not \"ms\" or \"ns\"");
		return false;
	}
	json_array_foreach(evs, k, e) {
		const json_t *ph = json_object_get(e, "ph"), *name = json_object_get(e, "name");
		const json_t *pid = json_object_get(e, "pid"), *tid = json_object_get(e, "tid");
		const json_t *ts = json_object_get(e, "ts"), *args = json_object_get(e, "args");
		const json_t *cat = json_object_get(e, "cat"), *bid = json_object_get(e, "bind_id");
		const char *p;
		struct track *trk;

		t->events++;
		if (!json_is_object(e))
			FAIL("not an object");
		if (!json_is_string(ph) || strlen(json_string_value(ph)) != 1)
			FAIL("no one-character ph");
		p = json_string_value(ph);
		if (!json_is_string(name))
			FAIL("no name");
		if (!json_is_integer(pid) || !json_is_integer(tid))
			FAIL("pid and tid are not integers");
		if (cat && !json_is_string(cat))
			FAIL("cat is not a string");
		if (args && !json_is_object(args))
			FAIL("args is not an object");
		if (*p != 'M' && (!json_is_number(ts) || !isfinite(json_number_value(ts))))
			FAIL("ts is not a number");
		trk = track_of(&tr, json_integer_value(pid), json_integer_value(tid));
		if (bid && *p != 'X' && *p != 'B')
			FAIL("bind_id on a %s event, not a slice", p);
		switch (*p) {
		case 'X': {
			const json_t *dur = json_object_get(e, "dur");
			double s = json_number_value(ts);

			if (!json_is_number(dur) || json_number_value(dur) < 0)
				FAIL("X without a dur >= 0");
			t->x++;
			if (trk->n == trk->cap) {
				trk->cap = trk->cap ? 2 * trk->cap : 256;
				trk->s = realloc(trk->s, trk->cap * sizeof(*trk->s));
				assert_non_null(trk->s);
			}
			trk->s[trk->n++] = (struct slice){ s, s + json_number_value(dur), k };
			break;
		}
		case 'i': case 'I': {
			const json_t *sc = json_object_get(e, "s");

			if (sc && (!json_is_string(sc) || !strchr("gpt", *json_string_value(sc)) ||
				   strlen(json_string_value(sc)) != 1))
				FAIL("instant's s is not g, p or t");
			t->i++;
			break;
		}
		case 'C': {
			const char *key;
			const json_t *v;

			if (!args || !json_object_size(args))
				FAIL("counter without args");
			json_object_foreach((json_t *)args, key, v)
				if (!json_is_number(v))
					FAIL("counter series %s is not a number", key);
			t->c++;
			break;
		}
		case 'M': {
			const char *n = json_string_value(name), *key;
			const json_t *v;

			if (!strcmp(n, "process_name") || !strcmp(n, "thread_name"))
				key = "name";
			else if (!strcmp(n, "process_labels"))
				key = "labels";
			else if (!strcmp(n, "process_sort_index") || !strcmp(n, "thread_sort_index"))
				key = "sort_index";
			else
				FAIL("metadata event %s is not one of the format's", n);
			v = args ? json_object_get(args, key) : NULL;
			if (strcmp(key, "sort_index") ? !json_is_string(v) : !json_is_integer(v))
				FAIL("metadata %s without its args.%s", n, key);
			if (!strcmp(n, "thread_name"))
				trk->named = true;
			t->m++;
			break;
		}
		case 'B': case 'E':
			if (trk->be_seen && json_number_value(ts) < trk->last_be)
				FAIL("%s before its track's last B or E", p);
			trk->be_seen = true;
			trk->last_be = json_number_value(ts);
			if (*p == 'E' && !trk->open)
				FAIL("E with no B open on its track");
			trk->open += *p == 'B' ? 1 : (size_t)-1;
			break;
		case 's': case 't': case 'f': {
			/* v1 flows: an id; a step or end after its start */
			const json_t *id = json_object_get(e, "id");
			char b[32];
			const char *ids;
			size_t j;

			if (!json_is_string(id) && !json_is_integer(id))
				FAIL("flow event %s without an id", p);
			ids = id_text(id, b, sizeof(b));
			for (j = 0; j < nfl && strcmp(fl[j].id, ids); j++)
				;
			if (*p == 's') {
				if (j < nfl)
					FAIL("a second flow start of %s", ids);
				if (nfl == capfl) {
					capfl = capfl ? 2 * capfl : 256;
					fl = realloc(fl, capfl * sizeof(*fl));
					assert_non_null(fl);
				}
				fl[nfl++] = (struct flow){ .id = strdup(ids), .out = true,
							   .out_ts = json_number_value(ts) };
			} else {
				if (j == nfl)
					FAIL("flow %s: %s without its start", ids, p);
				if (*p == 'f') {
					fl[j].in = true;
					fl[j].in_ts = json_number_value(ts);
				}
			}
			break;
		}
		default:
			FAIL("phase %s: not one the exporter writes", p);
		}
		if (bid) {
			bool fo = json_is_true(json_object_get(e, "flow_out"));
			bool fi = json_is_true(json_object_get(e, "flow_in"));
			char b[32];
			const char *id;
			size_t j;

			if (!json_is_string(bid) && !json_is_integer(bid))
				FAIL("bind_id is not a string or an integer");
			if (!fo && !fi)
				FAIL("bind_id without flow_out or flow_in");
			id = id_text(bid, b, sizeof(b));
			for (j = 0; j < nfl && strcmp(fl[j].id, id); j++)
				;
			if (j == nfl) {
				if (nfl == capfl) {
					capfl = capfl ? 2 * capfl : 256;
					fl = realloc(fl, capfl * sizeof(*fl));
					assert_non_null(fl);
				}
				fl[nfl] = (struct flow){ .id = strdup(id) };
				nfl++;
			}
			if (fo) {
				if (fl[j].out)
					FAIL("a second flow_out of %s", id);
				fl[j].out = true;
				fl[j].out_ts = json_number_value(ts);
				t->flow_out++;
			}
			if (fi) {
				if (!fl[j].in || json_number_value(ts) < fl[j].in_ts)
					fl[j].in_ts = json_number_value(ts);
				fl[j].in = true;
				t->flow_in++;
			}
		}
	}
done:
	for (size_t j = 0; j < nfl && ok; j++) {
		if (!fl[j].out || !fl[j].in) {
			snprintf(t->why, sizeof(t->why), "flow %s has no %s", fl[j].id,
				 fl[j].out ? "flow_in" : "flow_out");
			ok = false;
		} else if (fl[j].in_ts < fl[j].out_ts) {
			snprintf(t->why, sizeof(t->why), "flow %s ends before it starts", fl[j].id);
			ok = false;
		}
	}
	for (size_t j = 0; j < nfl; j++)
		free(fl[j].id);
	free(fl);
	for (size_t j = 0; j < tr.n; j++) {
		struct track *trk = &tr.t[j];
		struct slice *stack[64];
		size_t depth = 0;

		if (ok && trk->open) {
			snprintf(t->why, sizeof(t->why), "track pid %" JSON_INTEGER_FORMAT " tid %"
				 JSON_INTEGER_FORMAT ": %zu B without their E", trk->pid, trk->tid,
				 trk->open);
			ok = false;
		}
		if (ok && trk->n && !trk->named && trk->tid) {
			snprintf(t->why, sizeof(t->why), "track pid %" JSON_INTEGER_FORMAT " tid %"
				 JSON_INTEGER_FORMAT " has no thread_name", trk->pid, trk->tid);
			ok = false;
		}
		if (trk->n)
			qsort(trk->s, trk->n, sizeof(*trk->s), slice_cmp);
		for (size_t q = 0; q < trk->n && ok; q++) {
			struct slice *s = &trk->s[q];

			while (depth && stack[depth - 1]->end <= s->ts && stack[depth - 1]->end < s->end)
				depth--;
			if (depth && s->end > stack[depth - 1]->end) {
				snprintf(t->why, sizeof(t->why), "traceEvents[%zu] (%.3f to %.3f) overlaps "
					 "traceEvents[%zu] (%.3f to %.3f) on its track without nesting",
					 s->k, s->ts, s->end, stack[depth - 1]->k, stack[depth - 1]->ts,
					 stack[depth - 1]->end);
				ok = false;
			}
			if (depth < 64)
				stack[depth++] = s;
		}
		free(trk->s);
	}
	free(tr.t);
	return ok;
}

/* ---- the exports of the committed traces ----------------------------------------- */

/*
 * The exports read back are parsed with jansson, one allocation per node:
 * through the sanitizer's allocator (a stack trace taken at each malloc,
 * each free held in quarantine) parsing and freeing them took about 40%
 * of this binary's time, for memory that is not under test (jansson and
 * these trees are the tests' own; what the exporter allocates still goes
 * through ASan).  So load() has jansson take its nodes from a bump
 * arena, and drop() frees a loaded tree at once: free is a no-op while the
 * arena's funcs are in place, and the arena is reset when no loaded tree
 * is left.  A loaded tree given to json_decref() instead is a free() of
 * memory malloc() did not return, which ASan reports.
 */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};
static struct arena_block *arena;
static unsigned arena_trees;

static void *arena_malloc(size_t n)
{
	const size_t a = sizeof(max_align_t);

	n = (n + a - 1) / a * a;
	if (!arena || arena->cap - arena->used < n) {
		size_t cap = n > (8u << 20) ? n : 8u << 20;
		struct arena_block *b = malloc(sizeof(*b) + cap);

		if (!b)
			return NULL;
		b->next = arena;
		b->used = 0;
		b->cap = cap;
		arena = b;
	}
	arena->used += n;
	return (char *)arena->data + arena->used - n;
}

static void arena_free(void *p)
{
	(void)p;
}

/* The file read whole, then parsed (json_load_file() reads it a getc() at a time). */
static json_t *load(const char *path)
{
	char *text = tu_slurp(path);
	json_error_t e;
	json_t *j;

	if (!text)
		fail_msg("%s: cannot be read", path);
	json_set_alloc_funcs(arena_malloc, arena_free);
	j = json_loadb(text, strlen(text), 0, &e);
	json_set_alloc_funcs(malloc, free);
	free(text);
	if (!j)
		fail_msg("%s: line %d: %s", path, e.line, e.text);
	arena_trees++;
	return j;
}

/* A tree from load() freed; once none is left, the arena is emptied (its
 * last block kept for the next tree: its pages are already there). */
static void drop(json_t *j)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
	json_decref(j);
	json_set_alloc_funcs(malloc, free);
	if (--arena_trees)
		return;
	while (arena && arena->next) {
		struct arena_block *b = arena->next;

		arena->next = b->next;
		free(b);
	}
	if (arena)
		arena->used = 0;
}

/* Count the events of ROOT named NAME with phase PH, and with KEY in args. */
static size_t count(const json_t *root, const char *ph, const char *name, const char *key)
{
	const json_t *e;
	size_t k, n = 0;

	json_array_foreach(json_object_get(root, "traceEvents"), k, e)
		if (!strcmp(json_string_value(json_object_get(e, "ph")), ph) &&
		    !strcmp(json_string_value(json_object_get(e, "name")), name) &&
		    (!key || json_object_get(e, key) || json_object_get(json_object_get(e, "args"), key)))
			n++;
	return n;
}

static bool is_trace(const char *n)
{
	size_t l = strlen(n);

	return (l > 3 && !strcmp(n + l - 3, ".xt")) || (l > 6 && !strcmp(n + l - 6, ".xt.xz"));
}

/* Every flow joins a send slice to a receive of the same vector and send number. */
static void check_flow_ends(const json_t *root)
{
	const json_t *evs = json_object_get(root, "traceEvents"), *e;
	json_t *sends = json_object();
	size_t k;

	json_array_foreach(evs, k, e)
		if (json_is_true(json_object_get(e, "flow_out")))
			json_object_set(sends, json_string_value(json_object_get(e, "bind_id")),
					(json_t *)e);
	json_array_foreach(evs, k, e) {
		const json_t *s, *a = json_object_get(e, "args");

		if (!json_is_true(json_object_get(e, "flow_in")))
			continue;
		s = json_object_get(sends, json_string_value(json_object_get(e, "bind_id")));
		assert_non_null(s);
		assert_string_equal(json_string_value(json_object_get(e, "name")), "apic:ipi_recv");
		assert_int_equal(strncmp(json_string_value(json_object_get(s, "name")),
					 "apic:send_ipi_", 14), 0);
		assert_int_equal(json_integer_value(json_object_get(a, "vector")),
				 json_integer_value(json_object_get(json_object_get(s, "args"), "vector")));
		assert_int_equal(json_integer_value(json_object_get(a, "send")),
				 json_integer_value(json_object_get(json_object_get(s, "args"), "send")));
	}
	json_decref(sends);
}

static void test_chrome_real_traces(void **st)
{
	DIR *d = opendir(DATA);
	struct dirent *de;
	int files = 0, with_flows = 0, with_hvm = 0;

	(void)st;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char in[512], outp[600], err[512];
		struct xt_file f;
		struct tr_ipi p;
		struct tef t;
		json_t *root;

		if (!is_trace(de->d_name))
			continue;
		snprintf(in, sizeof(in), DATA "/%s", de->d_name);
		snprintf(outp, sizeof(outp), "%s/%s.json", tu_dir, de->d_name);
		assert_int_equal(run("export", in, "--format", "chrome", "-o", outp, NULL), 0);
		root = load(outp);
		assert_non_null(root);
		if (!check_tef(root, &t))
			fail_msg("%s: %s", de->d_name, t.why);
		/* The pairing is trace ipi's: as many receives, and a flow for
		 * each matched one. */
		assert_int_equal(xt_open(&f, in, XT_MAX_BYTES, err, sizeof(err)), 0);
		assert_int_equal(tr_ipi_run(&p, &f), 0);
		assert_int_equal(count(root, "X", "apic:ipi_recv", NULL), p.recv);
		assert_int_equal(count(root, "X", "apic:ipi_recv", "unmatched"), p.unmatched);
		assert_int_equal(t.flow_in, p.recv - p.unmatched);
		assert_int_equal(count(root, "X", "apic:ipi_recv", "flow_in"), p.recv - p.unmatched);
		assert_int_equal(count(root, "i", "apic:icr_write", NULL), p.icr_writes);
		{
			uint64_t ops = 0;

			for (int m = 0; m < TR_NMODES; m++)
				ops += p.mode[m].ops;
			assert_int_equal(count(root, "X", "apic:send_ipi_mask", NULL) +
					 count(root, "X", "apic:send_ipi_allbut", NULL) +
					 count(root, "X", "apic:send_ipi_self", NULL), ops);
		}
		check_flow_ends(root);
		if (t.flow_in)
			with_flows++;
		if (count(root, "M", "process_name", NULL) > 1)
			with_hvm++;
		tr_ipi_fini(&p);
		xt_unmap(&f);
		drop(root);
		files++;
	}
	closedir(d);
	assert_true(files >= 20);
	assert_true(with_flows >= 4);	/* the agent's, gen-cluster, real-ipibench */
	assert_true(with_hvm >= 10);
}

/* The exit instants per vCPU are xenalyze's VMEXIT counts of the HVM profile. */
static void test_chrome_hvm(void **st)
{
	static const char in[] = DATA "/hvm-pvh-ipbipi-apic-sched.xt.xz";
	char outp[128], err[512];
	struct tr_summary s;
	struct xt_file f;
	json_t *root;
	const json_t *e;
	size_t k, exits = 0, inj = 0;
	uint64_t vmexit = 0, virq = 0;

	(void)st;
	snprintf(outp, sizeof(outp), "%s/hvm.json", tu_dir);
	assert_int_equal(run("export", in, "--format", "chrome", "-o", outp, NULL), 0);
	root = load(outp);
	json_array_foreach(json_object_get(root, "traceEvents"), k, e) {
		const char *cat = json_string_value(json_object_get(e, "cat"));

		if (!cat || strcmp(cat, "hvm"))
			continue;
		if (json_object_get(json_object_get(e, "args"), "reason"))
			exits++;
		if (!strcmp(json_string_value(json_object_get(e, "name")), "INJ_VIRQ"))
			inj++;
	}
	assert_int_equal(xt_open(&f, in, XT_MAX_BYTES, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_true(s.has_hvm);
	for (uint32_t i = 0; i < s.hvm.nv; i++) {
		vmexit += s.hvm.v[i].vmexit;
		for (uint32_t j = 0; j < s.hvm.v[i].virq.cap; j++)
			if (s.hvm.v[i].virq.used[j])
				virq += s.hvm.v[i].virq.v[j];
	}
	assert_true(vmexit > 100);
	assert_int_equal(exits, vmexit);
	assert_int_equal(inj, virq);
	tr_summary_fini(&s);
	xt_unmap(&f);
	drop(root);
}

/* Several files: each its own tracks; the metadata names them. */
static void test_chrome_two_files(void **st)
{
	char outp[128];
	json_t *root;
	struct tef t;

	(void)st;
	snprintf(outp, sizeof(outp), "%s/two.json", tu_dir);
	assert_int_equal(run("export", DATA "/agent-flush-phys40.xt", DATA "/agent-flush-cluster40.xt",
			     "--format", "chrome", "-o", outp, NULL), 0);
	root = load(outp);
	if (!check_tef(root, &t))
		fail_msg("%s", t.why);
	assert_int_equal(json_array_size(json_object_get(json_object_get(root, "metadata"), "files")),
			 2);
	assert_int_equal(count(root, "M", "process_name", NULL), 2);
	drop(root);
}

/* A results.json beside the trace names host, Xen, mode, workload and clock. */
static void test_chrome_results_json(void **st)
{
	char dir[128], trace[160], res[160], outp[160], cmd[512];
	json_t *root, *f0;

	(void)st;
	snprintf(dir, sizeof(dir), "%s/run/traces", tu_dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && xz -dc " DATA "/real-xentrace-mixed-8.xt.xz > "
		 "'%s/physical-r0-flush.xtrace'", dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(trace, sizeof(trace), "%s/physical-r0-flush.xtrace", dir);
	snprintf(res, sizeof(res), "%s/run/results.json", tu_dir);
	assert_int_equal(tu_write(res, "{\"host\": {\"name\": \"box \\\"7\\\"\", \"xen_version\": "
				  "\"4.17.5\", \"tsc_khz\": 2000000}, \"tool\": {\"commit\": \"abc\"},"
				  " \"runs\": [{\"id\": \"physical-r0\", \"mode\": \"physical\", "
				  "\"workloads\": [{\"name\": \"flush\", \"trace\": "
				  "\"traces/physical-r0-flush.xtrace\"}]}]}"), 0);
	snprintf(outp, sizeof(outp), "%s/r.json", tu_dir);
	assert_int_equal(run("export", trace, "--format", "chrome", "-o", outp, NULL), 0);
	root = load(outp);
	{
		struct tef t;

		if (!check_tef(root, &t))
			fail_msg("%s", t.why);
		assert_int_equal(count(root, "M", "process_labels", NULL), 1);
	}
	f0 = json_array_get(json_object_get(json_object_get(root, "metadata"), "files"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "host")), "box \"7\"");
	assert_string_equal(json_string_value(json_object_get(f0, "xen")), "4.17.5");
	assert_string_equal(json_string_value(json_object_get(f0, "mode")), "physical");
	assert_string_equal(json_string_value(json_object_get(f0, "workload")), "flush");
	assert_string_equal(json_string_value(json_object_get(f0, "tsc_khz_from")), "results.json");
	assert_true(json_real_value(json_object_get(f0, "tsc_khz")) == 2000000.0);
	drop(root);
	/* --tsc-khz goes first */
	assert_int_equal(run("export", trace, "--format", "chrome", "-o", outp, "--tsc-khz", "1000000",
			     NULL), 0);
	root = load(outp);
	f0 = json_array_get(json_object_get(json_object_get(root, "metadata"), "files"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "tsc_khz_from")), "--tsc-khz");
	drop(root);
	/* a broken results.json: one line naming it and the JSON path, not used */
	assert_int_equal(tu_write(res, "{\"host\": {\"name\": 7}}"), 0);
	assert_int_equal(run("export", trace, "--format", "chrome", "-o", outp, NULL), 0);
	assert_non_null(strstr(out, "results.json: $.host.name is an integer, not a string"));
	root = load(outp);
	f0 = json_array_get(json_object_get(json_object_get(root, "metadata"), "files"), 0);
	assert_true(json_is_null(json_object_get(f0, "host")));
	drop(root);
}

/* ---- truncated, corrupt and hostile inputs ---------------------------------------- */

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Export IN's bytes P (N): a valid export whatever they are, or a refusal. */
static void export_survives(const char *name, const uint8_t *p, size_t n, bool want_partial)
{
	char in[128], outp[128];
	struct tef t;
	json_t *root;
	int rc;

	snprintf(in, sizeof(in), "%s/%s", tu_dir, name);
	snprintf(outp, sizeof(outp), "%s/%s.json", tu_dir, name);
	unlink(outp);
	write_bytes(in, p, n);
	rc = run("export", in, "--format", "chrome", "-o", outp, NULL);
	if (rc) {
		/* refused: nothing written, one line naming it */
		assert_int_equal(rc, 1);
		assert_int_equal(access(outp, F_OK), -1);
		assert_non_null(strstr(out, name));
		return;
	}
	root = load(outp);
	assert_non_null(root);
	if (!check_tef(root, &t) && !strstr(t.why, "overlaps"))
		fail_msg("%s: %s", name, t.why);
	if (want_partial) {
		assert_non_null(strstr(out, "partial export"));
		assert_non_null(strstr(out, "offset"));
		assert_non_null(strstr(out, name));
	}
	drop(root);
}

static void test_chrome_hostile(void **st)
{
	char *buf;
	size_t n;
	uint8_t *m;
	uint32_t seed = 1;

	(void)st;
	buf = tu_slurp(DATA "/agent-flush-phys40.xt");
	assert_non_null(buf);
	{
		struct stat sb;

		assert_int_equal(stat(DATA "/agent-flush-phys40.xt", &sb), 0);
		n = (size_t)sb.st_size;
	}
	/* truncated inside a record, at several places */
	for (size_t cut = 1001; cut < n; cut += n / 7) {
		char name[32];

		snprintf(name, sizeof(name), "cut%zu.xt", cut);
		export_survives(name, (const uint8_t *)buf, cut, true);
	}
	/* --strict: the same export written, exit 1 */
	{
		char in[128], outp[128];

		snprintf(in, sizeof(in), "%s/cut1001.xt", tu_dir);
		snprintf(outp, sizeof(outp), "%s/strict.json", tu_dir);
		assert_int_equal(run("export", in, "--format", "chrome", "-o", outp, "--strict", NULL), 1);
		assert_int_equal(access(outp, F_OK), 0);
	}
	/* corrupt: bytes flipped here and there, 40 mutants */
	m = malloc(n);
	assert_non_null(m);
	for (int k = 0; k < 40; k++) {
		char name[32];

		memcpy(m, buf, n);
		for (int j = 0; j < 8; j++) {
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % n] ^= (uint8_t)(seed >> 24 | 1);
		}
		snprintf(name, sizeof(name), "mut%d.xt", k);
		export_survives(name, m, n, false);
	}
	/* not a trace: refused, nothing written */
	memset(m, 0x41, 4096);
	export_survives("garbage.xt", m, 4096, false);
	assert_non_null(strstr(out, "not a xentrace file"));
	free(m);
	free(buf);
}

/* ---- CTF, read back by babeltrace2 ------------------------------------------------- */

struct ncount {
	char name[64];
	uint64_t n;
};

static void add_name(struct ncount *c, size_t *n, size_t max, const char *name, size_t len,
		     uint64_t k)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strlen(c[i].name) == len && !memcmp(c[i].name, name, len))
			break;
	if (i == *n) {
		assert_true(*n < max && len < sizeof(c[0].name));
		memcpy(c[i].name, name, len);
		c[i].name[len] = 0;
		c[i].n = 0;
		(*n)++;
	}
	c[i].n += k;
}

/*
 * `babeltrace2 DIR` run as a child (spawn.h), its text output counted per
 * event name into C (*N of them): each line is "[TIME] (+DELTA) NAME: {...}".
 * Its exit status 0 is asserted: a babeltrace2 that is missing (exit 127) or
 * refuses the trace fails the test.
 */
static void bt2_counts(const char *dir, struct ncount *c, size_t *n, size_t max)
{
	char op[128], ep[128], line[4096];
	struct sio_child ch = SIO_CHILD_INIT;
	int ofd, efd, status;
	FILE *f;

	snprintf(op, sizeof(op), "%s/bt2.out", tu_dir);
	snprintf(ep, sizeof(ep), "%s/bt2.err", tu_dir);
	ofd = open(op, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	efd = open(ep, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(ofd >= 0 && efd >= 0);
	ch.argv = (const char *[]){ "babeltrace2", dir, NULL };
	ch.out = ofd;
	ch.err = efd;
	status = sio_child_run(&ch);
	close(ofd);
	close(efd);
	if (status) {
		char *e = tu_slurp(ep);

		fail_msg("babeltrace2 %s: exit status %d: %.600s", dir, status, e ? e : "");
	}
	*n = 0;
	f = fopen(op, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ") "), *q;

		assert_non_null(p);
		p += 2;
		q = strstr(p, ": {");
		if (!q)
			q = p + strcspn(p, "\n") - 1;	/* "NAME:" with no field */
		add_name(c, n, max, p, (size_t)(q - p), 1);
	}
	fclose(f);
}

/* IN's per-name counts as trace summary gives them. */
static size_t summary_counts(const char *in, struct ncount *c, size_t max)
{
	char err[512];
	struct xt_file f;
	struct tr_summary s;
	struct tr_row *rows;
	size_t nr, n = 0;

	assert_int_equal(xt_open(&f, in, XT_MAX_BYTES, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	rows = tr_summary_rows(&s, &nr);
	assert_non_null(rows);
	for (size_t i = 0; i < nr; i++)
		add_name(c, &n, max, rows[i].name, strlen(rows[i].name), rows[i].count);
	free(rows);
	tr_summary_fini(&s);
	xt_unmap(&f);
	return n;
}

static void same_counts(const char *what, const struct ncount *a, size_t na,
			const struct ncount *b, size_t nb)
{
	if (na != nb)
		fail_msg("%s: %zu event names read back, %zu in trace summary", what, na, nb);
	for (size_t i = 0; i < na; i++) {
		size_t j;

		for (j = 0; j < nb && strcmp(a[i].name, b[j].name); j++)
			;
		if (j == nb || a[i].n != b[j].n)
			fail_msg("%s: %s: %" PRIu64 " read back, %" PRIu64 " in trace summary", what,
				 a[i].name, a[i].n, j < nb ? b[j].n : 0);
	}
}

#define MAXN 512

static void ctf_matches_summary(const char *in, const char *dir)
{
	static struct ncount a[MAXN], b[MAXN];
	size_t na, nb;

	bt2_counts(dir, a, &na, MAXN);
	nb = summary_counts(in, b, MAXN);
	same_counts(in, a, na, b, nb);
}

static void test_ctf_real_traces(void **st)
{
	DIR *d = opendir(DATA);
	struct dirent *de;
	int files = 0;

	(void)st;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char in[512], outp[600];

		if (!is_trace(de->d_name))
			continue;
		snprintf(in, sizeof(in), DATA "/%s", de->d_name);
		snprintf(outp, sizeof(outp), "%s/%s.ctf", tu_dir, de->d_name);
		assert_int_equal(run("export", in, "--format", "ctf", "-o", outp, NULL), 0);
		ctf_matches_summary(in, outp);
		files++;
	}
	closedir(d);
	assert_true(files >= 20);
}

/* Several FILEs: OUT/N-NAME each, babeltrace2 reads them all at once. */
static void test_ctf_two_files(void **st)
{
	static struct ncount a[MAXN], b[MAXN];
	char outp[128], p1[256], p2[256];
	struct stat sb;
	size_t na, nb;

	(void)st;
	snprintf(outp, sizeof(outp), "%s/two", tu_dir);
	assert_int_equal(run("export", DATA "/agent-flush-phys40.xt", DATA "/gen-cluster-4cpu.xt",
			     "--format", "ctf", "-o", outp, NULL), 0);
	snprintf(p1, sizeof(p1), "%s/1-agent-flush-phys40.xt/metadata", outp);
	snprintf(p2, sizeof(p2), "%s/2-gen-cluster-4cpu.xt/metadata", outp);
	assert_int_equal(stat(p1, &sb), 0);
	assert_int_equal(stat(p2, &sb), 0);
	bt2_counts(outp, a, &na, MAXN);
	nb = summary_counts(DATA "/agent-flush-phys40.xt", b, MAXN);
	{
		/* the second file's counts added to the first's */
		static struct ncount c[MAXN];
		size_t nc = summary_counts(DATA "/gen-cluster-4cpu.xt", c, MAXN);

		for (size_t i = 0; i < nc; i++)
			add_name(b, &nb, MAXN, c[i].name, strlen(c[i].name), c[i].n);
	}
	same_counts("two files", a, na, b, nb);
	/* an existing OUT is refused, and left as it was */
	assert_int_equal(run("export", DATA "/gen-cluster-4cpu.xt", "--format", "ctf", "-o", outp,
			     NULL), 1);
	assert_non_null(strstr(out, "exists"));
	assert_int_equal(stat(p1, &sb), 0);
}

/* Truncated and corrupt traces: babeltrace2 reads what was exported, the
 * counts still trace summary's; nothing is left behind a refusal. */
static void test_ctf_hostile(void **st)
{
	struct stat sb;
	char *buf;
	uint8_t *m;
	size_t n;
	uint32_t seed = 7;
	int k = 0;

	(void)st;
	buf = tu_slurp(DATA "/agent-flush-cluster40.xt");
	assert_non_null(buf);
	assert_int_equal(stat(DATA "/agent-flush-cluster40.xt", &sb), 0);
	n = (size_t)sb.st_size;
	m = malloc(n);
	assert_non_null(m);
	for (int round = 0; round < 16; round++) {
		char in[128], outp[128];
		size_t len = n;
		int rc;

		memcpy(m, buf, n);
		if (round < 4) {
			len = 777 + (n / 5) * (size_t)round;	/* truncated */
		} else {
			for (int j = 0; j < 8; j++) {
				seed = seed * 1103515245u + 12345u;
				m[(seed >> 8) % n] ^= (uint8_t)(seed >> 24 | 1);
			}
		}
		snprintf(in, sizeof(in), "%s/h%d.xt", tu_dir, round);
		snprintf(outp, sizeof(outp), "%s/h%d.ctf", tu_dir, round);
		write_bytes(in, m, len);
		rc = run("export", in, "--format", "ctf", "-o", outp, NULL);
		if (rc) {
			assert_int_equal(rc, 1);
			assert_int_equal(access(outp, F_OK), -1);
			continue;
		}
		if (round < 4) {
			assert_non_null(strstr(out, "partial export"));
			assert_non_null(strstr(out, "offset"));
		}
		ctf_matches_summary(in, outp);
		k++;
	}
	assert_true(k >= 12);
	free(m);
	free(buf);
}

/* The checker itself refuses what breaks each rule. */
static void test_checker_catches(void **st)
{
	static const struct {
		const char *json, *why;
	} bad[] = {
		{ "{\"traceEvents\": 1}", "traceEvents array" },
		{ "{\"displayTimeUnit\": \"s\", \"traceEvents\": []}", "displayTimeUnit" },
		{ "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1}]}", "dur" },
		{ "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"pid\": 1, \"tid\": 1}]}",
		  "ts is not" },
		{ "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1, \"s\": \"x\"}]}", "g, p or t" },
		{ "{\"traceEvents\": [{\"ph\": \"C\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1, \"args\": {\"v\": \"1\"}}]}", "not a number" },
		{ "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
		  "\"tid\": 1, \"args\": {}}]}", "args.name" },
		{ "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
		  "\"tid\": 1, \"args\": {\"name\": \"t\"}}, {\"ph\": \"X\", \"name\": \"a\", "
		  "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2, \"bind_id\": \"f\", "
		  "\"flow_out\": true}]}", "has no flow_in" },
		{ "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
		  "\"tid\": 1, \"args\": {\"name\": \"t\"}}, {\"ph\": \"X\", \"name\": \"a\", "
		  "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2, \"bind_id\": \"f\", "
		  "\"flow_in\": true}]}", "has no flow_out" },
		{ "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
		  "\"tid\": 1, \"args\": {\"name\": \"t\"}}, {\"ph\": \"X\", \"name\": \"a\", "
		  "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}, {\"ph\": \"X\", \"name\": "
		  "\"b\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 2}]}", "without nesting" },
		{ "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1, \"dur\": 2}]}", "no thread_name" },
		{ "{\"traceEvents\": [{\"ph\": \"B\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1}]}", "B without their E" },
		{ "{\"traceEvents\": [{\"ph\": \"E\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1}]}", "E with no B" },
		{ "{\"traceEvents\": [{\"ph\": \"B\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 5}, {\"ph\": \"E\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 4}]}", "before its track's last" },
		{ "{\"traceEvents\": [{\"ph\": \"s\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1, \"id\": 3}]}", "has no flow_in" },
		{ "{\"traceEvents\": [{\"ph\": \"f\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1, \"id\": 3}]}", "without its start" },
		{ "{\"traceEvents\": [{\"ph\": \"s\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
		  "\"ts\": 1}]}", "without an id" },
	};
	struct tef t;

	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i].json, 0, NULL);

		assert_non_null(j);
		assert_false(check_tef(j, &t));
		if (!strstr(t.why, bad[i].why))
			fail_msg("case %zu: %s", i, t.why);
		json_decref(j);
	}
}

static void test_usage(void **st)
{
	char outp[128];

	(void)st;
	snprintf(outp, sizeof(outp), "%s/u.json", tu_dir);
	assert_int_equal(run("export", DATA "/gen-cluster-4cpu.xt", NULL), 2);
	assert_non_null(strstr(out, "--format"));
	assert_int_equal(run("export", DATA "/gen-cluster-4cpu.xt", "--format", "svg", "-o", outp,
			     NULL), 2);
	assert_non_null(strstr(out, "not \"svg\""));
	assert_int_equal(run("summary", DATA "/gen-cluster-4cpu.xt", "-o", outp, NULL), 2);
	assert_int_equal(run("export", DATA "/gen-cluster-4cpu.xt", "--format", "chrome", "-o", outp,
			     "--json", NULL), 2);
	assert_int_equal(run("export", "--help", NULL), 0);
	assert_non_null(strstr(out, "ui.perfetto.dev"));
	assert_int_equal(access(outp, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chrome_real_traces, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_chrome_hvm, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_chrome_two_files, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_chrome_results_json, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_chrome_hostile, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_usage, tu_setup, tu_teardown),
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test_setup_teardown(test_ctf_real_traces, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_ctf_two_files, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_ctf_hostile, tu_setup, tu_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
