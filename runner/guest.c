/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One guest run through xl (runner/guest.h says its steps), with every
 * wait bounded and the guest, its load and what dom0 was given for it
 * released on every way out.  What differs between kinds of guest is a
 * row of kinds[] below.
 */
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner/guest.h"
#include "runner/util.h"
#include "lib/safeio.h"
#include "lib/spawn.h"

/* The console is read whole at each look; a guest that prints more is refused. */
#define CONSOLE_MAX (16u << 20)
/* How often the waits look (console, children, the signal flag): at
 * first after POLL_FIRST_NS, then twice as long each time, up to POLL_NS. */
#define POLL_NS 100000000L
#define POLL_FIRST_NS 1000000L

static const char *const outcome_names[] = {
	[GO_OK] = "ok",
	[GO_START_TIMEOUT] = "start-timeout",
	[GO_DIED] = "died",
	[GO_TRACE_FAILED] = "trace-failed",
	[GO_DONE_TIMEOUT] = "done-timeout",
	[GO_NO_POWEROFF] = "no-poweroff",
	[GO_ERROR] = "error",
	[GO_DOM0_FAILED] = "dom0-failed",
	[GO_LOAD_FAILED] = "load-failed",
	[GO_INTERRUPTED] = "interrupted",
};

const char *guest_outcome_name(enum guest_outcome o)
{
	return (size_t)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ? outcome_names[o] : "?";
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t caught;
static const int caught_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS (sizeof(caught_sigs) / sizeof(caught_sigs[0]))

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
}

static void catch_signals(struct sigaction old[NSIGS])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: a sleep returns at once */
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(caught_sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[NSIGS])
{
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(caught_sigs[i], &old[i], NULL);
}

void guest_reraise(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- children ------------------------------------------------------------ */

/* A bound of guest_spec's, in seconds. */
static double ms_s(unsigned int ms)
{
	return ms / 1000.0;
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/*
 * One wait of a loop that looks for something to happen: *NS (start it at
 * POLL_FIRST_NS), then twice as long next time, at most POLL_NS.  What
 * happens at once (xl list's answer, ping's summary on SIGINT, a console
 * line a moment after xl create) is seen within a few milliseconds; what
 * takes seconds (a guest's boot) is looked for every POLL_NS as before.
 */
static void nap_up(long *ns)
{
	struct timespec ts = { 0, *ns };

	nanosleep(&ts, NULL);
	*ns = *ns * 2 < POLL_NS ? *ns * 2 : POLL_NS;
}

/*
 * Start ARGV (PATH lookup) in a process group of its own, stdin from
 * /dev/null, stdout and stderr appended to OUT.  The pid, or -1.
 */
static pid_t spawn(char *const argv[], const char *out)
{
	struct sio_child c = SIO_CHILD_INIT;
	int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	c.argv = (const char *const *)argv;
	c.out = fd;
	c.err_to_out = 1;
	c.new_pgroup = true;
	c.die_with_parent = true;
	if (sio_child_start(&c))
		c.pid = -1;
	close(fd);
	return c.pid;
}

/* Kill PID's process group and reap PID. */
static void stop_child(pid_t pid)
{
	struct sio_child c = SIO_CHILD_INIT;

	c.pid = pid;
	c.new_pgroup = true;   /* spawn() gave it a group of its own */
	sio_child_kill(&c);
}

enum { RB_EXITED, RB_TIMEOUT, RB_SIGNAL, RB_ERROR };

/*
 * Run ARGV to its end, at most SECS seconds (then its group is killed);
 * when STOPPABLE, also stopped by a caught signal.  *code: its exit status
 * (128 + signal when killed by one).
 */
static int run_bounded(char *const argv[], const char *out, double secs, int stoppable,
		       int *code)
{
	double end = now_s() + secs;
	pid_t pid = spawn(argv, out);
	long wait_ns = POLL_FIRST_NS;   /* xl list answers in a few ms */
	int st;

	if (pid < 0)
		return RB_ERROR;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid) {
			*code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			killpg(pid, SIGKILL);   /* what it left in its group */
			return RB_EXITED;
		}
		if (w < 0 && errno != EINTR)
			return RB_ERROR;
		if (stoppable && caught) {
			stop_child(pid);
			return RB_SIGNAL;
		}
		if (now_s() >= end) {
			stop_child(pid);
			return RB_TIMEOUT;
		}
		nap_up(&wait_ns);
	}
}

/* ---- one guest ------------------------------------------------------------ */

struct run {
	const struct guest_spec *s;
	struct guest_result *r;
	char dir[PATH_MAX];          /* DIR/guests/ID */
	char xl_log[PATH_MAX + 16];
	pid_t con;                   /* xl create -c */
	double t0;
	/* The console as read so far (it grows while read: read on from
	 * where the last look stopped, never whole again). */
	int cfd;
	char *cbuf;
	size_t clen;
	/* NIC: dom0's log of modprobe and ip, ping -f, the bridge made by us. */
	char dom0_log[PATH_MAX + 16];
	pid_t ping;
	int bridge_made;
};

static void say(struct run *u, enum guest_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct run *u, enum guest_outcome o, const char *fmt, ...)
{
	va_list ap;

	u->r->outcome = o;
	va_start(ap, fmt);
	vsnprintf(u->r->error, sizeof(u->r->error), fmt, ap);
	va_end(ap);
}

