/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests of the xentrace reader and the summary / ipi / irq analyses. */
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
#include "probes/hist.h"
#include "probes/trace.h"
#include "probes/tests/xtbuild.h"

/* Count of the summary row named `name` (0 if absent). */
static uint64_t row(const struct tr_summary *s, const char *name)
{
	size_t n;
	struct tr_row *r = tr_summary_rows(s, &n);
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].name, name))
			c = r[i].count;
	free(r);
	return c;
}

static void summarise(struct tr_summary *s, const struct xtb *x)
{
	struct xt_file f;

	xt_mem(&f, x->b, x->len);
	assert_int_equal(tr_summary_run(s, &f), 0);
}

/* Two CPUs, HVM events, names as xentrace's formats file has them. */
static void build_basic(struct xtb *x)
{
	xtb_init(x);
	xtb_chunk(x, 0);
	XTB_REC(x, 0x00081102, 100, 1, 2, 3);		/* VMEXIT64 */
	XTB_REC(x, 0x00084011, 0, 1, 1);		/* vlapic_accept_pic_intr */
	XTB_REC(x, 0x00081001, 200);			/* VMENTRY */
	XTB_REC(x, 0x00081002, 300, 1, 2);		/* VMEXIT (32-bit form) */
	XTB_REC(x, 0x0001f001, 310, 7, 0x10000, 5, 0);	/* lost_records: 7 */
	xtb_chunk(x, 3);
	XTB_REC(x, 0x00021011, 50, 0x10001);		/* running_to_runnable */
	XTB_REC(x, 0x00021301, 60, 0x10001);		/* offline_to_running */
	XTB_REC(x, 0x0abcd001, 70, 9);			/* unknown class */
	XTB_REC(x, 0x0001f002, 0, 0, 0, 0);		/* wrap_buffer */
	xtb_chunk(x, 0);
	XTB_REC(x, 0x00081001, 400);
	xtb_end(x);
}

static void test_summary_counts(void **st)
{
	struct xtb x;
	struct tr_summary s;

	(void)st;
	build_basic(&x);
	summarise(&s, &x);
	assert_int_equal(s.chunks, 3);
	assert_int_equal(s.records, 10);
	assert_int_equal(row(&s, "cpu_change"), 3);
	assert_int_equal(row(&s, "VMEXIT"), 2);		/* 0x81002 + 0x81102 folded */
	assert_int_equal(row(&s, "VMENTRY"), 2);
	assert_int_equal(row(&s, "vlapic_accept_pic_intr"), 1);
	assert_int_equal(row(&s, "running_to_runnable"), 1);
	assert_int_equal(row(&s, "offline_to_running"), 1);
	assert_int_equal(row(&s, "0x0abcd001"), 1);
	assert_int_equal(row(&s, "wrap_buffer"), 1);
	assert_int_equal(row(&s, "lost_records"), 1);
	assert_int_equal(s.lost, 7);
	assert_int_equal(s.ncpu, 4);
	assert_int_equal(s.cpu[0].records, 6);
	assert_int_equal(s.cpu[0].chunks, 2);
	assert_int_equal(s.cpu[0].lost, 7);
	assert_int_equal(s.cpu[3].records, 4);
	assert_int_equal(s.cpu[3].wraps, 1);
	assert_false(xt_anom_any(&s.an));
	assert_int_equal(s.an.nmsgs, 0);
	tr_summary_fini(&s);
	free(x.b);
}

static void test_names(void **st)
{
	char b[16];

	(void)st;
	assert_string_equal(xt_event_name(0x00082004), "INJ_VIRQ");
	assert_string_equal(xt_event_name(0x00082020), "INTR_WINDOW");
	assert_string_equal(xt_event_name(0x00082013), "HLT");
	assert_string_equal(xt_event_name(0x00082023), "TRAP");
	assert_string_equal(xt_event_name(0x00082012), "VMMCALL");
	assert_string_equal(xt_event_name(0x00082021), "NPF");
	assert_string_equal(xt_event_name(0x0008200e), "CPUID");
	assert_string_equal(xt_event_name(0x0008200f), "INTR");
	assert_string_equal(xt_event_name(0x00802008), "do_irq");
	assert_string_equal(xt_event_name(0x00801002), "cpu_idle_entry");
	assert_string_equal(xt_event_name(0x00201104), "page_fault");	/* PV, 64-bit */
	assert_string_equal(xt_event_name(0x00021221), "blocked_to_blocked");
	assert_string_equal(xt_event_name(IPB_TRC_APIC_SEND_IPI_MASK), "apic:send_ipi_mask");
	assert_string_equal(xt_event_name(IPB_TRC_APIC_IPI_RECV), "apic:ipi_recv");
	assert_null(xt_event_name(0x00021ff1));		/* not a runstate pattern */
	assert_string_equal(xt_event_label(0x0fedcba9, b, sizeof(b)), "0x0fedcba9");
}

static void test_garbage_between_chunks(void **st)
{
	struct xtb x;
	struct tr_summary s;
	size_t before;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 1);
	XTB_REC(&x, 0x00081001, 10);
	xtb_end(&x);
	before = x.len;
	xtb_put(&x, "GARBAGE!xyz", 11);		/* not even word aligned */
	xtb_chunk(&x, 1);
	XTB_REC(&x, 0x00081001, 20);
	XTB_REC(&x, 0x00081001, 30);
	xtb_end(&x);
	summarise(&s, &x);
	assert_int_equal(s.chunks, 2);
	assert_int_equal(row(&s, "VMENTRY"), 3);
	assert_int_equal(s.an.garbage_runs, 1);
	assert_int_equal(s.an.skipped_bytes, 11);
	assert_true(s.an.nmsgs >= 1);
	/* The message names the byte offset. */
	{
		char off[32];

		snprintf(off, sizeof(off), "offset %zu:", before);
		assert_non_null(strstr(s.an.msgs[0], off));
	}
	tr_summary_fini(&s);
	free(x.b);
}

