/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lib/tests/test_keys.c: the option engine (lib/keys.h) stores each type
 * where its table says, refuses values outside their range or choices with
 * one line naming the key and the value, applies defaults, hands a list to
 * its callback, makes JSON of a value, prints each entry for the docs, and
 * keys_verify() finds a table with a bad entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lib/keys.h"

struct st {
	unsigned int n;
	unsigned long mask;
	int on, color;
	char name[16], text[8], shape[8], addr[16];
	unsigned int items[4], nitems;
};

static const char *const colors[] = { "red", "green", "blue", NULL };

static const char *const *shapes(void)
{
	static const char *const s[] = { "round", "square", NULL };

	return s;
}

/* The callback of a list: up to 4 numbers, each 1 to 9, each once. */
static int items_cb(const struct key *k, void *base, const char *v, void *ctx, char *err,
		    size_t errlen)
{
	struct st *s = base;
	char buf[KEYS_LIST_MAX], *items[KEYS_LIST_MAX / 2 + 1];
	size_t n = keys_list_split(k->key, v, buf, items, err, errlen);
	long x;

	if (ctx)
		(*(int *)ctx)++;
	if (!n)
		return -1;
	s->nitems = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->nitems == 4) {
			snprintf(err, errlen, "%s: at most 4", k->key);
			return -1;
		}
		if (keys_parse_int(k->key, items[i], 10, 1, 9, &x, err, errlen))
			return -1;
		s->items[s->nitems++] = (unsigned int)x;
	}
	return 0;
}

static const struct key tab[] = {
	{ "n", KEY_UINT, 1, 100, "7", "a number", 0, KEY_FIELD(struct st, n) },
	{ "mask", KEY_HEX, 1, 0xffffffffL, "0x00ff", "a mask", 0, KEY_FIELD(struct st, mask) },
	{ "on", KEY_BOOL, 0, 0, "false", "a switch", 0, KEY_FIELD(struct st, on) },
	{ .key = "color", .type = KEY_CHOICE, .def = "green", .help = "a color",
	  .flags = KEY_F_INDEX, .choices = colors, KEY_FIELD(struct st, color) },
	{ .key = "shape", .type = KEY_CHOICE, .def = "round", .help = "a shape",
	  .choices_fn = shapes, KEY_FIELD(struct st, shape) },
	{ .key = "name", .type = KEY_NAME, .help = "its name (default n-NAME)",
	  KEY_FIELD(struct st, name) },
	{ .key = "text", .type = KEY_TEXT, .def = "", .help = "some text", .reject = ",",
	  KEY_FIELD(struct st, text) },
	{ .key = "addr", .type = KEY_IPV4, .def = "10.0.0.2", .help = "an address",
	  KEY_FIELD(struct st, addr) },
	{ .key = "items", .type = KEY_LIST, .help = "some numbers", .cb = items_cb,
	  .doc_range = "1 to 9 each, at most 4", .doc_def = "none" },
	{ NULL },
};

static int set(struct st *s, const char *key, const char *v, char *err, size_t len)
{
	return keys_set(keys_find(tab, key), s, v, NULL, err, len);
}

static void test_defaults_and_types(void **state)
{
	struct st s;
	char err[256], buf[64];

	(void)state;
	assert_int_equal(keys_verify(tab, sizeof(struct st), err, sizeof(err)), 0);
	memset(&s, 0, sizeof(s));
	keys_defaults(tab, &s);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.mask, 0xff);
	assert_int_equal(s.on, 0);
	assert_int_equal(s.color, 1);
	assert_string_equal(s.shape, "round");
	assert_string_equal(s.name, "");
	assert_string_equal(s.addr, "10.0.0.2");
	assert_int_equal(set(&s, "n", "100", err, sizeof(err)), 0);
	assert_int_equal(s.n, 100);
	assert_int_equal(set(&s, "mask", "ABCD", err, sizeof(err)), 0);
	assert_int_equal(s.mask, 0xabcd);
	assert_string_equal(keys_text(keys_find(tab, "mask"), &s, buf, sizeof(buf)), "0xabcd");
	assert_int_equal(set(&s, "on", "true", err, sizeof(err)), 0);
	assert_int_equal(s.on, 1);
	assert_string_equal(keys_text(keys_find(tab, "on"), &s, buf, sizeof(buf)), "true");
	assert_int_equal(set(&s, "color", "blue", err, sizeof(err)), 0);
	assert_int_equal(s.color, 2);
	assert_string_equal(keys_text(keys_find(tab, "color"), &s, buf, sizeof(buf)), "blue");
	assert_int_equal(set(&s, "shape", "square", err, sizeof(err)), 0);
	assert_string_equal(s.shape, "square");
	assert_int_equal(set(&s, "name", "box-1", err, sizeof(err)), 0);
	assert_string_equal(s.name, "box-1");
	assert_int_equal(set(&s, "text", "a b", err, sizeof(err)), 0);
	assert_string_equal(keys_text(keys_find(tab, "text"), &s, buf, sizeof(buf)), "a b");
	assert_null(keys_find(tab, "nope"));
	assert_null(keys_find(NULL, "n"));
}

