/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/trace_an.c: summary, IPI and IRQ analyses of one xentrace file. */
#include "probes/trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probes/events.h"
#include "lib/safeio.h"

const char *const tr_mode_name[TR_NMODES] = { "physical", "logical", "shorthand", "self" };

/* ---- summary ------------------------------------------------------------ */

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Where the summary's counts go: the summary itself, or a worker's batch. */
struct tally {
	struct cmap *ev;
	uint64_t *lost;		/* records lost, all CPUs */
	struct tr_hvm_par *hv;	/* the HVM profile in file order, or NULL */
	unsigned thread;	/* its thread number */
	bool *hvm_seen;		/* set at an HVM event ID new to ev (NULL: not asked) */
};

/*
 * Whether a file has HVM records is known from its event IDs: the table
 * of event counts (ev) meets each ID once as new, a few dozen times in a
 * file, and only then is the ID's class looked at.  The summary's first
 * pass reads without the HVM profile; when an HVM event ID turns up
 * (hvm_seen), it stops and starts over with the profile on.  So a file
 * without HVM records is read once, with no work of the profile's.
 */
static inline bool hvm_class(uint32_t ev)
{
	return ev >> 16 == 0x0008;
}

static __attribute__((noinline, cold)) void count_new(const struct tally *t, uint32_t ev)
{
	cmap_add(t->ev, ev, 1, 0);
	if (t->hvm_seen && hvm_class(ev))
		*t->hvm_seen = true;
}

/* cmap_inc(t->ev, ev), with count_new() for an ID not seen yet. */
static inline void count_ev(const struct tally *t, uint32_t ev)
{
	struct cmap *m = t->ev;
	uint32_t i = cmap_hash(ev, m->cap);

	while (m->used[i]) {
		if (m->key[i] == ev) {
			m->v[i]++;
			return;
		}
		i = (i + 1) & (m->cap - 1);
	}
	count_new(t, ev);
}

/* The few events the summary looks into (all of class TRC_GEN). */
static void summary_gen(const struct tally *t, struct tr_cpu *c, uint32_t hdr, const uint8_t *p)
{
	uint32_t ev = hdr & 0x0fffffff;

	if (ev == XT_EV_LOST_RECORDS) {
		/* d0 = records lost (Xen's insert_lost_records()) */
		if ((hdr >> 28 & 7) >= 1) {
			uint32_t n = ld32(p + 4 + (hdr >> 31 ? 8 : 0));

			c->lost += n;
			*t->lost += n;
		}
		c->lost_events++;
	} else if (ev == XT_EV_WRAP_BUFFER) {
		c->wraps++;
	}
}

/*
 * The hot loop of `trace summary`: count the whole, regular records of
 * [p, e) in place.  Stops at the first record that does not fit or whose
 * TSC goes backwards; returns where it stopped.  With the HVM profile on
 * (t->hv), the profile then walks the records just counted (a second
 * walk over bytes in the cache costs less than handing records over from
 * this loop, and leaves the loop as it is for files without HVM records).
 */
#define REC_MAX 40u	/* the largest record: header, TSC, 7 words */

/* One record at p (sz bytes, whole) counted; false when its TSC goes
 * backwards (not counted). */
static inline __attribute__((always_inline)) bool
scan_one(const struct tally *t, struct tr_cpu *c, const uint8_t *p, uint32_t hdr, uint64_t *last,
	 const uint32_t **key, const uint8_t **used, uint64_t **v, uint32_t *mask)
{
	uint32_t ev = hdr & 0x0fffffff, i;

	if (hdr >> 31) {
		uint64_t ts = (uint64_t)ld32(p + 4) | (uint64_t)ld32(p + 8) << 32;

		if (ts < *last)
			return false;
		*last = ts;
	}
	/* cmap_inc(t->ev, ev) */
	i = cmap_hash(ev, *mask + 1);
	while ((*used)[i] && (*key)[i] != ev)
		i = (i + 1) & *mask;
	if ((*used)[i]) {
		(*v)[i]++;
	} else {
		struct cmap *m = t->ev;

		count_new(t, ev);
		*key = m->key;
		*used = m->used;
		*v = m->v;
		*mask = m->cap - 1;
	}
	if ((ev >> 12) == 0x1f)
		summary_gen(t, c, hdr, p);
	return true;
}

static const uint8_t *scan(const struct tally *t, struct tr_cpu *c, uint32_t cpu, uint64_t off,
			   const uint8_t *p, const uint8_t *e, uint64_t *last_tsc, uint64_t *nrec)
{
	const uint8_t *p0 = p;
	uint64_t last = *last_tsc, n = 0;
	/* The event table's arrays in locals (the compiler cannot tell that
	 * the counts' stores leave them alone), reloaded when a new ID may
	 * have grown it; records up to SAFE fit whatever their size. */
	struct cmap *m = t->ev;
	const uint32_t *key = m->key;
	const uint8_t *used = m->used;
	uint64_t *v = m->v;
	uint32_t mask = m->cap - 1;

	if (e - p >= REC_MAX) {
		const uint8_t *safe = e - REC_MAX;

		while (p <= safe) {
			uint32_t hdr = ld32(p);

			if (!scan_one(t, c, p, hdr, &last, &key, &used, &v, &mask))
				goto out;
			n++;
			p += xt_rec_sizes[hdr >> 28];
		}
	}
	while (e - p >= 4) {
		uint32_t hdr = ld32(p), sz = xt_rec_sizes[hdr >> 28];

		if (sz > (size_t)(e - p) || !scan_one(t, c, p, hdr, &last, &key, &used, &v, &mask))
			break;
		n++;
		p += sz;
	}
out:
	if (t->hv)
		tr_hvm_par_walk(t->hv, t->thread, cpu, p0, p, *last_tsc, off);
	*last_tsc = last;
	*nrec += n;
	return p;
}

/*
 * The file as a reader sees it: the memory buffer or the whole mapping as
 * is (files up to map_max), or, for bigger ones, a sliding window of the
 * mapping (the sequential reader) or a read buffer (each worker).  Memory
 * stays flat either way.  A window costs no copy, but a worker's window
 * would also map the pages of the other workers' chunks, which lie in
 * between: with two workers, windows took more system time than pread()
 * of each worker's own chunks (1 GiB: 0.29-0.35 s against 0.24-0.29 s).
 */
