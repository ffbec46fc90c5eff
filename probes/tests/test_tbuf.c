/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Draining trace buffers (probes/tbuf.c) on fake buffers that a producer
 * fills the way Xen's __trace_var() does: whole records, a wrap_buffer
 * record padding the end of the ring, records dropped when the buffer is
 * full and a lost_records record put in front of the next one.  The files
 * written are read back with the reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/events.h"
#include "probes/tbuf.h"
#include "probes/trace.h"

#define PAGE 4096u

struct fake {
	uint32_t ncpu, dsz;
	uint8_t **mem;			/* per CPU: ring + data (pages) */
	struct tb_ring *ring[8];
	const uint8_t *data[8];
	uint64_t lost[8], lost_total[8], produced[8], wraps[8];
	struct tb_set set;
};

static void fake_init(struct fake *f, uint32_t ncpu, uint32_t pages, uint32_t hole)
{
	memset(f, 0, sizeof(*f));
	f->ncpu = ncpu;
	f->dsz = pages * PAGE - 8;
	f->mem = calloc(ncpu, sizeof(*f->mem));
	for (uint32_t c = 0; c < ncpu; c++) {
		if (c == hole)
			continue;	/* a CPU without buffers (offline) */
		f->mem[c] = calloc(pages, PAGE);
		f->ring[c] = (struct tb_ring *)f->mem[c];
		f->data[c] = f->mem[c] + 8;
	}
	f->set.ncpu = ncpu;
	f->set.data_size = f->dsz;
	f->set.ring = f->ring;
	f->set.data = f->data;
}

static void fake_fini(struct fake *f)
{
	for (uint32_t c = 0; c < f->ncpu; c++)
		free(f->mem[c]);
	free(f->mem);
}

static uint32_t unconsumed(const struct fake *f, uint32_t c)
{
	uint32_t p = f->ring[c]->prod, k = f->ring[c]->cons;

	return p >= k ? p - k : p + 2 * f->dsz - k;
}

static uint32_t to_wrap(const struct fake *f, uint32_t c)
{
	uint32_t p = f->ring[c]->prod;

	return p < f->dsz ? f->dsz - p : 2 * f->dsz - p;
}

static void raw_put(struct fake *f, uint32_t c, const uint32_t *w, uint32_t bytes)
{
	uint32_t off = f->ring[c]->prod % f->dsz;

	memcpy(f->mem[c] + 8 + off, w, bytes);
	f->ring[c]->prod = (f->ring[c]->prod + bytes) % (2 * f->dsz);
}

/* Xen's insert_wrap_record(): pad to the end of the ring. */
static void put_wrap(struct fake *f, uint32_t c, uint64_t tsc)
{
	uint32_t space = to_wrap(f, c), w[10] = { 0 }, extra = (space - 4) / 4;

	if (extra > 7) {
		w[0] = XT_EV_WRAP_BUFFER | (extra - 2) << 28 | 1u << 31;
		w[1] = (uint32_t)tsc;
		w[2] = (uint32_t)(tsc >> 32);
	} else {
		w[0] = XT_EV_WRAP_BUFFER | extra << 28;
	}
	raw_put(f, c, w, space);
	f->wraps[c]++;
}

/* A record with TSC and n words, as __trace_var() would insert it. */
static void produce(struct fake *f, uint32_t c, uint32_t ev, uint64_t tsc, uint32_t n)
{
	uint32_t size = 12 + 4 * n, need = size, w[10];

	if (f->lost[c])
		need += 28;
	if (need > to_wrap(f, c))
		need += to_wrap(f, c);
	if (need > f->dsz - unconsumed(f, c)) {
		f->lost[c]++;
		f->lost_total[c]++;
		return;
	}
	if (f->lost[c]) {
		uint32_t l[7] = { XT_EV_LOST_RECORDS | 4u << 28 | 1u << 31, (uint32_t)tsc,
				  (uint32_t)(tsc >> 32), (uint32_t)f->lost[c], 0, (uint32_t)tsc, 0 };

		if (28 > to_wrap(f, c))
			put_wrap(f, c, tsc);
		raw_put(f, c, l, 28);
		f->lost[c] = 0;
	}
	if (size > to_wrap(f, c))
		put_wrap(f, c, tsc);
	w[0] = ev | n << 28 | 1u << 31;
	w[1] = (uint32_t)tsc;
	w[2] = (uint32_t)(tsc >> 32);
	for (uint32_t i = 0; i < n; i++)
		w[3 + i] = i;
	raw_put(f, c, w, size);
	f->produced[c]++;
}

