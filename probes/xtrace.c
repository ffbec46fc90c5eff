/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/xtrace.c: chunk walker, sequential and TSC-merged record readers. */
#include "probes/xtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/safeio.h"

const uint8_t xt_rec_sizes[16] = { 4, 8, 12, 16, 20, 24, 28, 32, 12, 16, 20, 24, 28, 32, 36, 40 };

/* Release the mapping behind the sequential reader every so often, so that
 * its resident size stays flat on multi-GB files. */
#define XT_DROP_STEP (8u << 20)

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

bool xt_anom_any(const struct xt_anom *an)
{
	return an->skipped_bytes || an->bad_records || an->short_chunks ||
	       an->truncated || an->tsc_backwards || an->garbage_runs;
}

void xt_anom_add(struct xt_anom *an, const char *fmt, ...)
{
	va_list ap;

	if (!an)
		return;
	if (an->nmsgs < XT_MAX_MSGS) {
		va_start(ap, fmt);
		vsnprintf(an->msgs[an->nmsgs], sizeof(an->msgs[0]), fmt, ap);
		va_end(ap);
	}
	an->nmsgs++;
}

int xt_map_max(struct xt_file *f, const char *path, uint64_t max, char *err, size_t errlen)
{
	struct stat st;
	char q[256];
	off_t hole;
	int fd;
	void *p;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	/* safeio's rule: O_NONBLOCK, a regular file (a FIFO, device or
	 * directory is refused at once), at most max bytes. */
	fd = sio_open_regular(path, max, &st, err, errlen);
	if (fd < 0)
		return -1;
	if (st.st_size == 0) {
		close(fd);
		f->base = (const uint8_t *)"";
		return 0;
	}
	/* xentrace writes every byte of its file: a hole (a sparse file,
	 * `truncate -s`) is where records stop, and it is found without
	 * reading it.  Filesystems without SEEK_HOLE report none. */
	hole = lseek(fd, 0, SEEK_HOLE);
	if (hole >= 0 && hole < st.st_size) {
		snprintf(err, errlen, "%s: offset %lld: a hole of unwritten bytes (a sparse file): "
			 "not a xentrace file, which has no holes", sio_shown(q, sizeof(q), path),
			 (long long)hole);
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", sio_shown(q, sizeof(q), path), strerror(errno));
		close(fd);
		return -1;
	}
	f->fd = fd;
	madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	f->base = p;
	f->len = (size_t)st.st_size;
	f->mapped = true;
	return 0;
}

int xt_map(struct xt_file *f, const char *path, char *err, size_t errlen)
{
	return xt_map_max(f, path, XT_MAX_BYTES, err, errlen);
}

void xt_mem(struct xt_file *f, const void *buf, size_t len)
{
	f->base = buf ? buf : (const void *)"";
	f->len = buf ? len : 0;
	f->mapped = false;
	f->fd = -1;
}

