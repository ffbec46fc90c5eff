/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench boot: bring up the patched Xen in one x2APIC mode, let the agent
 * report what it sees, and check that Xen selected the requested driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipibench/counters.h"
#include "ipibench/modes.h"
#include "runner/backend.h"
#include "runner/backends/qemu.h"
#include "runner/hostopts.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "runner/xenbuild.h"
#include "workloads/workloads.h"
#include "lib/opts.h"
#include "lib/safeio.h"
#include "workloads/check.h"

/* The options that set one of the qemu backend's [host] keys, by its rules. */
static const struct { const char *opt, *key, *argh; } keyed[] = {
	{ "mem", "memory", "MIB" }, { "disk-mb", "disk_mb", "MIB" }, { "cmdline", "cmdline", "S" },
	{ "tcg", "tcg", "multi|single" }, { "dom0-cmdline", "dom0_cmdline", "S" },
};
#define NKEYED (sizeof(keyed) / sizeof(keyed[0]))

const struct opts_synopsis boot_synopsis = {
	"ipibench boot", "boot the patched Xen in one x2APIC mode and report what it selected",
	"--mode MODE [--cpus N] [-o DIR] [--job FILE] [options]", 1,
};

static void usage(FILE *f, const struct opts_cmd *cmd)
{
	char profiles[256];

	opts_usage_lines(f, &boot_synopsis);
	fprintf(f,
"\n"
"Boot the patched Xen under QEMU in one x2APIC destination mode, run the\n"
"dom0 agent (and a job, if given), and report the APIC driver Xen selected.\n"
"Exits non-zero when QEMU is missing, Xen panics, dom0 crashes, the driver\n"
"is not the one the mode asks for, or the timeout passes.  QEMU is always\n"
"stopped before ipibench exits.\n"
"\n"
"MODE is %s (x2apic-mode=MODE; default %s).\n"
"A --profile is one of %s.\n"
"\n"
"The options named after the qemu backend's [host] keys (--mem, --disk-mb,\n"
"--cmdline, --tcg, --dom0-cmdline) set them by the rules a config's are\n"
"checked by (TCG threading multi: a host thread per vCPU; single: one host\n"
"thread runs the vCPUs in turn), except that --cmdline may hold an x2APIC\n"
"option (x2apic=false for an xAPIC boot, say): boot then fails, saying\n"
"which driver Xen selected against --mode.\n"
"\n", mode_list(), ipibench_mode_name(IPIBENCH_MODE_DEFAULT),
		topo_profile_names(profiles, sizeof(profiles)));
	opts_help(f, cmd->opts);
}

/* The help line of the option KEYED[I].opt: its [host] key's rule. */
static const char *keyed_help(const char *opt)
{
	static char help[NKEYED][512];

	for (size_t i = 0; i < NKEYED; i++)
		if (!strcmp(keyed[i].opt, opt)) {
			const struct key *s = keys_find(backend_qemu.settings,
									 keyed[i].key);
			char line[400];

			snprintf(help[i], sizeof(help[i]), "[host] %s: %s", s->key,
				 keys_describe(s, line, sizeof(line)));
			return help[i];
		}
	return "";
}

static const char *keyed_argh(const char *opt)
{
	for (size_t i = 0; i < NKEYED; i++)
		if (!strcmp(keyed[i].opt, opt))
			return keyed[i].argh;
	return "V";
}

/* --OPT (one of keyed[]) sets its [host] key of the qemu backend in *value. */
static int opt_qemu_key(const struct opt *o, const char *arg)
{
	char err[256], opt[128];

	/*
	 * A run records the mode its config's modes chose, so a config's
	 * cmdline may not set another; boot says which driver Xen selected
	 * against --mode and fails when they differ, so here an x2APIC option
	 * is an experiment (an xAPIC boot, say), shown, not hidden.
	 */
	if (!strcmp(o->long_name, "cmdline") && cmdline_apic_option(arg, opt, sizeof(opt))) {
		struct qemu_settings *q = o->value;

		if (strlen(arg) >= sizeof(q->cmdline)) {
			fprintf(stderr, "ipibench boot: --cmdline: longer than %zu bytes\n",
				sizeof(q->cmdline) - 1);
			return 2;
		}
		snprintf(q->cmdline, sizeof(q->cmdline), "%s", arg);
		return 0;
	}
	for (size_t i = 0; i < NKEYED; i++)
		if (!strcmp(keyed[i].opt, o->long_name)) {
			if (!keys_set(keys_find(backend_qemu.settings, keyed[i].key),
				      o->value, arg, NULL, err, sizeof(err)))
				return 0;
			fprintf(stderr, "ipibench boot: --%s: %s\n", o->long_name, err);
			return 2;
		}
	fprintf(stderr, "ipibench boot: --%s is no [host] key\n", o->long_name);
	return 2;
}

