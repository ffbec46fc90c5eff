/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The results contract's counters (ipibench/counters.h): each row is
 * whole and its key is its own, and docs/results-schema.md documents every
 * row with a value of its kind, so that a counter added to the table and
 * not to the document (or the other way round) fails here.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "ipibench/counters.h"

static void test_rows(void **state)
{
	(void)state;
	assert_true(IPB_NR_COUNTERS > 0);
	for (int c = 0; c < IPB_NR_COUNTERS; c++) {
		const struct ipb_counter_field *f = ipb_counter((enum ipb_counter)c);

		assert_non_null(f->key);
		assert_true(f->key[0]);
		for (const char *p = f->key; *p; p++)
			if (!islower((unsigned char)*p) && *p != '_')
				fail_msg("counter key '%s': only a-z and _", f->key);
		assert_true(f->kind == IPB_COUNT || f->kind == IPB_PER_CPU);
		assert_true(f->unit && f->unit[0]);
		assert_true(f->doc && f->doc[0]);
		/* its key finds it, and no other row has it */
		assert_int_equal(ipb_counter_find(f->key), c);
		/* a per-CPU counter says so in its key */
		if ((f->kind == IPB_PER_CPU) != (strstr(f->key, "_per_cpu") != NULL))
			fail_msg("counter '%s': per-CPU kind and key disagree", f->key);
	}
	assert_int_equal(ipb_counter_find("no_such_counter"), IPB_NR_COUNTERS);
	assert_string_equal(IPB_COUNTER(ICR_WRITES), "icr_writes");
}

/* Every row as a key of a "counters" object in the document's examples,
 * with a value of its kind: a number, or an array ("[ ... ]"). */
static void test_documented(void **state)
{
	char *doc = tu_slurp("docs/results-schema.md");

	(void)state;
	assert_non_null(doc);
	for (int c = 0; c < IPB_NR_COUNTERS; c++) {
		const struct ipb_counter_field *f = ipb_counter((enum ipb_counter)c);
		char want[96];
		const char *at, *v;
		int ok = 0;

		snprintf(want, sizeof(want), "\"%s\":", f->key);
		for (at = doc; !ok && (at = strstr(at, want)); at++) {
			v = at + strlen(want);
			while (*v == ' ')
				v++;
			ok = f->kind == IPB_PER_CPU ? *v == '[' : isdigit((unsigned char)*v);
		}
		if (!ok)
			fail_msg("docs/results-schema.md: no %s with %s", want,
				 f->kind == IPB_PER_CPU ? "an array" : "a count");
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_documented),
	};
	return cmocka_run_group_tests_name("probes: the counters contract", tests, NULL, NULL);
}