/* Each refusal is one line naming the key and the value. */
static void test_refusals(void **state)
{
	static const struct {
		const char *key, *v, *msg;
	} bad[] = {
		{ "n", "0", "n = '0': expected an integer from 1 to 100" },
		{ "n", "101", "n = '101': expected an integer from 1 to 100" },
		{ "n", "010", "n = '010': expected an integer from 1 to 100, written in decimal digits" },
		{ "n", "-1", "n = '-1': expected an integer from 1 to 100, written in decimal" },
		{ "n", "seven", "n = 'seven': expected an integer from 1 to 100" },
		{ "mask", "0", "mask = '0': expected an integer from 1 to 4294967295" },
		{ "mask", "0xfg", "mask = '0xfg': expected an integer from 1 to 4294967295, written in hex" },
		{ "on", "yes", "on = 'yes': expected true or false" },
		{ "color", "pink", "color = 'pink': expected red, green or blue" },
		{ "shape", "", "shape = '': expected round or square" },
		{ "name", "../x", "name = ../x: a host name is letters" },
		{ "text", "abcdefgh", "text: longer than 7 bytes" },
		{ "text", "a,b", "text = a,b: no ',' allowed" },
		{ "addr", "10.0.0", "addr = '10.0.0': expected a dotted IPv4 address" },
		{ "items", "1,,2", "items = 1,,2: an empty item" },
		{ "items", "1, 2, 3, 4, 5", "items: at most 4" },
		{ "items", "0", "items = '0': expected an integer from 1 to 9" },
		{ "items", " ", "items: empty" },
	};
	struct st s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	keys_defaults(tab, &s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(set(&s, bad[i].key, bad[i].v, err, sizeof(err)), -1);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%s = %s: expected '%s', got '%s'", bad[i].key, bad[i].v, bad[i].msg, err);
		assert_null(strchr(err, '\n'));
	}
	/* A refused value leaves the field as it was. */
	assert_int_equal(s.n, 7);
	assert_int_equal(s.color, 1);
}

/* The callback reads the value in place of the type's rule, with the caller's context. */
static void test_callback(void **state)
{
	struct st s;
	char err[256];
	int calls = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(keys_set(keys_find(tab, "items"), &s, "3, 1,9", &calls, err, sizeof(err)), 0);
	assert_int_equal(calls, 1);
	assert_int_equal(s.nitems, 3);
	assert_int_equal(s.items[0], 3);
	assert_int_equal(s.items[2], 9);
}

/* A JSON key: the value of its type, the same refusals. */
static void test_json(void **state)
{
	static const char *const senders[] = { "a", "b", "c", NULL };
	static const struct key p[] = {
		{ "it", KEY_UINT, 1, 10, "5", "iterations", 0, .cb = NULL },
		{ "sh", KEY_BOOL, 0, 0, "yes", "shorthand", KEY_F_WORDS, .cb = NULL },
		{ "mask", KEY_CPUS, 0, 0, "all", "mask", 0, .cb = NULL },
		{ .key = "pair", .type = KEY_CHOICES, .min = 2, .max = 2, .def = "", .help = "pair",
		  .choices = senders },
		{ NULL },
	};
	char err[256];
	json_t *j;

	(void)state;
	assert_int_equal(keys_verify(p, 0, err, sizeof(err)), 0);
	j = keys_json(&p[0], "9", err, sizeof(err));
	assert_true(json_is_integer(j) && json_integer_value(j) == 9);
	json_decref(j);
	j = keys_json(&p[1], "off", err, sizeof(err));
	assert_true(json_is_false(j));
	json_decref(j);
	j = keys_json(&p[2], "0-3,7", err, sizeof(err));
	assert_string_equal(json_string_value(j), "0-3,7");
	json_decref(j);
	j = keys_json(&p[3], "a, c", err, sizeof(err));
	assert_string_equal(json_string_value(j), "a, c");
	json_decref(j);
	assert_null(keys_json(&p[0], "11", err, sizeof(err)));
	assert_string_equal(err, "it = '11': expected an integer from 1 to 10");
	assert_null(keys_json(&p[2], "0-", err, sizeof(err)));
	assert_null(keys_json(&p[3], "a", err, sizeof(err)));
	assert_string_equal(err, "pair = 'a': expected 2 to 2 names, or nothing");
	assert_null(keys_json(&p[3], "a, d", err, sizeof(err)));
	assert_string_equal(err, "pair = 'a, d': expected a list of a, b or c");
}

