/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One guest run through xl, on the Xen host ipibench runs on (dom0):
 * write the xl config of [guest] (config_guest_xl()), `xl create -c` with
 * the console into a file, wait for the guest's start marker
 * (guest/init's IPB-GUEST-START), record xentrace twice (the scheduler
 * class 0x000affff, which names domain and vCPU, then the config's mask),
 * wait for the workload's end (IPB-GUEST-DONE) and the guest's power-off,
 * and `xl destroy` it on every way out, checked with `xl list`.
 *
 * An HVM guest with a NIC (cfg_guest_nic_runs()) has its load driven
 * from dom0 around the recordings: before xl
 * create, xen-netback loaded and the bridge the xl config names
 * (CFG_GUEST_BRIDGE) there with dom0's address (made when it is not there,
 * and then removed at the end; a bridge that is there without dom0's
 * address is refused, not changed); after the start marker, the guest's
 * first ping answer, then `ping -q -f -w ping_secs` through both
 * recordings (stopped by SIGINT after them), then `ab -q -t ab_secs -c 1`
 * against its httpd; both summaries parsed into guest_result.load.
 *
 * An HVM guest is held after its workload (guest/init's ipb.hold,
 * cfg_guest_held()): its run ends by xl destroy after IPB-GUEST-DONE, an
 * ok end with destroyed set and the reason in guest_result.end_reason
 * (chosen when the emulated test host went down under HVM guests, before
 * the cause was found: the board's TCO watchdog after a dom0 stall,
 * docs/guests.md).
 *
 * Every wait is bounded; xl, xentrace, modprobe, ip, ping and ab are run
 * by fork/exec (no shell),
 * each in a process group of its own that is killed when it is not needed
 * any more, and with PR_SET_PDEATHSIG, so none outlives ipibench.  While a
 * guest runs, SIGINT, SIGTERM and SIGHUP are caught: the guest is
 * destroyed, then guest_run() returns with the signal in
 * guest_result.signal for the caller to save what it has and re-raise it
 * (guest_reraise()).
 */
#ifndef IPIBENCH_GUEST_H
#define IPIBENCH_GUEST_H

#include <stddef.h>

#include <jansson.h>

#include "runner/config.h"

/* The scheduler class (config.h's CFG_GUEST_SCHED_MASK), as xentrace -e takes it. */
#define GUEST_SCHED_MASK ((unsigned long)CFG_GUEST_SCHED_MASK)

/* The markers of guest/init on the guest console. */
#define GUEST_MARK_START "IPB-GUEST-START"
#define GUEST_MARK_DONE "IPB-GUEST-DONE"

struct guest_spec {
	const struct cfg_guest *g;   /* ipi_path: the path of this run */
	const char *name;            /* the domain's name */
	const char *kernel, *ramdisk;/* absolute paths on this host */
	const char *dir;             /* the result set's directory */
	const char *id;              /* the run's id: files in DIR/guests/ID/ */
	/* Bounds in milliseconds (ipibench run's in brackets): tests keep
	 * them short, the config's timeout stays in whole seconds. */
	unsigned int timeout_ms;     /* from xl create to the workload's end (g->timeout) */
	unsigned int settle_ms;      /* after the start marker, before tracing (2 s) */
	unsigned int poweroff_ms;    /* after the end marker, for the power-off (60 s) */
	unsigned int xl_ms;          /* each xl list/destroy (60 s) */
	unsigned int trace_slack_ms; /* xentrace's time beyond its -T (60 s) */
	unsigned int ping_wait_ms;   /* NIC: from the start marker to the first ping answer (120 s) */
	/* HVM: where the device model's log is, qemu-dm-NAME.log (NULL:
	 * GUEST_DM_LOG_DIR); kept beside a failed run's xl dmesg. */
	const char *dm_log_dir;
};
#define GUEST_DM_LOG_DIR "/var/log/xen"

