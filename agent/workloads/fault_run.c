/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fault: the run half (fault.c declares the params and says what each
 * action does).  result["fault"]:
 *   "before":  {"vectors": N, "online": [CPUs]}  (taken before the fault)
 *   "child" (kill, offline, pause) or "children" (concurrent): per child (none
 *              for hotplug)
 *              {"exit": "code"|"signal", "code"/"signal": N, "timed_out",
 *               "ms", "result": the victim's status, error, refused,
 *               operations, chunks, irte (irq_delivery; when the child wrote one)}
 *   "killed_after_chunks" (kill), "paused_ms" (pause),
 *              "offline": {"rc", "errno", "ms"},
 *              "online": {"rc", "errno"} (offline, hotplug),
 *              "irqs_on_offline_cpu": [the 'i' debug key's lines of the
 *              IRQs with an action still aimed at the CPU while it was
 *              offline] (offline, hotplug; null when the dump was not read)
 *   hold's "child": its "result" has "hold": {"refused": errno name or
 *              null, "held_ms" (from the start), "fetches", "chunks"}
 *   "after":   {"next_run": {"status", "attempts", "first_refusal", "ms"},
 *               "vectors": {"status", "vectors"}, "irq": {"status",
 *               "iterations", "handled"}, "online": [CPUs], "query": ...}
 * The workload fails only when it could not do what it was asked (no
 * fork, the victim ended before the fault, a CPU that did not come back
 * online); whether the host coped is for the caller to judge from these.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xenctrl.h>

#include "ipibench/counters.h"
#include "agent/hvbench.h"
#include "lib/safeio.h"

/* How long the checks afterwards wait for a dead run to be released, and
 * retry the next run on EBUSY: the hypervisor's idle timeout (the query's
 * idle_timeout_ms) and this much more. */
#define NEXT_RUN_SLACK_MS 15000
#define NEXT_RUN_RETRY_MS 50

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* A job entry for workload TYPE with those of params' iterations, mask and
 * cpu that TYPE declares (plus 'extra', taken). */
static json_t *entry_of(const char *name, const char *type, const json_t *params,
			json_t *extra)
{
	static const char *const keys[] = { "iterations", "mask", "cpu", NULL };
	const struct wl_type *t = wl_type_find(type);
	json_t *p = extra ? extra : json_object();

	for (size_t i = 0; t && params && keys[i]; i++)
		if (wl_param_find(t, keys[i]) && !json_object_get(p, keys[i]))
			json_object_set(p, keys[i], json_object_get(params, keys[i]));
	return json_pack("{s:s, s:s, s:o}", "name", name, "type", type, "params", p);
}

/* Run a job entry through the registry, as the agent core does; *res gets
 * the workload's result with "status" (and "error"). */
static int run_entry(struct agent_ctx *ctx, json_t *entry, json_t **res)
{
	const struct wl_type *spec = NULL;
	const struct agent_workload_ops *ops;
	json_t *checked = NULL;
	char err[256] = "";
	int rc = -1;

	*res = json_object();
	if (wl_job_entry_check(entry, 0, &spec, &checked, err, sizeof(err)))
		;
	else if (!(ops = agent_workload_find(spec->type)))
		snprintf(err, sizeof(err), "type '%s' has no run function", spec->type);
	else if (!ops->run(ctx, checked, *res, err, sizeof(err)))
		rc = 0;
	json_decref(checked);
	json_object_set_new(*res, "status", json_string(rc ? "failed" : "ok"));
	if (rc)
		json_object_set_new(*res, "error", json_string(err[0] ? err : "failed"));
	return rc;
}

