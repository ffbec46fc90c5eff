/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * blkio: real device interrupts.  O_DIRECT reads of one block at random
 * offsets of a block device (the scratch virtio disk the QEMU backend
 * attaches with [host] disk_mb, or a device of a real host), each timed,
 * while Xen's trace buffers record TRC_HW_IRQ.  The interrupts the
 * hypervisor handled are then counted per CPU and per IRQ from its own
 * TRC_HW_IRQ_HANDLED events, so the distribution is the mode's, not a
 * guess.  Params and defaults: blkio.c.
 * The trace is kept as NAME.xtrace beside agent.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "ipibench/counters.h"
#include "probes/collect.h"
#include "probes/xtrace.h"
#include "agent/agent.h"
#include "workloads/workloads.h"


/* Count TRC_HW_IRQ_HANDLED per CPU and per IRQ in the trace at path. */
static int count_irqs(const char *path, json_t *counters, unsigned int nr_cpus,
		      char *err, size_t errlen)
{
	struct xt_file f;
	struct xt_anom an = { 0 };
	struct xt_seq s;
	struct xt_rec r;
	json_t *per_cpu = json_array(), *per_irq = json_object();
	uint64_t *cpu = calloc(nr_cpus ? nr_cpus : 1, sizeof(*cpu)), total = 0;

	if (xt_map(&f, path, err, errlen)) {
		free(cpu);
		json_decref(per_cpu);
		json_decref(per_irq);
		return -1;
	}
	if (xt_seq_init(&s, &f, &an) == 0) {
		while (xt_seq_next(&s, &r) > 0) {
			char key[16];

			if (r.event != TRC_HW_IRQ_HANDLED || r.nextra < 1)
				continue;
			total++;
			if (r.cpu < nr_cpus)
				cpu[r.cpu]++;
			snprintf(key, sizeof(key), "%u", r.d[0]);
			json_object_set_new(per_irq, key, json_integer(
				json_integer_value(json_object_get(per_irq, key)) + 1));
		}
		xt_seq_fini(&s);
	}
	xt_unmap(&f);
	for (unsigned int i = 0; i < nr_cpus; i++)
		json_array_append_new(per_cpu, json_integer((json_int_t)cpu[i]));
	free(cpu);
	json_object_set_new(counters, "irqs", json_integer((json_int_t)total));
	json_object_set_new(counters, IPB_COUNTER(IRQS_PER_CPU), per_cpu);
	json_object_set_new(counters, "irqs_per_irq", per_irq);
	json_object_set_new(counters, "trace_anomalies",
			    json_integer((json_int_t)(an.bad_records + an.garbage_runs + an.truncated)));
	return 0;
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(result, "name"));
	const char *dev = json_string_value(json_object_get(params, "device"));
	json_int_t iters = json_integer_value(json_object_get(params, "iterations"));
	size_t block = (size_t)json_integer_value(json_object_get(params, "block_kb")) << 10;
	struct ipb_collect_opts co = { .evt_mask = TRC_HW_IRQ, .poll_ms = 10 };
	struct ipb_collect_stats st = { 0 };
	struct ipb_collector *col = NULL;
	json_t *ns = json_array(), *cycles = json_array(), *counters = json_object();
	char path[4096], file[128];
	unsigned long long size = 0;
	unsigned int seed = 1;
	void *buf = NULL;
	int fd, rc = -1;

	if (!dev)
		dev = "/dev/vda";
	if (iters <= 0)
		iters = 2000;
	if (!block)
		block = 4096;
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s (attach a disk: [host] disk_mb)", dev, strerror(errno));
		goto out;
	}
	if (ioctl(fd, BLKGETSIZE64, &size) || size < block) {
		snprintf(err, errlen, "%s: cannot get its size, or smaller than one block", dev);
		goto out;
	}
	if (posix_memalign(&buf, 4096, block)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	snprintf(file, sizeof(file), "%s.xtrace", name ? name : "blkio");
	snprintf(path, sizeof(path), "%s/%s", ctx->outdir, file);
	co.path = path;
	if (ipb_collect_start(&col, &co, err, errlen))
		goto out;
	for (json_int_t i = 0; i < iters; i++) {
		off_t off = (off_t)(rand_r(&seed) % (size / block)) * (off_t)block;
		struct timespec t0, t1;
		unsigned long long c0, c1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		c0 = __rdtsc();
		if (pread(fd, buf, block, off) != (ssize_t)block) {
			snprintf(err, errlen, "%s: read at %lld: %s", dev, (long long)off,
				 strerror(errno));
			ipb_collect_stop(col, NULL, NULL, 0);
			col = NULL;
			goto out;
		}
		c1 = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		json_array_append_new(ns, json_integer((t1.tv_sec - t0.tv_sec) * 1000000000LL +
						       (t1.tv_nsec - t0.tv_nsec)));
		json_array_append_new(cycles, json_integer((json_int_t)(c1 - c0)));
	}
	if (ipb_collect_stop(col, &st, err, errlen)) {
		col = NULL;
		goto out;
	}
	col = NULL;
	json_object_set_new(counters, IPB_COUNTER(OPERATIONS), json_integer(iters));
	json_object_set_new(counters, "trace_lost_records", json_integer((json_int_t)st.tb.lost_records));
	if (count_irqs(path, counters, ctx->nr_cpus, err, errlen))
		goto out;
	json_object_set_new(result, "trace", json_string(file));
	rc = 0;
out:
	json_t *samples = json_object();
	json_object_set_new(samples, "ns", ns);
	json_object_set_new(samples, "cycles", cycles);
	json_object_set_new(result, IPB_KEY(WL_SAMPLES), samples);
	json_object_set_new(result, IPB_KEY(WL_COUNTERS), counters);
	json_object_set_new(result, "path", json_string("device"));
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

const struct agent_workload_ops workload_blkio = {
	.spec = &wl_blkio,
	.run = run,
};
