/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The HVM profile of `trace summary` (probes/hvm.c) against xenalyze.
 *
 * For every probes/tests/data/NAME.xt that has NAME.xenalyze-summary (the
 * output of `xenalyze --svm-mode --summary --show-default-domain-summary
 * NAME.xt`, build/bin/xenalyze of the same 4.17 tree, on a trace recorded
 * under QEMU: then guest/host-run.sh, now the runner, runner/guest.c), the exits by reason and the injected
 * vectors ("Guest interrupt counts") of each domain and vCPU must be
 * exactly xenalyze's, and nothing may be counted that xenalyze does not
 * show.  When build/bin/xenalyze exists it is run live too and must print
 * the same counts as the stored file.  Synthetic records check the rules
 * xenalyze's numbers come from: a VMENTRY closes the open exit of the vCPU
 * the pCPU runs, runstate changes say which vCPU that is.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/trace.h"
#include "probes/tests/xtbuild.h"
#include "tests/unit/unit.h"

#define MAXROWS 2048

/* One count from xenalyze's summary: (domain, vcpu, kind, name, count). */
struct row {
	unsigned dom, vcpu;
	char kind;		/* 'x' exit reason, 'i' guest interrupt vector */
	char name[40];
	unsigned long long n;
};

/* Parse xenalyze --summary text: "|-- Domain N --|" or "|-- Default
 * domain --|", "-- vN --", then under "Exit reasons:" lines " NAME COUNT
 * TIMEs ..." (one leading space; handler lines below them have three) and
 * under "Guest interrupt counts:" lines "  [VEC] COUNT". */
static size_t parse_summary(FILE *f, struct row *r, size_t max)
{
	char line[1024];
	unsigned dom = ~0u, vcpu = ~0u;
	int sect = 0;	/* 1 exit reasons, 2 guest interrupts */
	size_t n = 0;

	while (fgets(line, sizeof(line), f) && n < max) {
		unsigned a, b;
		unsigned long long c;
		char name[40];
		double secs;

		if (sscanf(line, "|-- Domain %u --|", &a) == 1) {
			dom = a;
			sect = 0;
		} else if (strncmp(line, "|-- Default domain --|", 22) == 0) {
			dom = TR_HVM_DEFAULT_DOM;
			sect = 0;
		} else if (sscanf(line, "-- v%u --", &a) == 1) {
			vcpu = a;
			sect = 0;
		} else if (strncmp(line, "Exit reasons:", 13) == 0) {
			sect = 1;
		} else if (strncmp(line, "Guest interrupt counts:", 23) == 0) {
			sect = 2;
		} else if (sect == 1 && line[0] == ' ' && line[1] != ' ' &&
			   sscanf(line, " %39s %llu %lfs", name, &c, &secs) == 3) {
			r[n] = (struct row){ .dom = dom, .vcpu = vcpu, .kind = 'x', .n = c };
			snprintf(r[n].name, sizeof(r[n].name), "%s", name);
			n++;
		} else if (sect == 2 && sscanf(line, "  [%u] %llu", &b, &c) == 2) {
			r[n] = (struct row){ .dom = dom, .vcpu = vcpu, .kind = 'i', .n = c };
			snprintf(r[n].name, sizeof(r[n].name), "%u", b);
			n++;
		} else if (line[0] != ' ') {
			sect = sect == 1 && strncmp(line, "Guest", 5) ? 0 : sect;
		}
	}
	return n;
}

static const struct tr_hvm_vcpu *find_vcpu(const struct tr_hvm *h, unsigned dom, unsigned vcpu)
{
	for (uint32_t i = 0; i < h->nv; i++)
		if (h->v[i].dom == dom && h->v[i].vcpu == vcpu)
			return &h->v[i];
	return NULL;
}

static uint64_t cmap_get(const struct cmap *m, uint32_t key)
{
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->used[i] && m->key[i] == key)
			return m->v[i];
	return 0;
}

