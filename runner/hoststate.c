/* The pure parts of host_state (runner/hoststate.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runner/hoststate.h"

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
