/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/tests/test_hostile.c: the real `ipibench report` and `ipibench
 * history` binaries on poisoned results (as a test host or the previous
 * pipeline's tarball could hand them to CI).  Each case runs in a fresh
 * temporary tree; the test checks the exit status, that the message is one
 * line naming the file and the JSON path, that no file appears outside the
 * output directory and that the gnuplot payload never ran.
 *
 * The binary: $IPIBENCH, else build/asan/bin/ipibench (built before this
 * test by analysis.mk), else build/bin/ipibench; run from the repository.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "ipibench/counters.h"
#include "ipibench/modes.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"
#include "tests/unit/unit.h"

static char bin[PATH_MAX];
static char repo[1024];

/* The payload every injection tries: it creates this file when gnuplot runs it. */
#define MARKER "/tmp/ipibench-hostile-pwned"
#define GP_PAYLOAD "mixed' ; system('touch " MARKER "') ; print '"

static int find_bin(void **state)
{
	(void)state;
	const char *e = getenv("IPIBENCH");
	const char *cands[] = { e && *e ? e : NULL, "build/asan/bin/ipibench",
				"build/bin/ipibench" };
	if (!getcwd(repo, sizeof(repo)))
		return -1;
	for (size_t i = 0; i < 3; i++)
		if (cands[i] && access(cands[i], X_OK) == 0 && realpath(cands[i], bin))
			return 0;
	fprintf(stderr, "test_hostile: no ipibench binary (make build/asan/bin/ipibench)\n");
	return -1;
}

struct result {
	int rc;		/* exit status; -1: killed after the timeout */
	char err[8192];	/* stderr */
};

/* Run bin ARGS... in cwd with stdout discarded; 60 s at most. */
static void run_in(struct result *r, const char *cwd, const char *const *args)
{
	char errf[PATH_MAX];
	snprintf(errf, sizeof(errf), "%s/../stderr-%ld.txt", cwd, (long)getpid());
	const char *argv[32];
	size_t n = 0;
	argv[n++] = bin;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_WRONLY);
		if (fd < 0 || nul < 0 || chdir(cwd))
			_exit(125);
		dup2(nul, 1);
		dup2(fd, 2);
		execv(bin, (char **)argv);
		_exit(127);
	}
	int st = 0;
	r->rc = -1;
	for (struct tu_wait w = tu_wait_start(60000); tu_wait_more(&w);)
		if (waitpid(pid, &st, WNOHANG) == pid) {
			r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
	if (r->rc == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	char *s = slurp(errf);
	snprintf(r->err, sizeof(r->err), "%s", s ? s : "");
	free(s);
	unlink(errf);
}

/* ---- the tree listing -------------------------------------------------- */
static struct sbuf *listing;
static const char *list_skip;	/* the output directory: may change */

static int list_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)type;
	(void)f;
	if (list_skip && !strncmp(p, list_skip, strlen(list_skip)))
		return 0;
	sb_printf(listing, "%s %o %lld\n", p, (unsigned)st->st_mode, (long long)st->st_size);
	return 0;
}

static char *list_tree(const char *root, const char *skip)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "");
	listing = &b;
	list_skip = skip;
	nftw(root, list_one, 16, FTW_PHYS);
	listing = NULL;
	return b.s;
}

static void rm_tree(const char *root)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A results.json that report and history accept (three modes, 8 samples). */
static json_t *good_results(void)
{
	json_t *runs = json_array();
	const char *modes[] = { "physical", "cluster", "mixed" };
	for (int m = 0; m < 3; m++) {
		json_t *ns = json_array();
		for (int i = 0; i < 8; i++)
			json_array_append_new(ns, json_integer(1000 + 10 * m + i));
		char id[32];
		snprintf(id, sizeof(id), "%s-r0", modes[m]);
		json_array_append_new(runs, json_pack(
			"{s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:{s:o}, s:{s:i, s:i}}]}",
			"id", id, "mode", modes[m], "status", "ok", "genapic",
			ipibench_mode_genapic(modes[m]), "workloads", "name", "flush", "type",
			"flush_tlb_all", "status", "ok", "path", "genapic", "samples", "ns", ns,
			"counters", "operations", 8, "icr_writes", 8 * (m ? 1 : 7)));
	}
	return json_pack("{s:i, s:{s:s}, s:s, s:{s:s, s:s, s:i, s:b}, s:o}",
			 "schema_version", 1, "tool", "commit", "abc1234",
			 "created", "2026-11-30T09:00:00Z",
			 "host", "name", "qemu-tcg", "backend", "qemu", "cpus", 8,
			 "emulated", true, "runs", runs);
}

/* One poisoned case: a fresh tree T with T/in (the input) and T/out. */
struct tree {
	char root[1024], in[1100], out[1100];
};

static void tree_new(struct tree *t)
{
	char *d = make_tmpdir();
	assert_non_null(d);
	snprintf(t->root, sizeof(t->root), "%s", d);
	free(d);
	snprintf(t->in, sizeof(t->in), "%s/in", t->root);
	snprintf(t->out, sizeof(t->out), "%s/out", t->root);
	assert_int_equal(mkdir(t->in, 0755), 0);
}

static void write_json(const char *path, json_t *j)
{
	assert_int_equal(json_dump_file(j, path, JSON_COMPACT), 0);
	json_decref(j);
}

