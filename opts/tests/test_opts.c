/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opts/tests/test_opts.c: opts_parse() sets what the table says, hands back
 * the operands wherever they stood, refuses unknown options and missing
 * arguments with one line, and opts_help() prints what is parsed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts/opts.h"

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
	OPT_END(),
};

static void usage(FILE *f, const struct opts_cmd *cmd)
{
	fputs("usage: t [options]\n", f);
	opts_help(f, cmd->opts);
}

static const struct opts_cmd cmd = { .name = "ipibench t", .opts = table, .usage = usage };

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
		cmocka_unit_test(callback_status_stops),
		cmocka_unit_test(refuses_unknown_and_missing),
		cmocka_unit_test(help_lists_the_table),
		cmocka_unit_test(short_h_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
