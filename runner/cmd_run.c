/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench run: the mode x repetition matrix of a config, one boot per
 * run with every workload inside it, each result kept as soon as it exists.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipibench/counters.h"
#include "runner/backend.h"
#include "runner/config.h"
#include "runner/guest.h"
#include "runner/hostopts.h"
#include "runner/needs.h"
#include "runner/hostcheck.h"
#include "runner/results.h"
#include "runner/stall.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "runner/verdict.h"
#include "runner/xenbuild.h"
#include "lib/opts.h"
#include "lib/safeio.h"
#include "workloads/check.h"

const struct opts_synopsis run_synopsis = {
	"ipibench run", "run a config's build x mode x repetition matrix and keep the results",
	"-c CONFIG [-o DIR] [--xen BUILD] [-q]\n--resume DIR [-q]\n-c CONFIG --needs\n--list", 1,
};

static void usage(FILE *f, const struct opts_cmd *cmd)
{
	opts_usage_lines(f, &run_synopsis);
	fputs(
"\n"
"Boot the config's host in each x2APIC mode of [matrix] (repetitions in the\n"
"given order), check the driver the hypervisor reports, run every\n"
"[workload:NAME] in that one boot and keep the results in DIR/results.json\n"
"(rewritten atomically after each run).  A run that was stopped, killed or\n"
"failed is finished by --resume, without redoing the completed runs.\n"
"--needs prints the make targets of the source tree that build what CONFIG\n"
"needs here (make bench builds them), or refuses in one line naming the host\n"
"it needs (exit status 2).\n"
"\n", f);
	opts_help(f, cmd->opts);
}

static void list_types(void)
{
	printf("[host] keys of every backend:\n");
	host_settings_help(stdout, host_common_settings);
	printf("    %-12s the profiles:\n", "");
	for (const struct topo_profile *p = topo_profiles; p->name; p++)
		printf("    %-12s   %s: %u CPUs, %s\n", "", p->name, p->cpus, p->about);
	for (size_t i = 0; host_backends[i]; i++) {
		printf("backend %s: %s\n", host_backends[i]->name, host_backends[i]->help);
		host_settings_help(stdout, host_backends[i]->settings);
	}
	printf("[guest] keys (optional; backend = local: guest runs through xl on this\n"
	       "host instead of the boots, one per IPI path (or, for an HVM guest with a\n"
	       "NIC, per MSI path) and repetition; runner/guest.h):\n");
	config_guest_help(stdout);
	printf("workload types ([workload:NAME] type = TYPE):\n");
	for (size_t i = 0; wl_types[i]; i++) {
		const struct wl_type *t = wl_types[i];

		printf("%s: %s\n", t->type, t->help);
		for (const struct key *p = t->params; p->key; p++)
			printf("    %-12s %s (default %s)\n", p->key, p->help,
			       p->def && *p->def ? p->def : p->def ? "empty" : "required");
	}
}