/*
 * Run report and history on INPUT (relative to T/in) and check: both fail
 * with status 1 and one line "ipibench CMD: <file>: <path>: ...", containing
 * want; nothing outside T/out changed; the marker was never created.
 */
static void expect_refused(struct tree *t, const char *input, const char *want)
{
	char *before = list_tree(t->root, t->out);
	const char *cmds[] = { "report", "history" };
	for (size_t c = 0; c < 2; c++) {
		struct result r;
		const char *args[] = { cmds[c], "-q", "-o", t->out, input, NULL };
		run_in(&r, t->in, args);
		size_t len = strlen(r.err);
		bool one_line = len > 0 && r.err[len - 1] == '\n' && strchr(r.err, '\n') == r.err + len - 1;
		if (r.rc != 1 || !strstr(r.err, want) || !one_line)
			fail_msg("%s %s: status %d, wanted 1 and one line with '%s'; stderr:\n%s",
				 cmds[c], input, r.rc, want, r.err);
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "ipibench %s: ", cmds[c]);
		assert_true(!strncmp(r.err, prefix, strlen(prefix)));
		/* nothing written: no report, no history, no plot */
		char *p = path2(t->out, c ? "index.html" : "report.md");
		assert_int_equal(file_size(p), -1);
		free(p);
	}
	char *after = list_tree(t->root, t->out);
	assert_string_equal(before, after);
	free(before);
	free(after);
	assert_int_equal(access(MARKER, F_OK), -1);
}

