/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/tests/test_committed.c: every results.json the tree keeps (the
 * history under results/, the analysis tests' data) is still read by the
 * reader of report and history, under the contract's checks
 * (ipibench/counters.h): a row that refuses what an older ipibench wrote
 * fails here, not in someone's CI.
 */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/internal.h"
#include "tests/unit/unit.h"

static size_t found;
static char bad[4 * AN_ERRLEN];

static int one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	struct dataset d = { 0 };
	char err[AN_ERRLEN];

	(void)st;
	if (type != FTW_F || strcmp(base, "results.json"))
		return 0;
	found++;
	if (dataset_add(&d, path, err) && strlen(bad) + strlen(err) + 2 < sizeof(bad)) {
		strcat(bad, err);
		strcat(bad, "\n");
	}
	dataset_free(&d);
	return 0;
}

static void read_all_under(const char *root)
{
	found = 0;
	bad[0] = 0;
	assert_int_equal(nftw(root, one, 16, FTW_PHYS), 0);
	if (!found)
		fail_msg("%s: no results.json (run from the repository)", root);
	if (bad[0])
		fail_msg("refused:\n%s", bad);
}

static void history_is_read(void **state)
{
	(void)state;
	read_all_under("results");
}

static void test_data_is_read(void **state)
{
	(void)state;
	read_all_under("analysis/tests/data");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(history_is_read),
		cmocka_unit_test(test_data_is_read),
	};
	return cmocka_run_group_tests_name("analysis: the committed results.json files", tests, NULL,
					   NULL);
}
