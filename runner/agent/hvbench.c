/* XEN_SYSCTL_ipibench from dom0: see hvbench.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xencall.h>
#include <xenctrl.h>
#include <xen/sysctl.h>

#include "runner/agent/hvbench.h"

#define MASK_BYTES (XEN_SYSCTL_IPIBENCH_MAX_CPUS / 8)

_Static_assert(sizeof(struct xen_sysctl_ipibench) <=
	       sizeof(((struct xen_sysctl *)0)->u),
	       "the request must fit struct xen_sysctl");

struct hvbench {
	xencall_handle *xcall;
	int own_xcall;
	struct xen_sysctl *sysctl;
	uint8_t *mask;
	struct xen_sysctl_ipibench_sample *samples;
	struct xen_sysctl_ipibench_cpu *cpus;
	struct xen_sysctl_ipibench_info *info;
};

void hvbench_close(struct hvbench *hb)
{
	if (!hb)
		return;
	if (hb->xcall) {
		if (hb->sysctl)
			xencall_free_buffer(hb->xcall, hb->sysctl);
		if (hb->mask)
			xencall_free_buffer(hb->xcall, hb->mask);
		if (hb->samples)
			xencall_free_buffer(hb->xcall, hb->samples);
		if (hb->cpus)
			xencall_free_buffer(hb->xcall, hb->cpus);
		if (hb->info)
			xencall_free_buffer(hb->xcall, hb->info);
		if (hb->own_xcall)
			xencall_close(hb->xcall);
	}
	free(hb);
}

struct hvbench *hvbench_open(struct agent_ctx *ctx, char *err, size_t errlen)
{
	struct hvbench *hb = calloc(1, sizeof(*hb));

	if (!hb) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	hb->xcall = ctx ? ctx->xcall : NULL;
	if (!hb->xcall) {
		hb->xcall = xencall_open(NULL, 0);
		hb->own_xcall = 1;
	}
	if (!hb->xcall) {
		snprintf(err, errlen, "xencall_open: %s", strerror(errno));
		free(hb);
		return NULL;
	}
	hb->sysctl = xencall_alloc_buffer(hb->xcall, sizeof(*hb->sysctl));
	hb->mask = xencall_alloc_buffer(hb->xcall, MASK_BYTES);
	hb->samples = xencall_alloc_buffer(hb->xcall,
		sizeof(*hb->samples) * XEN_SYSCTL_IPIBENCH_CHUNK_SAMPLES);
	hb->cpus = xencall_alloc_buffer(hb->xcall,
		sizeof(*hb->cpus) * XEN_SYSCTL_IPIBENCH_MAX_CPUS);
	hb->info = xencall_alloc_buffer(hb->xcall, sizeof(*hb->info));
	if (!hb->sysctl || !hb->mask || !hb->samples || !hb->cpus || !hb->info) {
		snprintf(err, errlen, "xencall_alloc_buffer: %s", strerror(errno));
		hvbench_close(hb);
		return NULL;
	}
	return hb;
}

uint8_t *hvbench_mask_buffer(struct hvbench *hb)
{
	return hb->mask;
}

int hvbench_call(struct hvbench *hb, struct xen_sysctl_ipibench *op)
{
	int rc;

	if (!op->version)
		op->version = XEN_SYSCTL_IPIBENCH_VERSION;
	op->mask = (uintptr_t)hb->mask;
	op->samples = (uintptr_t)hb->samples;
	op->cpus = (uintptr_t)hb->cpus;
	op->info = (uintptr_t)hb->info;

	memset(hb->sysctl, 0, sizeof(*hb->sysctl));
	hb->sysctl->cmd = XEN_SYSCTL_ipibench;
	hb->sysctl->interface_version = XEN_SYSCTL_INTERFACE_VERSION;
	memcpy(&hb->sysctl->u, op, sizeof(*op));

	rc = xencall1(hb->xcall, __HYPERVISOR_sysctl, (uint64_t)(uintptr_t)hb->sysctl);
	if (rc < 0)
		return errno ? errno : EIO;
	memcpy(op, &hb->sysctl->u, sizeof(*op));
	return 0;
}

const char *hvbench_errno_name(int e)
{
	static const struct { int e; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EIO, "EIO" }, { E2BIG, "E2BIG" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EXDEV, "EXDEV" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { EDOM, "EDOM" }, { ERANGE, "ERANGE" },
		{ ENOSYS, "ENOSYS" }, { ENODATA, "ENODATA" },
		{ EBADMSG, "EBADMSG" }, { EOVERFLOW, "EOVERFLOW" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return "E?";
}

int hvbench_query_raw(struct hvbench *hb,
		      const struct xen_sysctl_ipibench_info **info,
		      const struct xen_sysctl_ipibench_cpu **cpus,
		      unsigned int *nr_cpus)
{
	struct xen_sysctl_ipibench op = {
		.op = XEN_SYSCTL_IPIBENCH_OP_query,
		.nr_cpus = XEN_SYSCTL_IPIBENCH_MAX_CPUS,
	};
	int rc = hvbench_call(hb, &op);

	if (rc)
		return rc;
	hb->info->genapic[sizeof(hb->info->genapic) - 1] = '\0';
	*info = hb->info;
	*cpus = hb->cpus;
	*nr_cpus = op.nr_cpus < XEN_SYSCTL_IPIBENCH_MAX_CPUS ?
		   op.nr_cpus : XEN_SYSCTL_IPIBENCH_MAX_CPUS;
	return 0;
}

int hvbench_query(struct agent_ctx *ctx, json_t **out, char *err, size_t errlen)
{
	const struct xen_sysctl_ipibench_info *info;
	const struct xen_sysctl_ipibench_cpu *cpus;
	struct hvbench *hb = hvbench_open(ctx, err, errlen);
	unsigned int nr;
	int rc;

	*out = NULL;
	if (!hb)
		return -1;
	rc = hvbench_query_raw(hb, &info, &cpus, &nr);
	if (rc) {
		snprintf(err, errlen, "ipibench query refused: %s (%s)%s",
			 hvbench_errno_name(rc), strerror(rc),
			 rc == ENOSYS ? ": hypervisor without hv-patch/?" : "");
		hvbench_close(hb);
		return -1;
	}
	json_t *q = json_object(), *arr = json_array();
	json_object_set_new(q, "genapic", json_string(info->genapic));
	json_object_set_new(q, "nr_cpu_ids", json_integer(info->nr_cpu_ids));
	json_object_set_new(q, "online_cpus", json_integer(info->online_cpus));
	json_object_set_new(q, "present_cpus", json_integer(info->present_cpus));
	json_object_set_new(q, "disabled_cpus", json_integer(info->disabled_cpus));
	json_object_set_new(q, "unaccounted_cpus", json_integer(info->unaccounted_cpus));
	json_object_set_new(q, "shorthand_eligible", json_boolean(info->shorthand_eligible));
	json_object_set_new(q, "tsc_khz", json_integer(info->tsc_khz));
	json_object_set_new(q, "vector", json_integer(info->vector));
	json_object_set_new(q, "x2apic", json_boolean(info->x2apic));
	json_object_set_new(q, "int_dest_mode",
			    json_string(info->int_dest_mode ? "logical" : "physical"));
	json_object_set_new(q, "int_delivery_mode",
			    json_string(info->int_delivery_mode ? "lowest" : "fixed"));
	json_object_set_new(q, "max_iterations", json_integer(info->max_iterations));
	for (unsigned int c = 0; c < nr; c++) {
		json_t *o = json_object();
		json_object_set_new(o, "cpu", json_integer(c));
		json_object_set_new(o, "apic_id", json_integer(cpus[c].apic_id));
		json_object_set_new(o, "logical_id", json_integer(cpus[c].logical_id));
		json_object_set_new(o, "cluster", json_integer(cpus[c].cluster));
		json_object_set_new(o, "online",
			json_boolean(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE));
		/* Since boot (0 from a hypervisor before this field was filled). */
		json_object_set_new(o, "irqs", json_integer((json_int_t)cpus[c].irqs));
		json_object_set_new(o, "ipis", json_integer((json_int_t)cpus[c].ipis));
		json_array_append_new(arr, o);
	}
	json_object_set_new(q, "cpus", arr);
	hvbench_close(hb);
	*out = q;
	return 0;
}

