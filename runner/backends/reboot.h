/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The host side of the local and reboot backends and of `ipibench host`:
 * the host's file layout and host.json, the state a matrix keeps across
 * reboots and the decision taken at each run, and (from runner/host/) GRUB's
 * environment block (grubenv.h), the GRUB menu entries `ipibench host
 * install` writes (menu.h) and the systemd unit (unit.h).  Kept apart from
 * the I/O that needs a real Xen host so that unit tests can check it.
 */
#ifndef IPIBENCH_REBOOT_H
#define IPIBENCH_REBOOT_H

#include <stddef.h>

#include <jansson.h>

#include "runner/backend.h"
#include "runner/host/grubenv.h"
#include "runner/host/menu.h"
#include "runner/host/unit.h"

/* The reboot backend's settings (struct host_opts's settings). */
struct reboot_settings {
	char cmdline[512];      /* [host] cmdline: appended to Xen's command line */
};

/* ---- where things live on a host ------------------------------------- */

struct host_layout {
	char root[1024];        /* IPIBENCH_HOST_ROOT (tests, a mounted disk), "" for / */
	char grub_dir[1200], grubenv[1200], grub_cfg[1200], custom_cfg[1200];
	char boot_dir[1200];    /* ROOT/boot/ipibench: the installed Xen */
	char state_dir[1200], host_json[1200], pending[1200];
	char unit[1200];        /* ROOT/etc/systemd/system/UNIT: a checkout's install writes it */
	char unit_pkg[2][1200]; /* ROOT/lib/systemd/system/UNIT, ROOT/usr/lib/...: the package's */
	char unit_link[1200];   /* the multi-user.target.wants link: enabled */
};

/* ROOT from root, else IPIBENCH_HOST_ROOT, else "". */
void host_layout_init(struct host_layout *l, const char *root);

/*
 * The unit systemd loads, as a path under ROOT: /etc's (written by a
 * checkout's `host install`) over the package's, as systemd orders them.
 * NULL when neither exists.
 */
const char *host_unit_path(const struct host_layout *l);

/* What `host install` recorded in host.json. */
struct host_install {
	char xen[1300], kernel[1300], initrd[1300];            /* host paths */
	char grub_xen[1024], grub_kernel[1024], grub_initrd[1024]; /* GRUB paths */
	char grub_fs[32];                                      /* insmod name */
	char xen_cmdline[1024], dom0_cmdline[1024];
	char results[1300];
	char installed[32];
	int assume_yes;
};

int host_install_load(const struct host_layout *l, struct host_install *h, char *err, size_t errlen);
int host_install_store(const struct host_layout *l, const struct host_install *h, char *err, size_t errlen);


/* ---- a matrix in progress (ROOT/var/lib/ipibench/pending) ------------- */
struct host_pending {
	char results[1024];     /* IPIBENCH_RESULTS: the directory the unit resumes */
	char matrix[32];        /* IPIBENCH_MATRIX: nonce in every run's marker */
	char reboot_for[200];   /* IPIBENCH_REBOOT_FOR: the marker of the last reboot */
	char mode[16];          /* IPIBENCH_REBOOT_MODE */
	unsigned int reboots;   /* IPIBENCH_REBOOTS */
	unsigned int boots;     /* IPIBENCH_RUN_BOOTS: reboots for reboot_for's run */
	char started[200];      /* IPIBENCH_STARTED: the marker of a run that began
				 * on its boot; set before its agent starts, so a
				 * boot without it after one with it means the host
				 * went down during that run */
};

/* Boots a run gets when the host goes down while it runs (a reset, a
 * crash): then it is recorded failed, not retried forever. */
#define HOST_RUN_MAX_BOOTS 2

/* 0, 1 when there is none, -1 + err. */
/* The pending file: 1 when there is none, -1 (one line in err) when it is
 * not a regular file of at most HOST_PENDING_MAX bytes (safeio's rule: a
 * FIFO is refused at once) or lacks the two lines every one has. */
#define HOST_PENDING_MAX (64u << 10)
/* IPIBENCH_REBOOTS and IPIBENCH_RUN_BOOTS: decimal, from 0 to this. */
#define HOST_PENDING_MAX_BOOTS 1000000
int host_pending_load(const char *path, struct host_pending *p, char *err, size_t errlen);
int host_pending_store(const char *path, const struct host_pending *p, char *err, size_t errlen);

/* ---- what a run does -------------------------------------------------- */
enum reboot_step {
	STEP_RUN_HERE,   /* booted for this run, in its mode: run the agent */
	STEP_REBOOT,     /* one-shot boot into the run's entry */
	STEP_FAIL,       /* booted for this run but wrong, or the boot did not happen */
};

/* WORD is one of CMDLINE's space-separated words. */
int cmdline_has_word(const char *cmdline, const char *word);
/* The marker word of run ID in matrix NONCE: "ipibench.run=NONCE-ID". */
void reboot_marker(const char *nonce, const char *id, char *buf, size_t len);
/*
 * Decide from what the hypervisor reports (genapic, its command line) and
 * the matrix's pending state (NULL if none: reboot_for, started, boots).
 * Back without the run's marker after a reboot for it: if the run had
 * started on that boot, the host went down during it (reboot again, up to
 * HOST_RUN_MAX_BOOTS boots); if not, the entry never came up (a panicking
 * Xen reboots into GRUB's default entry) and the run fails.  why: one line.
 */
enum reboot_step reboot_decide(const char *mode, const char *marker, const char *genapic,
			       const char *xen_cmdline, const struct host_pending *p,
			       char *why, size_t len);
/* 1 when no run after ID in results.json's runs still needs doing. */
int results_last_pending(const json_t *results, const char *id);

/* ---- the agent on this host (local.c) --------------------------------- */
/* IPIBENCH_AGENT, else BUILD/bin/ipibench-agent. */
const char *host_agent_path(void);
/* 0 when this is a Xen dom0 (/proc/xen/capabilities has control_d). */
int host_check_dom0(char *err, size_t errlen);
/*
 * Run the agent with JOB (NULL: only report the hypervisor) writing OUTDIR/
 * agent.json; its output goes to OUTDIR/LOG.  Fills res->genapic,
 * xen_cmdline, agent_rc.  *agent gets the parsed agent.json (may be NULL).
 */
int host_agent_exec(const struct host_opts *o, const char *job, const char *outdir,
		    const char *log, struct host_result *res, json_t **agent);
/*
 * What is this host running?  A job-less agent run in o->workdir/probe
 * (res->genapic, xen_cmdline).  0, or -1 with res->error set.
 */
int host_probe(const struct host_opts *o, struct host_result *res);

#endif