/* What a check keeps of a workload's result. */
static json_t *summary(json_t *res)
{
	json_t *s = json_object(), *cnt = json_object_get(res, IPB_KEY(WL_COUNTERS)), *v;

	json_object_set(s, "status", json_object_get(res, "status"));
	if ((v = json_object_get(res, "error")))
		json_object_set(s, "error", v);
	if ((v = json_object_get(res, "refused")))
		json_object_set(s, "refused", v);
	if ((v = json_object_get(cnt, IPB_COUNTER(OPERATIONS))))
		json_object_set(s, IPB_COUNTER(OPERATIONS), v);
	if ((v = json_object_get(cnt, IPB_COUNTER(VECTORS))))
		json_object_set(s, IPB_COUNTER(VECTORS), v);
	if ((v = json_object_get(res, "chunks")))
		json_object_set(s, "chunks", v);
	if ((v = json_object_get(res, "irte")))	/* irq_delivery: libxenctrl worked */
		json_object_set(s, "irte", v);
	if ((v = json_object_get(res, "cut_short")))
		json_object_set(s, "cut_short", v);
	if ((v = json_object_get(cnt, IPB_COUNTER(IPIS_SENT))))
		json_object_set(s, IPB_COUNTER(IPIS_SENT), v);
	if ((v = json_object_get(cnt, IPB_COUNTER(IPIS_RECEIVED))))
		json_object_set(s, IPB_COUNTER(IPIS_RECEIVED), v);
	if ((v = json_object_get(res, "hold")))
		json_object_set(s, "hold", v);
	if ((v = json_object_get(res, "vectors")))	/* hold: what it held */
		json_object_set(s, "vectors", v);
	return s;
}

static int run_summary(struct agent_ctx *ctx, json_t *entry, json_t **out)
{
	json_t *res;
	int rc = run_entry(ctx, entry, &res);

	json_decref(entry);
	*out = summary(res);
	json_decref(res);
	return rc;
}

/* The CPUs the query says are online (NULL: the query failed). */
static json_t *online_cpus(struct agent_ctx *ctx, json_t **query)
{
	char err[256];
	json_t *q, *c, *a;
	size_t i;

	*query = NULL;
	if (hvbench_query(ctx, &q, err, sizeof(err)))
		return NULL;
	a = json_array();
	json_int_t free_vectors = 0;
	json_array_foreach(json_object_get(q, "cpus"), i, c) {
		if (json_is_true(json_object_get(c, "online")))
			json_array_append(a, json_object_get(c, "cpu"));
		free_vectors += json_integer_value(json_object_get(c, "free_vectors"));
	}
	/* The query minus its per-CPU table: the CPUs online, and the free
	 * vectors of all CPUs (the v2 query's cpus[].vectors). */
	json_object_del(q, "cpus");
	if (json_object_get(q, "idle_timeout_ms"))
		json_object_set_new(q, "free_vectors", json_integer(free_vectors));
	*query = q;
	return a;
}

/* ---- the children --------------------------------------------------- */

struct child {
	pid_t pid;
	int note;          /* read end: one byte once after_chunks are done */
	char file[4200];   /* where the child leaves its result */
};

static int hold_run(struct agent_ctx *ctx, const json_t *params, unsigned int after,
		    json_t *res);

/* The child's side of ctx->on_chunk. */
static int note_fd = -1;
static unsigned int note_after;

static void note_chunk(struct agent_ctx *ctx, unsigned int chunks)
{
	(void)ctx;
	if (note_fd >= 0 && chunks >= note_after) {
		/* A parent that stopped listening (EPIPE) changes nothing. */
		ssize_t n = write(note_fd, "c", 1);

		(void)n;
		close(note_fd);
		note_fd = -1;
	}
}

/*
 * Fork a child that (once 'go' reads EOF, when go >= 0) runs ENTRY with
 * its own hypercall handle (xencall's buffers are not inherited) and
 * leaves its result in c->file.
 */