static void fmt_dur(char *buf, size_t len, double s)
{
	if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

/* Host metadata from the first boot that reached the agent. */
static void fill_host(json_t *host, const struct config *c, const struct host_opts *o,
		      const struct host_backend_ops *be, const struct host_result *hr,
		      const json_t *agent)
{
	char buf[256];
	const json_t *phys = json_object_get(agent, "physinfo");
	const json_t *hv = json_object_get(agent, "hv");

	json_object_set_new(host, IPB_KEY(HOST_BACKEND), json_string(c->host.backend));
	json_object_set_new(host, IPB_KEY(HOST_NAME), json_string(c->host.name));
	json_object_set_new(host, IPB_KEY(HOST_EMULATED), json_boolean(be->flags & HB_EMULATED));
	/*
	 * The settings a backend records (qemu's tcg_threading: what an
	 * emulated time is made of depends on it, docs/statistics.md), each key in
	 * every results.json, null where the backend has no such setting.
	 */
	for (size_t i = 0; host_backends[i]; i++)
		for (const struct key *s = host_backends[i]->settings; s && s->key; s++)
			if (s->record)
				json_object_set_new(host, s->record, host_backends[i] == be ?
					(s->type == KEY_BOOL ?
					 json_boolean(!strcmp(keys_text(s, o->settings, buf,
										sizeof(buf)), "true")) :
					 json_string(keys_text(s, o->settings, buf, sizeof(buf)))) :
					json_null());
	json_object_set_new(host, IPB_KEY(HOST_CPUS), json_integer(c->host.cpus));
	json_object_set_new(host, IPB_KEY(HOST_MAXCPUS), json_integer(c->host.maxcpus));
	/* The CPU topology the host was given (null: QEMU's dense default or
	 * a real machine's own); the layout it gave is each run's "layout". */
	if (c->host.has_topo) {
		topo_format(&c->host.topo, buf, sizeof(buf));
		json_object_set_new(host, IPB_KEY(HOST_TOPOLOGY), json_string(buf));
	} else {
		json_object_set_new(host, IPB_KEY(HOST_TOPOLOGY), json_null());
	}
	json_object_set_new(host, IPB_KEY(HOST_PROFILE),
			    c->host.profile[0] ? json_string(c->host.profile) : json_null());
	if (json_object_get(agent, "cpu_model"))
		json_object_set(host, IPB_KEY(HOST_CPU_MODEL), json_object_get(agent, "cpu_model"));
	/* The build this set ran on (its build-info; the agent's word if none). */
	const struct xen_build *xb = c->matrix.build;
	json_object_set_new(host, IPB_KEY(HOST_XEN_VERSION),
		json_string(xb->version[0] ? xb->version :
			json_string_value(json_object_get(json_object_get(agent, "xen"), "version"))));
	json_object_set_new(host, "xen_source", json_string(xb->source));
	json_object_set_new(host, IPB_KEY(HOST_XEN_BUILD), json_string(xb->label));
	json_object_set_new(host, "series", json_string(xb->series));
	json_object_set_new(host, "series_hash", json_string(xb->series_hash));
	json_object_set_new(host, "xen_fixes", json_string(xb->fixes));
	json_object_set_new(host, "xen_cmdline", json_string(hr->xen_cmdline));
	if (be->describe) {
		be->describe(o, buf, sizeof(buf));
		json_object_set_new(host, be->describe_key ? be->describe_key : "description",
				    json_string(buf));
	} else {
		json_object_set_new(host, "qemu_version", json_null());
	}
	json_int_t khz = json_integer_value(json_object_get(hv, "tsc_khz"));
	if (!khz)
		khz = json_integer_value(json_object_get(phys, "cpu_khz"));
	json_object_set_new(host, IPB_KEY(HOST_TSC_KHZ), json_integer(khz));
	json_object_set(host, "physinfo", (json_t *)phys);
}

/* Move DIR/runs/ID/NAME.xtrace to DIR/traces/ID-NAME.xtrace and point at it. */
static void adopt_traces(const char *dir, const char *id, json_t *workloads)
{
	json_t *w;
	size_t i;

	json_array_foreach(workloads, i, w) {
		const char *t = json_string_value(json_object_get(w, IPB_KEY(WL_TRACE)));
		char from[PATH_MAX], to[PATH_MAX], rel[512];

		if (!sio_name_ok(t))   /* the agent names a file in its own directory */
			continue;
		snprintf(from, sizeof(from), "%s/runs/%s/%s", dir, id, t);
		snprintf(rel, sizeof(rel), "traces/%s-%s", id, t);
		snprintf(to, sizeof(to), "%s/%s", dir, rel);
		if (!rename(from, to))
			json_object_set_new(w, IPB_KEY(WL_TRACE), json_string(rel));
	}
}

/* Whether the backend runs QEMU's TCG single-threaded (its "tcg" key). */
static bool tcg_is_single(const struct host_backend_ops *be, const void *settings)
{
	const struct key *s = keys_find(be->settings, "tcg");
	char buf[16];

	return s && settings && !strcmp(keys_text(s, settings, buf, sizeof(buf)), "single");
}

/*
 * The layout check of RUN: against the topology when there is one, against
 * QEMU's dense default on an emulated host without, else against the
 * hypervisor's own IDs.  WHY gets the first mismatch.
 */
static void check_layout(json_t *run, const struct config *c, const struct host_backend_ops *be,
			 char *why, size_t len)
{
	static struct layout expect;
	const struct layout *ex = NULL;
	char t[96], e[256];
	int rc = 0;

	if (c->host.has_topo) {
		topo_format(&c->host.topo, t, sizeof(t));
		rc = layout_from_topo(&expect, &c->host.topo, c->host.cpus, e, sizeof(e));
	} else if (be->flags & HB_EMULATED) {
		rc = layout_dense(&expect, c->host.cpus, c->host.maxcpus, e, sizeof(e));
	} else {
		rc = 1;
	}
	if (rc < 0) {
		snprintf(why, len, "layout: %s", e);
		return;
	}
	if (!rc)
		ex = &expect;
	if (layout_check_run(run, ex, c->host.has_topo ? t : NULL, why, len) == 0)
		why[0] = '\0';
}

struct layout_ctx {
	json_t *run;
	const struct config *c;
	const struct host_backend_ops *be;
};

static void layout_cb(void *ctx, char *why, size_t len)
{
	const struct layout_ctx *l = ctx;

	check_layout(l->run, l->c, l->be, why, len);
}

/* A config path on this host, absolute (xl is given it): 0, or -1 said. */
static int host_path(const char *key, const char *p, char *out)
{
	if (!realpath(p, out)) {
		fprintf(stderr, "ipibench run: [guest] %s = %s: %s\n", key, p, strerror(errno));
		return -1;
	}
	return 0;
}

/* An HVM NIC run's load (guest_runs[].load, docs/results-schema.md). */
static json_t *load_json(const struct config *c, const struct guest_result *gr)
{
	const struct guest_load *l = &gr->load;
	json_t *load = json_object(), *ping = json_object(), *ab = json_object();

	json_object_set_new(load, "bridge", json_string(CFG_GUEST_BRIDGE));
	json_object_set_new(load, "bridge_was", gr->bridge ? json_string(gr->bridge) : json_null());
	json_object_set_new(load, "dom0_address", json_string(c->guest.dom0_address));
	json_object_set_new(load, "guest_address", json_string(c->guest.nic_address));
	json_object_set_new(ping, "w_secs", json_integer(c->guest.ping_secs));
	if (l->ping_log[0])
		json_object_set_new(ping, "log", json_string(l->ping_log));
	if (l->have_ping) {
		json_object_set_new(ping, "transmitted", json_integer((json_int_t)l->ping_tx));
		json_object_set_new(ping, "received", json_integer((json_int_t)l->ping_rx));
		json_object_set_new(ping, "loss_pct", json_real(l->ping_loss));
	}
	if (l->have_rtt)
		json_object_set_new(ping, "rtt_ms", json_pack("{s:f, s:f, s:f, s:f}", "min", l->rtt_min,
							      "avg", l->rtt_avg, "max", l->rtt_max,
							      "mdev", l->rtt_mdev));
	json_object_set_new(ab, "t_secs", json_integer(c->guest.ab_secs));
	json_object_set_new(ab, "concurrency", json_integer(1));
	if (l->ab_log[0])
		json_object_set_new(ab, "log", json_string(l->ab_log));
	if (l->have_ab) {
		json_object_set_new(ab, "complete", json_integer((json_int_t)l->ab_complete));
		json_object_set_new(ab, "failed", json_integer((json_int_t)l->ab_failed));
		json_object_set_new(ab, "requests_per_s", json_real(l->ab_rps));
	}
	json_object_set_new(load, "ping", ping);
	json_object_set_new(load, "ab", ab);
	return load;
}

/* What guest_run() left, into the guest run G of results.json. */
static void fill_guest_run(json_t *g, const struct results *res, const struct config *c,
			   const char *domain, const struct guest_result *gr)
{
	char m[16], path[PATH_MAX + 300], *text = NULL;
	size_t len;
	json_t *traces = json_object(), *masks = json_object(), *counts = NULL;

	json_object_set_new(g, "domain", json_string(domain));
	json_object_set_new(g, "outcome", json_string(guest_outcome_name(gr->outcome)));
	if (gr->xl_cfg[0])
		json_object_set_new(g, "xl_config", json_string(gr->xl_cfg));
	if (gr->xl_dmesg[0])
		json_object_set_new(g, "xl_dmesg", json_string(gr->xl_dmesg));
	else
		json_object_del(g, "xl_dmesg");   /* a resumed run's old one */
	if (gr->dm_log[0])
		json_object_set_new(g, "dm_log", json_string(gr->dm_log));
	else
		json_object_del(g, "dm_log");
	if (gr->console[0]) {
		json_object_set_new(g, "console", json_string(gr->console));
		snprintf(path, sizeof(path), "%s/%s", res->dir, gr->console);
		if (!sio_read_file(path, 16u << 20, &text, &len, NULL, 0)) {
			counts = guest_console_counts(text);
			free(text);
		}
	}
	json_object_set_new(g, "counts", counts ? counts : json_object());
	if (gr->trace_hvm[0])
		json_object_set_new(traces, "hvm", json_string(gr->trace_hvm));
	if (gr->trace_sched[0])
		json_object_set_new(traces, "hvm_sched", json_string(gr->trace_sched));
	json_object_set_new(g, "traces", traces);
	snprintf(m, sizeof(m), "0x%08lx", c->guest.trace_mask);
	json_object_set_new(masks, "hvm", json_string(m));
	snprintf(m, sizeof(m), "0x%08lx", GUEST_SCHED_MASK);
	json_object_set_new(masks, "hvm_sched", json_string(m));
	json_object_set_new(g, "trace_masks", masks);
	json_object_set_new(g, "trace_secs", json_integer(c->guest.trace_secs));
	/* Seconds from xl create; null: not reached. */
	json_object_set_new(g, "start_s", gr->t_start >= 0 ? json_real(gr->t_start) : json_null());
	json_object_set_new(g, "done_s", gr->t_done >= 0 ? json_real(gr->t_done) : json_null());
	json_object_set_new(g, "gone_s", gr->t_gone >= 0 ? json_real(gr->t_gone) : json_null());
	json_object_set_new(g, "destroyed", json_boolean(gr->destroyed));
	json_object_set_new(g, "gone", json_boolean(gr->gone));
	if (gr->end)
		json_object_set_new(g, "end", json_string(gr->end));
	else
		json_object_del(g, "end");
	if (gr->end_reason[0])
		json_object_set_new(g, "end_reason", json_string(gr->end_reason));
	else
		json_object_del(g, "end_reason");
	json_object_del(g, "load");
	if (cfg_guest_nic_runs(&c->guest))
		json_object_set_new(g, "load", load_json(c, gr));
}

/* At most this much of /proc/cpuinfo (what dom0 is told of the CPU). */
#define CPUINFO_MAX (1u << 20)

/*
 * The guest runs of a [guest] config (runner/guest.h), on the host this
 * runs on; a caught signal is saved, then re-raised.
 */
static int do_guests(struct results *res, const struct config *c)
{
	json_t *runs = results_guest_runs(res), *g;
	size_t i, total = json_array_size(runs), todo = 0, done = 0;
	char kernel[PATH_MAX], ramdisk[PATH_MAX], err[512], el[32];
	double t_start = now_s();
	int failures = 0;

	if (host_path("kernel", c->guest.kernel, kernel) ||
	    host_path("ramdisk", c->guest.ramdisk, ramdisk))
		return 2;
	json_array_foreach(runs, i, g)
		if (strcmp(json_string_value(json_object_get(g, "status")), "ok"))
			todo++;
	json_object_set_new(json_object_get(res->root, "host"), "backend", json_string(c->host.backend));
	json_object_set_new(json_object_get(res->root, "host"), "name", json_string(c->host.name));
	fprintf(stderr, "ipibench run: %zu guest runs (%zu to do) through xl, results in %s/results.json\n",
		total, todo, res->dir);
	json_array_foreach(runs, i, g) {
		const char *id = json_string_value(json_object_get(g, "id"));
		const char *path = json_string_value(json_object_get(g, "ipi_path"));
		struct cfg_guest cg = c->guest;
		struct guest_result gr;
		char now[32], domain[96], why[600] = "";

		if (!strcmp(json_string_value(json_object_get(g, "status")), "ok"))
			continue;
		const char *msi = json_string_value(json_object_get(g, "msi_path"));
		int nic = cfg_guest_nic_runs(&cg);

		cg.ipi_path = strcmp(path, cfg_ipi_path_name(IPI_PATH_APIC)) ? IPI_PATH_EVTCHN :
			IPI_PATH_APIC;
		if (nic)
			cg.msi_path = msi && !strcmp(msi, cfg_msi_path_name(MSI_PATH_APIC)) ?
				MSI_PATH_APIC : MSI_PATH_PIRQ;
		snprintf(domain, sizeof(domain), "ipibench-%s", id);
		struct guest_spec gs = {
			.g = &cg, .name = domain, .kernel = kernel, .ramdisk = ramdisk,
			.dir = res->dir, .id = id, .timeout_ms = cg.timeout * 1000u,
			.settle_ms = 2000, .poweroff_ms = 60000, .xl_ms = 60000,
			.trace_slack_ms = 60000, .ping_wait_ms = 120000,
		};
		fmt_dur(el, sizeof(el), now_s() - t_start);
		if (nic)
			fprintf(stderr, "[%zu/%zu] %s: a %u-vCPU HVM guest with an emulated %s, MSIs by %s "
				"(elapsed %s)\n", done + 1, todo, id, cg.vcpus, cg.nic,
				cfg_msi_path_name(cg.msi_path), el);
		else
			fprintf(stderr, "[%zu/%zu] %s: a %u-vCPU %s guest, IPIs by %s (elapsed %s)\n",
				done + 1, todo, id, cg.vcpus, cfg_guest_type_name(cg.type), path, el);
		iso_now(now, sizeof(now));
		json_object_set_new(g, "status", json_string("running"));
		json_object_set_new(g, "started", json_string(now));
		json_object_del(g, "error");
		if (results_save(res, err, sizeof(err))) {
			fprintf(stderr, "ipibench run: %s\n", err);
			return 1;
		}
		int rc = guest_run(&gs, &gr);

		fill_guest_run(g, res, c, domain, &gr);
		if (rc) {
			snprintf(why, sizeof(why), "%s", gr.error);
		} else {
			const json_t *ct = json_object_get(g, "counts");

			if (!json_is_true(json_object_get(ct, "done")) ||
			    (!nic && !json_object_get(ct, "ipis_sent")))
				snprintf(why, sizeof(why), "%s: the workload printed %s", gr.console,
					 nic ? "no IPB-GUEST-DONE" : "no IPI count");
			else if (nic && !(gr.load.have_ping && gr.load.have_ab))
				snprintf(why, sizeof(why), "the NIC load has no ping or ab summary");
			else if (json_integer_value(json_object_get(ct, "workload_rc")) ||
				 !json_object_get(ct, "workload_rc"))
				snprintf(why, sizeof(why), "%s: the workload's IPB-GUEST-STOP is "
					 "missing or not rc=0", gr.console);
		}
		iso_now(now, sizeof(now));
		json_object_set_new(g, "status", json_string(why[0] ? "failed" : "ok"));
		json_object_set_new(g, "finished", json_string(now));
		if (why[0]) {
			json_object_set_new(g, "error", json_string(why));
			failures++;
		}
		if (results_save(res, err, sizeof(err))) {
			fprintf(stderr, "ipibench run: %s\n", err);
			return 1;
		}
		done++;
		fprintf(stderr, "[%zu/%zu] %s: %s%s%s\n", done, todo, id, why[0] ? "failed" : "ok",
			why[0] ? ": " : "", why);
		if (gr.outcome == GO_INTERRUPTED && gr.signal) {
			fprintf(stderr, "ipibench run: stopped by signal %d; the guest is %s; "
				"'ipibench run --resume %s' finishes the set\n", gr.signal,
				gr.gone ? "gone" : "STILL THERE", res->dir);
			guest_reraise(gr.signal);
			return 1;
		}
	}
	fmt_dur(el, sizeof(el), now_s() - t_start);
	fprintf(stderr, "ipibench run: %zu of %zu guest runs ok in %s; %s/results.json\n",
		total - failures, total, el, res->dir);
	return failures ? 1 : 0;
}

static int do_run(struct results *res, const struct config *c, int quiet)
{
	const struct host_backend_ops *be = host_backend_find(c->host.backend);
	json_t *runs = results_runs(res), *run;
	size_t i, total = json_array_size(runs), todo = 0, done = 0;
	double t_start = now_s();
	char err[512], path[2 * PATH_MAX];
	int failures = 0, stalls = 0;

	if (c->guest.given)
		return do_guests(res, c);

	json_array_foreach(runs, i, run)
		if (strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok"))
			todo++;
	snprintf(path, sizeof(path), "%s/traces", res->dir);
	run_mkdirs(path);
	fprintf(stderr, "ipibench run: %zu runs (%zu to do) on %s, %u CPUs, results in %s/results.json\n",
		total, todo, be->name, c->host.cpus, res->dir);

	json_array_foreach(runs, i, run) {
		const char *id = json_string_value(json_object_get(run, "id"));
		const char *mode = json_string_value(json_object_get(run, "mode"));
		struct host_opts o;
		struct host_result hr;
		char wd[PATH_MAX + 1100], now[32], eta[32] = "?", el[32];

		if (!strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok"))
			continue;
		fmt_dur(el, sizeof(el), now_s() - t_start);
		if (done)
			fmt_dur(eta, sizeof(eta), (now_s() - t_start) / done * (todo - done));
		fprintf(stderr, "[%zu/%zu] %s: %s mode on the %s host (elapsed %s, ETA %s)\n",
			done + 1, todo, id, mode, be->name, el, eta);

		snprintf(wd, sizeof(wd), "%s/runs/%s", res->dir, id);
		run_mkdirs(wd);
		snprintf(path, sizeof(path), "%s/job.json", wd);
		json_t *job = config_job(c, i);
		int wrc = sio_write_json(path, job, JSON_INDENT(1) | JSON_SORT_KEYS, err,
					 sizeof(err));
		json_decref(job);
		if (wrc) {
			fprintf(stderr, "ipibench run: %s\n", err);
			return 1;
		}
		host_opts_default(&o, c->host.cpus);
		o.mode = mode;
		o.maxcpus = c->host.maxcpus;
		o.topo = c->host.has_topo ? &c->host.topo : NULL;
		o.timeout_s = c->host.timeout ? c->host.timeout :
			host_default_timeout(c->host.cpus, tcg_is_single(be, c->host.settings));
		o.stall_s = c->host.stall;
		o.settings = c->host.settings;
		o.xen = c->matrix.build->path;
		o.workdir = realpath(wd, path) ? path : wd;
		o.quiet = quiet;

		iso_now(now, sizeof(now));
		json_object_set_new(run, IPB_KEY(RUN_STATUS), json_string("running"));
		json_object_set_new(run, IPB_KEY(RUN_STARTED), json_string(now));
		json_object_del(run, IPB_KEY(RUN_ERROR));
		json_object_del(run, IPB_KEY(RUN_STALL));
		if (results_save(res, err, sizeof(err))) {
			fprintf(stderr, "ipibench run: %s\n", err);
			return 1;
		}

		int rc = be->run(&o, &hr);
		json_t *agent = NULL;
		const char *status = "ok";
		char why[600] = "";

		if (rc && hr.stalled) {
			snprintf(why, sizeof(why), "stalled: no console output for %u s in %s (dom0 up "
				 "at %.0f s); evidence in runs/%s/" STALL_DIR, o.stall_s, hr.stall_phase,
				 hr.t_dom0, id);
		} else if (rc) {
			snprintf(why, sizeof(why), "%s", hr.error);
		} else {
			snprintf(path, sizeof(path), "%s/agent.json", wd);
			agent = sio_load_json(path, SIO_MAX_JSON, why, sizeof(why));
		}
		if (agent) {
			/* The mode the hypervisor reports, not the one we asked for. */
			const char *g = json_string_value(json_object_get(json_object_get(agent, "hv"), "genapic"));
			if (!g)
				g = json_string_value(json_object_get(agent, "genapic"));
			json_object_set_new(run, IPB_KEY(RUN_GENAPIC), json_string(g ? g : ""));
			json_t *wls = json_object_get(agent, "workloads");
			adopt_traces(res->dir, id, wls);
			json_object_set(run, IPB_KEY(RUN_WORKLOADS), wls ? wls : json_array());
			if (json_object_get(agent, "hv"))
				json_object_set(run, IPB_KEY(RUN_HV), json_object_get(agent, "hv"));
			/* Each boot's own: a reboot host can change between boots
			 * (microcode, a pinned C-state), and the report flags a
			 * comparison across a change (agent/hoststate.h). */
			if (json_object_get(agent, "host_state"))
				json_object_set(run, IPB_KEY(RUN_HOST_STATE), json_object_get(agent, "host_state"));
			/* The driver, the layout's ICR writes against the measured
			 * ones (workloads/check.h), the agent's and the workloads'
			 * errors: the first that fails the run (runner/verdict.h). */
			struct layout_ctx lc = { run, c, be };
			run_verdict(agent, mode, layout_cb, &lc, why, sizeof(why));
			if (!json_object_size(json_object_get(res->root, IPB_KEY(HOST))) || !why[0])
				fill_host(json_object_get(res->root, IPB_KEY(HOST)), c, &o, be, &hr, agent);
			json_decref(agent);
		}
		if (hr.stall_reason[0]) {
			/* A run that stopped progressing names its evidence. */
			char ev[300];

			snprintf(ev, sizeof(ev), "runs/%s/" STALL_DIR, id);
			json_object_set_new(run, IPB_KEY(RUN_STALL), json_pack("{s:s, s:f, s:i, s:s, s:s}",
				"reason", hr.stall_reason, "after_s", hr.stall_after_s,
				"window_s", (int)o.stall_s, "phase", hr.stall_phase, IPB_KEY(STALL_EVIDENCE), ev));
		}
		if (why[0] && rc && hr.stalled) {
			status = "stalled";
			stalls++;
			json_object_set_new(run, IPB_KEY(RUN_ERROR), json_string(why));
		} else if (why[0]) {
			status = "failed";
			failures++;
			json_object_set_new(run, IPB_KEY(RUN_ERROR), json_string(why));
		}
		iso_now(now, sizeof(now));
		json_object_set_new(run, IPB_KEY(RUN_STATUS), json_string(status));
		json_object_set_new(run, IPB_KEY(RUN_FINISHED), json_string(now));
		json_object_set_new(run, IPB_KEY(RUN_BOOT_S), json_real(hr.t_dom0));
		json_object_set_new(run, IPB_KEY(RUN_WALL_S), json_real(hr.t_done));
		if (results_save(res, err, sizeof(err))) {
			fprintf(stderr, "ipibench run: %s\n", err);
			return 1;
		}
		done++;
		/* A stalled run's line starts with the word itself. */
		bool st = !strcmp(status, "stalled");
		fprintf(stderr, "[%zu/%zu] %s: %s%s%s\n", done, todo, id, st ? "" : status,
			why[0] && !st ? ": " : "", why);
	}
	fmt_dur(path, sizeof(path), now_s() - t_start);
	fprintf(stderr, "ipibench run: %zu of %zu runs ok, %d stalled in %s; %s/results.json\n",
		total - failures - stalls, total, stalls, path, res->dir);
	return failures || stalls ? 1 : 0;
}

/* One result set in DIR: created, or reopened when resuming. */
static int run_set(const char *dir, const char *cfgfile, const struct config *c, int quiet,
		   json_t *preflight)
{
	struct results res;
	char err[512], path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (!access(path, F_OK) ? results_open(&res, dir, err, sizeof(err)) :
	    results_create(&res, dir, cfgfile, c, err, sizeof(err))) {
		fprintf(stderr, "ipibench run: %s\n", err);
		return 2;
	}
	/* What the preflight found on this host (hostcheck.h), before the first run. */
	if (preflight)
		json_object_set(json_object_get(res.root, "host"), "preflight", preflight);
	/* A set is of one build: a resume on another is refused. */
	const char *had = json_string_value(json_object_get(json_object_get(res.root, "host"),
							    "xen_build"));
	if (had && strcmp(had, c->matrix.build->label)) {
		fprintf(stderr, "ipibench run: %s/results.json: $.host.xen_build: its runs are of "
			"build %s, not %s (resume with --xen %s)\n", dir, had,
			c->matrix.build->label, had);
		results_close(&res);
		return 2;
	}
	rc = do_run(&res, c, quiet);
	results_close(&res);
	return rc;
}

/* The result set SUB of a sweep or a build axis, if it is there, checked
 * before the first boot: 0, or -1 said. */
static int check_set(const char *sub)
{
	char path[PATH_MAX + 16], err[512];
	struct results res;

	snprintf(path, sizeof(path), "%s/results.json", sub);
	if (access(path, F_OK))
		return 0;
	if (results_open(&res, sub, err, sizeof(err))) {
		fprintf(stderr, "ipibench run: %s\n", err);
		return -1;
	}
	results_close(&res);
	return 0;
}

/*
 * A sweep ([matrix] cpus = 8, 16, ...) is one result set per CPU count in
 * DIR/cN/, each with as many hotplug CPUs as [host] gives (maxcpus - cpus).
 */
static int run_sweep(const char *dir, const char *cfgfile, struct config *c, int quiet)
{
	unsigned int extra = c->host.maxcpus - c->host.cpus;
	char sub[PATH_MAX];
	int rc = 0;

	/* Every result set already there is checked before the first boot. */
	for (unsigned int i = 0; i < c->matrix.ncpus; i++)
		if (snprintf(sub, sizeof(sub), "%s/c%u", dir, c->matrix.cpus[i]) >= (int)sizeof(sub) ||
		    check_set(sub))
			return 2;
	for (unsigned int i = 0; i < c->matrix.ncpus; i++) {
		c->host.cpus = c->matrix.cpus[i];
		/* A topology's slots stay maxcpus (config.c checked the counts). */
		if (!c->host.has_topo)
			c->host.maxcpus = c->host.cpus + extra;
		if (snprintf(sub, sizeof(sub), "%s/c%u", dir, c->host.cpus) >= (int)sizeof(sub))
			return 2;
		fprintf(stderr, "ipibench run: sweep %u/%u: %u CPUs in %s\n", i + 1,
			c->matrix.ncpus, c->host.cpus, sub);
		int r = run_set(sub, cfgfile, c, quiet, NULL);
		if (r > rc)
			rc = r;
	}
	return rc;
}

/*
 * Several builds ([matrix] xen = A, B): one result set per build in
 * DIR/xen-LABEL/, each with that build's modes when the config names none.
 * The sets run one after the other (every run of A, then of B): compare
 * them with repetitions >= 2, so that the boot is the unit.
 */
static int run_builds(const char *dir, const char *cfgfile, struct config *c, int quiet)
{
	char sub[PATH_MAX];
	int rc = 0;

	for (unsigned int i = 0; i < c->matrix.nxen; i++)
		if (snprintf(sub, sizeof(sub), "%s/xen-%s", dir, c->matrix.xen[i].label) >=
		    (int)sizeof(sub) || check_set(sub))
			return 2;
	for (unsigned int i = 0; i < c->matrix.nxen; i++) {
		config_use_build(c, i);
		if (snprintf(sub, sizeof(sub), "%s/xen-%s", dir, c->matrix.xen[i].label) >= (int)sizeof(sub))
			return 2;
		fprintf(stderr, "ipibench run: build %u/%u: %s (Xen %s, modes %s%s%s) in %s\n", i + 1,
			c->matrix.nxen, c->matrix.xen[i].path,
			c->matrix.xen[i].version[0] ? c->matrix.xen[i].version : "of unknown version",
			c->matrix.modes[0], c->matrix.nmodes > 1 ? ", " : "",
			c->matrix.nmodes > 2 ? "..." : c->matrix.nmodes > 1 ? c->matrix.modes[1] : "", sub);
		int r = run_set(sub, cfgfile, c, quiet, NULL);
		if (r > rc)
			rc = r;
	}
	return rc;
}

/* The build of the result set DIR of a several-build config (DIR/../xen-LABEL). */
static int build_of_set(struct config *c, const char *dir)
{
	const char *base = strrchr(dir, '/');

	base = base ? base + 1 : dir;
	for (unsigned int i = 0; i < c->matrix.nxen; i++)
		if (!strncmp(base, "xen-", 4) && !strcmp(base + 4, c->matrix.xen[i].label)) {
			config_use_build(c, i);
			return 0;
		}
	return -1;
}

static int opt_list(const struct opt *o, const char *arg)
{
	(void)o, (void)arg;
	list_types();
	return OPTS_STOP;
}

/* --list-keys=man|md: ipibench.ini(5) or docs/configs.md (hidden). */
static int opt_list_keys(const struct opt *o, const char *arg)
{
	(void)o;
	if (opts_fmt(arg) < 0) {
		fprintf(stderr, "ipibench run: --list-keys=man or =md, not '%s'\n", arg);
		return 2;
	}
	return config_doc(stdout, opts_fmt(arg)) ? 1 : OPTS_STOP;
}

int cmd_run(int argc, char **argv)
{
	const char *cfgfile = NULL, *out = NULL, *resume = NULL, *xen = NULL;
	bool quiet = false, needs = false;
	const struct opt opts[] = {
		OPT_STRING('c', "config", &cfgfile, "CONFIG",
			   "the config (INI; ipibench.ini(5), configs/)"),
		OPT_STRING('o', "output", &out, "DIR", "results directory (default results/runs/NAME-DATE)"),
		OPT_ALIAS(0, "out", &out, "DIR"),
		OPT_STRING(0, "resume", &resume, "DIR", "finish the pending and failed runs of DIR"),
		OPT_STRING(0, "xen", &xen, "BUILD",
			   "run on this hypervisor build instead of [matrix] xen:\n"
			   "a version name (4.17: build/xen-4.17/xen) or a path"),
		OPT_CALLBACK_NOARG(0, "list", NULL,
				   "list the [host] keys of each backend and the workload\n"
				   "types with their parameters", opt_list),
		{ 0, "list-keys", OPT_T_CALLBACK, NULL, "man|md", "", opt_list_keys, OPT_HIDDEN },
		OPT_BOOLEAN('q', "quiet", &quiet, "only one line per run"),
		OPT_BOOLEAN(0, "needs", &needs, "print the make targets CONFIG needs built on this\n"
			    "machine, or refuse naming the host it needs; run nothing"),
		OPT_END(),
	};
	const struct opts_cmd cmd = { .name = "ipibench run", .opts = opts, .usage = usage,
				      .syn = &run_synopsis };
	struct config c;
	char err[512], dirbuf[PATH_MAX], cfgpath[PATH_MAX + 16], **rest;
	int nrest, rc;

	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	if (nrest || (!cfgfile == !resume) || (needs && (resume || out || xen))) {
		usage(stderr, &cmd);
		return 2;
	}
	if (resume) {
		/* The config the matrix was started with, as it was. */
		snprintf(cfgpath, sizeof(cfgpath), "%s/config.ini", resume);
		if (access(cfgpath, R_OK)) {
			fprintf(stderr, "ipibench run: %s: no config.ini: not an ipibench results directory\n",
				resume);
			return 2;
		}
		cfgfile = cfgpath;
		out = resume;
	}
	if (config_load(cfgfile, &c, err, sizeof(err))) {
		fprintf(stderr, "ipibench run: %s\n", err);
		return 2;
	}
	/* What a [guest] config is run with (runner/guest.h). */
	const char *gbad = !c.guest.given ? NULL :
		!(host_backend_find(c.host.backend)->flags & HB_RUNS_HERE) ?
		"the guests run through xl on the Xen host ipibench runs on: backend = local" :
		c.nwl ? "[workload:NAME]: not yet with [guest] (the guest runs its own workload, "
			RESULTS_GUEST_WORKLOAD ")" :
		c.matrix.ncpus ? "[matrix] cpus: not with [guest] (the host is the one this runs on)" :
		c.matrix.nxen > 1 || xen ? "[matrix] xen / --xen: not with [guest] (the host is the "
			"one this runs on)" : NULL;
	if (gbad) {
		fprintf(stderr, "ipibench run: %s: [guest]: %s\n", cfgfile, gbad);
		config_free(&c);
		return 2;
	}
	if (needs) {
		struct host_needs hn = { .xen_caps = NULL };

		rc = config_needs(&c, cfgfile, &hn, err, sizeof(err));
		if (rc)
			fprintf(stderr, "ipibench run: %s\n", err);
		else
			printf("%s\n", hn.targets);
		config_free(&c);
		return rc ? 2 : 0;
	}
	if (xen && config_set_xen(&c, xen, err, sizeof(err))) {
		fprintf(stderr, "ipibench run: %s\n", err);
		config_free(&c);
		return 2;
	}
	if (c.guest.given && c.guest.hap) {
		struct hc_facts *hf = malloc(sizeof(*hf));
		int refused = 1;

		if (!hf) {
			snprintf(err, sizeof(err), "out of memory");
		} else {
			/* What cannot be read leaves the model unknown; what is
			 * read is refused as host check refuses it. */
			hc_facts_init(hf);
			refused = hc_collect_cpuinfo(hf, NULL, CPUINFO_MAX, err, sizeof(err)) ||
				  guest_hap_refused(&c.guest, cfgfile, hf->cpu_model, err, sizeof(err));
		}
		free(hf);
		if (refused) {
			fprintf(stderr, "ipibench run: %s\n", err);
			config_free(&c);
			return 2;
		}
	}
	/*
	 * A real host (local, reboot): what it cannot serve is refused in one
	 * line before any run, its warnings said once and kept in results.json.
	 * Only when the matrix starts: a resume runs in a boot the matrix chose.
	 */
	json_t *preflight = NULL;
	if (!resume && !c.guest.given &&
	    (!strcmp(c.host.backend, "local") || !strcmp(c.host.backend, "reboot"))) {
		const struct hc_source src = { .root = getenv("IPIBENCH_HOST_ROOT") };
		char perr[1200];

		if (hc_preflight(&c, cfgfile, &src, &preflight, perr, sizeof(perr))) {
			fprintf(stderr, "ipibench run: %s\n", sio_shown((char[1300]){ 0 }, 1300, perr));
			config_free(&c);
			return 2;
		}
	}
	if (!out) {
		char now[32];
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(now, sizeof(now), "%Y%m%d-%H%M%S", &tm);
		snprintf(dirbuf, sizeof(dirbuf), "results/runs/%s-%s", c.host.name, now);
		out = dirbuf;
	}
	if (!resume && (c.matrix.ncpus || c.matrix.nxen > 1)) {
		/* The sweep's own config.ini makes `--resume DIR` work. */
		snprintf(cfgpath, sizeof(cfgpath), "%s/config.ini", out);
		if (!access(cfgpath, F_OK)) {
			fprintf(stderr, "ipibench run: %s exists: use 'ipibench run --resume %s'\n",
				cfgpath, out);
			rc = 2;
			goto done;
		}
		err[0] = '\0';
		if (run_mkdirs(out) || sio_write_file(cfgpath, c.text, c.textlen, 0644, err, sizeof(err))) {
			fprintf(stderr, "ipibench run: %s: %s\n", out, err[0] ? err : strerror(errno));
			rc = 2;
			goto done;
		}
	}
	snprintf(cfgpath, sizeof(cfgpath), "%s/results.json", out);
	if (c.matrix.nxen > 1 && !(resume && !access(cfgpath, F_OK))) {
		rc = run_builds(out, cfgfile, &c, quiet);
	} else if (c.matrix.nxen > 1 && build_of_set(&c, out)) {
		fprintf(stderr, "ipibench run: %s: not the folder of one of the config's builds "
			"(xen-LABEL)\n", out);
		rc = 2;
	} else if (c.matrix.ncpus && !(resume && !access(cfgpath, F_OK))) {
		rc = run_sweep(out, cfgfile, &c, quiet);
	} else if (c.matrix.nxen > 1) {
		rc = run_set(out, cfgfile, &c, quiet, preflight);
	} else {
		if (resume && c.matrix.ncpus) {
			/* One CPU count of a sweep: its own runs say which. */
			struct results r;
			json_t *r0;

			if (results_open(&r, out, err, sizeof(err))) {
				fprintf(stderr, "ipibench run: %s\n", err);
				rc = 2;
				goto done;
			}
			r0 = json_array_get(results_runs(&r), 0);
			if (!json_object_get(r0, "cpus") || !json_object_get(r0, "maxcpus")) {
				fprintf(stderr, "ipibench run: %s/results.json: $.runs[0]: no cpus and "
					"maxcpus, which a CPU count of a sweep needs\n", out);
				results_close(&r);
				rc = 2;
				goto done;
			}
			c.host.cpus = json_integer_value(json_object_get(r0, "cpus"));
			c.host.maxcpus = json_integer_value(json_object_get(r0, "maxcpus"));
			results_close(&r);
		}
		rc = run_set(out, cfgfile, &c, quiet, preflight);
	}
done:
	json_decref(preflight);
	config_free(&c);
	return rc;
}
