#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/wlspec.h"

#define ITERATIONS(def) \
	{ "iterations", WL_UINT, 1, 1000000, def, "operations to time" }
#define TRACE \
	{ "trace", WL_STRING, 0, 0, "", "xentrace event mask while it runs (e.g. 0x00804000); empty: off" }, \
	{ "trace_kb", WL_UINT, 64, 65536, "1024", "trace buffer per CPU, KiB" }

#define CPU { "cpu", WL_UINT, 0, 4095, "0", "CPU the workload runs on" }

static const char *const timings[] = { "loop", "per-call", NULL };
static const char *const senders[] = { "genapic", "physical", "cluster", NULL };

/* The names a WL_CHOICE(S) param takes. */
static const char *const *choices_of(const struct wl_param *p)
{
	if (!strcmp(p->key, "timing"))
		return timings;
	if (!strcmp(p->key, "sender") || !strcmp(p->key, "senders"))
		return senders;
	return NULL;
}

/*
 * Loop timing (the seed's method) is the default: the unit the statistics
 * compare is a timed loop, and per-call sampling puts two TSC reads, the
 * counter reads and a sample store around every call.  per-call is for
 * latency distributions.
 */
#define TIMING \
	{ "timing", WL_CHOICE, 0, 0, "loop", \
	  "loop: each run of N calls timed as a whole (loops[]); per-call: each call timed (samples)" }, \
	{ "runs", WL_UINT, 1, 10000, "1", \
	  "runs of N calls in the boot: R timed loops (loop timing) or R x N samples (per-call)" }
#define SENDER \
	{ "sender", WL_CHOICE, 0, 0, "genapic", \
	  "x2APIC send routine of the workload's IPIs (physical, cluster: implies shorthand = false)" }, \
	{ "senders", WL_CHOICES, 2, 2, "", \
	  "paired senders 'A, B': R pairs of loops, A and B in an order drawn from seed" }, \
	{ "seed", WL_UINT, 0, 0x7fffffff, "0", \
	  "seed of the order within each pair of senders (0: drawn from [matrix] seed and the run)" }
#define SHORTHAND { "shorthand", WL_BOOL, 0, 0, "true", \
	"allow the APIC ALLBUT shorthand (false: force the genapic's send_IPI_mask)" }

static const struct wl_param p_flush_all[] = {
	ITERATIONS("1000"), CPU, SHORTHAND, TIMING, SENDER, TRACE, { NULL },
};
static const struct wl_param p_mask[] = {
	ITERATIONS("1000"),
	{ "mask", WL_CPUS, 0, 0, "all-but-self", "destination CPUs" },
	SHORTHAND, CPU, TIMING, SENDER, TRACE, { NULL },
};
static const struct wl_param p_ipi_mask[] = {
	ITERATIONS("1000"),
	{ "mask", WL_CPUS, 0, 0, "all-but-self", "destination CPUs" },
	SHORTHAND, CPU,
	{ "vector", WL_UINT, 0, 255, "0", "0: the vector the patch reserves (any other is refused)" },
	TIMING, SENDER, TRACE, { NULL },
};
static const struct wl_param p_pingpong[] = {
	ITERATIONS("1000"),
	{ "cpu", WL_UINT, 0, 4095, "0", "first CPU" },
	{ "peer", WL_UINT, 0, 4095, "1", "second CPU (same or other cluster)" },
	TIMING, TRACE, { NULL },
};
static const struct wl_param p_vectors[] = {
	{ "mask", WL_CPUS, 0, 0, "all", "CPUs the vectors may go to" },
	CPU, TRACE, { NULL },
};
static const struct wl_param p_irq[] = {
	ITERATIONS("1000"),
	{ "mask", WL_CPUS, 0, 0, "1", "CPUs the interrupt is bound to" },
	CPU, TRACE, { NULL },
};
static const struct wl_param p_blkio[] = {
	ITERATIONS("2000"),
	{ "device", WL_STRING, 0, 0, "/dev/vda", "block device (O_DIRECT reads; [host] disk_mb attaches one)" },
	{ "block_kb", WL_UINT, 4, 1024, "4", "size of each read, KiB" },
	{ NULL },   /* records its own TRC_HW_IRQ trace */
};
static const struct wl_param p_none[] = {
	TRACE, { NULL },
};
static const struct wl_param p_refusals[] = {
	CPU, { NULL },
};

const struct wl_type wl_types[] = {
	{ "flush_tlb_all", "flush_tlb_all() x N, the seed's workload", p_flush_all },
	{ "flush_mask", "TLB flush of a CPU mask, waiting for every ack", p_mask },
	{ "ipi_mask", "IPI to a CPU mask, waiting for every ack", p_ipi_mask },
	{ "pingpong", "unicast IPI ping-pong between two CPUs", p_pingpong },
	{ "vector_capacity", "allocate external IRQ vectors until none is left", p_vectors },
	{ "irq_delivery", "a device IRQ through the mode's routing, raised N times", p_irq },
	{ "blkio", "O_DIRECT reads on a block device: real device interrupts per CPU and IRQ", p_blkio },
	{ "hv_query", "the hypervisor's view: genapic, APIC IDs, clusters, shorthand eligibility", p_none },
	{ "sysctl_refusals", "invalid benchmark requests, each refused with its own error", p_refusals },
	{ NULL, NULL, NULL },
};

