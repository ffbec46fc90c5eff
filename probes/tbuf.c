/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/tbuf.c: drain trace buffers into a xentrace file (see tbuf.h). */
#include "probes/tbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/events.h"
#include "probes/xtrace.h"

/* Xen's trace buffers are shared memory: read prod before the records,
 * finish reading the records before publishing cons. */
#define rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

int tb_writer_init(struct tb_writer *w, int fd, uint32_t data_size)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->cap = (size_t)data_size + 12;
	w->buf = malloc(w->cap);
	return w->buf ? 0 : -1;
}

void tb_writer_fini(struct tb_writer *w)
{
	free(w->buf);
	w->buf = NULL;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int tb_write_tsc_khz(struct tb_writer *w, uint32_t cpu, uint32_t khz)
{
	uint32_t rec[5] = { XT_CPU_CHANGE_HDR, cpu, 8, IPB_TRC_APIC_TSC_KHZ | 1u << 28, khz };

	if (write_all(w->fd, (const uint8_t *)rec, sizeof(rec)))
		return -1;
	w->st.bytes += sizeof(rec);
	w->st.windows++;
	w->st.records++;
	return 0;
}

/* Count the records of a drained window; lost records and wraps. */
static void scan_window(struct tb_writer *w, const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (n - off >= 4) {
		uint32_t hdr, sz, ev;

		memcpy(&hdr, p + off, 4);
		sz = xt_rec_size(hdr);
		if (sz > n - off)
			break;
		ev = hdr & 0x0fffffff;
		if (ev == XT_EV_LOST_RECORDS && (hdr >> 28 & 7) >= 1) {
			uint32_t lost;

			memcpy(&lost, p + off + 4 + (hdr >> 31 ? 8 : 0), 4);
			w->st.lost_records += lost;
			w->st.lost_events++;
		} else if (ev == XT_EV_WRAP_BUFFER) {
			w->st.wrap_records++;
		}
		w->st.records++;
		off += sz;
	}
	if (off != n)
		w->st.bad_windows++;
}

int tb_drain(const struct tb_set *s, struct tb_writer *w)
{
	uint64_t dsz = s->data_size;

	for (uint32_t cpu = 0; cpu < s->ncpu; cpu++) {
		struct tb_ring *r = s->ring[cpu];
		uint32_t cons, prod, win, start, end, hdr[3];

		if (!r)
			continue;
		cons = __atomic_load_n(&r->cons, __ATOMIC_RELAXED);
		prod = __atomic_load_n(&r->prod, __ATOMIC_RELAXED);
		rmb();
		if (cons == prod)
			continue;
		if (cons >= 2 * dsz || prod >= 2 * dsz) {
			w->st.bogus++;
			continue;
		}
		win = prod > cons ? prod - cons : (uint32_t)(prod + 2 * dsz - cons);
		if (win > dsz) {
			w->st.bogus++;
			continue;
		}
		if (win == dsz)
			w->st.full_windows++;
		start = (uint32_t)(cons % dsz);
		end = (uint32_t)(prod % dsz);
		hdr[0] = XT_CPU_CHANGE_HDR;
		hdr[1] = cpu;
		hdr[2] = win;
		memcpy(w->buf, hdr, 12);
		if (end > start) {
			memcpy(w->buf + 12, s->data[cpu] + start, win);
		} else {
			/* Wrapped: start to the end of the ring, then its beginning. */
			memcpy(w->buf + 12, s->data[cpu] + start, dsz - start);
			memcpy(w->buf + 12 + (dsz - start), s->data[cpu], end);
		}
		/* Records read: let Xen reuse the space. */
		mb();
		__atomic_store_n(&r->cons, prod, __ATOMIC_RELAXED);
		scan_window(w, w->buf + 12, win);
		if (write_all(w->fd, w->buf, 12 + (size_t)win))
			return -1;
		w->st.bytes += 12 + (uint64_t)win;
		w->st.windows++;
	}
	return 0;
}

void tb_discard(const struct tb_set *s)
{
	for (uint32_t cpu = 0; cpu < s->ncpu; cpu++)
		if (s->ring[cpu])
			__atomic_store_n(&s->ring[cpu]->cons,
					 __atomic_load_n(&s->ring[cpu]->prod, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
}
