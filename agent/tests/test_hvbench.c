/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The agent's side of XEN_SYSCTL_ipibench (agent/hvbench.c) against
 * a fake hypervisor behind its hypercall table (agent/hvcall.h): the
 * query and its refusals, the chunk loop (start, continuations, fetches),
 * loop timing and paired senders, the EBUSY retry, refusals in the middle
 * of a run, a fetch that says more than was asked, and that each op is sent
 * only the fields Xen accepts for it.  The fake keeps the rules of the
 * hypervisor's side (hv-patch/src/xen/arch/x86/ipibench.c) that the agent
 * relies on; everything Xen measures is made up.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>
#include <xenctrl.h>
#include <xen/sysctl.h>

#include "ipibench/senders.h"
#include "agent/hvbench.h"
#include "agent/hvcall.h"
#include "tests/unit/schema_keys.h"

#define NCPUS 4

/* ---- the fake hypervisor ------------------------------------------------ */

struct call {
	uint32_t op, flags, run_id, start, sender, vector, peer, cpu, nr_bits, iterations;
};

static struct fake {
	/* what it answers */
	uint32_t version, max_samples, idle_ms, chunk;
	uint32_t icr_per_op[3];           /* by sender */
	int query_err;                    /* errno of every query */
	int busy_starts;                  /* starts refused with EBUSY first (-1: all) */
	int fetch_err, fetch_err_at;      /* errno of the Nth fetch (1-based) */
	int chunk_err, chunk_err_at;      /* errno of the Nth chunk call */
	int chunk_err_fetch;              /* then the run's own error, from a fetch */
	int extra_done;                   /* a fetch says this many more than ran */
	int no_loop_flag;                 /* a loop chunk's sample without SAMPLE_LOOP */
	/* what it saw */
	struct call calls[256];
	unsigned int ncalls, starts, chunks, fetches, opens, closes, allocs, frees;
	uint32_t next_run, live, done_last, it_total;
	uint32_t last_sender;
	int bad_field;                    /* a field the op does not take, or a bad handle */
} F;

static void fake_reset(void)
{
	memset(&F, 0, sizeof(F));
	F.version = XEN_SYSCTL_IPIBENCH_VERSION;
	F.max_samples = 16;
	F.idle_ms = 5000;
	F.chunk = 10;
	F.icr_per_op[0] = 3;
	F.icr_per_op[1] = 3;   /* physical: one a target */
	F.icr_per_op[2] = 1;   /* cluster: one a cluster */
	F.next_run = 41;
}

static void *f_open(void)
{
	F.opens++;
	return &F;
}

static void f_close(void *h)
{
	assert_ptr_equal(h, &F);
	F.closes++;
}

static void *f_alloc(void *h, size_t size)
{
	assert_ptr_equal(h, &F);
	F.allocs++;
	return calloc(1, size);
}

static void f_free(void *h, void *p)
{
	assert_ptr_equal(h, &F);
	F.frees++;
	free(p);
}

static int takes_mask(uint32_t op)
{
	return op == XEN_SYSCTL_IPIBENCH_OP_flush_mask || op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity ||
	       op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery;
}

static int sends(uint32_t op)
{
	return op == XEN_SYSCTL_IPIBENCH_OP_flush_all || op == XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask;
}

/* Xen's refusal of a field the op does not take (-EINVAL). */
static int fields_ok(const struct xen_sysctl_ipibench *o)
{
	if (!sends(o->op) && (o->sender || (o->flags & XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND)))
		return 0;
	if (!takes_mask(o->op) && (o->mask.nr_bits || o->mask.bitmap.p))
		return 0;
	if (takes_mask(o->op) && o->mask.nr_bits && !o->mask.bitmap.p)
		return 0;
	if (o->op != XEN_SYSCTL_IPIBENCH_OP_pingpong && o->peer)
		return 0;
	if (o->op != XEN_SYSCTL_IPIBENCH_OP_ipi_mask && o->op != XEN_SYSCTL_IPIBENCH_OP_pingpong &&
	    o->vector)
		return 0;
	if (o->samples.p || o->cpus.p || o->info.p)
		return 0;
	return !o->pad;
}