static void test_record_past_chunk(void **st)
{
	struct xtb x;
	struct tr_summary s;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 2);
	XTB_REC(&x, 0x00081001, 10);
	/* Header says 7 words + TSC (40 bytes), only 8 follow in the chunk. */
	xtb_u32(&x, 0x00082004 | 7u << 28 | 1u << 31);
	xtb_u32(&x, 0);
	xtb_end(&x);
	xtb_chunk(&x, 2);
	XTB_REC(&x, 0x00081001, 30);
	xtb_end(&x);
	summarise(&s, &x);
	assert_int_equal(row(&s, "VMENTRY"), 2);
	assert_int_equal(row(&s, "INJ_VIRQ"), 0);
	assert_int_equal(s.an.bad_records, 1);
	assert_int_equal(s.an.skipped_bytes, 8);
	assert_false(s.an.truncated);
	tr_summary_fini(&s);
	free(x.b);
}

/* A chunk whose size is not a whole number of records: 2 stray bytes. */
static void test_stray_bytes_in_chunk(void **st)
{
	struct xtb x;
	struct tr_summary s;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 10);
	xtb_put(&x, "\x01\x02", 2);
	xtb_end(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 20);
	xtb_end(&x);
	summarise(&s, &x);
	assert_int_equal(s.chunks, 2);
	assert_int_equal(row(&s, "VMENTRY"), 2);
	assert_int_equal(s.an.bad_records, 1);
	assert_int_equal(s.an.skipped_bytes, 2);
	assert_int_equal(s.an.garbage_runs, 0);
	assert_non_null(strstr(s.an.msgs[0], "offset 24: 2 stray bytes"));
	tr_summary_fini(&s);
	free(x.b);
}

static void test_truncated(void **st)
{
	struct xtb x;
	struct tr_summary s;
	struct xt_file f;

	(void)st;
	build_basic(&x);
	/* Cut the last record (VMENTRY, 12 bytes) in half. */
	xt_mem(&f, x.b, x.len - 6);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(s.an.truncated, 1);
	assert_int_equal(s.an.short_chunks, 1);
	assert_int_equal(s.an.skipped_bytes, 6);
	assert_int_equal(row(&s, "VMENTRY"), 1);
	assert_int_equal(s.records, 9);
	tr_summary_fini(&s);
	/* Cut inside the third chunk header. */
	xt_mem(&f, x.b, x.len - 12 - 5);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(s.an.truncated, 1);
	assert_int_equal(s.chunks, 2);
	assert_int_equal(s.an.skipped_bytes, 7);
	tr_summary_fini(&s);
	free(x.b);
}

static void test_tsc_backwards(void **st)
{
	struct xtb x;
	struct tr_summary s;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x00081001, 1000);
	XTB_REC(&x, 0x00081001, 900);	/* backwards: counted, reported */
	XTB_REC(&x, 0x00081001, 950);
	xtb_chunk(&x, 1);
	XTB_REC(&x, 0x00081001, 10);	/* other CPU: not backwards */
	xtb_end(&x);
	summarise(&s, &x);
	assert_int_equal(row(&s, "VMENTRY"), 4);
	assert_int_equal(s.an.tsc_backwards, 1);
	assert_non_null(strstr(s.an.msgs[0], "backwards on cpu 0"));
	tr_summary_fini(&s);
	free(x.b);
}

static void test_not_xentrace(void **st)
{
	struct tr_summary s;
	struct xt_file f;
	static const char text[] = "this is not a trace file at all, just words";

	(void)st;
	xt_mem(&f, text, sizeof(text));
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(s.chunks, 0);
	assert_int_equal(s.records, 0);
	assert_int_equal(s.an.skipped_bytes, sizeof(text));
	tr_summary_fini(&s);
	xt_mem(&f, NULL, 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(s.chunks, 0);
	assert_false(xt_anom_any(&s.an));
	tr_summary_fini(&s);
}

static void assert_same_summary(const struct tr_summary *a, const struct tr_summary *b);

/* A file read through windows of its mapping (big files), a file read
 * from its whole mapping and the same bytes in memory give the same
 * summary, also when records straddle a window's edge and anomalies are
 * present. */
static void assert_same_rows(const struct tr_summary *a, const struct tr_summary *b)
{
	size_t n, nb;
	struct tr_row *ra = tr_summary_rows(a, &n), *rb = tr_summary_rows(b, &nb);

	assert_int_equal(n, nb);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(ra[i].name, rb[i].name);
		assert_int_equal(ra[i].count, rb[i].count);
	}
	free(ra);
	free(rb);
}

static void test_file_and_memory_agree(void **st)
{
	struct xtb x;
	struct tr_summary a, m, b;
	struct xt_file f;
	/* threads = 1: sequential; map_max = 1: every file through windows. */
	const struct tr_par buffered = { .threads = 1, .map_max = 1 };
	char path[] = "/tmp/ipibench-test-XXXXXX";
	char err[256];
	uint64_t tsc = 1;
	int fd;

	(void)st;
	xtb_init(&x);
	srand(7);
	for (int c = 0; c < 40; c++) {
		xtb_chunk(&x, (uint32_t)(c % 5));
		for (int i = 0; i < 2000; i++) {
			uint32_t d[7] = { 1, 2, 3, 4, 5, 6, 7 };
			int words = rand() % 8;

			tsc += (uint64_t)(rand() % 100);
			xtb_rec(&x, 0x00082000 + (uint32_t)(rand() % 40), rand() % 3 ? tsc : 0, words, d);
		}
		if (c == 17)
			XTB_REC(&x, 0x00081001, 5);	/* backwards */
		if (c == 23)
			xtb_u32(&x, 0x00082004 | 7u << 28);	/* runs past the chunk */
		xtb_end(&x);
		if (c == 29)
			xtb_put(&x, "junk", 4);
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, x.b, x.len), (ssize_t)x.len);
	close(fd);
	assert_true(x.len > 3 * (256u << 10));
	assert_true(x.len <= TR_MAP_MAX_BYTES);	/* tr_summary_run() maps it */
	assert_int_equal(xt_map(&f, path, err, sizeof(err)), 0);
	assert_true(f.fd >= 0);
	assert_int_equal(tr_summary_run_with(&a, &f, &buffered), 0);
	assert_int_equal(tr_summary_run(&m, &f), 0);
	/* Windows of two pages (1: rounded up) and of 200 KiB: records and
	 * chunk headers straddle their edges. */
	for (int k = 0; k < 2; k++) {
		const struct tr_par small = { .threads = 1, .map_max = 1, .window = k ? 200u << 10 : 1 };
		struct tr_summary w;

		assert_int_equal(tr_summary_run_with(&w, &f, &small), 0);
		assert_same_summary(&a, &w);
		tr_summary_fini(&w);
	}
	xt_unmap(&f);
	unlink(path);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run(&b, &f), 0);
	assert_int_equal(a.records, 40 * 2000 + 1);
	assert_int_equal(a.chunks, 40);
	assert_int_equal(a.an.tsc_backwards, 1);
	assert_int_equal(a.an.bad_records, 1);
	assert_int_equal(a.an.garbage_runs, 1);
	for (const struct tr_summary *o = &m; o; o = o == &m ? &b : NULL) {
		assert_int_equal(o->records, a.records);
		assert_int_equal(o->chunks, a.chunks);
		assert_int_equal(o->an.tsc_backwards, 1);
		assert_int_equal(o->an.bad_records, 1);
		assert_int_equal(o->an.garbage_runs, 1);
		assert_int_equal(o->an.skipped_bytes, a.an.skipped_bytes);
		assert_int_equal(o->an.nmsgs, a.an.nmsgs);
		for (unsigned k = 0; k < a.an.nmsgs && k < XT_MAX_MSGS; k++)
			assert_string_equal(o->an.msgs[k], a.an.msgs[k]);
		assert_same_rows(&a, o);
	}
	tr_summary_fini(&a);
	tr_summary_fini(&m);
	tr_summary_fini(&b);
	free(x.b);
}

