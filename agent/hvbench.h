/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The agent's side of XEN_SYSCTL_ipibench (hv-patch/, include/
 * ipibench/abi.h): the hypercall through libxencall (libxenctrl's
 * do_sysctl is private), the chunk loop, CPU mask parsing and the JSON
 * results of docs/results-schema.md.
 */
#ifndef IPIBENCH_HVBENCH_H
#define IPIBENCH_HVBENCH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "ipibench/abi.h"
#include "agent/agent.h"

/*
 * What the agent says, once, when the hypervisor has no benchmark
 * interface (its query answers EOPNOTSUPP or ENOSYS: a Xen without
 * hv-patch/, or built with CONFIG_IPIBENCH off); every hypervisor
 * workload then fails with it.
 */
#define HVBENCH_ABSENT \
	"the hypervisor has no XEN_SYSCTL_ipibench (built without CONFIG_IPIBENCH?)"

/* Hypercall buffers for one workload. */
struct hvbench;

/* hb's mask buffer (XEN_SYSCTL_IPIBENCH_MAX_CPUS bits), sent by each call. */
uint8_t *hvbench_mask_buffer(struct hvbench *hb);

struct hvbench *hvbench_open(struct agent_ctx *ctx, char *err, size_t errlen);
void hvbench_close(struct hvbench *hb);

/*
 * One XEN_SYSCTL_ipibench call.  The handles the op uses are filled in
 * from hb's buffers (query: cpus, info; fetch: samples, cpus; a run op:
 * mask.bitmap when mask.nr_bits is set), the others left as the caller set
 * them (hvbench_query_raw() sizes the samples buffer: query first).
 * Returns 0 or the (positive) errno Xen refused with; EPROTO from a query
 * whose info.version is not XEN_SYSCTL_IPIBENCH_VERSION.
 */
int hvbench_call(struct hvbench *hb, struct xen_sysctl_ipibench *op);

/*
 * Which inputs a run op takes (public/ipibench.h's table): sender and
 * F_NO_SHORTHAND (flush_all, flush_mask, ipi_mask); a mask (flush_mask,
 * ipi_mask, vector_capacity, irq_delivery); vector (ipi_mask, pingpong).
 */
int hvbench_op_sends(uint32_t op);
int hvbench_op_masked(uint32_t op);
int hvbench_op_vector(uint32_t op);

/* Whether errno e says the interface is absent (EOPNOTSUPP, ENOSYS). */
int hvbench_absent(int e);
/* What an errno of XEN_SYSCTL_ipibench means, ": ..." or "". */
const char *hvbench_errno_hint(int e);

/* The most samples a fetch buffer may hold, whatever the query says. */
#define HVBENCH_MAX_SAMPLES 65536

/* The query, as JSON: genapic, CPU counts, shorthand_eligible, tsc_khz,
 * vector and "cpus": [{cpu, apic_id, logical_id, cluster, online, irqs,
 * ipis}] (interrupts and IPIs each CPU took while ipibench runs were live:
 * the hypervisor counts nothing between runs). */
int hvbench_query(struct agent_ctx *ctx, json_t **out, char *err, size_t errlen);

/* The one-line message of a query refused with errno e: HVBENCH_ABSENT
 * for EOPNOTSUPP and ENOSYS.  Returns err. */
const char *hvbench_query_error(int e, char *err, size_t errlen);

/* Query with an open handle; info/cpus point into hb's buffers. */
int hvbench_query_raw(struct hvbench *hb,
		      const struct xen_sysctl_ipibench_info **info,
		      const struct xen_sysctl_ipibench_cpu **cpus,
		      unsigned int *nr_cpus);

/*
 * CPU masks in params (KEY_CPUS, checked by workloads/wlspec.c): "all",
 * "all-but-self", or a list of CPUs and ranges ("1,17,33", "0-7", "0-3,8").
 * hvbench_mask_parse() resolves one against the online CPUs (online[i]
 * non-zero) and the source CPU 'self'.  bits holds
 * XEN_SYSCTL_IPIBENCH_MAX_CPUS bits.
 */
int hvbench_mask_parse(const json_t *v, unsigned int self,
		       const uint8_t *online, unsigned int nr_cpus,
		       uint8_t *bits, unsigned int *nr_bits,
		       char *err, size_t errlen);

/* A run's raw totals, for the counters a workload adds itself. */
struct hvbench_totals {
	uint32_t result;        /* the op's f.result (vector_capacity: vectors) */
	uint32_t status;        /* XEN_SYSCTL_IPIBENCH_ST_* of all chunks */
	uint32_t path;          /* XEN_SYSCTL_IPIBENCH_PATH_* of all chunks */
	unsigned int nr_cpus;
	uint32_t vectors[XEN_SYSCTL_IPIBENCH_MAX_CPUS];   /* per CPU, count_only */
	/* The test device's interrupts per CPU since boot, when the run began
	 * (the query's dev_irqs; for the run's delta). */
	uint64_t dev_irqs[XEN_SYSCTL_IPIBENCH_MAX_CPUS];
};

