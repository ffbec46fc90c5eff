/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * irq_delivery: the hypervisor's test device (a PCI device Xen owns, QEMU's
 * edu) has its MSI bound to 'mask' through the IRQ's set_affinity (with
 * interrupt remapping: an IRTE update), and is rung iterations times from
 * 'cpu' by an MMIO write; each sample waits until the handler ran.
 * samples.cpu says which CPU handled each one; counters.handled_per_cpu
 * sums them, counters.dev_irqs_per_cpu is Xen's own count of the device's
 * interrupts per CPU; "delivery" is msi-remapped or msi, and "test_device"
 * the device's SBDF, IRTE index and MSI message after the run, "irte" that
 * entry as the IOMMU holds it (destination, vector).  Without a test
 * device Xen refuses with ENODEV.  Params and their defaults (iterations
 * 1000, as every config run has had): irq_delivery.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/counters.h"
#include "agent/hvbench.h"
#include "lib/console.h"

/*
 * result["irte"]: the device's interrupt remapping table entry as Xen's
 * VT-d dump ('V' debug key, read back from the console ring) shows it after
 * the run: where the IOMMU sends the device's MSI.  Absent when the MSI is
 * not remapped or the dump has no such entry (another IOMMU than VT-d).
 */
static void irte_from_dump(struct agent_ctx *ctx, json_t *result)
{
	json_t *irte = json_object_get(json_object_get(result, "test_device"), "irte");
	unsigned int size = 1 << 20;
	struct console_irte e;
	char *buf;

	if (!ctx->xch || !json_is_integer(irte) || json_integer_value(irte) < 0 ||
	    xc_send_debug_keys(ctx->xch, "V"))
		return;
	buf = calloc(1, size + 1);
	if (buf && xc_readconsolering(ctx->xch, buf, &size, 0, 0, NULL) == 0) {
		buf[size] = '\0';
		if (!console_find_irte(buf, (unsigned int)json_integer_value(irte), &e))
			json_object_set_new(result, "irte", json_pack(
				"{s:I, s:I, s:I, s:s, s:s, s:s}",
				"index", (json_int_t)e.index, "dst", (json_int_t)e.dst,
				"vector", (json_int_t)e.vector,
				"dm", e.dm ? "logical" : "physical",
				"dlm", e.dlm == 1 ? "lowest" : e.dlm ? "other" : "fixed",
				"trigger", e.tm ? "level" : "edge"));
	}
	free(buf);
}

/*
 * "delivery" (how the interrupt travelled: t->path) and, from a query after
 * the run, "test_device" (the device's MSI) and counters.dev_irqs_per_cpu,
 * Xen's own count of the device's interrupts per CPU over the run (apart
 * from samples.cpu; a CPU that went offline meanwhile counts from 0: left
 * out).  Without the query, only "delivery".
 */
static void device_result(struct agent_ctx *ctx, const struct hvbench_totals *t,
			  json_t *result, json_t *cnt)
{
	char err[256];
	json_t *q, *arr;

	if (!(t->path & XEN_SYSCTL_IPIBENCH_PATH_MSI))
		return;
	json_object_set_new(result, "delivery",
		json_string(t->path & XEN_SYSCTL_IPIBENCH_PATH_REMAPPED ? "msi-remapped" : "msi"));
	if (hvbench_query(ctx, &q, err, sizeof(err)))
		return;
	json_object_set(result, "test_device", json_object_get(q, "test_device"));
	arr = json_array();
	for (unsigned int c = 0; c < t->nr_cpus; c++) {
		json_int_t now = json_integer_value(json_object_get(
			json_array_get(json_object_get(q, "cpus"), c), "dev_irqs"));
		uint64_t n = now > 0 ? (uint64_t)now : 0;

		json_array_append_new(arr, json_integer(n >= t->dev_irqs[c] ?
			(json_int_t)(n - t->dev_irqs[c]) : 0));
	}
	json_object_set_new(cnt, IPB_COUNTER(DEV_IRQS_PER_CPU), arr);
	json_decref(q);
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	static const struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_irq_delivery,
		.shorthand = 1,
		.sample_cpu = 1,
	};
	struct hvbench_totals *t = hvbench_run_totals(ctx, &req, params, result, err, errlen);
	json_t *cnt, *handled, *who, *c;
	size_t i, nr_cpus;

	if (!t) {
		const char *e = json_string_value(json_object_get(
			json_object_get(result, "refused"), "name"));

		if (e && !strcmp(e, "ENODEV"))
			snprintf(err, errlen, "irq_delivery: the hypervisor has no test device "
				 "(ENODEV): boot it with a PCI 1234:11e8 (QEMU -device edu; "
				 "the qemu backend's [host] test_device)");
		return -1;
	}
	cnt = json_object_get(result, IPB_KEY(WL_COUNTERS));
	device_result(ctx, t, result, cnt);
	free(t);
	/* counters.handled_per_cpu: samples.cpu summed per CPU. */
	nr_cpus = json_array_size(json_object_get(cnt, IPB_COUNTER(IRQS_PER_CPU)));
	handled = json_array();
	for (i = 0; i < nr_cpus; i++)
		json_array_append_new(handled, json_integer(0));
	who = json_object_get(json_object_get(result, IPB_KEY(WL_SAMPLES)), IPB_KEY(SAMPLES_CPU));
	json_array_foreach(who, i, c) {
		json_int_t cpu = json_integer_value(c);
		json_t *n;

		if (cpu < 0 || (size_t)cpu >= nr_cpus)
			continue;
		n = json_array_get(handled, (size_t)cpu);
		json_integer_set(n, json_integer_value(n) + 1);
	}
	json_object_set_new(cnt, IPB_COUNTER(HANDLED_PER_CPU), handled);
	irte_from_dump(ctx, result);
	return 0;
}

const struct agent_workload_ops workload_irq_delivery = {
	.spec = &wl_irq_delivery,
	.run = run,
};
