/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A real test host rebooted through GRUB: `ipibench host install` puts one
 * menu entry per x2APIC mode in GRUB's custom.cfg.  The run of mode M
 * either finds the host booted for it (the hypervisor reports M's driver
 * and its command line carries this run's marker, ipibench.run=NONCE-ID)
 * and runs the agent here, or sets a one-shot boot of M's entry in GRUB's
 * environment block (next_entry, as grub-reboot does; GRUB clears it
 * itself at that boot) and reboots.  After the boot, ipibench-resume.service
 * runs `ipibench run --resume DIR`.  When no run is left the unit is
 * disabled and GRUB's default entry is the next boot again.
 *
 * Here: the host's layout and host.json, the pending state, the decision
 * and the backend.  GRUB's environment block, the menu entries and the
 * unit's text are in runner/host/ (grubenv.c, menu.c, unit.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/backends/reboot.h"
#include "runner/util.h"
#include "workloads/workloads.h"
#include "lib/safeio.h"
#include "lib/spawn.h"

/* ---- host layout and host.json ----------------------------------------- */

void host_layout_init(struct host_layout *l, const char *root)
{
	const char *r = root ? root : getenv("IPIBENCH_HOST_ROOT");

	memset(l, 0, sizeof(*l));
	snprintf(l->root, sizeof(l->root), "%s", r && strcmp(r, "/") ? r : "");
	snprintf(l->grub_dir, sizeof(l->grub_dir), "%s/boot/grub", l->root);
	snprintf(l->grubenv, sizeof(l->grubenv), "%s/boot/grub/grubenv", l->root);
	snprintf(l->grub_cfg, sizeof(l->grub_cfg), "%s/boot/grub/grub.cfg", l->root);
	snprintf(l->custom_cfg, sizeof(l->custom_cfg), "%s/boot/grub/custom.cfg", l->root);
	snprintf(l->boot_dir, sizeof(l->boot_dir), "%s/boot/ipibench", l->root);
	snprintf(l->state_dir, sizeof(l->state_dir), "%s/var/lib/ipibench", l->root);
	snprintf(l->host_json, sizeof(l->host_json), "%s/var/lib/ipibench/host.json", l->root);
	snprintf(l->pending, sizeof(l->pending), "%s/var/lib/ipibench/pending", l->root);
	snprintf(l->unit, sizeof(l->unit), "%s/etc/systemd/system/" HOST_UNIT_NAME, l->root);
	snprintf(l->unit_pkg[0], sizeof(l->unit_pkg[0]), "%s/lib/systemd/system/" HOST_UNIT_NAME, l->root);
	snprintf(l->unit_pkg[1], sizeof(l->unit_pkg[1]), "%s/usr/lib/systemd/system/" HOST_UNIT_NAME,
		 l->root);
	snprintf(l->unit_link, sizeof(l->unit_link),
		 "%s/etc/systemd/system/multi-user.target.wants/" HOST_UNIT_NAME, l->root);
}

const char *host_unit_path(const struct host_layout *l)
{
	if (!access(l->unit, R_OK))
		return l->unit;
	for (size_t i = 0; i < sizeof(l->unit_pkg) / sizeof(l->unit_pkg[0]); i++)
		if (!access(l->unit_pkg[i], R_OK))
			return l->unit_pkg[i];
	return NULL;
}

#define HJ_STR(X) \
	X(xen) X(kernel) X(initrd) X(grub_xen) X(grub_kernel) X(grub_initrd) X(grub_fs) \
	X(xen_cmdline) X(dom0_cmdline) X(results) X(installed)

int host_install_load(const struct host_layout *l, struct host_install *h, char *err, size_t errlen)
{
	json_t *j;

	memset(h, 0, sizeof(*h));
	if (access(l->host_json, F_OK)) {
		char q[256];

		snprintf(err, errlen, "ipibench is not installed on this host (no %s): "
			 "run 'ipibench host install' first", sio_shown(q, sizeof(q), l->host_json));
		return -1;
	}
	if (!(j = sio_load_json(l->host_json, SIO_MAX_JSON, err, errlen)))
		return -1;
	if (!json_is_object(j)) {
		char q[256];

		snprintf(err, errlen, "%s: $: expected an object", sio_shown(q, sizeof(q), l->host_json));
		json_decref(j);
		return -1;
	}
#define GET(f) snprintf(h->f, sizeof(h->f), "%s", json_string_value(json_object_get(j, #f)) ?: "");
	HJ_STR(GET)
#undef GET
	h->assume_yes = json_is_true(json_object_get(j, "assume_yes"));
	json_decref(j);
	return 0;
}

int host_install_store(const struct host_layout *l, const struct host_install *h, char *err, size_t errlen)
{
	json_t *j = json_object();
	int rc;

#define SET(f) json_object_set_new(j, #f, json_string(h->f));
	HJ_STR(SET)
#undef SET
	json_object_set_new(j, "assume_yes", json_boolean(h->assume_yes));
	rc = sio_write_json(l->host_json, j, JSON_INDENT(1) | JSON_SORT_KEYS, err, errlen);
	json_decref(j);
	return rc;
}

/* ---- pending state ----------------------------------------------------- */

int host_pending_load(const char *path, struct host_pending *p, char *err, size_t errlen)
{
	char *text, *line, *next, q[256];
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st) && errno == ENOENT)
		return 1;
	/* safeio's rule: a FIFO is refused at once, never waited on. */
	if (sio_read_file(path, HOST_PENDING_MAX, &text, NULL, err, errlen))
		return -1;
	for (line = text; line; line = next) {
		char *eq, *v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		eq = strchr(line, '=');
		if (!eq || line[0] == '#')
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(line, "IPIBENCH_RESULTS"))
			snprintf(p->results, sizeof(p->results), "%s", v);
		else if (!strcmp(line, "IPIBENCH_MATRIX"))
			snprintf(p->matrix, sizeof(p->matrix), "%s", v);
		else if (!strcmp(line, "IPIBENCH_REBOOT_FOR"))
			snprintf(p->reboot_for, sizeof(p->reboot_for), "%s", v);
		else if (!strcmp(line, "IPIBENCH_REBOOT_MODE"))
			snprintf(p->mode, sizeof(p->mode), "%s", v);
		else if (!strcmp(line, "IPIBENCH_REBOOTS") || !strcmp(line, "IPIBENCH_RUN_BOOTS")) {
			char e[256];
			long n;

			/* the config's rule: decimal as written, within bounds */
			if (keys_parse_int(line, v, 10, 0, HOST_PENDING_MAX_BOOTS, &n, e, sizeof(e))) {
				snprintf(err, errlen, "%s: %s", sio_shown(q, sizeof(q), path), e);
				free(text);
				return -1;
			}
			if (!strcmp(line, "IPIBENCH_REBOOTS"))
				p->reboots = (unsigned int)n;
			else
				p->boots = (unsigned int)n;
		}
		else if (!strcmp(line, "IPIBENCH_STARTED"))
			snprintf(p->started, sizeof(p->started), "%s", v);
	}
	free(text);
	if (!p->results[0] || !p->matrix[0]) {
		snprintf(err, errlen, "%s: no IPIBENCH_RESULTS or IPIBENCH_MATRIX line",
			 sio_shown(q, sizeof(q), path));
		return -1;
	}
	return 0;
}