static int child_start(struct agent_ctx *ctx, json_t *entry, unsigned int after, int go,
		       int go_w, const char *name, int k, struct child *c, char *err,
		       size_t errlen)
{
	int fds[2];

	snprintf(c->file, sizeof(c->file), "%s/.fault-%s-%d.json", ctx->outdir, name, k);
	unlink(c->file);
	if (pipe(fds)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (c->pid == 0) {
		struct agent_ctx cc = *ctx;
		char e[256];
		json_t *res;
		int rc;

		close(fds[0]);
		signal(SIGPIPE, SIG_IGN);
		/* Only the parent may hold go's write end: EOF is the start. */
		if (go_w >= 0)
			close(go_w);
		if (go >= 0) {
			char b;

			while (read(go, &b, 1) < 0 && errno == EINTR)
				;
			close(go);
		}
		/* Handles of its own: xencall's buffers are not inherited, and
		 * a workload may use libxenctrl too (irq_delivery reads the
		 * VT-d dump back through xc_send_debug_keys and
		 * xc_readconsolering: with the parent's NULLed handle a run
		 * that finished despite the offlined CPU died of SIGSEGV). */
		cc.xch = xc_interface_open(NULL, NULL, 0);
		cc.hv_handle = cc.hv->open();
		if (!cc.xch || !cc.hv_handle)
			_exit(3);
		note_fd = fds[1];
		note_after = after;
		cc.on_chunk = note_chunk;
		if (json_object_get(entry, "hold")) {
			res = json_object();
			rc = hold_run(&cc, json_object_get(entry, "hold"), after, res);
		} else {
			rc = run_entry(&cc, entry, &res);
		}
		if (sio_write_json(c->file, res, JSON_COMPACT, e, sizeof(e)))
			_exit(4);
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	c->note = fds[0];
	return 0;
}

/* 1 once the child's run has done its chunks, 0 when it ended (or the
 * deadline passed) first. */
static int child_noted(struct child *c, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd p = { .fd = c->note, .events = POLLIN };
		char b;
		ssize_t n;

		if (left <= 0)
			return 0;
		if (poll(&p, 1, left > 1000 ? 1000 : (int)left) < 0 && errno != EINTR)
			return 0;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(c->note, &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		return n == 1;
	}
}

/* Wait for the child (killing it at the deadline); its exit and result. */
static json_t *child_wait(struct child *c, int64_t t0, int64_t deadline)
{
	json_t *o = json_object(), *res;
	int status = 0, timed_out = 0;
	char err[4400];

	for (;;) {
		pid_t p = waitpid(c->pid, &status, WNOHANG);

		if (p == c->pid)
			break;
		if (p < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (now_ms() >= deadline && !timed_out) {
			timed_out = 1;
			kill(c->pid, SIGKILL);
		}
		sleep_ms(10);
	}
	close(c->note);
	json_object_set_new(o, "ms", json_integer(now_ms() - t0));
	json_object_set_new(o, "timed_out", json_boolean(timed_out));
	if (WIFSIGNALED(status)) {
		json_object_set_new(o, "exit", json_string("signal"));
		json_object_set_new(o, "signal", json_integer(WTERMSIG(status)));
	} else {
		json_object_set_new(o, "exit", json_string("code"));
		json_object_set_new(o, "code", json_integer(WEXITSTATUS(status)));
	}
	res = access(c->file, F_OK) ? NULL : sio_load_json(c->file, SIO_MAX_JSON, err, sizeof(err));
	if (res) {
		json_object_set_new(o, "result", summary(res));
		json_decref(res);
		unlink(c->file);
	}
	return o;
}

/*
 * hold, hold-offline: a looping owner.  vector_capacity on vectors_mask,
 * continued until its allocation is over (a fetch's result, the vectors it
 * got, is no longer 0: it now holds every vector it may take), then
 * fetches of that chunk, over and over, every HOLD_FETCH_MS, until the
 * hypervisor refuses one: res["hold"] says with what, after how long from
 * the start.  The parent is told (note_chunk) once the vectors are held.
 */
#define HOLD_FETCH_MS 20
#define HOLD_MAX_MS 600000
#define HOLD_MAX_CHUNKS 100000

static int hold_run(struct agent_ctx *ctx, const json_t *params, unsigned int after,
		    json_t *res)
{
	const struct xen_sysctl_ipibench_info *info;
	const struct xen_sysctl_ipibench_cpu *cpus;
	uint8_t online[XEN_SYSCTL_IPIBENCH_MAX_CPUS] = { 0 };
	static uint8_t bits[XEN_SYSCTL_IPIBENCH_MAX_CPUS / 8];
	unsigned int nr_cpus, nr_bits = 0, chunks = 0, fetches = 0;
	uint32_t cpu = hvbench_uint(params, "cpu"), run_id = 0;
	char err[256] = "";
	struct hvbench *hb = hvbench_open(ctx, err, sizeof(err));
	int64_t t0 = now_ms();
	int e = 0;

	if (!hb || hvbench_query_raw(hb, &info, &cpus, &nr_cpus)) {
		json_object_set_new(res, "error", json_string(err[0] ? err : "query failed"));
		hvbench_close(hb);
		return -1;
	}
	for (unsigned int c = 0; c < nr_cpus; c++)
		online[c] = !!(cpus[c].flags & XEN_SYSCTL_IPIBENCH_CPU_ONLINE);
	if (hvbench_mask_parse(json_object_get(params, "vectors_mask"), cpu, online, nr_cpus,
			       bits, &nr_bits, err, sizeof(err))) {
		json_object_set_new(res, "error", json_string(err));
		hvbench_close(hb);
		return -1;
	}
	(void)after;
	for (int held = 0;;) {
		struct xen_sysctl_ipibench op = {
			.run_id = run_id,
			.op = XEN_SYSCTL_IPIBENCH_OP_vector_capacity,
			.flags = chunks ? XEN_SYSCTL_IPIBENCH_F_CONTINUE : 0,
			.cpu = cpu,
			.iterations = 1,
			.mask.nr_bits = nr_bits,
		};
		struct xen_sysctl_ipibench f = {
			.op = XEN_SYSCTL_IPIBENCH_OP_fetch,
			.nr_cpus = nr_cpus,
		};

		memcpy(hvbench_mask_buffer(hb), bits, sizeof(bits));
		if (!held) {
			if (chunks >= HOLD_MAX_CHUNKS)
				break;
			e = hvbench_call(hb, &op);
			if (e)
				break;
			run_id = op.run_id;
			chunks++;
		} else {
			if (now_ms() - t0 > HOLD_MAX_MS)
				break;
			sleep_ms(HOLD_FETCH_MS);
		}
		f.run_id = run_id;
		e = hvbench_call(hb, &f);
		fetches++;
		if (e)
			break;
		/* Done: the vectors were freed again, nothing is held. */
		if (f.done)
			break;
		if (!held && f.result) {
			held = 1;
			json_object_set_new(res, "vectors", json_integer(f.result));
			note_chunk(ctx, UINT32_MAX);
		}
	}
	json_object_set_new(res, "hold", json_pack("{s:s?, s:I, s:i, s:i}",
		"refused", e ? hvbench_errno_name(e) : NULL,
		"held_ms", (json_int_t)(now_ms() - t0), "fetches", fetches, "chunks", chunks));
	if (e) {
		json_object_set_new(res, "refused", json_pack("{s:i, s:s}", "errno", e,
							       "name", hvbench_errno_name(e)));
		if (e == ENXIO || e == ETIME)
			json_object_set_new(res, "cut_short", json_true());
	}
	hvbench_close(hb);
	json_object_set_new(res, "status", json_string("failed"));
	json_object_set_new(res, "error", json_string(e ? "the hypervisor ended the held run"
							: "the held run was not ended"));
	return e ? 0 : -1;
}

/*
 * The IRQs with an action (a device's, or Xen's own) aimed at CPU alone
 * while it is offline: Xen's 'i' debug key, read back from the console
 * ring (the last dump), each IRQ line whose second set (arch.cpu_mask, the
 * CPUs holding its vector) is CPU and nothing else, unless "mapped,
 * unbound".  An IRQ whose vector is also on an online CPU still reaches
 * one (4.17 lists a high-priority vector, the serial's, on every CPU,
 * online or not).  NULL when the dump cannot be read.
 */
static int list_is_only(const char *s, const char *end, unsigned int cpu)
{
	int seen = 0;

	while (s < end) {
		char *p;
		unsigned long a = strtoul(s, &p, 10), b = a;

		if (p == s)
			return 0;
		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		if (a != cpu || b != cpu)
			return 0;
		seen = 1;
		if (*p != ',')
			break;
		s = p + 1;
	}
	return seen;
}

static json_t *irqs_aimed_at(struct agent_ctx *ctx, unsigned int cpu)
{
	unsigned int size = 1 << 20;
	char *buf, *p, *line, *dump = NULL;
	json_t *a = NULL;

	if (!ctx->xch || xc_send_debug_keys(ctx->xch, "i"))
		return NULL;
	buf = calloc(1, size + 1);
	if (!buf || xc_readconsolering(ctx->xch, buf, &size, 0, 0, NULL)) {
		free(buf);
		return NULL;
	}
	buf[size] = '\0';
	for (p = buf; (p = strstr(p, "IRQ information:")); p++)
		dump = p;
	if (dump) {
		char *stop = strstr(dump, "Direct vector information:");

		if (stop)
			*stop = '\0';
		a = json_array();
		for (line = strtok(dump, "\n"); line; line = strtok(NULL, "\n")) {
			char *aff = strstr(line, "aff:{"), *second, *close;

			if (!strstr(line, "IRQ:") || !aff || strstr(line, "mapped, unbound"))
				continue;
			second = strstr(aff, "}/{");
			close = second ? strchr(second + 3, '}') : NULL;
			if (close && list_is_only(second + 3, close, cpu)) {
				line[strcspn(line, "\r")] = '\0';
				json_array_append_new(a, sio_json_str(line));
			}
		}
	}
	free(buf);
	return a;
}

/* ---- the checks around the fault ------------------------------------ */

/* A next run: a short flush, retried while the hypervisor says EBUSY. */
static json_t *next_run(struct agent_ctx *ctx, int64_t limit_ms)
{
	int64_t t0 = now_ms();
	json_t *o = json_object(), *s = NULL, *first = json_null();
	unsigned int attempts = 0;

	for (;;) {
		const char *name;
		json_t *p = json_pack("{s:i, s:s}", "iterations", 10, "timing", "per-call");

		json_decref(s);
		attempts++;
		run_summary(ctx, entry_of("next-run", "flush_tlb_all", NULL, p), &s);
		name = json_string_value(json_object_get(json_object_get(s, "refused"), "name"));
		if (attempts == 1 && name)
			first = json_string(name);
		if (!name || strcmp(name, "EBUSY") || now_ms() - t0 > limit_ms)
			break;
		sleep_ms(NEXT_RUN_RETRY_MS);
	}
	json_object_set_new(o, "ms", json_integer(now_ms() - t0));
	json_object_set_new(o, "attempts", json_integer(attempts));
	json_object_set_new(o, "first_refusal", first);
	json_object_update(o, s);
	json_decref(s);
	return o;
}

/* How many vectors vector_capacity finds on params' vectors_mask. */
static json_t *vectors(struct agent_ctx *ctx, const json_t *params)
{
	json_t *s;

	run_summary(ctx, entry_of("vectors", "vector_capacity", NULL,
				  json_pack("{s:O}", "mask",
					    json_object_get(params, "vectors_mask"))), &s);
	return s;
}

static json_t *device_irq(struct agent_ctx *ctx, unsigned int cpu)
{
	char mask[16];
	json_t *res, *o = json_object(), *h;

	snprintf(mask, sizeof(mask), "%u", cpu);
	run_entry(ctx, entry_of("irq", "irq_delivery", NULL,
				json_pack("{s:i, s:s}", "iterations", 20, "mask", mask)), &res);
	json_object_set(o, "status", json_object_get(res, "status"));
	if (json_object_get(res, "error"))
		json_object_set(o, "error", json_object_get(res, "error"));
	json_object_set_new(o, "iterations", json_integer(20));
	h = json_object_get(json_object_get(res, IPB_KEY(WL_COUNTERS)), IPB_COUNTER(HANDLED_PER_CPU));
	json_object_set_new(o, "cpu", json_integer(cpu));
	json_object_set_new(o, "handled", json_integer(
		json_integer_value(json_array_get(h, cpu))));
	json_decref(res);
	return o;
}

static json_t *after(struct agent_ctx *ctx, const json_t *params)
{
	json_t *o = json_object(), *q, *on;
	int64_t t0 = now_ms(), limit = NEXT_RUN_SLACK_MS;

	/* The query first: what the fault left behind, before any new run
	 * (v1: a start reclaims an abandoned run).  Then, while it says a
	 * run is live (v2: until the dead owner's idle timeout has passed
	 * and the run is released), again, for at most the idle timeout and
	 * NEXT_RUN_SLACK_MS. */
	on = online_cpus(ctx, &q);
	json_object_set_new(o, "query", q ? q : json_null());
	json_decref(on);
	limit += json_integer_value(json_object_get(q, "idle_timeout_ms"));
	while (q && json_is_true(json_object_get(q, "run_live")) &&
	       now_ms() - t0 < limit) {
		sleep_ms(NEXT_RUN_RETRY_MS);
		on = online_cpus(ctx, &q);
		json_decref(on);
		if (q)
			json_object_set_new(o, "query_released", q);
	}
	json_object_set_new(o, "released_ms", json_integer(now_ms() - t0));
	/* Then: whatever the fault left behind must not hold up a run. */
	json_object_set_new(o, "next_run", next_run(ctx, limit));
	json_object_set_new(o, "vectors", vectors(ctx, params));
	json_object_set_new(o, "irq", device_irq(ctx, hvbench_uint(params, "irq_cpu")));
	on = online_cpus(ctx, &q);
	json_decref(q);
	json_object_set_new(o, "online", on ? on : json_null());
	return o;
}

/* Take offline_cpu offline, wait for the child C (NULL: none, hotplug)
 * and bring the CPU online again, into F's "offline", "child" and
 * "online"; -1 (ERR said, F's "after" filled in) when the CPU did not come
 * back. */
static int offline_online(struct agent_ctx *ctx, const json_t *params, json_t *f,
			  struct child *c, int64_t t0, int64_t timeout, char *err, size_t errlen)
{
	unsigned int cpu = hvbench_uint(params, "offline_cpu");
	int64_t t1 = now_ms();
	int r, e;

	r = xc_cpu_offline(ctx->xch, (int)cpu);
	e = r ? errno : 0;
	json_object_set_new(f, "offline", json_pack("{s:i, s:i, s:s?, s:I}",
		"cpu", cpu, "rc", r, "errno", e ? hvbench_errno_name(e) : NULL,
		"ms", (json_int_t)(now_ms() - t1)));
	if (c)
		json_object_set_new(f, "child", child_wait(c, t0, t0 + timeout));
	/* Still offline: nothing of a device's may be left aimed at it. */
	if (!r) {
		json_t *aimed = irqs_aimed_at(ctx, cpu);

		json_object_set_new(f, "irqs_on_offline_cpu", aimed ? aimed : json_null());
	}
	r = xc_cpu_online(ctx->xch, (int)cpu);
	e = r ? errno : 0;
	json_object_set_new(f, "online", json_pack("{s:i, s:i, s:s?}",
		"cpu", cpu, "rc", r, "errno", e ? hvbench_errno_name(e) : NULL));
	if (r) {
		snprintf(err, errlen, "xc_cpu_online(%u): %s", cpu, strerror(e));
		json_object_set_new(f, "after", after(ctx, params));
		return -1;
	}
	return 0;
}

/* ---- the actions ---------------------------------------------------- */

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	const char *action = json_string_value(json_object_get(params, "action"));
	const char *victim = json_string_value(json_object_get(params, "victim"));
	unsigned int after_chunks = hvbench_uint(params, "after_chunks");
	int64_t timeout = hvbench_uint(params, "timeout_ms"), t0;
	json_t *f = json_object(), *before = json_object(), *q, *on, *v, *entry;
	struct child c[2];
	int rc = -1;

	json_object_set_new(result, "fault", f);
	json_object_set_new(result, "path", json_string("none"));
	json_object_set_new(result, IPB_KEY(WL_SAMPLES), json_pack("{s:[], s:[]}", IPB_KEY(SAMPLES_CYCLES), IPB_KEY(SAMPLES_NS)));
	json_object_set_new(result, IPB_KEY(WL_COUNTERS), json_object());

	/* Before: what a healthy host gives (the interface must answer). */
	on = online_cpus(ctx, &q);
	if (!on) {
		if (!hvbench_query(ctx, &q, err, errlen)) {
			json_decref(q);
			snprintf(err, errlen, "the query failed once and then answered");
		}
		return -1;
	}
	json_object_set(before, "free_vectors", json_object_get(q, "free_vectors"));
	json_decref(q);
	json_object_set_new(before, "online", on);
	v = vectors(ctx, params);
	json_object_set(before, "vectors", json_object_get(v, "vectors"));
	json_object_set_new(f, "before", before);
	if (strcmp(json_string_value(json_object_get(v, "status")), "ok")) {
		/* No healthy host to compare with: no fault either. */
		snprintf(err, errlen, "before the fault: vector_capacity: %s",
			 json_string_value(json_object_get(v, "error")));
		json_object_set_new(before, "vectors_run", v);
		return -1;
	}
	json_decref(v);
	entry = entry_of("victim", victim, params, NULL);

	if (!strcmp(action, "hotplug")) {
		json_decref(entry);
		if (offline_online(ctx, params, f, NULL, 0, 0, err, errlen))
			return -1;
	} else if (!strncmp(action, "hold", 4)) {
		json_decref(entry);
		/* hold-offline: the test device's interrupt on the CPU that
		 * goes offline, for fixup_irqs() to move. */
		if (strcmp(action, "hold"))
			json_object_set_new(f, "irq_before",
					    device_irq(ctx, hvbench_uint(params, "offline_cpu")));
		entry = json_pack("{s:O}", "hold", params);
		if (child_start(ctx, entry, 1, -1, -1, action, 0, &c[0], err, errlen)) {
			json_decref(entry);
			return -1;
		}
		json_decref(entry);
		t0 = now_ms();
		if (!strcmp(action, "hold")) {
			json_object_set_new(f, "child", child_wait(&c[0], t0, t0 + timeout));
		} else if (!child_noted(&c[0], t0 + timeout)) {
			json_object_set_new(f, "child", child_wait(&c[0], t0, now_ms()));
			snprintf(err, errlen, "%s: the vectors were never held: no fault injected",
				 action);
			return -1;
		} else if (offline_online(ctx, params, f, &c[0], t0, timeout, err, errlen)) {
			return -1;
		}
	} else if (!strcmp(action, "concurrent")) {
		int go[2];
		json_t *kids = json_array();

		json_object_set_new(f, "children", kids);
		if (pipe(go)) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -1;
		}
		for (int k = 0; k < 2; k++)
			if (child_start(ctx, entry, 1, go[0], go[1], "concurrent", k, &c[k],
					err, errlen)) {
				json_decref(entry);
				close(go[0]);
				close(go[1]);
				if (k)
					json_array_append_new(kids, child_wait(&c[0], now_ms(), 0));
				return -1;
			}
		json_decref(entry);
		close(go[0]);
		t0 = now_ms();
		close(go[1]);   /* both go */
		for (int k = 0; k < 2; k++)
			json_array_append_new(kids, child_wait(&c[k], t0, t0 + timeout));
	} else {
		int r = child_start(ctx, entry, after_chunks, -1, -1, action, 0, &c[0],
				    err, errlen);

		json_decref(entry);
		if (r)
			return -1;
		t0 = now_ms();
		if (!child_noted(&c[0], t0 + timeout)) {
			json_object_set_new(f, "child", child_wait(&c[0], t0, now_ms()));
			snprintf(err, errlen, "%s: the victim (%s) ended before chunk %u: no fault injected",
				 action, victim, after_chunks);
			return -1;
		}
		if (!strcmp(action, "stall")) {
			/* Silent for ever: no line, no chunk, no result. */
			kill(c[0].pid, SIGSTOP);
			for (;;)
				pause();
		}
		if (!strcmp(action, "pause")) {
			/* The owner silent between two calls of its run, then
			 * going on: abandoned or not, by the idle timeout. */
			unsigned int ms = hvbench_uint(params, "pause_ms");

			kill(c[0].pid, SIGSTOP);
			sleep_ms(ms);
			kill(c[0].pid, SIGCONT);
			json_object_set_new(f, "paused_ms", json_integer(ms));
			json_object_set_new(f, "child", child_wait(&c[0], t0, t0 + timeout + ms));
		} else if (!strcmp(action, "kill")) {
			kill(c[0].pid, SIGKILL);
			json_object_set_new(f, "killed_after_chunks", json_integer(after_chunks));
			json_object_set_new(f, "child", child_wait(&c[0], t0, t0 + timeout));
		} else if (offline_online(ctx, params, f, &c[0], t0, timeout, err, errlen)) {
			return -1;
		}
	}
	json_object_set_new(f, "after", after(ctx, params));
	rc = 0;
	return rc;
}

const struct agent_workload_ops workload_fault = {
	.spec = &wl_fault,
	.run = run,
};
