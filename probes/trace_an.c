/* probes/trace_an.c: summary, IPI and IRQ analyses of one xentrace file. */
#include "probes/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probes/events.h"

const char *const tr_mode_name[TR_NMODES] = { "physical", "logical", "shorthand", "self" };

/* ---- summary ------------------------------------------------------------ */

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The few events the summary looks into (all of class TRC_GEN). */
static void summary_gen(struct tr_summary *s, struct tr_cpu *c, uint32_t hdr, const uint8_t *p)
{
	uint32_t ev = hdr & 0x0fffffff;

	if (ev == XT_EV_LOST_RECORDS) {
		/* d0 = records lost (Xen's insert_lost_records()) */
		if ((hdr >> 28 & 7) >= 1) {
			uint32_t n = ld32(p + 4 + (hdr >> 31 ? 8 : 0));

			c->lost += n;
			s->lost += n;
		}
		c->lost_events++;
	} else if (ev == XT_EV_WRAP_BUFFER) {
		c->wraps++;
	}
}

/*
 * The hot loop of `trace summary`: count the whole, regular records of
 * [p, e) in place.  Stops at the first record that does not fit or whose
 * TSC goes backwards; returns where it stopped.
 */
static const uint8_t *scan(struct tr_summary *s, struct tr_cpu *c, const uint8_t *p,
			   const uint8_t *e, uint64_t *last_tsc, uint64_t *nrec)
{
	uint64_t last = *last_tsc, n = 0;

	while (e - p >= 4) {
		uint32_t hdr = ld32(p), sz = xt_rec_size(hdr), ev = hdr & 0x0fffffff;

		if (sz > (size_t)(e - p))
			break;
		if (hdr >> 31) {
			uint64_t t = (uint64_t)ld32(p + 4) | (uint64_t)ld32(p + 8) << 32;

			if (t < last)
				break;
			last = t;
		}
		cmap_inc(&s->ev, ev);
		if ((ev >> 12) == 0x1f)
			summary_gen(s, c, hdr, p);
		n++;
		p += sz;
	}
	*last_tsc = last;
	*nrec += n;
	return p;
}

#define SCAN_BUF (256u << 10)	/* stays in L2; read() beats faulting in a mapping */

/* The file read sequentially through a buffer (or the memory buffer as is). */
struct view {
	const struct xt_file *f;
	uint8_t *buf;
	uint64_t at, len;	/* buf holds file bytes [at, at + len) */
};

/* Pointer to the file's bytes at pos, with at least min(need, rest of
 * file) of them readable; *avail says how many are. */
static const uint8_t *view_at(struct view *v, uint64_t pos, uint64_t need, uint64_t *avail)
{
	const struct xt_file *f = v->f;
	ssize_t got;

	if (f->fd < 0 || !v->buf) {
		*avail = f->len - pos;
		return f->base + pos;
	}
	if (pos < v->at || pos + need > v->at + v->len) {
		got = pread(f->fd, v->buf, SCAN_BUF, (off_t)pos);
		if (got < 0 || ((uint64_t)got < need && pos + (uint64_t)got < f->len)) {
			/* Reading failed: fall back to the mapping. */
			*avail = f->len - pos;
			return f->base + pos;
		}
		v->at = pos;
		v->len = (uint64_t)got;
	}
	*avail = v->at + v->len - pos;
	return v->buf + (pos - v->at);
}

/*
 * Counting reads the file front to back once.  At a chunk boundary a
 * regular cpu_change header is taken as is; anything else goes to the
 * walker (xt_walk_next), which describes and skips garbage.  Inside a
 * chunk, scan() counts the regular records; the first irregular one goes
 * through xt_chunk_rec(), which counts it if it is a record (TSC going
 * backwards) or describes and skips the rest of the chunk.
 */
