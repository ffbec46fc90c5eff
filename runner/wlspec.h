/*
 * Workload types and their parameters, as a config's [workload:NAME]
 * section names them.  One table serves the runner (config checking, with
 * file:line) and the agent (the job it is given), so both agree on what a
 * valid workload is.
 */
#ifndef IPIBENCH_WLSPEC_H
#define IPIBENCH_WLSPEC_H

#include <stddef.h>

#include <jansson.h>

enum wl_kind {
	WL_UINT,   /* decimal integer in [min, max] */
	WL_BOOL,   /* true/false, yes/no, 1/0 */
	WL_CPUS,   /* "all", "all-but-self", or a list "1,17,33" / "0-7,9" */
	WL_STRING, /* free text (paths) */
	WL_CHOICE, /* one of choices[] */
	WL_CHOICES,/* "" or a comma-separated list of min..max of choices[] */
};

struct wl_param {
	const char *key;
	enum wl_kind kind;
	long min, max;
	const char *def;   /* default as text, NULL: required */
	const char *help;
};

struct wl_type {
	const char *type;
	const char *help;
	const struct wl_param *params;   /* terminated by key == NULL */
};

extern const struct wl_type wl_types[];   /* terminated by type == NULL */

const struct wl_type *wl_type_find(const char *type);
const struct wl_param *wl_param_find(const struct wl_type *t, const char *key);

/*
 * Check VALUE for P and convert it to JSON (integer, boolean or string).
 * NULL with a one-line reason in err when it is not valid.
 */
json_t *wl_param_value(const struct wl_param *p, const char *value, char *err, size_t errlen);

/*
 * Check a job's params object against its type: unknown keys, wrong JSON
 * types, out-of-range values, missing required ones.  Fills in defaults.
 * 0, or -1 with a one-line reason.
 */
int wl_params_check(const struct wl_type *t, json_t *params, char *err, size_t errlen);

/* Parse a CPU list into a bitmap of nbits bits; -1 when malformed or out of range. */
int wl_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits);

#endif
