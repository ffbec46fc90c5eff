/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libFuzzer target for the check of results.json that `ipibench run
 * --resume` (and `host status`) make before using it (results_check in
 * runner/results.c): any JSON either passes, and then every run (and
 * guest run) is what the runner relies on, or is refused with one line naming the file and a
 * JSON path.  Corpus: runner/fuzz/corpus-resume.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/backend.h"
#include "runner/results.h"
#include "lib/safeio.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "broken: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *root = json_loadb((const char *)data, size, 0, &je), *run;
	char err[1024] = "";
	size_t i;

	if (!root)
		return 0;
	if (results_check(root, "fuzz.json", err, sizeof(err)) == 0) {
		/* boots, or a [guest] config's guest runs (then runs may be []) */
		CHECK(json_array_size(json_object_get(root, "runs")) > 0 ||
		      json_array_size(json_object_get(root, "guest_runs")) > 0);
		json_array_foreach(json_object_get(root, "guest_runs"), i, run) {
			const char *id = json_string_value(json_object_get(run, "id"));
			const char *st = json_string_value(json_object_get(run, "status"));
			const char *p = json_string_value(json_object_get(run, "ipi_path"));

			CHECK(sio_name_ok(id));
			CHECK(p && (!strcmp(p, "evtchn") || !strcmp(p, "apic")));
			CHECK(st && (!strcmp(st, "ok") || !strcmp(st, "failed") ||
				     !strcmp(st, "pending") || !strcmp(st, "running")));
			for (size_t k = 0; k < i; k++)
				CHECK(strcmp(id, json_string_value(json_object_get(
					json_array_get(json_object_get(root, "guest_runs"), k), "id"))));
		}
		json_array_foreach(json_object_get(root, "runs"), i, run) {
			const char *id = json_string_value(json_object_get(run, "id"));
			const char *st = json_string_value(json_object_get(run, "status"));

			CHECK(sio_name_ok(id));
			CHECK(mode_genapic(json_string_value(json_object_get(run, "mode"))));
			/* a boot may also have stalled (a guest run has no stall window) */
			CHECK(st && (!strcmp(st, "ok") || !strcmp(st, "failed") ||
				     !strcmp(st, "stalled") || !strcmp(st, "pending") ||
				     !strcmp(st, "running")));
			for (size_t k = 0; k < i; k++)
				CHECK(strcmp(id, json_string_value(json_object_get(
					json_array_get(json_object_get(root, "runs"), k), "id"))));
		}
	} else {
		CHECK(!strncmp(err, "fuzz.json: $", 12));
		CHECK(!strchr(err, '\n'));
	}
	json_decref(root);
	return 0;
}