/* 1: xl lists the domain; 0: it does not; -1: xl list did not answer;
 * -2: there is no xl to run (exit 127). */
static int listed(struct run *u)
{
	char *argv[] = { "xl", "list", (char *)u->s->name, NULL };
	int code = 0;

	if (run_bounded(argv, "/dev/null", ms_s(u->s->xl_ms), 0, &code) != RB_EXITED)
		return -1;
	return code == 127 ? -2 : code == 0;
}

/* xl destroy unless it is gone, then xl list says it is: r->gone. */
static void destroy(struct run *u)
{
	char *argv[] = { "xl", "destroy", (char *)u->s->name, NULL };
	int code, l = listed(u);

	if (l != 0 && l != -2) {
		u->r->destroyed = 1;
		run_bounded(argv, u->xl_log, ms_s(u->s->xl_ms), 0, &code);
		for (int i = 0; i < 5 && (l = listed(u)) != 0; i++)
			sleep(1);
	}
	u->r->gone = l == 0;
	if (u->r->gone && u->r->t_gone < 0)
		u->r->t_gone = now_s() - u->t0;
	stop_child(u->con);   /* the console reader, once there is nothing to read */
	u->con = 0;
}

/* Whether the console has MARK: what was written since the last look is
 * read on; -1 when it cannot be read or is more than CONSOLE_MAX bytes. */
static int console_has(struct run *u, const char *mark)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(u->cfd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if (u->clen + (size_t)n > CONSOLE_MAX)
			return -1;
		char *b = realloc(u->cbuf, u->clen + (size_t)n + 1);
		if (!b)
			return -1;
		u->cbuf = b;
		memcpy(u->cbuf + u->clen, chunk, (size_t)n);
		u->clen += (size_t)n;
		u->cbuf[u->clen] = '\0';
	}
	return u->cbuf && memmem(u->cbuf, u->clen, mark, strlen(mark)) != NULL;
}

/*
 * Wait for MARK on the console until END (monotonic): 0 seen; else the
 * outcome is set (timeout TMO, the guest gone, a signal, an error).
 */
static int wait_mark(struct run *u, const char *mark, double end, enum guest_outcome tmo)
{
	double next_list = now_s() + 10;
	long ns = POLL_FIRST_NS;

	for (;;) {
		int has = console_has(u, mark);

		if (has > 0)
			return 0;
		if (has < 0) {
			say(u, GO_ERROR, "%s: cannot read it, or more than %u bytes", u->r->console,
			    CONSOLE_MAX);
			return -1;
		}
		if (caught) {
			say(u, GO_INTERRUPTED, "signal %d before %s", (int)caught, mark);
			u->r->signal = caught;
			return -1;
		}
		/* xl create -c ends when the guest's console does. */
		int st;
		if (u->con > 0 && waitpid(u->con, &st, WNOHANG) == u->con) {
			u->con = 0;
			if (console_has(u, mark) > 0)
				return 0;
			if (WIFEXITED(st) && WEXITSTATUS(st))
				say(u, GO_DIED, "xl create -c: exit status %d before %s (%s)",
				    WEXITSTATUS(st), mark, u->r->console);
			else
				say(u, GO_DIED, "the guest's console ended before %s (%s)", mark,
				    u->r->console);
			return -1;
		}
		if (now_s() >= next_list) {
			if (!listed(u)) {
				if (console_has(u, mark) > 0)
					return 0;
				say(u, GO_DIED, "the guest was gone before %s (%s)", mark,
				    u->r->console);
				return -1;
			}
			next_list = now_s() + 10;
		}
		if (now_s() >= end) {
			say(u, tmo, "no %s on the console within %g s of xl create (%s)", mark,
			    ms_s(u->s->timeout_ms), u->r->console);
			return -1;
		}
		nap_up(&ns);
	}
}

/* One xentrace recording of MASK into DIR/guests/ID/FILE.xt: 0, or the outcome set. */
static int trace(struct run *u, const char *file, unsigned long mask, char *rel, size_t rlen)
{
	char m[16], secs[16], path[PATH_MAX + 32], log[PATH_MAX + 32];
	char *argv[] = { "xentrace", "-D", "-e", m, "-T", secs, path, NULL };
	struct stat st;
	int code = 0, rc;

	snprintf(m, sizeof(m), "0x%08lx", mask);
	snprintf(secs, sizeof(secs), "%u", u->s->g->trace_secs);
	snprintf(path, sizeof(path), "%s/%s.xt", u->dir, file);
	snprintf(log, sizeof(log), "%s/xentrace-%s.log", u->dir, file);
	rc = run_bounded(argv, log, u->s->g->trace_secs + ms_s(u->s->trace_slack_ms), 1, &code);
	if (rc == RB_SIGNAL) {
		say(u, GO_INTERRUPTED, "signal %d during xentrace -e %s", (int)caught, m);
		u->r->signal = caught;
		return -1;
	}
	if (rc == RB_ERROR) {
		say(u, GO_ERROR, "xentrace: cannot start it: %s", strerror(errno));
		return -1;
	}
	if (rc == RB_TIMEOUT) {
		say(u, GO_TRACE_FAILED, "xentrace -e %s -T %s: still running after %g s, killed",
		    m, secs, u->s->g->trace_secs + ms_s(u->s->trace_slack_ms));
		return -1;
	}
	if (code) {
		say(u, GO_TRACE_FAILED, "xentrace -e %s: exit status %d (guests/%s/xentrace-%s.log)",
		    m, code, u->s->id, file);
		return -1;
	}
	if (stat(path, &st) || !st.st_size) {
		say(u, GO_TRACE_FAILED, "xentrace -e %s: no trace, or an empty one, in %s", m, path);
		return -1;
	}
	snprintf(rel, rlen, "guests/%s/%s.xt", u->s->id, file);
	return 0;
}