/* A run of one benchmark operation. */
struct hvbench_req {
	uint32_t op;            /* XEN_SYSCTL_IPIBENCH_OP_* */
	uint32_t cpu, peer;
	uint32_t iterations;
	uint32_t vector;        /* 0: the reserved one */
	int shorthand;          /* 0: XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND */
	const json_t *mask;     /* NULL: no mask */
	/*
	 * What the workload's own result needs (it shapes that itself):
	 * sample_cpu, samples.cpu (which CPU took each call); count_only, the
	 * op returns one count per run, not samples (no timing, icr_writes or
	 * send_cycles); totals, when not NULL, gets the raw totals after a run.
	 */
	int sample_cpu;
	int count_only;
	struct hvbench_totals *totals;
	/* Timing (hvbench_req_params()). */
	int loop;               /* 1: loop timing (F_LOOP), 0: per call */
	uint32_t runs;          /* runs of 'iterations' calls (0: 1) */
	uint32_t sender;        /* XEN_SYSCTL_IPIBENCH_SENDER_* */
	unsigned int nsenders;  /* 2: R pairs of loops, senders[0] and [1] */
	uint32_t senders[2];
	uint32_t seed;          /* order within each pair */
};

/*
 * The shared params a workload declares (workloads/workloads.h; already checked
 * with every default filled in, so a key is there exactly when the
 * workload's table has it) into req: iterations, cpu, peer, vector,
 * shorthand, mask, and with WL_TIMING timing and runs, with WL_SENDER
 * sender, senders ("A, B": paired) and seed.  A field whose param the
 * workload does not declare keeps the value req has.  0, or -1 with a
 * one-line message.
 */
int hvbench_req_params(const json_t *params, struct hvbench_req *req,
		       char *err, size_t errlen);

/*
 * Run req (req->runs runs of req->iterations calls, in chunks) and fill
 * result with "path", "timing", "samples" (per-call timing: one per call),
 * "loops" (loop timing: one per run, docs/results-schema.md "loops and
 * paired senders"), "chunks", "counters" (and "counters_by_sender" when a
 * sender was chosen) and "mask", the CPUs it resolved to: what every op
 * has.  Nothing here depends on req->op; a workload adds what is its own
 * (req->totals, samples.cpu) after the call.  Returns 0, or
 * -1 with a one-line message in err; a refusal by Xen also sets
 * result["refused"] = {"errno": N, "name": "ESRCH"}.
 */
int hvbench_run(struct agent_ctx *ctx, const struct hvbench_req *req,
		json_t *result, char *err, size_t errlen);

/*
 * The run of a workload that is one request: *tmpl (its op and the fields
 * no param sets) with the params read by hvbench_req_params(), then
 * hvbench_run().
 */
int hvbench_run_params(struct agent_ctx *ctx, const struct hvbench_req *tmpl,
		       const json_t *params, json_t *result, char *err, size_t errlen);

/*
 * hvbench_run_params() for a workload that adds counters of its own: the
 * run's raw totals (malloc'd, the caller frees them; tmpl->totals is
 * ignored), or NULL with err set (result as hvbench_run() leaves it, e.g.
 * its "refused").
 */
struct hvbench_totals *hvbench_run_totals(struct agent_ctx *ctx, const struct hvbench_req *tmpl,
					  const json_t *params, json_t *result,
					  char *err, size_t errlen);

/*
 * NAME_run.c of such a workload, whole: its run function and its entry
 * workload_NAME (list.h), from the request's fixed fields, e.g.
 *   HVBENCH_WORKLOAD(flush_mask, .op = XEN_SYSCTL_IPIBENCH_OP_flush_mask);
 */
#define HVBENCH_WORKLOAD(name, ...)						\
	static int run_##name(struct agent_ctx *ctx, const json_t *params,	\
			      json_t *result, char *err, size_t errlen)		\
	{									\
		static const struct hvbench_req tmpl = { __VA_ARGS__ };	\
										\
		return hvbench_run_params(ctx, &tmpl, params, result, err, errlen); \
	}									\
	const struct agent_workload_ops workload_##name = {			\
		.spec = &wl_##name,						\
		.run = run_##name,						\
	}

/*
 * A param of a checked job entry (every default filled in by
 * wl_job_entry_check(), so there is no default here): an integer, or a
 * boolean.
 */
uint32_t hvbench_uint(const json_t *params, const char *key);
int hvbench_bool(const json_t *params, const char *key);

const char *hvbench_errno_name(int e);

#endif
