/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "runner/backend.h"
#include "lib/console.h"
#include "runner/qmp.h"
#include "runner/stall.h"
#include "runner/util.h"
#include "lib/safeio.h"

/* Bounds of the steps (seconds): their sum is STALL_CAPTURE_MAX_S. */
#define T_HOST     2    /* two samples of QEMU's threads, one second apart */
#define T_QMP      14   /* the whole monitor conversation */
#define T_QMP_CMD  5    /* one command of it */
#define T_SWITCH   3    /* each press of Ctrl-A three times */
#define N_SWITCH   3    /* presses until the input is Xen's */
#define T_KEY_D    12   /* the register and stack dump of every CPU */
#define T_KEY      5    /* each other key */
#define T_QUIET    2.0  /* a key's output is over after this long without any */
/* The run queues first: 'r', 'q', 'i' and '0' run in a tasklet on the CPU
 * that took the key, and the reschedule after it can pick up a vCPU that
 * was stranded runnable on an idle host, so the first of them sees the
 * state as it was; 'd' last, as its IPIs wake every CPU. */
#define KEYS "rqi0d"

void stall_track_init(struct stall_track *s, double t)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->phase, sizeof(s->phase), "boot");
	s->t_last = t;
}

void stall_track_line(struct stall_track *s, const char *line, double t)
{
	struct console_match m;
	size_t n = strcspn(line, "\r");

	s->t_last = t;
	snprintf(s->last_line, sizeof(s->last_line), "%.*s", (int)n, line);
	switch (console_parse_line(line, &m)) {
	case CON_DOM0_UP:
		s->dom0_up = true;
		snprintf(s->phase, sizeof(s->phase), "dom0");
		break;
	case CON_AGENT_PROGRESS: {
		/* "ipibench: workload NAME (TYPE) start" */
		const char *l = console_strip_prefix(line);
		const char *name = strncmp(l, "ipibench: workload ", 19) ? "" : l + 19;
		size_t len = strcspn(name, " \r");

		if (len && !strncmp(name + len, " (", 2) && strstr(name + len, ") start"))
			snprintf(s->phase, sizeof(s->phase), "workload %.*s",
				 (int)(len < 60 ? len : 60), name);
		break;
	}
	default:
		break;
	}
}

bool stall_is_vcpu(const char *comm)
{
	return !strncmp(comm, "CPU ", 4) || !strncmp(comm, "ALL CPUs", 8);
}

int stall_threads(pid_t pid, struct stall_thread *out, size_t max)
{
	char path[96];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)(pid ? pid : getpid()));
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d)) && n < max) {
		char p[400], buf[1024], *rp;
		struct stall_thread *t = &out[n];
		FILE *f;
		size_t got;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		memset(t, 0, sizeof(*t));
		t->tid = atoi(e->d_name);
		snprintf(p, sizeof(p), "%s/%s/stat", path, e->d_name);
		if (!(f = fopen(p, "r")))
			continue;   /* gone meanwhile */
		got = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[got] = '\0';
		/* "TID (COMM) S ppid ...": COMM may hold spaces and parentheses. */
		char *lp = strchr(buf, '('), *state;
		rp = strrchr(buf, ')');
		if (!lp || !rp || rp < lp || rp[1] != ' ')
			continue;
		snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
		state = rp + 2;
		t->state = *state;
		/* Fields 4..13 (ppid .. cmajflt), then utime and stime. */
		char *q = state;
		for (int i = 0; i < 11 && q; i++)
			q = strchr(q + 1, ' ');
		if (!q || sscanf(q, " %llu %llu", &t->utime, &t->stime) != 2)
			continue;
		/* comm is the better name (stat's is the same, cut at 15). */
		snprintf(p, sizeof(p), "%s/%s/comm", path, e->d_name);
		if ((f = fopen(p, "r"))) {
			if (fgets(buf, sizeof(buf), f)) {
				buf[strcspn(buf, "\n")] = '\0';
				snprintf(t->comm, sizeof(t->comm), "%.31s", buf);
			}
			fclose(f);
		}
		n++;
	}
	closedir(d);
	return (int)n;
}

/* ---- a growing text ---------------------------------------------------- */