int host_pending_store(const char *path, const struct host_pending *p, char *err, size_t errlen)
{
	struct sio_atomic a;

	if (strchr(p->results, '\n')) {
		snprintf(err, errlen, "results path with a newline: %s", p->results);
		return -1;
	}
	if (sio_atomic_open(&a, path, 0644, err, errlen))
		return -1;
	fprintf(a.f, "# ipibench: a matrix in progress (systemd EnvironmentFile of "
		HOST_UNIT_NAME ")\n");
	fprintf(a.f, "IPIBENCH_RESULTS=%s\nIPIBENCH_MATRIX=%s\nIPIBENCH_REBOOT_FOR=%s\n"
		"IPIBENCH_REBOOT_MODE=%s\nIPIBENCH_REBOOTS=%u\nIPIBENCH_RUN_BOOTS=%u\n"
		"IPIBENCH_STARTED=%s\n",
		p->results, p->matrix, p->reboot_for, p->mode, p->reboots, p->boots, p->started);
	return sio_atomic_commit(&a, err, errlen);   /* fprintf errors included */
}

/* ---- decisions --------------------------------------------------------- */

int cmdline_has_word(const char *cmdline, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = cmdline; p && *p;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (n == wl && !strncmp(p, word, wl))
			return 1;
		p += n;
	}
	return 0;
}

void reboot_marker(const char *nonce, const char *id, char *buf, size_t len)
{
	snprintf(buf, len, "ipibench.run=%.31s-%.100s", nonce, id);
}