int tr_summary_run(struct tr_summary *s, const struct xt_file *f)
{
	struct xt_seq q;
	struct xt_chunk ch;
	struct xt_rec r;
	struct view v = { f, NULL, 0, 0 };
	uint64_t pos = 0, avail;
	const uint8_t *p;

	memset(s, 0, sizeof(*s));
	s->bytes = f->len;
	s->cpu = calloc(XT_MAX_CPUS, sizeof(*s->cpu));
	if (f->fd >= 0)
		v.buf = malloc(SCAN_BUF);
	if (!s->cpu || cmap_init(&s->ev, TR_MAX_EVENT_IDS) || xt_seq_init(&q, f, &s->an)) {
		free(v.buf);
		return -1;
	}
	while (pos < f->len) {
		struct tr_cpu *c;
		uint64_t nrec = 0, end;

		/* The next chunk. */
		p = view_at(&v, pos, 12, &avail);
		if (avail >= 12 && ld32(p) == XT_CPU_CHANGE_HDR && ld32(p + 4) < XT_MAX_CPUS &&
		    ld32(p + 8) <= f->len - pos - 12) {
			ch.hdr_off = pos;
			ch.cpu = ld32(p + 4);
			ch.declared = ch.len = ld32(p + 8);
			ch.data_off = pos + 12;
		} else {
			q.w.off = pos;
			if (!xt_walk_next(&q.w, &ch))
				break;
		}
		q.chunks++;
		c = &s->cpu[ch.cpu];
		c->chunks++;
		cmap_inc(&s->ev, XT_EV_CPU_CHANGE);
		if (ch.cpu >= s->ncpu)
			s->ncpu = ch.cpu + 1;
		pos = ch.data_off;
		end = ch.data_off + ch.len;
		while (pos < end) {
			const uint8_t *rp, *stop;
			uint64_t n, left = end - pos;

			p = view_at(&v, pos, left < 40 ? left : 40, &avail);
			n = avail < left ? avail : left;
			stop = scan(s, c, p, p + n, &q.last_tsc[ch.cpu], &nrec);
			pos += (uint64_t)(stop - p);
			if (pos >= end)
				break;
			if (stop == p || n == left) {
				/* Irregular record at pos. */
				if (!xt_chunk_rec(f, &ch, &pos, q.last_tsc, &s->an, &r))
					break;
				rp = f->base + r.off;
				cmap_inc(&s->ev, r.event);
				if ((r.event >> 12) == 0x1f)
					summary_gen(s, c, ld32(rp), rp);
				nrec++;
			}
			/* else the buffer ended inside a record: read on from pos. */
		}
		pos = end;
		c->records += nrec;
		s->records += nrec;
	}
	s->chunks = q.chunks;
	if (s->ev.overflow)
		xt_anom_add(&s->an, "more than %u distinct event IDs: %llu records counted "
			    "as \"other\"", TR_MAX_EVENT_IDS, (unsigned long long)s->ev.overflow);
	xt_seq_fini(&q);
	free(v.buf);
	return 0;
}

void tr_summary_fini(struct tr_summary *s)
{
	cmap_fini(&s->ev);
	free(s->cpu);
	s->cpu = NULL;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tr_row *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);

	return c ? c : strcmp(x->name, y->name);
}

struct tr_row *tr_summary_rows(const struct tr_summary *s, size_t *n)
{
	struct tr_row *rows = calloc(s->ev.n + 2, sizeof(*rows));
	size_t k = 0, i, j, out;
	char buf[16];

	*n = 0;
	if (!rows)
		return NULL;
	for (i = 0; i < s->ev.cap; i++) {
		if (!s->ev.used[i])
			continue;
		rows[k].count = s->ev.v[i];
		rows[k].ids[0] = s->ev.key[i];
		rows[k].nids = 1;
		snprintf(rows[k].name, sizeof(rows[k].name), "%s",
			 xt_event_label(s->ev.key[i], buf, sizeof(buf)));
		k++;
	}
	if (s->ev.overflow) {
		strcpy(rows[k].name, "other");
		rows[k].count = s->ev.overflow;
		k++;
	}
	qsort(rows, k, sizeof(*rows), row_cmp);
	/* Merge equal names (TRC_64_FLAG variants and the like). */
	for (i = 0, out = 0; i < k; i++) {
		if (out && !strcmp(rows[out - 1].name, rows[i].name)) {
			struct tr_row *o = &rows[out - 1];

			o->count += rows[i].count;
			for (j = 0; j < rows[i].nids && o->nids < 4; j++)
				o->ids[o->nids++] = rows[i].ids[j];
			continue;
		}
		if (out != i)
			rows[out] = rows[i];
		out++;
	}
	*n = out;
	return rows;
}