struct text {
	char *s;
	size_t len, cap;
	bool oom;
};

static void text_add(struct text *t, const char *p, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *s;

		while (cap < t->len + n + 1)
			cap *= 2;
		if (!(s = realloc(t->s, cap))) {
			t->oom = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
	memcpy(t->s + t->len, p, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void __attribute__((format(printf, 2, 3))) text_printf(struct text *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		text_add(t, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static const char *text_str(const struct text *t)
{
	return t->s ? t->s : "";
}

/* ---- the host ---------------------------------------------------------- */

#define MAX_THREADS 1024

static int by_tid(const void *a, const void *b)
{
	return ((const struct stall_thread *)a)->tid - ((const struct stall_thread *)b)->tid;
}

static void sample(struct text *t, const struct stall_thread *th, int n, const char *when)
{
	text_printf(t, "\nQEMU's threads, %s: tid state utime stime name\n", when);
	for (int i = 0; i < n; i++)
		text_printf(t, "%d %c %llu %llu %s\n", th[i].tid, th[i].state, th[i].utime,
			    th[i].stime, th[i].comm);
}

static void host_step(const struct stall_capture *c, struct stall_found *f, struct text *t)
{
	struct stall_thread *a = calloc(MAX_THREADS, sizeof(*a)), *b = calloc(MAX_THREADS, sizeof(*b));
	char la[256] = "?";
	FILE *lf = fopen("/proc/loadavg", "r");
	long hz = sysconf(_SC_CLK_TCK);
	int na, nb;

	if (lf) {
		if (fgets(la, sizeof(la), lf))
			la[strcspn(la, "\n")] = '\0';
		fclose(lf);
	}
	text_printf(t, "/proc/loadavg: %s\nCPUs online: %ld\nclock ticks per second: %ld\n", la,
		    sysconf(_SC_NPROCESSORS_ONLN), hz);
	if (!a || !b) {
		text_printf(t, "QEMU's threads: out of memory\n");
		goto out;
	}
	na = c->qemu > 0 ? stall_threads(c->qemu, a, MAX_THREADS) : -1;
	if (na < 0) {
		text_printf(t, "QEMU (pid %ld): no threads to read: %s\n", (long)c->qemu,
			    strerror(errno));
		goto out;
	}
	sleep(1);
	nb = stall_threads(c->qemu, b, MAX_THREADS);
	if (nb < 0)
		nb = 0;
	qsort(a, (size_t)na, sizeof(a[0]), by_tid);
	qsort(b, (size_t)nb, sizeof(b[0]), by_tid);
	sample(t, a, na, "first");
	sample(t, b, nb, "one second later");
	/* Running: it used a tenth of the second or more. */
	text_printf(t, "\nvCPU threads over that second (running: >= 10%% of it on a CPU):\n");
	for (int i = 0; i < nb; i++) {
		const struct stall_thread *x = &b[i], *y = NULL;

		if (!stall_is_vcpu(x->comm))
			continue;
		for (int j = 0; j < na; j++)
			if (a[j].tid == x->tid)
				y = &a[j];
		unsigned long long d = y ? x->utime + x->stime - y->utime - y->stime : 0;
		bool run = hz > 0 && d * 10 >= (unsigned long long)hz;

		if (run)
			f->vcpus_running++;
		else
			f->vcpus_idle++;
		text_printf(t, "%s: %s (%llu ticks, state %c)\n", x->comm, run ? "running" : "idle",
			    d, x->state);
	}
out:
	free(a);
	free(b);
}

/* ---- QEMU's monitor ---------------------------------------------------- */

static void qmp_step(const struct stall_capture *c, struct stall_found *f, struct text *t)
{
	struct qmp q;
	char err[160], cmd[64];
	double deadline = now_s() + T_QMP;
	int left;

	if (c->qmp < 0) {
		text_printf(t, "no monitor: this host has none the runner can read\n");
		snprintf(f->note, sizeof(f->note), "no QEMU monitor");
		return;
	}
	if (qmp_open(&q, c->qmp, T_QMP_CMD * 1000, err, sizeof(err))) {
		text_printf(t, "the monitor did not answer: %s\n", err);
		snprintf(f->note, sizeof(f->note), "QEMU's monitor did not answer (%s)", err);
		qmp_close(&q);
		return;
	}
	f->monitor = true;
	for (unsigned int i = 0; i < c->ncpus + 4; i++) {
		if (i == 0)
			snprintf(cmd, sizeof(cmd), "info registers -a");
		else if (i <= c->ncpus)
			snprintf(cmd, sizeof(cmd), "info lapic %u", c->apic_ids ? c->apic_ids[i - 1] : i - 1);
		else
			snprintf(cmd, sizeof(cmd), "%s",
				 (const char *[]){ "info irq", "info pic", "info cpus" }[i - c->ncpus - 1]);
		left = (int)((deadline - now_s()) * 1000);
		if (left <= 0) {
			text_printf(t, "\n(qemu) %s\nnot asked: the monitor's %d s were up\n", cmd, T_QMP);
			continue;
		}
		char *out = qmp_hmp(&q, cmd, left < T_QMP_CMD * 1000 ? left : T_QMP_CMD * 1000, err,
				    sizeof(err));

		text_printf(t, "\n(qemu) %s\n", cmd);
		if (out) {
			text_add(t, out, strlen(out));
			free(out);
		} else {
			text_printf(t, "no answer: %s\n", err);
			/* A channel that timed out or broke has nothing more to say. */
			if (strncmp(err, "QMP error", 9)) {
				snprintf(f->note, sizeof(f->note), "QEMU's monitor stopped answering (%s)",
					 err);
				break;
			}
		}
	}
	qmp_close(&q);
}

/* ---- Xen's debug keys -------------------------------------------------- */

/* The console into T (and on into console.log) for at most MAX seconds,
 * until QUIET seconds pass without output.  1 when the console ended
 * (QEMU is gone), else 0. */
static int pump(const struct stall_capture *c, struct text *t, double max, double quiet)
{
	double end = now_s() + max, last = now_s();

	if (c->con_out < 0)
		return 0;
	for (;;) {
		double n = now_s(), until = end < last + quiet ? end : last + quiet;
		struct pollfd p = { .fd = c->con_out, .events = POLLIN };
		char buf[8192];

		if (n >= until)
			return 0;
		/* A file is always readable: its end only means nothing yet. */
		int r = c->con_follow ? 1 : poll(&p, 1, (int)((until - n) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t got = read(c->con_out, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got == 0 && c->con_follow) {
			nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000L }, NULL);
			continue;
		}
		if (got <= 0)
			return 1;   /* QEMU is gone */
		if (c->log >= 0)
			host_log_write(c->log, buf, (size_t)got);
		text_add(t, buf, (size_t)got);
		last = now_s();
	}
}

static int press(const struct stall_capture *c, const char *keys, size_t n)
{
	return c->con_in >= 0 ? host_log_write(c->con_in, keys, n) : -1;
}

static void keys_step(const struct stall_capture *c, struct stall_found *f, struct text *t)
{
	const char ctrl_a[3] = { 1, 1, 1 };
	bool to_xen = false;

	if (c->con_in < 0) {
		text_printf(t, "(no serial input: no debug keys)\n");
		return;
	}
	/* Ctrl-A three times moves the serial input on (dom0, ..., Xen). */
	for (int i = 0; i < N_SWITCH && !to_xen; i++) {
		size_t from = t->len;

		if (press(c, ctrl_a, sizeof(ctrl_a)))
			break;
		if (pump(c, t, T_SWITCH, c->key_quiet_s > 0 ? c->key_quiet_s : 1.0)) {
			snprintf(f->ended_after, sizeof(f->ended_after), "switch");
			break;
		}
		const char *s = text_str(t) + from, *last = NULL, *p = s;

		while ((p = strstr(p, "*** Serial input to")))
			last = p++;
		if (!last)
			break;   /* no answer: the keys are sent anyway */
		to_xen = !strncmp(last, "*** Serial input to Xen", 23);
	}
	for (const char *k = KEYS; *k && !f->ended_after[0]; k++) {
		if (press(c, k, 1))
			break;
		if (pump(c, t, *k == 'd' ? T_KEY_D : T_KEY, c->key_quiet_s > 0 ? c->key_quiet_s : T_QUIET))
			snprintf(f->ended_after, sizeof(f->ended_after), "%c", *k);
	}
	f->xen_answered = strstr(text_str(t), "'d' pressed") || strstr(text_str(t), "*** Dumping");
}

/* ---- the whole capture ------------------------------------------------- */

static void add_trace_files(const char *workdir, json_t *files)
{
	DIR *d = opendir(workdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 7 && !strcmp(e->d_name + n - 7, ".xtrace"))
			json_array_append_new(files, json_string(e->d_name));
	}
	closedir(d);
}

static int put(const char *dir, const char *name, const struct text *t, json_t *files,
	       char *err, size_t errlen)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sio_write_file(path, text_str(t), t->len, 0644, err, errlen))
		return -1;
	json_array_append_new(files, json_string(name));
	return 0;
}

int stall_capture(const struct stall_capture *c, struct stall_found *f, char *err, size_t errlen)
{
	char dir[4200], path[4300];
	struct text host = { 0 }, mon = { 0 }, keys = { 0 };
	json_t *sum, *files = json_array(), *traces = json_array();
	double t0 = now_s();
	int rc = -1;

	memset(f, 0, sizeof(*f));
	snprintf(dir, sizeof(dir), "%s/" STALL_DIR, c->workdir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	host_step(c, f, &host);
	qmp_step(c, f, &mon);
	keys_step(c, f, &keys);
	if (f->ended_after[0]) {
		bool sw = !strcmp(f->ended_after, "switch");

		snprintf(f->note + strlen(f->note), sizeof(f->note) - strlen(f->note),
			 "%sQEMU ended during the debug keys, after %s%s%s: the host went on once "
			 "they began (console.log has what it did)", f->note[0] ? "; " : "",
			 sw ? "" : "'", sw ? "the switch to Xen's input" : f->ended_after,
			 sw ? "" : "'");
	} else if (c->con_in >= 0 && !f->xen_answered) {
		const char *no = "Xen did not answer its debug keys (no \"'d' pressed\"): CPUs "
			"spinning with interrupts off?";

		if (f->note[0])
			snprintf(f->note + strlen(f->note), sizeof(f->note) - strlen(f->note),
				 "; %s", no);
		else
			snprintf(f->note, sizeof(f->note), "%s", no);
	}
	f->took_s = now_s() - t0;
	if (host.oom || mon.oom || keys.oom) {
		snprintf(err, errlen, "%s: out of memory", dir);
		goto out;
	}
	if (put(dir, "host.txt", &host, files, err, errlen) ||
	    put(dir, "qemu-monitor.txt", &mon, files, err, errlen) ||
	    put(dir, "xen-keys.log", &keys, files, err, errlen))
		goto out;
	add_trace_files(c->workdir, traces);
	json_array_append_new(files, json_string("summary.json"));
	sum = json_pack("{s:s, s:f, s:f, s:f, s:s, s:o, s:b, s:b, s:i, s:i, s:f, s:o, s:o}",
			"reason", c->reason, "after_s", c->after_s,
			"quiet_s", c->track ? c->after_s - c->track->t_last : 0.0,
			"window_s", c->window_s,
			"phase", c->track ? c->track->phase : "boot",
			"last_line", sio_json_str(c->track ? c->track->last_line : ""),
			"xen_answered", f->xen_answered, "monitor", f->monitor,
			"vcpus_running", (int)f->vcpus_running, "vcpus_idle", (int)f->vcpus_idle,
			"capture_s", f->took_s, "files", files, "traces", traces);
	files = traces = NULL;
	if (!sum) {
		snprintf(err, errlen, "%s: summary.json: out of memory", dir);
		goto out;
	}
	if (f->note[0])
		json_object_set_new(sum, "note", sio_json_str(f->note));
	if (f->ended_after[0])
		json_object_set_new(sum, "ended_after_key", json_string(f->ended_after));
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	rc = sio_write_json(path, sum, JSON_INDENT(1) | JSON_SORT_KEYS, err, errlen);
	json_decref(sum);
out:
	json_decref(files);
	json_decref(traces);
	free(host.s);
	free(mon.s);
	free(keys.s);
	return rc;
}