void xt_unmap(struct xt_file *f)
{
	if (f->mapped)
		munmap((void *)f->base, f->len);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* ---- chunk walker ------------------------------------------------------ */

void xt_walk_init(struct xt_walk *w, const struct xt_file *f, struct xt_anom *an)
{
	w->f = f;
	w->off = 0;
	w->an = an;
}

static bool chunk_hdr_at(const struct xt_file *f, uint64_t off)
{
	return f->len - off >= 12 && ld32(f->base + off) == XT_CPU_CHANGE_HDR &&
	       ld32(f->base + off + 4) < XT_MAX_CPUS;
}

int xt_walk_next(struct xt_walk *w, struct xt_chunk *c)
{
	const struct xt_file *f = w->f;
	uint64_t off = w->off, left, scan;

	if (off >= f->len)
		return 0;
	if (!chunk_hdr_at(f, off)) {
		left = f->len - off;
		if (left < 12 && (left < 4 || ld32(f->base + off) == XT_CPU_CHANGE_HDR)) {
			if (w->an) {
				w->an->truncated = 1;
				w->an->skipped_bytes += left;
				xt_anom_add(w->an, "offset %" PRIu64 ": file ends inside a cpu_change "
					    "record (%" PRIu64 " of 12 bytes)", off, left);
			}
			w->off = f->len;
			return 0;
		}
		/* A block of zero bytes where a chunk should start: records
		 * stop making sense here (a zero-filled file, or the tail a
		 * crash left), and the rest is skipped, not scanned. */
		if (left >= XT_ZERO_BLOCK && !f->base[off] &&
		    !memcmp(f->base + off, f->base + off + 1, XT_ZERO_BLOCK - 1)) {
			if (w->an) {
				w->an->garbage_runs++;
				w->an->skipped_bytes += left;
				xt_anom_add(w->an, "offset %" PRIu64 ": %u zero bytes where a cpu_change "
					    "record was expected: no trace from here on, the last %"
					    PRIu64 " bytes skipped", off, XT_ZERO_BLOCK, left);
			}
			w->off = f->len;
			return 0;
		}
		/* Garbage: find the next plausible cpu_change record, by its
		 * header's bytes (memmem: a file of zeros is passed over at the
		 * speed of memory, not a byte at a time). */
		for (scan = off + 1; scan + 12 <= f->len; scan++) {
			static const uint32_t magic = XT_CPU_CHANGE_HDR;
			const uint8_t *m = memmem(f->base + scan, f->len - scan, &magic, 4);

			if (!m) {
				scan = f->len;
				break;
			}
			scan = (uint64_t)(m - f->base);
			if (chunk_hdr_at(f, scan))
				break;
		}
		if (scan + 12 > f->len)
			scan = f->len;
		if (w->an) {
			w->an->garbage_runs++;
			w->an->skipped_bytes += scan - off;
			if (left >= 4 && ld32(f->base + off) == XT_CPU_CHANGE_HDR)
				xt_anom_add(w->an, "offset %" PRIu64 ": cpu_change record names cpu %u "
					    "(max %u); skipped %" PRIu64 " bytes to the next cpu_change",
					    off, ld32(f->base + off + 4), XT_MAX_CPUS - 1, scan - off);
			else
				xt_anom_add(w->an, "offset %" PRIu64 ": expected a cpu_change record, "
					    "found header 0x%08x; skipped %" PRIu64 " bytes to %s",
					    off, left >= 4 ? ld32(f->base + off) : 0, scan - off,
					    scan < f->len ? "the next cpu_change" : "the end of the file");
		}
		if (scan >= f->len) {
			w->off = f->len;
			return 0;
		}
		off = scan;
	}
	c->hdr_off = off;
	c->cpu = ld32(f->base + off + 4);
	c->declared = ld32(f->base + off + 8);
	c->data_off = off + 12;
	left = f->len - c->data_off;
	c->len = c->declared <= left ? c->declared : left;
	if (c->len < c->declared && w->an) {
		w->an->short_chunks++;
		w->an->truncated = 1;
		xt_anom_add(w->an, "offset %" PRIu64 ": chunk of cpu %u declares %" PRIu64
			    " bytes, the file ends after %" PRIu64, off, c->cpu, c->declared, c->len);
	}
	w->off = c->data_off + c->len;
	return 1;
}

/* ---- records inside a chunk -------------------------------------------- */

/* The TSC of the record at off on cpu, against that CPU's last one
 * (*last, which it becomes): a step back is counted and, the first time,
 * described. */
static inline void tsc_seen(struct xt_anom *an, uint64_t *last, uint64_t tsc, uint64_t off,
			    uint32_t cpu)
{
	if (tsc < *last && an) {
		if (!an->tsc_backwards)
			xt_anom_add(an, "offset %" PRIu64 ": TSC goes backwards on cpu %u (%" PRIu64
				    " after %" PRIu64 "); counted, further cases only counted",
				    off, cpu, tsc, *last);
		an->tsc_backwards++;
	}
	*last = tsc;
}

/* Parse the record at *pos in [*pos, end) of chunk c; 1 if one was read, 0
 * when the chunk is done (its rest, if any, counted as skipped). */
static inline int chunk_rec(const struct xt_file *f, const struct xt_chunk *c,
			    uint64_t *pos, uint64_t end, uint64_t *last_tsc,
			    struct xt_anom *an, struct xt_rec *r)
{
	const uint8_t *p;
	uint32_t hdr, size, n;
	uint64_t left = end - *pos;

	if (!left)
		return 0;
	p = f->base + *pos;
	if (left < 4) {
		hdr = 0;
		size = 4;
	} else {
		hdr = ld32(p);
		size = xt_rec_size(hdr);
	}
	if (size > left) {
		if (an) {
			an->skipped_bytes += left;
			if (c->len < c->declared) {
				an->truncated = 1;
				xt_anom_add(an, "offset %" PRIu64 ": file ends inside a record "
					    "(event 0x%07x needs %u bytes, %" PRIu64 " left)",
					    *pos, hdr & 0x0fffffff, size, left);
			} else if (left < 4) {
				an->bad_records++;
				xt_anom_add(an, "offset %" PRIu64 ": %" PRIu64 " stray bytes end the "
					    "cpu %u chunk (not a whole record header); skipped",
					    *pos, left, c->cpu);
			} else {
				an->bad_records++;
				xt_anom_add(an, "offset %" PRIu64 ": record (header 0x%08x, %u bytes) "
					    "runs past the end of its cpu %u chunk (%" PRIu64
					    " bytes left); rest of chunk skipped",
					    *pos, hdr, size, c->cpu, left);
			}
		}
		*pos = end;
		return 0;
	}
	r->off = *pos;
	r->event = hdr & 0x0fffffff;
	r->cpu = c->cpu;
	n = (hdr >> 28) & 7;
	r->nextra = n;
	p += 4;
	if (hdr >> 31) {
		tsc_seen(an, &last_tsc[c->cpu], (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32,
			 *pos, c->cpu);
		r->has_tsc = true;
		p += 8;
	} else {
		r->has_tsc = false;
	}
	r->tsc = last_tsc[c->cpu];
	memcpy(r->d, p, 4 * n);
	*pos += size;
	return 1;
}

static void seq_drop(struct xt_seq *s)
{
	const struct xt_file *f = s->w.f;
	uint64_t upto = s->pos & ~(uint64_t)(XT_DROP_STEP - 1);

	if (!f->mapped || upto <= s->drop_done)
		return;
	madvise((void *)(f->base + s->drop_done), upto - s->drop_done, MADV_DONTNEED);
	s->drop_done = upto;
}

int xt_chunk_rec(const struct xt_file *f, const struct xt_chunk *c, uint64_t *pos,
		 uint64_t *last_tsc, struct xt_anom *an, struct xt_rec *r)
{
	return chunk_rec(f, c, pos, c->data_off + c->len, last_tsc, an, r);
}

void xt_seq_release(struct xt_seq *s, uint64_t pos)
{
	s->pos = pos;
	if (s->pos - s->drop_done >= XT_DROP_STEP)
		seq_drop(s);
}

/* ---- sequential reader ------------------------------------------------- */

int xt_seq_init(struct xt_seq *s, const struct xt_file *f, struct xt_anom *an)
{
	memset(s, 0, sizeof(*s));
	xt_walk_init(&s->w, f, an);
	s->an = an;
	s->last_tsc = calloc(XT_MAX_CPUS, sizeof(*s->last_tsc));
	return s->last_tsc ? 0 : -1;
}

void xt_seq_fini(struct xt_seq *s)
{
	free(s->last_tsc);
	s->last_tsc = NULL;
}

int xt_seq_next(struct xt_seq *s, struct xt_rec *r)
{
	for (;;) {
		if (s->in_chunk) {
			if (chunk_rec(s->w.f, &s->c, &s->pos, s->end, s->last_tsc, s->an, r))
				return 1;
			s->in_chunk = false;
			if (s->pos - s->drop_done >= XT_DROP_STEP)
				seq_drop(s);
		}
		if (!xt_walk_next(&s->w, &s->c))
			return 0;
		s->chunks++;
		s->in_chunk = true;
		s->pos = s->c.data_off;
		s->end = s->c.data_off + s->c.len;
		r->off = s->c.hdr_off;
		r->tsc = s->last_tsc[s->c.cpu];
		r->event = XT_EV_CPU_CHANGE;
		r->cpu = s->c.cpu;
		r->nextra = 2;
		r->has_tsc = false;
		r->d[0] = s->c.cpu;
		r->d[1] = (uint32_t)s->c.declared;
		return 1;
	}
}

/* ---- merged reader ------------------------------------------------------
 *
 * Each CPU has a cursor whose head is the next record of that CPU, already
 * checked (whole, its TSC against the CPU's last one: the messages come in
 * the order the cursors reach the records) but not decoded: only its
 * offset and TSC are kept, and the record is decoded straight into the
 * caller's xt_rec when it is taken.  The heap holds the heads' keys (TSC,
 * CPU) themselves, so ordering it reads no cursor.
 */

struct xt_cursor {
	struct xt_walk w;	/* quiet: chunk problems are reported by the scan */
	struct xt_chunk c;
	uint64_t pos, end;	/* head record at pos, inside the chunk [.., end) */
	uint64_t tsc;		/* the head's TSC (its own, or the CPU's last) */
	bool in_chunk;
	uint32_t cpu;
};

struct xt_hnode {
	uint64_t tsc;
	uint32_t cpu;		/* ties: lower CPU first */
	uint32_t k;		/* index into cur */
};

struct xt_merge {
	const struct xt_file *f;
	struct xt_anom *an;
	uint64_t *last_tsc;
	struct xt_cursor *cur;
	uint32_t ncur;
	struct xt_hnode *heap;	/* min-heap on (tsc, cpu) */
	uint32_t nheap;
	uint64_t nrec, drop_done;
	uint32_t nwant, want_mask[XT_MERGE_MAX_WANT], want_val[XT_MERGE_MAX_WANT];
};

/* Release the part of the mapping that every CPU's cursor has passed, so
 * the resident size stays flat (as the sequential reader does). */
static void merge_drop(struct xt_merge *m)
{
	uint64_t low = m->f->len, upto;

	for (uint32_t i = 0; i < m->nheap; i++) {
		const struct xt_cursor *k = &m->cur[m->heap[i].k];
		uint64_t at = k->in_chunk ? k->c.data_off : k->w.off;

		if (at < low)
			low = at;
	}
	upto = low & ~(uint64_t)(XT_DROP_STEP - 1);
	if (!m->f->mapped || upto <= m->drop_done)
		return;
	madvise((void *)(m->f->base + m->drop_done), upto - m->drop_done, MADV_DONTNEED);
	m->drop_done = upto;
}

/* The record at k->pos as cursor k's head, when it is whole: its TSC
 * checked against the CPU's last one as chunk_rec() checks it. */
static inline bool head_at(struct xt_merge *m, struct xt_cursor *k)
{
	uint64_t left = k->end - k->pos;
	const uint8_t *p = m->f->base + k->pos;
	uint64_t *last = &m->last_tsc[k->cpu];
	uint32_t hdr;

	if (left < 4 || xt_rec_size(hdr = ld32(p)) > left)
		return false;
	if (hdr >> 31)
		tsc_seen(m->an, last, (uint64_t)ld32(p + 4) | (uint64_t)ld32(p + 8) << 32,
			 k->pos, k->cpu);
	k->tsc = *last;
	return true;
}

/* Make cursor k's head the record at k->pos or, when its chunk is done,
 * the first of its CPU's next chunk; false when that CPU is done.  An
 * irregular record goes to chunk_rec(), which describes it and skips the
 * rest of the chunk. */
static bool cursor_fill(struct xt_merge *m, struct xt_cursor *k)
{
	for (;;) {
		if (k->in_chunk) {
			if (head_at(m, k))
				return true;
			if (k->pos < k->end) {
				struct xt_rec r;

				chunk_rec(m->f, &k->c, &k->pos, k->end, m->last_tsc, m->an, &r);
			}
			k->in_chunk = false;
		}
		do {
			if (!xt_walk_next(&k->w, &k->c))
				return false;
		} while (k->c.cpu != k->cpu);
		k->in_chunk = true;
		k->pos = k->c.data_off;
		k->end = k->c.data_off + k->c.len;
	}
}

/* Whether the caller of xt_merge_want() may be spared the record hdr. */
static inline bool unwanted(const struct xt_merge *m, uint32_t hdr)
{
	uint32_t ev = hdr & 0x0fffffff;

	if (!m->nwant)
		return false;
	for (uint32_t i = 0; i < m->nwant; i++)
		if ((ev & m->want_mask[i]) == m->want_val[i])
			return false;
	return true;
}

/*
 * Cursor k's head is checked (head_at); while it is a record the caller
 * does not want, move on to the next one of the chunk, but only when that
 * one is whole and its TSC is not below the head's: then leaving the head
 * out cannot change where any other record comes in the merge (the next
 * record, with a key no lower, could not have come out before the head
 * did).  Else the head stays, for the caller to ignore.  The next record
 * is checked by head_at() as it would have been once the head was taken.
 */
static inline void skip_unwanted(struct xt_merge *m, struct xt_cursor *k)
{
	const uint8_t *base = m->f->base;

	while (unwanted(m, ld32(base + k->pos))) {
		uint64_t nx = k->pos + xt_rec_size(ld32(base + k->pos)), left = k->end - nx;
		uint32_t h2;

		if (left < 4 || xt_rec_size(h2 = ld32(base + nx)) > left)
			return;
		if (h2 >> 31 && ((uint64_t)ld32(base + nx + 4) | (uint64_t)ld32(base + nx + 8) << 32) < k->tsc)
			return;
		k->pos = nx;
		head_at(m, k);	/* whole: true */
	}
}

/* Order: TSC, then CPU, so equal TSCs come out in a stable order. */
static inline bool before(const struct xt_hnode *x, const struct xt_hnode *y)
{
	return x->tsc < y->tsc || (x->tsc == y->tsc && x->cpu < y->cpu);
}

static void sift_down(struct xt_merge *m, uint32_t i)
{
	struct xt_hnode *h = m->heap, t = h[i];
	uint32_t n = m->nheap;

	for (;;) {
		uint32_t l = 2 * i + 1, s;

		if (l >= n)
			break;
		s = l + 1 < n && before(&h[l + 1], &h[l]) ? l + 1 : l;
		if (!before(&h[s], &t))
			break;
		h[i] = h[s];
		i = s;
	}
	h[i] = t;
}

struct xt_merge *xt_merge_open(const struct xt_file *f, struct xt_anom *an)
{
	struct xt_merge *m = calloc(1, sizeof(*m));
	struct xt_walk w;
	struct xt_chunk c;
	uint8_t *seen = calloc(XT_MAX_CPUS, 1);
	uint32_t i;

	if (!m || !seen)
		goto fail;
	m->f = f;
	m->an = an;
	m->last_tsc = calloc(XT_MAX_CPUS, sizeof(*m->last_tsc));
	if (!m->last_tsc)
		goto fail;
	/* One pass over the chunk headers: which CPUs, and chunk problems. */
	xt_walk_init(&w, f, an);
	while (xt_walk_next(&w, &c)) {
		if (!seen[c.cpu]++)
			m->ncur++;
		/* Headers only, but each touch maps pages around it: let them go. */
		if (f->mapped && w.off - m->drop_done >= XT_DROP_STEP) {
			uint64_t upto = w.off & ~(uint64_t)(XT_DROP_STEP - 1);

			madvise((void *)f->base, upto, MADV_DONTNEED);
			m->drop_done = upto;
		}
	}
	/* A file smaller than one step stays mapped as it is: dropping its
	 * pages would only fault them in again below. */
	if (f->mapped && m->drop_done)
		madvise((void *)f->base, f->len, MADV_DONTNEED);
	m->drop_done = 0;
	m->cur = calloc(m->ncur ? m->ncur : 1, sizeof(*m->cur));
	m->heap = calloc(m->ncur ? m->ncur : 1, sizeof(*m->heap));
	if (!m->cur || !m->heap)
		goto fail;
	m->ncur = 0;
	for (i = 0; i < XT_MAX_CPUS; i++) {
		struct xt_cursor *k;

		if (!seen[i])
			continue;
		k = &m->cur[m->ncur];
		xt_walk_init(&k->w, f, NULL);
		k->cpu = i;
		if (cursor_fill(m, k))
			m->heap[m->nheap++] = (struct xt_hnode){ k->tsc, i, m->ncur };
		m->ncur++;
	}
	for (i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	free(seen);
	return m;
fail:
	free(seen);
	xt_merge_close(m);
	return NULL;
}

int xt_merge_want(struct xt_merge *m, const struct xt_want *w, uint32_t n)
{
	if (m->nwant || !n || n > XT_MERGE_MAX_WANT)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		m->want_mask[i] = w[i].mask;
		m->want_val[i] = w[i].value & w[i].mask;
	}
	m->nwant = n;
	/* The heads already taken, as if the merge had been asked from the start. */
	for (uint32_t i = 0; i < m->nheap; i++) {
		struct xt_cursor *k = &m->cur[m->heap[i].k];

		skip_unwanted(m, k);
		m->heap[i].tsc = k->tsc;
	}
	for (uint32_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

int xt_merge_next(struct xt_merge *m, struct xt_rec *r)
{
	struct xt_cursor *k;
	const uint8_t *p;
	uint32_t hdr, n;

	if (!m->nheap)
		return 0;
	if (!(++m->nrec & 0xffff))
		merge_drop(m);
	k = &m->cur[m->heap[0].k];
	/* The head, checked by cursor_fill(): decode it. */
	p = m->f->base + k->pos;
	hdr = ld32(p);
	n = (hdr >> 28) & 7;
	r->off = k->pos;
	r->tsc = k->tsc;
	r->event = hdr & 0x0fffffff;
	r->cpu = k->cpu;
	r->nextra = n;
	r->has_tsc = hdr >> 31;
	p += r->has_tsc ? 12 : 4;
	if (m->f->base + m->f->len - p >= (ptrdiff_t)sizeof(r->d))
		memcpy(r->d, p, sizeof(r->d));	/* (words past n: not the caller's) */
	else
		memcpy(r->d, p, 4 * n);
	k->pos += xt_rec_size(hdr);
	if (head_at(m, k) || cursor_fill(m, k)) {
		struct xt_hnode *h = m->heap;

		skip_unwanted(m, k);
		h[0].tsc = k->tsc;
		/* Still first (most records come in runs of one CPU): no sift. */
		if (m->nheap == 1 || (before(&h[0], &h[1]) && (m->nheap == 2 || before(&h[0], &h[2]))))
			return 1;
	} else {
		m->heap[0] = m->heap[--m->nheap];
	}
	sift_down(m, 0);
	return 1;
}

void xt_merge_close(struct xt_merge *m)
{
	if (!m)
		return;
	free(m->last_tsc);
	free(m->cur);
	free(m->heap);
	free(m);
}