/* A whole number into *value (a long), in the range the help of --OPT says. */
static int opt_count(const struct opt *o, const char *arg)
{
	bool secs = !strcmp(o->long_name, "timeout") || !strcmp(o->long_name, "stall");
	long max = secs ? 86400 : 4096;

	if ((*(long *)o->value = parse_uint(arg, !strcmp(o->long_name, "stall") ? 0 : 1, max)) < 0) {
		fprintf(stderr, "ipibench boot: bad value '%s' for --%s\n", arg, o->long_name);
		return 2;
	}
	return 0;
}

/* --insn-calls: agent.json's insn_calls, one line per bucket. */
static void print_insn_calls(json_t *agent)
{
	json_t *ic = json_object_get(agent, "insn_calls"), *b;
	const char *e = json_string_value(json_object_get(agent, "insn_calls_error"));
	size_t i;

	if (e)
		printf("insn calls: %s\n", e);
	if (!ic)
		return;
	printf("insn calls: %lld closed, %lld overflow, %lld dropped windows\n",
	       (long long)json_integer_value(json_object_get(ic, "closed")),
	       (long long)json_integer_value(json_object_get(ic, "overflow")),
	       (long long)json_integer_value(json_object_get(ic, "dropped_windows")));
	json_array_foreach(json_object_get(ic, "buckets"), i, b) {
		json_t *fit = json_object_get(b, "spin_fit");

		printf("  %-7s vector %3lld, %3lld ICR writes: %7lld calls, insns mean %.2f min %lld "
		       "max %lld, pause mean %.1f",
		       json_string_value(json_object_get(b, "kind")),
		       (long long)json_integer_value(json_object_get(b, "vector")),
		       (long long)json_integer_value(json_object_get(b, "icr_writes")),
		       (long long)json_integer_value(json_object_get(b, "calls")),
		       json_number_value(json_object_get(b, "insns_mean")),
		       (long long)json_integer_value(json_object_get(b, "insns_min")),
		       (long long)json_integer_value(json_object_get(b, "insns_max")),
		       json_number_value(json_object_get(b, "pause_mean")));
		if (fit)
			printf(", without the spin %.1f (%.2f per PAUSE)",
			       json_number_value(json_object_get(fit, "base")),
			       json_number_value(json_object_get(fit, "insns_per_pause")));
		printf("\n");
	}
}

/*
 * The layout the hypervisor reported (agent.json's query) against the one
 * QEMU was given (O's topology, else its dense default), and the ICR writes
 * of the job's workloads against it: printed; 1 on a mismatch.
 */
