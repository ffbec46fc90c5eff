/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The HVM profile counted in file order (tr_hvm_par, probes/hvm.c) against
 * the TSC-ordered pass (tr_hvm_run): the same profile, vCPU for vCPU and
 * count for count, or the fallback taken and said why.
 *
 * Synthetic traces for the cases the stitching exists for (a vCPU
 * migrating with an exit open, no scheduler records, a run crossing
 * batches and workers) and the one it must refuse (a vCPU's records on two
 * pCPUs interleaving in TSC); then every HVM recording of
 * probes/tests/data, and mutants of them (records' events, words and TSCs
 * changed, chunks moved to other pCPUs), each with one and two workers.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/trace.h"
#include "probes/tests/xtbuild.h"

#define RS(old, new) (0x00021001u | (old) << 8 | (new) << 4)
#define VMEXIT64 0x00081102u
#define VMENTRY 0x00081001u
#define HLT 0x00082013u
#define CPUID 0x0008200eu
#define INJ_VIRQ 0x00082004u

static void rec(struct xtb *x, uint32_t ev, uint64_t tsc, int n, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t d[7] = { a, b, c, 0, 0, 0, 0 };

	xtb_rec(x, ev, tsc, n, d);
}

/* Every key of A has the same count in B and the other way round. */
static void same_cmap(const struct cmap *a, const struct cmap *b, const char *what, uint32_t i)
{
	for (int k = 0; k < 2; k++) {
		const struct cmap *x = k ? b : a, *y = k ? a : b;

		for (uint32_t j = 0; j < x->cap; j++)
			if (x->used[j] && x->v[j] != tr_cmap_get(y, x->key[j]))
				fail_msg("vCPU %u %s key 0x%x: %llu against %llu", i, what, x->key[j],
					 (unsigned long long)x->v[j],
					 (unsigned long long)tr_cmap_get(y, x->key[j]));
	}
	if (a->overflow != b->overflow)
		fail_msg("vCPU %u %s overflow differs", i, what);
}

/* The two profiles are the same: the vCPUs in the same order, all counts. */
static void same_profile(const struct tr_hvm *a, const struct tr_hvm *b)
{
	assert_int_equal(a->nv, b->nv);
	assert_int_equal(a->svm, b->svm);
	assert_int_equal(a->hvm_records, b->hvm_records);
	assert_int_equal(a->no_vcpu, b->no_vcpu);
	assert_int_equal(a->before_exit, b->before_exit);
	assert_int_equal(a->short_records, b->short_records);
	assert_int_equal(a->sched_records, b->sched_records);
	for (uint32_t i = 0; i < a->nv; i++) {
		const struct tr_hvm_vcpu *x = &a->v[i], *y = &b->v[i];

		assert_int_equal(x->dom, y->dom);
		assert_int_equal(x->vcpu, y->vcpu);
		assert_int_equal(x->vmexit, y->vmexit);
		assert_int_equal(x->vmentry, y->vmentry);
		assert_int_equal(x->exits, y->exits);
		assert_int_equal(x->icr_writes, y->icr_writes);
		assert_int_equal(x->ipi_sent, y->ipi_sent);
		assert_int_equal(x->ipi_self, y->ipi_self);
		assert_int_equal(x->ipi_logical, y->ipi_logical);
		assert_int_equal(x->ipi_shorthand, y->ipi_shorthand);
		assert_int_equal(x->icr_other, y->icr_other);
		same_cmap(&x->reason, &y->reason, "reason", i);
		same_cmap(&x->handler, &y->handler, "handler", i);
		same_cmap(&x->virq, &y->virq, "virq", i);
		same_cmap(&x->msr_read, &y->msr_read, "msr_read", i);
		same_cmap(&x->msr_write, &y->msr_write, "msr_write", i);
		same_cmap(&x->ipi_vec, &y->ipi_vec, "ipi_vec", i);
		same_cmap(&x->ipi_dest, &y->ipi_dest, "ipi_dest", i);
		same_cmap(&x->hypercall, &y->hypercall, "hypercall", i);
	}
}

static const struct tr_par tsc_pass = { .threads = 1, .hvm_pass = TR_HVM_TSC };
/* Sequential; two workers with batches of 1 and 3 chunks (a sync after
 * each, the runs crossing them); then windows and read buffers. */
