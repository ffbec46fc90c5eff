/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libFuzzer target for the config parser (runner/config.c through inih):
 * any input either loads into a config that keeps every promise config.h
 * makes, or is refused with one line naming the file; no crash, leak or
 * undefined behaviour either way.  Inputs that contain a NUL byte go
 * through config_load() on a memfd (a regular file), the rest through
 * config_load_string().  A broken promise aborts (a crash for
 * libFuzzer).  Corpus: runner/fuzz/corpus (the shipped configs and broken
 * ones).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/config.h"
#include "safeio/safeio.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "broken: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512] = "";
	struct config c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (memchr(data, 0, size)) {
		static int fd = -1;
		static char path[64];

		if (fd < 0) {
			fd = memfd_create("fuzz.ini", 0);
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		}
		if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
			abort();
		/* a NUL is refused on its line, wherever it is */
		CHECK(config_load(path, &c, err, sizeof(err)) == -1);
		CHECK(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'));
		CHECK(strstr(err, "syntax error") || strstr(err, ": "));
		free(text);
		return 0;
	}
	if (config_load_string("fuzz.ini", text, &c, err, sizeof(err)) == 0) {
		CHECK(host_backend_find(c.host.backend));
		CHECK(sio_name_ok(c.host.name));
		CHECK(c.host.cpus >= 1 && c.host.cpus <= 4096);
		CHECK(c.host.maxcpus >= c.host.cpus && c.host.maxcpus <= 4096);
		CHECK(c.host.settings != NULL);
		CHECK(c.matrix.nmodes >= 1 && c.matrix.nmodes <= CFG_MAX_MODES);
		for (unsigned int i = 0; i < c.matrix.nmodes; i++)
			CHECK(mode_genapic(c.matrix.modes[i]));
		CHECK(c.matrix.repetitions >= 1 && c.matrix.repetitions <= 1000);
		CHECK(c.matrix.ncpus <= CFG_MAX_SWEEP);
		for (unsigned int i = 0; i < c.matrix.ncpus; i++)
			CHECK(c.matrix.cpus[i] >= 1 && c.matrix.cpus[i] <= 4096);
		CHECK(c.nwl >= 1 && c.nwl <= CFG_MAX_WORKLOADS);
		for (unsigned int i = 0; i < c.nwl; i++) {
			CHECK(sio_name_ok(c.wl[i].name));
			CHECK(strlen(c.wl[i].name) <= CFG_WL_NAME_MAX);
			CHECK(c.wl[i].type && json_is_object(c.wl[i].params));
			for (unsigned int k = 0; k < i; k++)
				CHECK(strcmp(c.wl[i].name, c.wl[k].name));
		}
		CHECK(json_is_object(c.sections));
		{
			const char *k, *k2;
			json_t *sec, *v;

			/* every key of every section made it, as a string */
			json_object_foreach(c.sections, k, sec) {
				CHECK(json_is_object(sec));
				json_object_foreach(sec, k2, v)
					CHECK(json_is_string(v));
			}
			CHECK(json_object_get(c.sections, "matrix"));
			/* modes is optional (the build's own modes); given, it is the list */
			CHECK(!json_object_get(json_object_get(c.sections, "matrix"), "modes") ==
			      !c.matrix.modes_given);
			for (unsigned int i = 0; i < c.nwl; i++) {
				char sname[80];

				snprintf(sname, sizeof(sname), "workload:%s", c.wl[i].name);
				CHECK(json_string_value(json_object_get(json_object_get(c.sections, sname),
									  "type")));
			}
		}
		CHECK(c.textlen == size);
		CHECK(!strcmp(c.text, text));
		config_free(&c);
	} else {
		CHECK(!strncmp(err, "fuzz.ini", 8));
		CHECK(!strchr(err, '\n'));
	}
	free(text);
	return 0;
}