static int refuse(int e)
{
	errno = e;
	return -1;
}

static int f_query(struct xen_sysctl_ipibench *o)
{
	struct xen_sysctl_ipibench_info *info = o->info.p;
	struct xen_sysctl_ipibench_cpu *cpus = o->cpus.p;

	if (F.query_err)
		return refuse(F.query_err);
	if (!info || !cpus || o->samples.p)
		return refuse(EFAULT);
	memset(info, 0, sizeof(*info));
	info->version = F.version;
	info->nr_cpu_ids = NCPUS;
	info->online_cpus = NCPUS;
	info->present_cpus = NCPUS;
	info->shorthand_eligible = 1;
	info->tsc_khz = 2000000;
	info->x2apic = 1;
	info->max_iterations = 1000000;
	info->max_samples = F.max_samples;
	info->idle_timeout_ms = F.idle_ms;
	info->run_live = F.live != 0;
	info->dev_sbdf = UINT32_MAX;
	snprintf(info->genapic, sizeof(info->genapic), "x2apic_mixed");
	for (unsigned int c = 0; c < NCPUS && c < o->nr_cpus; c++) {
		memset(&cpus[c], 0, sizeof(cpus[c]));
		cpus[c].apic_id = 2 * c;
		cpus[c].logical_id = 1U << c;
		cpus[c].flags = XEN_SYSCTL_IPIBENCH_CPU_ONLINE;
		cpus[c].vectors = 180 + c;
	}
	o->nr_cpus = NCPUS;
	return 0;
}

static int f_fetch(struct xen_sysctl_ipibench *o)
{
	struct xen_sysctl_ipibench_sample *s = o->samples.p;
	struct xen_sysctl_ipibench_cpu *cpus = o->cpus.p;
	uint32_t done = F.done_last;

	F.fetches++;
	if (F.fetch_err && (int)F.fetches == F.fetch_err_at)
		return refuse(F.fetch_err);
	if (F.chunk_err_fetch) {
		int e = F.chunk_err_fetch;

		F.chunk_err_fetch = 0;
		F.live = 0;
		return refuse(e);
	}
	if (!F.live || o->run_id != F.live)
		return refuse(ESRCH);
	if (!s || !cpus || o->info.p || o->nr_samples < F.max_samples)
		return refuse(EFAULT);
	done += F.extra_done;
	if (F.calls[F.ncalls - 2].flags & XEN_SYSCTL_IPIBENCH_F_LOOP) {
		memset(s, 0, sizeof(*s));
		s->cycles = 1000ULL * done;
		s->ns = 500ULL * done;
		s->flags = F.no_loop_flag ? 0 : XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP;
	} else {
		for (uint32_t i = 0; i < done && i < o->nr_samples; i++) {
			memset(&s[i], 0, sizeof(s[i]));
			s[i].cycles = 1000 + F.it_total - done + i;
			s[i].ns = 500 + i;
			s[i].icr_writes = F.icr_per_op[F.last_sender];
			s[i].cpu = 1;
			s[i].send_cycles = 100;
		}
	}
	for (unsigned int c = 0; c < NCPUS && c < o->nr_cpus; c++) {
		memset(&cpus[c], 0, sizeof(cpus[c]));
		cpus[c].irqs = done;
		cpus[c].ipis = c ? done : 0;
	}
	o->done = done;
	o->icr_writes = (uint64_t)done * F.icr_per_op[F.last_sender];
	o->ipis_sent = (uint64_t)done * (NCPUS - 1);
	o->ipis_received = (uint64_t)done * (NCPUS - 1);
	o->path = XEN_SYSCTL_IPIBENCH_PATH_GENAPIC;
	if (F.it_total >= F.calls[F.ncalls - 2].iterations)
		F.live = 0;     /* the last chunk fetched: the run is over */
	return 0;
}