/* ---- params ---------------------------------------------------------- */

static int parse_uint_str(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* 0 ok, -1 bad; *out untouched when absent. */
static int json_uint(const json_t *v, uint32_t *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0 || i > UINT32_MAX)
			return -1;
		*out = (uint32_t)i;
		return 0;
	}
	if (json_is_string(v))
		return parse_uint_str(json_string_value(v), out);
	return -1;
}

static int json_bool(const json_t *v, int *out)
{
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1") ||
		    !strcmp(s, "on")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0") ||
		    !strcmp(s, "off")) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

int hvbench_get_uint(const json_t *params, const char *key, uint32_t def,
		     uint32_t *out)
{
	const json_t *v = params ? json_object_get(params, key) : NULL;

	*out = def;
	return v ? json_uint(v, out) : 0;
}

int hvbench_get_bool(const json_t *params, const char *key, int def)
{
	const json_t *v = params ? json_object_get(params, key) : NULL;
	int b = def;

	if (v)
		json_bool(v, &b);
	return b;
}

static const char *const uint_keys[] = {
	"iterations", "cpu", "peer", "a", "b", "vector", NULL
};
static const char *const bool_keys[] = { "shorthand", NULL };

static int in_list(const char *const *list, const char *key)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], key))
			return 1;
	return 0;
}