/* results.json in T/in/NAME/ with one field of good_results() replaced. */
static void poisoned(const char *what, void (*poison)(json_t *), const char *want)
{
	struct tree t;
	tree_new(&t);
	char dir[PATH_MAX + 16], f[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s/set", t.in);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(f, sizeof(f), "%s/results.json", dir);
	json_t *j = good_results();
	poison(j);
	write_json(f, j);
	(void)what;
	expect_refused(&t, "set", want);
	/* the file named directly, too */
	expect_refused(&t, "set/results.json", want);
	rm_tree(t.root);
}

static json_t *run0(json_t *j)
{
	return json_array_get(json_object_get(j, "runs"), 0);
}

static json_t *wl0(json_t *j)
{
	return json_array_get(json_object_get(run0(j), "workloads"), 0);
}

static void p_mode(json_t *j) { json_object_set_new(run0(j), "mode", json_string(GP_PAYLOAD)); }
static void p_host(json_t *j)
{
	json_object_set_new(json_object_get(j, "host"), "name",
			    json_string("qemu' ; system('touch " MARKER "') ; print '"));
}
static void p_wname(json_t *j)
{
	json_object_set_new(wl0(j), "name", json_string("flush' ; system('touch " MARKER "') ; print '"));
}
static void p_script(json_t *j)
{
	json_object_set_new(json_object_get(j, "host"), "name",
			    json_string("<script>alert(1)</script>"));
}
static void p_wscript(json_t *j)
{
	json_object_set_new(wl0(j), "name", json_string("<img src=x onerror=alert(1)>"));
}
static void p_dotdot(json_t *j) { json_object_set_new(run0(j), "id", json_string("../../../../tmp/y")); }
static void p_hdotdot(json_t *j)
{
	json_object_set_new(json_object_get(j, "host"), "name", json_string("../../../../tmp/x"));
}
static void p_warp(json_t *j) { json_object_set_new(run0(j), "mode", json_string("warp")); }
static void p_status5(json_t *j) { json_object_set_new(run0(j), "status", json_integer(5)); }
static void p_empty_run(json_t *j) { json_array_set_new(json_object_get(j, "runs"), 0, json_object()); }
static void p_run_int(json_t *j) { json_array_set_new(json_object_get(j, "runs"), 1, json_integer(1)); }
static void p_runs_obj(json_t *j) { json_object_set_new(j, "runs", json_object()); }
static void p_cpus_str(json_t *j) { json_object_set_new(json_object_get(j, "host"), "cpus", json_string("16")); }
static void p_cpus_neg(json_t *j) { json_object_set_new(json_object_get(j, "host"), "cpus", json_integer(-3)); }
static void p_sample_str(json_t *j)
{
	json_array_set_new(json_object_get(json_object_get(wl0(j), "samples"), "ns"), 2,
			   json_string("fast"));
}
static void p_sample_huge(json_t *j)
{
	json_array_set_new(json_object_get(json_object_get(wl0(j), "samples"), "ns"), 0,
			   json_real(1e300));
}
static void p_samples_arr(json_t *j) { json_object_set_new(wl0(j), "samples", json_array()); }
static void p_counter_real(json_t *j)
{
	json_object_set_new(json_object_get(wl0(j), "counters"), "icr_writes", json_real(-1.5));
}
/* every counter of the contract is checked by its kind, not only those
 * analysis sums */
static void p_per_cpu_str(json_t *j)
{
	json_object_set_new(json_object_get(wl0(j), "counters"), "ipis_per_cpu",
			    json_pack("[i, s]", 3, "many"));
}
static void p_received_obj(json_t *j)
{
	json_object_set_new(json_object_get(wl0(j), "counters"), "ipis_received", json_object());
}
/* insn_counts too: a count is an integer, the cross-check a boolean */
static void p_insn_real_count(json_t *j)
{
	json_object_set_new(wl0(j), "insn_counts", json_pack("{s:f}", "handlers", 2.5));
}
static void p_insn_match_str(json_t *j)
{
	json_object_set_new(wl0(j), "insn_counts", json_pack("{s:s}", "icr_match", "yes"));
}
static void p_schema_str(json_t *j) { json_object_set_new(j, "schema_version", json_string("1")); }
static void p_no_schema(json_t *j) { json_object_del(j, "schema_version"); }
static void p_newline(json_t *j)
{
	json_object_set_new(run0(j), "mode", json_string("mixed\nset output '/tmp/x'"));
}
static void p_commit(json_t *j)
{
	json_object_set_new(json_object_get(j, "tool"), "commit", json_string("abc`touch x`"));
}
static void p_created(json_t *j) { json_object_set_new(j, "created", json_string("<b>today</b>")); }
static void p_wstatus(json_t *j) { json_object_set_new(wl0(j), "status", json_string("fine")); }

/* Paired loops: ns, calls, sender and pair; loop 0's pair is BIG. */
static void paired_loops(json_t *j, size_t n, json_int_t big)
{
	json_t *loops = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(loops, json_pack("{s:i, s:i, s:s, s:I}", "ns", 1000, "calls", 10,
						       "sender", k % 2 ? "cluster" : "physical", "pair",
						       (json_int_t)(k ? k / 2 : (size_t)big)));
	json_object_set_new(wl0(j), "loops", loops);
}
static void p_pair_huge(json_t *j) { paired_loops(j, 4, (json_int_t)1 << 62); }
static void p_pair_1e8(json_t *j) { paired_loops(j, 2000, 100000000); }
static void p_insn_huge(json_t *j)
{
	json_object_set_new(wl0(j), "insn_counts",
			    json_pack("{s:i, s:f}", "operations", 8, "send_insns_per_op", 1.2345e200));
}
static void p_created_9(json_t *j) { json_object_set_new(j, "created", json_string("9")); }
static void p_created_feb30(json_t *j)
{
	json_object_set_new(j, "created", json_string("2026-02-30T09:00:00Z"));
}

/* What one input may make the tool do: pair indices are not sizes, numbers
 * have upper bounds, dates are dates; each refused in one line naming the
 * JSON path, before any work. */
static void unbounded_inputs_are_refused(void **state)
{
	(void)state;
	poisoned("pair 2^62", p_pair_huge, "results.json: $.runs[0].workloads[0].loops[0].pair: "
		 "4611686018427387904 is not a pair index from 0 to 3");
	poisoned("pair 1e8 in 2000 loops", p_pair_1e8, "results.json: $.runs[0].workloads[0]"
		 ".loops[0].pair: 100000000 is not a pair index from 0 to 1999");
	poisoned("insn_counts 1e200", p_insn_huge,
		 "results.json: $.runs[0].workloads[0].insn_counts.send_insns_per_op: ");
	poisoned("created 9", p_created_9, "results.json: $.created: \"9\" is not an ISO 8601");
	poisoned("created Feb 30", p_created_feb30,
		 "results.json: $.created: \"2026-02-30T09:00:00Z\" is not an ISO 8601");
}

/* Fields that the contract's rows brought under the reader's checks. */
static void p_loop_sender(json_t *j)
{
	json_object_set_new(wl0(j), IPB_KEY(WL_LOOPS), json_pack("[{s:i, s:i, s:s}]", "ns", 1000,
								  "calls", 10, "sender", "../../x"));
}
static void p_sample_cpu(json_t *j)
{
	json_object_set_new(json_object_get(wl0(j), "samples"), "cpu", json_pack("[i, i]", 1, -1));
}
static void p_wall_s(json_t *j) { json_object_set_new(run0(j), "wall_s", json_string("87")); }
static void p_evidence(json_t *j)
{
	json_object_set_new(run0(j), "stall", json_pack("{s:[]}", "evidence"));
}

static void poisoned_fields_are_refused(void **state)
{
	(void)state;
	unlink(MARKER);
	poisoned("gnuplot in mode", p_mode, "results.json: $.runs[0].mode: \"mixed' ; system(");
	poisoned("gnuplot in host", p_host, "results.json: $.host.name: \"qemu' ; system(");
	poisoned("gnuplot in workload", p_wname, "results.json: $.runs[0].workloads[0].name: ");
	poisoned("html in host", p_script, "results.json: $.host.name: \"<script>");
	poisoned("html in workload", p_wscript, "results.json: $.runs[0].workloads[0].name: ");
	poisoned("../ in run id", p_dotdot, "results.json: $.runs[0].id: \"../../../../tmp/y\" is not a valid name");
	poisoned("../ in host", p_hdotdot, "results.json: $.host.name: \"../../../../tmp/x\"");
	poisoned("unknown mode", p_warp,
		 "results.json: $.runs[0].mode: \"warp\" is not a mode (physical, cluster, mixed)");
	poisoned("status 5", p_status5, "results.json: $.runs[0].status: must be a string, not 5");
	poisoned("[{}]", p_empty_run, "results.json: $.runs[0].id: missing");
	poisoned("a number as run", p_run_int, "results.json: $.runs[1]: must be an object, not 1");
	poisoned("runs an object", p_runs_obj, "results.json: $.runs: must be an array, not an object");
	poisoned("cpus a string", p_cpus_str, "results.json: $.host.cpus: \"16\" is not an integer from 1 to");
	poisoned("cpus negative", p_cpus_neg, "results.json: $.host.cpus: -3 is not an integer");
	poisoned("sample a string", p_sample_str,
		 "results.json: $.runs[0].workloads[0].samples.ns[2]: \"fast\" is not a number");
	poisoned("sample 1e300", p_sample_huge, "results.json: $.runs[0].workloads[0].samples.ns[0]: ");
	poisoned("samples an array", p_samples_arr,
		 "results.json: $.runs[0].workloads[0].samples: must be an object, not an array");
	poisoned("counter negative", p_counter_real,
		 "results.json: $.runs[0].workloads[0].counters.icr_writes: -1.5 is not an integer");
	poisoned("a per-CPU counter with a string", p_per_cpu_str,
		 "results.json: $.runs[0].workloads[0].counters.ipis_per_cpu[1]: \"many\" is not an integer");
	poisoned("a count as an object", p_received_obj,
		 "results.json: $.runs[0].workloads[0].counters.ipis_received: ");
	poisoned("an instruction count not whole", p_insn_real_count,
		 "results.json: $.runs[0].workloads[0].insn_counts.handlers: 2.5 is not an integer");
	poisoned("the ICR cross-check a string", p_insn_match_str,
		 "results.json: $.runs[0].workloads[0].insn_counts.icr_match: must be true or false, not \"yes\"");
	poisoned("schema_version a string", p_schema_str,
		 "results.json: $.schema_version: \"1\" is not a positive integer");
	poisoned("no schema_version", p_no_schema, "results.json: $.schema_version: missing");
	poisoned("newline in mode", p_newline, "results.json: $.runs[0].mode: \"mixed\\nset output");
	poisoned("backquote in commit", p_commit, "results.json: $.tool.commit: \"abc`touch x`\"");
	poisoned("html in created", p_created, "results.json: $.created: \"<b>today</b>\" is not an ISO 8601");
	poisoned("a loop's sender a path", p_loop_sender,
		 "results.json: $.runs[0].workloads[0].loops[0].sender: \"../../x\" is not a valid name");
	poisoned("a CPU sample negative", p_sample_cpu,
		 "results.json: $.runs[0].workloads[0].samples.cpu[1]: -1 is not a number");
	poisoned("wall_s a string", p_wall_s, "results.json: $.runs[0].wall_s: \"87\" is not a number");
	poisoned("stall evidence an array", p_evidence,
		 "results.json: $.runs[0].stall.evidence: must be a string, not an array");
	poisoned("workload status", p_wstatus,
		 "results.json: $.runs[0].workloads[0].status: \"fine\" is not a workload status (ok, failed)");
	assert_int_equal(access(MARKER, F_OK), -1);
}

/* Not JSON objects, not regular files, not there: refused at once. */
static void files_that_are_not_results(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/array.json", t.in);
	write_json(p, json_pack("[i]", 1));
	expect_refused(&t, "array.json", "array.json: $: must be an object");
	snprintf(p, sizeof(p), "%s/runs-list.json", t.in);
	write_json(p, json_pack("{s:i, s:[{}]}", "schema_version", 1, "runs"));
	expect_refused(&t, "runs-list.json", "runs-list.json: $.runs[0].id: missing");
	snprintf(p, sizeof(p), "%s/dup.json", t.in);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"schema_version\": 1, \"runs\": [], \"runs\": [1]}\n", f);
	fclose(f);
	expect_refused(&t, "dup.json", "dup.json:1:");
	/* /dev/zero and a FIFO would block or never end if read */
	expect_refused(&t, "/dev/zero", "/dev/zero: not a regular file");
	snprintf(p, sizeof(p), "%s/fifo", t.in);
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_refused(&t, "fifo", "fifo: not a regular file");
	/* a FIFO or a directory where results.json should be */
	snprintf(p, sizeof(p), "%s/fifodir", t.in);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/fifodir/results.json", t.in);
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_refused(&t, "fifodir", "fifodir/results.json: not a regular file");
	snprintf(p, sizeof(p), "%s/dirdir/results.json", t.in);
	char d1[PATH_MAX + 32];
	snprintf(d1, sizeof(d1), "%s/dirdir", t.in);
	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	expect_refused(&t, "dirdir", "dirdir/results.json: not a regular file");
	/* a symbolic link as results.json in a directory: refused, not followed */
	snprintf(d1, sizeof(d1), "%s/linkdir", t.in);
	assert_int_equal(mkdir(d1, 0755), 0);
	snprintf(p, sizeof(p), "%s/linkdir/results.json", t.in);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	expect_refused(&t, "linkdir", "linkdir/results.json: a symbolic link");
	rm_tree(t.root);
}