/* How a guest run ended (guest_result.outcome). */
enum guest_outcome {
	GO_OK,             /* the workload finished and the guest powered off */
	GO_START_TIMEOUT,  /* no start marker within the timeout */
	GO_DIED,           /* the guest was gone before its workload ended */
	GO_TRACE_FAILED,   /* xentrace failed, hung or left no file */
	GO_DONE_TIMEOUT,   /* no end marker within the timeout */
	GO_NO_POWEROFF,    /* the workload ended, the guest did not power off */
	GO_ERROR,          /* ipibench could not do its part (files, fork) */
	GO_DOM0_FAILED,    /* NIC: xen-netback or the bridge could not be had */
	GO_LOAD_FAILED,    /* NIC: no ping answer, ping or ab failed, or their output refused */
	GO_INTERRUPTED,    /* a signal (guest_result.signal) */
};
const char *guest_outcome_name(enum guest_outcome o);

/* The NIC load's figures, from ping's and ab's summaries (untrusted text). */
struct guest_load {
	int have_ping, have_ab;
	unsigned long ping_tx, ping_rx;  /* packets transmitted, received */
	double ping_loss;                /* % packet loss, as ping says it */
	int have_rtt;                    /* the rtt line (none when nothing came back) */
	double rtt_min, rtt_avg, rtt_max, rtt_mdev;   /* ms */
	unsigned long ab_complete, ab_failed;
	double ab_rps;                   /* requests per second (mean) */
	char ping_log[256], ab_log[256]; /* relative to spec.dir */
};

/* Refuse or take ping's summary ("N packets transmitted, M received, ...
 * L% packet loss", "rtt min/avg/max/mdev = a/b/c/d ms") in TEXT: 0, or -1
 * with a one-line reason in err. */
int guest_ping_summary(const char *text, struct guest_load *l, char *err, size_t errlen);
/* The same for ab's "Complete requests:", "Failed requests:", "Requests
 * per second:" (each exactly once). */
int guest_ab_summary(const char *text, struct guest_load *l, char *err, size_t errlen);

struct guest_result {
	enum guest_outcome outcome;
	int signal;                  /* GO_INTERRUPTED: the signal */
	char error[512];             /* one line unless GO_OK */
	/* Seconds from xl create (-1: not reached). */
	double t_start, t_traced, t_done, t_gone;
	int destroyed;               /* ipibench had to xl destroy it */
	int gone;                    /* xl list no longer lists it */
	/* The files, relative to spec.dir ("" when not written). */
	char xl_cfg[256], console[256], trace_hvm[256], trace_sched[256];
	char xl_dmesg[256];          /* `xl dmesg` after a failed run */
	char dm_log[256];            /* HVM: the device model's log after a failed run */
	/* How the guest ended: "poweroff" (itself) or "destroy" (held, then
	 * xl destroy after IPB-GUEST-DONE: end_reason says why); "" before. */
	const char *end;
	char end_reason[200];
	struct guest_load load;      /* NIC runs */
	/* NIC: the bridge was "made" (and removed) by ipibench or "there". */
	const char *bridge;
};

/*
 * Whether guest G (loaded from FILE) may run on the host whose
 * MODEL is dom0's CPU, the first "model name" of /proc/cpuinfo as
 * hostcheck.h's hc_parse_cpuinfo() reads it (NULL or "": unknown): 0, or 1
 * with ERR the one-line refusal "FILE:LINE: paging = hap: ...".  A HAP
 * guest is refused on a CPU of QEMU's own models (MODEL starts with
 * "QEMU Virtual CPU version " or "QEMU TCG CPU version "): QEMU 10.0's TCG
 * decoder gives every MOV from a control register the exit code of a CR0
 * read, so a CR2 read exits to Xen, which emulates it from its own copy of
 * CR2, 0 under HAP, and the guest dies in its first page fault
 * (docs/guests.md "Paging and TCG").  Shadow paging keeps that copy right.
 */
int guest_hap_refused(const struct cfg_guest *g, const char *file, const char *model,
		      char *err, size_t errlen);

/* Run one guest; 0 when outcome is GO_OK, else -1. */
int guest_run(const struct guest_spec *s, struct guest_result *r);
/* Re-raise a signal guest_run() caught (default action). */
void guest_reraise(int sig);

/*
 * What the workload printed on the console TEXT (untrusted): an object
 * {"vcpus", "kernel", "workload", "ipis_sent", "ipbipi_path",
 * "workload_rc", "done"}, each member only when its line was seen and
 * well-formed.
 */
json_t *guest_console_counts(const char *text);

#endif
