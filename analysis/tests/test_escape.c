/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_escape.c: quoting for gnuplot, Markdown and HTML, and
 * the readers' refusals (results.json, hyperfine JSON, perf stat CSV). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/internal.h"
#include "analysis/tests/helpers.h"

static void expect_str(char *got, const char *want)
{
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("got  [%s]\nwant [%s]", got, want);
	free(got);
}

static void gp_quote_single_quoted_strings(void **state)
{
	(void)state;
	expect_str(gp_quote("mixed"), "'mixed'");
	expect_str(gp_quote(""), "''");
	/* nothing is expanded inside single quotes: backquotes, @, \ literal */
	expect_str(gp_quote("C:\\x `id` @m \"q\""), "'C:\\x `id` @m \"q\"'");
	/* with a quote: double quotes, " \ ` @ escaped (` and @ in octal) */
	expect_str(gp_quote("it's"), "\"it's\"");
	expect_str(gp_quote("mixed' ; system('touch /tmp/x') ; print '"),
		   "\"mixed' ; system('touch /tmp/x') ; print '\"");
	expect_str(gp_quote("'`id` @m \"q\" \\'"), "\"'\\140id\\140 \\100m \\\"q\\\" \\\\'\"");
	/* a newline (or CR, or any control character) would end the command */
	expect_str(gp_quote("a\nset output '/tmp/x'\r\tb\x7f"), "\"a set output '/tmp/x'  b \"");
	expect_str(gp_quote("a\nb"), "'a b'");
	expect_str(gp_datafile("latency-a-b"), "'latency-a-b.dat'");
}

/* What gnuplot makes of a gp_quote()d string: print it back, and check
 * nothing else ran.  Fails when the escaping is broken. */
static void gp_quote_roundtrip_through_gnuplot(void **state)
{
	(void)state;
	char err[AN_ERRLEN];
	assert_int_equal(plot_check(err), 0);
	char *dir = make_tmpdir();
	const char *nasty[] = {
		"mixed' ; system('touch pwned') ; print '",
		"a''b'''",
		"x'\nsystem('touch pwned')\nprint 'y",
		"`touch pwned` @x \\",
		"''a''''b'''",
		"'`touch pwned` @x \\ \" \\\"",
	};
	for (size_t i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		char *q = gp_quote(nasty[i]);
		char *gp = path2(dir, "t.gp"), *outp = path2(dir, "out.txt");
		FILE *f = fopen(gp, "w");
		assert_non_null(f);
		fprintf(f, "set print '%s'\nprint %s\n", outp, q);
		fclose(f);
		char cmd[8192];
		snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' t.gp 2>/dev/null", dir, plot_gnuplot());
		assert_int_equal(system(cmd), 0);
		char *got = slurp(outp);
		char *want = one_line(nasty[i]);
		assert_non_null(got);
		got[strcspn(got, "\n")] = '\0';
		assert_string_equal(got, want);
		char *pw = path2(dir, "pwned");
		assert_int_equal(access(pw, F_OK), -1);
		free(pw);
		free(got);
		free(want);
		free(q);
		unlink(gp);
		unlink(outp);
		free(gp);
		free(outp);
	}
	rm_rf(dir);
	free(dir);
}

static void markdown_and_html(void **state)
{
	(void)state;
	/* names come out as they are (intraword _ is no emphasis) */
	expect_str(md_text("x2apic_mixed"), "x2apic_mixed");
	expect_str(md_text("qemu-tcg.lab"), "qemu-tcg.lab");
	expect_str(md_text("_lead"), "\\_lead");
	expect_str(md_text("a | b\n| c"), "a \\| b \\| c");
	expect_str(md_text("<script>alert(1)</script>"), "\\<script\\>alert(1)\\</script\\>");
	expect_str(md_text("![x](http://e/) `c` *e* [l] &amp; #h \\"),
		   "\\!\\[x\\](http\\://e/) \\`c\\` \\*e\\* \\[l\\] \\&amp; \\#h \\\\");
	expect_str(md_code("flush"), "`flush`");
	expect_str(md_code("a`b"), "``a`b``");
	expect_str(md_code("``x"), "``` ``x ```");
	expect_str(md_code("x | y\nz"), "`x \\| y z`");
	expect_str(html_text("<img src=x onerror=\"a('1')\">&\n"),
		   "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp; ");
	expect_str(html_text("qemu-tcg"), "qemu-tcg");
}

