/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcgplug/: the plugin's pure part (see ipicount.h). */
#include "ipicount.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ic_kind_names[IC_NKINDS] = {
	[IC_BENCH] = "bench", [IC_SEND] = "send", [IC_WAIT] = "wait",
	[IC_HANDLER] = "handler", [IC_IRQ] = "irq",
};
const char *const ic_cnt_names[IC_NCNT] = {
	[IC_INSNS] = "insns", [IC_PAUSE] = "pause", [IC_HLT] = "hlt",
	[IC_ICR] = "icr", [IC_X2APIC] = "x2apic", [IC_MSR] = "msr",
};

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s || strspn(s, "0123456789abcdefABCDEF") != strlen(s) || strlen(s) > 16)
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return errno || *end ? -1 : 0;
}

static int parse_every(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 8)
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || !*v || *v > 10000000 ? -1 : 0;
}

static const struct { const char *key; enum ic_kind kind; bool repeat, async; } mark_keys[] = {
	{ "bench", IC_BENCH, false, false }, { "send", IC_SEND, false, false },
	{ "wait", IC_WAIT, true, false }, { "handler", IC_HANDLER, true, false },
	{ "async_handler", IC_HANDLER, true, true }, { "irq", IC_IRQ, false, false },
};

int ic_parse_args(int argc, char **argv, struct ic_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		size_t kl = eq ? (size_t)(eq - arg) : 0;
		const char *val = eq ? eq + 1 : NULL;
		bool done = false;

		if (!eq || !kl) {
			snprintf(err, errlen, "argument '%s': not KEY=VALUE", arg);
			return -1;
		}
		if (kl == 3 && !strncmp(arg, "out", 3)) {
			if (!*val) {
				snprintf(err, errlen, "out=: empty file name");
				return -1;
			}
			a->out = val;
			continue;
		}
		if (kl == 4 && !strncmp(arg, "text", 4)) {
			char lo[24], *dash = strchr(val, '-');

			if (!dash || (size_t)(dash - val) >= sizeof(lo)) {
				snprintf(err, errlen, "text=%s: not LO-HI", val);
				return -1;
			}
			memcpy(lo, val, dash - val);
			lo[dash - val] = 0;
			if (parse_hex(lo, &a->text_lo) || parse_hex(dash + 1, &a->text_hi) ||
			    a->text_lo >= a->text_hi) {
				snprintf(err, errlen, "text=%s: not LO-HI (hexadecimal, LO < HI)", val);
				return -1;
			}
			continue;
		}
		if (kl == 5 && !strncmp(arg, "calls", 5)) {
			if (strcmp(val, "all")) {
				snprintf(err, errlen, "calls=%s: only calls=all", val);
				return -1;
			}
			a->calls = true;
			continue;
		}
		if (kl == 5 && !strncmp(arg, "every", 5)) {
			if (parse_every(val, &a->every)) {
				snprintf(err, errlen, "every=%s: not a whole number 1-10000000", val);
				return -1;
			}
			continue;
		}
		if (kl == 3 && !strncmp(arg, "tcg", 3)) {
			if (strcmp(val, "multi") && strcmp(val, "single")) {
				snprintf(err, errlen, "tcg=%s: expected multi or single", val);
				return -1;
			}
			a->tcg_single = !strcmp(val, "single");
			continue;
		}
		if (kl == 6 && !strncmp(arg, "sysctl", 6)) {
			if (parse_hex(val, &a->sysctl) || !a->sysctl) {
				snprintf(err, errlen, "sysctl=%s: not a hexadecimal address", val);
				return -1;
			}
			continue;
		}
		for (size_t k = 0; k < sizeof(mark_keys) / sizeof(mark_keys[0]); k++) {
			uint64_t addr;

			if (strlen(mark_keys[k].key) != kl || strncmp(arg, mark_keys[k].key, kl))
				continue;
			if (parse_hex(val, &addr) || !addr) {
				snprintf(err, errlen, "%s: not a hexadecimal address", arg);
				return -1;
			}
			for (unsigned int m = 0; m < a->nr_marks; m++) {
				if (a->marks[m].addr == addr) {
					snprintf(err, errlen, "%s: address given twice", arg);
					return -1;
				}
				if (a->marks[m].kind == mark_keys[k].kind && !mark_keys[k].repeat) {
					snprintf(err, errlen, "%s: %.*s= given twice", arg, (int)kl, arg);
					return -1;
				}
			}
			if (a->nr_marks == IC_MAX_MARKS) {
				snprintf(err, errlen, "%s: more than %d addresses", arg, IC_MAX_MARKS);
				return -1;
			}
			a->marks[a->nr_marks++] = (struct ic_mark){ addr, mark_keys[k].kind,
								    mark_keys[k].async };
			done = true;
			break;
		}
		if (!done) {
			snprintf(err, errlen, "argument '%s': unknown key (out, text, tcg, sysctl, bench, send, wait, handler, async_handler, irq, calls, every)", arg);
			return -1;
		}
	}
	/* calls=all counts with the scoreboard and conditional callbacks,
	 * which QEMU 10.0 miscompiles under one TCG thread (ipicount.c). */
	if (a->calls && a->tcg_single) {
		snprintf(err, errlen, "calls=all needs tcg=multi");
		return -1;
	}
	if (a->every && !a->calls) {
		snprintf(err, errlen, "every= is calls=all's");
		return -1;
	}
	if (!a->every)
		a->every = IC_CALLS_EVERY;
	if (!a->out || !a->text_hi || (!a->sysctl && !a->calls)) {
		snprintf(err, errlen, a->calls ? "out= and text= are required" :
			 "out=, text= and sysctl= are required");
		return -1;
	}
	/* calls=all needs only send=; the bench's windows need bench= too. */
	for (unsigned int want = a->calls ? IC_SEND : IC_BENCH; want <= IC_SEND; want++) {
		bool have = false;

		for (unsigned int m = 0; m < a->nr_marks; m++)
			have |= a->marks[m].kind == want;
		if (!have) {
			snprintf(err, errlen, "%s= is required", ic_kind_names[want]);
			return -1;
		}
	}
	for (unsigned int m = 0; m < a->nr_marks; m++) {
		if (a->marks[m].addr < a->text_lo || a->marks[m].addr >= a->text_hi) {
			snprintf(err, errlen, "%s=%" PRIx64 ": outside text=", ic_kind_names[a->marks[m].kind],
				 a->marks[m].addr);
			return -1;
		}
	}
	return 0;
}

