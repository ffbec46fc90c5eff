/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The host this command runs on: a Xen dom0, in the x2APIC mode it booted.
 * The agent runs here as a child process; a run whose mode is not the one
 * the hypervisor selected fails at once, before any workload, with a line
 * that says what was booted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/backends/reboot.h"
#include "runner/util.h"
#include "lib/safeio.h"

const char *host_agent_path(void)
{
	static char buf[PATH_MAX];
	const char *e = getenv("IPIBENCH_AGENT");

	if (e && *e)
		return e;
	snprintf(buf, sizeof(buf), "%s/bin/ipibench-agent", build_dir());
	return buf;
}

int host_check_dom0(char *err, size_t errlen)
{
	char caps[256] = "";
	FILE *f = fopen("/proc/xen/capabilities", "r");

	if (!f) {
		snprintf(err, errlen, "this host is not a Xen dom0: /proc/xen/capabilities: %s "
			 "(boot it under Xen, with xenfs mounted on /proc/xen)", strerror(errno));
		return -1;
	}
	if (!fgets(caps, sizeof(caps), f))
		caps[0] = '\0';
	fclose(f);
	if (!strstr(caps, "control_d")) {
		snprintf(err, errlen, "this host is a Xen guest, not dom0 "
			 "(/proc/xen/capabilities has no control_d)");
		return -1;
	}
	return 0;
}

static const char *agent_genapic(const json_t *a)
{
	const char *g = json_string_value(json_object_get(json_object_get(a, "hv"), "genapic"));

	return g ? g : json_string_value(json_object_get(a, "genapic"));
}

