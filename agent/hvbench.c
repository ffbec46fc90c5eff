/* SPDX-License-Identifier: GPL-3.0-or-later */
/* XEN_SYSCTL_ipibench from dom0: see hvbench.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xenctrl.h>
#include <xen/sysctl.h>

#include "ipibench/counters.h"
#include "ipibench/senders.h"
#include "agent/hvbench.h"
#include "agent/hvcall.h"

#define MASK_BYTES (XEN_SYSCTL_IPIBENCH_MAX_CPUS / 8)

_Static_assert(sizeof(struct xen_sysctl_ipibench) <=
	       sizeof(((struct xen_sysctl *)0)->u),
	       "the request must fit struct xen_sysctl");

struct hvbench {
	const struct hvcall_ops *hv;
	void *h;                        /* hv's handle */
	int own_h;
	struct xen_sysctl *sysctl;
	uint8_t *mask;
	struct xen_sysctl_ipibench_sample *samples;
	unsigned int max_samples;       /* entries in samples (info.max_samples) */
	struct xen_sysctl_ipibench_cpu *cpus;
	struct xen_sysctl_ipibench_info *info;
};

void hvbench_close(struct hvbench *hb)
{
	if (!hb)
		return;
	if (hb->h) {
		if (hb->sysctl)
			hb->hv->free(hb->h, hb->sysctl);
		if (hb->mask)
			hb->hv->free(hb->h, hb->mask);
		if (hb->samples)
			hb->hv->free(hb->h, hb->samples);
		if (hb->cpus)
			hb->hv->free(hb->h, hb->cpus);
		if (hb->info)
			hb->hv->free(hb->h, hb->info);
		if (hb->own_h)
			hb->hv->close(hb->h);
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
	if (!ctx || !ctx->hv) {
		snprintf(err, errlen, "no hypercall table (agent_ctx.hv)");
		free(hb);
		return NULL;
	}
	hb->hv = ctx->hv;
	hb->h = ctx->hv_handle;
	if (!hb->h) {
		hb->h = hb->hv->open();
		hb->own_h = 1;
	}
	if (!hb->h) {
		snprintf(err, errlen, "opening the hypercall interface: %s", strerror(errno));
		free(hb);
		return NULL;
	}
	hb->sysctl = hb->hv->alloc(hb->h, sizeof(*hb->sysctl));
	hb->mask = hb->hv->alloc(hb->h, MASK_BYTES);
	hb->cpus = hb->hv->alloc(hb->h, sizeof(*hb->cpus) * XEN_SYSCTL_IPIBENCH_MAX_CPUS);
	hb->info = hb->hv->alloc(hb->h, sizeof(*hb->info));
	if (!hb->sysctl || !hb->mask || !hb->cpus || !hb->info) {
		snprintf(err, errlen, "hypercall buffers: %s", strerror(errno));
		hvbench_close(hb);
		return NULL;
	}
	return hb;
}

uint8_t *hvbench_mask_buffer(struct hvbench *hb)
{
	return hb->mask;
}

int hvbench_op_sends(uint32_t op)
{
	return op == XEN_SYSCTL_IPIBENCH_OP_flush_all ||
	       op == XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask;
}

int hvbench_op_masked(uint32_t op)
{
	return op == XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity ||
	       op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery;
}

int hvbench_op_vector(uint32_t op)
{
	return op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
	       op == XEN_SYSCTL_IPIBENCH_OP_pingpong;
}

int hvbench_call(struct hvbench *hb, struct xen_sysctl_ipibench *op)
{
	int rc;

	/*
	 * Only the buffers the op reads or writes: the others must be null.
	 * (The _raw setter: xenctrl.h's set_xen_guest_handle takes its own
	 * hypercall buffer type.)
	 */
	if (op->op == XEN_SYSCTL_IPIBENCH_OP_query) {
		set_xen_guest_handle_raw(op->cpus, hb->cpus);
		set_xen_guest_handle_raw(op->info, hb->info);
	} else if (op->op == XEN_SYSCTL_IPIBENCH_OP_fetch) {
		set_xen_guest_handle_raw(op->samples, hb->samples);
		set_xen_guest_handle_raw(op->cpus, hb->cpus);
	} else if (op->mask.nr_bits) {
		set_xen_guest_handle_raw(op->mask.bitmap, hb->mask);
	}

	memset(hb->sysctl, 0, sizeof(*hb->sysctl));
	hb->sysctl->cmd = XEN_SYSCTL_ipibench;
	hb->sysctl->interface_version = XEN_SYSCTL_INTERFACE_VERSION;
	memcpy(&hb->sysctl->u, op, sizeof(*op));

	rc = hb->hv->sysctl(hb->h, hb->sysctl);
	/*
	 * Copied back also on an error: a start whose chunk failed has its
	 * run_id (the buffer holds the request where Xen wrote nothing).
	 */
	memcpy(op, &hb->sysctl->u, sizeof(*op));
	if (rc < 0)
		return errno ? errno : EIO;
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
		{ ENODEV, "ENODEV" }, { ENXIO, "ENXIO" }, { EPROTO, "EPROTO" },
		{ ETIME, "ETIME" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return "E?";
}

const char *hvbench_query_error(int e, char *err, size_t errlen)
{
	if (hvbench_absent(e))
		snprintf(err, errlen, "%s", HVBENCH_ABSENT);
	else if (e == EPROTO)
		snprintf(err, errlen, "ipibench query: the hypervisor's interface is "
			 "not this agent's (XEN_SYSCTL_IPIBENCH_VERSION %u)",
			 (unsigned int)XEN_SYSCTL_IPIBENCH_VERSION);
	else
		snprintf(err, errlen, "ipibench query refused: %s (%s)",
			 hvbench_errno_name(e), strerror(e));
	return err;
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
	/* A hypervisor with another layout of the interface. */
	if (hb->info->version != XEN_SYSCTL_IPIBENCH_VERSION)
		return EPROTO;
	hb->info->genapic[sizeof(hb->info->genapic) - 1] = '\0';
	/* The fetch buffer holds what the hypervisor says a fetch returns. */
	if (!hb->samples || hb->max_samples < hb->info->max_samples) {
		unsigned int n = hb->info->max_samples ? hb->info->max_samples : 1;

		if (n > HVBENCH_MAX_SAMPLES)
			return EPROTO;
		if (hb->samples)
			hb->hv->free(hb->h, hb->samples);
		hb->samples = hb->hv->alloc(hb->h, sizeof(*hb->samples) * n);
		hb->max_samples = hb->samples ? n : 0;
		if (!hb->samples)
			return ENOMEM;
	}
	*info = hb->info;
	*cpus = hb->cpus;
	*nr_cpus = op.nr_cpus < XEN_SYSCTL_IPIBENCH_MAX_CPUS ?
		   op.nr_cpus : XEN_SYSCTL_IPIBENCH_MAX_CPUS;
	return 0;
}

/*
 * The test device irq_delivery rings: null without one; else its SBDF, the
 * interrupt remapping entry of its MSI (-1: not remapped) and the MSI
 * address and data the device itself sends.
 */
static json_t *device_json(const struct xen_sysctl_ipibench_info *info)
{
	char sbdf[16];
	uint32_t s = info->dev_sbdf;

	if (s == UINT32_MAX)
		return json_null();
	snprintf(sbdf, sizeof(sbdf), "%04x:%02x:%02x.%u", s >> 16, (s >> 8) & 0xff,
		 (s >> 3) & 0x1f, s & 7);
	return json_pack("{s:s, s:i, s:I, s:I}", "sbdf", sbdf,
			 "irte", info->dev_irte == UINT32_MAX ? -1 : (int)info->dev_irte,
			 "msi_address", (json_int_t)info->dev_msi_addr,
			 "msi_data", (json_int_t)info->dev_msi_data);
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
		hvbench_query_error(rc, err, errlen);
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
	json_object_set_new(q, "max_iterations", json_integer(info->max_iterations));
	json_object_set_new(q, "max_samples", json_integer(info->max_samples));
	json_object_set_new(q, "idle_timeout_ms", json_integer(info->idle_timeout_ms));
	json_object_set_new(q, "run_live", json_boolean(info->run_live));
	json_object_set_new(q, "test_device", device_json(info));
	for (unsigned int c = 0; c < nr; c++) {
		json_t *o = json_object();
		json_object_set_new(o, "cpu", json_integer(c));
		json_object_set_new(o, "apic_id", json_integer(cpus[c].apic_id));
		json_object_set_new(o, "logical_id", json_integer(cpus[c].logical_id));
		json_object_set_new(o, "cluster", json_integer(cpus[c].cluster));
		json_object_set_new(o, "online",
			json_boolean(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE));
		/* Counted only while runs were live (ipibench_live), not since
		 * boot; 0 from a hypervisor before this field was filled. */
		json_object_set_new(o, "irqs", json_integer((json_int_t)cpus[c].irqs));
		json_object_set_new(o, "ipis", json_integer((json_int_t)cpus[c].ipis));
		json_object_set_new(o, "free_vectors", json_integer(cpus[c].vectors));
		json_object_set_new(o, "dev_irqs", json_integer((json_int_t)cpus[c].dev_irqs));
		json_array_append_new(arr, o);
	}
	json_object_set_new(q, "cpus", arr);
	hvbench_close(hb);
	*out = q;
	return 0;
}

/* ---- params ---------------------------------------------------------- */

uint32_t hvbench_uint(const json_t *params, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(params, key));

	return v < 0 || v > UINT32_MAX ? 0 : (uint32_t)v;
}

int hvbench_bool(const json_t *params, const char *key)
{
	return json_is_true(json_object_get(params, key));
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
	if (!json_is_string(v)) {
		snprintf(err, errlen, "mask must be a string");
		return -1;
	}
	const char *s = json_string_value(v);
	int all = !strcmp(s, "all"), allbut = !strcmp(s, "all-but-self");

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

/*
 * What an errno means, when Xen's name is not enough: ENODEV for a chosen
 * send routine is an xAPIC host.  A workload explains its own refusals.
 */
static const char *refusal_hint(const struct hvbench_req *req, int e)
{
	if (e == ENODEV && !req->sender && !req->nsenders)
		return "";
	return hvbench_errno_hint(e);
}

static void refused(json_t *result, int e, const struct hvbench_req *req, const char *what,
		    char *err, size_t errlen)
{
	json_t *r = json_object();

	json_object_set_new(r, "errno", json_integer(e));
	json_object_set_new(r, "name", json_string(hvbench_errno_name(e)));
	json_object_set_new(r, "call", json_string(what));
	json_object_set_new(result, "refused", r);
	/* The hypervisor ended the run before its last call: a CPU it used
	 * went offline, or it reached its lifetime. */
	if (e == ENXIO || e == ETIME)
		json_object_set_new(result, "cut_short", json_true());
	if (!strcmp(what, "query"))
		hvbench_query_error(e, err, errlen);
	else if (hvbench_absent(e))
		snprintf(err, errlen, "%s", HVBENCH_ABSENT);
	else
		snprintf(err, errlen, "hypervisor refused %s: %s (%s)%s", what,
			 hvbench_errno_name(e), strerror(e), refusal_hint(req, e));
}

int hvbench_absent(int e)
{
	/* EOPNOTSUPP: CONFIG_IPIBENCH=n; ENOSYS: no series at all. */
	return e == EOPNOTSUPP || e == ENOSYS;
}

const char *hvbench_errno_hint(int e)
{
	switch (e) {
	case ENODEV:
		return ": the physical and cluster senders need x2APIC";
	case EBUSY:
		return ": another caller's run is live (retried for the idle timeout)";
	case ESRCH:
		return ": the run is no longer live (abandoned after the idle timeout, "
		       "or someone else's)";
	case ENXIO:
		return ": a CPU the run uses went offline; the run was cut short";
	case ETIME:
		return ": the run reached its lifetime (60 s unless Xen's "
		       "ipibench-run-lifetime= says otherwise); the run was cut short";
	case ETIMEDOUT:
		return ": an IPI or interrupt was lost; the run was ended";
	case EPERM:
		return ": XSM denies XEN_SYSCTL_ipibench to this domain";
	default:
		return "";
	}
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Start a run: an EBUSY is retried until the idle timeout has passed (a
 * run whose caller was killed is abandoned by then); a chunk that did
 * not run because its CPU went offline comes back as EINVAL from the
 * hypercall tasklet, the run's own error (ENXIO) from a fetch.
 */
static int call_chunk(struct hvbench *hb, struct xen_sysctl_ipibench *op,
		      unsigned int idle_timeout_ms)
{
	unsigned int waited = 0;
	int e;

	for (;;) {
		e = hvbench_call(hb, op);
		if (e != EBUSY || (op->flags & XEN_SYSCTL_IPIBENCH_F_CONTINUE) ||
		    waited > idle_timeout_ms + 200)
			break;
		sleep_ms(20);
		waited += 20;
	}
	if (e == EINVAL && op->run_id) {
		struct xen_sysctl_ipibench f = {
			.op = XEN_SYSCTL_IPIBENCH_OP_fetch, .run_id = op->run_id,
		};
		int fe = hvbench_call(hb, &f);

		if (fe == ENXIO)
			e = ENXIO;
	}
	return e;
}

static int sender_of(const char *s, size_t len, uint32_t *out)
{
	int i = ipibench_sender_index(s, len);

	if (i >= 0) {
		*out = (uint32_t)i;
		return 0;
	}
	return -1;
}

/*
 * "A, B" (KEY_CHOICES of the sender names, already checked by the
 * workload's table) into senders[]; the count into *n (0 for "").
 */
static int parse_senders(const char *p, uint32_t senders[2], unsigned int *n,
			 char *err, size_t errlen)
{
	*n = 0;
	while (p && *p) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, ", \t");
		if (!len || *n == 2 || sender_of(p, len, &senders[*n]))
			goto bad;
		(*n)++;
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (*n == 0 || *n == 2)
		return 0;
bad:
	snprintf(err, errlen, "senders: not checked against the workload's params");
	return -1;
}

/*
 * The timing params (WL_TIMING; WL_SENDER when has_sender) into req.  Their
 * ranges, names and the rules across them (wl_check_timing()) are the
 * workload's table's, checked before any run: this only converts them.
 */
static int timing_params(const json_t *params, int has_sender,
			 struct hvbench_req *req, char *err, size_t errlen)
{
	const char *timing = json_string_value(json_object_get(params, "timing"));
	const char *sender;

	req->loop = !timing || strcmp(timing, "per-call") != 0;
	req->runs = hvbench_uint(params, "runs");
	req->seed = hvbench_uint(params, "seed");
	req->sender = XEN_SYSCTL_IPIBENCH_SENDER_genapic;
	req->nsenders = 0;
	if (!has_sender)
		return 0;
	sender = json_string_value(json_object_get(params, "sender"));
	if (sender && sender_of(sender, strlen(sender), &req->sender)) {
		snprintf(err, errlen, "sender: not checked against the workload's params");
		return -1;
	}
	return parse_senders(json_string_value(json_object_get(params, "senders")),
			     req->senders, &req->nsenders, err, errlen);
}

/* *field = params[key] when the workload declares key. */
static void uint_param(const json_t *params, const char *key, uint32_t *field)
{
	if (json_object_get(params, key))
		*field = hvbench_uint(params, key);
}

int hvbench_req_params(const json_t *params, struct hvbench_req *req,
		       char *err, size_t errlen)
{
	uint_param(params, "iterations", &req->iterations);
	uint_param(params, "cpu", &req->cpu);
	uint_param(params, "peer", &req->peer);
	uint_param(params, "vector", &req->vector);
	if (json_object_get(params, "shorthand"))
		req->shorthand = hvbench_bool(params, "shorthand");
	if (json_object_get(params, "mask"))
		req->mask = json_object_get(params, "mask");
	if (!json_object_get(params, "runs"))
		return 0;
	return timing_params(params, json_object_get(params, "sender") != NULL, req, err, errlen);
}

/* Which of a pair goes first: bit 0 of splitmix64(seed, pair). */
static unsigned int pair_order(uint32_t seed, uint32_t pair)
{
	return (unsigned int)(ipibench_pair_mix(seed ? seed : 1, pair) & 1);
}

/* What the runs of one workload add up. */
struct run_acc {
	unsigned int nr_cpus;
	uint64_t *irqs, *ipis, *dev_irqs;
	uint32_t *vectors;
	json_t *cycles, *ns, *icr, *who, *send;
	uint64_t icr_total, sent, received, ops;
	uint32_t path, status, result_vectors;
	unsigned int chunks;
	struct { uint64_t loops, ops, icr; } by_sender[3];
};

/* One loop: what a run of req->iterations calls with loop timing took. */
struct run_loop {
	uint64_t ns, cycles;
	unsigned int chunks;
};

/*
 * One chunk done: a console line at most every AGENT_HEARTBEAT_MS, so that
 * a runner watching the console tells a long workload from a stalled one.
 */
static void heartbeat(struct agent_ctx *ctx)
{
	struct timespec ts;
	long long ms;

	if (!ctx || !ctx->workload)
		return;
	ctx->workload_chunks++;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (!ctx->beat_ms) {
		ctx->beat_ms = ms;
	} else if (ms - ctx->beat_ms >= AGENT_HEARTBEAT_MS) {
		ctx->beat_ms = ms;
		printf("ipibench: workload %s: %lu chunks\n", ctx->workload,
		       ctx->workload_chunks);
		fflush(stdout);
	}
}

/* One run of req->iterations calls through 'sender', in chunks. */
static int run_once(struct agent_ctx *ctx, struct hvbench *hb,
		    const struct hvbench_req *req, uint32_t sender,
		    const uint8_t *bits, unsigned int nr_bits, struct run_acc *a,
		    struct run_loop *lp, json_t *result, char *err, size_t errlen)
{
	unsigned int nr_cpus = a->nr_cpus, chunks = 0;
	uint32_t start = 0, run_id = 0;
	int first = 1, e;

	memset(lp, 0, sizeof(*lp));
	while (first || start < req->iterations) {
		/* Only what the op takes: Xen refuses any other field non-zero. */
		int sends = hvbench_op_sends(req->op);
		struct xen_sysctl_ipibench op = {
			.run_id = run_id,
			.op = req->op,
			.flags = (sends && !req->shorthand ? XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND : 0) |
				 (req->loop ? XEN_SYSCTL_IPIBENCH_F_LOOP : 0) |
				 (first ? 0 : XEN_SYSCTL_IPIBENCH_F_CONTINUE),
			.cpu = req->cpu,
			.peer = req->op == XEN_SYSCTL_IPIBENCH_OP_pingpong ? req->peer : 0,
			.vector = hvbench_op_vector(req->op) ? req->vector : 0,
			.iterations = req->iterations,
			.start = start,
			.mask.nr_bits = hvbench_op_masked(req->op) ? nr_bits : 0,
			.sender = sends ? sender : 0,
		};

		memcpy(hb->mask, bits, MASK_BYTES);
		e = call_chunk(hb, &op, hb->info->idle_timeout_ms);
		if (e) {
			refused(result, e, req, first ? "run" : "continue", err, errlen);
			return -1;
		}
		if (first && ctx)
			ctx->bench_runs++;
		first = 0;
		chunks++;
		run_id = op.run_id;

		struct xen_sysctl_ipibench f = {
			.run_id = run_id,
			.op = XEN_SYSCTL_IPIBENCH_OP_fetch,
			.nr_samples = hb->max_samples,
			.nr_cpus = nr_cpus,
		};
		e = hvbench_call(hb, &f);
		if (e) {
			refused(result, e, req, "fetch", err, errlen);
			return -1;
		}
		if ((!req->loop && f.done > hb->max_samples) ||
		    f.done > req->iterations - start) {
			snprintf(err, errlen, "fetch: %u samples done, chunk at %u of %u",
				 f.done, start, req->iterations);
			return -1;
		}
		if (req->count_only) {
			if (f.done) {
				a->ops = 1;
				a->result_vectors = f.result;
				for (unsigned int c = 0; c < nr_cpus; c++)
					a->vectors[c] = hb->cpus[c].vectors;
			}
		} else if (req->loop) {
			const struct xen_sysctl_ipibench_sample *s = &hb->samples[0];

			if (f.done && !(s->flags & XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP)) {
				snprintf(err, errlen, "fetch: a loop chunk without its loop sample "
					 "(hypervisor without loop timing?)");
				return -1;
			}
			if (f.done) {
				lp->ns += s->ns;
				lp->cycles += s->cycles;
				if (s->flags & XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND)
					a->path |= XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND;
			}
			a->ops += f.done;
		} else {
			for (uint32_t i = 0; i < f.done; i++) {
				const struct xen_sysctl_ipibench_sample *s = &hb->samples[i];
				json_array_append_new(a->cycles, json_integer((json_int_t)s->cycles));
				json_array_append_new(a->ns, json_integer((json_int_t)s->ns));
				json_array_append_new(a->icr, json_integer(s->icr_writes));
				json_array_append_new(a->who, json_integer(s->cpu));
				json_array_append_new(a->send, json_integer(s->send_cycles));
				if (s->flags & XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND)
					a->path |= XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND;
			}
			a->ops += f.done;
		}
		for (unsigned int c = 0; c < nr_cpus; c++) {
			a->irqs[c] += hb->cpus[c].irqs;
			a->ipis[c] += hb->cpus[c].ipis;
		}
		a->icr_total += f.icr_writes;
		a->sent += f.ipis_sent;
		a->received += f.ipis_received;
		a->path |= f.path;
		a->status |= f.status;
		if (sender < 3) {
			a->by_sender[sender].ops += f.done;
			a->by_sender[sender].icr += f.icr_writes;
		}
		start += f.done;
		heartbeat(ctx);
		if (ctx && ctx->on_chunk)
			ctx->on_chunk(ctx, chunks);
		if (ctx && ctx->verbose && chunks % 100 == 0)
			fprintf(stderr, "hvbench: %u chunks, %u/%u\n", chunks, start,
				req->iterations);
	}
	if (sender < 3)
		a->by_sender[sender].loops++;
	a->chunks += chunks;
	lp->chunks = chunks;
	return 0;
}

static json_t *loop_json(const struct run_loop *lp, uint32_t calls, uint32_t sender,
			 long pair, int arm)
{
	json_t *o = json_object();

	json_object_set_new(o, IPB_KEY(LOOP_NS), json_integer((json_int_t)lp->ns));
	json_object_set_new(o, IPB_KEY(LOOP_CYCLES), json_integer((json_int_t)lp->cycles));
	json_object_set_new(o, IPB_KEY(LOOP_CALLS), json_integer(calls));
	json_object_set_new(o, IPB_KEY(LOOP_CHUNKS), json_integer(lp->chunks));
	json_object_set_new(o, IPB_KEY(LOOP_SENDER),
			    json_string(ipibench_sender_names()[sender < 3 ? sender : 0]));
	if (pair >= 0) {
		json_object_set_new(o, IPB_KEY(LOOP_PAIR), json_integer(pair));
		json_object_set_new(o, IPB_KEY(LOOP_ARM), json_integer(arm));
	}
	return o;
}

/* a's buffers for nr_cpus CPUs, the device's interrupts since boot from
 * cpus (for the run's delta: the chunks' own deltas miss an interrupt
 * that arrives between two chunks).  0, or -1 (out of memory). */
static int acc_init(struct run_acc *a, const struct xen_sysctl_ipibench_cpu *cpus,
		    unsigned int nr_cpus)
{
	memset(a, 0, sizeof(*a));
	a->nr_cpus = nr_cpus;
	a->irqs = calloc(nr_cpus, sizeof(*a->irqs));
	a->ipis = calloc(nr_cpus, sizeof(*a->ipis));
	a->vectors = calloc(nr_cpus, sizeof(*a->vectors));
	a->dev_irqs = calloc(nr_cpus, sizeof(*a->dev_irqs));
	for (unsigned int c = 0; a->dev_irqs && c < nr_cpus; c++)
		a->dev_irqs[c] = cpus[c].dev_irqs;
	a->cycles = json_array();
	a->ns = json_array();
	a->icr = json_array();
	a->who = json_array();
	a->send = json_array();
	return a->irqs && a->ipis && a->vectors && a->dev_irqs ? 0 : -1;
}

static void acc_free(struct run_acc *a)
{
	json_decref(a->cycles);
	json_decref(a->ns);
	json_decref(a->icr);
	json_decref(a->who);
	json_decref(a->send);
	free(a->irqs);
	free(a->ipis);
	free(a->vectors);
	free(a->dev_irqs);
}

/* req's runs (pairs of loops with two senders), their loops into loops. */
static int run_all(struct agent_ctx *ctx, struct hvbench *hb, const struct hvbench_req *req,
		   const uint8_t *bits, unsigned int nr_bits, struct run_acc *a,
		   json_t *loops, json_t *result, char *err, size_t errlen)
{
	uint32_t runs = req->runs ? req->runs : 1;

	for (uint32_t r = 0; r < runs; r++) {
		struct run_loop lp;

		if (req->nsenders == 2) {
			/* Pair r: both senders, one loop each, in a drawn order. */
			unsigned int second = pair_order(req->seed, r);

			for (unsigned int k = 0; k < 2; k++) {
				unsigned int arm = k ^ second;
				uint32_t sender = req->senders[arm];

				if (run_once(ctx, hb, req, sender, bits, nr_bits, a, &lp,
					     result, err, errlen))
					return -1;
				json_array_append_new(loops, loop_json(&lp, req->iterations,
								       sender, r, (int)arm));
			}
		} else {
			if (run_once(ctx, hb, req, req->sender, bits, nr_bits, a, &lp,
				     result, err, errlen))
				return -1;
			if (req->loop)
				json_array_append_new(loops, loop_json(&lp, req->iterations,
								       req->sender, -1, 0));
		}
	}
	return 0;
}

/* result's "path", "chunks", "timing", "loops" (and the pair's senders)
 * and "samples". */
static void timing_json(const struct hvbench_req *req, const struct run_acc *a,
			json_t *loops, json_t *result)
{
	uint32_t path = a->path;
	json_t *samples = json_object();

	json_object_set_new(result, IPB_KEY(WL_PATH),
		json_string((path & XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND) ?
			    ((path & XEN_SYSCTL_IPIBENCH_PATH_GENAPIC) ? "mixed" : "shorthand") :
			    (path & XEN_SYSCTL_IPIBENCH_PATH_GENAPIC) ? "genapic" : "none"));
	json_object_set_new(result, IPB_KEY(WL_CHUNKS), json_integer(a->chunks));
	if (!req->count_only)
		json_object_set_new(result, IPB_KEY(WL_TIMING), json_string(req->loop ? "loop" : "per-call"));
	if (req->loop) {
		json_object_set(result, IPB_KEY(WL_LOOPS), loops);
		if (req->nsenders == 2) {
			const char *const *sn = ipibench_sender_names();

			json_object_set_new(result, "senders", json_pack("[s, s]",
				sn[req->senders[0]], sn[req->senders[1]]));
			json_object_set_new(result, "pair_seed",
					    json_integer(req->seed ? req->seed : 1));
		}
	}

	json_object_set(samples, IPB_KEY(SAMPLES_CYCLES), a->cycles);
	json_object_set(samples, IPB_KEY(SAMPLES_NS), a->ns);
	if (!req->count_only) {
		json_object_set(samples, IPB_KEY(SAMPLES_ICR_WRITES), a->icr);
		json_object_set(samples, IPB_KEY(SAMPLES_SEND_CYCLES), a->send);
		if (req->sample_cpu)
			json_object_set(samples, IPB_KEY(SAMPLES_CPU), a->who);
	}
	json_object_set_new(result, IPB_KEY(WL_SAMPLES), samples);
}

/* N per-CPU counts as a JSON array. */
static json_t *per_cpu_json(const uint64_t *v, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int c = 0; c < n; c++)
		json_array_append_new(arr, json_integer((json_int_t)v[c]));
	return arr;
}

/* The run's "counters". */
static json_t *counters_json(const struct run_acc *a)
{
	json_t *cnt = json_object();

	json_object_set_new(cnt, IPB_COUNTER(OPERATIONS), json_integer((json_int_t)a->ops));
	json_object_set_new(cnt, IPB_COUNTER(ICR_WRITES), json_integer((json_int_t)a->icr_total));
	json_object_set_new(cnt, IPB_COUNTER(IPIS_SENT), json_integer((json_int_t)a->sent));
	json_object_set_new(cnt, IPB_COUNTER(IPIS_RECEIVED), json_integer((json_int_t)a->received));
	json_object_set_new(cnt, IPB_COUNTER(IRQS_PER_CPU), per_cpu_json(a->irqs, a->nr_cpus));
	json_object_set_new(cnt, IPB_COUNTER(IPIS_PER_CPU), per_cpu_json(a->ipis, a->nr_cpus));
	return cnt;
}

/* "counters_by_sender": per send routine that ran. */
static json_t *by_sender_json(const struct run_acc *a)
{
	json_t *bys = json_object();

	for (unsigned int k = 0; k < 3; k++) {
		if (!a->by_sender[k].loops)
			continue;
		json_object_set_new(bys, ipibench_sender_names()[k], json_pack("{s:I, s:I, s:I}",
			"runs", (json_int_t)a->by_sender[k].loops,
			IPB_COUNTER(OPERATIONS), (json_int_t)a->by_sender[k].ops,
			IPB_COUNTER(ICR_WRITES), (json_int_t)a->by_sender[k].icr));
	}
	return bys;
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
	struct run_acc a;
	json_t *loops = NULL, *cnt;
	int rc = -1, e;

	memset(&a, 0, sizeof(a));
	if (!hb)
		return -1;
	e = hvbench_query_raw(hb, &info, &cpus, &nr_cpus);
	if (e) {
		refused(result, e, req, "query", err, errlen);
		goto out;
	}
	for (unsigned int c = 0; c < nr_cpus; c++)
		online[c] = !!(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE);
	json_object_set_new(result, "genapic", json_string(info->genapic));
	json_object_set_new(result, "shorthand_eligible",
			    json_boolean(info->shorthand_eligible));

	memset(bits, 0, sizeof(bits));
	if (req->mask) {
		if (hvbench_mask_parse(req->mask, req->cpu, online, nr_cpus, bits, &nr_bits,
				       err, errlen))
			goto out;
		json_object_set_new(result, "mask", mask_json(bits, nr_bits));
	}

	loops = json_array();
	if (acc_init(&a, cpus, nr_cpus)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (run_all(ctx, hb, req, bits, nr_bits, &a, loops, result, err, errlen))
		goto out;

	timing_json(req, &a, loops, result);
	cnt = counters_json(&a);
	if (req->totals) {
		req->totals->result = a.result_vectors;
		req->totals->status = a.status;
		req->totals->path = a.path;
		req->totals->nr_cpus = nr_cpus;
		memcpy(req->totals->vectors, a.vectors, nr_cpus * sizeof(*a.vectors));
		memcpy(req->totals->dev_irqs, a.dev_irqs, nr_cpus * sizeof(*a.dev_irqs));
	}
	json_object_set_new(result, IPB_KEY(WL_COUNTERS), cnt);
	/* Per send routine, when the workload chose one (or two). */
	if (req->nsenders == 2 || req->sender != XEN_SYSCTL_IPIBENCH_SENDER_genapic)
		json_object_set_new(result, "counters_by_sender", by_sender_json(&a));
	rc = 0;
out:
	acc_free(&a);
	json_decref(loops);
	hvbench_close(hb);
	return rc;
}

int hvbench_run_params(struct agent_ctx *ctx, const struct hvbench_req *tmpl,
		       const json_t *params, json_t *result, char *err, size_t errlen)
{
	struct hvbench_req req = *tmpl;

	if (hvbench_req_params(params, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

struct hvbench_totals *hvbench_run_totals(struct agent_ctx *ctx, const struct hvbench_req *tmpl,
					  const json_t *params, json_t *result,
					  char *err, size_t errlen)
{
	struct hvbench_req req = *tmpl;

	req.totals = calloc(1, sizeof(*req.totals));
	if (!req.totals) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (hvbench_run_params(ctx, &req, params, result, err, errlen)) {
		free(req.totals);
		return NULL;
	}
	return req.totals;
}