/* ipibench's count for a row of xenalyze's. */
static uint64_t ours(const struct tr_hvm *h, const struct row *r)
{
	const struct tr_hvm_vcpu *v = find_vcpu(h, r->dom, r->vcpu);

	if (!v)
		return 0;
	if (r->kind == 'i')
		return cmap_get(&v->virq, (uint32_t)strtoul(r->name, NULL, 10));
	for (uint32_t code = 0; code <= 1024; code++) {
		const char *n = tr_hvm_exit_name(h->svm, code);

		if (n && strcmp(n, r->name) == 0)
			return cmap_get(&v->reason, code);
	}
	return ~(uint64_t)0;	/* a name we do not know */
}

static bool listed(const struct row *r, size_t n, unsigned dom, unsigned vcpu, char kind,
		   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].dom == dom && r[i].vcpu == vcpu && r[i].kind == kind &&
		    strcmp(r[i].name, name) == 0)
			return true;
	return false;
}

/* The trace XT (unpacked, if it was kept xz-compressed) against its stored
 * xenalyze summary SUMMARY. */
static void check_file(const char *xt, const char *summary)
{
	static struct row want[MAXROWS], live[MAXROWS];
	char err[256];
	size_t nw, nx = 0, ni = 0;
	struct tr_summary s;
	struct xt_file f;
	FILE *fp;

	fp = fopen(summary, "r");
	assert_non_null(fp);
	nw = parse_summary(fp, want, MAXROWS);
	fclose(fp);
	for (size_t i = 0; i < nw; i++)
		*(want[i].kind == 'x' ? &nx : &ni) += 1;
	print_message("%s: %zu exit-reason rows, %zu vector rows from xenalyze\n", xt, nx, ni);
	assert_true(nx >= 3);	/* a real HVM trace has several reasons */

	assert_int_equal(xt_map(&f, xt, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_true(s.has_hvm);
	assert_true(s.hvm.svm);
	/* Through the HVM profile's path: the first pass stopped at an HVM
	 * event ID, the second handed the profile its records. */
	assert_int_equal(s.passes, 2);
	assert_true(s.hvm_fed >= s.hvm.hvm_records);
	assert_true(s.hvm.hvm_records > 0);
	for (size_t i = 0; i < nw; i++) {
		uint64_t got = ours(&s.hvm, &want[i]);

		if (got != want[i].n)
			fail_msg("%s: d%uv%u %s %s: xenalyze %llu, ipibench %llu", xt, want[i].dom,
				 want[i].vcpu, want[i].kind == 'x' ? "exit" : "vector", want[i].name,
				 want[i].n, (unsigned long long)got);
	}
	/* Nothing xenalyze does not list. */
	for (uint32_t k = 0; k < s.hvm.nv; k++) {
		const struct tr_hvm_vcpu *v = &s.hvm.v[k];

		for (uint32_t i = 0; i < v->reason.cap; i++)
			if (v->reason.used[i] && v->reason.v[i]) {
				const char *n = tr_hvm_exit_name(true, v->reason.key[i]);

				if (!n || !listed(want, nw, v->dom, v->vcpu, 'x', n))
					fail_msg("%s: d%uv%u exit %u counted, not in xenalyze's summary", xt,
						 v->dom, v->vcpu, v->reason.key[i]);
			}
		for (uint32_t i = 0; i < v->virq.cap; i++)
			if (v->virq.used[i] && v->virq.v[i]) {
				char b[16];

				snprintf(b, sizeof(b), "%u", v->virq.key[i]);
				if (!listed(want, nw, v->dom, v->vcpu, 'i', b))
					fail_msg("%s: d%uv%u vector %s counted, not in xenalyze's summary",
						 xt, v->dom, v->vcpu, b);
			}
	}
	tr_summary_fini(&s);
	xt_unmap(&f);

	if (access("build/bin/xenalyze", X_OK) == 0) {
		char cmd[700];
		size_t nl;

		snprintf(cmd, sizeof(cmd), "build/bin/xenalyze --svm-mode --summary "
			 "--show-default-domain-summary %s 2>/dev/null", xt);
		fp = popen(cmd, "r");
		assert_non_null(fp);
		nl = parse_summary(fp, live, MAXROWS);
		assert_int_equal(pclose(fp), 0);
		assert_int_equal(nl, nw);
		for (size_t i = 0; i < nl; i++) {
			assert_string_equal(live[i].name, want[i].name);
			assert_true(live[i].n == want[i].n);
		}
	} else {
		print_message("build/bin/xenalyze not built: stored summary only\n");
	}
}

static void test_fixtures_match_xenalyze(void **st)
{
	glob_t g;
	unsigned n = 0;

	(void)st;
	assert_int_equal(glob("probes/tests/data/*.xenalyze-summary", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char xt[512];
		const char *p = g.gl_pathv[i];

		snprintf(xt, sizeof(xt), "%.*s.xt", (int)(strlen(p) - strlen(".xenalyze-summary")), p);
		if (access(xt, R_OK) == 0) {
			check_file(xt, p);
		} else {
			/* NAME.xt.xz: the bigger recordings, unpacked into the
			 * test's own directory (removed with it). */
			char xz[600], tmp[600], cmd[1400];
			const char *base = strrchr(xt, '/') + 1;

			snprintf(xz, sizeof(xz), "%s.xz", xt);
			assert_int_equal(access(xz, R_OK), 0);
			snprintf(tmp, sizeof(tmp), "%s/%s", tu_dir, base);
			snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", xz, tmp);
			assert_int_equal(system(cmd), 0);
			check_file(tmp, p);
			unlink(tmp);
		}
		n++;
	}
	globfree(&g);
	assert_true(n >= 1);
}

/* The guest domains' totals (not dom0, idle or the default domain) of one
 * xz-kept fixture: ICR writes, EOI writes, vector injections. */
struct guest_sum {
	uint64_t icr, eoi, vmmcall, inj[256];
};

static void guest_sums(const char *name, struct guest_sum *g)
{
	char xz[300], tmp[300], cmd[700], err[256];
	struct xt_file f;
	struct tr_summary s;

	memset(g, 0, sizeof(*g));
	snprintf(xz, sizeof(xz), "probes/tests/data/%s.xt.xz", name);
	snprintf(tmp, sizeof(tmp), "%s/%s.xt", tu_dir, name);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", xz, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(xt_map(&f, tmp, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_true(s.has_hvm);
	for (uint32_t k = 0; k < s.hvm.nv; k++) {
		const struct tr_hvm_vcpu *v = &s.hvm.v[k];

		if (v->dom == 0 || v->dom >= 0x7ff0)
			continue;
		g->icr += cmap_get(&v->msr_write, 0x830);
		g->eoi += cmap_get(&v->msr_write, 0x80b);
		g->vmmcall += cmap_get(&v->reason, 129);	/* VMEXIT_VMMCALL */
		for (uint32_t i = 0; i < v->virq.cap; i++)
			if (v->virq.used[i] && v->virq.key[i] < 256)
				g->inj[v->virq.key[i]] += v->virq.v[i];
	}
	tr_summary_fini(&s);
	xt_unmap(&f);
	unlink(tmp);
}

/* The two IPI paths of the ipbipi guest workload, recorded on the test host
 * (the [guest] ipi_path evtchn and apic): the kernel's smp_ops send no
 * x2APIC IPI and nothing arrives on the reschedule vector, all comes on
 * Xen's upcall vector; through the APIC each IPI is one ICR write and, but
 * for those that found the vector still pending, one injection of 0xfd. */
static void test_ipi_paths_differ(void **st)
{
	static struct guest_sum k, a;

	(void)st;
	guest_sums("hvm-pvh-ipbipi-kernel-sched", &k);
	guest_sums("hvm-pvh-ipbipi-apic-sched", &a);
	assert_int_equal(k.icr, 0);
	assert_int_equal(k.inj[0xfd], 0);
	assert_true(k.inj[0xf3] > 500);		/* the IPIs and the timer, one vector */
	assert_true(k.eoi == k.inj[0xf3]);	/* each injection ends in one EOI write */
	assert_true(a.icr > 50);
	assert_true(a.inj[0xfd] <= a.icr && a.inj[0xfd] * 10 >= a.icr * 9);
	assert_true(a.eoi == a.inj[0xfd] + a.inj[0xf3]);
	/* the event-channel sends are hypercalls: more VMMCALL exits per
	 * injection than the APIC path has (its VMMCALLs are timers alone) */
	assert_true(k.vmmcall * (a.inj[0xfd] + a.inj[0xf3]) > a.vmmcall * k.inj[0xf3]);
}

/* Synthetic: d1v0 on pCPU 0, d1v1 on pCPU 1; an exit is counted by the
 * VMENTRY that closes it, on whichever pCPU; one left open is not. */
#define RS(old, new) (0x00021001u | (old) << 8 | (new) << 4)
static void rec(struct xtb *x, uint32_t ev, uint64_t tsc, int n, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t d[3] = { a, b, c };

	xtb_rec(x, ev, tsc, n, d);
}

static void test_rules(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	const struct tr_hvm_vcpu *v0, *v1, *def;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	rec(&x, 0x00082004, 4, 2, 0x30, 0, 0);			/* INJ_VIRQ before any exit: counted */
	rec(&x, 0x00082013, 5, 1, 0, 0, 0);			/* HLT outside an exit: not counted */
	rec(&x, 0x00081102, 10, 3, 120, 0, 0);			/* default v0: VMEXIT_HLT */
	rec(&x, 0x00081001, 11, 0, 0, 0, 0);			/* closed */
	rec(&x, RS(1, 0), 100, 1, 1u << 16 | 0, 0, 0);		/* d1v0 runnable -> running */
	rec(&x, 0x00081102, 110, 3, 124, 0, 0);			/* VMEXIT_MSR */
	rec(&x, 0x0008200d, 111, 3, 0x830, 0x1234, 0);		/* MSR_WRITE x2APIC ICR */
	rec(&x, 0x00081001, 112, 0, 0, 0, 0);
	rec(&x, 0x00082004, 113, 2, 0xf3, 0, 0);		/* INJ_VIRQ 0xf3, no exit needed */
	rec(&x, 0x00081102, 120, 3, 96, 0, 0);			/* VMEXIT_INTR, then runs off to pCPU 1 */
	rec(&x, RS(0, 1), 130, 1, 1u << 16 | 0, 0, 0);		/* d1v0 running -> runnable: closes it */
	rec(&x, 0x00081001, 131, 0, 0, 0, 0);			/* no vCPU on pCPU 0: skipped */
	xtb_chunk(&x, 1);
	rec(&x, RS(1, 0), 140, 1, 1u << 16 | 0, 0, 0);		/* d1v0 now on pCPU 1 */
	rec(&x, 0x00081001, 141, 0, 0, 0, 0);			/* its exit already counted */
	rec(&x, 0x00081102, 142, 3, 124, 0, 0);			/* VMEXIT_MSR, descheduled in it: */
	rec(&x, RS(0, 1), 143, 1, 1u << 16 | 0, 0, 0);		/* counted at running -> runnable */
	rec(&x, RS(0, 1), 150, 1, 1u << 16 | 0, 0, 0);
	rec(&x, RS(1, 0), 160, 1, 1u << 16 | 1, 0, 0);		/* d1v1 */
	rec(&x, 0x00081102, 170, 3, 114, 0, 0);			/* VMEXIT_CPUID, left open */
	rec(&x, 0x0008200e, 171, 3, 0, 0, 0);			/* CPUID handler inside the exit */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_true(s.has_hvm);
	assert_true(s.hvm.svm);
	v0 = find_vcpu(&s.hvm, 1, 0);
	v1 = find_vcpu(&s.hvm, 1, 1);
	def = find_vcpu(&s.hvm, TR_HVM_DEFAULT_DOM, 0);
	assert_non_null(v0);
	assert_non_null(v1);
	assert_non_null(def);
	assert_int_equal(cmap_get(&def->reason, 120), 1);
	assert_int_equal(cmap_get(&def->virq, 0x30), 1);
	assert_int_equal(def->exits, 1);
	assert_int_equal(v0->vmexit, 3);
	assert_int_equal(v0->vmentry, 2);
	assert_int_equal(cmap_get(&v0->reason, 124), 2);	/* one closed by a runstate change */
	assert_int_equal(cmap_get(&v0->reason, 96), 1);	/* once, not at the VMENTRY again */
	assert_int_equal(cmap_get(&v0->msr_write, 0x830), 1);
	assert_int_equal(cmap_get(&v0->virq, 0xf3), 1);
	assert_int_equal(v1->vmexit, 1);
	assert_int_equal(v1->exits, 0);				/* still open at the end */
	assert_int_equal(cmap_get(&v1->handler, 0x0008200e), 1);
	assert_int_equal(s.hvm.no_vcpu, 1);
	assert_int_equal(s.hvm.before_exit, 1);
	assert_int_equal(s.hvm.sched_records, 6);
	tr_summary_fini(&s);
	free(x.b);
}

/* Synthetic: a pCPU whose first scheduler record is a
 * TRC_SCHED_CONTINUE_RUNNING of d1v0 runs d1v0 from there (xenalyze's
 * CONTINUE, vcpu_start()); before it, the default domain's vCPU. */
static void test_continue_running(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	const struct tr_hvm_vcpu *v0, *def;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 1);
	rec(&x, 0x00081102, 10, 3, 120, 0, 0);			/* default v1: VMEXIT_HLT */
	rec(&x, 0x00081001, 11, 0, 0, 0, 0);
	rec(&x, 0x00021002, 20, 1, 1u << 16 | 0, 0, 0);		/* continue d1v0 */
	rec(&x, 0x00081102, 30, 3, 124, 0, 0);			/* d1v0: VMEXIT_MSR */
	rec(&x, 0x00081001, 31, 0, 0, 0, 0);
	rec(&x, 0x00081102, 40, 3, 124, 0, 0);
	rec(&x, 0x00081001, 41, 0, 0, 0, 0);
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	v0 = find_vcpu(&s.hvm, 1, 0);
	def = find_vcpu(&s.hvm, TR_HVM_DEFAULT_DOM, 1);
	assert_non_null(v0);
	assert_non_null(def);
	assert_int_equal(def->exits, 1);
	assert_int_equal(cmap_get(&def->reason, 120), 1);
	assert_int_equal(v0->exits, 2);
	assert_int_equal(cmap_get(&v0->reason, 124), 2);
	assert_int_equal(s.hvm.sched_records, 0);		/* a continue is no change */
	tr_summary_fini(&s);
	free(x.b);
}

/* Synthetic ICR writes, SELF IPI writes and VMMCALLs of d1v0 (x2APIC ID
 * 0; v1's is 2), decoded into IPIs sent, self-IPIs and the rest, and the
 * domain's injections split into IPI vectors and interrupts. */
static void exit_with(struct xtb *x, uint64_t *t, uint32_t reason, uint32_t ev, int n,
		      uint32_t a, uint32_t b, uint32_t c)
{
	rec(x, 0x00081102, (*t)++, 3, reason, 0, 0);
	rec(x, ev, (*t)++, n, a, b, c);
	rec(x, 0x00081001, (*t)++, 0, 0, 0, 0);
}

/* Synthetic: the guest of a trace (tr_hvm_guest_sum) is its guest
 * domains with VM exits, not the default domain beside them, nor a domain
 * with injections only; without scheduler records, the default domain. */
static void test_guest_sum(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	struct tr_hvm_guest *g, sum;
	uint32_t n;
	uint64_t t = 10;

	(void)st;
	for (int sched = 1; sched >= 0; sched--) {
		xtb_init(&x);
		xtb_chunk(&x, 0);
		exit_with(&x, &t, 120, 0x00082013, 1, 0, 0, 0);		/* default v0: HLT */
		if (sched)
			rec(&x, RS(1, 0), t++, 1, 1u << 16 | 0, 0, 0);	/* d1v0 */
		exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0xfd, 2);	/* ICR IPI to v1 */
		exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0xfd, 2);
		rec(&x, 0x00082004, t++, 2, 0xfd, 0, 0);		/* injected on the IPI vector */
		rec(&x, 0x00082004, t++, 2, 0x30, 0, 0);		/* an interrupt */
		xtb_chunk(&x, 1);
		if (sched)
			rec(&x, RS(1, 0), t++, 1, 2u << 16 | 0, 0, 0);	/* d2v0: injections only */
		rec(&x, 0x00082004, t++, 2, 0x31, 0, 0);
		xtb_end(&x);
		xt_mem(&f, x.b, x.len);
		assert_int_equal(tr_summary_run(&s, &f), 0);
		assert_int_equal(tr_hvm_guests(&s.hvm, &g, &n), 0);
		assert_int_equal(tr_hvm_guest_sum(g, n, &sum), 1);
		assert_int_equal(sum.dom, sched ? 1 : TR_HVM_DEFAULT_DOM);
		assert_string_equal(sum.path, IPIBENCH_IPI_PATH_APIC);
		assert_int_equal(sum.ipis, 2);
		assert_int_equal(sum.exits, sched ? 2 : 3);		/* with the HLT when it is one domain */
		assert_int_equal(sum.inj_ipi, 1);
		assert_int_equal(sum.inj_irq, sched ? 1 : 2);		/* pCPU 1's default v1 too */
		assert_int_equal(tr_cmap_get(&sum.reason, 124), 2);
		tr_hvm_guest_fini(&sum);
		tr_hvm_guests_free(g, n);
		tr_summary_fini(&s);
		free(x.b);
	}
}

