/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pure parts of host_state (agent/hoststate.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent/hoststate.h"

/*
 * Xen options that set what a target CPU does while it waits for an IPI
 * (its idle state), how fast it runs (frequency, turbo), and which CPUs
 * share a core: the state a comparison between two hosts must hold equal.
 * An option is matched as the whole word or as "NAME=...".
 */
static const char *const pin_options[] = {
	"max_cstate", "max_csubstate", "cpuidle", "no-cpuidle", "cpufreq", "smt",
	"sched-gran", "core_parking", "mwait-idle", "hpetbroadcast", "tsc", NULL,
};

static bool is_pin(const char *w, size_t n)
{
	for (const char *const *p = pin_options; *p; p++) {
		size_t k = strlen(*p);

		if (n >= k && !strncmp(w, *p, k) && (n == k || w[k] == '='))
			return true;
	}
	return false;
}

void hoststate_pins(const char *cmdline, char *out, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	out[0] = '\0';
	for (const char *w = cmdline; w && *w;) {
		w += strspn(w, " \t");
		size_t n = strcspn(w, " \t");

		if (n && is_pin(w, n) && used + (used ? 1 : 0) + n < len) {
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? " " : "",
						 (int)n, w);
		}
		w += n;
	}
}

int hoststate_microcode(const char *cpuinfo, char *out, size_t len)
{
	for (const char *l = cpuinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		const char *colon = memchr(l, ':', n);

		/* The first CPU's block ends at its first empty line. */
		if (!n)
			break;
		if (colon && !strncmp(l, "microcode", 9) && strspn(l + 9, " \t") == (size_t)(colon - l - 9)) {
			const char *v = colon + 1 + strspn(colon + 1, " \t");
			size_t vn = n - (size_t)(v - l);

			if (!vn || vn >= len)
				return -1;
			snprintf(out, len, "%.*s", (int)vn, v);
			return 0;
		}
	}
	return -1;
}

/* N bytes of a Xen name (NUL-terminated or not) into OUT, if they are one. */
static bool xen_name(const char *in, size_t n, char *out)
{
	size_t len = strnlen(in, n);

	if (!len || len >= n)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z') ||
		      (in[i] >= '0' && in[i] <= '9') || strchr("._-", in[i])))
			return false;
	memcpy(out, in, len);
	out[len] = '\0';
	return true;
}

/* Xen's drivers whose performance the hardware picks (CPPC): no governor. */
static bool governorless(const char *driver)
{
	return !strcmp(driver, "hwp") || !strncmp(driver, "amd-cppc", 8);
}

json_t *hoststate_cpufreq_json(const struct hoststate_cpufreq *cf)
{
	char drv[HOSTSTATE_CPUFREQ_NAME], gov[HOSTSTATE_CPUFREQ_NAME];
	bool have_drv;

	if (cf->rc < 0) {
		bool none = cf->err == ENODEV || cf->err == EINVAL;

		return json_pack("{s:o, s:o, s:n}",
				 "cpufreq_driver", none ? json_string("none") : json_null(),
				 "cpufreq_governor", none ? json_string("none") : json_null(),
				 "turbo");
	}
	have_drv = xen_name(cf->driver, sizeof(cf->driver), drv);
	return json_pack("{s:o, s:o, s:o}",
			 "cpufreq_driver", have_drv ? json_string(drv) : json_null(),
			 "cpufreq_governor", have_drv && !governorless(drv) &&
				 xen_name(cf->governor, sizeof(cf->governor), gov) ?
				 json_string(gov) : json_null(),
			 "turbo", json_boolean(cf->turbo));
}
