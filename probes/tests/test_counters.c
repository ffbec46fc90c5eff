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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "ipibench/counters.h"
#include "ipibench/counters_md.h"

/* One row whole: a key of a-z, 0-9 and _, a kind, a unit where a figure
 * needs one, a place, a doc line. */
static void row_whole(const struct ipb_counter_field *f)
{
	assert_non_null(f->key);
	assert_true(f->key[0]);
	for (const char *p = f->key; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			fail_msg("key '%s': only a-z, 0-9 and _", f->key);
	assert_true(f->kind >= IPB_COUNT && f->kind <= IPB_LIST);
	/* a figure has a unit (an arm, an index, has none) */
	assert_non_null(f->unit);
	if ((f->kind == IPB_PER_CPU || f->kind == IPB_MEAN || f->kind == IPB_SAMPLES) && !f->unit[0])
		fail_msg("'%s': a figure without a unit", f->key);
	/* only a figure is per operation */
	if (f->per != IPB_ABS && f->kind != IPB_COUNT && f->kind != IPB_MEAN &&
	    f->kind != IPB_SAMPLES)
		fail_msg("'%s': per operation, yet not a figure", f->key);
	assert_non_null(f->header);
	assert_true(f->doc && f->doc[0]);
	assert_non_null(ipb_at_path(f->at));
	assert_true((f->flags & ~(IPB_REQ | IPB_NUL)) == 0);
}

/* One table's rows: whole, keys of their own (FIND: the row of a key). */
static void rows_whole(const struct ipb_counter_field *(*row)(int), int n, int (*find)(const char *))
{
	for (int c = 0; c < n; c++) {
		row_whole(row(c));
		assert_int_equal(find(row(c)->key), c);
	}
}

static const struct ipb_counter_field *counter_row(int c) { return ipb_counter((enum ipb_counter)c); }
static const struct ipb_counter_field *insn_row(int i) { return ipb_insn((enum ipb_insn)i); }
/* A field's key is its own within its object (the same key may be in two). */
static enum ipb_at field_at_;
static int field_at(const char *key)
{
	int found = -1;

	for (int i = 0; i < IPB_NR_FIELDS; i++)
		if (ipb_field((enum ipb_field)i)->at == field_at_ &&
		    !strcmp(ipb_field((enum ipb_field)i)->key, key)) {
			if (found >= 0)
				fail_msg("'%s' twice in %s", key, ipb_at_path(field_at_));
			found = i;
		}
	return found;
}
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
	for (int i = 0; i < IPB_NR_FIELDS; i++) {
		const struct ipb_counter_field *f = ipb_field((enum ipb_field)i);

		row_whole(f);
		field_at_ = f->at;
		assert_int_equal(field_at(f->key), i);
		/* the counters and insn_counts have tables of their own */
		assert_true(f->at != IPB_AT_COUNTERS && f->at != IPB_AT_INSN);
		if (f->kind == IPB_PER_CPU || f->kind == IPB_FLAG) {
			assert_true(f->flags == 0 || f->flags == IPB_NUL);
		}
	}
	/* every object that holds fields is itself a row (or the root) */
	for (int at = IPB_AT_TOOL; at < IPB_NR_AT; at++) {
		const char *path = ipb_at_path((enum ipb_at)at), *last = strrchr(path, '.');
		char key[64];
		int found = 0;

		assert_non_null(last);
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(last + 1, "["), last + 1);
		for (int i = 0; ipb_contract_row(i); i++) {
			const struct ipb_counter_field *f = ipb_contract_row(i);

			found |= !strcmp(f->key, key) && (f->kind == IPB_OBJECT || f->kind == IPB_LIST);
		}
		if (!found)
			fail_msg("%s: no row for %s", path, key);
	}
	assert_string_equal(IPB_KEY(RUN_MODE), "mode");
	assert_string_equal(IPB_KEY(LOOP_PAIR), "pair");
	assert_int_equal(ipb_contract_row(IPB_NR_FIELDS + IPB_NR_COUNTERS + IPB_NR_INSN), NULL);
	assert_ptr_equal(ipb_contract_row(IPB_NR_FIELDS), ipb_counter((enum ipb_counter)0));
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

/* docs/results-schema.md's tables are what counters_md.h prints from the
 * rows (make schema-doc), byte for byte, between the marker lines. */