static const struct tr_par auto_pass[] = {
	{ .threads = 1 },
	{ .threads = 2, .min_bytes = 0, .batch = 1 },
	{ .threads = 2, .min_bytes = 0, .batch = 3 },
	{ .threads = 3, .min_bytes = 0, .batch = 8 },
};
#define NAUTO (sizeof(auto_pass) / sizeof(auto_pass[0]))

/*
 * F's profile with each auto_pass against the TSC-ordered pass's; how many
 * of them took file order into *file_order (may be NULL).  The fallback's
 * reason is named whenever it is taken.
 */
static void check_both(const struct xt_file *f, unsigned *file_order, const char **why)
{
	struct tr_summary ref, s;

	assert_int_equal(tr_summary_run_with(&ref, f, &tsc_pass), 0);
	assert_false(ref.hvm_file_order);
	for (size_t i = 0; i < NAUTO; i++) {
		assert_int_equal(tr_summary_run_with(&s, f, &auto_pass[i]), 0);
		assert_int_equal(s.has_hvm, ref.has_hvm);
		if (s.has_hvm) {
			same_profile(&ref.hvm, &s.hvm);
			if (s.hvm_file_order) {
				assert_null(s.hvm_tsc_why);
				if (file_order)
					(*file_order)++;
			} else {
				assert_non_null(s.hvm_tsc_why);
				if (why)
					*why = s.hvm_tsc_why;
			}
		}
		tr_summary_fini(&s);
	}
	tr_summary_fini(&ref);
}

static const struct tr_hvm_vcpu *find_vcpu(const struct tr_hvm *h, unsigned dom, unsigned vcpu)
{
	for (uint32_t i = 0; i < h->nv; i++)
		if (h->v[i].dom == dom && h->v[i].vcpu == vcpu)
			return &h->v[i];
	return NULL;
}

/*
 * d1v0 exits on pCPU 0 (VMEXIT_HLT), blocks in its exit, is woken by
 * pCPU 1 and runs there: its handler record and the VMENTRY that closes
 * the exit are on pCPU 1, which the file has first.  Counted in file
 * order, pCPU 1's records come before the exit they belong to: only the
 * stitching in TSC order counts the HLT handler and the exit.
 */
static void test_migrate_with_exit_open(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	const struct tr_hvm_vcpu *v0;
	unsigned fo = 0;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 1);					/* pCPU 1 first in the file */
	rec(&x, RS(2, 1), 205, 1, 1u << 16 | 0, 0, 0);		/* wakes d1v0 (blocked -> runnable) */
	rec(&x, RS(1, 0), 210, 1, 1u << 16 | 0, 0, 0);		/* d1v0 runs on pCPU 1 */
	rec(&x, HLT, 211, 1, 0, 0, 0);				/* inside its (closed) exit: skipped */
	rec(&x, VMENTRY, 212, 0, 0, 0, 0);
	rec(&x, VMEXIT64, 220, 3, 114, 0, 0);			/* VMEXIT_CPUID, closed on pCPU 0 */
	rec(&x, RS(0, 2), 221, 1, 1u << 16 | 0, 0, 0);		/* blocks in it */
	xtb_chunk(&x, 0);
	rec(&x, RS(1, 0), 100, 1, 1u << 16 | 0, 0, 0);		/* d1v0 on pCPU 0 */
	rec(&x, VMEXIT64, 110, 3, 120, 0, 0);			/* VMEXIT_HLT */
	rec(&x, HLT, 111, 1, 0, 0, 0);				/* inside the exit: counted */
	rec(&x, RS(0, 2), 120, 1, 1u << 16 | 0, 0, 0);		/* running -> blocked, exit open */
	rec(&x, RS(1, 0), 300, 1, 1u << 16 | 0, 0, 0);		/* back on pCPU 0 */
	rec(&x, CPUID, 301, 5, 0, 0, 0);			/* exit open since pCPU 1: counted */
	rec(&x, VMENTRY, 302, 0, 0, 0, 0);			/* closes the CPUID exit */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[0]), 0);
	assert_true(s.hvm_file_order);
	v0 = find_vcpu(&s.hvm, 1, 0);
	assert_non_null(v0);
	/* the HLT exit: closed by the wake on pCPU 1 (to runnable) */
	assert_int_equal(tr_cmap_get(&v0->reason, 120), 1);
	assert_int_equal(tr_cmap_get(&v0->reason, 114), 1);
	assert_int_equal(v0->exits, 2);
	assert_int_equal(tr_cmap_get(&v0->handler, HLT), 1);
	assert_int_equal(tr_cmap_get(&v0->handler, CPUID), 1);
	assert_int_equal(s.hvm.before_exit, 1);
	tr_summary_fini(&s);
	/* With batches of one chunk, pCPU 0 is not seen when pCPU 1's runs
	 * are stitched: those runs fall back, to the same counts. */
	check_both(&f, &fo, NULL);
	assert_true(fo >= 1);
	free(x.b);
}