const struct ic_mark *ic_mark_find(const struct ic_args *a, uint64_t addr)
{
	for (unsigned int m = 0; m < a->nr_marks; m++)
		if (a->marks[m].addr == addr)
			return &a->marks[m];
	return NULL;
}

int ic_mark_kind(const struct ic_args *a, uint64_t addr)
{
	const struct ic_mark *m = ic_mark_find(a, addr);

	return m ? (int)m->kind : -1;
}

bool ic_in_bench(const struct ic_vcpu *v)
{
	for (unsigned int i = 0; i < v->depth; i++)
		if (v->stack[i].kind == IC_BENCH)
			return true;
	return false;
}

/* Open a window of KIND at RSP on V's stack; false when it is full. */
static bool win_push(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
		     const struct ic_counts *now)
{
	struct ic_win *w;

	if (v->depth == IC_DEPTH)
		return false;
	w = &v->stack[v->depth++];
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->rsp = rsp;
	w->start = *now;
	return true;
}

bool ic_open(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
	     const struct ic_counts *now, bool bench_active)
{
	switch (kind) {
	case IC_SEND:
	case IC_WAIT:
		if (!ic_in_bench(v))
			return false;
		break;
	case IC_HANDLER:
	case IC_IRQ:
		if (!bench_active)
			return false;
		break;
	default:
		break;
	}
	return win_push(v, kind, rsp, now);
}