static int f_chunk(struct xen_sysctl_ipibench *o)
{
	int cont = !!(o->flags & XEN_SYSCTL_IPIBENCH_F_CONTINUE);

	F.chunks++;
	if (!fields_ok(o)) {
		F.bad_field = 1;
		return refuse(EINVAL);
	}
	if (!cont) {
		F.starts++;
		if (F.busy_starts < 0 || (int)F.starts <= F.busy_starts)
			return refuse(EBUSY);
		F.live = F.next_run++;
		F.it_total = 0;
		o->run_id = F.live;
	} else if (!F.live || o->run_id != F.live) {
		return refuse(ESRCH);
	}
	if (o->start != F.it_total)
		return refuse(EINVAL);
	if (F.chunk_err && (int)F.chunks == F.chunk_err_at) {
		/* The hypercall tasklet's -EINVAL; the run's own error from a fetch. */
		F.chunk_err_fetch = F.chunk_err;
		return refuse(EINVAL);
	}
	F.last_sender = o->sender;
	F.done_last = o->iterations - o->start < F.chunk ? o->iterations - o->start : F.chunk;
	F.it_total += F.done_last;
	return 0;
}

static int f_sysctl(void *h, struct xen_sysctl *s)
{
	struct xen_sysctl_ipibench *o = (struct xen_sysctl_ipibench *)&s->u;

	assert_ptr_equal(h, &F);
	assert_int_equal(s->cmd, XEN_SYSCTL_ipibench);
	assert_true(F.ncalls < sizeof(F.calls) / sizeof(F.calls[0]));
	F.calls[F.ncalls++] = (struct call){
		o->op, o->flags, o->run_id, o->start, o->sender, o->vector, o->peer, o->cpu,
		o->mask.nr_bits, o->iterations,
	};
	switch (o->op) {
	case XEN_SYSCTL_IPIBENCH_OP_query:
		return f_query(o);
	case XEN_SYSCTL_IPIBENCH_OP_fetch:
		return f_fetch(o);
	default:
		return f_chunk(o);
	}
}

static const struct hvcall_ops fake_ops = {
	.open = f_open, .close = f_close, .alloc = f_alloc, .free = f_free, .sysctl = f_sysctl,
};

static struct agent_ctx ctx_of(void)
{
	struct agent_ctx c;

	memset(&c, 0, sizeof(c));
	c.hv = &fake_ops;
	return c;
}

static int setup(void **state)
{
	(void)state;
	fake_reset();
	return 0;
}

/* The handle was opened and closed once, every buffer given back. */
static void balanced(void)
{
	assert_int_equal(F.opens, F.closes);
	assert_int_equal(F.allocs, F.frees);
}

static json_int_t geti(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	if (!json_is_integer(json_object_get(o, path)))
		fail_msg("%s: not an integer", path);
	return json_integer_value(json_object_get(o, path));
}

/* ---- the query -------------------------------------------------------- */

static void test_query(void **state)
{
	struct agent_ctx c = ctx_of();
	char err[256] = "";
	json_t *q = NULL, *cpu;

	(void)state;
	assert_int_equal(hvbench_query(&c, &q, err, sizeof(err)), 0);
	assert_string_equal(json_string_value(json_object_get(q, "genapic")), "x2apic_mixed");
	assert_int_equal(geti(q, "nr_cpu_ids"), NCPUS);
	assert_int_equal(geti(q, "idle_timeout_ms"), 5000);
	assert_int_equal(geti(q, "max_samples"), 16);
	assert_true(json_is_null(json_object_get(q, "test_device")));
	assert_int_equal(json_array_size(json_object_get(q, "cpus")), NCPUS);
	cpu = json_array_get(json_object_get(q, "cpus"), 3);
	assert_int_equal(geti(cpu, "apic_id"), 6);
	assert_int_equal(geti(cpu, "logical_id"), 8);
	assert_int_equal(geti(cpu, "free_vectors"), 183);
	assert_true(json_is_true(json_object_get(cpu, "online")));
	json_decref(q);
	balanced();
	assert_int_equal(F.ncalls, 1);
}

