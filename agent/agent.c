/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench-agent: runs in dom0 (the QEMU host's busybox initramfs, or a real
 * Xen host's dom0), reports what the hypervisor says about itself, runs the
 * workloads a job lists and writes OUT/agent.json atomically.
 *
 *   ipibench-agent [--job FILE] [--output DIR] [--list] [--help]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <xenctrl.h>

#include "ipibench/counters.h"
#include "probes/collect.h"
#include "agent/agent.h"
#include "agent/agent_info.h"
#include "agent/hvbench.h"
#include "lib/opts.h"
#include "lib/safeio.h"

#define AGENT_VERSION "1"

static const struct opts_synopsis synopsis = {
	"ipibench-agent", "run ipibench's workloads in a Xen dom0 and report what Xen says",
	"[--job FILE] [-o DIR] [-v]\n--list", 8,
};

static void usage(FILE *f, const struct opts_cmd *cmd)
{
	opts_usage_lines(f, &synopsis);
	fputs("\n"
	      "The dom0 side of ipibench, run by 'ipibench boot' and 'ipibench run' in\n"
	      "each boot of the host (or by hand), it reports what the hypervisor says\n"
	      "about itself (genapic, APIC IDs, clusters), runs the workloads the job\n"
	      "lists through the patched Xen's benchmark sysctl and writes DIR/agent.json\n"
	      "atomically.  It needs root and a Xen built with the ipibench series.\n"
	      "\n", f);
	opts_help(f, cmd->opts);
	fputs("\nExit status: 0 ok (a workload that failed is said in agent.json), 1 Xen's\n"
	      "interfaces could not be opened or agent.json not written, 2 usage or a job\n"
	      "file that cannot be read.\n", f);
}

static int opt_list(const struct opt *o, const char *arg)
{
	(void)o, (void)arg;
	for (size_t i = 0; agent_workloads[i]; i++)
		printf("%-16s %s\n", agent_workloads[i]->spec->type, agent_workloads[i]->spec->help);
	return OPTS_STOP;
}

/* Write obj to DIR/NAME atomically (safeio): never half-written, fsync'ed
 * before the runner is told "agent done". */
static int write_json_atomic(const char *dir, const char *name, json_t *obj)
{
	char dst[4096], err[4200];

	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	if (sio_write_json(dst, obj, JSON_INDENT(1) | JSON_SORT_KEYS, err, sizeof(err))) {
		fprintf(stderr, "ipibench-agent: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * Start collecting Xen's trace buffers for workload NAME when its job entry
 * asks for it: "trace": {"mask": "0x00804000", "kb": 1024}.
 */
static struct ipb_collector *trace_start(struct agent_ctx *ctx, const char *name,
					 const json_t *trace, json_t *res,
					 char *err, size_t errlen)
{
	struct ipb_collect_opts o = { .poll_ms = 10 };
	struct ipb_collector *c = NULL;
	const char *mask = json_string_value(json_object_get(trace, "mask"));
	char path[4096], file[128];
	char *end;

	if (!mask)
		return NULL;
	o.evt_mask = (uint32_t)strtoul(mask, &end, 0);
	if (*end || !o.evt_mask) {
		snprintf(err, errlen, "workload %s: trace mask '%s' is not a number", name, mask);
		return NULL;
	}
	o.pages_per_cpu = (unsigned long)json_integer_value(json_object_get(trace, "kb")) / 4;
	snprintf(file, sizeof(file), "%s.xtrace", name);
	snprintf(path, sizeof(path), "%s/%s", ctx->outdir, file);
	o.path = path;
	if (ipb_collect_start(&c, &o, err, errlen))
		return NULL;
	json_object_set_new(res, IPB_KEY(WL_TRACE), sio_json_str(file));
	return c;
}

static void trace_stop(struct ipb_collector *c, json_t *res, char *err, size_t errlen)
{
	struct ipb_collect_stats st = { 0 };
	json_t *t = json_object();

	if (ipb_collect_stop(c, &st, err, errlen))
		return;
	json_object_set_new(t, "bytes", json_integer((json_int_t)st.tb.bytes));
	json_object_set_new(t, "records", json_integer((json_int_t)st.tb.records));
	json_object_set_new(t, "lost_records", json_integer((json_int_t)st.tb.lost_records));
	json_object_set_new(t, "wrap_records", json_integer((json_int_t)st.tb.wrap_records));
	json_object_set_new(t, "full_windows", json_integer((json_int_t)st.tb.full_windows));
	json_object_set_new(t, "cpus", json_integer(st.cpus));
	json_object_set_new(t, "pages_per_cpu", json_integer(st.pages_per_cpu));
	json_object_set_new(t, "tsc_khz", json_integer(st.tsc_khz));
	json_object_set_new(res, "trace_stats", t);
	if (st.tb.lost_records || st.tb.full_windows)
		fprintf(stdout, "ipibench: trace of %s lost %llu records\n",
			json_string_value(json_object_get(res, IPB_KEY(WL_NAME))),
			(unsigned long long)st.tb.lost_records);
}

static json_t *run_workload(struct agent_ctx *ctx, const json_t *job, size_t idx)
{
	const char *name = json_string_value(json_object_get(job, "name"));
	const char *type = json_string_value(json_object_get(job, "type"));
	json_t *params = json_object_get(job, "params"), *checked = NULL;
	const struct wl_type *spec = NULL;
	const struct agent_workload_ops *ops = NULL;
	json_t *res = json_object();
	char err[256] = "";
	struct timespec t0, t1;

	json_object_set_new(res, IPB_KEY(WL_NAME), json_string(name ? name : "?"));
	json_object_set_new(res, IPB_KEY(WL_TYPE), json_string(type ? type : "?"));
	json_object_set(res, IPB_KEY(WL_PARAMS), params ? params : json_object());

	/* The rules of the runner's config check (workloads/wlspec.c). */
	if (wl_job_entry_check(job, idx, &spec, &checked, err, sizeof(err)))
		;
	else if (!(ops = agent_workload_find(spec->type)))
		snprintf(err, sizeof(err), "workload %s: type '%s' has no run function in this agent",
			 name, type);
	else {
		const json_t *trace = json_object_get(job, "trace");
		struct ipb_collector *tc = NULL;

		fprintf(stdout, "ipibench: workload %s (%s) start\n", name, type);
		fflush(stdout);
		if (trace && !(tc = trace_start(ctx, name, trace, res, err, sizeof(err))))
			goto done;
		unsigned long runs0 = ctx->bench_runs;

		ctx->workload = name;
		ctx->workload_chunks = 0;
		ctx->beat_ms = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ops->run(ctx, checked, res, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ctx->workload = NULL;
		json_object_set_new(res, IPB_KEY(WL_BENCH_RUNS), json_integer((json_int_t)(ctx->bench_runs - runs0)));
		if (tc)
			trace_stop(tc, res, err[0] ? (char[256]){ 0 } : err, sizeof(err));
		json_object_set_new(res, IPB_KEY(WL_WALL_NS),
			json_integer((t1.tv_sec - t0.tv_sec) * 1000000000LL +
				     (t1.tv_nsec - t0.tv_nsec)));
	}
done:
	json_object_set_new(res, IPB_KEY(WL_STATUS), json_string(err[0] ? "failed" : "ok"));
	if (err[0]) {
		json_object_set_new(res, IPB_KEY(WL_ERROR), sio_json_str(err));
		fprintf(stdout, "ipibench: workload %s failed: %s\n", name ? name : "?", err);
	} else {
		fprintf(stdout, "ipibench: workload %s done\n", name);
	}
	fflush(stdout);
	json_decref(checked);
	return res;
}

int main(int argc, char **argv)
{
	const char *jobfile = NULL;
	struct agent_ctx ctx = { .outdir = "." };
	bool verbose = false;
	const struct opt opts[] = {
		OPT_STRING('j', "job", &jobfile, "FILE",
			   "JSON job: {\"workloads\": [{\"name\", \"type\", \"params\"}...]}"),
		OPT_STRING('o', "output", &ctx.outdir, "DIR",
			   "where agent.json (and traces) are written (default .)"),
		OPT_ALIAS(0, "out", &ctx.outdir, "DIR"),
		OPT_CALLBACK_NOARG('l', "list", NULL, "list the workload types this agent can run",
				   opt_list),
		OPT_BOOLEAN('v', "verbose", &verbose, "say more on stderr"),
		OPT_END(),
	};
	const struct opts_cmd cmd = { .name = "ipibench-agent", .opts = opts, .usage = usage,
				      .syn = &synopsis };
	json_t *job = NULL, *out, *results;
	char err[256] = "", **rest;
	int nrest, rc = 0;

	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	rc = 0;
	ctx.verbose = verbose;
	if (nrest) {
		fprintf(stderr, "ipibench-agent: unexpected argument '%s'\n", rest[0]);
		return 2;
	}
	if (jobfile) {
		job = sio_load_json(jobfile, SIO_MAX_JSON, err, sizeof(err));
		if (!job) {
			fprintf(stderr, "ipibench-agent: %s\n", err);
			return 2;
		}
	}

	out = json_object();
	json_object_set_new(out, "agent_version", json_string(AGENT_VERSION));
	ctx.xch = xc_interface_open(NULL, NULL, 0);
	if (!ctx.xch) {
		fprintf(stderr, "ipibench-agent: xc_interface_open: %s\n", strerror(errno));
		json_object_set_new(out, "error", json_string("cannot open libxenctrl"));
		rc = 1;
		goto write;
	}
	ctx.hv = &hvcall_xencall;
	ctx.hv_handle = ctx.hv->open();
	if (agent_info(&ctx, out, err, sizeof(err))) {
		fprintf(stderr, "ipibench-agent: %s\n", err);
		json_object_set_new(out, "error", sio_json_str(err));
		rc = 1;
		goto write;
	}
	/* The patched hypervisor's own view (genapic, APIC IDs, clusters,
	 * shorthand eligibility, TSC); an unpatched one says why not. */
	{
		json_t *hv = NULL;
		char hverr[256] = "";

		if (hvbench_query(&ctx, &hv, hverr, sizeof(hverr)) == 0 && hv) {
			json_object_set_new(out, "hv", hv);
			if (json_object_get(hv, "genapic"))
				json_object_set(out, "genapic", json_object_get(hv, "genapic"));
		} else {
			/* One line, before any workload fails with it. */
			printf("ipibench: %s\n", hverr);
			json_object_set_new(out, "hv_error", sio_json_str(hverr));
		}
	}
	printf("ipibench: xen %s, %u CPUs, genapic %s\n",
	       json_string_value(json_object_get(json_object_get(out, "xen"), "version")),
	       ctx.nr_cpus,
	       json_string_value(json_object_get(out, "genapic")) ?: "?");
	fflush(stdout);

	results = json_array();
	json_object_set_new(out, "workloads", results);
	json_t *wls = job ? json_object_get(job, "workloads") : NULL;
	for (size_t i = 0; i < json_array_size(wls); i++) {
		json_t *r = run_workload(&ctx, json_array_get(wls, i), i);
		json_array_append_new(results, r);
		/* Keep what is done safe before the next workload runs. */
		if (write_json_atomic(ctx.outdir, "agent.json", out))
			rc = 1;
	}
write:
	if (write_json_atomic(ctx.outdir, "agent.json", out))
		rc = 1;
	if (ctx.hv_handle)
		ctx.hv->close(ctx.hv_handle);
	if (ctx.xch)
		xc_interface_close(ctx.xch);
	json_decref(out);
	json_decref(job);
	return rc;
}
