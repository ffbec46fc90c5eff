/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Host backends: where a Xen host in a given x2APIC mode comes from.  Each
 * backend is a table of operations in runner/backends/<name>.c with one
 * entry in runner/backends.c (which has the checklist for adding one;
 * runner/backends/skeleton.c is a commented template).  The runner treats
 * them alike and asks about a property (the HB_* flags), not a name; the
 * exception is `ipibench boot`, which is the qemu backend's own command.
 *
 * Settings: the [host] keys every backend has (backend, cpus, maxcpus,
 * timeout, stall, name, topology, profile) are host_common_settings[] in
 * runner/backends.c, over struct host_config; any other key belongs to a
 * backend, which declares it in its own table (.settings, as fio's
 * engines declare options[]) over a settings struct of its own
 * (.settings_size bytes, opaque to the runner).  Both are tables of
 * lib/keys.h, the engine of every config key.  runner/config.c
 * checks a config's [host] keys against the chosen backend's table, and
 * messages and `ipibench run --list` are built from the tables.
 */
#ifndef IPIBENCH_BACKEND_H
#define IPIBENCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/keys.h"
#include "lib/topology.h"

#define HOST_ERR_LEN 512

/* What one run asks of a backend (runner/cmd_run.c fills it in). */
struct host_opts {
	const char *mode;        /* physical | cluster | mixed */
	unsigned int cpus;       /* physical CPUs present at boot */
	unsigned int maxcpus;    /* > cpus: hotpluggable CPUs Xen must allow for */
	unsigned int timeout_s;  /* whole boot + job */
	/* No console line for this long after dom0 is up: stalled (0: off). */
	unsigned int stall_s;
	/* The CPU topology (maxcpus = its slots), NULL: the backend's default. */
	const struct topo *topo;
	const char *workdir;     /* job.json in, agent.json + console.log out */
	const char *xen;         /* the xen binary to boot (HB_BOOTS_BUILD); NULL: the default build */
	int quiet;               /* no progress lines */
	FILE *progress;          /* where progress lines go (stderr) */
	/*
	 * The backend's own settings: its settings struct, from
	 * host_settings_new() and its [host] keys (NULL for a backend
	 * without settings).
	 */
	const void *settings;
};

/* ---- [host] settings --------------------------------------------------- */

/*
 * A [host] key is a row of lib/keys.h's table over the struct it fills:
 * host_common_settings[] over struct host_config, a backend's .settings
 * over its own struct.  .record names the results.json host key that
 * records its value.  The rows most tables need:
 */
#define HS_UINT_KEY(k, st, f, lo, hi, d, h) \
	{ k, KEY_UINT, lo, hi, d, h, KEY_FIELD(st, f) }
#define HS_TEXT_KEY(k, st, f, d, h) \
	{ k, KEY_TEXT, 0, 0, d, h, KEY_FIELD(st, f) }
/* The extra Xen command line: a setting of every backend that boots Xen
 * (no x2APIC option: host_cmdline_cb() refuses it). */
#define HS_CMDLINE "cmdline"
#define HS_CMDLINE_KEY(st, f) \
	{ HS_CMDLINE, KEY_TEXT, 0, 0, "", "appended to Xen's command line (no x2APIC option: " \
	  "modes chooses it)", KEY_FIELD(st, f), .cb = host_cmdline_cb }
key_cb host_cmdline_cb;

/*
 * The first word of command line CL that sets the APIC's or x2APIC's mode
 * (x2apic-mode=, x2apic_phys=, x2apic=, no-x2apic, nox2apic, apic=: the
 * destination mode a run records is its modes' one), into BUF; NULL when
 * there is none.
 */
const char *cmdline_apic_option(const char *cl, char *buf, size_t len);

/* The [host] keys every backend has (host_common_settings[]). */
struct host_config {
	char backend[16];
	char name[64];           /* results directory and reports; BACKEND-NcpuS */
	unsigned int cpus, maxcpus, timeout;   /* maxcpus, timeout: 0 = the default */
	unsigned int stall;      /* seconds without progress from dom0 up on; 0: off */
	void *settings;          /* the backend's own (host_settings_new()) */
	/*
	 * [host] topology = sockets=S,dies=D,cores=C,threads=T or profile =
	 * NAME (lib/topology.h): the CPU topology, whose slots are
	 * maxcpus; has_topo 0: none given (QEMU's dense default).
	 */
	bool has_topo;
	struct topo topo;
	char profile[32];        /* "" unless a profile was named */
};
/* backend, cpus, maxcpus, timeout, stall, name, topology, profile. */
extern const struct key host_common_settings[];

struct host_result {
	char genapic[64];        /* the APIC driver Xen switched to */
	int intremap;            /* "Interrupt Remapping enabled" seen */
	int x2apic_warning;      /* Xen overrode the requested mode */
	int agent_rc;            /* -1 until the agent said it was done */
	double t_genapic, t_dom0, t_done; /* seconds since start */
	char xen_cmdline[1024];
	char error[HOST_ERR_LEN];/* one line when run() fails */
	/*
	 * A run that stopped progressing (runner/stall.h): stalled is set
	 * when no console line came for stall_s seconds; stall_reason is
	 * "stall" or "timeout" whenever evidence was collected (in
	 * workdir/stall/), "" otherwise.
	 */
	int stalled;
	char stall_reason[16];
	double stall_after_s, stall_quiet_s;
	char stall_phase[80];
};

/*
 * What a backend is, for the code that must treat kinds of host differently
 * (host_backend_ops.flags): the runner asks about a property, never a name.
 */