enum reboot_step reboot_decide(const char *mode, const char *marker, const char *genapic,
			       const char *xen_cmdline, const struct host_pending *p,
			       char *why, size_t len)
{
	const char *want = mode_genapic(mode);

	if (cmdline_has_word(xen_cmdline, marker)) {
		if (want && !strcmp(genapic, want)) {
			snprintf(why, len, "booted for this run: Xen selected %s", genapic);
			return STEP_RUN_HERE;
		}
		snprintf(why, len, "booted entry " HOST_ENTRY_PREFIX "%s for this run but Xen "
			 "selected %s, not %s (see the boot log: 'xl dmesg | grep APIC')",
			 mode, genapic[0] ? genapic : "no known APIC driver", want ? want : "?");
		return STEP_FAIL;
	}
	if (p && !strcmp(p->reboot_for, marker)) {
		if (!strcmp(p->started, marker)) {
			if (p->boots < HOST_RUN_MAX_BOOTS) {
				snprintf(why, len, "the host went down while this run ran (boot %u of "
					 "at most %u): boot entry " HOST_ENTRY_PREFIX "%s again",
					 p->boots, HOST_RUN_MAX_BOOTS, mode);
				return STEP_REBOOT;
			}
			snprintf(why, len, "the host went down while this run ran, on each of its %u "
				 "boots of entry " HOST_ENTRY_PREFIX "%s: not retried (see its console.log)",
				 p->boots, mode);
			return STEP_FAIL;
		}
		snprintf(why, len, "rebooted into entry " HOST_ENTRY_PREFIX "%s for this run but the "
			 "host came back without %s before the run started: GRUB did not boot the "
			 "entry, or its Xen or dom0 did not come up (a Xen panic reboots into GRUB's "
			 "default entry; see the serial console and 'ipibench host status')",
			 mode, marker);
		return STEP_FAIL;
	}
	snprintf(why, len, "host runs %s without %s: reboot into " HOST_ENTRY_PREFIX "%s",
		 genapic[0] ? genapic : "an unknown APIC driver", marker, mode);
	return STEP_REBOOT;
}

int results_last_pending(const json_t *results, const char *id)
{
	const json_t *runs = json_object_get(results, "runs"), *run;
	size_t i;
	int after = 0;

	json_array_foreach(runs, i, run) {
		const char *rid = json_string_value(json_object_get(run, "id"));
		const char *st = json_string_value(json_object_get(run, "status"));

		if (after && (!st || strcmp(st, "ok")))
			return 0;
		if (rid && !strcmp(rid, id))
			after = 1;
	}
	return 1;
}

/* ---- the backend ------------------------------------------------------- */

/* A run's results directory: workdir is DIR/runs/ID. */
static int split_workdir(const char *workdir, char *dir, size_t dlen, char *id, size_t ilen)
{
	char real[PATH_MAX];
	char *s;

	if (!realpath(workdir, real))
		return -1;
	if (!(s = strrchr(real, '/')))
		return -1;
	snprintf(id, ilen, "%s", s + 1);
	*s = '\0';
	if (!(s = strrchr(real, '/')) || strcmp(s, "/runs"))
		return -1;
	*s = '\0';
	snprintf(dir, dlen, "%s", real[0] ? real : "/");
	return 0;
}

static int on_volatile_fs(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf))
		return 0;
	return sf.f_type == 0x01021994 /* TMPFS_MAGIC */ || sf.f_type == 0x858458f6 /* RAMFS */;
}

/* The matrix is over (done, or stopped by a failure): leave the host as it was. */
static void finish(const struct host_layout *l, const struct host_opts *o)
{
	struct grubenv e;
	char err[512];
	const char *ne;

	if (grubenv_load(l->grubenv, &e, err, sizeof(err)) == 0) {
		ne = grubenv_get(&e, "next_entry");
		if (ne && !strncmp(ne, HOST_ENTRY_PREFIX, strlen(HOST_ENTRY_PREFIX)))
			grubenv_unset(&e, "next_entry");
		grubenv_unset(&e, "ipibench_run");
		grubenv_unset(&e, "ipibench_cmdline");
		if (grubenv_store(l->grubenv, &e, err, sizeof(err)))
			host_progress(o, "        reboot: ", "warning: %s", err);
	}
	if (unlink(l->unit_link) && errno != ENOENT)
		host_progress(o, "        reboot: ", "warning: %s: %s", l->unit_link, strerror(errno));
	unlink(l->pending);
	sync();
	host_progress(o, "        reboot: ", "matrix finished: %s disabled, the next boot is GRUB's default entry",
		 HOST_UNIT_NAME);
}