/* After the end marker: the guest powers itself off (on_poweroff = destroy). */
static int wait_gone(struct run *u)
{
	double end = now_s() + ms_s(u->s->poweroff_ms);
	long ns = POLL_FIRST_NS;

	while (now_s() < end && !caught) {
		if (u->con > 0 && waitpid(u->con, NULL, WNOHANG) == u->con)
			u->con = 0;
		if (!u->con && listed(u) == 0) {
			u->r->t_gone = now_s() - u->t0;
			return 0;
		}
		nap_up(&ns);
	}
	if (caught) {
		say(u, GO_INTERRUPTED, "signal %d while the guest powered off", (int)caught);
		u->r->signal = caught;
		return -1;
	}
	if (listed(u) == 0) {
		u->r->t_gone = now_s() - u->t0;
		return 0;
	}
	say(u, GO_NO_POWEROFF, "the workload ended but the guest did not power off within %g s",
	    ms_s(u->s->poweroff_ms));
	return -1;
}

/* ---- an HVM guest's NIC: dom0's side and the load -------------------------- */

#define LOAD_LOG_MAX (1u << 20)
/* ping -f after SIGINT: its summary within this, else killed. */
#define PING_STOP_S 10
/* ab beyond its -t. */
#define AB_SLACK_S 60

/* Run a dom0 command into u->dom0_log: its exit status, or -1 (not run, or
 * hung past xl_ms: killed). */
static int dom0_cmd(struct run *u, char *const argv[])
{
	int code = 0;

	if (run_bounded(argv, u->dom0_log, ms_s(u->s->xl_ms), 0, &code) != RB_EXITED)
		return -1;
	return code;
}

/* "exit status N" or "did not run or end": for messages. */
static const char *status_text(char *buf, size_t len, int code)
{
	if (code < 0)
		snprintf(buf, len, "did not run or end within its time");
	else
		snprintf(buf, len, "exit status %d", code);
	return buf;
}

/* Before xl create: xen-netback (the vif backend libxl sets up beside the
 * emulated NIC) and the bridge with dom0's address. */
static int nic_prepare(struct run *u)
{
	const struct cfg_guest *g = u->s->g;
	char addr[40], st[64], ipout[PATH_MAX + 32], *text = NULL;
	char *modprobe[] = { "modprobe", "xen-netback", NULL };
	char *show[] = { "ip", "link", "show", "dev", CFG_GUEST_BRIDGE, NULL };
	char *add[] = { "ip", "link", "add", "name", CFG_GUEST_BRIDGE, "type", "bridge", NULL };
	char *addr_add[] = { "ip", "addr", "add", addr, "dev", CFG_GUEST_BRIDGE, NULL };
	char *up[] = { "ip", "link", "set", "dev", CFG_GUEST_BRIDGE, "up", NULL };
	char *addrs[] = { "ip", "-4", "-o", "addr", "show", "dev", CFG_GUEST_BRIDGE, NULL };
	int code;
	size_t len;

	snprintf(u->dom0_log, sizeof(u->dom0_log), "%s/dom0.log", u->dir);
	snprintf(addr, sizeof(addr), "%s/%d", g->dom0_address, CFG_GUEST_NIC_PREFIX);
	if ((code = dom0_cmd(u, modprobe))) {
		say(u, GO_DOM0_FAILED, "modprobe xen-netback: %s (guests/%s/dom0.log)",
		    status_text(st, sizeof(st), code), u->s->id);
		return -1;
	}
	code = dom0_cmd(u, show);
	if (code == 127 || code < 0) {
		say(u, GO_DOM0_FAILED, "ip link show dev %s: %s (iproute2 installed?)", CFG_GUEST_BRIDGE,
		    status_text(st, sizeof(st), code));
		return -1;
	}
	if (code) {
		/* Not there: ours to make, and to remove at the end. */
		if ((code = dom0_cmd(u, add))) {
			say(u, GO_DOM0_FAILED, "ip link add name %s type bridge: %s (guests/%s/dom0.log)",
			    CFG_GUEST_BRIDGE, status_text(st, sizeof(st), code), u->s->id);
			return -1;
		}
		u->bridge_made = 1;
		u->r->bridge = "made";
		if ((code = dom0_cmd(u, addr_add)) || (code = dom0_cmd(u, up))) {
			say(u, GO_DOM0_FAILED, "%s: giving it %s and bringing it up: %s (guests/%s/dom0.log)",
			    CFG_GUEST_BRIDGE, addr, status_text(st, sizeof(st), code), u->s->id);
			return -1;
		}
		return 0;
	}
	/* There: it must carry dom0's address already (someone else's bridge
	 * is not changed). */
	u->r->bridge = "there";
	snprintf(ipout, sizeof(ipout), "%s/ip-addr.log", u->dir);
	unlink(ipout);
	int rc = run_bounded(addrs, ipout, ms_s(u->s->xl_ms), 0, &code);
	if (rc != RB_EXITED || code || sio_read_file(ipout, LOAD_LOG_MAX, &text, &len, NULL, 0)) {
		say(u, GO_DOM0_FAILED, "ip -4 -o addr show dev %s: %s", CFG_GUEST_BRIDGE,
		    status_text(st, sizeof(st), rc == RB_EXITED ? code : -1));
		return -1;
	}
	char want[64];
	snprintf(want, sizeof(want), " inet %s ", addr);
	int has = strstr(text, want) != NULL;
	free(text);
	if (!has) {
		say(u, GO_DOM0_FAILED, "the bridge %s is there without dom0's %s (ip -4 -o addr show "
		    "dev %s): ipibench changes only a bridge it made", CFG_GUEST_BRIDGE, addr,
		    CFG_GUEST_BRIDGE);
		return -1;
	}
	return 0;
}