static int boot_layout(const struct host_opts *o, const char *topology, struct layout *lay)
{
	char path[4200], err[512];
	json_t *agent, *run;
	int rc;

	snprintf(path, sizeof(path), "%s/agent.json", o->workdir);
	if (!(agent = sio_load_json(path, SIO_MAX_JSON, err, sizeof(err)))) {
		fprintf(stderr, "ipibench boot: %s\n", err);
		return 1;
	}
	if (o->topo ? layout_from_topo(lay, o->topo, o->cpus, err, sizeof(err)) :
	    layout_dense(lay, o->cpus, o->maxcpus, err, sizeof(err))) {
		fprintf(stderr, "ipibench boot: %s\n", err);
		json_decref(agent);
		return 1;
	}
	print_insn_calls(agent);
	if (!json_object_get(agent, "hv") || json_is_null(json_object_get(agent, "hv"))) {
		/* No query: a hypervisor without the interface (the agent said
		 * so); nothing to check the layout against. */
		printf("layout: not checked (%s has no hypervisor query)\n", path);
		json_decref(agent);
		return 0;
	}
	json_t *wls = json_object_get(agent, "workloads");

	run = json_pack("{s:s, s:O, s:o}", "mode", o->mode, "hv", json_object_get(agent, "hv"),
			"workloads", wls ? json_incref(wls) : json_array());
	json_decref(agent);
	if (!run) {
		fprintf(stderr, "ipibench boot: %s: out of memory\n", path);
		return 1;
	}
	rc = layout_check_run(run, lay, topology, err, sizeof(err));
	const char *d = json_string_value(json_object_get(json_object_get(run, "layout"), "describe"));
	if (d)
		printf("layout: %s%s%s\n", d, topology ? "; topology " : "", topology ? topology : "");
	json_t *w;
	size_t i;
	json_array_foreach(json_object_get(run, "workloads"), i, w) {
		json_t *chk = json_object_get(w, "icr_check");

		json_t *ic = json_object_get(w, IPB_KEY(WL_INSN_COUNTS));

		if (ic)
			printf("insn counts, %s: send path %.1f/op, wait %.1f/op (time-dependent), "
			       "handler mean %.1f max %lld; ICR writes plugin %lld, hypervisor %lld%s\n",
			       json_string_value(json_object_get(w, "name")),
			       json_number_value(json_object_get(ic, IPB_INSN(SEND_INSNS_PER_OP))),
			       json_number_value(json_object_get(ic, IPB_INSN(WAIT_INSNS_PER_OP))),
			       json_number_value(json_object_get(ic, IPB_INSN(HANDLER_INSNS_MEAN))),
			       (long long)json_integer_value(json_object_get(ic, IPB_INSN(HANDLER_INSNS_MAX))),
			       (long long)json_integer_value(json_object_get(ic, IPB_INSN(ICR_WRITES))),
			       (long long)json_integer_value(json_object_get(ic, IPB_INSN(ICR_WRITES_HV))),
			       json_is_true(json_object_get(ic, IPB_INSN(ICR_MATCH))) ? "" : " MISMATCH");
		if (chk && !json_object_get(chk, "by_sender"))
			printf("icr writes per call, %s: layout %lld, measured %.2f (%s route)\n",
			       json_string_value(json_object_get(w, "name")),
			       (long long)json_integer_value(json_object_get(chk, "expected")),
			       json_number_value(json_object_get(chk, "measured")),
			       json_string_value(json_object_get(chk, "route")));
	}
	json_decref(run);
	if (rc) {
		fprintf(stderr, "ipibench boot: %s\n", err);
		return 1;
	}
	return 0;
}

/* --topology and --profile: what they give, checked after parsing. */
struct boot_topo {
	struct topo topo;
	bool has_topo;
	const struct topo_profile *prof;
};

static int opt_topology(const struct opt *o, const char *arg)
{
	struct boot_topo *t = o->value;
	char err[256];

	if (topo_parse(arg, &t->topo, err, sizeof(err))) {
		fprintf(stderr, "ipibench boot: --topology %s: %s\n", arg, err);
		return 2;
	}
	t->has_topo = true;
	return 0;
}

static int opt_profile(const struct opt *o, const char *arg)
{
	struct boot_topo *t = o->value;
	char names[256];

	if (!(t->prof = topo_profile_find(arg))) {
		fprintf(stderr, "ipibench boot: --profile %s: expected one of %s\n", arg,
			topo_profile_names(names, sizeof(names)));
		return 2;
	}
	return 0;
}

#define OPT_QEMU_KEY(l, q) { 0, (l), OPT_T_CALLBACK, (q), keyed_argh(l), keyed_help(l), opt_qemu_key, 0 }