/*
 * d1v0's records on pCPU 0 (an exit from 100 to 200) and on pCPU 1 (an
 * exit at 150, in between): its runs overlap in TSC, so replaying runs
 * cannot be exact.  The fallback is taken (and said), and the counts are
 * the TSC-ordered pass's: the exit at 100 is overwritten by pCPU 1's.
 */
static void test_overlapping_runs_fall_back(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	const struct tr_hvm_vcpu *v0;
	const char *why = NULL;
	unsigned fo = 0;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	rec(&x, RS(1, 0), 90, 1, 1u << 16 | 0, 0, 0);
	rec(&x, VMEXIT64, 100, 3, 120, 0, 0);
	rec(&x, VMENTRY, 200, 0, 0, 0, 0);
	xtb_chunk(&x, 1);
	rec(&x, RS(1, 0), 140, 1, 1u << 16 | 0, 0, 0);
	rec(&x, VMEXIT64, 150, 3, 114, 0, 0);
	rec(&x, VMENTRY, 160, 0, 0, 0, 0);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[0]), 0);
	assert_false(s.hvm_file_order);
	assert_non_null(s.hvm_tsc_why);
	assert_non_null(strstr(s.hvm_tsc_why, "interleave"));
	v0 = find_vcpu(&s.hvm, 1, 0);
	assert_non_null(v0);
	assert_int_equal(tr_cmap_get(&v0->reason, 114), 1);	/* pCPU 1's, closed at 160 */
	assert_int_equal(tr_cmap_get(&v0->reason, 120), 0);	/* overwritten at 150 */
	tr_summary_fini(&s);
	check_both(&f, &fo, &why);
	assert_int_equal(fo, 0);
	assert_non_null(why);
	free(x.b);
}

/*
 * No scheduler records (the seed's mask): vCPU N of the default domain is
 * pCPU N's, in the order of their first HVM record in TSC (pCPU 1 first,
 * though later in the file), with handler records before the first exit
 * not counted.
 */
static void test_default_domain(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	unsigned fo = 0;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	rec(&x, VMEXIT64, 50, 3, 120, 0, 0);
	rec(&x, HLT, 0, 1, 0, 0, 0);				/* no TSC of its own: counted */
	rec(&x, VMENTRY, 60, 0, 0, 0, 0);
	xtb_chunk(&x, 1);
	rec(&x, INJ_VIRQ, 10, 2, 0x30, 0, 0);			/* first in TSC */
	rec(&x, HLT, 15, 1, 0, 0, 0);				/* before any exit: skipped */
	rec(&x, VMEXIT64, 20, 3, 96, 0, 0);
	rec(&x, VMENTRY, 30, 0, 0, 0, 0);
	xtb_chunk(&x, 0);
	rec(&x, VMEXIT64, 70, 3, 124, 0, 0);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[0]), 0);
	assert_true(s.hvm_file_order);
	assert_int_equal(s.hvm.nv, 2);
	assert_int_equal(s.hvm.v[0].dom, TR_HVM_DEFAULT_DOM);
	assert_int_equal(s.hvm.v[0].vcpu, 1);			/* pCPU 1's vCPU came first */
	assert_int_equal(s.hvm.v[1].vcpu, 0);
	assert_int_equal(s.hvm.v[1].exits, 1);
	assert_int_equal(tr_cmap_get(&s.hvm.v[1].handler, HLT), 1);
	assert_int_equal(s.hvm.before_exit, 1);
	assert_int_equal(s.hvm.sched_records, 0);
	tr_summary_fini(&s);
	check_both(&f, &fo, NULL);
	assert_int_equal(fo, NAUTO);
	free(x.b);
}

/*
 * The file-order pass keeps some counts by index (exit reasons and
 * injected vectors below 256, handler events 0x00082000-0x0008203f) and
 * folds them into the capped tables at the end.  Keys on both sides of
 * each bound count the same as in the TSC-ordered pass; a vCPU with more
 * exit reasons than the table keeps (2048; 200 of them below 256) falls
 * back, said why, with the same counts and overflow.
 */