static void test_query_refused(void **state)
{
	static const struct {
		int e, version;
		uint32_t max_samples;
		const char *msg;
	} cases[] = {
		{ EOPNOTSUPP, 0, 16, HVBENCH_ABSENT },
		{ ENOSYS, 0, 16, HVBENCH_ABSENT },
		{ EPERM, 0, 16, "ipibench query refused: EPERM" },
		{ 0, 2, 16, "not this agent's (XEN_SYSCTL_IPIBENCH_VERSION 1)" },
		{ 0, 0, HVBENCH_MAX_SAMPLES + 1, "not this agent's" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct agent_ctx c = ctx_of();
		char err[256] = "";
		json_t *q = NULL;

		fake_reset();
		F.query_err = cases[i].e;
		if (cases[i].version)
			F.version = (uint32_t)cases[i].version;
		F.max_samples = cases[i].max_samples;
		assert_int_equal(hvbench_query(&c, &q, err, sizeof(err)), -1);
		assert_null(q);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
		balanced();
	}
}

/* ---- the chunk loop --------------------------------------------------- */

static void test_per_call_chunks(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .cpu = 0, .iterations = 25,
		.mask = json_string("all-but-self"),
	};
	json_t *res = json_object(), *s;
	char err[256] = "";

	(void)state;
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), 0);
	/* query, then three chunks (10, 10, 5) each with its fetch */
	assert_int_equal(F.ncalls, 7);
	assert_int_equal(F.calls[1].flags & XEN_SYSCTL_IPIBENCH_F_CONTINUE, 0);
	assert_int_equal(F.calls[1].run_id, 0);
	for (unsigned int k = 0; k < 3; k++) {
		const struct call *ch = &F.calls[1 + 2 * k], *fe = &F.calls[2 + 2 * k];

		assert_int_equal(ch->start, 10 * k);
		assert_int_equal(fe->op, XEN_SYSCTL_IPIBENCH_OP_fetch);
		assert_int_equal(fe->run_id, 41);
		if (k) {
			assert_true(ch->flags & XEN_SYSCTL_IPIBENCH_F_CONTINUE);
			assert_int_equal(ch->run_id, 41);
		}
		/* no shorthand unless asked; the mask CPUs 1-3 of 0-3 */
		assert_true(ch->flags & XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND);
		assert_false(ch->flags & XEN_SYSCTL_IPIBENCH_F_LOOP);
		assert_int_equal(ch->nr_bits, NCPUS);
	}
	assert_false(F.bad_field);
	assert_int_equal(geti(res, "chunks"), 3);
	assert_string_equal(json_string_value(json_object_get(res, "timing")), "per-call");
	assert_string_equal(json_string_value(json_object_get(res, "path")), "genapic");
	s = json_object_get(res, "samples");
	assert_int_equal(json_array_size(json_object_get(s, "cycles")), 25);
	assert_int_equal(json_array_size(json_object_get(s, "icr_writes")), 25);
	/* the samples in call order: chunk 3's first is call 20 */
	assert_int_equal(json_integer_value(json_array_get(json_object_get(s, "cycles"), 20)), 1020);
	assert_int_equal(geti(res, "counters.operations"), 25);
	assert_int_equal(geti(res, "counters.icr_writes"), 75);
	assert_int_equal(geti(res, "counters.ipis_sent"), 75);
	assert_int_equal(json_integer_value(json_array_get(
		json_object_get(json_object_get(res, "counters"), "irqs_per_cpu"), 2)), 25);
	assert_int_equal(json_array_size(json_object_get(res, "mask")), 3);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(res, "mask"), 0)), 1);
	assert_null(json_object_get(res, "counters_by_sender"));
	json_decref(res);
	json_decref((json_t *)req.mask);
	balanced();
}

/* on_chunk: each run's chunks counted from 1. */
static unsigned int chunks_seen, chunk_calls;
static void on_chunk(struct agent_ctx *c, unsigned int chunks)
{
	(void)c;
	assert_int_equal(chunks, chunks == 1 ? 1 : chunks_seen + 1);
	chunks_seen = chunks;
	chunk_calls++;
}