static void test_ipi_latency_merge(void **st)
{
	struct xtb x;
	struct tr_ipi p;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	/* Receivers' chunks come first in the file: the merge orders by TSC. */
	xtb_chunk(&x, 1);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 500, 0xf1);	/* before any send: unmatched */
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 1500, 0xf1);	/* 500 after the send */
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 3300, 0xf2);	/* shorthand: 300 */
	xtb_chunk(&x, 2);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 1700, 0xf1);	/* 700 */
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_TSC_KHZ, 0, 1000000);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 2, 2, 400);	/* physical */
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 2000, 0xf1 | IPB_IPI_LOGICAL, 40, 3, 250);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_ALLBUT, 3000, 0xf2, 3, 90);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_ipi_run(&p, &f), 0);
	assert_int_equal(p.tsc_khz, 1000000);
	assert_int_equal(p.recv, 4);
	assert_int_equal(p.unmatched, 1);
	assert_int_equal(p.mode[TR_PHYS].ops, 1);
	assert_int_equal(p.mode[TR_PHYS].icr_total, 2);
	assert_int_equal(p.mode[TR_PHYS].lat.count, 2);
	assert_int_equal(p.mode[TR_PHYS].lat.min, 500);
	assert_int_equal(p.mode[TR_PHYS].lat.max, 700);
	assert_int_equal(p.mode[TR_LOGICAL].ops, 1);
	assert_int_equal(p.mode[TR_LOGICAL].dests.max, 40);
	assert_int_equal(p.mode[TR_LOGICAL].icr.max, 3);
	assert_int_equal(p.mode[TR_LOGICAL].cost.max, 250);
	assert_int_equal(p.mode[TR_LOGICAL].lat.count, 0);
	assert_int_equal(p.mode[TR_SHORTHAND].ops, 1);
	assert_int_equal(p.mode[TR_SHORTHAND].icr_total, 1);
	assert_int_equal(p.mode[TR_SHORTHAND].lat.min, 300);
	assert_non_null(p.lat_cpu[1]);
	assert_non_null(p.lat_cpu[2]);
	assert_null(p.lat_cpu[0]);
	assert_int_equal(p.lat_cpu[1]->count, 2);
	assert_int_equal(p.lat_cpu[2]->min, 700);
	/* Grouped by (mode, vector, destinations). */
	assert_int_equal(p.groups.n, 3);
	for (uint32_t i = 0; i < p.groups.cap; i++) {
		if (!p.groups.used[i])
			continue;
		if (p.groups.key[i] == TR_GROUP_KEY(TR_LOGICAL, 0xf1, 40)) {
			assert_int_equal(p.groups.v[i], 1);
			assert_int_equal(p.groups.w[i], 3);
		} else if (p.groups.key[i] == TR_GROUP_KEY(TR_PHYS, 0xf1, 2)) {
			assert_int_equal(p.groups.w[i], 2);
		} else {
			assert_int_equal(p.groups.key[i], TR_GROUP_KEY(TR_SHORTHAND, 0xf2, 3));
			assert_int_equal(p.groups.w[i], 1);
		}
	}
	tr_ipi_fini(&p);
	free(x.b);
}

/* FILE analysed by the ipi subcommand's analysis into P (F mapped). */
static void ipi_of(const char *file, struct tr_ipi *p, struct xt_file *f)
{
	char err[256];

	assert_int_equal(xt_map(f, file, err, sizeof(err)), 0);
	assert_int_equal(tr_ipi_run(p, f), 0);
}

/* The slot of group KEY in P (it must be there). */
static uint32_t group_slot(const struct tr_ipi *p, uint64_t key)
{
	for (uint32_t i = 0; i < p->groups.cap; i++)
		if (p->groups.used[i] && p->groups.key[i] == key)
			return i;
	fail_msg("no group 0x%llx", (unsigned long long)key);
	return 0;
}

/* A real trace from the agent (40 pCPUs under QEMU, physical mode): the
 * flush to CPUs 1,17,33 makes 3 ICR writes per operation, and the
 * apic:icr_write records agree with the sends' counts. */
static void test_ipi_real_physical(void **st)
{
	struct tr_ipi p;
	struct xt_file f;
	uint64_t sum = 0;
	uint32_t i;

	(void)st;
	ipi_of("probes/tests/data/agent-flush-mask-phys40.xt", &p, &f);
	assert_int_equal(p.tsc_khz, 2095999);
	assert_int_equal(p.mode[TR_LOGICAL].ops, 0);
	for (int m = 0; m < TR_NMODES; m++)
		sum += p.mode[m].icr_total;
	assert_int_equal(sum, p.icr_writes);
	i = group_slot(&p, TR_GROUP_KEY(TR_PHYS, 0xfd, 3));
	assert_int_equal(p.groups.v[i], 50);
	assert_int_equal(p.groups.w[i], 150);
	assert_false(xt_anom_any(&p.an));
	tr_ipi_fini(&p);
	xt_unmap(&f);
	/* Cluster mode, flush to all 39 others: 3 clusters, 3 ICR writes. */
	ipi_of("probes/tests/data/agent-flush-cluster40.xt", &p, &f);
	i = group_slot(&p, TR_GROUP_KEY(TR_LOGICAL, 0xfd, 39));
	assert_int_equal(p.groups.w[i], 3 * p.groups.v[i]);
	tr_ipi_fini(&p);
	xt_unmap(&f);
	/* Physical: 39 writes for 39 destinations. */
	ipi_of("probes/tests/data/agent-flush-phys40.xt", &p, &f);
	i = group_slot(&p, TR_GROUP_KEY(TR_PHYS, 0xfd, 39));
	assert_int_equal(p.groups.w[i], 39 * p.groups.v[i]);
	tr_ipi_fini(&p);
	xt_unmap(&f);
}

