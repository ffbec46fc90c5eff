/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * keys: the one option engine for what a config sets (after fio's
 * options.c and parse.c): a table of struct key, each entry a key's name,
 * its type, where its value goes (an offset into a struct, or, through
 * keys_json(), a JSON value under its name), its range, default and help,
 * an optional callback for the few keys that need parsing of their own
 * (fio's .cb), and flags.  From the one table come:
 *
 *   keys_set()       a key's text value checked and stored, or refused with
 *                    one line ("KEY = 'V': expected ..."; the caller puts
 *                    FILE:LINE: before it)
 *   keys_json()      the same value as JSON (workload parameters, which go
 *                    to the agent in the job's params object)
 *   keys_defaults()  every default of a table into its struct
 *   keys_doc()       the type, values and default of an entry as the
 *                    configs reference and ipibench.ini(5) print them
 *   keys_verify()    a table is complete (every key with help, a field in
 *                    its struct, choices, no key twice, a default that
 *                    passes its own rule), as fio's option_init() checks
 *
 * The tables: [host] (runner/backends.c's host_common_settings[] and each
 * backend's own), [matrix] and [guest] (runner/config.c) and each
 * workload's parameters (workloads/NAME.c).  docs/design.md has the
 * checklist for adding a key.
 */
#ifndef IPIBENCH_KEYS_H
#define IPIBENCH_KEYS_H

#include <stddef.h>

#include <jansson.h>

enum key_type {
	KEY_UINT,     /* a decimal integer in [min, max]: unsigned int / JSON integer */
	KEY_BOOL,     /* true or false (KEY_F_WORDS: yes/no, on/off, 1/0 too): int / JSON boolean */
	KEY_CPUS,     /* all, all-but-self or a CPU list "1,17,33" / "0-7,9": char[size] / string */
	KEY_TEXT,     /* text; with a size, of fewer than size bytes, none of reject: char[size] */
	KEY_CHOICE,   /* one of the choices: its text (char[size]) or, KEY_F_INDEX, its index (int) */
	KEY_CHOICES,  /* empty or a list of min to max of the choices: char[size] / string */
	KEY_HEX,      /* hex digits (0x optional) in [min, max]: unsigned long or unsigned int */
	KEY_NAME,     /* a name by sio_name_ok(), of fewer than size bytes: char[size] */
	KEY_IPV4,     /* a dotted IPv4 address: char[size >= 16] */
	KEY_LIST,     /* a list "a, b, c": its cb reads it (keys_list_split()) */
	KEY_NTYPES
};

/* The caller's own flags (a workload's WL_F_*) are below KEY_F_USER. */
#define KEY_F_USER 0xffu
/* KEY_CHOICE: the value stored is the choice's index, an int (an enum). */
#define KEY_F_INDEX (1u << 8)
/* KEY_BOOL: yes/no, on/off and 1/0 are taken too. */
#define KEY_F_WORDS (1u << 9)
/* A key given where it does not apply (only) is refused with its value. */
#define KEY_F_SHOW_VALUE (1u << 10)

struct key;
/*
 * Reads V into BASE in place of the type's own parsing (CTX: the caller's,
 * NULL when defaults are applied).  0, or -1 with a one-line reason.
 */
typedef int key_cb(const struct key *k, void *base, const char *v, void *ctx, char *err,
		   size_t errlen);

struct key {
	/* First, in this order, so that a workload's table reads as a row:
	 * { "cpu", KEY_UINT, 0, 4095, "0", "CPU the workload runs on", WL_F_CPU } */
	const char *key;
	enum key_type type;
	long min, max;          /* UINT, HEX: the range; CHOICES: how many names */
	const char *def;        /* as a config writes it; NULL: none (left 0, "") */
	const char *help;       /* '\n': a further line in the docs */
	unsigned int flags;     /* KEY_F_*, and the caller's own below KEY_F_USER */
	/* CHOICE(S): the names it takes, NULL-terminated (a function when
	 * they live in another table: the senders, the backends). */
	const char *const *(*choices_fn)(void);
	const char *const *choices;
	/* The field in the struct (KEY_FIELD()); size 0: no field (JSON). */
	size_t offset, size;
	key_cb *cb;
	const char *reject;     /* TEXT: characters the value may not hold */
	const char *record;     /* the results.json key that records it, or NULL */
	/* Where it applies, in the caller's terms (0: everywhere), and the
	 * refusal when given elsewhere ("no emulated NIC (...)"). */
	unsigned int only;
	const char *not_here;
	/* For the docs, when the type's own words would not say it. */
	const char *doc_type, *doc_range, *doc_def;
};

/* KEY_FIELD(struct, field): the .offset and .size of a field. */
#define KEY_FIELD(st, f) .offset = offsetof(st, f), .size = sizeof(((st *)0)->f)

/* KEY in TAB ({NULL}-terminated; may be NULL), or NULL. */
const struct key *keys_find(const struct key *tab, const char *key);
/* The names K takes (CHOICE, CHOICES), or NULL. */
const char *const *keys_choices(const struct key *k);

/* Check V by K's rule (or K's cb) and store it in BASE.  0, or -1 with err. */
int keys_set(const struct key *k, void *base, const char *v, void *ctx, char *err,
	     size_t errlen);
/* Check V by K's rule: the JSON value (integer, boolean or string), or NULL
 * with err.  (No cb: a JSON key's rule is its type's.) */
json_t *keys_json(const struct key *k, const char *v, char *err, size_t errlen);
/* Every default of TAB into BASE (a table's defaults passed keys_verify()). */
void keys_defaults(const struct key *tab, void *base);
/* K's value in BASE as a config writes it, in BUF. */
const char *keys_text(const struct key *k, const void *base, char *buf, size_t len);

/*
 * TAB is complete: every key with help, its field inside BASE_SIZE bytes
 * and as large as its type needs (a cb or a JSON table, BASE_SIZE 0: no
 * field), choices for a CHOICE, a cb for a LIST, no key twice, and each
 * default passes its own rule.  0, or -1 with "KEY: reason".
 */
int keys_verify(const struct key *tab, size_t base_size, char *err, size_t errlen);

/* An entry for the docs: its type's name, the values it takes, its default. */
struct key_doc {
	const char *type, *range, *def;
	char rbuf[512], dbuf[128];
};
void keys_doc(const struct key *k, struct key_doc *d);
/* "HELP, MIN to MAX (default D)": K on one line for --help and run --list. */
const char *keys_describe(const struct key *k, char *buf, size_t len);

/*
 * V as an integer of BASE (10: decimal digits, no leading zero, sign or
 * space; 16: hex digits, 0x optional) from MIN to MAX into *out: 0, or -1
 * with "KEY = 'V': expected an integer from MIN to MAX[, written in ...]".
 * The one rule for integers of every key.
 */
int keys_parse_int(const char *key, const char *v, int base, long min, long max, long *out,
		   char *err, size_t errlen);
/* WORDS (NULL-terminated, may be NULL) as "a, b or c" in BUF, for messages. */
const char *keys_or_list(char *buf, size_t len, const char *const *words);
/* 1 when list V ("a, b") has an empty item: ",a", "a,,b", "a, ": refused
 * for every list key (an empty V is an empty list, not an empty item). */
int keys_list_empty_item(const char *v);
/* Parse a CPU list into a bitmap of nbits bits; -1 when malformed or out of range. */
int keys_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits);

/* The longest list value, and the most items keys_list_split() hands back. */
#define KEYS_LIST_MAX 256
/*
 * The items of K's list value V ("a, b, c": commas and spaces between), cut
 * in BUF (KEYS_LIST_MAX bytes) into ITEMS (KEYS_LIST_MAX / 2 + 1): their
 * number, or 0 with err (V too long, an empty item, no item).
 */
size_t keys_list_split(const char *k, const char *v, char *buf, char **items, char *err,
		       size_t errlen);

#endif