static void test_direct_counts_and_cap(void **st)
{
	static const uint32_t reasons[] = { 0, 1, 75, 76, 255, 256, 1024, 0xffffffffu };
	static const uint32_t vectors[] = { 0, 0xf3, 255, 256, 350, 351, 0xffffffffu };
	static const uint32_t handlers[] = { 0x00082000u, 0x0008203fu, 0x00082040u,
					     0x000820ffu, 0x00082013u, 0x00083001u };
	struct xtb x;
	struct xt_file f;
	unsigned fo = 0;
	const char *why = NULL;
	uint64_t t = 10;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		for (size_t j = 0; j < sizeof(handlers) / sizeof(handlers[0]); j++) {
			rec(&x, VMEXIT64, t++, 3, reasons[i], 0, 0);
			rec(&x, handlers[j], 0, 1, (uint32_t)j, 0, 0);
			rec(&x, INJ_VIRQ, 0, 1, vectors[(i + j) % 7], 0, 0);
			rec(&x, VMENTRY, t++, 0, 0, 0, 0);
		}
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	check_both(&f, &fo, NULL);
	assert_int_equal(fo, NAUTO);
	free(x.b);

	xtb_init(&x);
	xtb_chunk(&x, 0);
	for (uint32_t r = 0; r < 2100; r++) {
		rec(&x, VMEXIT64, t++, 3, r < 200 ? r : 1000 + r, 0, 0);
		rec(&x, VMENTRY, t++, 0, 0, 0, 0);
	}
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	fo = 0;
	check_both(&f, &fo, &why);
	assert_int_equal(fo, 0);
	assert_string_equal(why, "a count table is full");
	free(x.b);
}

/*
 * d1v0 and d1v1 swap pCPUs 0 and 1 every round.  A run ends in an open
 * exit (VMEXIT_CPUID): in even rounds the vCPU blocks in it (the exit
 * stays open: the next run's CPUID handler record on the other pCPU
 * counts and its VMENTRY closes the exit), in odd rounds it goes to
 * runnable (that closes the exit: the next CPUID handler is outside one).
 * Each run is split over two chunks, so with batches of 1 or 3 chunks
 * every run crosses batches (a stitch between) and the two pCPUs are on
 * different workers.  Exact in file order: every configuration takes it.
 */
static void test_runs_cross_batches(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	unsigned fo = 0;
	const struct tr_hvm_vcpu *v0;

	(void)st;
	xtb_init(&x);
	for (uint32_t r = 0; r < 40; r++) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			uint32_t v = (cpu + r) % 2;		/* the vCPU pCPU cpu runs in round r */
			uint64_t t = 1000 * (uint64_t)(r + 1) + 10 * cpu;

			xtb_chunk(&x, cpu);
			rec(&x, RS(1, 0), t, 1, 1u << 16 | v, 0, 0);
			rec(&x, CPUID, t + 1, 5, 0, 0, 0);
			rec(&x, VMENTRY, t + 2, 0, 0, 0, 0);
			xtb_chunk(&x, cpu);			/* the run goes on in the next chunk */
			rec(&x, VMEXIT64, t + 3, 3, 124, 0, 0);
			rec(&x, VMENTRY, t + 4, 0, 0, 0, 0);
			rec(&x, VMEXIT64, t + 500, 3, 114, 0, 0);
			rec(&x, r % 2 ? RS(0, 1) : RS(0, 2), t + 501, 1, 1u << 16 | v, 0, 0);
		}
	}
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[1]), 0);
	assert_true(s.hvm_file_order);
	v0 = find_vcpu(&s.hvm, 1, 0);
	assert_non_null(v0);
	assert_int_equal(tr_cmap_get(&v0->reason, 124), 40);
	assert_int_equal(tr_cmap_get(&v0->reason, 114), 40);
	assert_int_equal(tr_cmap_get(&v0->handler, CPUID), 20);	/* after even rounds */
	assert_int_equal(s.hvm.before_exit, 2 * 20);		/* round 0's, and after odd rounds */
	tr_summary_fini(&s);
	check_both(&f, &fo, NULL);
	assert_int_equal(fo, NAUTO);
	free(x.b);
}

/*
 * A dom0 trace: chunks of do_irq and of the scheduler's runstate changes
 * (records the HVM profile takes when it is on) on two pCPUs, and, with
 * LATE, d1v0 running, a VMEXIT and a VMENTRY after them.
 */
