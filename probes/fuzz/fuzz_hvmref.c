/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libFuzzer target for the reference HVM profile reader (probes/hvmref.c,
 * `trace diff --reference`): any JSON text goes through tr_hvmref_parse(),
 * which either accepts it, with rows that keep its rules (names that pass
 * the event-name rule, no name twice, at most twice TR_HVMREF_MAX_ROWS
 * rows), or refuses it with one line that starts with the file's name and
 * a JSON path.  A broken rule aborts, so the fuzzer reports it like a crash.
 * Seeds: probes/fuzz/corpus-hvmref (results/reference/seed-004.json).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "probes/hvmref.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t e;
	json_t *root = json_loadb((const char *)data, size, 0, &e);
	struct tr_hvmref r;
	char err[512];

	if (!root)
		return 0;
	err[0] = 0;
	if (tr_hvmref_parse(root, "fuzz", &r, err, sizeof(err))) {
		CHECK(!strncmp(err, "fuzz: $", 7) || !strcmp(err, "fuzz: out of memory"));
		CHECK(!strchr(err, '\n'));
	} else {
		CHECK(r.nrows >= 1 && r.nrows <= 2 * TR_HVMREF_MAX_ROWS);
		CHECK(r.seconds > 0);
		for (size_t i = 0; i < r.nrows; i++) {
			CHECK(r.rows[i].name[0] && !strchr(r.rows[i].name, '\n'));
			CHECK(r.rows[i].sides >= 1 && r.rows[i].sides <= 3);
			CHECK(tr_hvmref_find(&r, r.rows[i].name) == &r.rows[i]);
		}
	}
	tr_hvmref_free(&r);
	json_decref(root);
	return 0;
}