/* TSC going backwards on the receiving CPU: no negative (huge) latency. */
static void test_ipi_tsc_backwards(void **st)
{
	struct xtb x;
	struct tr_ipi p;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1000, 0xf1, 1, 1, 10);
	xtb_chunk(&x, 1);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 2000, 0xf1);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 500, 0xf1);	/* backwards */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_ipi_run(&p, &f), 0);
	assert_int_equal(p.an.tsc_backwards, 1);
	assert_int_equal(p.recv, 2);
	assert_int_equal(p.unmatched, 1);
	assert_int_equal(p.mode[TR_PHYS].lat.count, 1);
	assert_int_equal(p.mode[TR_PHYS].lat.max, 1000);
	tr_ipi_fini(&p);
	free(x.b);
}

/* An operation's ICR writes, a receive before its send record (held for
 * the record, which gives its mode) and one after: both the operation's,
 * with latencies from its first ICR write. */
static void test_ipi_pair_by_operation(void **st)
{
	struct xtb x;
	struct tr_ipi p;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	/* an earlier send of 0xf1 (no ICR writes: it is its own operation) */
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 100, 0xf1 | IPB_IPI_LOGICAL, 1, 1, 10);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 1000, 1, 0xf1);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 1100, 2, 0xf1);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 1200, 0xf1, 2, 2, 200);	/* physical */
	/* an operation with no send record: its receive is unmatched */
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 5000, 3, 0xf3);
	xtb_chunk(&x, 1);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 150, 0xf1);	/* the first send's: 50 */
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 1050, 0xf1);	/* before the send record: 50 */
	xtb_chunk(&x, 2);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 1300, 0xf1);	/* 300 */
	xtb_chunk(&x, 3);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 5100, 0xf3);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_ipi_run(&p, &f), 0);
	assert_int_equal(p.recv, 4);
	assert_int_equal(p.unmatched, 1);
	assert_int_equal(p.mode[TR_LOGICAL].lat.count, 1);
	assert_int_equal(p.mode[TR_LOGICAL].lat.max, 50);
	assert_int_equal(p.mode[TR_PHYS].lat.count, 2);
	assert_int_equal(p.mode[TR_PHYS].lat.min, 50);
	assert_int_equal(p.mode[TR_PHYS].lat.max, 300);
	assert_null(p.lat_cpu[3]);
	tr_ipi_fini(&p);
	free(x.b);
}

/* Two senders of one vector at once: a receive belongs to the operation
 * that began last before it, whichever's send record comes first. */
static void test_ipi_pair_interleaved(void **st)
{
	struct xtb x;
	struct tr_ipi p;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 1000, 2, 0xfd);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 1500, 3, 0xfd);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 3000, 0xfd, 2, 2, 2000);	/* physical */
	xtb_chunk(&x, 1);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 2000, 0, 0xfd);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 2100, 0xfd | IPB_IPI_LOGICAL, 1, 1, 100);
	xtb_chunk(&x, 2);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 1200, 0xfd);	/* CPU 0's: 200 */
	xtb_chunk(&x, 3);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 2500, 0xfd);	/* CPU 1's began later: 500 */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_ipi_run(&p, &f), 0);
	assert_int_equal(p.unmatched, 0);
	assert_int_equal(p.mode[TR_PHYS].lat.count, 1);
	assert_int_equal(p.mode[TR_PHYS].lat.max, 200);
	assert_int_equal(p.mode[TR_LOGICAL].lat.count, 1);
	assert_int_equal(p.mode[TR_LOGICAL].lat.max, 500);
	tr_ipi_fini(&p);
	free(x.b);
}

/* Receives waiting for a send record that never comes: at most
 * TR_PAIR_HOLD are held; the rest are unmatched at once, with a message. */
static void test_ipi_pair_hold_bound(void **st)
{
	struct xtb x;
	struct tr_ipi p;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_ICR_WRITE, 10, 1, 0xf1);
	xtb_chunk(&x, 1);
	for (uint32_t i = 0; i < TR_PAIR_HOLD + 5; i++)
		XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 20 + i, 0xf1);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_APIC_SEND_IPI_MASK, 20 + TR_PAIR_HOLD + 10, 0xf1, 1, 1, 9);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_ipi_run(&p, &f), 0);
	assert_int_equal(p.recv, TR_PAIR_HOLD + 5);
	assert_int_equal(p.unmatched, 5);
	assert_int_equal(p.mode[TR_PHYS].lat.count, TR_PAIR_HOLD);
	assert_int_equal(p.an.nmsgs, 1);
	assert_non_null(strstr(p.an.msgs[0], "receives wait for their operation's send record"));
	assert_false(xt_anom_any(&p.an));
	tr_ipi_fini(&p);
	free(x.b);
}

/*
 * The pairing against an oracle of its own, computed from the raw records
 * of each committed trace in two plain passes (no merge, no holding): the
 * apic records sorted by (TSC, CPU, place in the file); the operations
 * (a CPU's ICR writes up to its send record, or the send record alone);
 * then each receive given, by binary search, to the operation of its
 * vector that began last before it, matched when that one has a send.
 */
struct orc_rec {
	uint64_t tsc, off;
	uint32_t cpu, seq, kind, vec;	/* kind: 0 ICR write, 1 send, 2 receive */
	int mode;
};
struct orc_op {
	uint64_t tsc;
	uint32_t cpu, idx, vec;		/* idx: its first record's place in the sorted array */
	int mode;			/* -1: no send record */
	uint32_t dests, nrecv;
};