/* Which way a ratio moved is decided exactly, and the farthest moved sorts first. */
static void test_moved(void **st)
{
	struct tr_move flat = { 1, 3, 2, 6 }, up = { 1, 3, 1, 2 }, down = { 3, 4, 1, 2 };
	struct tr_move none = { 1, 0, 1, 2 };
	/* 1/3 and 333333333333333333/999999999999999998 differ below a double's precision */
	struct tr_move tiny = { 1, 3, 333333333333333333ull, 999999999999999998ull };

	(void)st;
	assert_string_equal(tr_moved(&flat), "flat");
	assert_string_equal(tr_moved(&up), "up");
	assert_string_equal(tr_moved(&down), "down");
	assert_string_equal(tr_moved(&none), "-");
	assert_string_equal(tr_moved(&tiny), "up");
	assert_true(tr_move_cmp(&down, &up) < 0);		/* 0.25 before 0.167 */
	assert_true(tr_move_cmp(&up, &down) > 0);
	assert_true(tr_move_cmp(&none, &flat) > 0);		/* no ratio: last */
	assert_int_equal(tr_move_cmp(&flat, &flat), 0);
}

static void test_ipi_decode(void **st)
{
	struct xtb x;
	struct xt_file f;
	struct tr_summary s;
	struct tr_hvm_guest *g, *d1 = NULL;
	uint32_t n;
	uint64_t t = 200;

	(void)st;
	xtb_init(&x);
	xtb_chunk(&x, 0);
	rec(&x, RS(1, 0), t++, 1, 1u << 16 | 0, 0, 0);
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000000fd, 2);	/* fixed, physical -> v1 */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000000fd, 2);
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000000fc, 0);	/* own APIC ID: self */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000400fb, 0);	/* shorthand self */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000c00fd, 0);	/* all but self */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000008fd, 0x10001); /* logical */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x00000500, 2);	/* INIT: not an IPI sent */
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000000fd, 7);	/* odd APIC ID: no vCPU */
	exit_with(&x, &t, 124, 0x0008200d, 2, 0x83f, 0x000000fa, 0);	/* SELF IPI MSR */
	exit_with(&x, &t, 124, 0x0008200d, 1, 0x830, 0, 0);		/* no value: not decoded */
	exit_with(&x, &t, 129, 0x00082012, 1, 32, 0, 0);			/* event_channel_op */
	exit_with(&x, &t, 129, 0x00082012, 1, 32, 0, 0);
	exit_with(&x, &t, 129, 0x00082012, 1, 29, 0, 0);			/* sched_op */
	rec(&x, 0x00082004, t++, 2, 0x30, 0, 0);				/* an interrupt */
	xtb_chunk(&x, 1);
	rec(&x, RS(1, 0), t++, 1, 1u << 16 | 1, 0, 0);
	rec(&x, 0x00082004, t++, 2, 0xfd, 0, 0);				/* the IPI vector */
	rec(&x, 0x00082004, t++, 2, 0xfd, 0, 0);
	rec(&x, 0x00082004, t++, 2, 0xf3, 0, 0);				/* the upcall: interrupt */
	exit_with(&x, &t, 120, 0x00082013, 1, 0, 0, 0);			/* HLT */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(tr_hvm_guests(&s.hvm, &g, &n), 0);
	for (uint32_t i = 0; i < n; i++)
		if (g[i].dom == 1)
			d1 = &g[i];
	assert_non_null(d1);
	assert_int_equal(d1->nvcpus, 2);
	assert_int_equal(d1->icr_writes, 8);	/* the 1-word record is not decoded */
	assert_int_equal(d1->ipi_sent, 5);	/* 2 + all-but + logical + odd ID */
	assert_int_equal(d1->ipi_shorthand, 1);
	assert_int_equal(d1->ipi_logical, 1);
	assert_int_equal(d1->ipi_self, 3);	/* own ID, shorthand self, SELF IPI */
	assert_int_equal(d1->icr_other, 1);
	assert_int_equal(d1->evtchn_op, 2);
	assert_int_equal(d1->vmmcall, 3);
	assert_string_equal(d1->path, "apic");
	assert_int_equal(d1->ipis, 5);		/* the ICR IPIs: an APIC-path domain */
	assert_int_equal(tr_cmap_get(&d1->pair, 0u << 16 | 1), 2);	/* v0 -> v1 */
	assert_int_equal(tr_cmap_get(&d1->pair, 0u << 16 | 0xffff), 1);	/* APIC ID 7 */
	assert_int_equal(tr_cmap_get(&d1->ipi_vec, 0xfd), 5);
	assert_int_equal(tr_cmap_get(&d1->ipi_vec, 0xfa), 1);
	assert_int_equal(d1->inj, 4);
	assert_int_equal(d1->inj_ipi, 2);	/* 0xfd */
	assert_int_equal(d1->inj_irq, 2);	/* 0x30 and 0xf3 */
	assert_int_equal(d1->exits, 14);
	assert_int_equal(tr_cmap_get(&d1->reason, 124), 10);
	tr_hvm_guests_free(g, n);
	tr_summary_fini(&s);
	free(x.b);

	/* no ICR IPI: the event_channel_op calls are the IPIs (path evtchn) */
	xtb_init(&x);
	xtb_chunk(&x, 0);
	t = 10;
	rec(&x, RS(1, 0), t++, 1, 3u << 16 | 0, 0, 0);
	exit_with(&x, &t, 129, 0x00082012, 1, 32, 0, 0);
	exit_with(&x, &t, 129, 0x00082012, 1, 32, 0, 0);
	exit_with(&x, &t, 129, 0x00082012, 1, 32, 0, 0);
	exit_with(&x, &t, 124, 0x0008200d, 3, 0x830, 0x000400fb, 0);	/* only a self-IPI */
	xtb_end(&x);
	xt_mem(&f, x.b, x.len);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_int_equal(tr_hvm_guests(&s.hvm, &g, &n), 0);
	d1 = NULL;
	for (uint32_t i = 0; i < n; i++)
		if (g[i].dom == 3)
			d1 = &g[i];
	assert_non_null(d1);
	assert_string_equal(d1->path, "evtchn");
	assert_int_equal(d1->ipis, 3);
	assert_int_equal(d1->ipi_self, 1);
	assert_int_equal(d1->exits, 4);
	tr_hvm_guests_free(g, n);
	tr_summary_fini(&s);
	free(x.b);
}

