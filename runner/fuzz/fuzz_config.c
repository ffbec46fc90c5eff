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
#include "workloads/workloads.h"
#include "lib/safeio.h"

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
		/* a [guest] config runs the guest's own workload */
		CHECK((c.nwl >= 1 || c.guest.given) && c.nwl <= CFG_MAX_WORKLOADS);
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
				char sname[80], num[32];
				json_t *given;

				snprintf(sname, sizeof(sname), "workload:%s", c.wl[i].name);
				given = json_object_get(c.sections, sname);
				CHECK(json_string_value(json_object_get(given, "type")));
				/* an integer runs as written: decimal, no prefix (010, 0x10) */
				json_object_foreach(given, k, v) {
					const json_t *p = json_object_get(c.wl[i].params, k);

					if (!json_is_integer(p))
						continue;
					snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(p));
					CHECK(!strcmp(num, json_string_value(v)));
				}
			}
			/* no list key keeps an empty item; no value was cut at " ;" */
			json_object_foreach(c.sections, k, sec)
				json_object_foreach(sec, k2, v) {
					const char *s = json_string_value(v);
					const struct key *p = NULL;

					for (unsigned int i = 0; i < c.nwl; i++)
						if (!strncmp(k, "workload:", 9) && !strcmp(k + 9, c.wl[i].name))
							p = wl_param_find(c.wl[i].type, k2);
					if ((p && (p->type == KEY_CPUS || p->type == KEY_CHOICES)) ||
					    (!strcmp(k, "matrix") && strcmp(k2, "repetitions") &&
					     strcmp(k2, "order") && strcmp(k2, "seed")) ||
					    (!strcmp(k, "guest") && strstr(k2, "_path")))
						CHECK(!keys_list_empty_item(s));
				}
			for (const char *l = c.text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
				/* as read_line skips them: a BOM first, then spaces */
				size_t bom = l == c.text && !strncmp(l, "\xef\xbb\xbf", 3) ? 3 : 0;
				size_t n = strcspn(l, "\n"), b = bom + strspn(l + bom, " \t\r\v\f");

				if (b < n && l[b] != ';' && l[b] != '#' && l[b] != '[')
					for (size_t j = b + 1; j < n; j++)
						CHECK(!((l[j] == ';' || l[j] == '#') &&
							(l[j - 1] == ' ' || l[j - 1] == '\t')));
			}
			/* the x2APIC mode is modes' alone */
			{
				char w[128];
				const char *cl = json_string_value(json_object_get(
					json_object_get(c.sections, "host"), "cmdline"));

				CHECK(!cl || !cmdline_apic_option(cl, w, sizeof(w)));
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