static int orc_cmp(const void *a, const void *b)
{
	const struct orc_rec *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct orc {
	struct orc_rec *r;
	size_t n;
	struct orc_op *op;
	size_t nop;
	int64_t *recv_op;		/* per record: a receive's operation, or -1 */
	struct hist lat[TR_NMODES];
	uint64_t recv, unmatched;
};

static void oracle(const char *file, struct orc *o)
{
	struct xt_file f;
	struct xt_seq s;
	struct xt_anom an = { 0 };
	struct xt_rec r;
	char err[256];
	size_t cap = 0;
	uint32_t seq = 0;

	memset(o, 0, sizeof(*o));
	assert_int_equal(xt_open(&f, file, XT_MAX_BYTES, err, sizeof(err)), 0);
	assert_int_equal(xt_seq_init(&s, &f, &an), 0);
	while (xt_seq_next(&s, &r)) {
		struct orc_rec e = { .tsc = r.tsc, .off = r.off, .cpu = r.cpu, .seq = seq++,
				     .mode = -1 };

		if (r.event == IPB_TRC_APIC_ICR_WRITE && r.nextra >= 2) {
			e.kind = 0;
			e.vec = r.d[1] & 0xff;
		} else if (r.event == IPB_TRC_APIC_SEND_IPI_MASK && r.nextra >= 4) {
			e.kind = 1;
			e.mode = r.d[0] & IPB_IPI_LOGICAL ? TR_LOGICAL : TR_PHYS;
		} else if (r.event == IPB_TRC_APIC_SEND_IPI_ALLBUT && r.nextra >= 3) {
			e.kind = 1;
			e.mode = TR_SHORTHAND;
		} else if (r.event == IPB_TRC_APIC_SEND_IPI_SELF && r.nextra >= 1) {
			e.kind = 1;
			e.mode = TR_SELF;
		} else if (r.event == IPB_TRC_APIC_IPI_RECV && r.nextra >= 1) {
			e.kind = 2;
		} else {
			continue;
		}
		if (e.kind)
			e.vec = r.d[0] & 0xff;
		/* the oracle is exact for files whose records all have a TSC */
		assert_true(r.has_tsc);
		if (o->n == cap) {
			cap = cap ? 2 * cap : 1024;
			o->r = realloc(o->r, cap * sizeof(*o->r));
			assert_non_null(o->r);
		}
		o->r[o->n++] = e;
	}
	xt_seq_fini(&s);
	assert_false(xt_anom_any(&an));
	qsort(o->r, o->n, sizeof(*o->r), orc_cmp);
	/* Pass 1: the operations. */
	int64_t *open = malloc(XT_MAX_CPUS * sizeof(*open));

	assert_non_null(open);
	for (uint32_t c = 0; c < XT_MAX_CPUS; c++)
		open[c] = -1;
	o->op = calloc(o->n + 1, sizeof(*o->op));
	o->recv_op = malloc((o->n + 1) * sizeof(*o->recv_op));
	assert_non_null(o->op);
	assert_non_null(o->recv_op);
	for (size_t i = 0; i < o->n; i++) {
		const struct orc_rec *e = &o->r[i];
		int64_t k;

		o->recv_op[i] = -1;
		if (e->kind == 2)
			continue;
		k = open[e->cpu];
		if (k < 0) {
			k = (int64_t)o->nop++;
			o->op[k] = (struct orc_op){ .tsc = e->tsc, .cpu = e->cpu, .idx = (uint32_t)i,
						    .vec = e->vec, .mode = -1 };
		}
		if (e->kind == 0) {
			open[e->cpu] = k;
		} else {
			o->op[k].mode = e->mode;
			open[e->cpu] = -1;
		}
	}
	free(open);
	/* Pass 2: each receive's operation, by binary search among its
	 * vector's operations (in order of their first record). */
	for (int m = 0; m < TR_NMODES; m++)
		hist_init(&o->lat[m]);
	for (size_t i = 0; i < o->n; i++) {
		const struct orc_rec *e = &o->r[i];
		int64_t lo = 0, hi = (int64_t)o->nop - 1, best = -1;

		if (e->kind != 2)
			continue;
		o->recv++;
		while (lo <= hi) {
			int64_t mid = (lo + hi) / 2;

			if (o->op[mid].idx < i) {
				best = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		while (best >= 0 && o->op[best].vec != e->vec)
			best--;
		if (best < 0 || o->op[best].mode < 0) {
			o->unmatched++;
			continue;
		}
		o->recv_op[i] = best;
		o->op[best].nrecv++;
		hist_add(&o->lat[o->op[best].mode], e->tsc - o->op[best].tsc);
	}
}

static void oracle_free(struct orc *o)
{
	free(o->r);
	free(o->op);
	free(o->recv_op);
}

/* tr_ipi_run_each()'s receives by file offset: their operation. */
struct each_ops {
	uint64_t *off, *op;
	size_t n;
	uint64_t *dests;	/* per operation id: a physical send's destinations */
	uint64_t maxop;
};

static void each_cb(void *arg, const struct tr_ipi_ev *e)
{
	struct each_ops *q = arg;

	if (e->kind == TR_EV_RECV) {
		q->off[q->n] = e->off;
		q->op[q->n++] = e->op;
	} else if (e->kind == TR_EV_SEND && e->mode == TR_PHYS && e->op < q->maxop) {
		q->dests[e->op] = e->dests;
	}
}

static void test_ipi_pair_oracle(void **st)
{
	static const char *const files[] = {
		"agent-flush-phys40.xt", "agent-flush-cluster40.xt", "agent-flush-mask-phys40.xt",
		"gen-cluster-4cpu.xt", "xentrace-qemu-phys40.xt", "real-ipibench-mixed-8.xt.xz",
		"real-xentrace-mixed-8.xt.xz",
	};

	(void)st;
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char path[256], err[256];
		struct orc o;
		struct tr_ipi p;
		struct xt_file f;
		struct each_ops q = { 0 };

		snprintf(path, sizeof(path), "probes/tests/data/%s", files[k]);
		oracle(path, &o);
		assert_true(o.recv > 0);
		assert_int_equal(xt_open(&f, path, XT_MAX_BYTES, err, sizeof(err)), 0);
		q.off = calloc(o.recv + 1, sizeof(*q.off));
		q.op = calloc(o.recv + 1, sizeof(*q.op));
		q.maxop = o.nop + 1;
		q.dests = calloc(q.maxop, sizeof(*q.dests));
		assert_true(q.off && q.op && q.dests);
		assert_int_equal(tr_ipi_run_each(&p, &f, each_cb, &q), 0);
		/* trace ipi's figures are the oracle's */
		assert_int_equal(p.recv, o.recv);
		assert_int_equal(p.unmatched, o.unmatched);
		for (int m = 0; m < TR_NMODES; m++) {
			assert_int_equal(p.mode[m].lat.count, o.lat[m].count);
			assert_int_equal(p.mode[m].lat.min, o.lat[m].min);
			assert_int_equal(p.mode[m].lat.max, o.lat[m].max);
			assert_int_equal(hist_quantile(&p.mode[m].lat, 0.5),
					 hist_quantile(&o.lat[m], 0.5));
		}
		/* every receive goes to the oracle's operation (both number the
		 * operations by their first record) */
		assert_int_equal(q.n, o.recv);
		for (size_t i = 0, j; i < q.n; i++) {
			for (j = 0; j < o.n && !(o.r[j].kind == 2 && o.r[j].off == q.off[i]); j++)
				;
			assert_true(j < o.n);
			if (o.recv_op[j] < 0)
				assert_true(q.op[i] == TR_NO_SEND);
			else
				assert_int_equal(q.op[i], o.recv_op[j]);
		}
		/* agent-flush-phys40: by the send records a physical flush to 39
		 * CPUs got 0 to 39 receives, 2 of the 50 their 39; by operation
		 * each gets 38 to 40, from other CPUs than its sender and at most
		 * one CPU twice.  Not always 39: the hypervisor takes an ICR
		 * write's record after the write, so under QEMU a target can
		 * record its receive before that record: a flush's first target's
		 * then goes to the operation before, and a kick right after a
		 * flush gives its receive to the flush.  The ones at 39 are most. */
		if (k == 0) {
			size_t flushes = 0, at39 = 0;

			for (size_t i = 0; i < o.nop; i++) {
				if (q.dests[i] != 39)
					continue;
				flushes++;
				assert_int_equal(o.op[i].mode, TR_PHYS);
				assert_true(o.op[i].nrecv >= 38 && o.op[i].nrecv <= 40);
				at39 += o.op[i].nrecv == 39;
				uint64_t seen[XT_MAX_CPUS / 64] = { 0 };
				size_t n = 0, twice = 0;

				for (size_t a = 0; a < q.n; a++) {
					if (q.op[a] != i)
						continue;
					for (size_t b = 0; b < o.n; b++) {
						if (o.r[b].kind != 2 || o.r[b].off != q.off[a])
							continue;
						uint32_t c = o.r[b].cpu;

						assert_true(c != o.op[i].cpu);
						twice += seen[c / 64] >> (c % 64) & 1;
						seen[c / 64] |= 1ull << (c % 64);
					}
					n++;
				}
				assert_int_equal(n, o.op[i].nrecv);
				assert_true(twice <= 1);
			}
			assert_int_equal(flushes, 50);
			assert_true(at39 > flushes / 2);
		}
		tr_ipi_fini(&p);
		xt_unmap(&f);
		free(q.off);
		free(q.op);
		free(q.dests);
		oracle_free(&o);
	}
}

static void test_irq(void **st)
{
	struct xtb x;
	struct tr_irq q;
	struct xt_file f;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, IPB_TRC_HW_IRQ_HANDLED, 10, 24, 100, 300);
	XTB_REC(&x, IPB_TRC_HW_IRQ_HANDLED, 20, 24, 0xfffffff0, 0x10);	/* wraps: 32 */
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 30, 0xfb);
	xtb_chunk(&x, 5);
	XTB_REC(&x, IPB_TRC_HW_IRQ_HANDLED, 10, 30, 0, 50);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 30, 0xfb);
	XTB_REC(&x, IPB_TRC_APIC_IPI_RECV, 40, 0xf1);
	XTB_REC(&x, IPB_TRC_HW_IRQ_UNMAPPED_VECTOR, 50, 0x99);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_irq_run(&q, &f), 0);
	assert_int_equal(q.unmapped[5], 1);
	assert_int_equal(q.unmapped[0], 0);
	assert_int_equal(q.ncpu, 6);
	assert_int_equal(q.irqs[0], 2);
	assert_int_equal(q.ipis[0], 1);
	assert_int_equal(q.irqs[5], 1);
	assert_int_equal(q.ipis[5], 2);
	for (uint32_t i = 0; i < q.irq.cap; i++)
		if (q.irq.used[i] && q.irq.key[i] == 24) {
			assert_int_equal(q.irq.v[i], 2);
			assert_int_equal(q.irq.w[i], 200 + 32);
		}
	assert_int_equal(q.vec.n, 2);
	tr_irq_fini(&q);
	free(x.b);
}