int hvbench_check_params(const json_t *params, const char *const *allowed,
			 char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!params)
		return 0;
	if (!json_is_object(params)) {
		snprintf(err, errlen, "params must be an object");
		return -1;
	}
	json_object_foreach((json_t *)params, key, v) {
		uint32_t u;
		int b;

		if (!in_list(allowed, key)) {
			snprintf(err, errlen, "unknown param '%s'", key);
			return -1;
		}
		if (in_list(uint_keys, key) && json_uint(v, &u)) {
			snprintf(err, errlen, "param '%s' must be a non-negative integer", key);
			return -1;
		}
		if (in_list(bool_keys, key) && json_bool(v, &b)) {
			snprintf(err, errlen, "param '%s' must be true or false", key);
			return -1;
		}
		if (!strcmp(key, "mask") && hvbench_mask_check(v, err, errlen))
			return -1;
	}
	return 0;
}

/* ---- CPU masks ------------------------------------------------------- */

static void set_bit8(uint8_t *bits, unsigned int i)
{
	bits[i / 8] |= (uint8_t)(1U << (i % 8));
}

/* Parse "1,17,33" / "0-7,9" into bits; -1 with err on bad syntax. */
static int parse_list(const char *s, uint8_t *bits, unsigned int *nr_bits,
		      char *err, size_t errlen)
{
	const char *p = s;

	if (!*p) {
		snprintf(err, errlen, "empty CPU list");
		return -1;
	}
	while (*p) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b || b >= XEN_SYSCTL_IPIBENCH_MAX_CPUS) {
			snprintf(err, errlen, "CPU range '%lu-%lu' is out of 0-%u", a, b,
				 XEN_SYSCTL_IPIBENCH_MAX_CPUS - 1);
			return -1;
		}
		for (unsigned long i = a; i <= b; i++) {
			if (bits)
				set_bit8(bits, (unsigned int)i);
			if (nr_bits && i + 1 > *nr_bits)
				*nr_bits = (unsigned int)i + 1;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad CPU list '%s' (want e.g. 1,17,33 or 0-7)", s);
	return -1;
}

int hvbench_mask_check(const json_t *v, char *err, size_t errlen)
{
	return hvbench_mask_parse(v, 0, NULL, 0, NULL, NULL, err, errlen);
}

int hvbench_mask_parse(const json_t *v, unsigned int self,
		       const uint8_t *online, unsigned int nr_cpus,
		       uint8_t *bits, unsigned int *nr_bits,
		       char *err, size_t errlen)
{
	unsigned int dummy = 0;

	if (!nr_bits)
		nr_bits = &dummy;
	*nr_bits = 0;
	if (bits)
		memset(bits, 0, MASK_BYTES);
	if (json_is_array(v)) {
		size_t i;
		json_t *e;

		json_array_foreach(v, i, e) {
			uint32_t c;
			if (json_uint(e, &c) || c >= XEN_SYSCTL_IPIBENCH_MAX_CPUS) {
				snprintf(err, errlen, "mask[%zu] is not a CPU number", i);
				return -1;
			}
			if (bits)
				set_bit8(bits, c);
			if (c + 1 > *nr_bits)
				*nr_bits = c + 1;
		}
		return 0;
	}
	if (!json_is_string(v)) {
		snprintf(err, errlen, "mask must be a string or an array of CPUs");
		return -1;
	}
	const char *s = json_string_value(v);
	int all = !strcmp(s, "all"), allbut = !strcmp(s, "all-but-self");

	if (!strcmp(s, "none"))
		return 0;
	if (all || allbut) {
		if (!online)
			return 0;
		for (unsigned int c = 0; c < nr_cpus && c < XEN_SYSCTL_IPIBENCH_MAX_CPUS; c++) {
			if (!online[c] || (allbut && c == self))
				continue;
			if (bits)
				set_bit8(bits, c);
			*nr_bits = c + 1;
		}
		return 0;
	}
	return parse_list(s, bits, nr_bits, err, errlen);
}

