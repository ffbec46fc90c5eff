/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lib/opts.c: parse a command's option table with getopt_long and print
 * the table as the options part of its --help (see opts.h).
 */
#include "lib/opts.h"

#include <getopt.h>
#include <string.h>

/* The column the help text starts at. */
#define HELP_COL 28

static const struct opt help_opt = OPT_BOOLEAN('h', "help", NULL, "this help");
static const struct opt help_long = OPT_BOOLEAN(0, "help", NULL, "this help");

static size_t count(const struct opt *opts)
{
	size_t n = 0;

	while (opts[n].type != OPT_T_END)
		n++;
	return n;
}

static int has_short(const struct opt *opts, int c)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->short_name == c)
			return 1;
	return 0;
}

static void help_line(FILE *f, const struct opt *o)
{
	char left[128];
	int n;

	if (o->short_name && o->long_name)
		n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = snprintf(left, sizeof(left), "  -%c", o->short_name);
	else
		n = snprintf(left, sizeof(left), "      --%s", o->long_name);
	/* OPT_OPTARG: "--name[=ARG]"; otherwise "--name ARG". */
	if (o->argh && n > 0 && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n,
			 o->flags & OPT_OPTARG ? "[=%s]" : " %s", o->argh);
	fputs(left, f);
	n = (int)strlen(left);
	if (n >= HELP_COL - 1) {
		fputc('\n', f);
		n = 0;
	}
	for (const char *h = o->help; *h; ) {
		const char *e = strchr(h, '\n');
		int len = e ? (int)(e - h) : (int)strlen(h);

		fprintf(f, "%*s%.*s\n", HELP_COL - n, "", len, h);
		n = 0;
		h += len + (e != NULL);
	}
}

void opts_help(FILE *f, const struct opt *opts)
{
	if (opts_doc_mark(f, opts))
		return;
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (!(o->flags & OPT_HIDDEN))
			help_line(f, o);
	help_line(f, has_short(opts, 'h') ? &help_long : &help_opt);
}

void opts_forms(FILE *f, const struct opts_synopsis *syn, const char *first, const char *indent)
{
	const char *p = syn->forms;

	for (int i = 0; i == 0 || *p; i++) {
		size_t n = strcspn(p, "\n");

		if (*p == ' ')	/* the form goes on */
			fprintf(f, "%s%*s%.*s\n", indent, (int)strlen(syn->name) + 1, "", (int)n, p);
		else
			fprintf(f, "%s%s %.*s\n", i ? indent : first, syn->name, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

void opts_usage_lines(FILE *f, const struct opts_synopsis *syn)
{
	opts_forms(f, syn, "usage: ", "       ");
}

/* getopt values: an entry's is LONG_ONLY + its index, --help's HELP. */
#define LONG_ONLY 256
#define HELP (LONG_ONLY + OPTS_MAX)

int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, int *nrest, char ***rest)
{
	const struct opt *opts = cmd->opts;
	size_t n = count(opts);
	struct option lo[OPTS_MAX + 2];
	char so[3 * OPTS_MAX + 8], *s = so;
	size_t k = 0;
	int c, idx;

	if (n > OPTS_MAX) {
		fprintf(stderr, "%s: %zu options, more than opts takes (%d)\n", cmd->name, n, OPTS_MAX);
		return 2;
	}
	*s++ = ':';	/* quiet: the one message is ours */
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &opts[i];
		int has = !o->argh ? no_argument : o->flags & OPT_OPTARG ? optional_argument
									 : required_argument;

		if (o->long_name)
			lo[k++] = (struct option){ o->long_name, has, NULL, (int)(LONG_ONLY + i) };
		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (has == required_argument)
				*s++ = ':';
			else if (has == optional_argument)
				*s++ = ':', *s++ = ':';
		}
	}
	/* --help=man|md: the manual page (lib/opts_doc.c), not listed. */
	lo[k++] = (struct option){ "help", optional_argument, NULL, HELP };
	if (!has_short(opts, 'h'))
		*s++ = 'h';
	*s = '\0';
	lo[k] = (struct option){ NULL, 0, NULL, 0 };

	/* optind = 0 restarts glibc's scan afresh, as a second command in
	 * one process (the tests) needs; getopt_long permutes, so the
	 * operands end up in argv[optind..]. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const struct opt *o = NULL;

		if (c == HELP && optarg) {
			int fmt = opts_fmt(optarg);

			if (fmt < 0 || !cmd->syn) {
				fprintf(stderr, "%s: --help takes no argument; see '%s --help'\n",
					cmd->name, cmd->name);
				return 2;
			}
			return opts_cmd_page(stdout, fmt, cmd);
		}
		if (c == HELP || (c == 'h' && !has_short(opts, 'h'))) {
			cmd->usage(stdout, cmd);
			return 0;
		}
		if (c == '?' || c == ':') {
			const char *arg = argv[optind - 1];

			fprintf(stderr, "%s: unknown option or missing argument '%s'; see '%s --help'\n",
				cmd->name, arg, cmd->name);
			return 2;
		}
		if (c >= LONG_ONLY)
			o = &opts[c - LONG_ONLY];
		else
			for (size_t i = 0; i < n && !o; i++)
				if (opts[i].short_name == c)
					o = &opts[i];
		if (!o)
			return 2;	/* not reached: getopt returns only what it was given */
		switch (o->type) {
		case OPT_T_BOOL:
			*(bool *)o->value = true;
			break;
		case OPT_T_STRING:
			*(const char **)o->value = optarg;
			break;
		case OPT_T_CALLBACK: {
			int rc = o->cb(o, optarg);

			if (rc)
				return rc == OPTS_STOP ? 0 : rc;
			break;
		}
		case OPT_T_END:
			break;
		}
	}
	*nrest = argc - optind;
	*rest = argv + optind;
	return -1;
}