/* Accepted free text (CPU model, error, hyperfine command, file names)
 * reaches Markdown, HTML and gnuplot escaped: the report is made, the
 * payload in a hyperfine file's name (which goes into a plot title) never
 * runs, nothing is written outside OUT. */
static void free_text_is_escaped(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	char set[PATH_MAX + 16], p[PATH_MAX + 128];
	snprintf(set, sizeof(set), "%s/set", t.in);
	assert_int_equal(mkdir(set, 0755), 0);
	json_t *j = good_results();
	json_object_set_new(json_object_get(j, "host"), "cpu_model",
			    json_string("</td><script>alert(1)</script> | `x`\n# heading"));
	json_object_set_new(json_object_get(j, "host"), "xen_version",
			    json_string("4.17 <script>alert(2)</script> | `x`\n# heading"));
	json_t *failed = json_pack("{s:s, s:s, s:s, s:s}", "id", "mixed-r1", "mode", "mixed",
				   "status", "failed", "error",
				   "boom | <script>x</script>\n| injected | row |");
	json_array_append_new(json_object_get(j, "runs"), failed);
	snprintf(p, sizeof(p), "%s/results.json", set);
	write_json(p, j);
	/* relative payload: gnuplot runs in OUT, so a broken quote creates OUT/pwned */
	snprintf(p, sizeof(p), "%s/h' ; system('touch pwned') ; print '.json", set);
	write_json(p, json_pack("{s:[{s:s, s:[f, f, f]}]}", "results", "command",
				"echo '`date`' | cat", "times", 0.1, 0.2, 0.3));
	char *before = list_tree(t.root, t.out);
	struct result r;
	const char *args[] = { "report", "-q", "--no-reference", "-o", t.out, "set", NULL };
	run_in(&r, t.in, args);
	if (r.rc != 0)
		fail_msg("report: status %d: %s", r.rc, r.err);
	char *md = path2(t.out, "report.md");
	char *pw = path2(t.out, "pwned");
	assert_int_equal(access(pw, F_OK), -1);
	expect_not_in_file(md, "<script>", "\n| injected");
	expect_in_file(md, "\\<script\\>",
		"| ``echo '`date`' \\| cat`` |",
		"| 4.17 \\<script\\>alert(2)\\</script\\> \\| \\`x\\` \\# heading |");
	free(md);
	free(pw);
	/* the plot title: quoted for gnuplot, not cut */
	char gp[PATH_MAX + 128];
	char *slug = slugify("hyperfine-1-h' ; system('touch pwned') ; print '.json");
	snprintf(gp, sizeof(gp), "%s/%s.gp", t.out, slug);
	free(slug);
	assert_true(file_contains(gp, "set title \"hyperfine h' ; system('touch pwned') ; print '.json:"));
	char *after = list_tree(t.root, t.out);
	assert_string_equal(before, after);
	free(before);
	free(after);
	rm_tree(t.root);
}

