/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tests/unit/schema_keys.h: results JSON against docs/results-schema.md
 * (header-only), so that a key the code writes and the document does not
 * mention fails a test: the agent's writer on a fake hypervisor
 * (agent/tests/test_hvbench.c) and a real run's results.json
 * (tests/integration/test_hv.c).
 */
#ifndef IPIBENCH_TESTS_SCHEMA_KEYS_H
#define IPIBENCH_TESTS_SCHEMA_KEYS_H

#include <stdio.h>
#include <string.h>

#include <jansson.h>

/*
 * Every key of O (objects within, and the first element of an array) that
 * DOC does not name as "key" or `key`, appended to MISS (", "-separated,
 * each once).  The values of the keys in OPAQUE (NULL-terminated, or NULL)
 * are not walked: copies of what another program or the user wrote (the
 * config, xc_physinfo), documented as a whole.
 */
static inline void tu_undocumented(const json_t *o, const char *doc, const char *const *opaque,
				   char *miss, size_t len)
{
	const char *key;
	json_t *v;
	char q[96], b[96];

	if (json_is_array(o)) {
		if (json_array_size(o))
			tu_undocumented(json_array_get(o, 0), doc, opaque, miss, len);
		return;
	}
	if (!json_is_object(o))
		return;
	json_object_foreach((json_t *)o, key, v) {
		int skip = 0;

		snprintf(q, sizeof(q), "\"%s\"", key);
		snprintf(b, sizeof(b), "`%s`", key);
		if (!strstr(doc, q) && !strstr(doc, b) && !strstr(miss, b)) {
			size_t at = strlen(miss);

			snprintf(miss + at, len - at, "%s%s", at ? ", " : "", b);
		}
		for (const char *const *p = opaque; p && *p; p++)
			skip |= !strcmp(*p, key);
		if (!skip)
			tu_undocumented(v, doc, opaque, miss, len);
	}
}

#endif