/* Code points a reader cannot see but that reorder or hide what is shown
 * (bidi overrides and isolates, zero-width characters, C1 controls) come
 * out as visible text in Markdown, code spans and HTML; bare URLs and mail
 * addresses in free text do not become links. */
/* Plot names stay distinct even when a name is forged to equal another's
 * hashed slug: the second of two equal names gets -2, a third -3. */
static void plot_names_unique(void **state)
{
	(void)state;
	json_t *taken = json_object();
	char *real = plot_slug("qemu.tcg-flush-4cpu");
	char *forged = xstrdup(real);	/* a host named like the hashed slug */
	char *again = xstrdup(real);
	char *other = xstrdup("qemu-tcg-flush-4cpu");
	char *none = NULL;

	plot_name_unique(taken, &real);
	plot_name_unique(taken, &forged);
	plot_name_unique(taken, &again);
	plot_name_unique(taken, &other);
	plot_name_unique(taken, &none);
	assert_null(none);
	assert_string_not_equal(real, forged);
	assert_string_not_equal(forged, again);
	assert_string_not_equal(real, again);
	assert_string_equal(other, "qemu-tcg-flush-4cpu");
	char *want = xasprintf("%s-2", real);
	assert_string_equal(forged, want);
	free(want);
	/* a name that is already NAME-2 is not given to the next NAME */
	char *a = xstrdup("x"), *b = xstrdup("x-2"), *c = xstrdup("x");
	plot_name_unique(taken, &a);
	plot_name_unique(taken, &b);
	plot_name_unique(taken, &c);
	assert_string_equal(c, "x-3");
	free(a), free(b), free(c);
	free(real), free(forged), free(again), free(other);
	json_decref(taken);
}

static void invisible_and_links(void **state)
{
	(void)state;
	/* "admin" shown as "nimda": U+202E RIGHT-TO-LEFT OVERRIDE ... U+202C */
	expect_str(md_text("x \u202Enimda\u202C y"), "x \\<U+202E\\>nimda\\<U+202C\\> y");
	expect_str(md_text("\u202A\u202B\u202D\u2066\u2067\u2068\u2069"),
		   "\\<U+202A\\>\\<U+202B\\>\\<U+202D\\>\\<U+2066\\>\\<U+2067\\>"
		   "\\<U+2068\\>\\<U+2069\\>");
	expect_str(md_text("a\u200Bb\u200Fc\uFEFFd\u00ADe\xc2\x85" "f\u061Cg\u2028h"),
		   "a\\<U+200B\\>b\\<U+200F\\>c\\<U+FEFF\\>d\\<U+00AD\\>e\\<U+0085\\>f"
		   "\\<U+061C\\>g\\<U+2028\\>h");
	/* visible non-ASCII text stays */
	expect_str(md_text("Monn\u00e9 \u00b5s \u2192"), "Monn\u00e9 \u00b5s \u2192");
	expect_str(md_code("echo \u2066x\u2069"), "`echo <U+2066>x<U+2069>`");
	expect_str(html_text("x \u202Eevil\u202C"), "x &lt;U+202E&gt;evil&lt;U+202C&gt;");
	/* a cut sequence at the end is not read past */
	expect_str(html_text("x\xe2\x80"), "x\xe2\x80");
	/* bare URLs, www. and mail addresses: no link */
	expect_str(md_text("see https://evil.example/x now"), "see https\\://evil.example/x now");
	expect_str(md_text("go www.evil.example"), "go www\\.evil.example");
	expect_str(md_text("mail a@evil.example"), "mail a\\@evil.example");
	/* what is not a URL is left alone */
	expect_str(md_text("4.17: ok, awww.x"), "4.17: ok, awww.x");
	expect_str(one_line("a\nb\r\tc"), "a b  c");
}

/* ---- the readers ----------------------------------------------------------- */
static char *dir;

static int mkdir_setup(void **state)
{
	(void)state;
	an_quiet = true;
	dir = make_tmpdir();
	return dir ? 0 : -1;
}

static int mkdir_teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