static void test_hist(void **st)
{
	struct hist h;

	(void)st;
	hist_init(&h);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(&h, v);
	assert_int_equal(h.count, 100000);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 100000);
	assert_true(hist_quantile(&h, 0.5) > 50000 - 50000 / 64);
	assert_true(hist_quantile(&h, 0.5) < 50000 + 50000 / 64);
	assert_true(hist_quantile(&h, 0.95) > 95000 - 95000 / 64);
	assert_true(hist_quantile(&h, 0.95) < 95000 + 95000 / 64);
	hist_init(&h);
	for (int i = 0; i < 10; i++)
		hist_add(&h, 39);		/* small values are exact */
	assert_int_equal(hist_quantile(&h, 0.5), 39);
	assert_int_equal(hist_quantile(&h, 0.95), 39);
}

/* Too many distinct IDs: counted as "other", memory does not grow. */
static void test_id_cap(void **st)
{
	struct xtb x;
	struct tr_summary s;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	for (uint32_t i = 0; i < TR_MAX_EVENT_IDS + 100; i++)
		xtb_u32(&x, 0x00300000 + i);
	xtb_end(&x);
	summarise(&s, &x);
	assert_int_equal(s.records, TR_MAX_EVENT_IDS + 100);
	assert_true(s.ev.n <= TR_MAX_EVENT_IDS);
	assert_int_equal(row(&s, "other"), 100 + 1);	/* cpu_change took a slot */
	assert_true(s.an.nmsgs >= 1);
	tr_summary_fini(&s);
	free(x.b);
}

