/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opts: one table per command, from which both the option parsing and the
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
/* An old spelling still taken, not listed: OPT_ALIAS(0, "out", &dir, "DIR")
 * beside OPT_STRING('o', "output", &dir, "DIR", ...). */
#define OPT_ALIAS(s, l, v, a) { (s), (l), OPT_T_STRING, (v), (a), "", NULL, OPT_HIDDEN }
#define OPT_END() { 0, NULL, OPT_T_END, NULL, NULL, NULL, NULL, 0 }

/* The most entries a table may have (the parser's own arrays). */
#define OPTS_MAX 32

/*
 * A command's synopsis, in one place: its name, what it does in one line,
 * and its forms (the words after the name, '\n' between forms).  Its
 * --help's "usage:" lines (opts_usage_lines()), `ipibench --help`'s list
 * of commands and its manual page's NAME and SYNOPSIS all come from it.
 */
struct opts_synopsis {
	const char *name;       /* "ipibench run" */
	const char *summary;    /* "run a config's ... matrix" */
	/* "-c CONFIG [-o DIR]\n--resume DIR"; a line that starts with a
	 * space goes on with the form above it */
	const char *forms;
	int section;            /* of its manual page */
};

/* "usage: NAME FORM1\n       NAME FORM2\n..." */
void opts_usage_lines(FILE *f, const struct opts_synopsis *syn);
/* The same with FIRST before the first form and INDENT before the others. */
void opts_forms(FILE *f, const struct opts_synopsis *syn, const char *first, const char *indent);

struct opts_cmd {
	const char *name;       /* "ipibench history": the messages' prefix */
	const struct opt *opts; /* ended by OPT_END(); --help (and -h, when
				 * no entry has it) is added */
	/* the whole --help, calling opts_help(f, cmd->opts) for the options */
	void (*usage)(FILE *f, const struct opts_cmd *cmd);
	const void *data;       /* the command's, for usage */
	/* its synopsis, for --help=man|md (NULL: no page of its own) */
	const struct opts_synopsis *syn;
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

/*
 * Manual pages and Markdown from the same text and tables (lib/opts_doc.c).
 * A command's hidden --help=man (or =md) prints its page: the --help text
 * its usage() writes, with NAME and SYNOPSIS from its opts_synopsis and
 * OPTIONS from its table; "exit status:" and "environment:" paragraphs
 * become those sections, what follows the options NOTES, and lines that
 * start with a space are kept as they are.
 */
enum opts_fmt { OPTS_FMT_TEXT, OPTS_FMT_MAN, OPTS_FMT_MD };
/* man or md: OPTS_FMT_MAN or OPTS_FMT_MD; anything else: -1. */
int opts_fmt(const char *arg);
/*
 * The page of SYN in FMT on F: WRITE(f, data) writes the --help text, in
 * which opts_help() marks where its table goes, and a line "\001SH TITLE"
 * or "\001SS TITLE" (written for a page only) starts a section or a
 * subsection; the tables it gives opts_help() must outlive the call.
 * 0, or 1 when out of memory.
 */
int opts_page(FILE *f, enum opts_fmt fmt, const struct opts_synopsis *syn,
	      void (*write)(FILE *f, const void *data), const void *data);
/* The page of a command parsed by opts_parse() (its usage() as WRITE). */
int opts_cmd_page(FILE *f, enum opts_fmt fmt, const struct opts_cmd *cmd);
/* S escaped for FMT (a '\n' in it: a new line in roff, a space in Markdown,
 * where it may be a table's cell); no newline after it. */
void opts_text(FILE *f, enum opts_fmt fmt, const char *s);
/* opts_help()'s mark while a page is written: 1 when it wrote it. */
int opts_doc_mark(FILE *f, const struct opt *opts);
/* The manual pages of ipibench, for every page's SEE ALSO: "ipibench(1)", ... */
extern const char *const opts_pages[];

#endif