/* Every way an entry can be bad is found, with the key named. */
static void test_verify_bad_tables(void **state)
{
	static const struct key nohelp[] = {
		{ "n", KEY_UINT, 1, 9, "1", "", 0, KEY_FIELD(struct st, n) }, { NULL } };
	static const struct key baddef[] = {
		{ "n", KEY_UINT, 1, 9, "10", "a number", 0, KEY_FIELD(struct st, n) }, { NULL } };
	static const struct key twice[] = {
		{ "n", KEY_UINT, 1, 9, "1", "a number", 0, KEY_FIELD(struct st, n) },
		{ "n", KEY_UINT, 1, 9, "1", "a number", 0, KEY_FIELD(struct st, n) }, { NULL } };
	static const struct key outside[] = {
		{ "n", KEY_UINT, 1, 9, "1", "a number", 0, .offset = sizeof(struct st), .size = 4 },
		{ NULL } };
	static const struct key small[] = {
		{ "n", KEY_UINT, 1, 9, "1", "a number", 0, KEY_FIELD(struct st, text[0]) }, { NULL } };
	static const struct key nochoices[] = {
		{ "c", KEY_CHOICE, 0, 0, "a", "a color", 0, KEY_FIELD(struct st, shape) }, { NULL } };
	static const char *const long_names[] = { "round", "rectangular", NULL };
	static const struct key toolong[] = {
		{ .key = "s", .type = KEY_CHOICE, .def = "round", .help = "a shape",
		  .choices = long_names, KEY_FIELD(struct st, shape) }, { NULL } };
	static const struct key nocb[] = {
		{ "l", KEY_LIST, 0, 0, NULL, "a list", 0, .cb = NULL }, { NULL } };
	static const struct {
		const struct key *tab;
		const char *msg;
	} bad[] = {
		{ nohelp, "n has no help" },
		{ baddef, "the default of n: n = '10': expected an integer from 1 to 9" },
		{ twice, "n twice" },
		{ outside, "n lies outside its settings struct" },
		{ small, "n lies outside its settings struct" },
		{ nochoices, "c has no choices" },
		{ nocb, "l is a list with no callback to read it" },
		{ toolong, "s has a choice longer than its field (8 bytes)" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(keys_verify(bad[i].tab, sizeof(struct st), err, sizeof(err)), -1);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%zu: expected '%s', got '%s'", i, bad[i].msg, err);
	}
	/* A JSON table's default is checked by the same rule. */
	assert_int_equal(keys_verify(baddef, 0, err, sizeof(err)), -1);
}

/* The docs' words for each entry: type, values, default. */
static void test_doc(void **state)
{
	static const struct {
		const char *key, *type, *range, *def;
	} want[] = {
		{ "n", "integer", "1 to 100", "7" },
		{ "mask", "hex integer", "0x1 to 0xffffffff", "0x00ff" },
		{ "on", "boolean", "true or false", "false" },
		{ "color", "choice", "red, green or blue", "green" },
		{ "shape", "choice", "round or square", "round" },
		{ "name", "name", "letters, digits, '.', '_' and '-', a letter or digit first, no '..', "
		  "at most 15 bytes", "n-NAME" },
		{ "text", "text", "at most 7 bytes, none of ','", "empty" },
		{ "addr", "IPv4 address", "dotted quad", "10.0.0.2" },
		{ "items", "list", "1 to 9 each, at most 4", "none" },
	};
	struct key_doc d;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		keys_doc(keys_find(tab, want[i].key), &d);
		assert_string_equal(d.type, want[i].type);
		assert_string_equal(d.range, want[i].range);
		assert_string_equal(d.def, want[i].def);
	}
	assert_string_equal(keys_describe(keys_find(tab, "n"), buf, sizeof(buf)),
			    "a number, 1 to 100 (default 7)");
	assert_string_equal(keys_describe(keys_find(tab, "color"), buf, sizeof(buf)),
			    "a color: red, green or blue (default green)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_types),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_callback),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_verify_bad_tables),
		cmocka_unit_test(test_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
