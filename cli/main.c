/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench: one command, one cmd_<verb>() per subcommand (as perf and git
 * do).  The table below is the only place that names them all; `ipibench
 * --help` and ipibench(1) are printed from it.
 *
 * Adding a verb (the checklist, as git's builtin.h has one):
 *  - its cmd_<verb>(argc, argv) and <verb>_synopsis in the part that does
 *    the work, declared in that part's public header (runner/runner.h,
 *    analysis/analysis.h, probes/probes.h); argv[0] is the verb;
 *  - its options as one lib/opts.h table, parsed by opts_parse(), so that
 *    its --help and --help=man|md come from the same table;
 *  - one line in verbs[] below;
 *  - its name in the Makefile's MAN_VERBS (its manual page) and its section in
 *    docs/commands.md (make doc-test checks both against --help);
 *  - exit status 2 for a usage error, as every verb.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "lib/opts.h"
#include "probes/probes.h"
#include "runner/runner.h"

/* Each verb's synopsis is its own (its --help prints it too). */
struct verb {
	int (*fn)(int argc, char **argv);
	const struct opts_synopsis *syn;
};

static const struct verb verbs[] = {
	{ cmd_boot, &boot_synopsis },
	{ cmd_run, &run_synopsis },
	{ cmd_host, &host_synopsis },
	{ cmd_trace, &trace_synopsis },
	{ cmd_report, &report_synopsis },
	{ cmd_history, &history_synopsis },
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static const struct opts_synopsis synopsis = {
	"ipibench", "benchmark and trace x2APIC IPI delivery in Xen",
	"<command> [options]\n--help\n--version", 1
};

/* A verb's name: its synopsis's, after "ipibench ". */
static const char *verb_name(const struct verb *v)
{
	return v->syn->name + strlen("ipibench ");
}

static void usage(FILE *f)
{
	opts_usage_lines(f, &synopsis);
	fprintf(f, "\ncommands:\n");
	for (size_t i = 0; i < NVERBS; i++) {
		fprintf(f, "  %-8s %s\n", verb_name(&verbs[i]), verbs[i].syn->summary);
		opts_forms(f, verbs[i].syn, "    ", "    ");
	}
	fprintf(f, "\n'ipibench <command> --help' shows a command's options; its manual page\n"
		"is ipibench-<command>(1).\n");
}

/* The manual page: what ipibench is, then a section per command. */
static void page_text(FILE *f, const void *data)
{
	(void)data;
	opts_usage_lines(f, &synopsis);
	fputs("\001SH DESCRIPTION\n"
	      "ipibench measures how Xen delivers IPIs in its x2APIC destination modes\n"
	      "(physical, cluster, mixed): it boots a Xen patched with the ipibench series\n"
	      "in each mode, under QEMU or on a real host, runs workloads in dom0 through\n"
	      "the benchmark interface the series adds, keeps the results, and reports,\n"
	      "compares and traces them.  Each command has its own manual page,\n"
	      "ipibench-COMMAND(1), and 'ipibench COMMAND --help' lists its options.\n"
	      "\001SH COMMANDS\n", f);
	for (size_t i = 0; i < NVERBS; i++) {
		fprintf(f, "\001SS %s\n%s (ipibench-%s(1)).\n", verb_name(&verbs[i]),
			verbs[i].syn->summary, verb_name(&verbs[i]));
		opts_forms(f, verbs[i].syn, "  ", "  ");
		fputc('\n', f);
	}
	fputs("\001SH FILES\n"
	      "A config is an INI file (ipibench.ini(5); configs/ has examples).  A run\n"
	      "keeps its results in one directory: DIR/config.ini, DIR/results.json\n"
	      "(docs/results-schema.md) and what each boot left.\n"
	      "\n"
	      "Exit status: the command's (its page says which); 2 for a usage error or\n"
	      "a command ipibench does not have.\n", f);
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
	/* the manual page (lib/opts_doc.c) */
	if (!strncmp(argv[1], "--help=", 7) && opts_fmt(argv[1] + 7) >= 0)
		return opts_page(stdout, opts_fmt(argv[1] + 7), &synopsis, page_text, NULL);
	if (!strcmp(argv[1], "--version")) {
		printf("ipibench %s\n", IPIBENCH_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NVERBS; i++)
		if (!strcmp(argv[1], verb_name(&verbs[i])))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ipibench: '%s' is not a command; see 'ipibench --help'\n",
		argv[1]);
	return 2;
}