int host_agent_exec(const struct host_opts *o, const char *job, const char *outdir,
		    const char *logname, struct host_result *r, json_t **agent)
{
	const char *exe = host_agent_path();
	char logpath[PATH_MAX + 64], apath[PATH_MAX + 64], line[2048];
	size_t llen = 0;
	int pfd[2], st = 0;
	double t0 = now_s();
	pid_t pid;
	int log;
	char why[512];

	*agent = NULL;
	if (access(exe, X_OK)) {
		host_fail(r, "agent %s: %s (build it with 'make build' or set IPIBENCH_AGENT)",
		     exe, strerror(errno));
		return -1;
	}
	snprintf(logpath, sizeof(logpath), "%s/%s", outdir, logname);
	snprintf(apath, sizeof(apath), "%s/agent.json", outdir);
	unlink(apath);
	if ((log = host_log_and_pipe(logpath, pfd, r)) < 0)
		return -1;
	{
		/* -o: what an agent of any version takes (--output, once --out) */
		char *args[] = { (char *)exe, "-o", (char *)outdir, "--job", (char *)job, NULL };

		if (!job)
			args[3] = NULL;
		pid = host_spawn(args, pfd[1]);
	}
	close(pfd[1]);
	if (pid < 0) {
		host_fail(r, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(log);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		char buf[4096];
		ssize_t got;

		if (now_s() - t0 > o->timeout_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			close(pfd[0]);
			close(log);
			host_fail(r, "the agent did not finish in %us; killed, see %s", o->timeout_s, logpath);
			return -1;
		}
		if (poll(&p, 1, 500) <= 0)
			continue;
		got = read(pfd[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (host_log_write(log, buf, (size_t)got)) {   /* as it arrives */
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			close(pfd[0]);
			close(log);
			host_fail(r, "%s: %s", logpath, strerror(errno));
			return -1;
		}
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n' && llen + 1 < sizeof(line)) {
				line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			if (job && !strncmp(line, "ipibench: ", 10))
				host_progress(o, "        ", "agent: %s", line + 10);
		}
	}
	close(pfd[0]);
	close(log);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->agent_rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->t_done = now_s() - t0;
	*agent = sio_load_json(apath, SIO_MAX_JSON, why, sizeof(why));
	if (!*agent) {
		host_fail(r, "the agent (exit status %d) left no readable agent.json (%s); see %s",
		     r->agent_rc, why, logpath);
		return -1;
	}
	const char *g = agent_genapic(*agent);
	const char *cl = json_string_value(json_object_get(json_object_get(*agent, "xen"), "cmdline"));
	snprintf(r->genapic, sizeof(r->genapic), "%s", g ? g : "");
	snprintf(r->xen_cmdline, sizeof(r->xen_cmdline), "%s", cl ? cl : "");
	return 0;
}

/* The x2apic-mode= word of a Xen command line, or "" (for messages). */
static void cmdline_mode(const char *cl, char *buf, size_t len)
{
	const char *p = strstr(cl, "x2apic-mode=");

	buf[0] = '\0';
	if (p && (p == cl || p[-1] == ' '))
		snprintf(buf, len, " (%.*s on its command line)", (int)strcspn(p, " "), p);
}

int host_probe(const struct host_opts *o, struct host_result *r)
{
	char probe[PATH_MAX + 16];
	json_t *a = NULL;

	snprintf(probe, sizeof(probe), "%s/probe", o->workdir);
	if (run_mkdirs(probe)) {
		host_fail(r, "%s: %s", probe, strerror(errno));
		return -1;
	}
	if (host_agent_exec(o, NULL, probe, "agent.log", r, &a))
		return -1;
	json_decref(a);
	return 0;
}

static int local_run(const struct host_opts *o, struct host_result *r)
{
	char job[PATH_MAX + 16], how[96];
	json_t *a = NULL;
	double t0 = now_s();

	memset(r, 0, sizeof(*r));
	r->agent_rc = -1;
	if (host_check_dom0(r->error, sizeof(r->error)))
		return -1;
	/* 1. What did this host boot?  (A quick agent run without a job.) */
	if (host_probe(o, r))
		return -1;
	host_progress(o, "        ", "local: Xen selected %s", r->genapic[0] ? r->genapic : "no APIC driver");
	if (strcmp(r->genapic, mode_genapic(o->mode))) {
		cmdline_mode(r->xen_cmdline, how, sizeof(how));
		host_fail(r, "this host booted Xen with %s%s, not %s mode: the local backend "
		     "runs in the mode the host booted (use backend = reboot to switch)",
		     r->genapic[0] ? r->genapic : "no known APIC driver", how, o->mode);
		return -1;
	}
	/* 2. The job. */
	snprintf(job, sizeof(job), "%s/job.json", o->workdir);
	if (host_agent_exec(o, access(job, R_OK) ? NULL : job, o->workdir, "console.log", r, &a))
		return -1;
	json_decref(a);
	r->t_done = now_s() - t0;
	host_progress(o, "        ", "local: agent done (rc=%d)", r->agent_rc);
	return 0;
}

static void local_describe(const struct host_opts *o, char *buf, size_t len)
{
	(void)o;
	host_describe_real("local backend", buf, len);
}

/* This machine must be a Xen dom0 (read from n->xen_caps); the agent runs
 * here (make agent). */
static int local_needs(const void *settings, struct host_needs *n, char *err, size_t errlen)
{
	const char *caps = n->xen_caps ? n->xen_caps : "/proc/xen/capabilities";
	char line[256] = "";
	FILE *f = fopen(caps, "r");

	(void)settings;
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	if (!f || !strstr(line, "control_d")) {
		snprintf(err, errlen, "a Xen dom0 (%s says control_d); this machine is not one", caps);
		return -1;
	}
	host_needs_add(n, "agent");
	return 0;
}

const struct host_backend_ops backend_local = {
	.name = "local",
	.help = "this host: a Xen dom0, in the x2APIC mode it booted",
	.flags = HB_RUNS_HERE,       /* [guest] runs here (runner/guest.h) */
	.describe_key = "description",
	.run = local_run,
	.describe = local_describe,
	.needs = local_needs,
};