/* ---- IPI ---------------------------------------------------------------- */

/* One send in MODE: its destinations, ICR writes and cost (NULL: not recorded). */
static void count_send(struct tr_ipi *p, int mode, uint64_t dests, uint64_t icr,
		       const uint32_t *cost)
{
	struct tr_mode *md = &p->mode[mode];

	md->ops++;
	hist_add(&md->dests, dests);
	hist_add(&md->icr, icr);
	md->icr_total += icr;
	if (cost)
		hist_add(&md->cost, *cost);
}

int tr_ipi_run(struct tr_ipi *p, const struct xt_file *f)
{
	struct {
		uint64_t tsc;
		int mode;
		bool valid;
	} last[256];
	struct xt_merge *m;
	struct xt_rec r;
	int mode;

	memset(p, 0, sizeof(*p));
	memset(last, 0, sizeof(last));
	for (mode = 0; mode < TR_NMODES; mode++) {
		hist_init(&p->mode[mode].dests);
		hist_init(&p->mode[mode].icr);
		hist_init(&p->mode[mode].cost);
		hist_init(&p->mode[mode].lat);
	}
	p->lat_cpu = calloc(XT_MAX_CPUS, sizeof(*p->lat_cpu));
	if (!p->lat_cpu || cmap_init(&p->groups, TR_MAX_GROUPS))
		return -1;
	m = xt_merge_open(f, &p->an);
	if (!m)
		return -1;
	while (xt_merge_next(m, &r)) {
		uint32_t vec;

		if (r.event != XT_EV_CPU_CHANGE)
			p->records++;
		if ((r.event & 0x0ffff000) != IPB_TRC_HW_APIC)
			continue;
		switch (r.event) {
		case IPB_TRC_APIC_SEND_IPI_MASK:
			if (r.nextra < 4)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = (r.d[0] & IPB_IPI_LOGICAL) ? TR_LOGICAL : TR_PHYS;
			count_send(p, mode, r.d[1], r.d[2], &r.d[3]);
			break;
		case IPB_TRC_APIC_SEND_IPI_ALLBUT:
			if (r.nextra < 3)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = TR_SHORTHAND;
			count_send(p, mode, r.d[1], 1, &r.d[2]);
			break;
		case IPB_TRC_APIC_SEND_IPI_SELF:
			if (r.nextra < 1)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = TR_SELF;
			count_send(p, mode, 1, 1, NULL);
			break;
		case IPB_TRC_APIC_IPI_RECV:
			if (r.nextra < 1)
				goto short_rec;
			vec = r.d[0] & 0xff;
			p->recv++;
			/* No earlier send, or (TSC gone backwards on a CPU, already
			 * reported) a send that is not earlier after all. */
			if (!last[vec].valid || !r.has_tsc || r.tsc < last[vec].tsc) {
				p->unmatched++;
				continue;
			}
			hist_add(&p->mode[last[vec].mode].lat, r.tsc - last[vec].tsc);
			if (!p->lat_cpu[r.cpu]) {
				p->lat_cpu[r.cpu] = malloc(sizeof(struct hist));
				if (!p->lat_cpu[r.cpu])
					continue;
				hist_init(p->lat_cpu[r.cpu]);
			}
			hist_add(p->lat_cpu[r.cpu], r.tsc - last[vec].tsc);
			continue;
		case IPB_TRC_APIC_ICR_WRITE:
			p->icr_writes++;
			continue;
		case IPB_TRC_APIC_MASK_TO_APICID:
			if (r.nextra >= 3)
				p->mask_to_apicid[r.d[2] ? 1 : 0]++;
			continue;
		case IPB_TRC_APIC_TSC_KHZ:
			if (r.nextra >= 1 && !p->tsc_khz)
				p->tsc_khz = r.d[0];
			continue;
		default:
			continue;
		}
		/* Per (mode, vector, destinations). */
		{
			uint32_t icr = r.event == IPB_TRC_APIC_SEND_IPI_MASK ? r.d[2] : 1;
			uint32_t dests = r.event == IPB_TRC_APIC_SEND_IPI_SELF ? 1 : r.d[1];

			cmap_add(&p->groups, TR_GROUP_KEY(mode, vec, dests), 1, icr);
		}
		/* A send: the receives of this vector that follow are its own. */
		if (r.has_tsc) {
			last[vec].tsc = r.tsc;
			last[vec].mode = mode;
			last[vec].valid = true;
		}
		continue;
short_rec:
		xt_anom_add(&p->an, "offset %llu: event 0x%08x has %u words, too few; ignored",
			    (unsigned long long)r.off, r.event, r.nextra);
	}
	xt_merge_close(m);
	if (p->groups.overflow)
		xt_anom_add(&p->an, "more than %u (mode, vector, destinations) groups: %llu "
			    "sends not grouped", TR_MAX_GROUPS,
			    (unsigned long long)p->groups.overflow);
	return 0;
}

