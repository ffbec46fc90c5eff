/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A run that stopped making progress: what the runner watches (the last
 * console line, and the phase the run was in), and the evidence it
 * collects before it stops the host, into WORKDIR/stall/ beside
 * console.log (docs/stalls.md says how to read it):
 *   host.txt          the host's load, CPU count and QEMU's threads (name,
 *                     state, CPU time) sampled twice one second apart;
 *   qemu-monitor.txt  QEMU's monitor over QMP: info registers -a, info
 *                     lapic of every vCPU, info irq, info pic, info cpus;
 *   xen-keys.log      the console from Xen's debug keys r q i 0 d on;
 *   summary.json      reason, times, phase, last line, what answered.
 * The monitor is asked first and Xen's keys last: the keys' dump sends
 * IPIs of its own, which would change the local APICs' state.  Each step
 * has its own bound; the whole capture takes at most STALL_CAPTURE_MAX_S.
 */
#ifndef IPIBENCH_STALL_H
#define IPIBENCH_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STALL_DIR "stall"
#define STALL_CAPTURE_MAX_S 55

/* The run as its console showed it. */
struct stall_track {
	char phase[80];          /* boot | dom0 | workload NAME */
	char last_line[512];     /* the last complete console line */
	double t_last;           /* when it came (the caller's clock) */
	bool dom0_up;
};

void stall_track_init(struct stall_track *s, double t);
/* A complete console line LINE (no newline) at time T. */
void stall_track_line(struct stall_track *s, const char *line, double t);

/* One thread of a process, from /proc/PID/task/TID/{comm,stat}. */
struct stall_thread {
	int tid;
	char comm[32];
	char state;
	unsigned long long utime, stime;   /* clock ticks */
};
/*
 * Up to MAX threads of process PID into OUT: their number, or -1 with
 * errno (no such process).
 */
int stall_threads(pid_t pid, struct stall_thread *out, size_t max);
/* Whether a thread's name is one of QEMU's vCPU threads ("CPU 3/TCG", "ALL CPUs/TCG"). */
bool stall_is_vcpu(const char *comm);

/* What stall_capture() is given. */
struct stall_capture {
	const char *workdir;
	const char *reason;      /* "stall" | "timeout" */
	double after_s, window_s;/* since QEMU started; the window (0: none) */
	pid_t qemu;
	int con_in;              /* QEMU's serial input (a pipe), -1: none */
	int con_out;             /* QEMU's serial output, -1: none */
	bool con_follow;         /* con_out is a file another process writes
	                          * (its end is no end of output) */
	int log;                 /* console.log: con_out's bytes go on there too */
	int qmp;                 /* a QMP socket, -1: none */
	const uint32_t *apic_ids;/* the vCPUs' APIC IDs, for info lapic */
	unsigned int ncpus;
	const struct stall_track *track;
	/* A key's output is over after this long without any (0: 2 s). */
	double key_quiet_s;
};

/* What it found. */
struct stall_found {
	bool xen_answered, monitor;
	unsigned int vcpus_running, vcpus_idle;
	double took_s;
	char note[512];          /* one line: what did not answer */
	char ended_after[8];     /* QEMU ended during the keys: after this key
	                          * ("r"), "switch" after the input switch; ""
	                          * when not */
};

/*
 * Collect the evidence into c->workdir/stall/ (see above).  0, or -1 with
 * a one-line reason in err when the folder could not be written; a
 * monitor or a Xen that does not answer is a finding, not an error.
 */
int stall_capture(const struct stall_capture *c, struct stall_found *f, char *err, size_t errlen);

/*
 * `ipibench host capture` (host_capture.c): stall_capture() for a QEMU host
 * another program started.  Its options' table (for `ipibench host`'s help
 * and manual page; what its entries set is not used) and the subcommand: ARGV[0] is "capture", LIKE gives
 * the usage and synopsis of `ipibench host`.
 */
struct opt;
struct opts_cmd;
const struct opt *host_capture_opts(void);
int host_capture_cmd(int argc, char **argv, const struct opts_cmd *like);

#endif
