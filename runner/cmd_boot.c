/*
 * ipibench boot: bring up the patched Xen in one x2APIC mode, let the agent
 * report what it sees, and check that Xen selected the requested driver.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/hostopts.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "runner/wlspec.h"
#include "safeio/safeio.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ipibench boot --mode physical|cluster|mixed [--cpus N] [options]\n"
"\n"
"Boot the patched Xen under QEMU in one x2APIC destination mode, run the\n"
"dom0 agent (and a job, if given), and report the APIC driver Xen selected.\n"
"Exits non-zero when QEMU is missing, Xen panics, dom0 crashes, the driver\n"
"is not the one the mode asks for, or the timeout passes.  QEMU is always\n"
"stopped before ipibench exits.\n"
"\n"
"  --mode M        physical, cluster or mixed (x2apic-mode=M)\n"
"  --cpus N        physical CPUs (default 8)\n"
"  --maxcpus M     let Xen allow for M-N hotpluggable CPUs (default N)\n"
"  --timeout S     give up after S seconds (default 240 + 4 per CPU)\n"
"  --out DIR       keep console.log and agent.json here\n"
"                  (default BUILD/boot/MODE-NCPUS)\n"
"  --job FILE      a job (JSON) for the agent to run\n"
"  --cmdline STR   extra Xen command line\n"
"  --mem MB        guest RAM (default 2048)\n"
"  --disk-mb N     attach a scratch virtio disk of N MiB\n"
"  --no-test-device  leave out the irq_delivery test device (QEMU's edu):\n"
"                  irq_delivery is then refused with ENODEV\n"
"  --tcg T         QEMU's TCG threading: multi (default: a host thread per\n"
"                  vCPU) or single (one host thread runs the vCPUs in turn)\n"
"  --xen PATH, --kernel PATH, --initrd PATH, --qemu PATH\n"
"                  override the built images / emulator\n"
"  -q, --quiet     no progress lines\n");
}

int cmd_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'n' },
		{ "maxcpus", required_argument, NULL, 'M' },
		{ "timeout", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "job", required_argument, NULL, 'j' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "mem", required_argument, NULL, 'r' },
		{ "disk-mb", required_argument, NULL, 'd' },
		{ "xen", required_argument, NULL, 'X' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "initrd", required_argument, NULL, 'I' },
		{ "qemu", required_argument, NULL, 'Q' },
		{ "tcg", required_argument, NULL, 'T' },
		{ "no-test-device", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct host_paths paths;
	struct host_opts o;
	struct host_result r;
	const char *out = NULL, *job = NULL, *expect;
	long cpus = 8, maxcpus = 0, timeout = 0, v;
	char outbuf[4096], jobdst[4096 + 16], err[1024];
	int c;

	host_paths_default(&paths);
	host_opts_default(&o, &paths, 8);
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:n:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'm': o.mode = optarg; break;
		case 'n':
			if ((cpus = parse_uint(optarg, 1, 4096)) < 0)
				goto bad;
			break;
		case 'M':
			if ((maxcpus = parse_uint(optarg, 1, 4096)) < 0)
				goto bad;
			break;
		case 't':
			if ((timeout = parse_uint(optarg, 1, 86400)) < 0)
				goto bad;
			break;
		case 'r':
			if ((v = parse_uint(optarg, 256, 1 << 20)) < 0)
				goto bad;
			o.mem_mb = v;
			break;
		case 'd':
			if ((v = parse_uint(optarg, 1, 1 << 20)) < 0)
				goto bad;
			o.disk_mb = v;
			break;
		case 'o': out = optarg; break;
		case 'j': job = optarg; break;
		case 'c': o.extra_cmdline = optarg; break;
		case 'X': o.xen = optarg; break;
		case 'K': o.kernel = optarg; break;
		case 'I': o.initrd = optarg; break;
		case 'Q': o.qemu = optarg; break;
		case 'T':
			if (!tcg_threading_ok(optarg)) {
				fprintf(stderr, "ipibench boot: --tcg must be multi or single, not '%s'\n",
					optarg);
				return 2;
			}
			o.tcg = optarg;
			break;
		case 'D': o.no_test_device = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ipibench boot: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!(expect = mode_genapic(o.mode))) {
		fprintf(stderr, "ipibench boot: --mode must be physical, cluster or mixed, not '%s'\n",
			o.mode);
		return 2;
	}
	o.cpus = cpus;
	o.maxcpus = maxcpus ? maxcpus : cpus;
	if (o.maxcpus < o.cpus) {
		fprintf(stderr, "ipibench boot: --maxcpus %u is below --cpus %u\n", o.maxcpus, o.cpus);
		return 2;
	}
	o.timeout_s = timeout ? timeout : host_default_timeout(o.cpus);
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
		/* By the rules a config's workloads are checked by (runner/wlspec.c). */
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

	if (host_backend_find("qemu")->run(&o, &r)) {
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
	return 0;
bad:
	for (const struct option *p = opts; p->name; p++)
		if (p->val == c)
			fprintf(stderr, "ipibench boot: bad value '%s' for --%s\n", optarg, p->name);
	return 2;
}