static void test_loop_timing(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 25, .loop = 1, .runs = 3,
		.sender = XEN_SYSCTL_IPIBENCH_SENDER_cluster,
	};
	json_t *res = json_object(), *loops, *l;
	char err[256] = "";

	(void)state;
	c.on_chunk = on_chunk;
	chunks_seen = chunk_calls = 0;
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), 0);
	assert_int_equal(F.starts, 3);
	assert_int_equal(c.bench_runs, 3);
	assert_int_equal(chunk_calls, 9);
	assert_int_equal(chunks_seen, 3);
	assert_string_equal(json_string_value(json_object_get(res, "timing")), "loop");
	loops = json_object_get(res, "loops");
	assert_int_equal(json_array_size(loops), 3);
	l = json_array_get(loops, 2);
	assert_int_equal(geti(l, "calls"), 25);
	assert_int_equal(geti(l, "chunks"), 3);
	assert_int_equal(geti(l, "cycles"), 25000);
	assert_int_equal(geti(l, "ns"), 12500);
	assert_string_equal(json_string_value(json_object_get(l, "sender")), "cluster");
	assert_null(json_object_get(l, "pair"));
	assert_int_equal(geti(res, "chunks"), 9);
	assert_int_equal(geti(res, "counters.operations"), 75);
	assert_int_equal(geti(res, "counters.icr_writes"), 75);
	assert_int_equal(geti(res, "counters_by_sender.cluster.runs"), 3);
	assert_int_equal(geti(res, "counters_by_sender.cluster.icr_writes"), 75);
	for (unsigned int i = 1; i < F.ncalls; i += 2)
		assert_int_equal(F.calls[i].sender, XEN_SYSCTL_IPIBENCH_SENDER_cluster);
	json_decref(res);
	balanced();
}

static void test_loop_without_its_sample(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 5, .loop = 1,
	};
	json_t *res = json_object();
	char err[256] = "";

	(void)state;
	F.no_loop_flag = 1;
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a loop chunk without its loop sample"));
	json_decref(res);
	balanced();
}

static void test_paired_senders(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 4, .loop = 1, .runs = 8,
		.nsenders = 2, .seed = 7,
		.senders = { XEN_SYSCTL_IPIBENCH_SENDER_physical, XEN_SYSCTL_IPIBENCH_SENDER_cluster },
	};
	json_t *res = json_object(), *loops;
	char err[256] = "";
	unsigned int firsts[2] = { 0, 0 };

	(void)state;
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), 0);
	loops = json_object_get(res, "loops");
	assert_int_equal(json_array_size(loops), 16);
	for (unsigned int p = 0; p < 8; p++) {
		json_t *a = json_array_get(loops, 2 * p), *b = json_array_get(loops, 2 * p + 1);
		/* The drawn order: bit 0 of splitmix64(seed, pair) says which goes second. */
		unsigned int second = (unsigned int)(ipibench_pair_mix(7, p) & 1);

		assert_int_equal(geti(a, "pair"), p);
		assert_int_equal(geti(b, "pair"), p);
		assert_int_equal(geti(a, "arm"), second);
		assert_int_equal(geti(b, "arm"), !second);
		assert_string_not_equal(json_string_value(json_object_get(a, "sender")),
					json_string_value(json_object_get(b, "sender")));
		/* what Xen was asked for is what the loop says */
		assert_int_equal(F.calls[1 + 4 * p].sender, req.senders[second]);
		firsts[second]++;
	}
	/* Both orders occur in 8 pairs of seed 7 (else the order is not drawn). */
	assert_true(firsts[0] && firsts[1]);
	assert_int_equal(geti(res, "counters_by_sender.physical.runs"), 8);
	assert_int_equal(geti(res, "counters_by_sender.cluster.runs"), 8);
	assert_int_equal(geti(res, "counters_by_sender.physical.icr_writes"), 8 * 4 * 3);
	assert_int_equal(geti(res, "counters_by_sender.cluster.icr_writes"), 8 * 4 * 1);
	assert_int_equal(geti(res, "pair_seed"), 7);
	json_decref(res);
	balanced();
}

