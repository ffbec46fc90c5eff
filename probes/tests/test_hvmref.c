/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The reference HVM profile reader (probes/hvmref.c) on the seed's file,
 * results/reference/seed-004.json, and on broken copies of it: each is
 * refused with one line naming the file and the JSON path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "probes/hvmref.h"
#include "tests/unit/unit.h"

#define SEED_REF "results/reference/seed-004.json"

/* The seed's file: its name, source, mask and window, and both profiles
 * exactly as the quoted mail's lines ("   NNNN NAME", before then after,
 * kept verbatim in source.quote). */
static void test_seed_file(void **st)
{
	struct tr_hvmref r;
	char err[512];
	json_t *root;
	json_error_t e;
	const char *q, *after;
	size_t rows = 0;

	(void)st;
	assert_int_equal(tr_hvmref_load(SEED_REF, &r, err, sizeof(err)), 0);
	assert_string_equal(r.name, "seed-004");
	assert_string_equal(r.mask, "0x0008ffff");
	assert_true(r.seconds == 5);
	assert_non_null(strstr(r.source, "Boris Ostrovsky"));
	assert_int_equal(r.nrows, 13);
	assert_int_equal(tr_hvmref_find(&r, "VMENTRY")->before, 307528);
	assert_int_equal(tr_hvmref_find(&r, "VMENTRY")->after, 166480);
	assert_int_equal(tr_hvmref_find(&r, "INJ_VIRQ")->after, 174);
	assert_null(tr_hvmref_find(&r, "vmentry"));	/* names are exact */

	/* The rows are the quote's lines, in order. */
	assert_non_null(root = json_load_file(SEED_REF, 0, &e));
	q = json_string_value(json_object_get(json_object_get(root, "source"), "quote"));
	assert_non_null(q);
	after = strstr(q, "After applying this patch");
	assert_non_null(after);
	for (const char *p = q; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		unsigned long long n;
		char name[64];
		const struct tr_hvmref_row *row;

		if (sscanf(p, " %llu %63s", &n, name) != 2 || *p != ' ')
			continue;
		assert_non_null(row = tr_hvmref_find(&r, name));
		assert_int_equal(p < after ? row->before : row->after, n);
		rows++;
	}
	assert_int_equal(rows, 26);
	/* The facts the file must record: the NIC's driver, the load, the source. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "nic"), "driver")), "igb");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(root, "workload"), "throughput")),
			       "ab -n 10000 -c 200"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "source"), "message_id")),
			    "<544E95D5.1020000@oracle.com>");
	assert_true(json_array_size(json_object_get(root, "not_said")) >= 4);
	json_decref(root);
	tr_hvmref_free(&r);
}

/* One broken copy: EDIT applied to the seed's JSON, expected refusal WANT. */
struct broken {
	const char *what;
	void (*edit)(json_t *root);
	const char *want;
};

static json_t *ev(json_t *root, const char *side, size_t i)
{
	return json_array_get(json_object_get(json_object_get(json_object_get(root, "profiles"), side),
					      "events"), i);
}

static void e_no_profiles(json_t *r) { json_object_del(r, "profiles"); }
static void e_no_after(json_t *r) { json_object_del(json_object_get(r, "profiles"), "after"); }
static void e_no_count(json_t *r) { json_object_del(ev(r, "before", 2), "count"); }
static void e_str_count(json_t *r) { json_object_set_new(ev(r, "after", 5), "count", json_string("222")); }
static void e_real_count(json_t *r) { json_object_set_new(ev(r, "after", 5), "count", json_real(222.5)); }
static void e_neg_count(json_t *r) { json_object_set_new(ev(r, "before", 3), "count", json_integer(-64067)); }
static void e_events_obj(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "profiles"), "before"), "events",
			    json_object());
}
static void e_no_events(json_t *r)
{
	json_array_clear(json_object_get(json_object_get(json_object_get(r, "profiles"), "after"), "events"));
}
static void e_row_num(json_t *r)
{
	json_array_set_new(json_object_get(json_object_get(json_object_get(r, "profiles"), "after"), "events"),
			   0, json_integer(1));
}
static void e_dup(json_t *r) { json_object_set_new(ev(r, "after", 1), "name", json_string("HLT")); }
static void e_bad_name(json_t *r) { json_object_set_new(ev(r, "before", 0), "name", json_string("a b")); }
static void e_schema(json_t *r) { json_object_set_new(r, "schema", json_string("other/1")); }
static void e_schema_type(json_t *r) { json_object_set_new(r, "schema", json_integer(1)); }
static void e_workload(json_t *r) { json_object_set_new(r, "workload_type", json_string("flush_tlb_all")); }
static void e_name(json_t *r) { json_object_set_new(r, "name", json_string("../x")); }
static void e_no_author(json_t *r) { json_object_del(json_object_get(r, "source"), "author"); }
static void e_mask_type(json_t *r) { json_object_set_new(json_object_get(r, "xentrace"), "mask", json_integer(0x8ffff)); }
static void e_esc(json_t *r) { json_object_set_new(json_object_get(r, "source"), "author", json_string("B\033[2J")); }
static void e_date_nl(json_t *r) { json_object_set_new(json_object_get(r, "source"), "date", json_string("27 Oct\n2014")); }
static void e_date_type(json_t *r) { json_object_set_new(json_object_get(r, "source"), "date", json_integer(2014)); }
static void e_secs(json_t *r) { json_object_set_new(json_object_get(r, "xentrace"), "seconds", json_integer(0)); }

