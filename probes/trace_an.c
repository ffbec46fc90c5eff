/* probes/trace_an.c: summary, IPI and IRQ analyses of one xentrace file. */
#include "probes/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/events.h"

const char *const tr_mode_name[TR_NMODES] = { "physical", "logical", "shorthand", "self" };

/* ---- summary ------------------------------------------------------------ */

int tr_summary_run(struct tr_summary *s, const struct xt_file *f)
{
	struct xt_seq q;
	struct xt_rec r;

	memset(s, 0, sizeof(*s));
	s->bytes = f->len;
	s->cpu = calloc(XT_MAX_CPUS, sizeof(*s->cpu));
	if (!s->cpu || cmap_init(&s->ev, TR_MAX_EVENT_IDS) || xt_seq_init(&q, f, &s->an))
		return -1;
	while (xt_seq_next(&q, &r)) {
		struct tr_cpu *c = &s->cpu[r.cpu];

		cmap_add(&s->ev, r.event, 1, 0);
		if (r.cpu >= s->ncpu)
			s->ncpu = r.cpu + 1;
		switch (r.event) {
		case XT_EV_CPU_CHANGE:
			c->chunks++;
			break;
		case XT_EV_LOST_RECORDS:
			/* d0 = records lost (Xen's insert_lost_records()) */
			if (r.nextra >= 1) {
				c->lost += r.d[0];
				s->lost += r.d[0];
			}
			c->lost_events++;
			c->records++;
			break;
		case XT_EV_WRAP_BUFFER:
			c->wraps++;
			c->records++;
			break;
		default:
			c->records++;
		}
	}
	s->records = 0;
	for (uint32_t i = 0; i < s->ncpu; i++)
		s->records += s->cpu[i].records;
	s->chunks = q.chunks;
	if (s->ev.overflow)
		xt_anom_add(&s->an, "more than %u distinct event IDs: %llu records counted "
			    "as \"other\"", TR_MAX_EVENT_IDS, (unsigned long long)s->ev.overflow);
	xt_seq_fini(&q);
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
	m = p->lat_cpu ? xt_merge_open(f, &p->an) : NULL;
	if (!m)
		return -1;
	while (xt_merge_next(m, &r)) {
		struct tr_mode *md;
		uint32_t vec;

		if ((r.event & 0x0ffff000) != IPB_TRC_HW_APIC)
			continue;
		switch (r.event) {
		case IPB_TRC_APIC_SEND_IPI_MASK:
			if (r.nextra < 4)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = (r.d[0] & IPB_IPI_LOGICAL) ? TR_LOGICAL : TR_PHYS;
			md = &p->mode[mode];
			md->ops++;
			hist_add(&md->dests, r.d[1]);
			hist_add(&md->icr, r.d[2]);
			md->icr_total += r.d[2];
			hist_add(&md->cost, r.d[3]);
			break;
		case IPB_TRC_APIC_SEND_IPI_ALLBUT:
			if (r.nextra < 3)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = TR_SHORTHAND;
			md = &p->mode[mode];
			md->ops++;
			hist_add(&md->dests, r.d[1]);
			hist_add(&md->icr, 1);
			md->icr_total++;
			hist_add(&md->cost, r.d[2]);
			break;
		case IPB_TRC_APIC_SEND_IPI_SELF:
			if (r.nextra < 1)
				goto short_rec;
			vec = r.d[0] & 0xff;
			mode = TR_SELF;
			md = &p->mode[mode];
			md->ops++;
			hist_add(&md->dests, 1);
			hist_add(&md->icr, 1);
			md->icr_total++;
			break;
		case IPB_TRC_APIC_IPI_RECV:
			if (r.nextra < 1)
				goto short_rec;
			vec = r.d[0] & 0xff;
			p->recv++;
			if (!last[vec].valid || !r.has_tsc) {
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
	return 0;
}

void tr_ipi_fini(struct tr_ipi *p)
{
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
	if (!q->irqs || !q->ipis || cmap_init(&q->irq, 65536) || cmap_init(&q->vec, 256) ||
	    xt_seq_init(&s, f, &q->an))
		return -1;
	while (xt_seq_next(&s, &r)) {
		if (r.event == IPB_TRC_HW_IRQ_HANDLED && r.nextra >= 3) {
			/* d0 = irq, d1 = tsc in, d2 = tsc out (low 32 bits) */
			q->irqs[r.cpu]++;
			cmap_add(&q->irq, r.d[0], 1, (uint32_t)(r.d[2] - r.d[1]));
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
	q->irqs = q->ipis = NULL;
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
