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
#include "lib/keys.h"

/*
 * A workload's params are a table of lib/keys.h's struct key, one row each:
 * { KEY, TYPE, MIN, MAX, DEFAULT, HELP, .flags = WL_F_*, .choices_fn = NAMES }
 * TYPE: KEY_UINT (an integer in [MIN, MAX]), KEY_BOOL (with KEY_F_WORDS:
 * true/false, yes/no, on/off, 1/0), KEY_CPUS ("all", "all-but-self", or a
 * list "1,17,33" / "0-7,9"), KEY_TEXT (free text), KEY_CHOICE (one of
 * NAMES), KEY_CHOICES ("" or a list of MIN to MAX of NAMES).  The value
 * goes into the job's params object under KEY (keys_json()); a NULL
 * DEFAULT makes it required.
 */

/* Set on the params a job carries in its "trace" object, not in "params". */
#define WL_F_TRACE 1u
/* Set on a KEY_UINT param that is a CPU number: a config's value is below
 * the run's CPU count (runner/config.c). */
#define WL_F_CPU 2u

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
	const struct key *params;   /* terminated by key == NULL */
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
	{ "iterations", KEY_UINT, 1, 1000000, def, "operations to time", .flags = 0 }
#define WL_CPU { "cpu", KEY_UINT, 0, 4095, "0", "CPU the workload runs on", .flags = WL_F_CPU }
#define WL_SHORTHAND { "shorthand", KEY_BOOL, 0, 0, "true", \
	"allow the APIC ALLBUT shorthand (false: force the genapic's send_IPI_mask)", \
	.flags = KEY_F_WORDS }
/*
 * Loop timing (the seed's method) is the default: the unit the statistics
 * compare is a timed loop, and per-call sampling puts two TSC reads, the
 * counter reads and a sample store around every call.  per-call is for
 * latency distributions.
 */
#define WL_TIMING \
	{ "timing", KEY_CHOICE, 0, 0, "loop", \
	  "loop: each run of N calls timed as a whole (loops[]); per-call: each call timed (samples)", \
	  .choices_fn = wl_timing_names }, \
	{ "runs", KEY_UINT, 1, 10000, "1", \
	  "runs of N calls in the boot: R timed loops (loop timing) or R x N samples (per-call)", .flags = 0 }
#define WL_SENDER \
	{ "sender", KEY_CHOICE, 0, 0, "genapic", \
	  "x2APIC send routine of the workload's IPIs (physical, cluster: implies shorthand = false)", \
	  .choices_fn = ipibench_sender_names }, \
	{ "senders", KEY_CHOICES, 2, 2, "", \
	  "paired senders 'A, B': R pairs of loops, A and B in an order drawn from seed", \
	  .choices_fn = ipibench_sender_names }, \
	{ "seed", KEY_UINT, 0, 0x7fffffff, "0", \
	  "seed of the order within each pair of senders (0: drawn from [matrix] seed and the run)", .flags = 0 }
#define WL_TRACE \
	{ "trace", KEY_TEXT, 0, 0, "", \
	  "xentrace event mask while it runs (e.g. 0x00804000); empty: off", .flags = WL_F_TRACE }, \
	{ "trace_kb", KEY_UINT, 64, 65536, "1024", "trace buffer per CPU, KiB", .flags = WL_F_TRACE }

/* sender and senders are not both given; senders needs timing = loop. */
int wl_check_timing(const json_t *params, char *err, size_t errlen);

/*
 * A declaration is complete (as fio's check_engine_ops()): a type name
 * and help, every param with a key, help and a default that passes its
 * own rule, no key twice.  0, or -1 with a one-line reason.
 */
int wl_type_verify(const struct wl_type *t, char *err, size_t errlen);

const struct wl_type *wl_type_find(const char *type);
const struct key *wl_param_find(const struct wl_type *t, const char *key);

/*
 * Check a job's params object against its type: unknown keys, wrong JSON
 * types, out-of-range values, missing required ones.  Fills in defaults.
 * 0, or -1 with a one-line reason.
 */
int wl_params_check(const struct wl_type *t, json_t *params, char *err, size_t errlen);

/*
 * Check entry IDX of a job's "workloads" ({"name", "type", "params",
 * "trace": {"mask", "kb", .flags = 0 }}) by the rules a config's [workload:NAME] is
 * checked by: the name, the type, every param (WL_F_TRACE ones only in
 * "trace"), the type's check.  On success *type is its declaration and
 * *params a new object with the defaults filled in (WL_F_TRACE ones left
 * out); -1 with one line naming the workload and the parameter.
 */
int wl_job_entry_check(const json_t *w, size_t idx, const struct wl_type **type,
		       json_t **params, char *err, size_t errlen);

/* Every entry of a job (an object with an optional "workloads" array). */
int wl_job_check(const json_t *job, char *err, size_t errlen);

#endif