static const struct broken broken[] = {
	{ "no profiles", e_no_profiles, "$.profiles: missing" },
	{ "no after", e_no_after, "$.profiles.after: missing" },
	{ "a row without a count", e_no_count, "$.profiles.before.events[2].count: missing" },
	{ "a count as a string", e_str_count, "$.profiles.after.events[5].count: an integer, not a string" },
	{ "a count with a fraction", e_real_count, "$.profiles.after.events[5].count: an integer, not a real number" },
	{ "a negative count", e_neg_count, "$.profiles.before.events[3].count: -64067 is negative" },
	{ "events an object", e_events_obj, "$.profiles.before.events: an array, not an object" },
	{ "no events", e_no_events, "$.profiles.after.events: 1 to 256 rows expected, not 0" },
	{ "a row a number", e_row_num, "$.profiles.after.events[0]: an object, not an integer" },
	{ "a name twice", e_dup, "$.profiles.after.events[2].name: \"HLT\" listed twice" },
	{ "a name with a space", e_bad_name, "$.profiles.before.events[0].name: not an event name" },
	{ "another schema", e_schema, "$.schema: \"ipibench-reference/N\" expected" },
	{ "schema a number", e_schema_type, "$.schema: a string, not an integer" },
	{ "a flush_tlb_all reference", e_workload, "$.workload_type: \"hvm_profile\" expected" },
	{ "a name with a path", e_name, "$.name: not a name" },
	{ "no author", e_no_author, "$.source.author: missing" },
	{ "mask a number", e_mask_type, "$.xentrace.mask: a string, not an integer" },
	{ "a window of 0 s", e_secs, "$.xentrace.seconds: above 0" },
	{ "an escape sequence in the author", e_esc, "$.source.author: a control character (0x1b)" },
	{ "a newline in the date", e_date_nl, "$.source.date: a control character (0x0a)" },
	{ "a date as a number", e_date_type, "$.source.date: a string, not an integer" },
};

static void test_refusals(void **st)
{
	char path[300], err[512];
	json_error_t e;

	(void)st;
	snprintf(path, sizeof(path), "%s/ref.json", tu_dir);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		json_t *root = json_load_file(SEED_REF, 0, &e);
		struct tr_hvmref r;

		assert_non_null(root);
		broken[i].edit(root);
		assert_int_equal(json_dump_file(root, path, 0), 0);
		json_decref(root);
		err[0] = 0;
		if (tr_hvmref_load(path, &r, err, sizeof(err)) != -1)
			fail_msg("%s: accepted", broken[i].what);
		tr_hvmref_free(&r);
		if (strncmp(err, path, strlen(path)) || !strstr(err, broken[i].want) || strchr(err, '\n'))
			fail_msg("%s: \"%s\", not \"%s: ...%s...\"", broken[i].what, err, path, broken[i].want);
	}
	/* Not JSON, not an object, not a regular file: refused by the same
	 * reader (safeio), naming the file. */
	assert_int_equal(tu_write(path, "{\"schema\": "), 0);
	{
		struct tr_hvmref r;

		assert_int_equal(tr_hvmref_load(path, &r, err, sizeof(err)), -1);
		tr_hvmref_free(&r);
		assert_non_null(strstr(err, path));
		assert_int_equal(tu_write(path, "[1, 2]"), 0);
		assert_int_equal(tr_hvmref_load(path, &r, err, sizeof(err)), -1);
		tr_hvmref_free(&r);
		assert_non_null(strstr(err, "$: an object, not an array"));
		assert_int_equal(tr_hvmref_load("/dev/zero", &r, err, sizeof(err)), -1);
		tr_hvmref_free(&r);
		assert_non_null(strstr(err, "/dev/zero"));
	}
	unlink(path);
}

/* A name on one side only counts 0 on the other; rows keep before's order
 * and then after's new names. */
static void test_one_side_only(void **st)
{
	struct tr_hvmref r;
	char err[512];
	json_t *root = json_pack("{s:s,s:s,s:s,s:{s:s,s:s},s:{s:s,s:i},s:{s:{s:[{s:s,s:i},{s:s,s:i}]},"
				 "s:{s:[{s:s,s:i}]}}}",
				 "schema", "ipibench-reference/1", "workload_type", "hvm_profile",
				 "name", "t", "source", "author", "a", "file", "f",
				 "xentrace", "mask", "0x0008ffff", "seconds", 1,
				 "profiles", "before", "events", "name", "HLT", "count", 5,
				 "name", "csched2:tick", "count", 0,
				 "after", "events", "name", "NPF", "count", 7);

	(void)st;
	assert_non_null(root);
	assert_int_equal(tr_hvmref_parse(root, "mem", &r, err, sizeof(err)), 0);
	assert_int_equal(r.nrows, 3);
	assert_string_equal(r.rows[0].name, "HLT");
	assert_int_equal(r.rows[0].after, 0);
	assert_string_equal(r.rows[2].name, "NPF");
	assert_int_equal(r.rows[2].before, 0);
	assert_int_equal(r.rows[2].after, 7);
	assert_string_equal(r.source, "a (f)");
	tr_hvmref_free(&r);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_file),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_one_side_only),
	};

	return cmocka_run_group_tests(tests, tu_setup, tu_teardown);
}