const struct wl_type *wl_type_find(const char *type)
{
	for (const struct wl_type *t = wl_types; t->type; t++)
		if (!strcmp(t->type, type))
			return t;
	return NULL;
}

const struct wl_param *wl_param_find(const struct wl_type *t, const char *key)
{
	for (const struct wl_param *p = t->params; p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

int wl_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits)
{
	const char *p = s;

	memset(bits, 0, (nbits + 7) / 8);
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || errno || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || errno || b < a)
				return -1;
			p = end;
		}
		if (b >= (long)nbits)
			return -1;
		for (long i = a; i <= b; i++)
			bits[i / 8] |= 1u << (i % 8);
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* "a, b or c" for messages. */
static const char *choice_list(const struct wl_param *p)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	const char *const *all = choices_of(p);

	for (const char *const *c = all; c && *c && n < sizeof(buf); c++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      c == all ? "" : c[1] ? ", " : " or ", *c);
	return buf;
}

json_t *wl_param_value(const struct wl_param *p, const char *v, char *err, size_t errlen)
{
	char *end;
	long n;

	switch (p->kind) {
	case WL_UINT:
		errno = 0;
		n = strtol(v, &end, 0);
		if (!*v || *end || errno || n < p->min || n > p->max) {
			snprintf(err, errlen, "%s = '%s': expected an integer from %ld to %ld",
				 p->key, v, p->min, p->max);
			return NULL;
		}
		return json_integer(n);
	case WL_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on"))
			return json_true();
		if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off"))
			return json_false();
		snprintf(err, errlen, "%s = '%s': expected true or false", p->key, v);
		return NULL;
	case WL_CPUS: {
		unsigned char bits[4096 / 8];

		if (!strcmp(v, "all") || !strcmp(v, "all-but-self") ||
		    !wl_cpus_parse(v, bits, 4096))
			return json_string(v);
		snprintf(err, errlen, "%s = '%s': expected all, all-but-self or a CPU list like 1,17,33 or 0-7",
			 p->key, v);
		return NULL;
	}
	case WL_STRING:
		return json_string(v);
	case WL_CHOICE:
		for (const char *const *c = choices_of(p); c && *c; c++)
			if (!strcmp(v, *c))
				return json_string(v);
		snprintf(err, errlen, "%s = '%s': expected %s", p->key, v, choice_list(p));
		return NULL;
	case WL_CHOICES: {
		long n = 0;

		if (!*v)
			return json_string(v);
		for (const char *s = v; *s;) {
			size_t len;
			const char *const *c;

			while (*s == ' ' || *s == '\t')
				s++;
			len = strcspn(s, ", \t");
			for (c = choices_of(p); c && *c; c++)
				if (strlen(*c) == len && !strncmp(s, *c, len))
					break;
			if (!len || !c || !*c) {
				snprintf(err, errlen, "%s = '%s': expected a list of %s", p->key, v,
					 choice_list(p));
				return NULL;
			}
			n++;
			s += len;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == ',')
				s++;
			else if (*s) {
				snprintf(err, errlen, "%s = '%s': separate the names with commas",
					 p->key, v);
				return NULL;
			}
		}
		if (n < p->min || n > p->max) {
			snprintf(err, errlen, "%s = '%s': expected %ld to %ld names, or nothing",
				 p->key, v, p->min, p->max);
			return NULL;
		}
		return json_string(v);
	}
	}
	return NULL;
}

int wl_params_check(const struct wl_type *t, json_t *params, char *err, size_t errlen)
{
	const char *key;
	json_t *val;

	if (!json_is_object(params)) {
		snprintf(err, errlen, "%s: params must be an object", t->type);
		return -1;
	}
	json_object_foreach(params, key, val) {
		const struct wl_param *p = wl_param_find(t, key);
		char text[64];
		const char *s = text;

		if (!p) {
			snprintf(err, errlen, "%s: unknown parameter '%s'", t->type, key);
			return -1;
		}
		if (json_is_integer(val))
			snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(val));
		else if (json_is_boolean(val))
			s = json_is_true(val) ? "true" : "false";
		else if (json_is_string(val))
			s = json_string_value(val);
		else {
			snprintf(err, errlen, "%s: parameter '%s' has the wrong type", t->type, key);
			return -1;
		}
		if ((p->kind == WL_UINT && !json_is_integer(val)) ||
		    (p->kind == WL_BOOL && !json_is_boolean(val)) ||
		    ((p->kind == WL_CPUS || p->kind == WL_STRING || p->kind == WL_CHOICE ||
		      p->kind == WL_CHOICES) && !json_is_string(val))) {
			snprintf(err, errlen, "%s: parameter '%s' has the wrong type", t->type, key);
			return -1;
		}
		json_t *ok = wl_param_value(p, s, err, errlen);
		if (!ok)
			return -1;
		json_decref(ok);
	}
	for (const struct wl_param *p = t->params; p->key; p++) {
		if (json_object_get(params, p->key))
			continue;
		if (!p->def) {
			snprintf(err, errlen, "%s: parameter '%s' is required", t->type, p->key);
			return -1;
		}
		json_object_set_new(params, p->key, wl_param_value(p, p->def, err, errlen));
	}
	return 0;
}