/* ---- runs ------------------------------------------------------------ */

static json_t *mask_json(const uint8_t *bits, unsigned int nr_bits)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < nr_bits; i++)
		if (bits[i / 8] & (1U << (i % 8)))
			json_array_append_new(a, json_integer(i));
	return a;
}

static void refused(json_t *result, int e, const char *what, char *err,
		    size_t errlen)
{
	json_t *r = json_object();

	json_object_set_new(r, "errno", json_integer(e));
	json_object_set_new(r, "name", json_string(hvbench_errno_name(e)));
	json_object_set_new(r, "call", json_string(what));
	json_object_set_new(result, "refused", r);
	snprintf(err, errlen, "hypervisor refused %s: %s (%s)", what,
		 hvbench_errno_name(e), strerror(e));
}

int hvbench_run(struct agent_ctx *ctx, const struct hvbench_req *req,
		json_t *result, char *err, size_t errlen)
{
	const struct xen_sysctl_ipibench_info *info;
	const struct xen_sysctl_ipibench_cpu *cpus;
	struct hvbench *hb = hvbench_open(ctx, err, errlen);
	uint8_t online[XEN_SYSCTL_IPIBENCH_MAX_CPUS] = { 0 };
	uint8_t bits[MASK_BYTES];
	unsigned int nr_cpus = 0, nr_bits = 0;
	uint64_t *irqs = NULL, *ipis = NULL, *handled = NULL;
	json_t *cycles = NULL, *ns = NULL, *icr = NULL, *who = NULL, *send = NULL;
	uint64_t icr_total = 0, sent = 0, received = 0, ops = 0;
	uint32_t path = 0, status = 0, result_vectors = 0;
	uint32_t *vectors = NULL;
	int rc = -1, e;

	if (!hb)
		return -1;
	e = hvbench_query_raw(hb, &info, &cpus, &nr_cpus);
	if (e) {
		refused(result, e, "query", err, errlen);
		goto out;
	}
	for (unsigned int c = 0; c < nr_cpus; c++)
		online[c] = !!(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE);
	json_object_set_new(result, "genapic", json_string(info->genapic));
	json_object_set_new(result, "shorthand_eligible",
			    json_boolean(info->shorthand_eligible));

	memset(bits, 0, sizeof(bits));
	if (req->mask || req->default_mask) {
		json_t *dflt = req->default_mask ? json_string(req->default_mask) : NULL;
		int bad = hvbench_mask_parse(req->mask ? req->mask : dflt, req->cpu,
					     online, nr_cpus, bits, &nr_bits,
					     err, errlen);
		json_decref(dflt);
		if (bad)
			goto out;
		json_object_set_new(result, "mask", mask_json(bits, nr_bits));
	}

	irqs = calloc(nr_cpus, sizeof(*irqs));
	ipis = calloc(nr_cpus, sizeof(*ipis));
	handled = calloc(nr_cpus, sizeof(*handled));
	vectors = calloc(nr_cpus, sizeof(*vectors));
	cycles = json_array();
	ns = json_array();
	icr = json_array();
	who = json_array();
	send = json_array();
	if (!irqs || !ipis || !handled || !vectors) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}

	uint32_t start = 0;
	int first = 1;
	unsigned int chunks = 0;
	while (first || start < req->iterations) {
		struct xen_sysctl_ipibench op = {
			.op = req->op,
			.flags = (req->shorthand ? 0 : XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND) |
				 (first ? 0 : XEN_SYSCTL_IPIBENCH_F_CONTINUE),
			.cpu = req->cpu,
			.peer = req->peer,
			.vector = req->vector,
			.iterations = req->iterations,
			.start = start,
			.mask_bits = nr_bits,
		};

		memcpy(hb->mask, bits, sizeof(bits));
		e = hvbench_call(hb, &op);
		if (e) {
			refused(result, e, first ? "run" : "continue", err, errlen);
			goto out;
		}
		first = 0;
		chunks++;

		struct xen_sysctl_ipibench f = {
			.op = XEN_SYSCTL_IPIBENCH_OP_fetch,
			.nr_samples = XEN_SYSCTL_IPIBENCH_CHUNK_SAMPLES,
			.nr_cpus = nr_cpus,
		};
		e = hvbench_call(hb, &f);
		if (e) {
			refused(result, e, "fetch", err, errlen);
			goto out;
		}
		if (f.done > XEN_SYSCTL_IPIBENCH_CHUNK_SAMPLES ||
		    f.done > req->iterations - start) {
			snprintf(err, errlen, "fetch: %u samples done, chunk at %u of %u",
				 f.done, start, req->iterations);
			goto out;
		}
		if (req->op != XEN_SYSCTL_IPIBENCH_OP_vector_capacity) {
			for (uint32_t i = 0; i < f.done; i++) {
				const struct xen_sysctl_ipibench_sample *s = &hb->samples[i];
				json_array_append_new(cycles, json_integer((json_int_t)s->cycles));
				json_array_append_new(ns, json_integer((json_int_t)s->ns));
				json_array_append_new(icr, json_integer(s->icr_writes));
				json_array_append_new(who, json_integer(s->cpu));
				json_array_append_new(send, json_integer(s->send_cycles));
				if (s->flags & XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND)
					path |= XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND;
				if (req->op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery &&
				    s->cpu < nr_cpus)
					handled[s->cpu]++;
			}
			ops += f.done;
		} else if (f.done) {
			ops = 1;
			result_vectors = f.result;
			for (unsigned int c = 0; c < nr_cpus; c++)
				vectors[c] = hb->cpus[c].vectors;
		}
		for (unsigned int c = 0; c < nr_cpus; c++) {
			irqs[c] += hb->cpus[c].irqs;
			ipis[c] += hb->cpus[c].ipis;
		}
		icr_total += f.icr_writes;
		sent += f.ipis_sent;
		received += f.ipis_received;
		path |= f.path;
		status |= f.status;
		start += f.done;
		if (ctx && ctx->verbose && chunks % 100 == 0)
			fprintf(stderr, "hvbench: %u chunks, %u/%u\n", chunks, start,
				req->iterations);
	}

	json_object_set_new(result, "path",
		json_string((path & XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND) ?
			    ((path & XEN_SYSCTL_IPIBENCH_PATH_GENAPIC) ? "mixed" : "shorthand") :
			    (path & XEN_SYSCTL_IPIBENCH_PATH_GENAPIC) ? "genapic" : "none"));
	json_object_set_new(result, "chunks", json_integer(chunks));

	json_t *samples = json_object();
	json_object_set(samples, "cycles", cycles);
	json_object_set(samples, "ns", ns);
	if (req->op != XEN_SYSCTL_IPIBENCH_OP_vector_capacity) {
		json_object_set(samples, "icr_writes", icr);
		json_object_set(samples, "send_cycles", send);
		if (req->op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery ||
		    req->op == XEN_SYSCTL_IPIBENCH_OP_pingpong)
			json_object_set(samples, "cpu", who);
	}
	json_object_set_new(result, "samples", samples);

	json_t *cnt = json_object(), *a;
	json_object_set_new(cnt, "operations", json_integer((json_int_t)ops));
	json_object_set_new(cnt, "icr_writes", json_integer((json_int_t)icr_total));
	json_object_set_new(cnt, "ipis_sent", json_integer((json_int_t)sent));
	json_object_set_new(cnt, "ipis_received", json_integer((json_int_t)received));
	a = json_array();
	for (unsigned int c = 0; c < nr_cpus; c++)
		json_array_append_new(a, json_integer((json_int_t)irqs[c]));
	json_object_set_new(cnt, "irqs_per_cpu", a);
	a = json_array();
	for (unsigned int c = 0; c < nr_cpus; c++)
		json_array_append_new(a, json_integer((json_int_t)ipis[c]));
	json_object_set_new(cnt, "ipis_per_cpu", a);
	if (req->op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery) {
		a = json_array();
		for (unsigned int c = 0; c < nr_cpus; c++)
			json_array_append_new(a, json_integer((json_int_t)handled[c]));
		json_object_set_new(cnt, "handled_per_cpu", a);
	}
	if (req->op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity) {
		json_object_set_new(cnt, "vectors", json_integer(result_vectors));
		a = json_array();
		for (unsigned int c = 0; c < nr_cpus; c++)
			json_array_append_new(a, json_integer(vectors[c]));
		json_object_set_new(cnt, "vectors_per_cpu", a);
		json_object_set_new(cnt, "limited_by", json_string(
			(status & XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT) ? "irqs" : "vectors"));
	}
	json_object_set_new(result, "counters", cnt);
	rc = 0;
out:
	json_decref(cycles);
	json_decref(ns);
	json_decref(icr);
	json_decref(who);
	json_decref(send);
	free(irqs);
	free(ipis);
	free(handled);
	free(vectors);
	hvbench_close(hb);
	return rc;
}