/* ---- refusals --------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_busy_retried(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 5 };
	json_t *res = json_object();
	char err[256] = "";
	double t0;

	(void)state;
	/* Another caller's run ends: the start goes through. */
	F.busy_starts = 3;
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), 0);
	assert_int_equal(F.starts, 4);
	json_decref(res);
	balanced();

	/* It never does: refused after the idle timeout the query gave. */
	fake_reset();
	F.busy_starts = -1;
	F.idle_ms = 200;
	res = json_object();
	t0 = now_s();
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), -1);
	assert_true(now_s() - t0 >= 0.2);
	assert_true(now_s() - t0 < 5);
	assert_true(F.starts > 3);
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(res, "refused"), "name")), "EBUSY");
	assert_non_null(strstr(err, "another caller's run is live"));
	json_decref(res);
	balanced();
}

static void test_refused_mid_run(void **state)
{
	static const struct {
		int fetch_at, chunk_at, e;
		const char *name, *call, *hint;
		int cut_short;
	} cases[] = {
		{ 2, 0, ESRCH, "ESRCH", "fetch", "no longer live", 0 },
		{ 1, 0, ETIMEDOUT, "ETIMEDOUT", "fetch", "an IPI or interrupt was lost", 0 },
		/* The chunk's CPU went offline: EINVAL from the tasklet, the
		 * run's ENXIO from the fetch the agent then makes. */
		{ 0, 3, ENXIO, "ENXIO", "continue", "went offline", 1 },
		{ 0, 2, ETIME, "EINVAL", "continue", "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct agent_ctx c = ctx_of();
		struct hvbench_req req = { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 50 };
		json_t *res = json_object(), *r;
		char err[256] = "";

		fake_reset();
		F.fetch_err = cases[i].fetch_at ? cases[i].e : 0;
		F.fetch_err_at = cases[i].fetch_at;
		F.chunk_err = cases[i].chunk_at ? cases[i].e : 0;
		F.chunk_err_at = cases[i].chunk_at;
		assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), -1);
		r = json_object_get(res, "refused");
		if (!r || strcmp(json_string_value(json_object_get(r, "name")), cases[i].name) ||
		    strcmp(json_string_value(json_object_get(r, "call")), cases[i].call) ||
		    !strstr(err, cases[i].hint))
			fail_msg("case %zu: refused %s by %s, '%s'", i,
				 json_string_value(json_object_get(r, "name")),
				 json_string_value(json_object_get(r, "call")), err);
		assert_int_equal(json_is_true(json_object_get(res, "cut_short")), cases[i].cut_short);
		assert_null(json_object_get(res, "samples"));
		json_decref(res);
		balanced();
	}
}

static void test_fetch_says_too_much(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 12 };
	json_t *res = json_object();
	char err[256] = "";

	(void)state;
	F.extra_done = 7;   /* 17 of 16 samples: more than the buffer holds */
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fetch: 17 samples done, chunk at 0 of 12"));
	json_decref(res);
	balanced();
}

/* Each op gets only the fields Xen takes for it, whatever the request has. */
static void test_only_the_fields_an_op_takes(void **state)
{
	static const uint32_t ops[] = {
		XEN_SYSCTL_IPIBENCH_OP_flush_all, XEN_SYSCTL_IPIBENCH_OP_flush_mask,
		XEN_SYSCTL_IPIBENCH_OP_ipi_mask, XEN_SYSCTL_IPIBENCH_OP_pingpong,
		XEN_SYSCTL_IPIBENCH_OP_vector_capacity, XEN_SYSCTL_IPIBENCH_OP_irq_delivery,
	};
	json_t *mask = json_string("1-3");

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct agent_ctx c = ctx_of();
		struct hvbench_req req = {
			.op = ops[i], .cpu = 0, .peer = 2, .vector = 0xf1, .iterations = 3,
			.mask = mask, .sender = XEN_SYSCTL_IPIBENCH_SENDER_physical,
			.count_only = ops[i] == XEN_SYSCTL_IPIBENCH_OP_vector_capacity,
		};
		json_t *res = json_object();
		char err[256] = "";

		fake_reset();
		if (hvbench_run(&c, &req, res, err, sizeof(err)))
			fail_msg("op %u: %s (a field it does not take: %d)", ops[i], err, F.bad_field);
		assert_int_equal(F.calls[1].peer, ops[i] == XEN_SYSCTL_IPIBENCH_OP_pingpong ? 2 : 0);
		assert_int_equal(F.calls[1].nr_bits, takes_mask(ops[i]) ? 4 : 0);
		json_decref(res);
		balanced();
	}
	json_decref(mask);
}