int cmd_boot(int argc, char **argv)
{
	struct host_opts o;
	struct host_result r;
	struct qemu_settings qs, *q = &qs;
	const char *out = NULL, *job = NULL, *expect, *xen = NULL;
	struct xen_build xb;
	long cpus = 0, maxcpus = 0, timeout = 0, stall = -1;
	char outbuf[4096], jobdst[4096 + 16], err[1024], tbuf[96];
	bool quiet = false, no_test_device = false, insn_counts = false, insn_calls = false;
	struct boot_topo bt = { .has_topo = false };
	static struct layout lay;
	const struct opt opts[] = {
		OPT_STRING('m', "mode", &o.mode, "MODE", "the x2APIC mode (above)"),
		OPT_CALLBACK('n', "cpus", &cpus, "N", "physical CPUs (default 8; with a topology or profile,\n"
			     "its CPUs; below its slots, the rest are hotplug slots)", opt_count),
		OPT_CALLBACK(0, "maxcpus", &maxcpus, "M",
			     "let Xen allow for M-N hotpluggable CPUs (default N)", opt_count),
		OPT_CALLBACK(0, "timeout", &timeout, "S",
			     "give up after S seconds (default 240 + 4 per CPU, plus\n"
			     "twice the measured N^2.8 growth with multi-threaded TCG)", opt_count),
		OPT_CALLBACK(0, "stall", &stall, "S",
			     "after dom0 is up, S seconds without a console line make\n"
			     "the boot stalled: evidence into OUT/stall/, QEMU stopped\n"
			     "(default 300; 0: off)", opt_count),
		OPT_CALLBACK(0, "topology", &bt, "T",
			     "QEMU's -smp topology sockets=S,dies=D,cores=C,threads=T\n"
			     "(each level gets ceil(log2(count)) bits of the APIC ID);\n"
			     "maxcpus is the product of the levels", opt_topology),
		OPT_CALLBACK(0, "profile", &bt, "NAME", "a named machine's topology and CPUs (above)",
			     opt_profile),
		OPT_STRING('o', "output", &out, "DIR",
			   "keep console.log and agent.json here\n(default BUILD/boot/MODE-NCPUS)"),
		OPT_ALIAS(0, "out", &out, "DIR"),
		OPT_STRING('j', "job", &job, "FILE", "a job (JSON) for the agent to run"),
		OPT_STRING(0, "xen", &xen, "BUILD",
			   "the hypervisor build: a version name (4.20:\n"
			   "build/xen-4.20/xen) or a path (default build/xen/xen);\n"
			   "a mode that build's Xen version has not is refused"),
		OPT_STRING(0, "kernel", &q->kernel, "FILE",
			   "override the built dom0 kernel (a path without a space or\n"
			   "comma: QEMU's -initrd cuts there)"),
		OPT_STRING(0, "initrd", &q->initrd, "FILE",
			   "override the built initramfs (no space or comma either)"),
		OPT_STRING(0, "qemu", &q->qemu, "FILE", "override the emulator"),
		OPT_BOOLEAN(0, "no-test-device", &no_test_device,
			    "leave out the irq_delivery test device (QEMU's edu):\n"
			    "irq_delivery is then refused with ENODEV"),
		OPT_BOOLEAN(0, "insn-counts", &insn_counts,
			    "count the IPI paths' instructions with the TCG plugin\n"
			    "([host] insn_counts; printed per workload, and in agent.json)"),
		OPT_BOOLEAN(0, "insn-calls", &insn_calls,
			    "count every send_IPI_mask(), flush_area_mask(),\n"
			    "invalidate_interrupt() and do_IRQ() of the boot with\n"
			    "the TCG plugin, by ICR writes per call; for any build\n"
			    "(no benchmark symbols needed: CONFIG_IPIBENCH on\n"
			    "against off); agent.json's insn_calls; not with\n"
			    "--insn-counts"),
		OPT_BOOLEAN('q', "quiet", &quiet, "no progress lines"),
		OPT_QEMU_KEY("cmdline", q),
		OPT_QEMU_KEY("dom0-cmdline", q),
		OPT_QEMU_KEY("mem", q),
		OPT_QEMU_KEY("disk-mb", q),
		OPT_QEMU_KEY("tcg", q),
		OPT_END(),
	};
	const struct opts_cmd cmd = { .name = "ipibench boot", .opts = opts, .usage = usage,
				      .syn = &boot_synopsis };
	char **rest;
	int nrest, rc;

	host_settings_defaults(&backend_qemu, q);
	host_opts_default(&o, 8);
	o.settings = q;
	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	o.quiet = quiet;
	if (no_test_device)
		q->test_device = 0;
	if (insn_counts)
		q->insn_counts = 1;
	if (insn_calls && insn_counts) {
		fprintf(stderr, "ipibench boot: --insn-calls or --insn-counts, not both\n");
		return 2;
	}
	if (insn_calls)
		q->insn_calls = 1;
	if (nrest) {
		fprintf(stderr, "ipibench boot: unexpected argument '%s'\n", rest[0]);
		return 2;
	}
	if (!(expect = mode_genapic(o.mode))) {
		fprintf(stderr, "ipibench boot: --mode must be %s, not '%s'\n", mode_list(), o.mode);
		return 2;
	}
	/* Before QEMU starts: the build, and whether its Xen has the mode. */
	if (xen_build_resolve(xen, &xb, err, sizeof(err))) {
		if (xen) {
			fprintf(stderr, "ipibench boot: --xen %s: %s\n", xen, err);
			return 2;
		}
		/* The default build, not built yet: the backend says so. */
	} else {
		if (xen_build_mode_check(&xb, o.mode, err, sizeof(err))) {
			fprintf(stderr, "ipibench boot: --mode %s: %s\n", o.mode, err);
			return 2;
		}
		o.xen = xb.path;
	}
	if (bt.prof && bt.has_topo) {
		fprintf(stderr, "ipibench boot: give --profile or --topology, not both\n");
		return 2;
	}
	if (bt.prof) {
		bt.topo = bt.prof->topo;
		bt.has_topo = true;
		if (!cpus)
			cpus = bt.prof->cpus;
	}
	if (bt.has_topo) {
		unsigned int slots = topo_slots(&bt.topo);

		topo_format(&bt.topo, tbuf, sizeof(tbuf));
		if (!cpus)
			cpus = slots;
		if (maxcpus && (unsigned long)maxcpus != slots) {
			fprintf(stderr, "ipibench boot: --maxcpus %ld: the topology (%s) has %u CPU "
				"slots, which are maxcpus\n", maxcpus, tbuf, slots);
			return 2;
		}
		if ((unsigned long)cpus > slots) {
			fprintf(stderr, "ipibench boot: --cpus %ld: the topology (%s) has %u CPU slots\n",
				cpus, tbuf, slots);
			return 2;
		}
		maxcpus = slots;
		o.topo = &bt.topo;
	}
	if (!cpus)
		cpus = 8;
	o.cpus = cpus;
	o.maxcpus = maxcpus ? maxcpus : cpus;
	if (o.maxcpus < o.cpus) {
		fprintf(stderr, "ipibench boot: --maxcpus %u is below --cpus %u\n", o.maxcpus, o.cpus);
		return 2;
	}
	o.timeout_s = timeout ? timeout : host_default_timeout(o.cpus, !strcmp(q->tcg, "single"));
	if (stall >= 0)
		o.stall_s = (unsigned int)stall;
	if (!out) {
		snprintf(outbuf, sizeof(outbuf), "%s/boot/%s-%u", build_dir(), o.mode, o.cpus);
		out = outbuf;
	}
	if (run_mkdirs(out)) {
		perror(out);
		return 1;
	}
	o.workdir = realpath(out, outbuf) ? outbuf : out;
	snprintf(jobdst, sizeof(jobdst), "%s/job.json", o.workdir);
	unlink(jobdst);
	if (job) {
		json_t *j = sio_load_json(job, SIO_MAX_JSON, err, sizeof(err));

		if (!j) {
			fprintf(stderr, "ipibench boot: %s\n", err);
			return 2;
		}
		if (!json_is_object(j)) {
			fprintf(stderr, "ipibench boot: %s: $: expected an object (a job)\n", job);
			json_decref(j);
			return 2;
		}
		/* By the rules a config's workloads are checked by (workloads/wlspec.c). */
		if (wl_job_check(j, err, sizeof(err))) {
			fprintf(stderr, "ipibench boot: %s: %s\n", job, err);
			json_decref(j);
			return 2;
		}
		if (sio_write_json(jobdst, j, JSON_INDENT(1) | JSON_SORT_KEYS, err, sizeof(err))) {
			fprintf(stderr, "ipibench boot: %s\n", err);
			json_decref(j);
			return 1;
		}
		json_decref(j);
	}

	if (backend_qemu.run(&o, &r)) {
		fprintf(stderr, "ipibench boot: %s\n", r.error);
		return 1;
	}
	printf("mode: %s\ngenapic: %s\n", o.mode, r.genapic[0] ? r.genapic : "(none)");
	printf("interrupt remapping: %s\n", r.intremap ? "enabled" : "not seen");
	printf("dom0 up: %.1fs, agent done: %.1fs (rc=%d)\n", r.t_dom0, r.t_done, r.agent_rc);
	printf("results: %s/agent.json, console: %s/console.log\n", o.workdir, o.workdir);
	if (strcmp(r.genapic, expect)) {
		fprintf(stderr, "ipibench boot: requested x2apic-mode=%s but Xen selected %s%s\n",
			o.mode, r.genapic[0] ? r.genapic : "no x2APIC driver",
			r.x2apic_warning ? " (it printed a WARNING overriding the mode)" : "");
		return 1;
	}
	if (r.agent_rc != 0) {
		fprintf(stderr, "ipibench boot: the agent failed (rc=%d); see %s/console.log\n",
			r.agent_rc, o.workdir);
		return 1;
	}
	return boot_layout(&o, bt.has_topo ? tbuf : NULL, &lay);
}