/* A stalled run is listed with the failed ones, its evidence named, and
 * counted apart in report.json. */
static void stalled_run_listed(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	char set[PATH_MAX + 16], p[PATH_MAX + 128];
	snprintf(set, sizeof(set), "%s/set", t.in);
	assert_int_equal(mkdir(set, 0755), 0);
	json_t *j = good_results();
	json_array_append_new(json_object_get(j, "runs"), json_pack(
		"{s:s, s:s, s:s, s:s, s:{s:s, s:f, s:i, s:s, s:s}}", "id", "mixed-r1", "mode",
		"mixed", "status", "stalled", "error",
		"stalled: no console output for 20 s in workload flush (dom0 up at 41 s); "
		"evidence in runs/mixed-r1/stall", "stall", "reason", "stall", "after_s", 70.5,
		"window_s", 20, "phase", "workload flush", "evidence", "runs/mixed-r1/stall"));
	snprintf(p, sizeof(p), "%s/results.json", set);
	write_json(p, j);
	struct result r;
	const char *args[] = { "report", "-q", "--no-reference", "-o", t.out, "set", NULL };
	run_in(&r, t.in, args);
	if (r.rc != 0)
		fail_msg("report: status %d: %s", r.rc, r.err);
	char *md = path2(t.out, "report.md"), *rj = path2(t.out, "report.json");
	expect_in_file(md, "| mixed-r1 | mixed | stalled: no console output for 20 s in workload "
		       "flush (dom0 up at 41 s); evidence in runs/mixed-r1/stall (stall evidence: "
		       "set/runs/mixed-r1/stall) |");
	expect_in_file(rj, "\"runs_stalled\": 1");
	free(md);
	free(rj);
	rm_tree(t.root);
}

/* history's index.html and history.md with a result set directory named
 * like a tag (the path appears in the regression line). */
static void history_escapes_html(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd),
		 "cp -r '%s/" DATA "/history/set2' '%s/a' && cp -r '%s/" DATA "/history/set3' "
		 "'%s/<img src=x onerror=alert(1)>'", repo, t.in, repo, t.in);
	assert_int_equal(system(cmd), 0);
	char *before = list_tree(t.root, t.out);
	struct result r;
	const char *args[] = { "history", "-q", "-o", t.out, ".", NULL };
	run_in(&r, t.in, args);
	if (r.rc != 0)
		fail_msg("history: status %d: %s", r.rc, r.err);
	char *html = path2(t.out, "index.html"), *md = path2(t.out, "history.md");
	assert_true(file_contains(html, "&lt;img src=x onerror=alert(1)&gt;/results.json"));
	assert_false(file_contains(html, "<img src=x"));
	assert_true(file_contains(md, "\\<img src=x onerror=alert(1)\\>/results.json"));
	free(html);
	free(md);
	char *after = list_tree(t.root, t.out);
	assert_string_equal(before, after);
	free(before);
	free(after);
	rm_tree(t.root);
}

/* Hosts whose names slugify alike (qemu.tcg, QEMU-tcg, qemu-tcg) each get
 * their own plot files, and report.md and index.html link each host's own
 * plot: its data file holds that host's samples (1000 k + i). */