enum view_mode { VIEW_DIRECT, VIEW_WINDOW, VIEW_PREAD };

#define SCAN_BUF (256u << 10)	/* a worker's read buffer */

struct view {
	const struct xt_file *f;
	enum view_mode mode;
	uint64_t wbytes;	/* window size (a multiple of the page, >= 2 pages) */
	const uint8_t *win;	/* VIEW_WINDOW: maps file bytes [at, at + len) */
	uint8_t *buf;		/* VIEW_PREAD: holds file bytes [at, at + len) */
	uint64_t at, len;
	uint64_t lim;		/* VIEW_PREAD: read no further than this (0: the file's end) */
};

/* 0, or -1 (out of memory). */
static int view_init(struct view *v, const struct xt_file *f, enum view_mode mode, uint64_t wbytes)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	memset(v, 0, sizeof(*v));
	v->f = f;
	v->mode = f->fd >= 0 ? mode : VIEW_DIRECT;
	/* A record (40 bytes at most) must fit in a window that starts at the
	 * page holding its first byte. */
	wbytes = wbytes ? wbytes : TR_WINDOW_BYTES;
	v->wbytes = (wbytes + pg - 1) / pg * pg;
	if (v->wbytes < 2 * pg)
		v->wbytes = 2 * pg;
	if (v->mode == VIEW_PREAD && !(v->buf = malloc(SCAN_BUF)))
		return -1;
	return 0;
}

static void view_unmap(struct view *v)
{
	if (v->win)
		munmap((void *)v->win, (size_t)v->len);
	v->win = NULL;
	v->len = 0;
}

static void view_fini(struct view *v)
{
	view_unmap(v);
	free(v->buf);
	v->buf = NULL;
}

/* Pointer to the file's bytes at pos, with at least min(need, rest of
 * file) of them readable; *avail says how many are.  A window is moved
 * (mapped from the page holding pos, the one behind unmapped) when pos +
 * need passes it; its pages are faulted in as they are read (MAP_POPULATE
 * was slower). */
