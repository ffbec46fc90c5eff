/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench.ini(5) and docs/configs.md: every key of a config, from the
 * tables the parser reads it by (config_keys()), in roff or Markdown
 * (`ipibench run --list-keys=man|md`, hidden; `make man`).
 */
#include <stdio.h>
#include <string.h>

#include "lib/opts.h"
#include "runner/config.h"

static const char intro[] =
	"A config is an INI file: [section] lines, then key = value lines;\n"
	"lines that start with ; or # are comments.  ipibench run -c CONFIG\n"
	"reads it and refuses it whole, before anything boots, on an unknown\n"
	"section or key, a bad value, a key or section given twice, a missing\n"
	"section, a control character or invalid UTF-8, or a line longer than\n"
	"198 bytes (comments may be longer), with one line naming the file and the\n"
	"line.  The sections are [host] (where the Xen host comes from and its\n"
	"CPUs), [matrix] (the modes, builds and repetitions to boot), one\n"
	"[workload:NAME] per workload to run in each boot (NAME: letters, digits,\n"
	"'.', '_' and '-'), and, for guests run through xl on a Xen host\n"
	"(backend = local), [guest].  A copy of the config is kept as\n"
	"DIR/config.ini beside the results, and ipibench run --resume DIR reads it.\n"
	"configs/ has the shipped configs; ipibench run --list prints the keys with\n"
	"their rules too.";

static const char bounds[] =
	"What a config may make ipibench read is bounded: a regular file of at most\n"
	"1 MiB, lines of at most 198 bytes, list values of at most 255 bytes, at\n"
	"most 32 workloads, 16 CPU counts and 4 builds, one pass over the text.\n"
	"Integers are decimal digits as written: a leading 0, 0x, a sign or an\n"
	"exponent is refused (010 is neither 8 nor 10); hex keys (trace_mask, a\n"
	"workload's trace) take hex digits, trace with its 0x.  A list (modes,\n"
	"cpus, xen, ipi_path, a CPU set) with an empty item (a,,b or a trailing\n"
	"comma) is refused.  A comment goes on a line of its own: a ; or # after\n"
	"a space in a key's line is refused (INI readers cut the value there).  A\n"
	"workload's CPU number (cpu, peer, offline_cpu, irq_cpu) is below the\n"
	"run's CPU count (a sweep's least), a CPU set within its CPU slots\n"
	"(maxcpus).  A cmdline that sets the x2APIC mode (x2apic-mode=,\n"
	"x2apic_phys=, x2apic=, nox2apic, apic=) is refused: modes chooses it.  A\n"
	"xen build is a version name, a build's name, or a path to a multiboot\n"
	"image (what QEMU and GRUB boot; at most 32 KiB of it is read).";

static const char *const sections[][2] = {
	{ "host", "The host: the backend, its CPUs and topology, and the chosen backend's own\n"
		  "keys (a key of another backend is refused)." },
	{ "matrix", "What is booted: every mode of modes, repetitions times, in order; with\n"
		    "cpus, once per CPU count; with several xen builds, once per build." },
	{ "workload:NAME", "One workload run in every boot; type comes first, then its\n"
			   "parameters.  Workloads run in the order of their sections." },
	{ "guest", "Optional: the guest the workload runs in instead (backend = local): one\n"
		   "guest run per IPI path (or, for an HVM guest with a NIC, per MSI path) and\n"
		   "repetition, through xl on this host.  A key that does not apply to the\n"
		   "guest's type is refused." },
};

struct state {
	FILE *f;
	enum opts_fmt fmt;
	const char *section;
	/* A copy: the key tables' walk builds each scope in one buffer. */
	char scope[96];
	int in_table;
};