/* Everything a summary says, the same in a and b. */
static void assert_same_summary(const struct tr_summary *a, const struct tr_summary *b)
{
	size_t na, nb;
	struct tr_row *ra = tr_summary_rows(a, &na), *rb = tr_summary_rows(b, &nb);

	assert_int_equal(a->records, b->records);
	assert_int_equal(a->chunks, b->chunks);
	assert_int_equal(a->lost, b->lost);
	assert_int_equal(a->ncpu, b->ncpu);
	assert_memory_equal(a->cpu, b->cpu, XT_MAX_CPUS * sizeof(a->cpu[0]));
	assert_int_equal(a->an.garbage_runs, b->an.garbage_runs);
	assert_int_equal(a->an.skipped_bytes, b->an.skipped_bytes);
	assert_int_equal(a->an.bad_records, b->an.bad_records);
	assert_int_equal(a->an.short_chunks, b->an.short_chunks);
	assert_int_equal(a->an.truncated, b->an.truncated);
	assert_int_equal(a->an.tsc_backwards, b->an.tsc_backwards);
	assert_int_equal(a->an.nmsgs, b->an.nmsgs);
	for (uint64_t i = 0; i < a->an.nmsgs && i < XT_MAX_MSGS; i++)
		assert_string_equal(a->an.msgs[i], b->an.msgs[i]);
	assert_int_equal(a->ev.overflow, b->ev.overflow);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(ra[i].name, rb[i].name);
		assert_int_equal(ra[i].count, rb[i].count);
		assert_int_equal(ra[i].nids, rb[i].nids);
		assert_memory_equal(ra[i].ids, rb[i].ids, sizeof(ra[i].ids));
	}
	free(ra);
	free(rb);
}

/*
 * The parallel summary is the sequential one: 120 chunks on 7 CPUs with
 * lost records, a TSC going back within a chunk and across chunks of one
 * CPU, a record past its chunk, garbage between chunks and after the
 * last one, counted with 2 to 4 workers and batches of 1 to 64 chunks, from
 * memory and from a file (read as a big one: see pw below).
 */
static void test_parallel_is_sequential(void **st)
{
	struct xtb x;
	struct tr_summary seq, par;
	struct xt_file f, ff;
	const struct tr_par one = { .threads = 1 };
	char path[] = "/tmp/ipibench-test-XXXXXX";
	char err[256];
	uint64_t tsc[7] = { 0 };
	int fd;

	(void)st;
	xtb_init(&x);
	srand(11);
	for (int c = 0; c < 120; c++) {
		uint32_t cpu = (uint32_t)(c * 3 % 7);

		xtb_chunk(&x, cpu);
		for (int i = 0; i < 300; i++) {
			uint32_t d[7] = { 1, 2, 3, 4, 5, 6, 7 };
			int words = rand() % 8;

			tsc[cpu] += (uint64_t)(rand() % 100);
			xtb_rec(&x, 0x00082000 + (uint32_t)(rand() % 30), rand() % 3 ? tsc[cpu] : 0, words, d);
		}
		if (c % 10 == 4)
			XTB_REC(&x, 0x0001f001, tsc[cpu], 3, 0x10000, 5, 0);	/* lost_records: 3 */
		if (c == 40)
			XTB_REC(&x, 0x00081001, 5);			/* backwards in the chunk */
		if (c == 77)
			tsc[cpu] /= 2;					/* backwards across chunks */
		if (c == 90)
			xtb_u32(&x, 0x00082004 | 7u << 28);		/* runs past the chunk */
		xtb_end(&x);
		if (c == 60)
			xtb_put(&x, "junk", 4);
	}
	xtb_chunk(&x, 2);	/* left declaring 0 bytes: what follows is garbage */
	xtb_u32(&x, 0x00082001 | 1u << 31);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, x.b, x.len), (ssize_t)x.len);
	close(fd);
	assert_int_equal(xt_map(&ff, path, err, sizeof(err)), 0);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&seq, &f, &one), 0);
	assert_int_equal(seq.chunks, 121);
	assert_int_equal(seq.an.tsc_backwards, 2);
	assert_int_equal(seq.an.bad_records, 1);
	assert_int_equal(seq.an.garbage_runs, 2);
	assert_int_equal(seq.lost, 12 * 3);
	for (unsigned threads = 2; threads <= 4; threads++) {
		for (unsigned b = 1; b <= 64; b = b * 3 + 1) {
			const struct tr_par p = { .threads = threads, .min_bytes = 0, .batch = b };
			/* a big file's readers: the workers' read buffers, and
			 * windows of two pages for the batches read sequentially */
			const struct tr_par pw = { .threads = threads, .min_bytes = 0, .batch = b,
						   .map_max = 1, .window = 1 };

			assert_int_equal(tr_summary_run_with(&par, &f, &p), 0);
			assert_same_summary(&seq, &par);
			tr_summary_fini(&par);
			assert_int_equal(tr_summary_run_with(&par, &ff, &pw), 0);
			assert_same_summary(&seq, &par);
			tr_summary_fini(&par);
		}
	}
	xt_unmap(&ff);
	unlink(path);
	tr_summary_fini(&seq);
	free(x.b);
}

/* More distinct IDs than the cap, spread over chunks of two CPUs: which
 * IDs are kept and which go to "other" is the sequential reader's choice
 * (first seen), also with workers. */
static void test_parallel_id_cap(void **st)
{
	struct xtb x;
	struct tr_summary seq, par;
	struct xt_file f;
	const struct tr_par one = { .threads = 1 }, two = { .threads = 2, .batch = 2 };

	(void)st;
	xtb_init(&x);
	for (uint32_t c = 0; c < 8; c++) {
		xtb_chunk(&x, c % 2);
		for (uint32_t i = 0; i < TR_MAX_EVENT_IDS / 3; i++)
			xtb_u32(&x, 0x00300000 + (c % 2 ? i : c * (TR_MAX_EVENT_IDS / 3) + i));
		xtb_end(&x);
	}
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&seq, &f, &one), 0);
	assert_true(seq.ev.overflow > 0);
	assert_int_equal(tr_summary_run_with(&par, &f, &two), 0);
	assert_same_summary(&seq, &par);
	tr_summary_fini(&seq);
	tr_summary_fini(&par);
	free(x.b);
}


/* ---- xt_merge_want(): records left out only where the order stays ------- */

#define WANT_MASK 0x0fff0000u
#define WANT_VAL 0x00080000u	/* class TRC_HVM */

struct mrec {
	uint64_t off, tsc;
	uint32_t event, cpu;
};