static int tmpfd(char *path)
{
	int fd;

	strcpy(path, "/tmp/ipibench-tbuf-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	return fd;
}

static void summarise_file(const char *path, struct tr_summary *s)
{
	struct xt_file xf;
	char err[256];

	assert_int_equal(xt_map(&xf, path, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(s, &xf), 0);
	xt_unmap(&xf);
}

/* A fake buffer set drained into a fresh file, then read back. */
struct rig {
	struct fake f;
	struct tb_writer w;
	struct tr_summary s;
	char path[64];
	int fd;
};

static void rig_open(struct rig *r, uint32_t ncpu, uint32_t pages, uint32_t hole)
{
	r->fd = tmpfd(r->path);
	fake_init(&r->f, ncpu, pages, hole);
	assert_int_equal(tb_writer_init(&r->w, r->fd, r->f.dsz), 0);
}

/* The file closed and summarised into r->s. */
static void rig_summarise(struct rig *r)
{
	close(r->fd);
	summarise_file(r->path, &r->s);
}

static void rig_close(struct rig *r)
{
	tr_summary_fini(&r->s);
	unlink(r->path);
	tb_writer_fini(&r->w);
	fake_fini(&r->f);
}

static uint64_t count_id(const struct tr_summary *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->ev.cap; i++)
		if (s->ev.used[i] && s->ev.key[i] == id)
			return s->ev.v[i];
	return 0;
}

static void test_drain_basic(void **st)
{
	struct rig r;

	(void)st;
	rig_open(&r, 3, 2, 1);
	assert_int_equal(tb_write_tsc_khz(&r.w, 0, 2100000), 0);
	for (int i = 0; i < 10; i++)
		produce(&r.f, 0, 0x00081001, 1000 + i, 0);
	for (int i = 0; i < 5; i++)
		produce(&r.f, 2, IPB_TRC_APIC_IPI_RECV, 2000 + i, 1);
	assert_int_equal(tb_drain(&r.f.set, &r.w), 0);
	assert_int_equal(r.f.ring[0]->cons, r.f.ring[0]->prod);
	assert_int_equal(r.f.ring[2]->cons, r.f.ring[2]->prod);
	/* Nothing new: nothing written. */
	assert_int_equal(tb_drain(&r.f.set, &r.w), 0);
	assert_int_equal(r.w.st.windows, 3);	/* tsc_khz + cpu 0 + cpu 2 */
	assert_int_equal(r.w.st.records, 16);
	assert_int_equal(r.w.st.bytes, 20 + 12 + 10 * 12 + 12 + 5 * 16);
	rig_summarise(&r);
	assert_false(xt_anom_any(&r.s.an));
	assert_int_equal(r.s.chunks, 3);
	assert_int_equal(count_id(&r.s, 0x00081001), 10);
	assert_int_equal(count_id(&r.s, IPB_TRC_APIC_IPI_RECV), 5);
	assert_int_equal(count_id(&r.s, IPB_TRC_APIC_TSC_KHZ), 1);
	assert_int_equal(r.s.cpu[2].records, 5);
	rig_close(&r);
}

/* Windows that wrap around the ring come out in two pieces, in order. */
static void test_drain_wrap(void **st)
{
	struct rig r;
	uint64_t tsc = 1, n = 0;

	(void)st;
	rig_open(&r, 1, 1, 99);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 97; i++, n++)
			produce(&r.f, 0, 0x00082000 + (uint32_t)(i % 7), tsc++, (uint32_t)(i % 8));
		assert_int_equal(tb_drain(&r.f.set, &r.w), 0);
	}
	assert_true(r.f.wraps[0] >= 5);
	assert_int_equal(r.f.lost_total[0], 0);
	assert_int_equal(r.w.st.wrap_records, r.f.wraps[0]);
	assert_int_equal(r.w.st.bad_windows, 0);
	rig_summarise(&r);
	/* Records in TSC order, none torn: no anomaly at all. */
	assert_false(xt_anom_any(&r.s.an));
	assert_int_equal(r.s.records, n + r.f.wraps[0]);
	assert_int_equal(r.s.cpu[0].wraps, r.f.wraps[0]);
	rig_close(&r);
}

/* A full buffer loses records; the loss is counted, never hidden. */
static void test_drain_lost(void **st)
{
	struct rig r;

	(void)st;
	rig_open(&r, 2, 1, 99);
	for (int i = 0; i < 500; i++)		/* 500 x 16 bytes > 4088 */
		produce(&r.f, 1, 0x00081001, 10 + (uint64_t)i, 1);
	assert_true(r.f.lost_total[1] > 200);
	assert_int_equal(tb_drain(&r.f.set, &r.w), 0);
	assert_int_equal(r.w.st.full_windows, 0);	/* 4088 is not a multiple of 16 */
	produce(&r.f, 1, 0x00081001, 1000, 1);	/* brings the lost_records record */
	assert_int_equal(tb_drain(&r.f.set, &r.w), 0);
	assert_int_equal(r.w.st.lost_events, 1);
	assert_int_equal(r.w.st.lost_records, r.f.lost_total[1]);
	rig_summarise(&r);
	assert_int_equal(r.s.lost, r.f.lost_total[1]);
	assert_int_equal(r.s.cpu[1].lost, r.f.lost_total[1]);
	assert_int_equal(count_id(&r.s, 0x00081001), r.f.produced[1]);
	rig_close(&r);
}

static void test_drain_bogus_and_errors(void **st)
{
	struct fake f;
	struct tb_writer w;
	int fd = open("/dev/full", O_WRONLY);

	(void)st;
	fake_init(&f, 1, 1, 99);
	assert_true(fd >= 0);
	assert_int_equal(tb_writer_init(&w, fd, f.dsz), 0);
	f.ring[0]->prod = 3 * f.dsz;		/* out of range */
	assert_int_equal(tb_drain(&f.set, &w), 0);
	assert_int_equal(w.st.bogus, 1);
	assert_int_equal(w.st.windows, 0);
	f.ring[0]->prod = 0;
	produce(&f, 0, 0x00081001, 5, 0);
	/* /dev/full: the write fails and says so. */
	assert_int_equal(tb_drain(&f.set, &w), -1);
	assert_int_equal(errno, ENOSPC);
	close(fd);
	tb_writer_fini(&w);
	fake_fini(&f);
}

static void test_discard(void **st)
{
	struct fake f;

	(void)st;
	fake_init(&f, 2, 1, 99);
	produce(&f, 0, 0x00081001, 5, 0);
	produce(&f, 1, 0x00081001, 5, 0);
	tb_discard(&f.set);
	assert_int_equal(unconsumed(&f, 0), 0);
	assert_int_equal(unconsumed(&f, 1), 0);
	fake_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_basic),
		cmocka_unit_test(test_drain_wrap),
		cmocka_unit_test(test_drain_lost),
		cmocka_unit_test(test_drain_bogus_and_errors),
		cmocka_unit_test(test_discard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