static void heading(struct state *s, const struct cfg_key *k)
{
	int man = s->fmt == OPTS_FMT_MAN;

	if (!s->section || strcmp(s->section, k->section)) {
		if (s->in_table)
			fputc('\n', s->f);
		s->in_table = 0;
		fprintf(s->f, man ? ".SH \"[%s]\"\n" : "## [%s]\n\n", k->section);
		for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			if (!strcmp(sections[i][0], k->section)) {
				if (man)
					fputs(".PP\n", s->f);
				opts_text(s->f, s->fmt, sections[i][1]);
				fputs(man ? "\n" : "\n\n", s->f);
			}
		s->section = k->section;
		s->scope[0] = '\0';
	}
	if (k->scope && strcmp(s->scope, k->scope)) {
		if (s->in_table)
			fputc('\n', s->f);
		s->in_table = 0;
		fprintf(s->f, man ? ".SS \"[%s] with %s\"\n" : "### [%s] with %s\n\n", k->section,
			k->scope);
	}
	snprintf(s->scope, sizeof(s->scope), "%s", k->scope ? k->scope : "");
	if (!man && !s->in_table) {
		fputs("| Key | Type | Range | Default | Meaning |\n|---|---|---|---|---|\n", s->f);
		s->in_table = 1;
	}
}

static void key(const struct cfg_key *k, void *data)
{
	struct state *s = data;

	heading(s, k);
	if (s->fmt == OPTS_FMT_MAN) {
		fprintf(s->f, ".TP\n\\fB%s\\fR (", k->key);
		opts_text(s->f, s->fmt, k->type);
		fputs(")\n", s->f);
		opts_text(s->f, s->fmt, k->help);
		fputs(".\n.br\nValues: ", s->f);
		opts_text(s->f, s->fmt, k->range);
		fputs("; default: ", s->f);
		opts_text(s->f, s->fmt, k->def);
		fputs(".\n", s->f);
		return;
	}
	fprintf(s->f, "| `%s` | ", k->key);
	opts_text(s->f, s->fmt, k->type);
	fputs(" | ", s->f);
	opts_text(s->f, s->fmt, k->range);
	fputs(" | ", s->f);
	opts_text(s->f, s->fmt, k->def);
	fputs(" | ", s->f);
	opts_text(s->f, s->fmt, k->help);
	fputs(" |\n", s->f);
}

int config_doc(FILE *f, int fmt)
{
	struct state s = { .f = f, .fmt = (enum opts_fmt)fmt };

	if (fmt == OPTS_FMT_MAN) {
		fputs(".\\\" SPDX-License-Identifier: GPL-3.0-or-later\n"
		      ".\\\" Generated by runner/config_doc.c from the config parser's key tables.\n"
		      ".TH \"IPIBENCH.INI\" \"5\" \"\" \"ipibench\" \"ipibench manual\"\n.nh\n.ad l\n"
		      ".SH \"NAME\"\nipibench.ini \\- the config of an ipibench run: host, matrix, "
		      "workloads, guest\n"
		      ".SH \"SYNOPSIS\"\n.nf\n\\fBipibench run\\fR \\-c \\fICONFIG\\fR\n.fi\n"
		      ".SH \"DESCRIPTION\"\n.PP\n", f);
		opts_text(f, fmt, intro);
		fputs("\n.PP\n", f);
		opts_text(f, fmt, bounds);
		fputs("\n", f);
	} else {
		fputs("<!-- SPDX-License-Identifier: GPL-3.0-or-later -->\n"
		      "<!-- Generated by `make docs/configs.md` (runner/config_doc.c) from the config\n"
		      "     parser's key tables: edit those, not this file. -->\n"
		      "# Config reference\n\n", f);
		opts_text(f, fmt, intro);
		fputs("\n\n", f);
		opts_text(f, fmt, bounds);
		fputs("\n\nThe same as a manual page: ipibench.ini(5).\n\n", f);
	}
	config_keys(key, &s);
	if (fmt == OPTS_FMT_MAN) {
		fputs(".SH \"EXAMPLE\"\n.nf\n[host]\nbackend = qemu\ncpus = 8\n\n[matrix]\n"
		      "modes = physical, cluster, mixed\nrepetitions = 3\n\n[workload:flush]\n"
		      "type = flush_tlb_all\niterations = 1000\n.fi\n"
		      ".SH \"SEE ALSO\"\n.BR ipibench (1),\n.BR ipibench\\-run (1),\n"
		      ".BR ipibench\\-boot (1),\n.BR ipibench\\-host (1)\n", f);
	} else if (s.in_table) {
		fputc('\n', f);
	}
	return fflush(f) ? 1 : 0;
}
