/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lib/tests/test_opts.c: opts_parse() sets what the table says, hands back
 * the operands wherever they stood, refuses unknown options and missing
 * arguments with one line, and opts_help() prints what is parsed; an old
 * spelling (OPT_ALIAS) is taken but not listed; --help=man and --help=md
 * print the page of the same table (lib/opts_doc.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/opts.h"

static bool quiet;
static const char *out;
static int fail_mode, limit_calls;

static int set_fail(const struct opt *o, const char *arg)
{
	(void)o;
	if (!arg || !strcmp(arg, "any"))
		fail_mode = 1;
	else if (!strcmp(arg, "latest"))
		fail_mode = 2;
	else
		return 2;
	return 0;
}

static int list(const struct opt *o, const char *arg)
{
	(void)arg;
	*(int *)o->value += 1;
	return OPTS_STOP;
}

static const struct opt table[] = {
	OPT_STRING('o', "output", &out, "OUT", "output directory\n(default: here)"),
	OPT_BOOLEAN('q', "quiet", &quiet, "no progress"),
	OPT_CALLBACK_OPTARG(0, "fail-on-regression", NULL, "any|latest", "exit 3 on a regression",
			    set_fail),
	OPT_CALLBACK_NOARG(0, "list", &limit_calls, "list and exit", list),
	OPT_ALIAS(0, "out", &out, "OUT"),
	OPT_END(),
};

static const struct opts_synopsis syn = {
	"ipibench t", "test the tables", "[-o OUT] [-q] FILE...\n--list", 1,
};

static void usage(FILE *f, const struct opts_cmd *cmd)
{
	fputs("usage: t [options]\n", f);
	opts_help(f, cmd->opts);
}

static void page_usage(FILE *f, const struct opts_cmd *cmd)
{
	opts_usage_lines(f, &syn);
	fputs("\nWhat t does, with --quiet and a \\ in it.\n.starts with a dot\n"
	      "  kept as it is\n\n", f);
	opts_help(f, cmd->opts);
	fputs("\nexit status: 0 ok, 2 usage.\n", f);
}

static const struct opts_cmd cmd = { .name = "ipibench t", .opts = table, .usage = usage };
static const struct opts_cmd pcmd = {
	.name = "ipibench t", .opts = table, .usage = page_usage, .syn = &syn,
};

static void reset(void)
{
	quiet = false;
	out = NULL;
	fail_mode = 0;
	limit_calls = 0;
}

/* Parse a NULL-ended list of words (argv[0] first). */
static int parse(char **words, int *nrest, char ***rest)
{
	int argc = 0;

	while (words[argc])
		argc++;
	reset();
	return opts_parse(&cmd, argc, words, nrest, rest);
}

static void sets_and_hands_back_operands(void **state)
{
	(void)state;
	char *w[] = { "t", "a.json", "-o", "dir", "b.json", "--quiet", "--fail-on-regression=latest",
		      "--", "-c", NULL };
	int n;
	char **rest;

	assert_int_equal(parse(w, &n, &rest), -1);
	assert_string_equal(out, "dir");
	assert_true(quiet);
	assert_int_equal(fail_mode, 2);
	assert_int_equal(n, 3);
	assert_string_equal(rest[0], "a.json");
	assert_string_equal(rest[1], "b.json");
	assert_string_equal(rest[2], "-c");

	char *w2[] = { "t", "--output=x", "-q", "--fail-on-regression", NULL };
	assert_int_equal(parse(w2, &n, &rest), -1);
	assert_string_equal(out, "x");
	assert_int_equal(fail_mode, 1);
	assert_int_equal(n, 0);
}

/* -o, --output and the old --out, hidden, set the same thing. */
static void both_spellings_parse(void **state)
{
	(void)state;
	char *w[] = { "t", "--out", "old", NULL };
	char *w2[] = { "t", "--output", "new", NULL };
	char *w3[] = { "t", "--out=eq", "a", NULL };
	char *w4[] = { "t", "-o", "short", NULL };
	int n;
	char **rest;

	assert_int_equal(parse(w, &n, &rest), -1);
	assert_string_equal(out, "old");
	assert_int_equal(parse(w2, &n, &rest), -1);
	assert_string_equal(out, "new");
	assert_int_equal(parse(w3, &n, &rest), -1);
	assert_string_equal(out, "eq");
	assert_int_equal(n, 1);
	assert_int_equal(parse(w4, &n, &rest), -1);
	assert_string_equal(out, "short");
}

static void callback_status_stops(void **state)
{
	(void)state;
	char *w[] = { "t", "--list", "-q", NULL };
	char *bad[] = { "t", "--fail-on-regression=some", NULL };
	int n;
	char **rest;

	/* OPTS_STOP: the option did it all, exit 0. */
	assert_int_equal(parse(w, &n, &rest), 0);
	assert_int_equal(limit_calls, 1);
	assert_false(quiet);	/* nothing after the stop is parsed */
	assert_int_equal(parse(bad, &n, &rest), 2);
}

static void refuses_unknown_and_missing(void **state)
{
	(void)state;
	char *unknown[] = { "t", "--nope", NULL };
	char *shortu[] = { "t", "-z", NULL };
	char *missing[] = { "t", "x", "-o", NULL };
	char *missing_long[] = { "t", "--output", NULL };
	char *noarg[] = { "t", "--quiet=yes", NULL };
	int n;
	char **rest;

	assert_int_equal(parse(unknown, &n, &rest), 2);
	assert_int_equal(parse(shortu, &n, &rest), 2);
	assert_int_equal(parse(missing, &n, &rest), 2);
	assert_null(out);
	assert_int_equal(parse(missing_long, &n, &rest), 2);
	assert_int_equal(parse(noarg, &n, &rest), 2);
	assert_false(quiet);
}

/* What --help and opts_help() print, via a file. */
static char *help_text(char **words, int *rc)
{
	char path[] = "/tmp/test_opts.XXXXXX";
	int fd = mkstemp(path);
	FILE *saved = stdout, *f;
	char *buf = calloc(1, 4096);
	int n;
	char **rest;

	assert_true(fd >= 0);
	assert_non_null(f = fdopen(fd, "w+"));
	stdout = f;
	*rc = parse(words, &n, &rest);
	fflush(f);
	stdout = saved;
	rewind(f);
	assert_non_null(buf);
	size_t len = fread(buf, 1, 4095, f);
	buf[len] = '\0';
	fclose(f);
	unlink(path);
	return buf;
}

static void help_lists_the_table(void **state)
{
	(void)state;
	char *w[] = { "t", "-q", "--help", NULL };
	char *h[] = { "t", "-h", NULL };
	int rc;
	char *text = help_text(w, &rc);

	assert_int_equal(rc, 0);
	assert_string_equal(text,
		"usage: t [options]\n"
		"  -o, --output OUT          output directory\n"
		"                            (default: here)\n"
		"  -q, --quiet               no progress\n"
		"      --fail-on-regression[=any|latest]\n"
		"                            exit 3 on a regression\n"
		"      --list                list and exit\n"
		"  -h, --help                this help\n");
	free(text);
	text = help_text(h, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "usage: t"));
	free(text);
}

