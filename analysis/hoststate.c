/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Host state (runs[].host_state, agent/hoststate.h): what changes IPI
 * latency besides the mode -- idle states, frequency pins, SMT, microcode,
 * the CPU, the firmware's hotplug slots.  The report lists it and flags
 * the runs it compares whose state differs: a difference between them may
 * be the host's, not the mode's.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

#define HS_SHOW_RUNS 6		/* run names shown per value */

void hoststate_add(struct dataset *d, size_t set, const char *run_id, json_t *state)
{
	if (!json_is_object(state))
		return;
	d->hs = xrealloc(d->hs, (d->nhs + 1) * sizeof(*d->hs));
	d->hs[d->nhs].set = set;
	d->hs[d->nhs].run = xstrdup(run_id);
	d->hs[d->nhs].state = json_incref(state);
	d->nhs++;
}

void hoststate_free(struct dataset *d)
{
	for (size_t i = 0; i < d->nhs; i++) {
		free(d->hs[i].run);
		json_decref(d->hs[i].state);
	}
	free(d->hs);
	d->hs = NULL;
	d->nhs = 0;
}

/* One value as compact JSON text ("absent" when the run lacks the key). */
static char *value_text(json_t *state, const char *key)
{
	json_t *v = json_object_get(state, key);

	return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : xstrdup("absent");
}

/* The keys of every run's state, each once, in first-seen order. */
static json_t *all_keys(const struct dataset *d)
{
	json_t *keys = json_array(), *seen = json_object();
	const char *k;
	json_t *v;

	for (size_t i = 0; i < d->nhs; i++)
		json_object_foreach(d->hs[i].state, k, v)
			if (!json_object_get(seen, k)) {
				json_object_set_new(seen, k, json_true());
				json_array_append_new(keys, json_string(k));
			}
	json_decref(seen);
	return keys;
}

/*
 * For KEY: {"VALUE": ["set:run", ...], ...} over the runs, and whether
 * there is more than one value.
 */
static json_t *values_of(const struct dataset *d, const char *key)
{
	json_t *vals = json_object();

	for (size_t i = 0; i < d->nhs; i++) {
		char *t = value_text(d->hs[i].state, key);
		json_t *runs = json_object_get(vals, t);
		char *who = d->nsets > 1 ? xasprintf("%s: %s", d->sets[d->hs[i].set].path, d->hs[i].run)
					 : xstrdup(d->hs[i].run);

		if (!runs) {
			runs = json_array();
			json_object_set_new(vals, t, runs);
		}
		json_array_append_new(runs, json_string(who));
		free(who);
		free(t);
	}
	return vals;
}

json_t *hoststate_json(const struct dataset *d)
{
	json_t *keys = all_keys(d), *out = json_object(), *same = json_object(),
	       *differs = json_object(), *k;
	size_t i;

	json_array_foreach(keys, i, k) {
		const char *key = json_string_value(k);
		json_t *vals = values_of(d, key);

		if (json_object_size(vals) == 1) {
			json_t *one = json_object_get(d->hs[0].state, key);

			json_object_set_new(same, key, one ? json_incref(one) : json_null());
		} else {
			json_object_set(differs, key, vals);
		}
		json_decref(vals);
	}
	json_decref(keys);
	json_object_set_new(out, "runs", json_integer((json_int_t)d->nhs));
	json_object_set_new(out, "same", same);
	json_object_set_new(out, "differs", differs);
	return out;
}

void hoststate_render_md(const json_t *hs, struct sbuf *md)
{
	json_t *differs, *same, *v;
	const char *key;

	if (!json_integer_value(json_object_get(hs, "runs")))
		return;
	differs = json_object_get(hs, "differs");
	same = json_object_get(hs, "same");
	sb_puts(md, "\n## Host state\n\n");
	if (json_object_size(differs)) {
		sb_printf(md, "**The host state differs between the runs compared here:** a difference "
			  "between them may be the host's, not the mode's (idle states, frequency, "
			  "SMT, microcode, the firmware's hotplug slots: docs/real-hosts.md, \"What changes IPI "
			  "latency on a real host\").\n\n");
		json_object_foreach(differs, key, v) {
			const char *val;
			json_t *runs;
			char *mk = md_text(key);

			sb_printf(md, "- `%s`:", mk);
			free(mk);
			size_t nv = 0;
			json_object_foreach(v, val, runs) {
				char *mv = md_text(val);
				size_t n = json_array_size(runs);

				sb_printf(md, "%s %s in %zu run%s (", nv++ ? ";" : "", mv, n, n == 1 ? "" : "s");
				free(mv);
				for (size_t r = 0; r < n && r < HS_SHOW_RUNS; r++) {
					char *mr = md_text(json_string_value(json_array_get(runs, r)));
					sb_printf(md, "%s%s", r ? ", " : "", mr);
					free(mr);
				}
				if (n > HS_SHOW_RUNS)
					sb_printf(md, ", and %zu more", n - HS_SHOW_RUNS);
				sb_puts(md, ")");
			}
			sb_puts(md, ".\n");
		}
	}
	if (json_object_size(same)) {
		sb_printf(md, "%s", json_object_size(differs) ? "\nThe same in every run: " :
			  "The same in every run compared: ");
		size_t n = 0;
		json_object_foreach(same, key, v) {
			char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			char *mk = md_text(key), *mv = md_text(t);

			sb_printf(md, "%s`%s` = %s", n++ ? ", " : "", mk, mv);
			free(mk), free(mv), free(t);
		}
		sb_puts(md, ".\n");
	}
}