static void test_generated(void **state)
{
	char *doc = tu_slurp("docs/results-schema.md"), *gen = NULL;
	size_t glen = 0;
	FILE *m = open_memstream(&gen, &glen);
	const char *b;

	(void)state;
	assert_non_null(doc);
	assert_non_null(m);
	ipb_contract_md(m);
	assert_int_equal(fclose(m), 0);
	b = strstr(doc, IPB_MD_BEGIN);
	if (!b)
		fail_msg("docs/results-schema.md: no line %s", IPB_MD_BEGIN);
	if (strncmp(b, gen, glen)) {
		size_t i = 0;

		while (i < glen && b[i] == gen[i])
			i++;
		fail_msg("docs/results-schema.md differs from the contract's rows at \"%.60s\" "
			 "(want \"%.60s\"): run make schema-doc", b + i, gen + i);
	}
	/* once, and the table of each row's object names its key */
	assert_null(strstr(b + 1, IPB_MD_BEGIN));
	for (int i = 0; ipb_contract_row(i); i++) {
		char want[128];

		snprintf(want, sizeof(want), "| `%s` |", ipb_contract_row(i)->key);
		assert_non_null(strstr(gen, want));
	}
	free(gen);
	free(doc);
}

/* FILE holds "NAME(" (a function it defines or calls), after AFTER
 * when AFTER is not NULL, before the next function definition. */
static bool has_in(const char *file, const char *name, const char *after)
{
	char *text = tu_slurp(file), want[80];
	const char *from, *end;
	bool ok;

	if (!text)
		fail_msg("the checklist names %s, which is not there", file);
	snprintf(want, sizeof(want), "%s(", name);
	from = text;
	if (after) {
		char def[80];

		snprintf(def, sizeof(def), "%s(", after);
		from = strstr(text, def);
		if (!from)
			fail_msg("%s: no %s()", file, after);
		from += strlen(def);
		/* to the end of that function: the next line that is "}" */
		end = strstr(from, "\n}\n");
	} else {
		end = text + strlen(text);
	}
	ok = (from = strstr(from, want)) && (!end || from < end);
	free(text);
	return ok;
}

/* The checklist of counters.h, for adding a counter, is true: the files
 * it names are there, and the functions do what it says of them. */
static void test_checklist(void **state)
{
	char *h = tu_slurp("include/ipibench/counters.h");
	const char *list, *end;

	(void)state;
	assert_non_null(h);
	list = strstr(h, "Adding a counter");
	assert_non_null(list);
	end = strstr(list, "*/");
	assert_non_null(end);
	/* every path it names exists */
	for (const char *p = list; p < end; p++) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_/.-");
		char path[128];
		FILE *f;

		if (n > 2 && n < sizeof(path) && memchr(p, '/', n) &&
		    (!strncmp(p + n - 2, ".c", 2) || !strncmp(p + n - 2, ".h", 2) ||
		     !strncmp(p + n - 3, ".md", 3))) {
			snprintf(path, sizeof(path), "%.*s", (int)n, p);
			f = fopen(path, "r");
			if (!f)
				fail_msg("counters.h's checklist names %s, which is not there", path);
			fclose(f);
		}
		p += n ? n - 1 : 0;
	}
	/* 2: the agent's counters are written by their rows */
	assert_true(has_in("agent/hvbench.c", "IPB_COUNTER", "counters_json"));
	assert_true(has_in("runner/insncount.c", "IPB_COUNTER", "workload_counts"));
	/* 3: the make target is there (the document: test_generated) */
	{
		char *mk = tu_slurp("probes/probes.mk");

		assert_non_null(mk);
		assert_non_null(strstr(mk, "\nschema-doc: $(SCHEMA_MD)\n\t$(SCHEMA_MD) --update "
					   "docs/results-schema.md\n"));
		free(mk);
	}
	/* 4: the reader sums them by their rows, the report takes its
	 * headers from them */
	assert_true(has_in("analysis/inputs.c", "IPB_COUNTER", "add_counters"));
	assert_true(has_in("analysis/report.c", "ipb_counter", "block_counters"));
	assert_true(has_in("analysis/report.c", "ipb_insn", "block_insns"));
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_checklist),
	};
	return cmocka_run_group_tests_name("probes: the counters contract", tests, NULL, NULL);
}