/* What opts_parse(PCMD, WORDS) prints on stdout, and its status in *rc. */
static char *page_text(char **words, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *saved = stdout, *f = open_memstream(&buf, &len);
	int argc = 0, n;
	char **rest;

	assert_non_null(f);
	while (words[argc])
		argc++;
	stdout = f;
	*rc = opts_parse(&pcmd, argc, words, &n, &rest);
	stdout = saved;
	fclose(f);
	return buf;
}

static void man_page_of_the_table(void **state)
{
	(void)state;
	char *w[] = { "t", "--help=man", NULL };
	char *bad[] = { "t", "--help=pdf", NULL };
	char *nosyn[] = { "t", "--help=man", NULL };
	int rc, n;
	char **rest;
	char *m = page_text(w, &rc);

	assert_int_equal(rc, 0);
	assert_non_null(strstr(m, ".TH \"IPIBENCH-T\" \"1\""));
	assert_non_null(strstr(m, ".SH \"NAME\"\nipibench-t \\- test the tables\n"));
	assert_non_null(strstr(m, "\\fBipibench t\\fR [\\-o OUT] [\\-q] FILE...\n"
				  "\\fBipibench t\\fR \\-\\-list\n"));
	assert_non_null(strstr(m, ".SH \"DESCRIPTION\"\n.PP\nWhat t does, with \\-\\-quiet and a "
				  "\\e in it.\n\\&.starts with a dot\n.nf\n  kept as it is\n.fi\n"));
	assert_non_null(strstr(m, ".SH \"OPTIONS\"\n.TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR "
				  "\\fIOUT\\fR\noutput directory\n(default: here)\n"));
	assert_non_null(strstr(m, "\\fB\\-\\-fail\\-on\\-regression\\fR[=\\fIany|latest\\fR]\n"));
	assert_non_null(strstr(m, ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis help\n"));
	assert_null(strstr(m, "\\-\\-out\\fR"));	/* the old spelling is not listed */
	assert_non_null(strstr(m, ".SH \"EXIT STATUS\"\n.PP\n0 ok, 2 usage.\n"));
	assert_non_null(strstr(m, ".SH \"SEE ALSO\"\n.BR ipibench (1),\n"));
	free(m);
	/* Neither man nor md, or a command without a synopsis: a usage error. */
	m = page_text(bad, &rc);
	assert_int_equal(rc, 2);
	free(m);
	assert_int_equal(opts_parse(&cmd, 2, nosyn, &n, &rest), 2);
}

static void md_of_the_table(void **state)
{
	(void)state;
	char *w[] = { "t", "--help=md", NULL };
	int rc;
	char *m = page_text(w, &rc);

	assert_int_equal(rc, 0);
	assert_non_null(strstr(m, "## ipibench t\n\ntest the tables (manual page: ipibench-t(1)).\n"));
	assert_non_null(strstr(m, "```\nipibench t [-o OUT] [-q] FILE...\nipibench t --list\n```\n"));
	assert_non_null(strstr(m, "### Description\n\nWhat t does, with --quiet and a \\\\ in it.\n"));
	assert_non_null(strstr(m, "- `-o, --output OUT`\n  output directory\n  (default: here)\n"));
	assert_non_null(strstr(m, "- `--fail-on-regression[=any|latest]`\n"));
	assert_null(strstr(m, "--out`"));
	assert_non_null(strstr(m, "### Exit status\n\n0 ok, 2 usage.\n"));
	free(m);
}

static void usage_lines_of_the_synopsis(void **state)
{
	(void)state;
	static const struct opts_synopsis s = { "ipibench u", "u", "a [-x]\n  [-y]\nb", 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	opts_usage_lines(f, &s);
	fclose(f);
	assert_string_equal(buf, "usage: ipibench u a [-x]\n"
				 "                    [-y]\n"
				 "       ipibench u b\n");
	free(buf);
}

/* A table whose entry has -h keeps it; --help is then long only. */
static bool hosts;
static const struct opt htable[] = {
	OPT_BOOLEAN('h', "hosts", &hosts, "every host"),
	OPT_END(),
};

static void short_h_taken(void **state)
{
	(void)state;
	char *w[] = { "ipibench u", "-h", "op", NULL };
	static const struct opts_cmd hc = { .name = "ipibench u", .opts = htable };
	int n;
	char **rest;

	assert_int_equal(opts_parse(&hc, 3, w, &n, &rest), -1);
	assert_true(hosts);
	assert_int_equal(n, 1);
	assert_string_equal(rest[0], "op");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sets_and_hands_back_operands),
		cmocka_unit_test(both_spellings_parse),
		cmocka_unit_test(man_page_of_the_table),
		cmocka_unit_test(md_of_the_table),
		cmocka_unit_test(usage_lines_of_the_synopsis),
		cmocka_unit_test(callback_status_stops),
		cmocka_unit_test(refuses_unknown_and_missing),
		cmocka_unit_test(help_lists_the_table),
		cmocka_unit_test(short_h_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