/* The wanted records of the merge of f, in order, with or without
 * xt_merge_want() (two pairs: class TRC_HVM, and 0x0002f000-0x0002ffff);
 * *all: records returned; an: the anomalies. */
static struct mrec *merged(const struct xt_file *f, bool want, size_t *n, size_t *all,
			   struct xt_anom *an)
{
	struct xt_merge *m;
	struct xt_rec r;
	struct mrec *v = NULL;
	size_t cap = 0;

	memset(an, 0, sizeof(*an));
	*n = *all = 0;
	m = xt_merge_open(f, an);
	assert_non_null(m);
	if (want) {
		const struct xt_want w[] = { { WANT_MASK, WANT_VAL }, { 0x0ffff000, 0x0002f000 } };

		assert_int_equal(xt_merge_want(m, w, 2), 0);
		assert_int_equal(xt_merge_want(m, w, 1), -1);	/* once */
	}
	while (xt_merge_next(m, &r)) {
		(*all)++;
		if ((r.event & WANT_MASK) != WANT_VAL && (r.event & 0x0ffff000) != 0x0002f000)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[(*n)++] = (struct mrec){ r.off, r.tsc, r.event, r.cpu };
	}
	xt_merge_close(m);
	return v;
}

static void assert_want_keeps_order(const struct xt_file *f, size_t *all_plain, size_t *all_want)
{
	struct xt_anom a, b;
	size_t na, nb;
	struct mrec *x = merged(f, false, &na, all_plain, &a);
	struct mrec *y = merged(f, true, &nb, all_want, &b);

	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(x[i].off, y[i].off);
		assert_int_equal(x[i].tsc, y[i].tsc);
		assert_int_equal(x[i].event, y[i].event);
		assert_int_equal(x[i].cpu, y[i].cpu);
	}
	assert_int_equal(a.tsc_backwards, b.tsc_backwards);
	assert_int_equal(a.skipped_bytes, b.skipped_bytes);
	assert_int_equal(a.nmsgs, b.nmsgs);
	for (uint64_t i = 0; i < a.nmsgs && i < XT_MAX_MSGS; i++)
		assert_string_equal(a.msgs[i], b.msgs[i]);
	free(x);
	free(y);
}

static void test_merge_want(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct xt_anom an;
	struct mrec *v;
	size_t n, all, all_want;

	(void)st;
	/* An unwanted record before a later one: left out. */
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x0abcd001, 10);	/* unwanted */
	XTB_REC(&x, 0x00081001, 20);
	xtb_chunk(&x, 1);
	XTB_REC(&x, 0x00081001, 15);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	v = merged(&f, true, &n, &all, &an);
	assert_int_equal(all, 2);	/* the unwanted one was not returned */
	assert_int_equal(n, 2);
	assert_int_equal(v[0].cpu, 1);	/* 15 before 20 */
	assert_int_equal(v[1].cpu, 0);
	free(v);
	assert_want_keeps_order(&f, &all, &all_want);
	free(x.b);

	/* Before a record whose TSC goes back, it stays: it holds that record
	 * behind the other CPU's 70, as without xt_merge_want(). */
	xtb_init(&x);
	xtb_chunk(&x, 0);
	XTB_REC(&x, 0x0abcd001, 100);	/* unwanted */
	XTB_REC(&x, 0x00081001, 50);	/* backwards */
	xtb_chunk(&x, 1);
	XTB_REC(&x, 0x00081001, 70);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	v = merged(&f, true, &n, &all, &an);
	assert_int_equal(all, 3);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].cpu, 1);
	assert_int_equal(v[0].tsc, 70);
	assert_int_equal(v[1].cpu, 0);
	assert_int_equal(v[1].tsc, 50);
	assert_int_equal(an.tsc_backwards, 1);
	free(v);
	assert_want_keeps_order(&f, &all, &all_want);
	free(x.b);

	/* Many CPUs, unwanted records at random, TSCs going back now and then,
	 * records without TSC, a record running past its chunk, garbage. */
	xtb_init(&x);
	srand(11);
	for (int c = 0; c < 60; c++) {
		uint64_t tsc = 1000 * (uint64_t)c;

		xtb_chunk(&x, (uint32_t)(c % 4));
		for (int i = 0; i < 300; i++) {
			uint32_t d[7] = { 1, 2, 3, 4, 5, 6, 7 };
			/* wanted by the first pair, by the second, by neither */
			uint32_t ev = (uint32_t[]){ 0x00082000 + (uint32_t)(rand() % 40), 0x0002f00e,
						    0x0abcd001 }[rand() % 3];

			tsc += (uint64_t)(rand() % 50);
			if (rand() % 97 == 0)
				tsc -= 400;	/* backwards */
			xtb_rec(&x, ev, rand() % 4 ? tsc : 0, rand() % 8, d);
		}
		if (c == 31)
			xtb_u32(&x, 0x00082004 | 7u << 28);	/* runs past the chunk */
		xtb_end(&x);
		if (c == 40)
			xtb_put(&x, "junk", 4);
	}
	xt_mem(&f, x.b, x.len);
	assert_want_keeps_order(&f, &all, &all_want);
	assert_true(all_want < all);	/* some were left out */
	free(x.b);

	/* A real HVM recording (2 pCPUs, exits and handlers). */
	{
		char err[256];

		assert_int_equal(xt_map(&f, "probes/tests/data/hvm-pvh-tlbstorm.xt", err, sizeof(err)), 0);
		assert_want_keeps_order(&f, &all, &all_want);
		xt_unmap(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_counts),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_garbage_between_chunks),
		cmocka_unit_test(test_record_past_chunk),
		cmocka_unit_test(test_stray_bytes_in_chunk),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_tsc_backwards),
		cmocka_unit_test(test_not_xentrace),
		cmocka_unit_test(test_file_and_memory_agree),
		cmocka_unit_test(test_ipi_latency_merge),
		cmocka_unit_test(test_ipi_real_physical),
		cmocka_unit_test(test_ipi_tsc_backwards),
		cmocka_unit_test(test_ipi_pair_by_operation),
		cmocka_unit_test(test_ipi_pair_interleaved),
		cmocka_unit_test(test_ipi_pair_hold_bound),
		cmocka_unit_test(test_ipi_pair_oracle),
		cmocka_unit_test(test_irq),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_id_cap),
		cmocka_unit_test(test_parallel_is_sequential),
		cmocka_unit_test(test_parallel_id_cap),
		cmocka_unit_test(test_merge_want),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