/* What hvbench writes is what docs/results-schema.md documents: every key
 * of a per-call run with a mask, a paired loop run and a refused one. */
static void test_keys_documented(void **state)
{
	FILE *f = fopen("docs/results-schema.md", "r");
	static char doc[1 << 20];
	size_t n;
	json_t *mask = json_string("all-but-self");
	const struct hvbench_req reqs[] = {
		{ .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 5, .mask = mask,
		  .sample_cpu = 1, .sender = XEN_SYSCTL_IPIBENCH_SENDER_physical },
		{ .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 4, .loop = 1, .runs = 2,
		  .nsenders = 2, .seed = 3,
		  .senders = { XEN_SYSCTL_IPIBENCH_SENDER_physical,
			       XEN_SYSCTL_IPIBENCH_SENDER_cluster } },
		{ .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 50 },
	};

	(void)state;
	assert_non_null(f);
	n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	char miss[1024] = "";

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct agent_ctx c = ctx_of();
		json_t *res = json_object(), *q = NULL;
		char err[256] = "";

		fake_reset();
		if (i == 2) {
			F.fetch_err = ENXIO;
			F.fetch_err_at = 2;
		}
		assert_int_equal(hvbench_run(&c, &reqs[i], res, err, sizeof(err)), i == 2 ? -1 : 0);
		tu_undocumented(res, doc, NULL, miss, sizeof(miss));
		json_decref(res);
		assert_int_equal(hvbench_query(&c, &q, err, sizeof(err)), 0);
		tu_undocumented(q, doc, NULL, miss, sizeof(miss));
		json_decref(q);
	}
	json_decref(mask);
	if (miss[0])
		fail_msg("not in docs/results-schema.md: %s", miss);
}

/* An agent_ctx that holds an open handle: hvbench uses it and leaves it open. */
static void test_shared_handle(void **state)
{
	struct agent_ctx c = ctx_of();
	struct hvbench_req req = { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 2 };
	json_t *res = json_object();
	char err[256] = "";

	(void)state;
	c.hv_handle = c.hv->open();
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), 0);
	assert_int_equal(F.opens, 1);
	assert_int_equal(F.closes, 0);
	assert_int_equal(F.allocs, F.frees);
	c.hv->close(c.hv_handle);
	json_decref(res);

	/* No table: one line, no call. */
	c.hv = NULL;
	res = json_object();
	assert_int_equal(hvbench_run(&c, &req, res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no hypercall table"));
	json_decref(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_query, setup),
		cmocka_unit_test_setup(test_query_refused, setup),
		cmocka_unit_test_setup(test_per_call_chunks, setup),
		cmocka_unit_test_setup(test_loop_timing, setup),
		cmocka_unit_test_setup(test_loop_without_its_sample, setup),
		cmocka_unit_test_setup(test_paired_senders, setup),
		cmocka_unit_test_setup(test_busy_retried, setup),
		cmocka_unit_test_setup(test_refused_mid_run, setup),
		cmocka_unit_test_setup(test_fetch_says_too_much, setup),
		cmocka_unit_test_setup(test_only_the_fields_an_op_takes, setup),
		cmocka_unit_test_setup(test_shared_handle, setup),
		cmocka_unit_test_setup(test_keys_documented, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