/* On the recorded fixtures: every ICR write of a guest domain is decoded
 * into exactly one class, the guest's IPI path is the one it was run on,
 * and the injections split into IPI vectors and interrupts add up. */
static void test_ipi_fixtures(void **st)
{
	static const struct { const char *name; const char *path; } fx[] = {
		{ "hvm-pvh-ipbipi-kernel-sched", "evtchn" },
		{ "hvm-pvh-ipbipi-apic-sched", "apic" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		char xz[300], tmp[300], cmd[700], err[256];
		struct xt_file f;
		struct tr_summary s;
		struct tr_hvm_guest *g;
		uint32_t n, seen = 0;
		struct guest_sum sum;

		guest_sums(fx[i].name, &sum);
		snprintf(xz, sizeof(xz), "probes/tests/data/%s.xt.xz", fx[i].name);
		snprintf(tmp, sizeof(tmp), "%s/%s.xt", tu_dir, fx[i].name);
		snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", xz, tmp);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(xt_map(&f, tmp, err, sizeof(err)), 0);
		assert_int_equal(tr_summary_run(&s, &f), 0);
		assert_int_equal(tr_hvm_guests(&s.hvm, &g, &n), 0);
		for (uint32_t k = 0; k < n; k++) {
			uint64_t inj = 0;

			if (g[k].dom == 0 || g[k].dom >= 0x7ff0)
				continue;
			seen++;
			assert_string_equal(g[k].path, fx[i].path);
			assert_int_equal(g[k].icr_writes, sum.icr);
			assert_int_equal(g[k].ipi_sent + g[k].ipi_self + g[k].icr_other, g[k].icr_writes);
			assert_int_equal(g[k].vmmcall, sum.vmmcall);
			assert_true(g[k].evtchn_op > 0 && g[k].evtchn_op <= g[k].vmmcall);
			for (int v = 0; v < 256; v++)
				inj += sum.inj[v];
			assert_int_equal(g[k].inj, inj);
			assert_int_equal(g[k].inj_ipi + g[k].inj_irq, g[k].inj);
			assert_int_equal(g[k].inj_ipi, sum.inj[0xfd]);
			assert_int_equal(g[k].ipis, g[k].path[0] == 'a' ? g[k].ipi_sent : g[k].evtchn_op);
			assert_true(g[k].ipis > 50);
		}
		assert_int_equal(seen, 1);
		tr_hvm_guests_free(g, n);
		tr_summary_fini(&s);
		xt_unmap(&f);
		unlink(tmp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_continue_running),
		cmocka_unit_test(test_ipi_decode),
		cmocka_unit_test(test_guest_sum),
		cmocka_unit_test(test_moved),
		cmocka_unit_test_setup_teardown(test_ipi_fixtures, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_fixtures_match_xenalyze, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_ipi_paths_differ, tu_setup, tu_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