static void build_dom0(struct xtb *x, bool late)
{
	uint64_t t = 1;

	xtb_init(x);
	for (int c = 0; c < 12; c++) {
		xtb_chunk(x, c % 2);
		for (int i = 0; i < 1024; i++, t++)
			if (i % 4)
				rec(x, 0x00802008, t, 3, 20, 0, 0);		/* do_irq */
			else
				rec(x, 0x00021011, t, 1, 0x10000, 0, 0);	/* running_to_runnable */
	}
	if (late) {
		xtb_chunk(x, 0);
		rec(x, 0x00021101, t + 9, 1, 0x10000, 0, 0);	/* runnable_to_running: d1v0 */
		rec(x, VMEXIT64, t + 10, 3, 120, 0, 0);
		rec(x, VMENTRY, t + 11, 0, 0, 0, 0);
	}
	xtb_end(x);
}

/*
 * A file without HVM records never enters the HVM profile's path: read
 * once (passes 1), no record handed to the file-order profile (hvm_fed 0),
 * though it has scheduler records; sequentially and with workers.
 */
static void test_no_hvm_no_profile(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;

	(void)st;
	build_dom0(&x, false);
	xt_mem(&f, x.b, x.len);
	for (size_t i = 0; i < NAUTO; i++) {
		assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[i]), 0);
		assert_false(s.has_hvm);
		assert_int_equal(s.passes, 1);
		assert_int_equal(s.hvm_fed, 0);
		assert_int_equal(s.records, 12 * 1024);
		tr_summary_fini(&s);
	}
	free(x.b);
}

/*
 * HVM records only after 12 chunks of a dom0 trace: the first pass stops
 * at the first HVM event ID and the summary starts over with the profile
 * on, so the scheduler's records before them are taken too and the
 * profile is counted in file order, the TSC-ordered pass's to the count;
 * the summary's counts are those of the TSC-ordered run, which reads once.
 */
static void test_late_hvm_records_start_over(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s, ref;
	unsigned fo = 0;

	(void)st;
	build_dom0(&x, true);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run_with(&ref, &f, &tsc_pass), 0);
	assert_int_equal(ref.passes, 1);
	assert_int_equal(ref.hvm_fed, 0);
	for (size_t i = 0; i < NAUTO; i++) {
		assert_int_equal(tr_summary_run_with(&s, &f, &auto_pass[i]), 0);
		assert_true(s.has_hvm);
		assert_int_equal(s.passes, 2);
		assert_int_equal(s.hvm_fed, 12 * 256 + 3);
		assert_true(s.hvm_file_order);
		assert_int_equal(s.hvm.nv, 1);
		assert_int_equal(s.hvm.v[0].dom, 1);
		assert_int_equal(s.hvm.v[0].exits, 1);
		assert_int_equal(s.records, ref.records);
		assert_int_equal(s.chunks, ref.chunks);
		assert_int_equal(s.ev.n, ref.ev.n);
		same_profile(&ref.hvm, &s.hvm);
		tr_summary_fini(&s);
	}
	tr_summary_fini(&ref);
	check_both(&f, &fo, NULL);
	assert_int_equal(fo, NAUTO);
	free(x.b);
}

/* ---- the recordings, and mutants of them ------------------------------- */

static uint64_t lcg;

static uint32_t rnd(uint32_t n)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg >> 33) % n;
}

