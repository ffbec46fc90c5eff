/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opts/: one table per command, from which both the option parsing and the
 * options part of its --help come, the way perf's parse-options does
 * (tools/perf/util/parse-options.h): each entry names the short and long
 * option, what it sets, its argument and its help line.  opts_parse() hands
 * back what is left of argv (the operands), so no command scans argv twice
 * and no usage text can list an option the parser does not take.
 *
 * Used by every command of ipibench (runner/, analysis/, probes/).
 */
#ifndef IPIBENCH_OPTS_H
#define IPIBENCH_OPTS_H

#include <stdbool.h>
#include <stdio.h>

enum opt_type {
	OPT_T_END,
	OPT_T_BOOL,     /* sets *(bool *)value */
	OPT_T_STRING,   /* *(const char **)value = the argument */
	OPT_T_CALLBACK, /* cb(opt, argument) */
};

#define OPT_OPTARG 1    /* the argument may be left out: --name[=ARG] */
#define OPT_HIDDEN 2    /* taken, but not listed in the help */

struct opt;
/* 0 to go on; OPTS_STOP when the option did all the command is to do (as
 * --list: exit status 0); otherwise the command stops with this exit
 * status (the callback said why). */
#define OPTS_STOP (-2)
typedef int opt_cb(const struct opt *o, const char *arg);

struct opt {
	int short_name;         /* 0: none */
	const char *long_name;  /* NULL: none */
	enum opt_type type;
	void *value;            /* what the option sets; a callback's data */
	const char *argh;       /* the argument's name; NULL: takes none */
	const char *help;       /* '\n' starts a continuation line */
	opt_cb *cb;
	int flags;
};

#define OPT_BOOLEAN(s, l, v, h) { (s), (l), OPT_T_BOOL, (v), NULL, (h), NULL, 0 }
#define OPT_STRING(s, l, v, a, h) { (s), (l), OPT_T_STRING, (v), (a), (h), NULL, 0 }
#define OPT_CALLBACK(s, l, v, a, h, f) { (s), (l), OPT_T_CALLBACK, (v), (a), (h), (f), 0 }
#define OPT_CALLBACK_NOARG(s, l, v, h, f) { (s), (l), OPT_T_CALLBACK, (v), NULL, (h), (f), 0 }
#define OPT_CALLBACK_OPTARG(s, l, v, a, h, f) \
	{ (s), (l), OPT_T_CALLBACK, (v), (a), (h), (f), OPT_OPTARG }
#define OPT_END() { 0, NULL, OPT_T_END, NULL, NULL, NULL, NULL, 0 }

/* The most entries a table may have (the parser's own arrays). */
#define OPTS_MAX 32

struct opts_cmd {
	const char *name;       /* "ipibench history": the messages' prefix */
	const struct opt *opts; /* ended by OPT_END(); --help (and -h, when
				 * no entry has it) is added */
	/* the whole --help, calling opts_help(f, cmd->opts) for the options */
	void (*usage)(FILE *f, const struct opts_cmd *cmd);
	const void *data;       /* the command's, for usage */
};

/*
 * Parse ARGV[1..ARGC-1] by CMD's table; options and operands may be mixed,
 * "--" ends the options.  -1 to go on, with the operands (what is left of
 * argv) in *REST and their count in *NREST; otherwise the exit status:
 * 0 after --help (usage on stdout), 2 after a usage error (one line on
 * stderr naming the option), or what a callback returned.
 */
int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, int *nrest, char ***rest);

/* The options part of a --help: a line per entry (and -h, --help). */
void opts_help(FILE *f, const struct opt *opts);

#endif
