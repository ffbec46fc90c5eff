/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * results.json as the runner reads it back (run --resume): untrusted input,
 * checked before anything uses it, refused with one line naming the file
 * and the JSON path; `ipibench run --resume` refuses before it starts
 * anything (no run directory, no job.json, results.json untouched).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "runner/config.h"
#include "runner/results.h"
#include "runner/runner.h"
#include "lib/safeio.h"

static const char local_config[] =
	"[host]\nbackend = local\ncpus = 4\n[matrix]\nmodes = mixed\n[workload:f]\ntype = flush_tlb_all\n";

static const char *local_config_text(void)
{
	return local_config;
}

static void put(const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	assert_int_equal(tu_write(path, text), 0);
}

static char *slurp(const char *path)
{
	char *buf = NULL, err[256];
	size_t len;

	if (sio_read_file(path, 1 << 20, &buf, &len, err, sizeof(err)))
		return NULL;
	return buf;
}

#define RUN(extra) "{\"id\": \"mixed-r0\", \"mode\": \"mixed\", \"status\": \"pending\"" extra "}"
#define RESULTS(runs) "{\"schema_version\": 1, \"host\": {}, \"runs\": [" runs "]}"

/* results.json TEXT is refused with "DIR/results.json: MSG". */
static void refused(const char *text, const char *msg)
{
	struct results r;
	char err[1024] = "", want[1200];

	put("results.json", text);
	assert_int_equal(results_open(&r, tu_dir, err, sizeof(err)), -1);
	assert_null(r.root);
	snprintf(want, sizeof(want), "%s/results.json: %s", tu_dir, msg);
	if (strncmp(err, want, strlen(want)))
		fail_msg("expected '%s' at the start of '%s'", want, err);
	if (strchr(err, '\n'))
		fail_msg("not one line: '%s'", err);
}

