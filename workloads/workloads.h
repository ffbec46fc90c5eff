/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Workload types and their parameters, as a config's [workload:NAME]
 * section names them.  Each workload declares its own (a struct wl_type in
 * workloads/NAME.c, no Xen code there), listed once in workloads/list.h.
 * The runner (config checking with
 * file:line, `ipibench boot --job`) and the agent (the job it is given)
 * check against that one declaration with the functions below, so both
 * agree on what a valid workload is, and the agent's run functions read
 * the defaults filled in here instead of literals of their own.
 */
#ifndef IPIBENCH_WORKLOADS_H
#define IPIBENCH_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "ipibench/senders.h"

enum wl_kind {
	WL_UINT,   /* decimal integer in [min, max] */
	WL_BOOL,   /* true/false, yes/no, 1/0 */
	WL_CPUS,   /* "all", "all-but-self", or a list "1,17,33" / "0-7,9" */
	WL_STRING, /* free text (paths) */
	WL_CHOICE, /* one of choices() */
	WL_CHOICES,/* "" or a comma-separated list of min..max of choices() */
};

/* Set on the params a job carries in its "trace" object, not in "params". */
#define WL_F_TRACE 1u
/* Set on a WL_UINT param that is a CPU number: a config's value is below
 * the run's CPU count (runner/config.c). */
#define WL_F_CPU 2u

struct wl_param {
	const char *key;
	enum wl_kind kind;
	long min, max;
	const char *def;   /* default as text, NULL: required */
	const char *help;
	unsigned int flags;   /* WL_F_* */
	/* WL_CHOICE(S): the names it takes, NULL-terminated (NULL otherwise). */
	const char *const *(*choices)(void);
};

/* The names of timing (WL_TIMING): loop, per-call. */
const char *const *wl_timing_names(void);

/* Where one call of a workload sends its IPIs, from the CPU params.cpu
 * (workloads/check.c predicts its ICR writes from the layout). */
enum wl_dest {
	WL_DEST_NONE,   /* no IPIs of its own to predict */
	WL_DEST_ALL,    /* every CPU, itself included (a flush of all) */
	WL_DEST_MASK,   /* params.mask (default all-but-self) */
	WL_DEST_PEER,   /* params.peer alone */
};

struct wl_type {
	const char *type;
	const char *help;
	const struct wl_param *params;   /* terminated by key == NULL */
	/*
	 * Checks across params (after each was checked and the defaults filled
	 * in), or NULL.  0, or -1 with a one-line reason naming the params.
	 */
	int (*check)(const json_t *params, char *err, size_t errlen);
	/* Where one call sends (WL_DEST_NONE when not set). */
	enum wl_dest dest;
	/* It sends through the genapic hook directly, never the ALLBUT
	 * shorthand, whatever the host allows. */
	bool no_shorthand;
};

/* Every workload's declaration (workloads/list.h), NULL-terminated. */
extern const struct wl_type *const wl_types[];
#define WORKLOAD(name) extern const struct wl_type wl_##name;
#include "workloads/list.h"
#undef WORKLOAD

/*
 * The params most workloads share, for their tables: WL_ITERATIONS("1000"),
 * WL_CPU, WL_SHORTHAND, WL_TIMING (timing, runs), WL_SENDER (sender,
 * senders, seed: pair with .check = wl_check_timing), WL_TRACE (trace,
 * trace_kb: the agent core runs the trace, the workload does nothing).
 */
#define WL_ITERATIONS(def) \
	{ "iterations", WL_UINT, 1, 1000000, def, "operations to time", 0, NULL }
#define WL_CPU { "cpu", WL_UINT, 0, 4095, "0", "CPU the workload runs on", WL_F_CPU, NULL }
#define WL_SHORTHAND { "shorthand", WL_BOOL, 0, 0, "true", \
	"allow the APIC ALLBUT shorthand (false: force the genapic's send_IPI_mask)", 0, NULL }
/*
 * Loop timing (the seed's method) is the default: the unit the statistics
 * compare is a timed loop, and per-call sampling puts two TSC reads, the
 * counter reads and a sample store around every call.  per-call is for
 * latency distributions.
 */
#define WL_TIMING \
	{ "timing", WL_CHOICE, 0, 0, "loop", \
	  "loop: each run of N calls timed as a whole (loops[]); per-call: each call timed (samples)", 0, \
	  wl_timing_names }, \
	{ "runs", WL_UINT, 1, 10000, "1", \
	  "runs of N calls in the boot: R timed loops (loop timing) or R x N samples (per-call)", 0, NULL }
#define WL_SENDER \
	{ "sender", WL_CHOICE, 0, 0, "genapic", \
	  "x2APIC send routine of the workload's IPIs (physical, cluster: implies shorthand = false)", 0, \
	  ipibench_sender_names }, \
	{ "senders", WL_CHOICES, 2, 2, "", \
	  "paired senders 'A, B': R pairs of loops, A and B in an order drawn from seed", 0, \
	  ipibench_sender_names }, \
	{ "seed", WL_UINT, 0, 0x7fffffff, "0", \
	  "seed of the order within each pair of senders (0: drawn from [matrix] seed and the run)", 0, NULL }
#define WL_TRACE \
	{ "trace", WL_STRING, 0, 0, "", \
	  "xentrace event mask while it runs (e.g. 0x00804000); empty: off", WL_F_TRACE, NULL }, \
	{ "trace_kb", WL_UINT, 64, 65536, "1024", "trace buffer per CPU, KiB", WL_F_TRACE, NULL }

/* sender and senders are not both given; senders needs timing = loop. */
int wl_check_timing(const json_t *params, char *err, size_t errlen);

/*
 * A declaration is complete (as fio's check_engine_ops()): a type name
 * and help, every param with a key, help and a default that passes its
 * own rule, no key twice.  0, or -1 with a one-line reason.
 */
int wl_type_verify(const struct wl_type *t, char *err, size_t errlen);

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

/*
 * Check entry IDX of a job's "workloads" ({"name", "type", "params",
 * "trace": {"mask", "kb"}}) by the rules a config's [workload:NAME] is
 * checked by: the name, the type, every param (WL_F_TRACE ones only in
 * "trace"), the type's check.  On success *type is its declaration and
 * *params a new object with the defaults filled in (WL_F_TRACE ones left
 * out); -1 with one line naming the workload and the parameter.
 */
int wl_job_entry_check(const json_t *w, size_t idx, const struct wl_type **type,
		       json_t **params, char *err, size_t errlen);

/* Every entry of a job (an object with an optional "workloads" array). */
int wl_job_check(const json_t *job, char *err, size_t errlen);

/*
 * V as an integer of BASE (10: decimal digits, no leading zero, sign or
 * space; 16: hex digits, 0x optional) from MIN to MAX into *out: 0, or -1
 * with "KEY = 'V': expected an integer from MIN to MAX[, written in ...]".
 * The one rule for integers of workload params, [host] and [matrix] keys.
 */
int wl_parse_int(const char *key, const char *v, int base, long min, long max, long *out,
		 char *err, size_t errlen);

/* WORDS (NULL-terminated, may be NULL) as "a, b or c" in BUF, for messages. */
const char *wl_or_list(char *buf, size_t len, const char *const *words);

/* 1 when list V ("a, b") has an empty item: ",a", "a,,b", "a, ": refused
 * for every list key (an empty V is an empty list, not an empty item). */
int wl_list_empty_item(const char *v);

/* Parse a CPU list into a bitmap of nbits bits; -1 when malformed or out of range. */
int wl_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits);

#endif
