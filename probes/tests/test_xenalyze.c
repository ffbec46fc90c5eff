/* SPDX-License-Identifier: GPL-3.0-or-later */
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
 * temporary file first; NAME.xenalyze sits beside it.  The same files read
 * straight from their .xt.xz (xt_open(): liblzma, probes/xz.c) give the
 * same counts, and a truncated, corrupt or too big one is refused with one
 * line naming it and the compressed offset.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdbool.h>
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

static void check_file_as(const char *xt, const char *counts, bool direct)
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

	if (direct) {
		if (xt_open(&f, xt, XT_XZ_MAX_BYTES, err, sizeof(err)))
			fail_msg("%s", err);
		assert_true(f.mapped && f.fd >= 0);
	} else {
		assert_int_equal(xt_map(&f, xt, err, sizeof(err)), 0);
	}
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
	/* A file without HVM records (by xenalyze's counts) is read once and
	 * never enters the HVM profile's path; one with them is read again
	 * with the profile on, which takes its records. */
	bool hvm = false;

	for (size_t i = 0; i < nw; i++)
		hvm |= want[i].id >> 16 == 0x0008;
	if (hvm) {
		assert_int_equal(s.passes, 2);
		assert_true(s.hvm_fed > 0);
	} else {
		assert_int_equal(s.passes, 1);
		assert_int_equal(s.hvm_fed, 0);
	}
	tr_summary_fini(&s);
	xt_unmap(&f);

	/* Live xenalyze, when built (on the unpacked file: it reads no xz). */
	if (direct)
		return;
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

static void check_file(const char *xt, const char *counts)
{
	check_file_as(xt, counts, false);
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

/* The real recordings, kept xz-compressed (docs/measurements.md, "The trace reader's speed"). */
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

/* The .xt.xz fixtures read directly (no xz tool, no temporary file). */
static void test_xz_direct(void **st)
{
	glob_t g;

	(void)st;
	assert_int_equal(glob("probes/tests/data/*.xt.xz", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 2);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char name[512];

		snprintf(name, sizeof(name), "%.*s", (int)(strlen(g.gl_pathv[i]) - 3), g.gl_pathv[i]);
		check_file_as(g.gl_pathv[i], name, true);
	}
	globfree(&g);
}

/* Unpacked bytes equal xz -dc's; refusals name the file and the offset. */
static void test_xz_refusals(void **st)
{
	static const char fx[] = "probes/tests/data/hvm-pvh-ipbipi-apic.xt.xz";
	char tmp[] = "/tmp/ipibench-xz-XXXXXX", cmd[700], err[512];
	struct xt_file f, u;
	FILE *in;
	uint8_t *buf;
	long len;
	int fd = mkstemp(tmp);

	(void)st;
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", fx, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(xt_open(&f, fx, XT_XZ_MAX_BYTES, err, sizeof(err)), 0);
	assert_int_equal(xt_open(&u, tmp, XT_XZ_MAX_BYTES, err, sizeof(err)), 0);	/* not xz: mapped */
	assert_false(xt_is_xz(u.base, u.len));
	assert_int_equal(f.len, u.len);
	assert_memory_equal(f.base, u.base, u.len);
	/* the bound: one byte short of the unpacked size is refused */
	xt_unmap(&f);
	assert_int_equal(xt_open(&f, fx, u.len - 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, fx));
	assert_non_null(strstr(err, "bound of"));
	assert_non_null(strstr(err, "compressed offset"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(xt_open(&f, fx, u.len, err, sizeof(err)), 0);	/* exactly the bound */
	assert_int_equal(f.len, u.len);
	xt_unmap(&f);
	xt_unmap(&u);
	unlink(tmp);

	in = fopen(fx, "rb");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	buf = malloc((size_t)len);
	assert_int_equal(fread(buf, 1, (size_t)len, in), (size_t)len);
	fclose(in);
	/* truncated */
	assert_int_equal(xt_unpack_xz(&f, "T.xz", buf, (size_t)len / 2, XT_XZ_MAX_BYTES, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "T.xz: xz: truncated"));
	/* corrupt: a byte flipped inside the compressed data */
	buf[len / 2] ^= 0x55;
	assert_int_equal(xt_unpack_xz(&f, "C.xz", buf, (size_t)len, XT_XZ_MAX_BYTES, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "C.xz: xz: "));
	assert_non_null(strstr(err, "at compressed offset"));
	/* the magic alone */
	assert_int_equal(xt_unpack_xz(&f, "M.xz", buf, 6, XT_XZ_MAX_BYTES, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "M.xz: xz: "));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_match_xenalyze),
		cmocka_unit_test(test_real_counts_match_xenalyze),
		cmocka_unit_test(test_xz_direct),
		cmocka_unit_test(test_xz_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