/* Write text to DIR/name, read it with dataset_add(); the error (or ""). */
static char *read_text(const char *name, const char *text, int *rc)
{
	char *p = path2(dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct dataset d = { 0 };
	char err[AN_ERRLEN] = "";
	*rc = dataset_add(&d, p, err);
	dataset_free(&d);
	unlink(p);
	free(p);
	assert_null(strchr(err, '\n'));
	return strdup(err);
}

static void expect_refusal(const char *name, const char *text, const char *want)
{
	int rc;
	char *err = read_text(name, text, &rc);
	if (rc != -1 || !strstr(err, want))
		fail_msg("%s: rc %d, error [%s], wanted [%s]", name, rc, err, want);
	free(err);
}

static void expect_accepted(const char *name, const char *text)
{
	int rc;
	char *err = read_text(name, text, &rc);
	if (rc != 0)
		fail_msg("%s: refused: %s", name, err);
	free(err);
}

#define RUN(extra) "{\"schema_version\": 1, \"runs\": [{\"id\": \"mixed-r0\", \"mode\": \"mixed\", " \
		   "\"status\": \"ok\", \"workloads\": [{\"name\": \"flush\", \"type\": \"flush_tlb_all\", " \
		   "\"status\": \"ok\"" extra "}]}]}"

static void results_json_validation(void **state)
{
	(void)state;
	expect_accepted("ok.json", RUN(", \"samples\": {\"ns\": [1, 2.5, 3]}, \"counters\": {\"operations\": 3}"));
	expect_accepted("empty.json", "{\"schema_version\": 1, \"runs\": []}");
	expect_accepted("pending.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"physical-r0\", "
			"\"mode\": \"physical\", \"status\": \"pending\"}]}");
	expect_accepted("stalled.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"physical-r0\", "
			"\"mode\": \"physical\", \"status\": \"stalled\"}]}");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"x\", \"mode\": \"warp\", \"status\": \"ok\"}]}",
		       "r.json: $.runs[0].mode: \"warp\" is not a mode (physical, cluster, mixed)");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [{}]}", "r.json: $.runs[0].id: missing");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [1]}", "r.json: $.runs[0]: must be an object, not 1");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"x\", \"mode\": \"mixed\", \"status\": 5}]}",
		       "r.json: $.runs[0].status: must be a string, not 5");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"x\", \"mode\": \"mixed\", \"status\": \"done\"}]}",
		       "r.json: $.runs[0].status: \"done\" is not a run status (ok, failed, stalled, "
		       "pending, running)");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": 3}", "r.json: $.runs: must be an array, not 3");
	expect_refusal("r.json", RUN(", \"samples\": {\"ns\": [1, null]}"),
		       "r.json: $.runs[0].workloads[0].samples.ns[1]: null is not a number from 0 to");
	expect_refusal("r.json", RUN(", \"samples\": {\"cycles\": {}}"),
		       "r.json: $.runs[0].workloads[0].samples.cycles: must be an array, not an object");
	expect_refusal("r.json", RUN(", \"counters\": {\"irqs_per_cpu\": [1, -2]}"),
		       "r.json: $.runs[0].workloads[0].counters.irqs_per_cpu[1]: -2 is not an integer from 0 to");
	expect_refusal("r.json", RUN(", \"params\": {\"iterations\": \"1000\"}"),
		       "r.json: $.runs[0].workloads[0].params.iterations: \"1000\" is not an integer");
	expect_refusal("r.json", RUN(", \"path\": \"gen apic\""),
		       "r.json: $.runs[0].workloads[0].path: \"gen apic\" is not a valid name");
	expect_refusal("r.json", "{\"schema_version\": 1, \"host\": {\"name\": \"a/b\"}, \"runs\": []}",
		       "r.json: $.host.name: \"a/b\" is not a valid name");
	expect_refusal("r.json", "{\"schema_version\": 1, \"host\": {\"emulated\": \"yes\"}, \"runs\": []}",
		       "r.json: $.host.emulated: must be true or false, not \"yes\"");
	expect_refusal("r.json", "{\"schema_version\": 1, \"host\": {\"cpus\": 8, \"maxcpus\": 4}, \"runs\": []}",
		       "r.json: $.host.maxcpus: 4 is less than host.cpus (8)");
	expect_refusal("r.json", "{\"schema_version\": 1, \"host\": {\"tsc_khz\": 1e9}, \"runs\": []}",
		       "r.json: $.host.tsc_khz: 1000000000.0 is not an integer");
	/* a value quoted in the message stays short and on one line */
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [{\"id\": \"x\", \"mode\": "
		       "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\nb\", \"status\": \"ok\"}]}",
		       "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... is not a mode");
	expect_refusal("r.json", "{\"schema_version\": 1, \"runs\": [], \"runs\": []}", "r.json:1:");
}

