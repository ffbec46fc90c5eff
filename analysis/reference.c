/* analysis/reference.c: the seed's reference figures (results/reference/). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "analysis/internal.h"

#define REF_REL "results/reference/seed-96cpu.json"

static char *find_default(void)
{
	const char *env = getenv("IPIBENCH_REFERENCE");
	if (env && *env)
		return xstrdup(env);
	if (access(REF_REL, R_OK) == 0)
		return xstrdup(REF_REL);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* build/bin/ipibench and build/asan/bin/ipibench */
		const char *ups[] = { "../..", "../../.." };
		char *dir = dirname(exe);
		for (size_t i = 0; i < 2; i++) {
			char *p = xasprintf("%s/%s/%s", dir, ups[i], REF_REL);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return NULL;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : "";
}

int reference_load(const char *path, struct reference *r, char *err)
{
	memset(r, 0, sizeof(*r));
	char *p = path ? xstrdup(path) : find_default();
	if (!p)
		return 1;
	/* Through safeio: a regular file within the JSON size limit (a FIFO or
	 * /dev/zero as --reference is refused, not read forever). */
	json_t *root = sio_load_json(p, SIO_MAX_JSON, err, AN_ERRLEN);
	if (!root) {
		free(p);
		return -1;
	}
	json_t *tot = json_object_get(root, "total_ns");
	if (strncmp(str(root, "schema"), "ipibench-reference/", 19) ||
	    num(tot, "physical") <= 0 || num(tot, "mixed") <= 0 ||
	    num(root, "calls") <= 0) {
		snprintf(err, AN_ERRLEN,
			 "%s: not an ipibench reference (schema, calls, total_ns.physical/mixed)",
			 p);
		json_decref(root);
		free(p);
		return -1;
	}
	json_t *src = json_object_get(root, "source");
	json_t *icr = json_object_get(root, "expected_icr_writes_per_call");
	r->path = p;
	r->title = xstrdup(str(root, "title"));
	r->source = xasprintf("%s (%s)", str(src, "document"), str(src, "author"));
	r->quote = xstrdup(str(src, "quote"));
	r->workload_type = xstrdup(*str(root, "workload_type") ?
				   str(root, "workload_type") : "flush_tlb_all");
	r->calls = (long)num(root, "calls");
	r->cpus = (long)num(root, "cpus");
	r->emulated = json_is_true(json_object_get(root, "emulated"));
	r->total_ns_physical = num(tot, "physical");
	r->total_ns_mixed = num(tot, "mixed");
	r->icr_expected_physical = num(icr, "physical");
	r->icr_expected_mixed = num(icr, "mixed");
	r->icr_note = xstrdup(str(icr, "note"));
	json_decref(root);
	return 0;
}

void reference_free(struct reference *r)
{
	free(r->path);
	free(r->title);
	free(r->source);
	free(r->quote);
	free(r->workload_type);
	free(r->icr_note);
	memset(r, 0, sizeof(*r));
}
