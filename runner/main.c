/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench: one command, one cmd_<verb>() per subcommand (as perf and git
 * do).  The table below is the only place that names them; `ipibench
 * --help` is printed from it.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "probes/probes.h"
#include "runner/runner.h"

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct verb verbs[] = {
	{ "boot", cmd_boot, "--mode MODE --cpus N [--xen BUILD] [--topology T | --profile P] [--timeout S]",
	  "boot the patched Xen in one x2APIC mode and report what it selected" },
	{ "run", cmd_run, "-c CONFIG [-o DIR] [--xen BUILD] | --resume DIR",
	  "run a config's build x mode x repetition matrix and keep the results" },
	{ "host", cmd_host, "install|uninstall|status",
	  "prepare a real Xen test host for the reboot backend" },
	{ "trace", cmd_trace, "summary|diff|ipi|irq FILE... [--json]",
	  "read xentrace files: event counts, profiles, IPI and IRQ tables" },
	{ "report", cmd_report, "DIR... [-o OUT]",
	  "statistics, comparison tables and plots of result directories" },
	{ "history", cmd_history, "RESULTS... [-o OUT]",
	  "time series and regression detection across result sets" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ipibench <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-8s %s\n           %s\n", verbs[i].name,
			verbs[i].usage, verbs[i].help);
	fprintf(f, "\n'ipibench <command> --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ipibench %s\n", IPIBENCH_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ipibench: '%s' is not a command; see 'ipibench --help'\n",
		argv[1]);
	return 2;
}
