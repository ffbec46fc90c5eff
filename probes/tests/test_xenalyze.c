/*
 * `trace summary` counts the same records per event as xenalyze.
 *
 * For every probes/tests/data/NAME.xt there is NAME.xenalyze: the per-event
 * counts xenalyze reported for it (probes/tools/xenalyze-counts.sh, from
 * `xenalyze --dump-raw-process`).  The summary's counts per event ID
 * (cpu_change excluded: xenalyze does not process it as an event) must be
 * exactly those.  When build/bin/xenalyze exists (make build/bin/xenalyze),
 * xenalyze is also run live on each file and must agree with the stored
 * counts, so the expectations cannot go stale silently.  NAME.xt.xz (the
 * real recordings, too big to keep uncompressed) is unpacked with xz into a
 * temporary file first; NAME.xenalyze sits beside it.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/trace.h"

struct cnt {
	uint32_t id;
	uint64_t n;
};

static size_t read_counts(FILE *f, struct cnt *c, size_t max)
{
	size_t n = 0;
	unsigned long long cnt;
	unsigned id;

	while (n < max && fscanf(f, "%x %llu", &id, &cnt) == 2) {
		c[n].id = id;
		c[n].n = cnt;
		n++;
	}
	return n;
}

static int cnt_cmp(const void *a, const void *b)
{
	const struct cnt *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void check_file(const char *xt, const char *counts)
{
	char path[512], err[256];
	struct cnt want[512], got[512];
	size_t nw, ng = 0;
	struct tr_summary s;
	struct xt_file f;
	FILE *fp;

	snprintf(path, sizeof(path), "%.*s.xenalyze", (int)(strlen(counts) - 3), counts);
	fp = fopen(path, "r");
	if (!fp)
		fail_msg("%s: no %s (make it with probes/tools/xenalyze-counts.sh)", counts, path);
	nw = read_counts(fp, want, 512);
	fclose(fp);
	assert_true(nw >= 1);

	assert_int_equal(xt_map(&f, xt, err, sizeof(err)), 0);
	assert_int_equal(tr_summary_run(&s, &f), 0);
	assert_false(xt_anom_any(&s.an));
	for (uint32_t i = 0; i < s.ev.cap; i++)
		if (s.ev.used[i] && s.ev.key[i] != XT_EV_CPU_CHANGE) {
			got[ng].id = s.ev.key[i];
			got[ng].n = s.ev.v[i];
			ng++;
		}
	qsort(got, ng, sizeof(got[0]), cnt_cmp);
	qsort(want, nw, sizeof(want[0]), cnt_cmp);
	for (size_t i = 0; i < nw && i < ng; i++) {
		if (got[i].id != want[i].id || got[i].n != want[i].n)
			fail_msg("%s: event 0x%08x: xenalyze %llu, ipibench 0x%08x %llu", counts,
				 want[i].id, (unsigned long long)want[i].n, got[i].id,
				 (unsigned long long)got[i].n);
	}
	assert_int_equal(ng, nw);
	tr_summary_fini(&s);
	xt_unmap(&f);

	/* Live xenalyze, when built. */
	if (access("build/bin/xenalyze", X_OK) == 0) {
		char cmd[600];
		struct cnt live[512];
		size_t nl;

		snprintf(cmd, sizeof(cmd), "bash probes/tools/xenalyze-counts.sh %s", xt);
		fp = popen(cmd, "r");
		assert_non_null(fp);
		nl = read_counts(fp, live, 512);
		assert_int_equal(pclose(fp), 0);
		qsort(live, nl, sizeof(live[0]), cnt_cmp);
		assert_int_equal(nl, nw);
		for (size_t i = 0; i < nl; i++) {
			assert_int_equal(live[i].id, want[i].id);
			assert_int_equal(live[i].n, want[i].n);
		}
	} else {
		print_message("build/bin/xenalyze not built: stored counts only\n");
	}
}

static void test_counts_match_xenalyze(void **st)
{
	glob_t g;

	(void)st;
	assert_int_equal(glob("probes/tests/data/*.xt", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 1);
	for (size_t i = 0; i < g.gl_pathc; i++)
		check_file(g.gl_pathv[i], g.gl_pathv[i]);
	globfree(&g);
}

/* The real recordings, kept xz-compressed (probes/README.md "Speed"). */
static void test_real_counts_match_xenalyze(void **st)
{
	glob_t g;

	(void)st;
	assert_int_equal(glob("probes/tests/data/*.xt.xz", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 2);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char tmp[] = "/tmp/ipibench-real-XXXXXX", cmd[700], name[512];
		int fd = mkstemp(tmp);

		assert_true(fd >= 0);
		close(fd);
		snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", g.gl_pathv[i], tmp);
		assert_int_equal(system(cmd), 0);
		/* NAME.xt.xz: counts in NAME.xenalyze */
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(g.gl_pathv[i]) - 3), g.gl_pathv[i]);
		check_file(tmp, name);
		unlink(tmp);
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_match_xenalyze),
		cmocka_unit_test(test_real_counts_match_xenalyze),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