void tr_ipi_fini(struct tr_ipi *p)
{
	cmap_fini(&p->groups);
	if (p->lat_cpu)
		for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
			free(p->lat_cpu[i]);
	free(p->lat_cpu);
	p->lat_cpu = NULL;
}

/* ---- IRQ ---------------------------------------------------------------- */

int tr_irq_run(struct tr_irq *q, const struct xt_file *f)
{
	struct xt_seq s;
	struct xt_rec r;

	memset(q, 0, sizeof(*q));
	q->irqs = calloc(XT_MAX_CPUS, sizeof(*q->irqs));
	q->ipis = calloc(XT_MAX_CPUS, sizeof(*q->ipis));
	q->unmapped = calloc(XT_MAX_CPUS, sizeof(*q->unmapped));
	if (!q->irqs || !q->ipis || !q->unmapped || cmap_init(&q->irq, 65536) || cmap_init(&q->vec, 256) ||
	    xt_seq_init(&s, f, &q->an))
		return -1;
	while (xt_seq_next(&s, &r)) {
		if (r.event == XT_EV_CPU_CHANGE)
			q->chunks++;
		else
			q->records++;
		if (r.event == IPB_TRC_HW_IRQ_HANDLED && r.nextra >= 3) {
			/* d0 = irq, d1 = tsc in, d2 = tsc out (low 32 bits) */
			q->irqs[r.cpu]++;
			cmap_add(&q->irq, r.d[0], 1, (uint32_t)(r.d[2] - r.d[1]));
		} else if (r.event == IPB_TRC_HW_IRQ_UNMAPPED_VECTOR) {
			q->unmapped[r.cpu]++;
		} else if (r.event == IPB_TRC_APIC_IPI_RECV && r.nextra >= 1) {
			q->ipis[r.cpu]++;
			cmap_add(&q->vec, r.d[0] & 0xff, 1, 0);
		} else {
			continue;
		}
		if (r.cpu >= q->ncpu)
			q->ncpu = r.cpu + 1;
	}
	if (q->irq.overflow)
		xt_anom_add(&q->an, "more than 65536 distinct IRQs: %llu counted as \"other\"",
			    (unsigned long long)q->irq.overflow);
	xt_seq_fini(&s);
	return 0;
}

void tr_irq_fini(struct tr_irq *q)
{
	free(q->irqs);
	free(q->ipis);
	free(q->unmapped);
	q->irqs = q->ipis = q->unmapped = NULL;
	cmap_fini(&q->irq);
	cmap_fini(&q->vec);
}

json_t *tr_anom_json(const struct xt_anom *an)
{
	json_t *msgs = json_array();

	for (uint64_t i = 0; i < an->nmsgs && i < XT_MAX_MSGS; i++)
		json_array_append_new(msgs, json_string(an->msgs[i]));
	return json_pack("{s:I,s:I,s:I,s:I,s:b,s:I,s:I,s:o}",
			 "skipped_bytes", (json_int_t)an->skipped_bytes,
			 "garbage_runs", (json_int_t)an->garbage_runs,
			 "bad_records", (json_int_t)an->bad_records,
			 "short_chunks", (json_int_t)an->short_chunks,
			 "truncated", (int)!!an->truncated,
			 "tsc_backwards", (json_int_t)an->tsc_backwards,
			 "messages_total", (json_int_t)an->nmsgs,
			 "messages", msgs);
}
