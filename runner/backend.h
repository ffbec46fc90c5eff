/*
 * Host backends: where a Xen host in a given x2APIC mode comes from.  Each
 * backend is a table of operations in runner/backends/<name>.c with one
 * entry in runner/backends.c (which has the checklist for adding one;
 * runner/backends/skeleton.c is a commented template).  The runner treats
 * them alike and asks about a property (the HB_* flags), not a name; the
 * exceptions are `ipibench boot`, which is the qemu backend's own command,
 * and the [host] settings, which are still one struct host_opts for all.
 */
#ifndef IPIBENCH_BACKEND_H
#define IPIBENCH_BACKEND_H

#include <stdio.h>

#define HOST_ERR_LEN 512

struct host_opts {
	const char *mode;        /* physical | cluster | mixed */
	unsigned int cpus;       /* physical CPUs present at boot */
	unsigned int maxcpus;    /* > cpus: hotpluggable CPUs Xen must allow for */
	unsigned int mem_mb;
	unsigned int dom0_mem_mb;
	unsigned int timeout_s;  /* whole boot + job */
	const char *xen;         /* hypervisor image */
	const char *kernel;      /* dom0 kernel */
	const char *initrd;      /* dom0 initramfs (with the agent) */
	const char *qemu;        /* emulator binary (qemu backend) */
	const char *tcg;         /* qemu: TCG threading, "multi" or "single" */
	const char *extra_cmdline; /* appended to Xen's command line */
	const char *workdir;     /* job.json in, agent.json + console.log out */
	unsigned int disk_mb;    /* > 0: attach a scratch virtio disk of that size */
	int no_test_device;      /* qemu: no QEMU_TEST_DEVICE (irq_delivery: ENODEV) */
	int quiet;               /* no progress lines */
	FILE *progress;          /* where progress lines go (stderr) */
};

struct host_result {
	char genapic[64];        /* the APIC driver Xen switched to */
	int intremap;            /* "Interrupt Remapping enabled" seen */
	int x2apic_warning;      /* Xen overrode the requested mode */
	int agent_rc;            /* -1 until the agent said it was done */
	double t_genapic, t_dom0, t_done; /* seconds since start */
	char xen_cmdline[1024];
	char error[HOST_ERR_LEN];/* one line when run() fails */
};

/*
 * What a backend is, for the code that must treat kinds of host differently
 * (host_backend_ops.flags): the runner asks about a property, never a name.
 */
enum host_backend_flags {
	/*
	 * The host is emulated (times are emulated times, results.json says
	 * "emulated": true), and the [host] tcg setting applies to it.
	 */
	HB_EMULATED = 1 << 0,
};

struct host_backend_ops {
	const char *name;
	const char *help;
	unsigned int flags;      /* HB_* */
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
};

/* Every backend, NULL-terminated; the first is a config's default. */
extern const struct host_backend_ops *const host_backends[];
const struct host_backend_ops *host_backend_find(const char *name);
/*
 * The names of the backends with every flag of FLAGS (0: all of them), in
 * table order, for messages: "qemu, local or reboot".  BUF, or "" if none.
 */
const char *host_backend_names(char *buf, size_t len, unsigned int flags);

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