static void test_refused(void **s)
{
	(void)s;
	refused(RESULTS("{}"), "$.runs[0].id: missing");
	refused(RESULTS("1"), "$.runs[0]: expected an object, not an integer");
	refused(RESULTS("null"), "$.runs[0]: expected an object, not null");
	refused(RESULTS("{\"id\": \"mixed-r0\", \"mode\": \"mixed\", \"status\": 5}"),
		"$.runs[0].status: expected a string (ok, failed, stalled, pending or running), not "
		"an integer");
	refused(RESULTS("{\"id\": \"mixed-r0\", \"mode\": \"mixed\", \"status\": \"done\"}"),
		"$.runs[0].status: \"done\" is not ok, failed, stalled, pending or running");
	refused(RESULTS("{\"id\": \"mixed-r0\", \"status\": \"pending\"}"),
		"$.runs[0].mode: missing (physical, cluster, mixed)");
	refused(RESULTS("{\"id\": \"warp-r0\", \"mode\": \"warp\", \"status\": \"pending\"}"),
		"$.runs[0].mode: \"warp\" is not a mode (physical, cluster, mixed)");
	refused(RESULTS("{\"id\": \"x\", \"mode\": [\"mixed\"], \"status\": \"pending\"}"),
		"$.runs[0].mode: expected a string (physical, cluster, mixed), not an array");
	refused(RESULTS(RUN("") ", {\"id\": \"../../../../tmp/y\", \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[1].id: \"../../../../tmp/y\" is not a valid run id");
	refused(RESULTS("{\"id\": \"a/b\", \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[0].id: \"a/b\" is not a valid run id");
	refused(RESULTS("{\"id\": \"..\", \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[0].id: \"..\" is not a valid run id");
	refused(RESULTS("{\"id\": \"\", \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[0].id: \"\" is not a valid run id");
	refused(RESULTS("{\"id\": 7, \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[0].id: expected a string (a run id), not an integer");
	/* a control character stays escaped: the message is one line */
	refused(RESULTS("{\"id\": \"a\\nb\", \"mode\": \"mixed\", \"status\": \"pending\"}"),
		"$.runs[0].id: \"a\\x0ab\" is not a valid run id");
	refused(RESULTS(RUN("") "," RUN("")), "$.runs[1].id: \"mixed-r0\" is also $.runs[0].id");
	refused(RESULTS(RUN(", \"cpus\": 0")), "$.runs[0].cpus: 0 is not in [1, 4096]");
	refused(RESULTS(RUN(", \"cpus\": \"16\"")), "$.runs[0].cpus: expected an integer, not a string");
	refused(RESULTS(RUN(", \"cpus\": 16, \"maxcpus\": 8")), "$.runs[0].maxcpus: below $.runs[0].cpus");
	refused(RESULTS(RUN(", \"repetition\": -1")), "$.runs[0].repetition: -1 is not in [0, 999]");
	refused(RESULTS(""), "$.runs: empty");
	/* a [guest] config's set: runs empty, guest_runs checked instead */
#define GRESULTS(g) "{\"schema_version\": 1, \"runs\": [], \"guest_runs\": [" g "]}"
#define GRUN(extra) "{\"id\": \"apic-r0\", \"ipi_path\": \"apic\", \"status\": \"ok\"" extra "}"
	refused(GRESULTS(""), "$.runs: empty");
	refused("{\"schema_version\": 1, \"runs\": [], \"guest_runs\": {}}",
		"$.guest_runs: expected an array, not an object");
	refused(GRESULTS("3"), "$.guest_runs[0]: expected an object, not an integer");
	refused(GRESULTS("{\"ipi_path\": \"apic\", \"status\": \"ok\"}"),
		"$.guest_runs[0].id: missing (a run id)");
	refused(GRESULTS("{\"id\": 5, \"ipi_path\": \"apic\", \"status\": \"ok\"}"),
		"$.guest_runs[0].id: expected a string (a run id), not an integer");
	refused(GRESULTS("{\"id\": \"../x\", \"ipi_path\": \"apic\", \"status\": \"ok\"}"),
		"$.guest_runs[0].id: \"../x\" is not a valid run id");
	refused(GRESULTS(GRUN("") "," GRUN("")), "$.guest_runs[1].id: \"apic-r0\" is also $.guest_runs[0].id");
	refused(GRESULTS("{\"id\": \"a\", \"ipi_path\": \"msi\", \"status\": \"ok\"}"),
		"$.guest_runs[0].ipi_path: expected evtchn or apic");
	refused(GRESULTS("{\"id\": \"a\", \"ipi_path\": \"apic\", \"status\": \"done\"}"),
		"$.guest_runs[0].status: \"done\" is not ok, failed, pending or running");
	refused(GRESULTS(GRUN(", \"repetition\": 1000")),
		"$.guest_runs[0].repetition: expected an integer in [0, 999]");
	{
		struct results r;
		char err[1024];

		put("results.json", GRESULTS(GRUN("")));
		assert_int_equal(results_open(&r, tu_dir, err, sizeof(err)), 0);
		assert_int_equal(json_array_size(results_guest_runs(&r)), 1);
		results_close(&r);
	}
	{
		/* more runs than any matrix plans (the id check is quadratic) */
		size_t n = 3001, len = 64 + n * 80;
		char *big = malloc(len), *p = big;

		assert_non_null(big);
		p += sprintf(p, "{\"schema_version\": 1, \"runs\": [");
		for (size_t i = 0; i < n; i++)
			p += sprintf(p, "%s{\"id\": \"mixed-r%zu\", \"mode\": \"mixed\", \"status\": \"ok\"}",
				     i ? "," : "", i);
		strcpy(p, "]}");
		refused(big, "$.runs: 3001 runs, more than the 3000 a matrix can plan");
		free(big);
	}
	refused("{\"schema_version\": 1, \"runs\": {}}", "$.runs: expected an array, not an object");
	refused("{\"schema_version\": 1}", "$.runs: missing");
	refused("{\"schema_version\": 1, \"host\": [], \"runs\": [" RUN("") "]}",
		"$.host: expected an object, not an array");
	refused("{\"runs\": [" RUN("") "]}", "$.schema_version: missing");
	refused("{\"schema_version\": 2, \"runs\": [" RUN("") "]}",
		"$.schema_version: expected 1 (written by a newer ipibench?)");
	refused("{\"schema_version\": \"1\", \"runs\": [" RUN("") "]}", "$.schema_version: expected 1");
	refused("[1]", "$: expected an object (ipibench results), not an array");
}

static void test_not_json(void **s)
{
	struct results r;
	char err[1024], path[256];

	(void)s;
	put("results.json", "{\"schema_version\": 1,");
	assert_int_equal(results_open(&r, tu_dir, err, sizeof(err)), -1);
	snprintf(path, sizeof(path), "%s/results.json:1:", tu_dir);
	assert_non_null(strstr(err, path));
	/* not a regular file */
	snprintf(path, sizeof(path), "%s/results.json", tu_dir);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(results_open(&r, tu_dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
}

/* What the runner writes reads back; "running" is the run a kill interrupted. */
static void test_accepted(void **s)
{
	struct config c;
	struct results r;
	char err[1024] = "", sub[128];

	(void)s;
	assert_int_equal(config_load_string("a.ini", "[host]\nbackend = local\ncpus = 4\n[matrix]\n"
		"modes = physical, cluster, mixed\nrepetitions = 2\norder = randomized\n"
		"[workload:f]\ntype = flush_tlb_all\n", &c, err, sizeof(err)), 0);
	snprintf(sub, sizeof(sub), "%s/new", tu_dir);
	assert_int_equal(results_create(&r, sub, "a.ini", &c, err, sizeof(err)), 0);
	results_close(&r);
	config_free(&c);
	if (results_open(&r, sub, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(json_array_size(results_runs(&r)), 6);
	assert_non_null(results_run_get(&r, "cluster-r1"));
	results_close(&r);

	put("results.json", RESULTS(RUN(", \"cpus\": 16, \"maxcpus\": 20, \"repetition\": 0")
		", {\"id\": \"physical-r0\", \"mode\": \"physical\", \"status\": \"running\"}"
		", {\"id\": \"cluster-r0\", \"mode\": \"cluster\", \"status\": \"failed\", \"extra\": 1}"
		", {\"id\": \"cluster-r1\", \"mode\": \"cluster\", \"status\": \"ok\"}"
		", {\"id\": \"mixed-r1\", \"mode\": \"mixed\", \"status\": \"stalled\", "
		"\"stall\": {\"reason\": \"stall\", \"evidence\": \"runs/mixed-r1/stall\"}}"));
	if (results_open(&r, tu_dir, err, sizeof(err)))
		fail_msg("%s", err);
	results_close(&r);
	/* A guest run has no stall window. */
	refused(GRESULTS("{\"id\": \"apic-r0\", \"ipi_path\": \"apic\", \"status\": \"stalled\"}"),
		"$.guest_runs[0].status: \"stalled\" is not ok, failed, pending or running");
}

/* results.json is written atomically by safeio: no planted symlink followed, no temp left. */
static void test_save_atomic(void **s)
{
	struct config c;
	struct results r;
	char err[1024] = "", sub[128], victim[160], planted[160], cmd[512], *text;

	(void)s;
	assert_int_equal(config_load_string("a.ini", local_config_text(), &c, err, sizeof(err)), 0);
	snprintf(sub, sizeof(sub), "%s/set", tu_dir);
	snprintf(victim, sizeof(victim), "%s/victim", tu_dir);
	snprintf(planted, sizeof(planted), "%s/results.json.tmp", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	put("victim", "keep me\n");
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(results_create(&r, sub, "a.ini", &c, err, sizeof(err)), 0);
	assert_int_equal(results_save(&r, err, sizeof(err)), 0);
	results_close(&r);
	text = slurp(victim);
	assert_string_equal(text, "keep me\n");
	free(text);
	/* config.ini is the text parsed, byte for byte */
	snprintf(cmd, sizeof(cmd), "%s/config.ini", sub);
	text = slurp(cmd);
	assert_string_equal(text, c.text);
	free(text);
	config_free(&c);
	unlink(planted);
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'config.ini results.json '", sub);
	assert_int_equal(system(cmd), 0);
}

/* Run `ipibench run ARGS...` in this process; its stderr in *text. */
static int run_cmd(char **text, const char *const *args)
{
	char *argv[16], log[128];
	int argc = 0, rc, saved, fd;

	for (argv[argc++] = "run"; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	snprintf(log, sizeof(log), "%s.log", tu_dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	rc = cmd_run(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*text = slurp(log);
	unlink(log);
	assert_non_null(*text);
	return rc;
}


/*
 * `ipibench run --resume DIR` on a poisoned results.json: exit 2 with the
 * reader's line, and nothing started: no DIR/runs, no DIR/traces, no file
 * written where a run id points, results.json as it was.
 */
static void resume_refused(const char *results, const char *msg)
{
	char path[256], escape[128], *text, *before, *after;
	struct stat st;

	put("config.ini", local_config);
	put("results.json", results);
	snprintf(path, sizeof(path), "%s/results.json", tu_dir);
	before = slurp(path);
	assert_int_equal(run_cmd(&text, (const char *[]){ "--resume", tu_dir, NULL }), 2);
	if (!strstr(text, msg))
		fail_msg("expected '%s' in '%s'", msg, text);
	assert_non_null(strstr(text, "/results.json: $."));
	free(text);
	snprintf(path, sizeof(path), "%s/runs", tu_dir);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/traces", tu_dir);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(escape, sizeof(escape), "/tmp/ipibench-escape-%d", (int)getpid());
	assert_int_not_equal(stat(escape, &st), 0);
	snprintf(path, sizeof(path), "%s/results.json", tu_dir);
	after = slurp(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_resume_refused(void **s)
{
	char results[512];

	(void)s;
	resume_refused(RESULTS("{}"), "$.runs[0].id: missing");
	resume_refused(RESULTS("1"), "$.runs[0]: expected an object");
	resume_refused(RESULTS("{\"id\": \"mixed-r0\", \"mode\": \"mixed\", \"status\": 5}"),
		       "$.runs[0].status: expected a string");
	resume_refused(RESULTS("{\"id\": \"mixed-r0\", \"status\": \"pending\"}"), "$.runs[0].mode: missing");
	resume_refused(RESULTS("{\"id\": \"mixed-r0\", \"mode\": \"warp\", \"status\": \"pending\"}"),
		       "$.runs[0].mode: \"warp\" is not a mode (physical, cluster, mixed)");
	snprintf(results, sizeof(results), RESULTS("{\"id\": \"../../../../../../tmp/ipibench-escape-%d\", "
		 "\"mode\": \"mixed\", \"status\": \"pending\"}"), (int)getpid());
	resume_refused(results, "$.runs[0].id: \"../../../../../../tmp/ipibench-escape-");
}

/*
 * The control: a valid results.json does go on (DIR/runs/mixed-r0/job.json
 * is written and the run is tried), so the refusals above are the reader's.
 * The local backend stops at once off a Xen dom0: nothing boots.
 */
static void test_resume_goes_on_when_valid(void **s)
{
	char path[256], *text;
	struct stat st;

	(void)s;
	if (!access("/proc/xen/capabilities", F_OK))
		skip();   /* a dom0 would really run the workloads */
	put("config.ini", local_config);
	put("results.json", RESULTS(RUN("")));
	assert_int_equal(run_cmd(&text, (const char *[]){ "--resume", tu_dir, NULL }), 1);
	assert_non_null(strstr(text, "mixed-r0: failed: this host is not a Xen dom0"));
	free(text);
	snprintf(path, sizeof(path), "%s/runs/mixed-r0/job.json", tu_dir);
	assert_int_equal(stat(path, &st), 0);
}

/* A host name with a path in it never becomes a directory (run without -o). */
static void test_host_name_escape(void **s)
{
	char cfg[512], path[256], *text;
	struct stat st;

	(void)s;
	snprintf(cfg, sizeof(cfg), "[host]\nbackend = local\nname = ../../../../../../tmp/ipibench-escape-%d\n"
		 "[matrix]\nmodes = mixed\n[workload:f]\ntype = flush_tlb_all\n", (int)getpid());
	put("bad.ini", cfg);
	snprintf(path, sizeof(path), "%s/bad.ini", tu_dir);
	assert_int_equal(run_cmd(&text, (const char *[]){ "-c", path, NULL }), 2);
	if (!strstr(text, "bad.ini:3: name = ../../../../../../tmp/ipibench-escape-"))
		fail_msg("unexpected: %s", text);
	free(text);
	snprintf(path, sizeof(path), "/tmp/ipibench-escape-%d", (int)getpid());
	assert_int_not_equal(stat(path, &st), 0);
	/* and -c of a device or a directory is refused at once */
	assert_int_equal(run_cmd(&text, (const char *[]){ "-c", "/dev/zero", NULL }), 2);
	assert_non_null(strstr(text, "/dev/zero: not a regular file"));
	free(text);
	assert_int_equal(run_cmd(&text, (const char *[]){ "-c", "/dev/urandom", NULL }), 2);
	assert_non_null(strstr(text, "/dev/urandom: not a regular file"));
	free(text);
	assert_int_equal(run_cmd(&text, (const char *[]){ "-c", tu_dir, NULL }), 2);
	assert_non_null(strstr(text, ": not a regular file"));
	free(text);
}

/* A sweep's result sets are all checked before the first boot. */
static void test_resume_sweep_refused(void **s)
{
	char path[256], *text;
	struct stat st;

	(void)s;
	put("config.ini", "[host]\nbackend = local\ncpus = 4\n[matrix]\nmodes = mixed\ncpus = 4, 8\n"
	    "[workload:f]\ntype = flush_tlb_all\n");
	snprintf(path, sizeof(path), "%s/c8", tu_dir);
	assert_int_equal(mkdir(path, 0755), 0);
	put("c8/results.json", RESULTS("{\"id\": \"mixed-r0\", \"mode\": \"warp\", \"status\": \"pending\"}"));
	assert_int_equal(run_cmd(&text, (const char *[]){ "--resume", tu_dir, NULL }), 2);
	if (!strstr(text, "c8/results.json: $.runs[0].mode: \"warp\" is not a mode"))
		fail_msg("unexpected: %s", text);
	free(text);
	snprintf(path, sizeof(path), "%s/c4", tu_dir);
	assert_int_not_equal(stat(path, &st), 0);   /* the first count did not start */
	/* one CPU count resumed on its own needs its runs' cpus */
	put("c8/config.ini", "[host]\nbackend = local\ncpus = 4\n[matrix]\nmodes = mixed\ncpus = 4, 8\n"
	    "[workload:f]\ntype = flush_tlb_all\n");
	put("c8/results.json", RESULTS(RUN("")));
	snprintf(path, sizeof(path), "%s/c8", tu_dir);
	assert_int_equal(run_cmd(&text, (const char *[]){ "--resume", path, NULL }), 2);
	if (!strstr(text, "c8/results.json: $.runs[0]: no cpus and maxcpus"))
		fail_msg("unexpected: %s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_not_json, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_accepted, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_save_atomic, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_resume_refused, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_resume_goes_on_when_valid, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_host_name_escape, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_resume_sweep_refused, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests_name("runner: results", tests, NULL, NULL);
}