enum host_backend_flags {
	/*
	 * The host is emulated: times are emulated times (results.json says
	 * "emulated": true), and without a [host] topology its CPUs are
	 * QEMU's dense numbering, which the layout check after each boot
	 * expects.  (TCG threading is the qemu backend's own tcg setting.)
	 */
	HB_EMULATED = 1 << 0,
	/*
	 * It boots the hypervisor build of host_opts.xen (so a config may
	 * have a [matrix] xen axis).
	 */
	HB_BOOTS_BUILD = 1 << 1,
	/*
	 * The host is the machine ipibench runs on, as it is (its dom0, not
	 * rebooted): a [guest] config's guests are run here through xl
	 * (runner/guest.h).
	 */
	HB_RUNS_HERE = 1 << 2,
};

/*
 * What a config's host needs before `ipibench run` can use it
 * (host_backend_ops.needs, runner/needs.h): the tree's make targets that
 * build it, and where the checks of this machine read.
 */
struct host_needs {
	char targets[256];       /* make targets, space-separated (host_needs_add()) */
	const char *xen_caps;    /* Xen's capabilities file (/proc/xen/capabilities) */
	const char *root;        /* the installed host's root (NULL: IPIBENCH_HOST_ROOT or /) */
	int default_build;       /* the config boots the default build (make hv's) */
};
/* Add TARGET to n->targets (once). */
void host_needs_add(struct host_needs *n, const char *target);

struct host_backend_ops {
	const char *name;
	const char *help;
	unsigned int flags;      /* HB_* */
	/*
	 * Its [host] keys ({NULL}-terminated; NULL: none) and the size of the
	 * struct they fill (struct host_opts's settings).
	 */
	const struct key *settings;
	size_t settings_size;
	/* The results.json host key that holds describe()'s text. */
	const char *describe_key;
	/*
	 * Boot (or reach) a Xen host in opts->mode, run the agent on
	 * workdir/job.json if present, leave agent.json in workdir, and stop
	 * the host as soon as the files are safe.  0 on success; -1 with a
	 * one-line res->error otherwise.  Never leaves a process behind.
	 */
	int (*run)(const struct host_opts *opts, struct host_result *res);
	/* Free-form description of the host for results.json (may be NULL). */
	void (*describe)(const struct host_opts *opts, char *buf, size_t len);
	/*
	 * What a run with SETTINGS (its settings struct) needs: the make
	 * targets that build it, added to n (host_needs_add()), and 0; or -1
	 * when this machine cannot be such a host, with what it needs in err
	 * ("a Xen dom0 (...); this machine is not one"), which follows
	 * "backend = NAME needs ".  NULL: nothing.
	 */
	int (*needs)(const void *settings, struct host_needs *n, char *err, size_t errlen);
};

/* Every backend, NULL-terminated; the first is a config's default. */
extern const struct host_backend_ops *const host_backends[];
const struct host_backend_ops *host_backend_find(const char *name);
/*
 * The names of the backends with every flag of FLAGS (0: all of them), in
 * table order, for messages: "qemu, local or reboot".  BUF, or "" if none.
 */
const char *host_backend_names(char *buf, size_t len, unsigned int flags);

/*
 * A backend's settings struct with every default of its table filled in
 * (free() it); NULL when out of memory.
 */
void *host_settings_new(const struct host_backend_ops *be);
/* The same into SETTINGS, be->settings_size bytes of the caller's. */
void host_settings_defaults(const struct host_backend_ops *be, void *settings);
/*
 * The table is complete (as fio's check_engine_ops()): keys_verify() over
 * its settings struct, and no key of host_common_settings[].  0, or -1 with a one-line reason.
 */
int host_settings_verify(const struct host_backend_ops *be, char *err, size_t errlen);
/* The backends whose table has KEY, for messages ("qemu or reboot"); "" if none. */
const char *host_setting_owners(char *buf, size_t len, const char *key);
/* "    KEY  HELP, MIN to MAX (default D)" lines for TAB (keys_describe()). */
void host_settings_help(FILE *f, const struct key *tab);

/* Helpers for backends: a one-line error into r->error ... */
void host_fail(struct host_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ... and a progress line, "PREFIXmessage", unless opts are quiet. */
void host_progress(const struct host_opts *o, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Start argv[0] (looked up in PATH) with stdin from /dev/null and stdout
 * and stderr into outfd.  The child is killed when the calling thread
 * ends (PR_SET_PDEATHSIG), so it never outlives ipibench.  -1 on fork failure.
 */
int host_spawn(char *const argv[], int outfd);
/*
 * The same with stdin from INFD (-1: /dev/null) and the descriptor KEEPFD
 * (-1: none) left open across exec (it is close-on-exec in the parent).
 */
int host_spawn_io(char *const argv[], int infd, int outfd, int keepfd);
/*
 * A console log (console.log, agent.log): created (truncated) for writing,
 * then host_log_write() puts each chunk in the file as it arrives, with no
 * buffer in between, so a user following it sees it and a crash keeps the
 * tail.  The fd, or -1 with errno.
 */
int host_log_open(const char *path);
/* All of buf into fd (write(2), retried on EINTR and short writes). */
int host_log_write(int fd, const void *buf, size_t len);
/*
 * A child's plumbing: the log PATH (host_log_open()) and a close-on-exec
 * pipe in pfd.  The log's fd, or -1 with r->error set and nothing left open.
 */
int host_log_and_pipe(const char *path, int pfd[2], struct host_result *r);
/* describe() of a real machine: "real hardware (HOW) on HOSTNAME". */
void host_describe_real(const char *how, char *buf, size_t len);

/* x2apic-mode name -> the genapic driver Xen reports for it (NULL: not a mode). */
const char *mode_genapic(const char *mode);
/* The modes of ipibench/modes.h for messages: "physical, cluster, mixed". */
const char *mode_list(void);

#endif