/* After the start marker: the guest's first ping answer, then the flood. */
static int nic_load_start(struct run *u)
{
	const struct cfg_guest *g = u->s->g;
	char first[PATH_MAX + 32], log[PATH_MAX + 32], w[16];
	char *ping1[] = { "ping", "-c", "1", "-W", "2", (char *)g->nic_address, NULL };
	char *flood[] = { "ping", "-q", "-f", "-w", w, (char *)g->nic_address, NULL };
	double end = now_s() + ms_s(u->s->ping_wait_ms);
	int code = 0, rc;

	snprintf(first, sizeof(first), "%s/ping-first.log", u->dir);
	for (;;) {
		rc = run_bounded(ping1, first, 10, 1, &code);
		if (rc == RB_SIGNAL) {
			say(u, GO_INTERRUPTED, "signal %d before the guest's first ping answer", (int)caught);
			u->r->signal = caught;
			return -1;
		}
		if (rc == RB_EXITED && code == 0)
			break;
		if (rc == RB_EXITED && code == 127) {
			say(u, GO_LOAD_FAILED, "ping: cannot run it (iputils-ping installed?)");
			return -1;
		}
		if (now_s() >= end) {
			say(u, GO_LOAD_FAILED, "the guest does not answer ping at %s within %g s of its "
			    "start marker (guests/%s/ping-first.log)", g->nic_address, ms_s(u->s->ping_wait_ms),
			    u->s->id);
			return -1;
		}
		for (int i = 0; i < 5 && !caught; i++)
			nap();
	}
	snprintf(w, sizeof(w), "%u", g->ping_secs);
	snprintf(log, sizeof(log), "%s/ping.log", u->dir);
	snprintf(u->r->load.ping_log, sizeof(u->r->load.ping_log), "guests/%s/ping.log", u->s->id);
	unlink(log);
	if ((u->ping = spawn(flood, log)) < 0) {
		u->ping = 0;
		say(u, GO_ERROR, "ping -f: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A load log (guests/ID/NAME) read whole and parsed into the run's load by
 * PARSE: 0, or -1 said (the log named). */
static int load_parse(struct run *u, const char *rel,
		      int (*parse)(const char *, struct guest_load *, char *, size_t))
{
	char path[PATH_MAX + 300], err[512], *text = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", u->s->dir, rel);
	if (sio_read_file(path, LOAD_LOG_MAX, &text, &len, err, sizeof(err))) {
		say(u, GO_LOAD_FAILED, "%s", err);
		return -1;
	}
	rc = parse(text, &u->r->load, err, sizeof(err));
	free(text);
	if (rc)
		say(u, GO_LOAD_FAILED, "%s: %s", rel, err);
	return rc ? -1 : 0;
}

/* After the recordings: the flood stopped (its summary parsed), then ab. */
static int nic_load_end(struct run *u)
{
	const struct cfg_guest *g = u->s->g;
	struct guest_load *l = &u->r->load;
	char secs[16], url[64], log[PATH_MAX + 32], err[300];
	char *ab[] = { "ab", "-q", "-t", secs, "-c", "1", url, NULL };
	int st, code = -1, rc;

	if (waitpid(u->ping, &st, WNOHANG) == u->ping) {
		u->ping = 0;
		say(u, GO_LOAD_FAILED, "ping -f ended (exit status %d) before the recordings did "
		    "(ping_secs = %u; %s)", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
		    g->ping_secs, l->ping_log);
		return -1;
	}
	kill(u->ping, SIGINT);   /* ping's summary comes on SIGINT */
	double end = now_s() + PING_STOP_S;
	for (long ns = POLL_FIRST_NS;; nap_up(&ns)) {
		pid_t w = waitpid(u->ping, &st, WNOHANG);

		if (w == u->ping) {
			code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			killpg(u->ping, SIGKILL);
			u->ping = 0;
			break;
		}
		if (now_s() >= end)
			break;
	}
	if (u->ping) {
		stop_child(u->ping);
		u->ping = 0;
		say(u, GO_LOAD_FAILED, "ping -f did not end within %d s of SIGINT (killed)", PING_STOP_S);
		return -1;
	}
	if (load_parse(u, l->ping_log, guest_ping_summary))
		return -1;
	if (code) {
		say(u, GO_LOAD_FAILED, "ping -f: exit status %d (%s)", code, l->ping_log);
		return -1;
	}
	snprintf(secs, sizeof(secs), "%u", g->ab_secs);
	snprintf(url, sizeof(url), "http://%s/", g->nic_address);
	snprintf(log, sizeof(log), "%s/ab.log", u->dir);
	snprintf(l->ab_log, sizeof(l->ab_log), "guests/%s/ab.log", u->s->id);
	unlink(log);
	rc = run_bounded(ab, log, g->ab_secs + AB_SLACK_S, 1, &code);
	if (rc == RB_SIGNAL) {
		say(u, GO_INTERRUPTED, "signal %d during ab", (int)caught);
		u->r->signal = caught;
		return -1;
	}
	if (rc != RB_EXITED || code) {
		say(u, GO_LOAD_FAILED, "ab -t %s -c 1 %s: %s (%s)", secs, url,
		    rc == RB_TIMEOUT ? "still running after its time, killed" :
		    rc == RB_EXITED ? status_text(err, sizeof(err), code) : "cannot start it", l->ab_log);
		return -1;
	}
	return load_parse(u, l->ab_log, guest_ab_summary);
}

/* Every way out: the flood stopped, the bridge removed if it is ours. */
static void nic_release(struct run *u)
{
	char *del[] = { "ip", "link", "del", "dev", CFG_GUEST_BRIDGE, NULL };

	stop_child(u->ping);
	u->ping = 0;
	if (u->bridge_made && dom0_cmd(u, del) == 0)
		u->bridge_made = 0;
}

/*
 * What a kind of guest adds to the lifecycle (each may be NULL): before
 * xl create, after the start marker (before the recordings), after them,
 * and on every way out (after the guest is gone).
 */
struct guest_kind {
	int (*prepare)(struct run *u);
	int (*before_trace)(struct run *u);
	int (*after_trace)(struct run *u);
	void (*release)(struct run *u);
};
enum { KIND_WORKLOAD, KIND_NIC };
static const struct guest_kind kinds[] = {
	[KIND_WORKLOAD] = { NULL, NULL, NULL, NULL },   /* the guest's own (ipbipi) */
	[KIND_NIC] = { nic_prepare, nic_load_start, nic_load_end, nic_release },
};

static const struct guest_kind *kind_of(const struct cfg_guest *g)
{
	return &kinds[cfg_guest_nic_runs(g) ? KIND_NIC : KIND_WORKLOAD];
}

/* A held guest's end (cfg_guest_held()): destroyed after its workload. */
#define HELD_REASON "held after IPB-GUEST-DONE (ipb.hold) and destroyed: an HVM run's end " \
	"(config.c guest_types[].held), which does not wait on the device model's power-off"

static int lifecycle(struct run *u)
{
	const struct guest_spec *s = u->s;
	struct guest_result *r = u->r;
	char xl[4096], path[PATH_MAX + 300], err[512];
	char *argv[] = { "xl", "create", "-c", path, NULL };
	const struct guest_kind *kind = kind_of(s->g);
	double end;

	if (snprintf(u->dir, sizeof(u->dir), "%s/guests/%s", s->dir, s->id) >= (int)sizeof(u->dir) ||
	    run_mkdirs(u->dir)) {
		say(u, GO_ERROR, "%s/guests/%s: %s", s->dir, s->id, strerror(errno));
		return -1;
	}
	snprintf(u->xl_log, sizeof(u->xl_log), "%s/xl.log", u->dir);
	if (config_guest_xl(s->g, s->name, s->kernel, s->ramdisk, xl, sizeof(xl)) < 0) {
		say(u, GO_ERROR, "the xl config does not fit in %zu bytes", sizeof(xl));
		return -1;
	}
	snprintf(r->xl_cfg, sizeof(r->xl_cfg), "guests/%s/xl.cfg", s->id);
	snprintf(path, sizeof(path), "%s/%s", s->dir, r->xl_cfg);
	if (sio_write_file(path, xl, strlen(xl), 0644, err, sizeof(err))) {
		say(u, GO_ERROR, "%s", err);
		return -1;
	}
	/* A guest of that name left by someone else is not ours to destroy. */
	int l = listed(u);
	if (l == -2) {
		say(u, GO_ERROR, "xl list: cannot run xl (exit status 127: not on PATH?)");
		return -2;
	}
	if (l != 0) {
		say(u, GO_ERROR, "a domain named %s is already there (xl list %s): destroy it first",
		    s->name, s->name);
		return -2;
	}
	if (kind->prepare && kind->prepare(u))
		return -1;
	/* -c: the console is attached before the guest's first instruction. */
	snprintf(r->console, sizeof(r->console), "guests/%s/console.log", s->id);
	char con[PATH_MAX + 300];
	snprintf(con, sizeof(con), "%s/%s", s->dir, r->console);
	close(open(con, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if ((u->cfd = open(con, O_RDONLY | O_CLOEXEC)) < 0) {
		say(u, GO_ERROR, "%s: %s", con, strerror(errno));
		return -1;
	}
	u->t0 = now_s();
	end = u->t0 + ms_s(s->timeout_ms);
	if ((u->con = spawn(argv, con)) < 0) {
		u->con = 0;
		say(u, GO_ERROR, "xl create: %s", strerror(errno));
		return -1;
	}
	if (wait_mark(u, GUEST_MARK_START, end, GO_START_TIMEOUT))
		return -1;
	r->t_start = now_s() - u->t0;
	if (kind->before_trace && kind->before_trace(u))
		return -1;
	for (double settled = now_s() + ms_s(s->settle_ms); now_s() < settled && !caught;)
		nap();
	/* The scheduler class first, then the config's mask alone (xenalyze
	 * puts HVM events without runstate records in its default domain). */
	if (trace(u, "hvm_sched", GUEST_SCHED_MASK, r->trace_sched, sizeof(r->trace_sched)) ||
	    trace(u, "hvm", s->g->trace_mask, r->trace_hvm, sizeof(r->trace_hvm)))
		return -1;
	r->t_traced = now_s() - u->t0;
	if (kind->after_trace && kind->after_trace(u))
		return -1;
	if (wait_mark(u, GUEST_MARK_DONE, end, GO_DONE_TIMEOUT))
		return -1;
	r->t_done = now_s() - u->t0;
	if (cfg_guest_held(s->g)) {
		/* Its end by design: destroyed, and gone when xl list says so
		 * (guest_run() checks). */
		r->end = "destroy";
		snprintf(r->end_reason, sizeof(r->end_reason), "%s", HELD_REASON);
		destroy(u);
		if (!r->destroyed) {   /* it was gone before: it powered off after all */
			r->end = "poweroff";
			r->end_reason[0] = '\0';
		}
		return 0;
	}
	r->end = "poweroff";
	return wait_gone(u);
}

/* A failed HVM run: the device model's log (qemu-dm-NAME.log) into
 * guests/ID/qemu-dm.log, when there is one. */
static void keep_dm_log(struct run *u)
{
	char src[PATH_MAX + 128], dst[PATH_MAX + 32], err[300], *text = NULL;
	size_t len;

	snprintf(src, sizeof(src), "%s/qemu-dm-%s.log",
		 u->s->dm_log_dir ? u->s->dm_log_dir : GUEST_DM_LOG_DIR, u->s->name);
	snprintf(dst, sizeof(dst), "%s/qemu-dm.log", u->dir);
	if (sio_read_file(src, CONSOLE_MAX, &text, &len, NULL, 0))
		return;
	if (!sio_write_file(dst, text, len, 0644, err, sizeof(err)))
		snprintf(u->r->dm_log, sizeof(u->r->dm_log), "guests/%s/qemu-dm.log", u->s->id);
	free(text);
}

int guest_run(const struct guest_spec *s, struct guest_result *r)
{
	struct sigaction old[NSIGS];
	struct run u = { .s = s, .r = r, .cfd = -1 };
	int rc;

	memset(r, 0, sizeof(*r));
	r->t_start = r->t_traced = r->t_done = r->t_gone = -1;
	catch_signals(old);
	rc = lifecycle(&u);
	if (rc == 0)
		r->outcome = GO_OK;
	/* Every way out: destroyed unless gone, and checked (-2: not ours);
	 * then what the kind of guest had from dom0 (its load, the bridge). */
	if (rc != -2)
		destroy(&u);
	else
		r->gone = 1;   /* not created by us */
	if (kind_of(s->g)->release)
		kind_of(s->g)->release(&u);
	if (rc == -1) {
		/* What Xen said of it (the guest's own early lines among them). */
		char path[PATH_MAX + 32], *argv[] = { "xl", "dmesg", NULL };
		int code;

		snprintf(path, sizeof(path), "%s/xl-dmesg.log", u.dir);
		if (run_bounded(argv, path, ms_s(s->xl_ms), 0, &code) == RB_EXITED && !code)
			snprintf(r->xl_dmesg, sizeof(r->xl_dmesg), "guests/%s/xl-dmesg.log", s->id);
		if (s->g->type == GUEST_HVM)
			keep_dm_log(&u);
	}
	stop_child(u.con);
	if (rc == 0 && !r->gone) {
		say(&u, GO_NO_POWEROFF, "xl list %s still lists the guest", s->name);
		rc = -1;
	} else if (rc && !r->gone) {
		size_t n = strlen(r->error);
		snprintf(r->error + n, sizeof(r->error) - n, "; and xl list %s still lists it "
			 "after xl destroy", s->name);
	}
	if (caught && r->outcome != GO_INTERRUPTED) {
		r->outcome = GO_INTERRUPTED;
		r->signal = caught;
		snprintf(r->error, sizeof(r->error), "signal %d", (int)caught);
	}
	if (u.cfd >= 0)
		close(u.cfd);
	free(u.cbuf);
	restore_signals(old);
	return rc == 0 && r->outcome == GO_OK ? 0 : -1;
}

/* ---- the console's counts --------------------------------------------------- */


/* The brand strings of QEMU's own CPU models (target/i386/cpu.c: qemu64,
 * qemu32, ... and TCG's max); a host model passed through keeps its own. */
static const char *const qemu_models[] = { "QEMU Virtual CPU version ", "QEMU TCG CPU version " };

int guest_hap_refused(const struct cfg_guest *g, const char *file, const char *model,
		      char *err, size_t errlen)
{
	char shown[300];

	if (!g->hap || !model)
		return 0;
	for (size_t i = 0; i < sizeof(qemu_models) / sizeof(qemu_models[0]); i++) {
		if (strncmp(model, qemu_models[i], strlen(qemu_models[i])))
			continue;
		snprintf(err, errlen, "%s:%d: paging = hap: this host's CPU is QEMU's (%s), "
			 "whose TCG SVM exits a guest's every control-register read as a CR0 read: "
			 "Xen emulates the guest's CR2 read from its own copy, 0 under HAP, and the "
			 "guest dies in its first page fault (docs/guests.md); use paging = shadow",
			 file, g->hap_line, sio_shown(shown, sizeof(shown), model));
		return 1;
	}
	return 0;
}

/* A word of the console fit for results.json: [A-Za-z0-9._+-], 1..63 bytes. */
static int word_ok(const char *w)
{
	size_t n = strlen(w);

	if (!n || n > 63)
		return 0;
	for (; *w; w++)
		if (!(*w >= 'a' && *w <= 'z') && !(*w >= 'A' && *w <= 'Z') &&
		    !(*w >= '0' && *w <= '9') && !strchr("._+-", *w))
			return 0;
	return 1;
}

json_t *guest_console_counts(const char *text)
{
	json_t *o = json_object();
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], w[64], extra;
		unsigned long long v;
		int rc;
		const char *q;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (n && line[n - 1] == '\r')
				line[n - 1] = '\0';
			if ((q = strstr(line, "IPB-GUEST-UP ")) &&
			    sscanf(q, "IPB-GUEST-UP %llu vCPUs, %63s%c", &v, w, &extra) == 2 &&
			    v >= 1 && v <= 4096 && word_ok(w)) {
				json_object_set_new(o, "vcpus", json_integer((json_int_t)v));
				json_object_set_new(o, "kernel", json_string(w));
			}
			if ((q = strstr(line, GUEST_MARK_START " ")) &&
			    sscanf(q, GUEST_MARK_START " %63s", w) == 1 && word_ok(w))
				json_object_set_new(o, "workload", json_string(w));
			if ((q = strstr(line, "ipbipi: ")) &&
			    sscanf(q, "ipbipi: %llu IPIs sent, path %63s%c", &v, w, &extra) == 2 &&
			    v <= (1ULL << 62) && word_ok(w)) {
				json_object_set_new(o, "ipis_sent", json_integer((json_int_t)v));
				json_object_set_new(o, "ipbipi_path", json_string(w));
			}
			if ((q = strstr(line, "IPB-GUEST-STOP rc=")) &&
			    (rc = sscanf(q, "IPB-GUEST-STOP rc=%llu", &v)) == 1 && v <= 255)
				json_object_set_new(o, "workload_rc", json_integer((json_int_t)v));
			if (strstr(line, GUEST_MARK_DONE))
				json_object_set_new(o, "done", json_true());
		}
		p = nl ? nl + 1 : NULL;
	}
	return o;
}

/* ---- the NIC load's summaries (untrusted text) ------------------------------ */

/*
 * Each line of TEXT in turn into LINE (LEN bytes, '\r' and '\n' cut);
 * longer lines are skipped.  *P: where the next starts; 0 at the end.
 */
static int next_line(const char **p, char *line, size_t len)
{
	while (*p && **p) {
		const char *nl = strchr(*p, '\n');
		size_t n = nl ? (size_t)(nl - *p) : strlen(*p);
		int fits = n < len;

		if (fits) {
			memcpy(line, *p, n);
			line[n] = '\0';
			if (n && line[n - 1] == '\r')
				line[n - 1] = '\0';
		}
		*p = nl ? nl + 1 : NULL;
		if (fits)
			return 1;
	}
	return 0;
}

/* A decimal count of at most 2^53 (exact in JSON's doubles too). */
static int count_ok(const char *s, char **end, unsigned long *out)
{
	unsigned long long v;

	if (!(*s >= '0' && *s <= '9'))
		return 0;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || v > (1ULL << 53))
		return 0;
	*out = (unsigned long)v;
	return 1;
}

static int real_ok(const char *s, char **end, double max, double *out)
{
	if (!(*s >= '0' && *s <= '9'))
		return 0;
	errno = 0;
	*out = strtod(s, end);
	return !errno && isfinite(*out) && *out >= 0 && *out <= max;
}

static int ping_parse(const char *text, struct guest_load *l, char *err, size_t errlen)
{
	const char *p = text;
	char line[512], *e;
	int stats = 0, rtts = 0;

	l->have_ping = l->have_rtt = 0;
	while (next_line(&p, line, sizeof(line))) {
		char *q;

		if ((q = strstr(line, " packets transmitted, "))) {
			unsigned long tx, rx;
			double loss;
			char *lp;

			if (stats++) {
				snprintf(err, errlen, "two 'packets transmitted' lines");
				return -1;
			}
			if (!count_ok(line, &e, &tx) || e != q ||
			    !count_ok(q + strlen(" packets transmitted, "), &e, &rx) ||
			    strncmp(e, " received,", 10)) {
				snprintf(err, errlen, "not ping's 'N packets transmitted, M received,' line");
				return -1;
			}
			/* ", L% packet loss": after the optional "+N errors," */
			if (!(lp = strstr(e, "% packet loss"))) {
				snprintf(err, errlen, "no '%% packet loss' in ping's summary");
				return -1;
			}
			while (lp > e && (lp[-1] == '.' || (lp[-1] >= '0' && lp[-1] <= '9')))
				lp--;
			if (!real_ok(lp, &e, 100, &loss) || strncmp(e, "% packet loss", 13)) {
				snprintf(err, errlen, "ping's packet loss is not a percentage");
				return -1;
			}
			if (!tx || rx > tx) {
				snprintf(err, errlen, "%lu received of %lu transmitted", rx, tx);
				return -1;
			}
			/* ping prints (tx - rx) * 100 / tx, %g: 6 digits */
			double want = (double)(tx - rx) * 100.0 / (double)tx;
			if (fabs(loss - want) > 0.01 + want * 1e-5) {
				snprintf(err, errlen, "%g%% packet loss, but %lu of %lu came back", loss, rx, tx);
				return -1;
			}
			l->ping_tx = tx;
			l->ping_rx = rx;
			l->ping_loss = loss;
			l->have_ping = 1;
		} else if ((q = strstr(line, "rtt min/avg/max/mdev = "))) {
			double v[4];

			if (rtts++) {
				snprintf(err, errlen, "two rtt lines");
				return -1;
			}
			e = q + strlen("rtt min/avg/max/mdev = ");
			for (int i = 0; i < 4; i++) {
				if (!real_ok(e, &e, 3.6e6, &v[i]) || *e != (i < 3 ? '/' : ' ')) {
					snprintf(err, errlen, "not ping's 'rtt min/avg/max/mdev = a/b/c/d ms' line");
					return -1;
				}
				e++;
			}
			if (strncmp(e, "ms", 2) || v[0] > v[1] || v[1] > v[2]) {
				snprintf(err, errlen, "rtt min/avg/max %g/%g/%g ms: not in order, or not ms",
					 v[0], v[1], v[2]);
				return -1;
			}
			l->rtt_min = v[0];
			l->rtt_avg = v[1];
			l->rtt_max = v[2];
			l->rtt_mdev = v[3];
			l->have_rtt = 1;
		}
	}
	if (!l->have_ping) {
		snprintf(err, errlen, "no ping summary ('N packets transmitted, M received, ...')");
		return -1;
	}
	if (l->ping_rx && !l->have_rtt) {
		snprintf(err, errlen, "%lu answers but no rtt line", l->ping_rx);
		l->have_ping = 0;
		return -1;
	}
	if (!l->ping_rx) {
		snprintf(err, errlen, "no answer to %lu pings", l->ping_tx);
		l->have_ping = 0;
		return -1;
	}
	return 0;
}

int guest_ping_summary(const char *text, struct guest_load *l, char *err, size_t errlen)
{
	if (ping_parse(text, l, err, errlen) == 0)
		return 0;
	l->have_ping = l->have_rtt = 0;   /* nothing of a refused summary counts */
	return -1;
}

int guest_ab_summary(const char *text, struct guest_load *l, char *err, size_t errlen)
{
	static const char *const keys[] = { "Complete requests:", "Failed requests:",
					    "Requests per second:" };
	const char *p = text;
	char line[512], *e;
	int seen[3] = { 0, 0, 0 };
	unsigned long n[2] = { 0, 0 };
	double rps = 0;

	l->have_ab = 0;
	while (next_line(&p, line, sizeof(line)))
		for (int k = 0; k < 3; k++) {
			if (strncmp(line, keys[k], strlen(keys[k])))
				continue;
			if (seen[k]++) {
				snprintf(err, errlen, "'%s' twice", keys[k]);
				return -1;
			}
			e = line + strlen(keys[k]);
			while (*e == ' ')
				e++;
			int ok = k < 2 ? count_ok(e, &e, &n[k]) : real_ok(e, &e, 1e9, &rps);
			if (!ok || (k < 2 ? *e != '\0' : strncmp(e, " [#/sec]", 8))) {
				snprintf(err, errlen, "'%s' is not followed by %s", keys[k],
					 k < 2 ? "a count" : "'R [#/sec]'");
				return -1;
			}
		}
	/* ab 2.3 prints its rates only when a request completed
	 * (output_results(): "if (timetaken && done)") */
	for (int k = 0; k < 3; k++)
		if (!seen[k] && !(k == 2 && seen[0] && n[0] == 0)) {
			snprintf(err, errlen, "no '%s' line (not ab's summary)", keys[k]);
			return -1;
		}
	/* 0 complete is a figure (the emulated host's NIC path can be that
	 * slow: docs/guests.md), more failed than complete is not ab's. */
	if (n[1] > n[0]) {
		snprintf(err, errlen, "%lu complete requests, %lu failed", n[0], n[1]);
		return -1;
	}
	l->ab_complete = n[0];
	l->ab_failed = n[1];
	l->ab_rps = rps;
	l->have_ab = 1;
	return 0;
}