/* The caps on what the results read may make report and history do: past
 * each, the next results file is refused in one line naming it and the
 * JSON path (the counts start near the cap: the files are small). */
static void caps_on_the_results_read(void **state)
{
	(void)state;
	static const char text[] =
		"{\"schema_version\": 1, \"runs\": [{\"id\": \"r\", \"mode\": \"physical\", "
		"\"status\": \"ok\", \"workloads\": [{\"name\": \"w\", \"type\": \"t\", "
		"\"status\": \"ok\", \"samples\": {\"ns\": [1, 2]}, "
		"\"loops\": [{\"ns\": 10, \"calls\": 1}, {\"ns\": 10, \"calls\": 1}]}]}]}";
	for (int which = 0; which < 5; which++) {
		struct dataset d = { 0 };
		char err[AN_ERRLEN] = "";
		const char *want = NULL;
		switch (which) {
		case 0: want = NULL; break;	/* below every cap: read */
		case 1: d.nworkloads = AN_MAX_WORKLOADS; want = "r.json: runs[0].workloads[0]: more than"; break;
		case 2: d.nsamples = AN_MAX_SAMPLES - 1; want = "r.json: runs[0].workloads[0].samples: more than"; break;
		case 3: d.nloops = AN_MAX_LOOPS - 1; want = "r.json: runs[0].workloads[0].loops: more than"; break;
		case 4: want = "r.json: one result set more than the"; break;
		}
		size_t fake = 0;
		if (which == 4) {	/* AN_MAX_SETS read already (none of them real) */
			fake = AN_MAX_SETS;
			d.nsets = fake;
		}
		int rc = dataset_add_text(&d, "r.json", text, strlen(text), true, true, err);
		if (which == 4)
			d.nsets = 0;
		if (!want) {
			if (rc)
				fail_msg("refused: %s", err);
		} else if (rc != -1 || !strstr(err, want) || strchr(err, '\n')) {
			fail_msg("case %d: rc %d: %s", which, rc, err);
		}
		dataset_free(&d);
	}
}

static void hyperfine_validation(void **state)
{
	(void)state;
	expect_accepted("hf.json", "{\"results\": [{\"command\": \"sleep 0.1\", \"times\": [0.1, 0.2], "
			"\"stddev\": null, \"mean\": 0.15}]}");
	expect_refusal("hf.json", "{\"results\": [{\"times\": [0.1]}]}", "hf.json: $.results[0].command: missing");
	expect_refusal("hf.json", "{\"results\": [{\"command\": \"x\", \"times\": [0.1, \"a\"]}]}",
		       "hf.json: $.results[0].times[1]: \"a\" is not a number");
	expect_refusal("hf.json", "{\"results\": [{\"command\": \"x\", \"mean\": -1}]}",
		       "hf.json: $.results[0].mean: -1 is not a number from 0 to");
	expect_refusal("hf.json", "{\"results\": [7]}", "hf.json: $.results[0]: must be an object, not 7");
	expect_refusal("hf.json", "[1]", "hf.json: $: must be an object");
}

static void perf_csv_validation(void **state)
{
	(void)state;
	expect_accepted("p.csv", "# started\n\n12,,cycles,100,100.00,,\n<not counted>,,instructions,0,0.00,,\n");
	expect_refusal("p.csv", "12,,cycles\n13,,\n", "p.csv:2: no event name");
	expect_refusal("p.csv", "12,,cycles\n# c\nnan,,x\n", "p.csv:3: value is not a number");
	expect_refusal("p.csv", "12,,cycles\n13,cycles\n", "p.csv:2: 2 fields");
	expect_refusal("p.csv", "12,,cycles\n13,,cy\x1b[2Jcles\n", "p.csv:2: control character 0x1b");
	expect_refusal("p.csv", "hello, world\n", "p.csv: not a results.json, hyperfine JSON or perf stat");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gp_quote_single_quoted_strings),
		cmocka_unit_test(gp_quote_roundtrip_through_gnuplot),
		cmocka_unit_test(markdown_and_html),
		cmocka_unit_test(invisible_and_links),
		cmocka_unit_test(plot_names_unique),
		cmocka_unit_test(caps_on_the_results_read),
		cmocka_unit_test(results_json_validation),
		cmocka_unit_test(hyperfine_validation),
		cmocka_unit_test(perf_csv_validation),
	};
	return cmocka_run_group_tests(tests, mkdir_setup, mkdir_teardown);
}
