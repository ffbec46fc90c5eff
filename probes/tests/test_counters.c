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

/* One table's rows: whole, keys of their own (FIND: the row of a key). */
static void rows_whole(const struct ipb_counter_field *(*row)(int), int n, int (*find)(const char *))
{
	for (int c = 0; c < n; c++) {
		const struct ipb_counter_field *f = row(c);

		assert_non_null(f->key);
		assert_true(f->key[0]);
		for (const char *p = f->key; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				fail_msg("key '%s': only a-z, 0-9 and _", f->key);
		assert_true(f->kind == IPB_COUNT || f->kind == IPB_PER_CPU || f->kind == IPB_MEAN ||
			    f->kind == IPB_FLAG);
		assert_true(f->unit && (f->unit[0] || f->kind == IPB_FLAG));
		assert_true(f->doc && f->doc[0]);
		assert_int_equal(find(f->key), c);
	}
}

static const struct ipb_counter_field *counter_row(int c) { return ipb_counter((enum ipb_counter)c); }
static const struct ipb_counter_field *insn_row(int i) { return ipb_insn((enum ipb_insn)i); }
static int counter_at(const char *key) { return (int)ipb_counter_find(key); }
static int insn_at(const char *key)
{
	for (int i = 0; i < IPB_NR_INSN; i++)
		if (!strcmp(ipb_insn((enum ipb_insn)i)->key, key))
			return i;
	return -1;
}

static void test_rows(void **state)
{
	(void)state;
	rows_whole(counter_row, IPB_NR_COUNTERS, counter_at);
	rows_whole(insn_row, IPB_NR_INSN, insn_at);
	assert_string_equal(IPB_INSN(ICR_MATCH), "icr_match");
	assert_true(IPB_NR_COUNTERS > 0);
	for (int c = 0; c < IPB_NR_COUNTERS; c++) {
		const struct ipb_counter_field *f = ipb_counter((enum ipb_counter)c);

		/* beyond rows_whole(): a counter is a count or per CPU, with a
		 * unit, and its key has no digits */
		for (const char *p = f->key; *p; p++)
			if (!islower((unsigned char)*p) && *p != '_')
				fail_msg("counter key '%s': only a-z and _", f->key);
		assert_true(f->kind == IPB_COUNT || f->kind == IPB_PER_CPU);
		assert_true(f->unit[0]);
		/* a per-CPU counter says so in its key */
		if ((f->kind == IPB_PER_CPU) != (strstr(f->key, "_per_cpu") != NULL))
			fail_msg("counter '%s': per-CPU kind and key disagree", f->key);
	}
	assert_int_equal(ipb_counter_find("no_such_counter"), IPB_NR_COUNTERS);
	assert_string_equal(IPB_COUNTER(ICR_WRITES), "icr_writes");
}

/* Each row of a table as a key in the document's examples (after FROM,
 * the table's object), with a value of its kind: a count an integer, a
 * mean a number with a point, a per-CPU array "[", a flag true or false. */
static void documented(const char *doc, const char *from,
		       const struct ipb_counter_field *(*row)(int), int n)
{
	const char *start = strstr(doc, from);

	if (!start)
		fail_msg("docs/results-schema.md: no %s", from);
	for (int c = 0; c < n; c++) {
		const struct ipb_counter_field *f = row(c);
		char want[96];
		const char *at, *v;
		int ok = 0;

		snprintf(want, sizeof(want), "\"%s\":", f->key);
		for (at = start; !ok && (at = strstr(at, want)); at++) {
			size_t digits;

			v = at + strlen(want);
			while (*v == ' ')
				v++;
			digits = strspn(v, "0123456789");
			switch (f->kind) {
			case IPB_PER_CPU: ok = *v == '['; break;
			case IPB_COUNT: ok = digits && v[digits] != '.'; break;
			case IPB_MEAN: ok = digits && v[digits] == '.'; break;
			case IPB_FLAG: ok = !strncmp(v, "true", 4) || !strncmp(v, "false", 5); break;
			}
		}
		if (!ok)
			fail_msg("docs/results-schema.md: no %s after %s with a value of its kind", want,
				 from);
	}
}

static void test_documented(void **state)
{
	char *doc = tu_slurp("docs/results-schema.md");

	(void)state;
	assert_non_null(doc);
	documented(doc, "\"counters\": {", counter_row, IPB_NR_COUNTERS);
	documented(doc, "\"insn_counts\": {", insn_row, IPB_NR_INSN);
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