static int confirm(const struct host_opts *o, const struct host_install *h, char *err, size_t len)
{
	const char *y = getenv("IPIBENCH_YES");
	char answer[16] = "";

	if (h->assume_yes || (y && !strcmp(y, "1")))
		return 0;
	if (!isatty(0)) {
		snprintf(err, len, "the first reboot needs a yes: run from a terminal, or set "
			 "IPIBENCH_YES=1, or install with 'ipibench host install --yes'");
		return -1;
	}
	fprintf(stderr, "ipibench: reboot this host now into Xen x2apic-mode=%s (GRUB entry "
		HOST_ENTRY_PREFIX "%s, once)? The matrix resumes after each boot. [y/N] ",
		o->mode, o->mode);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
		snprintf(err, len, "reboot not confirmed; nothing changed");
		return -1;
	}
	return 0;
}

static int enable_unit(const struct host_layout *l, char *err, size_t len)
{
	char dir[1300];
	const char *unit = host_unit_path(l);

	if (!unit) {
		snprintf(err, len, "%.400s missing (neither the package's nor one 'ipibench host "
			 "install' wrote): run 'ipibench host install' again", l->unit);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", l->unit_link);
	*strrchr(dir, '/') = '\0';
	run_mkdirs(dir);
	unlink(l->unit_link);
	/* What `systemctl enable` does; the target is the unit's path on the host. */
	if (symlink(unit + strlen(l->root), l->unit_link)) {
		snprintf(err, len, "%.400s: %s", l->unit_link, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *reboot_cmd(void)
{
	const char *c = getenv("IPIBENCH_REBOOT_CMD");

	if (c && *c)
		return c;
	return access("/run/systemd/system", F_OK) ? "reboot" : "systemctl reboot";
}

static int reboot_run(const struct host_opts *o, struct host_result *r)
{
	struct host_layout l;
	struct host_install h;
	struct host_pending p;
	struct grubenv e;
	char dir[PATH_MAX], id[256], marker[200], why[512], path[PATH_MAX + 32], entry[64];
	json_t *a = NULL, *res;
	int nopend, last, rc;
	const struct reboot_settings none = { "" };
	const struct reboot_settings *rs = o->settings ? o->settings : &none;

	memset(r, 0, sizeof(*r));
	r->agent_rc = -1;
	host_layout_init(&l, NULL);
	if (host_install_load(&l, &h, r->error, sizeof(r->error)))
		return -1;
	if (!l.root[0] && geteuid()) {
		host_fail(r, "the reboot backend must run as root (it writes %s and reboots)", l.grubenv);
		return -1;
	}
	if (host_check_dom0(r->error, sizeof(r->error)))
		return -1;
	if (split_workdir(o->workdir, dir, sizeof(dir), id, sizeof(id))) {
		host_fail(r, "%s: not a run directory (RESULTS/runs/ID)", o->workdir);
		return -1;
	}
	nopend = host_pending_load(l.pending, &p, r->error, sizeof(r->error));
	if (nopend < 0)
		return -1;
	if (!nopend && strcmp(p.results, dir)) {
		host_fail(r, "another matrix is pending on this host (%s): finish it with "
		     "'ipibench run --resume %s' or see 'ipibench host status'", p.results, p.results);
		return -1;
	}
	if (nopend) {
		unsigned char rnd[4] = { 0 };

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
		memset(&p, 0, sizeof(p));
		snprintf(p.results, sizeof(p.results), "%.1000s", dir);
		snprintf(p.matrix, sizeof(p.matrix), "%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
	}
	reboot_marker(p.matrix, id, marker, sizeof(marker));

	if (host_probe(o, r))
		return -1;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	res = sio_load_json(path, SIO_MAX_JSON, why, sizeof(why));
	last = res ? results_last_pending(res, id) : 1;
	json_decref(res);

	switch (reboot_decide(o->mode, marker, r->genapic, r->xen_cmdline,
			      nopend ? NULL : &p, why, sizeof(why))) {
	case STEP_RUN_HERE:
		host_progress(o, "        reboot: ", "%s", why);
		/* On disk before the agent starts: a boot that comes back
		 * without the marker then knows the run was under way. */
		if (!nopend) {
			snprintf(p.started, sizeof(p.started), "%s", marker);
			if (host_pending_store(l.pending, &p, r->error, sizeof(r->error)))
				return -1;
			sync();
		}
		snprintf(path, sizeof(path), "%s/job.json", o->workdir);
		rc = host_agent_exec(o, access(path, R_OK) ? NULL : path, o->workdir,
				     "console.log", r, &a);
		json_decref(a);
		if (!rc)
			host_progress(o, "        reboot: ", "agent done (rc=%d)", r->agent_rc);
		if (last)
			finish(&l, o);
		return rc;
	case STEP_FAIL:
		host_fail(r, "%s", why);
		if (last)
			finish(&l, o);
		return -1;
	case STEP_REBOOT:
		break;
	}

	/* A one-shot boot into this run's entry. */
	if (nopend) {
		if (on_volatile_fs(dir)) {
			host_fail(r, "%s is on a tmpfs: the results would not survive the reboot", dir);
			return -1;
		}
		if (confirm(o, &h, r->error, sizeof(r->error)))
			return -1;
	}
	p.boots = strcmp(p.reboot_for, marker) ? 1 : p.boots + 1;
	snprintf(p.reboot_for, sizeof(p.reboot_for), "%s", marker);
	snprintf(p.mode, sizeof(p.mode), "%s", o->mode);
	p.started[0] = '\0';
	p.reboots++;
	if (run_mkdirs(l.state_dir) || host_pending_store(l.pending, &p, r->error, sizeof(r->error)))
		return -1;
	if (enable_unit(&l, r->error, sizeof(r->error)))
		return -1;
	if (grubenv_load(l.grubenv, &e, r->error, sizeof(r->error)) < 0)
		return -1;
	host_entry_id(o->mode, entry, sizeof(entry));
	grubenv_set(&e, "next_entry", entry);
	grubenv_set(&e, "ipibench_run", marker + strlen("ipibench.run="));
	if (rs->cmdline[0])
		grubenv_set(&e, "ipibench_cmdline", rs->cmdline);
	else
		grubenv_unset(&e, "ipibench_cmdline");
	if (grubenv_store(l.grubenv, &e, r->error, sizeof(r->error)))
		return -1;
	sync();
	host_progress(o, "        reboot: ", "%s; next boot (once): %s, then '%s' resumes %s", why, entry,
		 HOST_UNIT_NAME, dir);
	const char *cmd = reboot_cmd();
	host_progress(o, "        reboot: ", "rebooting: %s", cmd);
	{
		/* a command line (IPIBENCH_REBOOT_CMD may be one): through sh */
		struct sio_child c = SIO_CHILD_INIT;

		c.argv = (const char *[]){ "/bin/sh", "-c", cmd, NULL };
		c.in = c.out = c.err = SIO_CHILD_INHERIT;
		rc = sio_child_run(&c);
	}
	if (rc) {
		grubenv_unset(&e, "next_entry");
		grubenv_store(l.grubenv, &e, why, sizeof(why));
		host_fail(r, "reboot command '%s' failed (status %d); next_entry cleared", cmd, rc);
		return -1;
	}
	/* Wait to be stopped by the shutdown. */
	const char *w = getenv("IPIBENCH_REBOOT_WAIT");
	unsigned int wait_s = w ? (unsigned int)strtoul(w, NULL, 10) : 600;
	for (unsigned int s = 0; s < wait_s; s++)
		sleep(1);
	host_fail(r, "asked for a reboot ('%s') but the host is still up after %us", cmd, wait_s);
	return -1;
}

static void reboot_describe(const struct host_opts *o, char *buf, size_t len)
{
	(void)o;
	host_describe_real("reboot backend, GRUB one-shot entries", buf, len);
}

static const struct key reboot_settings[] = {
	HS_CMDLINE_KEY(struct reboot_settings, cmdline),
	{ NULL },
};

/* A host `ipibench host install` prepared (its host.json); nothing of the
 * tree is booted: the installed Xen and dom0 are. */
static int reboot_needs(const void *settings, struct host_needs *n, char *err, size_t errlen)
{
	struct host_layout l;

	(void)settings;
	host_layout_init(&l, n->root);
	if (access(l.host_json, F_OK)) {
		snprintf(err, errlen, "an installed host: run 'ipibench host install' on it first "
			 "(no %.300s)", l.host_json);
		return -1;
	}
	return 0;
}

const struct host_backend_ops backend_reboot = {
	.name = "reboot",
	.help = "a real test host rebooted through GRUB into each mode ('ipibench host install')",
	.settings = reboot_settings,
	.settings_size = sizeof(struct reboot_settings),
	.describe_key = "description",
	.run = reboot_run,
	.describe = reboot_describe,
	.needs = reboot_needs,
};