static void similar_names_get_their_own_plots(void **state)
{
	(void)state;
	static const char *const hosts[] = { "qemu.tcg", "QEMU-tcg", "qemu-tcg" };
	struct tree t;
	tree_new(&t);
	char dirs[3][PATH_MAX + 16];
	for (int k = 0; k < 3; k++) {
		json_t *j = good_results();
		json_object_set_new(json_object_get(j, "host"), "name", json_string(hosts[k]));
		for (size_t m = 0; m < 3; m++) {
			json_t *ns = json_array();
			for (int i = 0; i < 8; i++)
				json_array_append_new(ns, json_integer(1000 * (k + 1) + i));
			json_t *w = json_array_get(json_object_get(json_array_get(
					json_object_get(j, "runs"), m), "workloads"), 0);
			json_object_set_new(json_object_get(w, "samples"), "ns", ns);
		}
		snprintf(dirs[k], sizeof(dirs[k]), "%s/%d", t.in, k);
		assert_int_equal(mkdir(dirs[k], 0755), 0);
		char f[PATH_MAX + 32];
		snprintf(f, sizeof(f), "%s/results.json", dirs[k]);
		write_json(f, j);
	}
	struct result r;
	const char *rep[] = { "report", "-q", "--no-reference", "-o", t.out, "0", "1", "2", NULL };
	run_in(&r, t.in, rep);
	if (r.rc != 0)
		fail_msg("report: status %d: %s", r.rc, r.err);
	char hout[PATH_MAX + 16];
	snprintf(hout, sizeof(hout), "%s/h", t.out);
	const char *his[] = { "history", "-q", "-o", hout, ".", NULL };
	run_in(&r, t.in, his);
	if (r.rc != 0)
		fail_msg("history: status %d: %s", r.rc, r.err);
	char *md = path2(t.out, "report.md"), *html = path2(hout, "index.html");
	char *names[2][3];
	for (int k = 0; k < 3; k++) {
		char raw[128], want[PATH_MAX + 256], f[PATH_MAX + 256];
		snprintf(raw, sizeof(raw), "%s-flush-8cpu", hosts[k]);
		char *slug = plot_slug(raw);
		names[0][k] = xasprintf("latency-%s", slug);
		free(slug);
		snprintf(raw, sizeof(raw), "history-%s-8cpu-flush", hosts[k]);
		names[1][k] = plot_slug(raw);
		/* the host's own data in its files */
		snprintf(want, sizeof(want), "%d", 1000 * (k + 1) + 7);
		snprintf(f, sizeof(f), "%s/%s.dat", t.out, names[0][k]);
		if (!file_contains(f, want))
			fail_msg("%s: no %s (host %s)", f, want, hosts[k]);
		snprintf(want, sizeof(want), "%d.5", 1000 * (k + 1) + 3);
		snprintf(f, sizeof(f), "%s/%s.dat", hout, names[1][k]);
		if (!file_contains(f, want))
			fail_msg("%s: no %s (host %s)", f, want, hosts[k]);
		/* linked where the host's section is */
		snprintf(want, sizeof(want), "on %s, 8 CPUs", hosts[k]);
		assert_true(file_contains(html, want));
		snprintf(want, sizeof(want), "](%s.png)", names[0][k]);
		assert_true(file_contains(md, want));
		snprintf(want, sizeof(want), "src=\"%s.png\"", names[1][k]);
		assert_true(file_contains(html, want));
	}
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < 3; k++)
			for (int l = k + 1; l < 3; l++)
				assert_string_not_equal(names[a][k], names[a][l]);
	/* in report.md, each host's section links its own plot */
	FILE *fp = fopen(md, "r");
	assert_non_null(fp);
	char line[4096];
	int host = -1, linked = 0;
	while (fgets(line, sizeof(line), fp)) {
		for (int k = 0; k < 3; k++) {
			char h[64];
			snprintf(h, sizeof(h), " on %s, 8 CPUs", hosts[k]);
			if (!strncmp(line, "## ", 3) && strstr(line, h))
				host = k;
		}
		if (strstr(line, "](latency-")) {
			assert_true(host >= 0);
			char want[256];
			snprintf(want, sizeof(want), "](%s.png)", names[0][host]);
			if (!strstr(line, want))
				fail_msg("section of %s links %s", hosts[host], line);
			linked++;
		}
	}
	fclose(fp);
	assert_int_equal(linked, 3);
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < 3; k++)
			free(names[a][k]);
	free(md);
	free(html);
	rm_tree(t.root);
}

/* Ratios without a denominator: counters.operations = 0 (no ICR writes per
 * operation: no chart, gnuplot never gets an empty one) and a vector
 * capacity run with no interrupts (max / mean is 0/0): the report is made
 * and says so, never "nan" or "inf". */
static void zero_denominators_are_reported(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	json_t *j = good_results(), *run;
	size_t i;
	json_array_foreach(json_object_get(j, "runs"), i, run) {
		json_t *wls = json_object_get(run, "workloads");
		json_object_set_new(json_object_get(json_array_get(wls, 0), "counters"), "operations",
				    json_integer(0));
		json_array_append_new(wls, json_pack("{s:s, s:s, s:s, s:{s:i, s:[i, i, i, i]}}", "name",
						     "vectors", "type", "vector_capacity", "status", "ok",
						     "counters", "vectors", 100, "irqs_per_cpu", 0, 0, 0, 0));
	}
	char f[PATH_MAX + 32];
	snprintf(f, sizeof(f), "%s/results.json", t.in);
	write_json(f, j);
	struct result r;
	const char *args[] = { "report", "-q", "--no-reference", "-o", t.out, "results.json", NULL };
	run_in(&r, t.in, args);
	if (r.rc != 0)
		fail_msg("report: status %d: %s", r.rc, r.err);
	char *md = path2(t.out, "report.md"), *js = path2(t.out, "report.json");
	assert_false(file_contains(md, "nan"));
	assert_false(file_contains(md, "inf"));
	assert_true(file_contains(md, "| - (no interrupts) |"));
	assert_false(file_contains(md, "(icr-qemu-tcg-8cpu.png)"));
	free(md);
	free(js);
	rm_tree(t.root);
}

