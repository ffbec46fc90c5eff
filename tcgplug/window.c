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
			snprintf(err, errlen, "argument '%s': unknown key (out, text, tcg, sysctl, bench, send, wait, handler, async_handler, irq)", arg);
			return -1;
		}
	}
	if (!a->out || !a->text_hi || !a->sysctl) {
		snprintf(err, errlen, "out=, text= and sysctl= are required");
		return -1;
	}
	for (unsigned int want = IC_BENCH; want <= IC_SEND; want++) {
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

bool ic_open(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
	     const struct ic_counts *now, bool bench_active)
{
	struct ic_win *w;

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
	if (v->depth == IC_DEPTH)
		return false;
	w = &v->stack[v->depth++];
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->rsp = rsp;
	w->start = *now;
	return true;
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

#define PUT(...) do { \
		n = snprintf(buf + o, len > o ? len - o : 0, __VA_ARGS__); \
		if (n < 0 || (size_t)n >= len - o) \
			return -1; \
		o += (size_t)n; \
	} while (0)
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
#undef PUT
	return (int)o;
}

bool ic_sysctl_starts_run(uint32_t op, uint32_t flags)
{
	/* XEN_SYSCTL_IPIBENCH_OP_query (0) and _fetch (1) are no runs. */
	return op > 1 && !(flags & IC_SYSCTL_F_CONTINUE);
}