static const uint8_t *view_at(struct view *v, uint64_t pos, uint64_t need, uint64_t *avail)
{
	const struct xt_file *f = v->f;

	if (v->mode == VIEW_DIRECT) {
		*avail = f->len - pos;
		return f->base + pos;
	}
	if (need > f->len - pos)
		need = f->len - pos;
	if (v->mode == VIEW_PREAD) {
		if (pos < v->at || pos + need > v->at + v->len) {
			uint64_t want = SCAN_BUF;
			ssize_t got;

			/* A worker reads its own chunks only, not its neighbours'. */
			if (v->lim > pos && v->lim - pos < want)
				want = v->lim - pos;
			got = pread(f->fd, v->buf, (size_t)want, (off_t)pos);
			if (got < 0 || (uint64_t)got < need) {
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
	if (!v->win || pos < v->at || pos + need > v->at + v->len) {
		uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t start = pos / pg * pg, want = v->wbytes;
		void *p;

		if (want > f->len - start)
			want = f->len - start;
		view_unmap(v);
		p = mmap(NULL, (size_t)want, PROT_READ, MAP_PRIVATE, f->fd, (off_t)start);
		if (p == MAP_FAILED) {
			/* No window: read from the whole mapping. */
			*avail = f->len - pos;
			return f->base + pos;
		}
		v->win = p;
		v->at = start;
		v->len = want;
	}
	*avail = v->at + v->len - pos;
	return v->win + (pos - v->at);
}

/* The state of one summary run: the sequential reader's and the workers'. */
struct sum_run {
	struct tr_summary *s;
	const struct xt_file *f;
	struct tally t;		/* into s */
	struct xt_seq q;
	struct view v;
	struct par *par;	/* NULL: sequential */
	bool hvm_seen;		/* an HVM event ID was met (t.hvm_seen points here) */
};

/*
 * One chunk at *pos, read sequentially.  At a chunk boundary a regular
 * cpu_change header is taken as is; anything else goes to the walker
 * (xt_walk_next), which describes and skips garbage.  Inside a chunk,
 * scan() counts the regular records; the first irregular one goes through
 * xt_chunk_rec(), which counts it if it is a record (TSC going backwards)
 * or describes and skips the rest of the chunk.  false at the end.
 */
static bool seq_chunk(struct sum_run *R, uint64_t *posp)
{
	struct tr_summary *s = R->s;
	const struct xt_file *f = R->f;
	struct xt_chunk ch;
	struct xt_rec r;
	struct tr_cpu *c;
	uint64_t pos = *posp, nrec = 0, end, avail;
	const uint8_t *p;

	p = view_at(&R->v, pos, 12, &avail);
	if (avail >= 12 && ld32(p) == XT_CPU_CHANGE_HDR && ld32(p + 4) < XT_MAX_CPUS &&
	    ld32(p + 8) <= f->len - pos - 12) {
		ch.hdr_off = pos;
		ch.cpu = ld32(p + 4);
		ch.declared = ch.len = ld32(p + 8);
		ch.data_off = pos + 12;
	} else {
		R->q.w.off = pos;
		if (!xt_walk_next(&R->q.w, &ch))
			return false;
	}
	R->q.chunks++;
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

		p = view_at(&R->v, pos, left < 40 ? left : 40, &avail);
		n = avail < left ? avail : left;
		stop = scan(&R->t, c, ch.cpu, pos, p, p + n, &R->q.last_tsc[ch.cpu], &nrec);
		pos += (uint64_t)(stop - p);
		if (pos >= end)
			break;
		if (stop == p || n == left) {
			/* Irregular record at pos (the HVM profile goes to the
			 * TSC-ordered pass: the file has an anomaly). */
			if (!xt_chunk_rec(f, &ch, &pos, R->q.last_tsc, &s->an, &r))
				break;
			rp = f->base + r.off;
			count_ev(&R->t, r.event);
			if ((r.event >> 12) == 0x1f)
				summary_gen(&R->t, c, ld32(rp), rp);
			nrec++;
		}
		/* else the window ended inside a record: read on from pos. */
	}
	*posp = end;
	c->records += nrec;
	s->records += nrec;
	return true;
}

/* ---- the summary in parallel ------------------------------------------------
 *
 * Chunks of different CPUs are independent: what the sequential reader
 * keeps between chunks is per CPU (the last TSC), and counting commutes.
 * So the chunks are taken in batches, each batch's chunks are split among
 * the workers by CPU (CPU % workers: each CPU's chunks are read in file
 * order by one worker), and a batch is counted in parallel only when it is
 * regular throughout: regular cpu_change headers back to back (read by the
 * main thread) and chunks that scan() reads to their end.  The first
 * irregularity in a batch (a record running past its chunk, a TSC going
 * backwards, garbage between chunks, more distinct events than the cap)
 * sends the whole batch back to the sequential reader, with the per-CPU
 * TSCs as they were before it: the counts, the anomalies and their
 * messages are exactly the sequential reader's, in its order.
 */
struct par_chunk {
	uint64_t data_off, len;
	uint32_t cpu;
};

struct worker {
	struct par *P;
	unsigned k;
	pthread_t th;
	struct view v;		/* its own read buffer */
	struct cmap ev;		/* the batch's counts */
	uint64_t lost;
	struct tr_cpu *cpu;	/* XT_MAX_CPUS: the batch's per-CPU counts */
	bool dirty;		/* met an irregular record: batch goes sequential */
	bool hvm_seen;		/* met an HVM event ID (the batch is dirty too) */
	int err;
};

struct par {
	struct sum_run *R;
	unsigned nw;			/* workers running, main thread included */
	unsigned cap_w;			/* workers allocated */
	struct worker *w;
	pthread_mutex_t mu;		/* guards gen, pending, quit */
	pthread_cond_t go, done;
	unsigned gen, pending;		/* batch number; workers still on it */
	bool quit, sync;		/* sync: mu and the conds exist */
	struct par_chunk *batch;
	unsigned n, cap;
	uint64_t *tsc_save;		/* XT_MAX_CPUS: last TSCs before the batch */
	uint8_t *in_batch;		/* XT_MAX_CPUS */
	uint32_t *cpus;			/* CPUs of the batch */
	unsigned ncpus;
};

static void work_batch(struct worker *w)
{
	struct par *P = w->P;
	const struct tally t = { &w->ev, &w->lost, P->R->t.hv, w->k,
				 P->R->t.hvm_seen ? &w->hvm_seen : NULL };
	uint64_t *last = P->R->q.last_tsc;

	for (unsigned i = 0; i < P->n && !w->dirty; i++) {
		const struct par_chunk *ch = &P->batch[i];
		struct tr_cpu *c = &w->cpu[ch->cpu];
		uint64_t pos = ch->data_off, end = ch->data_off + ch->len, nrec = 0, avail;

		if (ch->cpu % P->nw != w->k)
			continue;
		w->v.lim = end;
		while (pos < end) {
			const uint8_t *p, *stop;
			uint64_t n, left = end - pos;

			p = view_at(&w->v, pos, left < 40 ? left : 40, &avail);
			n = avail < left ? avail : left;
			stop = scan(&t, c, ch->cpu, pos, p, p + n, &last[ch->cpu], &nrec);
			pos += (uint64_t)(stop - p);
			if (pos < end && (stop == p || n == left)) {
				w->dirty = true;	/* irregular record */
				break;
			}
		}
		c->records += nrec;
		w->dirty |= w->hvm_seen;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct par *P = w->P;
	unsigned seen = 0;

	for (;;) {
		pthread_mutex_lock(&P->mu);
		while (P->gen == seen && !P->quit)
			pthread_cond_wait(&P->go, &P->mu);
		if (P->quit) {
			pthread_mutex_unlock(&P->mu);
			return NULL;
		}
		seen = P->gen;
		pthread_mutex_unlock(&P->mu);
		work_batch(w);
		pthread_mutex_lock(&P->mu);
		if (--P->pending == 0)
			pthread_cond_signal(&P->done);
		pthread_mutex_unlock(&P->mu);
	}
}

/* The batch's counts into the summary; false (nothing added) if that would
 * refuse an event ID the sequential reader might have kept. */
static bool merge_batch(struct par *P)
{
	struct tr_summary *s = P->R->s;
	uint32_t fresh = 0;

	for (unsigned k = 0; k < P->nw; k++) {
		struct cmap *m = &P->w[k].ev;

		for (uint32_t i = 0; i < m->cap; i++)
			if (m->used[i] && m->v[i] && !cmap_has(&s->ev, m->key[i]))
				fresh++;	/* (an ID new to two workers counts twice: safe side) */
	}
	if (!cmap_has(&s->ev, XT_EV_CPU_CHANGE))
		fresh++;
	if (s->ev.n + fresh > s->ev.limit)
		return false;
	for (unsigned k = 0; k < P->nw; k++) {
		struct worker *w = &P->w[k];

		for (uint32_t i = 0; i < w->ev.cap; i++)
			if (w->ev.used[i] && w->ev.v[i])
				cmap_add(&s->ev, w->ev.key[i], w->ev.v[i], 0);
		s->lost += w->lost;
	}
	for (unsigned i = 0; i < P->ncpus; i++) {
		uint32_t cpu = P->cpus[i];
		const struct tr_cpu *d = &P->w[cpu % P->nw].cpu[cpu];
		struct tr_cpu *c = &s->cpu[cpu];

		c->records += d->records;
		c->lost += d->lost;
		c->lost_events += d->lost_events;
		c->wraps += d->wraps;
		s->records += d->records;
		if (cpu >= s->ncpu)
			s->ncpu = cpu + 1;
	}
	for (unsigned i = 0; i < P->n; i++) {
		s->cpu[P->batch[i].cpu].chunks++;
		cmap_inc(&s->ev, XT_EV_CPU_CHANGE);
	}
	P->R->q.chunks += P->n;
	return true;
}

static void reset_batch(struct par *P)
{
	for (unsigned k = 0; k < P->nw; k++) {
		struct worker *w = &P->w[k];

		for (uint32_t i = 0; i < w->ev.cap; i++)
			w->ev.v[i] = 0;
		w->ev.overflow = 0;
		w->lost = 0;
		w->dirty = false;
		for (unsigned i = 0; i < P->ncpus; i++)
			memset(&w->cpu[P->cpus[i]], 0, sizeof(w->cpu[0]));
	}
	for (unsigned i = 0; i < P->ncpus; i++)
		P->in_batch[P->cpus[i]] = 0;
	P->n = P->ncpus = 0;
}

/* Regular chunks back to back from *pos, up to a batch; their headers are
 * read with pread (12 bytes each), not through the workers' buffers. */
static void collect_batch(struct par *P, uint64_t pos)
{
	const struct xt_file *f = P->R->f;
	uint64_t *last = P->R->q.last_tsc;

	while (P->n < P->cap && f->len - pos >= 12) {
		uint8_t h[12];
		const uint8_t *p = h;
		uint32_t cpu, len;

		if (f->fd >= 0) {
			if (pread(f->fd, h, 12, (off_t)pos) != 12)
				break;
		} else {
			p = f->base + pos;
		}
		cpu = ld32(p + 4);
		len = ld32(p + 8);
		if (ld32(p) != XT_CPU_CHANGE_HDR || cpu >= XT_MAX_CPUS || len > f->len - pos - 12)
			break;
		P->batch[P->n++] = (struct par_chunk){ pos + 12, len, cpu };
		if (!P->in_batch[cpu]) {
			P->in_batch[cpu] = 1;
			P->cpus[P->ncpus++] = cpu;
			P->tsc_save[cpu] = last[cpu];
		}
		pos += 12 + (uint64_t)len;
	}
}

/* The lowest last TSC of the pCPUs read so far: the HVM profile may
 * stitch up to it (tr_hvm_par_sync()). */
static uint64_t low_tsc(const struct sum_run *R)
{
	const struct tr_summary *s = R->s;
	uint64_t w = UINT64_MAX;

	for (uint32_t c = 0; c < s->ncpu; c++)
		if (s->cpu[c].records && R->q.last_tsc[c] < w)
			w = R->q.last_tsc[c];
	return w;
}

/* Stops the threads and frees what par_start() got. */
static void par_stop(struct par *P)
{
	if (P->sync) {
		pthread_mutex_lock(&P->mu);
		P->quit = true;
		pthread_cond_broadcast(&P->go);
		pthread_mutex_unlock(&P->mu);
		for (unsigned k = 1; k < P->nw; k++)
			pthread_join(P->w[k].th, NULL);
		pthread_cond_destroy(&P->go);
		pthread_cond_destroy(&P->done);
		pthread_mutex_destroy(&P->mu);
	}
	for (unsigned k = 0; P->w && k < P->cap_w; k++) {
		view_fini(&P->w[k].v);
		free(P->w[k].cpu);
		cmap_fini(&P->w[k].ev);
	}
	free(P->w);
	free(P->batch);
	free(P->tsc_save);
	free(P->in_batch);
	free(P->cpus);
}

/* Up to nw workers (the main thread is the first); -1 when not even two
 * could be had (then the run is sequential). */
static int par_start(struct par *P, struct sum_run *R, unsigned nw, unsigned batch)
{
	unsigned k;

	memset(P, 0, sizeof(*P));
	P->R = R;
	P->cap = batch;
	P->cap_w = nw;
	P->w = calloc(nw, sizeof(*P->w));
	P->batch = calloc(batch, sizeof(*P->batch));
	P->tsc_save = calloc(XT_MAX_CPUS, sizeof(*P->tsc_save));
	P->in_batch = calloc(XT_MAX_CPUS, 1);
	P->cpus = calloc(XT_MAX_CPUS, sizeof(*P->cpus));
	if (!P->w || !P->batch || !P->tsc_save || !P->in_batch || !P->cpus)
		goto fail;
	for (k = 0; k < nw; k++) {
		struct worker *w = &P->w[k];

		w->P = P;
		w->k = k;
		if (view_init(&w->v, R->f, R->v.mode == VIEW_DIRECT ? VIEW_DIRECT : VIEW_PREAD, 0) ||
		    !(w->cpu = calloc(XT_MAX_CPUS, sizeof(*w->cpu))) ||
		    cmap_init(&w->ev, TR_MAX_EVENT_IDS))
			goto fail;
	}
	if (pthread_mutex_init(&P->mu, NULL))
		goto fail;
	if (pthread_cond_init(&P->go, NULL)) {
		pthread_mutex_destroy(&P->mu);
		goto fail;
	}
	if (pthread_cond_init(&P->done, NULL)) {
		pthread_cond_destroy(&P->go);
		pthread_mutex_destroy(&P->mu);
		goto fail;
	}
	P->sync = true;
	/* Workers share out the CPUs by P->nw, set before any batch: as many
	 * as could be started. */
	for (P->nw = 1; P->nw < nw; P->nw++)
		if (pthread_create(&P->w[P->nw].th, NULL, worker_main, &P->w[P->nw]))
			break;
	if (P->nw > 1)
		return 0;
fail:
	par_stop(P);
	return -1;
}

/* Batches from *pos while they are regular; false when the sequential
 * reader must take the chunk at *pos. */
static bool par_step(struct par *P, uint64_t *pos, unsigned min_chunks)
{
	struct sum_run *R = P->R;
	bool dirty = false;

	collect_batch(P, *pos);
	if (P->n < min_chunks) {
		reset_batch(P);
		return false;
	}
	pthread_mutex_lock(&P->mu);
	P->pending = P->nw - 1;
	P->gen++;
	pthread_cond_broadcast(&P->go);
	pthread_mutex_unlock(&P->mu);
	work_batch(&P->w[0]);
	pthread_mutex_lock(&P->mu);
	while (P->pending)
		pthread_cond_wait(&P->done, &P->mu);
	pthread_mutex_unlock(&P->mu);
	for (unsigned k = 0; k < P->nw; k++) {
		dirty |= P->w[k].dirty || P->w[k].ev.overflow;	/* a worker's own cap */
		R->hvm_seen |= P->w[k].hvm_seen;
	}
	if (dirty || !merge_batch(P)) {
		/* Back to the TSCs before the batch; the sequential reader
		 * counts it again from its first chunk (the HVM profile, which
		 * the workers counted in part, then in TSC order). */
		if (R->t.hv)
			tr_hvm_par_spoil(R->t.hv, "a batch was read again sequentially");
		for (unsigned i = 0; i < P->ncpus; i++)
			R->q.last_tsc[P->cpus[i]] = P->tsc_save[P->cpus[i]];
		reset_batch(P);
		return false;
	}
	*pos = P->batch[P->n - 1].data_off + P->batch[P->n - 1].len;
	if (R->t.hv) {
		uint64_t wb = UINT64_MAX;

		for (unsigned i = 0; i < P->ncpus; i++)
			if (R->q.last_tsc[P->cpus[i]] < wb)
				wb = R->q.last_tsc[P->cpus[i]];
		tr_hvm_par_sync(R->t.hv, low_tsc(R), wb);
	}
	reset_batch(P);
	return true;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > TR_MAX_THREADS ? TR_MAX_THREADS : (unsigned)n;
}

/* *s empty, its tables allocated (FRESH) or, after a pass stopped, kept
 * and cleared: freed and taken again they were fresh pages, a page fault
 * each.  0, or -1 (out of memory). */
static int summary_start(struct tr_summary *s, const struct xt_file *f, bool fresh)
{
	struct tr_cpu *cpu = fresh ? NULL : s->cpu;
	struct cmap ev = s->ev;

	if (fresh) {
		if (!(cpu = calloc(XT_MAX_CPUS, sizeof(*cpu))) || cmap_init(&ev, TR_MAX_EVENT_IDS)) {
			free(cpu);
			memset(s, 0, sizeof(*s));	/* tr_summary_fini() can be called */
			return -1;
		}
	} else {
		memset(cpu, 0, s->ncpu * sizeof(*cpu));
		cmap_clear(&ev);
	}
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->ev = ev;
	s->bytes = f->len;
	return 0;
}

/* One pass over the file (*s from summary_start()), with the HVM profile
 * in file order (HV) or without; WATCH: stop at the first HVM event ID (1
 * returned).  0, or -1 (out of memory). */
static int sum_pass(struct tr_summary *s, const struct xt_file *f, const struct tr_par *opt,
		    struct tr_hvm_par *hv, bool watch)
{
	struct sum_run R = { .s = s, .f = f };
	struct par P;
	unsigned nw = opt && opt->threads ? opt->threads : 0;	/* 0: the online CPUs */
	unsigned batch = opt && opt->batch ? opt->batch : TR_PAR_BATCH;
	uint64_t min_bytes = opt ? opt->min_bytes : TR_PAR_MIN_BYTES;
	uint64_t map_max = opt && opt->map_max ? opt->map_max : TR_MAP_MAX_BYTES;
	bool windowed = f->fd >= 0 && f->len > map_max;
	uint64_t pos = 0;
	unsigned seq_left = 0;	/* chunks the sequential reader takes before a new batch */

	R.t = (struct tally){ &s->ev, &s->lost, hv, 0, watch ? &R.hvm_seen : NULL };
	if (xt_seq_init(&R.q, f, &s->an) ||
	    view_init(&R.v, f, windowed ? VIEW_WINDOW : VIEW_DIRECT, opt ? opt->window : 0))
		return -1;
	/* The online CPUs are asked for (a read of /sys) only when they matter. */
	if (f->len >= min_bytes && !nw)
		nw = default_threads();
	if (nw > TR_MAX_THREADS)
		nw = TR_MAX_THREADS;
	if (nw > 1 && f->len >= min_bytes && par_start(&P, &R, nw, batch) == 0)
		R.par = &P;
	while (pos < f->len && !R.hvm_seen) {
		if (R.par && !seq_left) {
			if (par_step(&P, &pos, batch < 8 ? 1 : batch / 8))
				continue;
			if (R.hvm_seen)
				break;
			/* Irregular, or too few regular chunks: a batch's worth
			 * sequentially, then try again. */
			seq_left = batch;
		}
		if (!seq_chunk(&R, &pos))
			break;
		if (seq_left)
			seq_left--;
		/* The HVM profile's segments stitched as the workers' are, so
		 * that they take the same memory again. */
		if (hv && tr_hvm_par_due(hv)) {
			uint64_t w = low_tsc(&R);

			tr_hvm_par_sync(hv, w, w);
		}
	}
	if (R.par)
		par_stop(&P);
	s->chunks = R.q.chunks;
	xt_seq_fini(&R.q);
	view_fini(&R.v);
	if (R.hvm_seen)
		return 1;
	if (s->ev.overflow)
		xt_anom_add(&s->an, "more than %u distinct event IDs: %llu records counted "
			    "as \"other\"", TR_MAX_EVENT_IDS, (unsigned long long)s->ev.overflow);
	return 0;
}

int tr_summary_run_with(struct tr_summary *s, const struct xt_file *f, const struct tr_par *opt)
{
	int hvm_pass = opt ? opt->hvm_pass : TR_HVM_AUTO;
	uint64_t min_bytes = opt ? opt->min_bytes : TR_PAR_MIN_BYTES;
	unsigned nw = opt && opt->threads ? opt->threads : 0, passes = 1;
	struct tr_hvm_par *hv = NULL;	/* the HVM profile in file order */
	int rc;

	/* First without the HVM profile; with it, from the start, once the
	 * file shows an HVM event ID (unless the TSC-ordered pass is asked
	 * for: that one runs after this pass). */
	if (summary_start(s, f, true))
		return -1;
	rc = sum_pass(s, f, opt, NULL, hvm_pass == TR_HVM_AUTO);
	if (rc == 1) {
		summary_start(s, f, false);
		passes = 2;
		if (f->len >= min_bytes && !nw)
			nw = default_threads();
		if (!(hv = tr_hvm_par_new(nw > 1 && f->len >= min_bytes ?
					  (nw > TR_MAX_THREADS ? TR_MAX_THREADS : nw) : 1)))
			return -1;
		rc = sum_pass(s, f, opt, hv, false);
	}
	s->passes = passes;
	if (rc) {
		tr_hvm_par_free(hv);
		return -1;
	}
	s->hvm_fed = hv ? tr_hvm_par_fed(hv) : 0;
	/* The HVM profile, for files that have HVM records: counted above
	 * where that is exact, else by a second, TSC-ordered pass. */
	for (uint32_t i = 0; i < s->ev.cap && !s->has_hvm; i++)
		s->has_hvm = s->ev.used[i] && s->ev.v[i] && hvm_class(s->ev.key[i]);
	if (s->has_hvm) {
		int fr = 1;

		s->hvm_tsc_why = "asked for";
		if (hv && xt_anom_any(&s->an))
			tr_hvm_par_spoil(hv, "the file has anomalies");
		if (hv && (fr = tr_hvm_par_finish(hv, &s->hvm, &s->hvm_tsc_why)) == 0) {
			s->hvm_file_order = true;
			s->hvm_tsc_why = NULL;
		}
		if (fr < 0 || (fr > 0 && tr_hvm_run(&s->hvm, f))) {
			tr_hvm_fini(&s->hvm);
			s->has_hvm = false;
			rc = -1;
		}
	}
	tr_hvm_par_free(hv);
	return rc;
}

int tr_hvm_env(int *pass, bool *why)
{
	static const char var[] = "IPIBENCH_TRACE_HVM";
	const char *e = getenv(var);

	*pass = TR_HVM_AUTO;
	*why = false;
	if (!e || !*e || !strcmp(e, "auto"))
		return 0;
	if (!strcmp(e, "tsc")) {
		*pass = TR_HVM_TSC;
		return 0;
	}
	if (!strcmp(e, "why")) {
		*why = true;
		return 0;
	}
	char q[40];	/* the environment is not trusted either */

	sio_quote(q, sizeof(q), e);
	fprintf(stderr, "ipibench: %s=%s: not one of auto, tsc, why\n", var, q);
	return -1;
}

int tr_summary_run(struct tr_summary *s, const struct xt_file *f)
{
	struct tr_par opt = { .min_bytes = TR_PAR_MIN_BYTES };
	bool why;

	if (tr_hvm_env(&opt.hvm_pass, &why)) {
		memset(s, 0, sizeof(*s));	/* tr_summary_fini() can be called */
		return -1;
	}
	int rc = tr_summary_run_with(s, f, &opt);

	if (!rc && s->has_hvm && why)
		fprintf(stderr, "hvm profile: %s%s\n", s->hvm_file_order ? "file order" : "TSC order: ",
			s->hvm_file_order ? "" : s->hvm_tsc_why);
	return rc;
}

void tr_summary_fini(struct tr_summary *s)
{
	if (s->has_hvm)
		tr_hvm_fini(&s->hvm);
	s->has_hvm = false;
	cmap_fini(&s->ev);
	free(s->cpu);
	s->cpu = NULL;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tr_row *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);

	if (!c)
		c = strcmp(x->name, y->name);
	/* Equal names (merged below): by ID, whatever order the table has. */
	return c ? c : (x->ids[0] > y->ids[0]) - (x->ids[0] < y->ids[0]);
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

int tr_ipi_kind(const struct xt_rec *r, int *mode, uint32_t *vec)
{
	uint32_t need;

	switch (r->event) {
	case IPB_TRC_APIC_SEND_IPI_MASK:
		need = 4;
		*mode = r->nextra >= 1 && (r->d[0] & IPB_IPI_LOGICAL) ? TR_LOGICAL : TR_PHYS;
		break;
	case IPB_TRC_APIC_SEND_IPI_ALLBUT:
		need = 3;
		*mode = TR_SHORTHAND;
		break;
	case IPB_TRC_APIC_SEND_IPI_SELF:
		need = 1;
		*mode = TR_SELF;
		break;
	case IPB_TRC_APIC_IPI_RECV:
		if (r->nextra < 1)
			return TR_IPI_SHORT;
		*vec = r->d[0] & 0xff;
		return TR_IPI_RECV;
	default:
		return TR_IPI_OTHER;
	}
	if (r->nextra < need)
		return TR_IPI_SHORT;
	*vec = r->d[0] & 0xff;
	return TR_IPI_SEND;
}

/* ---- the pairing (trace.h) ---- */

struct tr_pair_op {
	struct tr_op op;
	int32_t head, tail;	/* its held receives, in arrival order */
	int32_t next_free;
	bool open, cur;		/* open: no send record yet; cur: its vector's cur[] */
};

struct tr_pair_held {
	struct tr_recv r;
	int32_t next;
};

int tr_pair_init(struct tr_pair *pp, tr_pair_recv_fn *recv, tr_pair_done_fn *done, void *arg,
		 struct xt_anom *an)
{
	memset(pp, 0, sizeof(*pp));
	pp->recv = recv;
	pp->done = done;
	pp->arg = arg;
	pp->an = an;
	pp->free_op = pp->free_held = -1;
	for (int v = 0; v < 256; v++)
		pp->cur[v] = -1;
	pp->open = malloc(XT_MAX_CPUS * sizeof(*pp->open));
	if (!pp->open)
		return -1;
	for (uint32_t c = 0; c < XT_MAX_CPUS; c++)
		pp->open[c] = -1;
	return 0;
}

void tr_pair_fini(struct tr_pair *pp)
{
	free(pp->open);
	free(pp->ops);
	free(pp->held);
	pp->open = NULL;
	pp->ops = NULL;
	pp->held = NULL;
}

/* A free operation slot, or -1 (out of memory).  At most XT_MAX_CPUS open
 * and 256 closed ones are alive, so the table stays that small. */
static int32_t op_alloc(struct tr_pair *pp)
{
	if (pp->free_op < 0) {
		uint32_t cap = pp->capops ? 2 * pp->capops : 64;
		struct tr_pair_op *n = realloc(pp->ops, cap * sizeof(*n));

		if (!n)
			return -1;
		pp->ops = n;
		for (uint32_t i = cap; i-- > pp->capops;) {
			n[i].next_free = pp->free_op;
			pp->free_op = (int32_t)i;
		}
		pp->capops = cap;
	}
	int32_t s = pp->free_op;

	pp->free_op = pp->ops[s].next_free;
	return s;
}

static void op_free(struct tr_pair *pp, int32_t s)
{
	pp->ops[s].next_free = pp->free_op;
	pp->free_op = s;
}

/* Operation S may be done with: closed and no longer its vector's. */
static void op_retire(struct tr_pair *pp, int32_t s)
{
	struct tr_pair_op *o = &pp->ops[s];

	if (o->open || o->cur)
		return;
	if (pp->done)
		pp->done(pp->arg, &o->op);
	op_free(pp, s);
}

/* A new operation begun by R (of VEC) on R's CPU; -1: out of memory. */
static int32_t op_begin(struct tr_pair *pp, const struct xt_rec *r, uint32_t vec)
{
	int32_t s = op_alloc(pp);

	if (s < 0) {
		pp->oom = true;
		return -1;
	}
	struct tr_pair_op *o = &pp->ops[s];

	memset(o, 0, sizeof(*o));
	o->op.id = pp->ids++;
	o->op.send = TR_NO_SEND;
	o->op.first = o->op.last = r->tsc;
	o->op.cpu = r->cpu;
	o->op.vec = vec & 0xff;
	o->op.mode = -1;
	o->op.has_tsc = r->has_tsc;
	o->head = o->tail = -1;
	o->open = true;
	if (r->has_tsc) {
		int32_t old = pp->cur[o->op.vec];

		pp->cur[o->op.vec] = s;
		o->cur = true;
		if (old >= 0) {
			pp->ops[old].cur = false;
			op_retire(pp, old);
		}
	}
	return s;
}

uint64_t tr_pair_icr(struct tr_pair *pp, const struct xt_rec *r)
{
	int32_t s = pp->open[r->cpu];

	if (s < 0) {
		if (r->nextra < 2 || (s = op_begin(pp, r, r->d[1])) < 0)
			return TR_NO_SEND;
		pp->open[r->cpu] = s;
	}
	struct tr_op *op = &pp->ops[s].op;

	op->icr_seen++;
	if (r->has_tsc && r->tsc >= op->last)
		op->last = r->tsc;
	return op->id;
}

static void hand_out(struct tr_pair *pp, const struct tr_recv *r, struct tr_pair_op *o)
{
	if (o)
		o->op.nrecv++;
	pp->recv(pp->arg, r, o ? &o->op : NULL);
}

/* The receives held for S, handed out (matched when S is closed). */
static void release(struct tr_pair *pp, int32_t s)
{
	struct tr_pair_op *o = &pp->ops[s];

	for (int32_t h = o->head, nx; h >= 0; h = nx) {
		nx = pp->held[h].next;
		hand_out(pp, &pp->held[h].r, o->open ? NULL : o);
		pp->held[h].next = pp->free_held;
		pp->free_held = h;
		pp->nheld--;
	}
	o->head = o->tail = -1;
}

const struct tr_op *tr_pair_send(struct tr_pair *pp, const struct xt_rec *r, int mode,
				 uint32_t vec)
{
	int32_t s = pp->open[r->cpu];

	if (s >= 0)
		pp->open[r->cpu] = -1;
	else if ((s = op_begin(pp, r, vec)) < 0)
		return NULL;
	struct tr_pair_op *o = &pp->ops[s];

	o->open = false;
	o->op.mode = mode;
	o->op.send = pp->sends++;
	o->op.rec = *r;
	release(pp, s);
	/* (still valid: the slot is only reused by a later call) */
	op_retire(pp, s);
	return &o->op;
}

void tr_pair_recv(struct tr_pair *pp, const struct xt_rec *r, uint32_t vec)
{
	struct tr_recv rr = { .tsc = r->tsc, .off = r->off, .cpu = r->cpu, .vec = vec & 0xff,
			      .has_tsc = r->has_tsc };
	int32_t s = pp->cur[vec & 0xff];
	struct tr_pair_op *o = s >= 0 ? &pp->ops[s] : NULL;

	/* No operation of its vector before it, or (TSC gone backwards on a
	 * CPU, already reported) one that is not earlier after all. */
	if (!o || !r->has_tsc || r->tsc < o->op.first) {
		hand_out(pp, &rr, NULL);
		return;
	}
	if (!o->open) {
		hand_out(pp, &rr, o);
		return;
	}
	/* Its operation's send record is still to come: held. */
	if (pp->free_held < 0 && pp->capheld < TR_PAIR_HOLD) {
		uint32_t cap = pp->capheld ? 2 * pp->capheld : 256;
		struct tr_pair_held *n = realloc(pp->held, cap * sizeof(*n));

		if (!n) {
			pp->oom = true;
		} else {
			pp->held = n;
			for (uint32_t i = cap; i-- > pp->capheld;) {
				n[i].next = pp->free_held;
				pp->free_held = (int32_t)i;
			}
			pp->capheld = cap;
		}
	}
	if (pp->free_held < 0) {
		if (!pp->held_over++ && !pp->oom)
			xt_anom_add(pp->an, "offset %llu: more than %u receives wait for their "
				    "operation's send record: this one and any such later are "
				    "unmatched", (unsigned long long)r->off, TR_PAIR_HOLD);
		hand_out(pp, &rr, NULL);
		return;
	}
	int32_t h = pp->free_held;

	pp->free_held = pp->held[h].next;
	pp->held[h].r = rr;
	pp->held[h].next = -1;
	if (o->tail >= 0)
		pp->held[o->tail].next = h;
	else
		o->head = h;
	o->tail = h;
	pp->nheld++;
}

void tr_pair_end(struct tr_pair *pp)
{
	/* Operations without a send record: their receives unmatched. */
	for (uint32_t c = 0; c < XT_MAX_CPUS; c++) {
		int32_t s = pp->open[c];

		if (s < 0)
			continue;
		pp->open[c] = -1;
		release(pp, s);
		if (pp->ops[s].cur)
			pp->cur[pp->ops[s].op.vec] = -1;
		op_free(pp, s);
	}
	for (int v = 0; v < 256; v++) {
		int32_t s = pp->cur[v];

		if (s < 0)
			continue;
		pp->cur[v] = -1;
		pp->ops[s].cur = false;
		op_retire(pp, s);
	}
}

void tr_tsc_khz_take(uint32_t *khz, const struct xt_rec *r, struct xt_anom *an)
{
	if (r->event != IPB_TRC_APIC_TSC_KHZ || r->nextra < 1 || *khz)
		return;
	if (r->d[0] >= TR_TSC_KHZ_MIN && r->d[0] <= TR_TSC_KHZ_MAX)
		*khz = r->d[0];
	else
		xt_anom_add(an, "offset %llu: apic:tsc_khz record says %u kHz, "
			    "not from %u to %u: ignored (cycles only, unless "
			    "--tsc-khz)", (unsigned long long)r->off, r->d[0],
			    TR_TSC_KHZ_MIN, TR_TSC_KHZ_MAX);
}

int tr_ipi_run(struct tr_ipi *p, const struct xt_file *f)
{
	return tr_ipi_run_each(p, f, NULL, NULL);
}

struct run_each {
	struct tr_ipi *p;
	tr_ipi_fn *fn;
	void *arg;
	bool oom;
};

/* A receive handed out by the pairing: its latency, by its operation's mode. */
static void run_recv(void *arg, const struct tr_recv *r, const struct tr_op *op)
{
	struct run_each *R = arg;
	struct tr_ipi *p = R->p;

	if (R->fn)
		R->fn(R->arg, &(struct tr_ipi_ev){ .kind = TR_EV_RECV, .cpu = r->cpu,
			.has_tsc = r->has_tsc, .tsc = r->tsc, .off = r->off, .vec = r->vec,
			.mode = op ? op->mode : -1, .send = op ? op->send : TR_NO_SEND,
			.op = op ? op->id : TR_NO_SEND, .op_tsc = op ? op->first : 0 });
	if (!op) {
		p->unmatched++;
		return;
	}
	hist_add(&p->mode[op->mode].lat, r->tsc - op->first);
	if (!p->lat_cpu[r->cpu]) {
		p->lat_cpu[r->cpu] = malloc(sizeof(struct hist));
		if (!p->lat_cpu[r->cpu]) {
			R->oom = true;
			return;
		}
		hist_init(p->lat_cpu[r->cpu]);
	}
	hist_add(p->lat_cpu[r->cpu], r->tsc - op->first);
}

int tr_ipi_run_each(struct tr_ipi *p, const struct xt_file *f, tr_ipi_fn *fn, void *arg)
{
	struct run_each R = { .p = p, .fn = fn, .arg = arg };
	struct tr_pair pair;
	struct xt_merge *m;
	struct xt_rec r;
	int mode;

	memset(p, 0, sizeof(*p));
	for (mode = 0; mode < TR_NMODES; mode++) {
		hist_init(&p->mode[mode].dests);
		hist_init(&p->mode[mode].icr);
		hist_init(&p->mode[mode].cost);
		hist_init(&p->mode[mode].lat);
	}
	p->lat_cpu = calloc(XT_MAX_CPUS, sizeof(*p->lat_cpu));
	if (!p->lat_cpu || cmap_init(&p->groups, TR_MAX_GROUPS))
		return -1;
	if (tr_pair_init(&pair, run_recv, NULL, &R, &p->an)) {
		tr_pair_fini(&pair);
		return -1;
	}
	m = xt_merge_open(f, &p->an);
	if (!m) {
		tr_pair_fini(&pair);
		return -1;
	}
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
			p->recv++;
			tr_pair_recv(&pair, &r, r.d[0] & 0xff);
			continue;
		case IPB_TRC_APIC_ICR_WRITE: {
			uint64_t op = tr_pair_icr(&pair, &r);

			p->icr_writes++;
			if (fn && r.nextra >= 2)
				fn(arg, &(struct tr_ipi_ev){ .kind = TR_EV_ICR_WRITE, .cpu = r.cpu,
					.has_tsc = r.has_tsc, .tsc = r.tsc, .off = r.off,
					.vec = r.d[1] & 0xff, .mode = -1, .send = TR_NO_SEND,
					.op = op, .dest = r.d[0] });
			continue;
		}
		case IPB_TRC_APIC_MASK_TO_APICID:
			if (r.nextra >= 3)
				p->mask_to_apicid[r.d[2] ? 1 : 0]++;
			continue;
		case IPB_TRC_APIC_TSC_KHZ:
			tr_tsc_khz_take(&p->tsc_khz, &r, &p->an);
			continue;
		default:
			continue;
		}
		/* A send: per (mode, vector, destinations), and its operation closed. */
		{
			uint32_t icr = r.event == IPB_TRC_APIC_SEND_IPI_MASK ? r.d[2] : 1;
			uint32_t dests = r.event == IPB_TRC_APIC_SEND_IPI_SELF ? 1 : r.d[1];
			const struct tr_op *op;

			cmap_add(&p->groups, TR_GROUP_KEY(mode, vec, dests), 1, icr);
			op = tr_pair_send(&pair, &r, mode, vec);
			if (!op)
				R.oom = true;
			else if (fn)
				fn(arg, &(struct tr_ipi_ev){ .kind = TR_EV_SEND, .cpu = r.cpu,
					.has_tsc = r.has_tsc, .tsc = r.tsc, .off = r.off, .vec = vec,
					.mode = mode, .send = op->send, .op = op->id, .dests = dests,
					.icr = icr });
		}
		continue;
short_rec:
		xt_anom_add(&p->an, "offset %llu: event 0x%08x has %u words, too few; ignored",
			    (unsigned long long)r.off, r.event, r.nextra);
	}
	xt_merge_close(m);
	tr_pair_end(&pair);
	R.oom |= pair.oom;
	tr_pair_fini(&pair);
	if (p->groups.overflow)
		xt_anom_add(&p->an, "more than %u (mode, vector, destinations) groups: %llu "
			    "sends not grouped", TR_MAX_GROUPS,
			    (unsigned long long)p->groups.overflow);
	return R.oom ? -1 : 0;
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