/* More plots than one report draws: the first AN_MAX_PLOTS are made, the
 * report says how many were left out (and on stderr), and exits 0. */
static void plots_are_capped(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	json_t *j = good_results();
	json_t *run = json_array_get(json_object_get(j, "runs"), 0);
	json_t *wls = json_object_get(run, "workloads");
	for (int i = 0; i < AN_MAX_PLOTS + 5; i++) {
		char name[32];
		snprintf(name, sizeof(name), "w%d", i);
		json_array_append_new(wls, json_pack("{s:s, s:s, s:s, s:{s:[i, i]}}", "name", name,
						     "type", "flush_tlb_all", "status", "ok", "samples",
						     "ns", 100, 200));
	}
	char f[PATH_MAX + 32];
	snprintf(f, sizeof(f), "%s/results.json", t.in);
	write_json(f, j);
	/* a stand-in gnuplot (fast): writes the two files gnuplot would */
	char gp[PATH_MAX + 32];
	snprintf(gp, sizeof(gp), "%s/gnuplot", t.root);
	FILE *fg = fopen(gp, "w");
	assert_non_null(fg);
	fputs("#!/bin/sh\nd=${2#outdir=}; d=${d#\\'}; d=${d%\\'}\n"
	      "echo x > \"$d${3%.gp}.png\"; echo x > \"$d${3%.gp}.svg\"\n", fg);
	fclose(fg);
	assert_int_equal(chmod(gp, 0755), 0);
	setenv("IPIBENCH_GNUPLOT", gp, 1);
	struct result r;
	const char *args[] = { "report", "-q", "--no-reference", "-o", t.out, "results.json", NULL };
	run_in(&r, t.in, args);
	unsetenv("IPIBENCH_GNUPLOT");
	if (r.rc != 0)
		fail_msg("report: status %d: %s", r.rc, r.err);
	char want[128];
	snprintf(want, sizeof(want), "ipibench report: 7 plots left out: one report draws at most %d\n",
		 AN_MAX_PLOTS);
	if (!strstr(r.err, want))
		fail_msg("stderr: %s", r.err);
	char *md = path2(t.out, "report.md");
	/* flush's and the 205 workloads' latency plots, flush's ICR chart */
	assert_true(file_contains(md, "**7 plots left out**"));
	free(md);
	char *js = path2(t.out, "report.json");
	assert_true(file_contains(js, "\"plots_left_out\": 7"));
	free(js);
	DIR *d = opendir(t.out);
	assert_non_null(d);
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d)))
		n += strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".gp");
	closedir(d);
	assert_int_equal(n, AN_MAX_PLOTS);
	rm_tree(t.root);
}

/* Two reports into one OUT at the same time: both succeed, every plot is
 * whole, and no temporary file or private directory is left. */
static void concurrent_reports_share_an_output(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	char in3[2048];
	snprintf(in3, sizeof(in3), "%s/" DATA "/three-mode", repo);
	for (int round = 0; round < 2; round++) {
		pid_t pids[2];
		for (int k = 0; k < 2; k++) {
			pids[k] = fork();
			assert_true(pids[k] >= 0);
			if (pids[k] == 0) {
				struct result r;
				const char *args[] = { "report", "-q", "--no-reference", "-o", t.out,
						       in3, NULL };
				run_in(&r, t.in, args);
				if (r.rc)
					fprintf(stderr, "report %d: status %d: %s", k, r.rc, r.err);
				_exit(r.rc ? 1 : 0);
			}
		}
		for (int k = 0; k < 2; k++) {
			int st;
			assert_int_equal(waitpid(pids[k], &st, 0), pids[k]);
			assert_true(WIFEXITED(st));
			assert_int_equal(WEXITSTATUS(st), 0);
		}
	}
	DIR *d = opendir(t.out);
	assert_non_null(d);
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
			fail_msg("%s/%s left behind", t.out, e->d_name);
		n++;
	}
	closedir(d);
	assert_true(n > 10);
	char f[PATH_MAX + 64];
	snprintf(f, sizeof(f), "%s/latency-qemu-tcg-flush-16cpu.png", t.out);
	assert_true(is_png(f));
	snprintf(f, sizeof(f), "%s/latency-qemu-tcg-flush-16cpu.svg", t.out);
	assert_true(is_svg(f));
	rm_tree(t.root);
}

/* ---- every row of the results contract, poisoned in process -------------- */

/* Member KEY of O, made an empty object (or, LIST, [{}]) when absent. */
static json_t *member(json_t *o, const char *key, bool list)
{
	json_t *x = json_object_get(o, key);

	if (!x) {
		x = list ? json_pack("[{}]") : json_object();
		json_object_set_new(o, key, x);
	}
	return list ? json_array_get(x, 0) : x;
}

