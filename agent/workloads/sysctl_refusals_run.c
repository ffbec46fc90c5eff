/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sysctl_refusals: send XEN_SYSCTL_ipibench the invalid requests it must
 * refuse (foreign CPU mask, reserved vector, zero and huge iteration
 * counts, bad op/flags, a field the op does not take non-zero, ...),
 * check each errno, then check the
 * host still works (a query and a one-iteration flush_tlb_all).
 * Params: sysctl_refusals.c.  result["cases"]: [{name, expected, got, ok}].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ipibench/counters.h"
#include "agent/hvbench.h"

static void set_bit8(uint8_t *m, unsigned int i)
{
	m[i / 8] |= (uint8_t)(1U << (i % 8));
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	const struct xen_sysctl_ipibench_info *info;
	const struct xen_sysctl_ipibench_cpu *cpus;
	struct hvbench *hb = hvbench_open(ctx, err, errlen);
	unsigned int nr_cpus, bad = 0, n = 0, other = 1;
	uint32_t cpu;
	int e, rc = -1;

	if (!hb)
		return -1;
	cpu = hvbench_uint(params, "cpu");
	e = hvbench_query_raw(hb, &info, &cpus, &nr_cpus);
	if (e) {
		hvbench_query_error(e, err, errlen);
		goto out;
	}
	uint32_t vector = info->vector, foreign = nr_cpus;
	uint32_t max_iterations = info->max_iterations;
	for (unsigned int c = 0; c < nr_cpus; c++)
		if (!(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE)) {
			foreign = c;
			break;
		}
	other = cpu == 0 ? 1 : 0;

	enum { M_NONE, M_OTHER, M_FOREIGN };
	/* The *_without_x2apic cases only apply to xAPIC hosts. */
	int x2apic = !!info->x2apic;
	const struct {
		const char *name;
		int expected;
		int mask;
		struct xen_sysctl_ipibench op;
	} cases[] = {
		{ "foreign_cpu_in_mask", EINVAL, M_FOREIGN,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1 } },
		{ "reserved_vector", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1,
		    .vector = 0xfd } },
		{ "other_vector", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1,
		    .vector = vector == 0x30 ? 0x31 : 0x30 } },
		{ "zero_iterations", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 0 } },
		{ "huge_iterations", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all,
		    .iterations = max_iterations + 1 } },
		{ "max_uint_iterations", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = UINT32_MAX } },
		{ "unknown_op", EINVAL, M_NONE, { .op = 99, .iterations = 1 } },
		{ "unknown_flag", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .flags = 1U << 7 } },
		{ "offline_source_cpu", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .cpu = XEN_SYSCTL_IPIBENCH_MAX_CPUS - 1 } },
		{ "mask_too_long", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1,
		    .mask.nr_bits = XEN_SYSCTL_IPIBENCH_MAX_CPUS + 1 } },
		{ "empty_mask", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1 } },
		{ "pingpong_with_itself", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_pingpong, .iterations = 1,
		    .peer = cpu } },
		{ "continue_without_run", ESRCH, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 10,
		    .start = 5, .flags = XEN_SYSCTL_IPIBENCH_F_CONTINUE } },
		{ "continue_foreign_run_id", ESRCH, M_NONE,
		  { .run_id = 0x7fffffff, .op = XEN_SYSCTL_IPIBENCH_OP_flush_all,
		    .iterations = 10, .start = 5,
		    .flags = XEN_SYSCTL_IPIBENCH_F_CONTINUE } },
		{ "fetch_without_run", ESRCH, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_fetch } },
		{ "start_with_nonzero_start", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 10,
		    .start = 5 } },
		{ "unknown_sender", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .sender = 3 } },
		{ "huge_sender", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .sender = UINT32_MAX } },
		{ "sender_with_pingpong", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_pingpong, .iterations = 1,
		    .peer = other, .sender = XEN_SYSCTL_IPIBENCH_SENDER_cluster } },
		{ "sender_with_irq_delivery", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_irq_delivery, .iterations = 1,
		    .sender = XEN_SYSCTL_IPIBENCH_SENDER_physical } },
		{ "loop_with_vector_capacity", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_vector_capacity, .iterations = 1,
		    .flags = XEN_SYSCTL_IPIBENCH_F_LOOP } },
		{ "loop_with_irq_delivery", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_irq_delivery, .iterations = 1,
		    .flags = XEN_SYSCTL_IPIBENCH_F_LOOP } },
		{ "physical_sender_without_x2apic", ENODEV, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .sender = XEN_SYSCTL_IPIBENCH_SENDER_physical } },
		{ "cluster_sender_without_x2apic", ENODEV, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask, .iterations = 1,
		    .sender = XEN_SYSCTL_IPIBENCH_SENDER_cluster } },
		/*
		 * A field or flag the op neither reads nor writes, non-zero
		 * (public/ipibench.h's table): refused, by every kind of call,
		 * before anything else is looked at (a fetch or continuation
		 * without a run would be ESRCH otherwise).
		 */
		{ "query_with_cpu", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_query, .cpu = 1 } },
		{ "query_with_pad", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_query, .pad = 1 } },
		{ "query_with_loop", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_query,
		    .flags = XEN_SYSCTL_IPIBENCH_F_LOOP } },
		{ "fetch_with_iterations", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_fetch, .iterations = 1 } },
		{ "fetch_with_mask", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_fetch } },
		{ "start_with_peer", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .peer = 1 } },
		{ "start_with_nr_samples", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .nr_samples = 1 } },
		{ "start_with_fetch_output", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .done = 1 } },
		{ "start_with_pad", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1,
		    .pad = 1 } },
		{ "flush_all_with_mask", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 1 } },
		/* Any vector, the benchmark's own too (0 in the query until the
		 * first ipi_mask or pingpong run takes it). */
		{ "flush_mask_with_vector", EINVAL, M_OTHER,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_mask, .iterations = 1,
		    .vector = vector ? vector : 0xf1 } },
		{ "pingpong_with_no_shorthand", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_pingpong, .iterations = 1,
		    .peer = other, .flags = XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND } },
		{ "continue_with_nr_samples", EINVAL, M_NONE,
		  { .op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .iterations = 10,
		    .start = 5, .flags = XEN_SYSCTL_IPIBENCH_F_CONTINUE,
		    .nr_samples = 1 } },
	};
	json_t *arr = json_array();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xen_sysctl_ipibench op = cases[i].op;
		uint8_t *m = hvbench_mask_buffer(hb);

		if (x2apic && strstr(cases[i].name, "_without_x2apic"))
			continue;
		memset(m, 0, XEN_SYSCTL_IPIBENCH_MAX_CPUS / 8);
		/* The run ops' CPU (a query or fetch takes none). */
		if (op.op >= XEN_SYSCTL_IPIBENCH_OP_flush_all &&
		    (op.op != XEN_SYSCTL_IPIBENCH_OP_pingpong || !op.peer))
			op.cpu = op.cpu ? op.cpu : cpu;
		if (cases[i].mask == M_OTHER) {
			set_bit8(m, other);
			op.mask.nr_bits = other + 1;
		} else if (cases[i].mask == M_FOREIGN) {
			set_bit8(m, other);
			set_bit8(m, foreign);
			op.mask.nr_bits = foreign + 1;
		}
		if (!strcmp(cases[i].name, "pingpong_with_itself"))
			op.cpu = cpu;
		e = hvbench_call(hb, &op);
		json_t *c = json_object();
		json_object_set_new(c, "name", json_string(cases[i].name));
		json_object_set_new(c, "expected", json_string(hvbench_errno_name(cases[i].expected)));
		json_object_set_new(c, "got", json_string(e ? hvbench_errno_name(e) : "ok"));
		json_object_set_new(c, "errno", json_integer(e));
		json_object_set_new(c, "ok", json_boolean(e == cases[i].expected));
		json_array_append_new(arr, c);
		n++;
		if (e != cases[i].expected)
			bad++;
	}
	json_object_set_new(result, "cases", arr);

	/* The host still works: a query and one flush_tlb_all. */
	json_t *health = json_object();
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all, .cpu = cpu,
		.iterations = 1, .shorthand = 1,
	};
	char herr[256] = "";
	int hrc = hvbench_run(ctx, &req, health, herr, sizeof(herr));
	json_object_set_new(result, "host_ok", json_boolean(!hrc));
	json_object_set_new(result, "path", json_object_get(health, "path") ?
			    json_incref(json_object_get(health, "path")) : json_string("none"));
	json_object_set(result, IPB_KEY(WL_SAMPLES), json_object_get(health, IPB_KEY(WL_SAMPLES)) ?:
			json_pack("{s:[], s:[]}", IPB_KEY(SAMPLES_CYCLES), IPB_KEY(SAMPLES_NS)));
	json_t *cnt = json_object();
	json_object_set_new(cnt, IPB_COUNTER(OPERATIONS), json_integer(n));
	json_object_set_new(cnt, "refused_as_expected", json_integer(n - bad));
	json_object_set_new(result, IPB_KEY(WL_COUNTERS), cnt);
	json_decref(health);

	if (bad)
		snprintf(err, errlen, "%u of %u invalid requests not refused as expected", bad, n);
	else if (hrc)
		snprintf(err, errlen, "host check after refusals failed: %s", herr);
	else
		rc = 0;
out:
	hvbench_close(hb);
	return rc;
}

const struct agent_workload_ops workload_sysctl_refusals = {
	.spec = &wl_sysctl_refusals,
	.run = run,
};