/* Header offsets of F's records (cpu_change ones apart), at most max. */
static size_t record_offsets(const struct xt_file *f, uint64_t *off, uint64_t *hdr_off, size_t max,
			     size_t *nchunks)
{
	struct xt_anom an;
	struct xt_seq q;
	struct xt_rec r;
	size_t n = 0;

	memset(&an, 0, sizeof(an));
	*nchunks = 0;
	assert_int_equal(xt_seq_init(&q, f, &an), 0);
	while (xt_seq_next(&q, &r)) {
		if (r.event == XT_EV_CPU_CHANGE) {
			if (*nchunks < max)
				hdr_off[(*nchunks)++] = r.off;
		} else if (n < max) {
			off[n++] = r.off;
		}
	}
	xt_seq_fini(&q);
	return n;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Events the profile looks at, for a mutant's records. */
static const uint32_t hot[] = {
	VMEXIT64, 0x00081002, VMENTRY, HLT, CPUID, INJ_VIRQ, 0x0008200d, 0x0008200c, 0x00082012,
	RS(1, 0), RS(0, 1), RS(0, 2), RS(2, 1), RS(0, 3), 0x00021002, 0x00021011,
};

/* One mutation of B (a copy of a regular recording): a record's event or
 * first word, its TSC moved a little (backwards too), or a chunk given to
 * another pCPU. */
static void mutate(uint8_t *b, const uint64_t *off, size_t n, const uint64_t *hdr, size_t nch)
{
	uint64_t o = off[rnd((uint32_t)n)];
	uint32_t h = get32(b + o);

	switch (rnd(5)) {
	case 0:		/* another event, same size */
		put32(b + o, (h & 0xf0000000u) | hot[rnd(sizeof(hot) / sizeof(hot[0]))]);
		break;
	case 1:		/* another vCPU or exit reason */
		if (h >> 28 & 7)
			put32(b + o + (h >> 31 ? 12 : 4), rnd(3) << 16 | rnd(3));
		break;
	case 2:		/* the TSC moved */
		if (h >> 31)
			put32(b + o + 4, get32(b + o + 4) + rnd(4000) - 2000);
		break;
	case 3:		/* a chunk moved to another pCPU */
		put32(b + hdr[rnd((uint32_t)nch)] + 4, rnd(3));
		break;
	default:	/* a vCPU's record moved to another pCPU's time (words kept) */
		put32(b + o, (h & 0xf0000000u) | RS(1, 0));
		break;
	}
}

#define MAXREC (1u << 20)
/*
 * A mutant is a copy of the recording's first MUT_CHUNKS chunks (all of
 * it when it has no more; the recordings have 6 to 98, up to 2 MB
 * unpacked).  Each of a mutant's five passes reads all of it, and the
 * mutants of whole recordings were most of this binary's time; 32 chunks
 * hold both pCPUs' records and many batches of 1, 3 and 8 chunks, and
 * the two passes are taken about as often as on whole recordings (916 of
 * 1400 auto passes in file order and 109 mutants all in TSC order, from
 * 901 and 112).  The recordings themselves are checked whole.
 */
#define MUT_CHUNKS 32

static void test_recordings_and_mutants(void **st)
{
	static uint64_t off[MAXREC], hdr[MAXREC];
	const char *pats[] = { "probes/tests/data/hvm-*.xt", "probes/tests/data/hvm-*.xt.xz" };
	unsigned files = 0, mutants = 0, fo = 0, fo_mut = 0, tsc_mut = 0;

	(void)st;
	for (size_t p = 0; p < 2; p++) {
		glob_t g;

		if (glob(pats[p], 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct xt_file f, m;
			char err[256];
			size_t n, nch, len;
			uint8_t *b;

			assert_int_equal(xt_open(&f, g.gl_pathv[i], XT_XZ_MAX_BYTES, err, sizeof(err)), 0);
			check_both(&f, &fo, NULL);
			files++;
			n = record_offsets(&f, off, hdr, MAXREC, &nch);
			assert_true(n > 0 && nch > 0);
			/* the first MUT_CHUNKS chunks: the records and headers in them */
			len = nch > MUT_CHUNKS ? hdr[MUT_CHUNKS] : f.len;
			nch = nch > MUT_CHUNKS ? MUT_CHUNKS : nch;
			while (n && off[n - 1] >= len)
				n--;
			assert_true(n > 0);
			b = malloc(len);
			assert_non_null(b);
			lcg = 0x9e3779b97f4a7c15ull ^ files;
			for (unsigned k = 0; k < 25; k++) {
				unsigned before = fo_mut;
				const char *why = NULL;

				memcpy(b, f.base, len);
				for (unsigned j = 1 + rnd(8); j > 0; j--)
					mutate(b, off, n, hdr, nch);
				xt_mem(&m, b, len);
				check_both(&m, &fo_mut, &why);
				mutants++;
				tsc_mut += fo_mut == before;
			}
			free(b);
			xt_unmap(&f);
		}
		globfree(&g);
	}
	print_message("%u recordings, %u took file order of %zu runs; %u mutants: %u runs in "
		      "file order, %u mutants all in TSC order\n", files, fo, files * NAUTO, mutants,
		      fo_mut, tsc_mut);
	assert_true(files >= 14);
	/* Both passes must have been exercised on the mutants. */
	assert_true(fo_mut > 0);
	assert_true(tsc_mut > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_with_exit_open),
		cmocka_unit_test(test_overlapping_runs_fall_back),
		cmocka_unit_test(test_default_domain),
		cmocka_unit_test(test_direct_counts_and_cap),
		cmocka_unit_test(test_runs_cross_batches),
		cmocka_unit_test(test_no_hvm_no_profile),
		cmocka_unit_test(test_late_hvm_records_start_over),
		cmocka_unit_test(test_recordings_and_mutants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