/* The object of good_results() that holds the fields at AT (the first of
 * each array), made when it is not there. */
static json_t *holder(json_t *j, enum ipb_at at)
{
	json_t *run = run0(j), *w = wl0(j);

	switch (at) {
	case IPB_AT_ROOT: return j;
	case IPB_AT_TOOL: return member(j, IPB_KEY(TOOL), false);
	case IPB_AT_HOST: return member(j, IPB_KEY(HOST), false);
	case IPB_AT_RUN: return run;
	case IPB_AT_STALL: return member(run, IPB_KEY(RUN_STALL), false);
	case IPB_AT_WORKLOAD: return w;
	case IPB_AT_PARAMS: return member(w, IPB_KEY(WL_PARAMS), false);
	case IPB_AT_SAMPLES: return member(w, IPB_KEY(WL_SAMPLES), false);
	case IPB_AT_LOOP: return member(w, IPB_KEY(WL_LOOPS), true);
	case IPB_AT_COUNTERS: return member(w, IPB_KEY(WL_COUNTERS), false);
	case IPB_AT_INSN: return member(w, IPB_KEY(WL_INSN_COUNTS), false);
	case IPB_NR_AT: break;
	}
	fail_msg("no place %d", (int)at);
	return NULL;
}

/* A value no reader may take for a field of kind K. */
static json_t *wrong_kind(enum ipb_counter_kind k)
{
	switch (k) {
	case IPB_COUNT: return json_integer(-1);
	case IPB_MEAN: return json_real(-0.5);
	case IPB_FLAG: return json_string("yes");
	case IPB_NAME: return json_string("../../x");
	case IPB_TEXT: return json_integer(5);
	case IPB_SAMPLES: return json_pack("[i, f]", 1, -2.0);
	case IPB_PER_CPU: return json_pack("[i, s]", 1, "2");
	case IPB_OBJECT: return json_integer(5);
	case IPB_LIST: return json_integer(5);
	}
	return NULL;
}

/* good_results() with a loop of loop timing, whole, and every other
 * holder of the contract's fields, so that every row has one to poison. */
static json_t *good_with_every_holder(void)
{
	json_t *j = good_results();

	json_object_set_new(wl0(j), IPB_KEY(WL_LOOPS), json_pack("[{s:i, s:i}]", IPB_KEY(LOOP_NS),
								  1000, IPB_KEY(LOOP_CALLS), 10));
	for (int at = 0; at < IPB_NR_AT; at++)
		holder(j, (enum ipb_at)at);
	return j;
}

/* The reader's verdict on J: 0, or -1 with its message in ERR. */
static int verdict(json_t *j, char *err)
{
	err[0] = 0;
	return results_validate("results.json", j, err);
}

/* Row F poisoned with V (NULL: taken out) is refused in one line naming
 * the file and the field's JSON path; or, OK, read. */
static void row_case(const struct ipb_counter_field *f, json_t *v, bool ok, const char *what)
{
	json_t *j = good_with_every_holder();
	char err[AN_ERRLEN], want[256];
	const char *path = ipb_at_path(f->at);
	size_t n = 0;

	/* the path of the first holder: every "[]" is "[0]" */
	n += (size_t)snprintf(want, sizeof(want), "results.json: ");
	for (const char *p = path; *p && n + 4 < sizeof(want); p++) {
		if (p[0] == '[' && p[1] == ']') {
			n += (size_t)snprintf(want + n, sizeof(want) - n, "[0]");
			p++;
		} else {
			want[n++] = *p;
		}
	}
	snprintf(want + n, sizeof(want) - n, ".%s", f->key);
	if (v)
		json_object_set_new(holder(j, f->at), f->key, v);
	else
		json_object_del(holder(j, f->at), f->key);
	if (ok) {
		if (verdict(j, err))
			fail_msg("%s %s: refused: %s", want, what, err);
	} else {
		if (!verdict(j, err))
			fail_msg("%s %s: read", want, what);
		if (!strstr(err, want) || strchr(err, '\n'))
			fail_msg("%s %s: \"%s\" does not name it in one line", want, what, err);
	}
	json_decref(j);
}

static void every_row_is_checked(void **state)
{
	char err[AN_ERRLEN];
	json_t *j = good_with_every_holder();

	(void)state;
	if (verdict(j, err))
		fail_msg("the good results are refused: %s", err);
	json_decref(j);
	for (int i = 0; ipb_contract_row(i); i++) {
		const struct ipb_counter_field *f = ipb_contract_row(i);

		row_case(f, wrong_kind(f->kind), false, "of another kind");
		row_case(f, json_null(), f->flags & IPB_NUL, "null");
		if (f->flags & IPB_REQ)
			row_case(f, NULL, false, "missing");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(poisoned_fields_are_refused),
		cmocka_unit_test(every_row_is_checked),
		cmocka_unit_test(unbounded_inputs_are_refused),
		cmocka_unit_test(files_that_are_not_results),
		cmocka_unit_test(free_text_is_escaped),
		cmocka_unit_test(stalled_run_listed),
		cmocka_unit_test(history_escapes_html),
		cmocka_unit_test(concurrent_reports_share_an_output),
		cmocka_unit_test(similar_names_get_their_own_plots),
		cmocka_unit_test(plots_are_capped),
		cmocka_unit_test(zero_denominators_are_reported),
	};
	return cmocka_run_group_tests(tests, find_bin, NULL);
}