static void agg_add(struct ic_agg *g, const struct ic_counts *excl, uint64_t irqs)
{
	uint64_t n = excl->v[IC_INSNS];

	if (!g->n || n > g->max)
		g->max = n;
	if (!g->n || n < g->min)
		g->min = n;
	g->n++;
	g->irqs += irqs;
	for (int c = 0; c < IC_NCNT; c++)
		g->sum.v[c] += excl->v[c];
}

int ic_ret(struct ic_vcpu *v, uint64_t rsp, const struct ic_counts *now,
	   struct ic_run *run)
{
	struct ic_win *w;
	struct ic_counts total, excl;

	/* Windows whose frame is gone (a stack switch): never closed. */
	while (v->depth && v->stack[v->depth - 1].rsp < rsp) {
		v->depth--;
		v->dropped++;
		if (run)
			run->dropped++;
	}
	if (!v->depth || v->stack[v->depth - 1].rsp != rsp)
		return -1;
	w = &v->stack[--v->depth];
	for (int c = 0; c < IC_NCNT; c++) {
		total.v[c] = now->v[c] - w->start.v[c];
		excl.v[c] = total.v[c] - w->child.v[c];
	}
	if (run)
		agg_add(&run->agg[w->kind], &excl, w->irqs);
	if (v->depth) {
		struct ic_win *p = &v->stack[v->depth - 1];

		for (int c = 0; c < IC_NCNT; c++)
			p->child.v[c] += total.v[c];
		if (w->kind == IC_IRQ)
			p->irqs++;
	}
	return (int)w->kind;
}

/* The line formatters' append to buf[o..len): -1 from the caller when it does not fit. */
#define PUT(...) do { \
		n = snprintf(buf + o, len > o ? len - o : 0, __VA_ARGS__); \
		if (n < 0 || (size_t)n >= len - o) \
			return -1; \
		o += (size_t)n; \
	} while (0)

void ic_run_start(struct ic_run *r, uint32_t seq, uint32_t op, uint32_t flags)
{
	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->op = op;
	r->flags = flags;
}

int ic_format_run(const struct ic_run *r, char *buf, size_t len)
{
	size_t o = 0;
	int n;

	if (!len)
		return -1;
	PUT("run seq=%" PRIu32 " op=%" PRIu32 " flags=%" PRIu32 " icr_all=%" PRIu64 " dropped=%" PRIu64,
	    r->seq, r->op, r->flags, r->icr_all, r->dropped);
	for (int k = 0; k < IC_NKINDS; k++) {
		const struct ic_agg *g = &r->agg[k];
		const char *kn = ic_kind_names[k];

		PUT(" %s.n=%" PRIu64 " %s.max=%" PRIu64 " %s.min=%" PRIu64 " %s.irqs=%" PRIu64,
		    kn, g->n, kn, g->max, kn, g->min, kn, g->irqs);
		for (int c = 0; c < IC_NCNT; c++)
			PUT(" %s.%s=%" PRIu64, kn, ic_cnt_names[c], g->sum.v[c]);
	}
	PUT("\n");
	return (int)o;
}

bool ic_sysctl_starts_run(uint32_t op, uint32_t flags)
{
	/* XEN_SYSCTL_IPIBENCH_OP_query (0) and _fetch (1) are no runs. */
	return op > 1 && !(flags & IC_SYSCTL_F_CONTINUE);
}

/* ---- calls=all: every call of the boot, in buckets (ipicount.h) ------- */

bool ic_calls_open(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
		   const struct ic_counts *now)
{
	return win_push(v, kind, rsp, now);
}

static void sat_add(uint64_t *s, uint64_t x)
{
	if (__builtin_add_overflow(*s, x, s))
		*s = UINT64_MAX;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

bool ic_calls_add(struct ic_calls *c, enum ic_kind kind, uint32_t vector, uint32_t icr,
		  const struct ic_counts *excl, uint64_t irqs, bool *new_bucket)
{
	struct ic_bucket *b = NULL;
	uint64_t n = excl->v[IC_INSNS], p = excl->v[IC_PAUSE];

	*new_bucket = false;
	c->closed++;
	for (unsigned int i = 0; i < c->nr && !b; i++)
		if (c->b[i].kind == (uint32_t)kind && c->b[i].vector == vector && c->b[i].icr == icr)
			b = &c->b[i];
	if (!b) {
		if (c->nr == IC_CALLS_MAX_BUCKETS) {
			c->overflow++;
			return false;
		}
		b = &c->b[c->nr++];
		memset(b, 0, sizeof(*b));
		b->kind = (uint32_t)kind;
		b->vector = vector;
		b->icr = icr;
		b->min = n;
		*new_bucket = true;
	}
	if (n > b->max)
		b->max = n;
	if (n < b->min)
		b->min = n;
	b->n++;
	b->irqs += irqs;
	sat_add(&b->insns, n);
	sat_add(&b->pause, p);
	sat_add(&b->pause2, sat_mul(p, p));
	sat_add(&b->insns_pause, sat_mul(n, p));
	return true;
}

int ic_calls_ret(struct ic_vcpu *v, const uint32_t *vectors, uint64_t rsp,
		 const struct ic_counts *now, struct ic_calls *c, bool *new_bucket)
{
	unsigned int d = v->depth;
	uint64_t dropped = v->dropped;
	struct ic_win w = { .kind = IC_BENCH };
	struct ic_counts excl;
	uint32_t vector = 0, icr;
	int k;

	*new_bucket = false;
	/* The window ic_ret() closes: the first at or above RSP. */
	while (d && v->stack[d - 1].rsp < rsp)
		d--;
	if (d && v->stack[d - 1].rsp == rsp) {
		w = v->stack[d - 1];
		vector = vectors[d - 1];
	}
	k = ic_ret(v, rsp, now, NULL);
	c->dropped += v->dropped - dropped;
	if (k < 0)
		return k;
	for (int i = 0; i < IC_NCNT; i++)
		excl.v[i] = now->v[i] - w.start.v[i] - w.child.v[i];
	/* A wait's ICR writes are its send's: its whole count's. */
	icr = (uint32_t)(k == IC_WAIT ? now->v[IC_ICR] - w.start.v[IC_ICR] : excl.v[IC_ICR]);
	ic_calls_add(c, (enum ic_kind)k, vector, icr, &excl, w.irqs, new_bucket);
	return k;
}

int ic_format_calls(const struct ic_calls *c, char *buf, size_t len)
{
	size_t o = 0;
	int n;

	if (!len)
		return -1;
	PUT("calls seq=%" PRIu64 " closed=%" PRIu64 " overflow=%" PRIu64 " dropped=%" PRIu64
	    " buckets=%u", c->seq, c->closed, c->overflow, c->dropped, c->nr);
	for (unsigned int i = 0; i < c->nr; i++) {
		const struct ic_bucket *b = &c->b[i];

		PUT(" %s/%" PRIu32 "/%" PRIu32 "=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, ic_kind_names[b->kind],
		    b->vector, b->icr, b->n, b->min, b->max, b->irqs, b->insns, b->pause,
		    b->pause2, b->insns_pause);
	}
	PUT("\n");
	return (int)o;
}

/* A decimal u64 at *p up to one of STOP (or the end): advances *p. */
static int take_u64(const char **p, const char *stop, uint64_t *v)
{
	const char *s = *p;
	size_t l = strcspn(s, stop);
	char num[24], *end;

	if (!l || l >= sizeof(num) || strspn(s, "0123456789") < l)
		return -1;
	memcpy(num, s, l);
	num[l] = 0;
	errno = 0;
	*v = strtoull(num, &end, 10);
	if (errno || *end)
		return -1;
	*p = s + l;
	return 0;
}

int ic_parse_calls(const char *line, struct ic_calls *c, char *why, size_t whylen)
{
	static const char *const head[] = { "seq", "closed", "overflow", "dropped", "buckets" };
	uint64_t h[5];
	const char *p = line;

	memset(c, 0, sizeof(*c));
	if (strncmp(p, "calls", 5)) {
		snprintf(why, whylen, "not a 'calls' line");
		return -1;
	}
	p += 5;
	for (int i = 0; i < 5; i++) {
		size_t kl = strlen(head[i]);

		if (*p != ' ' || strncmp(p + 1, head[i], kl) || p[1 + kl] != '=') {
			snprintf(why, whylen, "field %d: expected %s=N", i + 1, head[i]);
			return -1;
		}
		p += 2 + kl;
		if (take_u64(&p, " \n", &h[i])) {
			snprintf(why, whylen, "%s: not an unsigned number", head[i]);
			return -1;
		}
	}
	if (h[4] > IC_CALLS_MAX_BUCKETS) {
		snprintf(why, whylen, "buckets=%" PRIu64 ": more than %d", h[4], IC_CALLS_MAX_BUCKETS);
		return -1;
	}
	c->seq = h[0];
	c->closed = h[1];
	c->overflow = h[2];
	c->dropped = h[3];
	c->nr = (unsigned int)h[4];
	for (unsigned int i = 0; i < c->nr; i++) {
		struct ic_bucket *b = &c->b[i];
		uint64_t f[8], vec, icr;
		size_t kl = strcspn(p + (*p == ' '), "/");
		int kind = -1;

		if (*p != ' ') {
			snprintf(why, whylen, "bucket %u: missing (buckets=%u)", i + 1, c->nr);
			return -1;
		}
		p++;
		for (int k = 0; k < IC_NKINDS; k++)
			if (strlen(ic_kind_names[k]) == kl && !strncmp(p, ic_kind_names[k], kl))
				kind = k;
		if (kind < 0 || p[kl] != '/') {
			snprintf(why, whylen, "bucket %u: '%.20s': expected KIND/VECTOR/ICR=", i + 1, p);
			return -1;
		}
		p += kl + 1;
		if (take_u64(&p, "/", &vec) || *p++ != '/' || take_u64(&p, "=", &icr) ||
		    *p++ != '=' || vec > 255 || icr > UINT32_MAX) {
			snprintf(why, whylen, "bucket %u (%s): expected KIND/VECTOR/ICR= (vector 0-255)",
				 i + 1, ic_kind_names[kind]);
			return -1;
		}
		for (int j = 0; j < 8; j++) {
			if (take_u64(&p, j < 7 ? "," : " \n", &f[j]) || (j < 7 && *p++ != ',')) {
				snprintf(why, whylen, "bucket %u (%s/%" PRIu64 "/%" PRIu64 "): field %d of 8: "
					 "not an unsigned number", i + 1, ic_kind_names[kind], vec, icr, j + 1);
				return -1;
			}
		}
		*b = (struct ic_bucket){ (uint32_t)kind, (uint32_t)vec, (uint32_t)icr, f[0], f[1],
					 f[2], f[3], f[4], f[5], f[6], f[7] };
		if (!b->n || b->min > b->max) {
			snprintf(why, whylen, "bucket %u (%s/%" PRIu64 "/%" PRIu64 "): n=0 or min > max",
				 i + 1, ic_kind_names[kind], vec, icr);
			return -1;
		}
		for (unsigned int j = 0; j < i; j++)
			if (c->b[j].kind == b->kind && c->b[j].vector == b->vector && c->b[j].icr == b->icr) {
				snprintf(why, whylen, "bucket %u (%s/%" PRIu64 "/%" PRIu64 "): given twice",
					 i + 1, ic_kind_names[kind], vec, icr);
				return -1;
			}
	}
	if (*p == '\n')
		p++;
	if (*p) {
		snprintf(why, whylen, "'%.20s': more than buckets=%u", p, c->nr);
		return -1;
	}
	return 0;
}
