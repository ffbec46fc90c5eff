/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The embedded host: Xen under qemu-system-x86_64 (TCG), a q35 machine with
 * an x2APIC CPU model and an Intel IOMMU doing interrupt remapping, dom0
 * with one vCPU.  The serial console streams into workdir/console.log and
 * is watched for milestones; files travel through a 9p share (workdir).
 * QEMU is killed as soon as the agent's files are safe: an ACPI poweroff of
 * many emulated CPUs takes minutes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/backends/qemu.h"
#include "lib/console.h"
#include "runner/hostopts.h"
#include "runner/insncount.h"
#include "runner/stall.h"
#include "runner/util.h"
#include "lib/safeio.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* A progress line stamped with the seconds since QEMU started. */
#define progress(o, t, ...) do {					\
	char pre_[24];							\
	snprintf(pre_, sizeof(pre_), "[%6.1fs] ", (double)(t));	\
	host_progress((o), pre_, __VA_ARGS__);				\
} while (0)

/* dom0 writes to Xen's console (hvc0); quiet: its boot messages cost
 * serial output under emulation. */
#define DOM0_CMDLINE_DEFAULT "console=hvc0 quiet"

static const char *const tcg_threadings[] = { "multi", "single", NULL };
static const char *const emulators[] = { "system", "built", NULL };

/* The qemu backend's [host] keys (lib/keys.h's table, backend.h). */
static const struct key qemu_settings[] = {
	HS_UINT_KEY("memory", struct qemu_settings, mem_mb, 256, 1 << 20, "2048",
		    "guest RAM, MiB"),
	HS_UINT_KEY("dom0_memory", struct qemu_settings, dom0_mem_mb, 128, 1 << 20, "512",
		    "dom0's memory (dom0_mem=), MiB"),
	HS_UINT_KEY("disk_mb", struct qemu_settings, disk_mb, 0, 1 << 20, "0",
		    "a scratch virtio disk of that many MiB for blkio (0: none)"),
	HS_CMDLINE_KEY(struct qemu_settings, cmdline),
	/* Recorded: what dom0's kernel does at boot (initcall_debug, say) is
	 * part of the boot time.  No commas: QEMU's -initrd splits on them. */
	{ "dom0_cmdline", KEY_TEXT, 0, 0, DOM0_CMDLINE_DEFAULT,
	  "the dom0 kernel's command line (no commas; its log: dom0-dmesg.txt beside console.log)", KEY_FIELD(struct qemu_settings, dom0_cmdline),
	  .record = "dom0_cmdline", .reject = "," },
	/* Recorded, beside qemu_version: which build ran the host. */
	{ "qemu", KEY_CHOICE, 0, 0, QEMU_EMULATOR_DEFAULT,
	  "the emulator: system (qemu-system-x86_64 on PATH) or built (make qemu's: Debian 13's "
	  "source with the project's fixes, faster for hundreds of CPUs)",
	  KEY_FIELD(struct qemu_settings, emulator), .choices = emulators, .record = "qemu" },
	/* The value is recorded: what an emulated time is made of depends on it. */
	{ "tcg", KEY_CHOICE, 0, 0, TCG_DEFAULT, "QEMU's TCG threading",
	  KEY_FIELD(struct qemu_settings, tcg), .choices = tcg_threadings, .record = "tcg_threading" },
	/* Recorded: whether irq_delivery could run at all. */
	{ "test_device", KEY_BOOL, 0, 0, "true",
	  "attach QEMU's edu PCI device, the test device irq_delivery rings (false: "
	  "irq_delivery is refused with ENODEV)", KEY_FIELD(struct qemu_settings, test_device),
	  .record = "test_device" },
	/* Recorded: the workloads' insn_counts come from it.  Off by default:
	 * it needs the build's xen-syms, and the timed figures are measured
	 * without it (its cost: docs/measurements.md, "The plugin's own cost"). */
	{ "insn_counts", KEY_BOOL, 0, 0, "false",
	  "count the instructions of the IPI paths with the TCG plugin tcgplug/libipicount.so "
	  "(results: each workload's insn_counts)", KEY_FIELD(struct qemu_settings, insn_counts),
	  .record = "insn_counts" },
	{ NULL },
};

int tcg_threading_ok(const char *s)
{
	for (const char *const *t = tcg_threadings; s && *t; t++)
		if (!strcmp(*t, s))
			return 1;
	return 0;
}

/* The built images (host_paths_default()), for those ipibench boot does not override. */
static const struct host_paths *built(void)
{
	static struct host_paths p;

	if (!p.xen[0])
		host_paths_default(&p);
	return &p;
}

/* The emulator: ipibench boot's --qemu, else [host] qemu's. */
static const char *emulator(const struct qemu_settings *q)
{
	if (q && q->qemu)
		return q->qemu;
	return q && !strcmp(q->emulator, "built") ? built()->qemu : QEMU_BINARY;
}

/* SET, else BUILT (a string of unknown length to QEMU's argv buffers). */
static __attribute__((noinline)) const char *image(const char *set, const char *built)
{
	return set ? set : built;
}

int qemu_build_argv(const struct host_opts *o, char **argv,
		    char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN], struct host_result *r)
{
	const struct qemu_settings *q = o->settings;
	const char *xen = image(o->xen ? o->xen : q->xen, built()->xen);
	const char *kernel = image(q->kernel, built()->kernel);
	const char *initrd = image(q->initrd, built()->initrd);
	int n = 0, b = 0;
	const char *tcg = q->tcg[0] ? q->tcg : TCG_DEFAULT;

	if (!tcg_threading_ok(tcg)) {
		host_fail(r, "TCG threading '%s': expected multi or single", tcg);
		return -1;
	}

#define ARG(s) (argv[n++] = (char *)(s))
#define FMT(...) (snprintf(bufs[b], QEMU_ARG_LEN, __VA_ARGS__), argv[n++] = bufs[b++])
	ARG(emulator(q));
	/* Said even for multi (QEMU's default here): the command line in
	 * console.log's neighbours and ps shows which threading ran. */
	ARG("-accel"); FMT("tcg,thread=%s", tcg);
	/* Only the devices ipibench uses: no default VGA, NIC, AHCI or SMBus.
	 * Each PCI device dom0 registers costs Xen work on every CPU: at 128
	 * CPUs the 8 registrations of the default machine took 7-14 s of the
	 * boot, the 4 left (host bridge, LPC, the 9p share, edu) 0.9 s. */
	ARG("-nodefaults");
	ARG("-machine"); ARG(QEMU_MACHINE);
	ARG("-cpu"); ARG("qemu64,+x2apic");
	ARG("-device"); ARG("intel-iommu,intremap=on,eim=on");
	if (q->test_device) {
		ARG("-device"); ARG(QEMU_TEST_DEVICE);
	}
	ARG("-smp");
	if (o->topo) {
		/* QEMU numbers the APIC IDs by the levels (lib/topology.h);
		 * maxcpus must be their product, the CPUs beyond cpus hotplug. */
		const struct topo *t = o->topo;

		if (topo_slots(t) != o->maxcpus || o->cpus > o->maxcpus) {
			host_fail(r, "topology of %u CPU slots with cpus %u, maxcpus %u",
				  topo_slots(t), o->cpus, o->maxcpus);
			return -1;
		}
		FMT("%u,sockets=%u,dies=%u,cores=%u,threads=%u,maxcpus=%u", o->cpus, t->sockets,
		    t->dies, t->cores, t->threads, o->maxcpus);
	} else if (o->maxcpus > o->cpus) {
		FMT("%u,maxcpus=%u", o->cpus, o->maxcpus);
	} else {
		FMT("%u", o->cpus);
	}
	ARG("-m"); FMT("%u", q->mem_mb);
	ARG("-display"); ARG("none");
	ARG("-monitor"); ARG("none");
	ARG("-serial"); ARG("stdio");
	ARG("-no-reboot");
	/* debug-threads: the vCPU threads are named "CPU N/TCG" ("ALL CPUs/TCG"
	 * single-threaded), so top -H and /proc/PID/task show which is which. */
	ARG("-name"); FMT("ipibench-%ld,debug-threads=on", (long)getpid());
	ARG("-kernel"); ARG(xen);
	ARG("-append");
	FMT("console=com1 com1=115200 dom0_mem=%uM dom0_max_vcpus=1 loglvl=all "
	    "noreboot x2apic-mode=%s console_timestamps=boot " QEMU_IDLE_TIMEOUT " "
	    QEMU_RUN_LIFETIME "%s%s%s",
	    q->dom0_mem_mb, o->mode,
	    q->test_device ? " ipibench-dev=" QEMU_TEST_DEVICE_SBDF : "",
	    q->cmdline[0] ? " " : "", q->cmdline);
	snprintf(r->xen_cmdline, sizeof(r->xen_cmdline), "%s", argv[n - 1]);
	/*
	 * -initrd takes "module args,module args": QEMU splits the list at
	 * commas and ends each module's file name at its first space (the
	 * rest is its command line), so neither may be in the two paths;
	 * -virtfs splits at commas only.
	 */
	{
		const char *const paths[] = { kernel, initrd, o->workdir };
		const char *const bad[] = { ", \t\n", ", \t\n", "," };
		const char *const what[] = { "the dom0 kernel", "the initramfs", "the run folder" };
		char q1[300];

		for (size_t i = 0; i < 3; i++) {
			size_t at = strcspn(paths[i], bad[i]);

			if (paths[i][at]) {
				host_fail(r, "%s %s has a %s, which QEMU's %s cannot take (%s): "
					  "use a path without one", what[i],
					  sio_shown(q1, sizeof(q1), paths[i]),
					  paths[i][at] == ',' ? "comma" : "space",
					  i < 2 ? "-initrd" : "-virtfs",
					  i < 2 ? "it splits the modules at commas and ends a file "
					  "name at a space" : "it splits its options at commas");
				return -1;
			}
		}
	}
	if (strchr(q->dom0_cmdline, ',')) {
		host_fail(r, "[host] dom0_cmdline = '%s': no commas (QEMU's -initrd splits on them)",
			  q->dom0_cmdline);
		return -1;
	}
	ARG("-initrd"); FMT("%s %s,%s", kernel, q->dom0_cmdline, initrd);
	ARG("-virtfs");
	FMT("local,path=%s,mount_tag=ipibench,security_model=none,id=fs0", o->workdir);
	if (q->insn_counts && q->insn_calls) {
		host_fail(r, "insn_counts and insn_calls: one plugin mode at a time");
		return -1;
	}
	if (q->insn_counts || q->insn_calls) {
		char out[QEMU_ARG_LEN], e[512];

		snprintf(out, sizeof(out), "%s/%s", o->workdir, INSNCOUNT_FILE);
		if ((q->insn_calls ? insncount_calls_plugin_arg : insncount_plugin_arg)(
			    xen, out, bufs[b], QEMU_ARG_LEN, e, sizeof(e))) {
			host_fail(r, "%s: %s", q->insn_calls ? "insn_calls" : "insn_counts", e);
			return -1;
		}
		/* One thread for all vCPUs: the plugin must not trust QEMU's vCPU
		 * index there (tcgplug/ipicount.c, "tcg=single"). */
		if (!strcmp(tcg, "single") &&
		    strlen(bufs[b]) + sizeof(",tcg=single") > QEMU_ARG_LEN) {
			host_fail(r, "insn_counts: the plugin's arguments do not fit %d bytes",
				  QEMU_ARG_LEN);
			return -1;
		} else if (!strcmp(tcg, "single")) {
			strcat(bufs[b], ",tcg=single");
		}
		ARG("-plugin");
		argv[n++] = bufs[b++];
	}
	if (q->disk_mb) {
		ARG("-drive"); FMT("file=%s/disk.img,format=raw,if=none,id=d0,cache=none", o->workdir);
		ARG("-device"); ARG("virtio-blk-pci,drive=d0");
	}
	argv[n] = NULL;
#undef ARG
#undef FMT
	return n;
}

static int make_disk(const struct host_opts *o, struct host_result *r)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/disk.img", o->workdir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)((const struct qemu_settings *)o->settings)->disk_mb << 20)) {
		host_fail(r, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void stop_qemu(pid_t pid)
{
	int st;

	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * The plugin's counts into agent.json (QEMU is dead: the file is whole up
 * to its last newline).  A mismatch between the plugin's runs and the
 * workloads is said in agent.json's "insn_counts_error", not a failed run:
 * the times and the hypervisor's own counts stand.
 */
static void merge_counts(const struct host_opts *o, const char *agentpath,
			 const char *countspath, bool calls, double t)
{
	char err[600];
	json_t *agent = sio_load_json(agentpath, SIO_MAX_JSON, err, sizeof(err));

	if (!agent) {
		progress(o, t, "insn counts: %s", err);
		return;
	}
	if ((calls ? insncount_calls_merge : insncount_merge)(countspath, agent, err, sizeof(err))) {
		progress(o, t, "insn counts: %s", err);
		json_object_set_new(agent, calls ? "insn_calls_error" : "insn_counts_error",
				    json_string(err));
	}
	if (sio_write_json(agentpath, agent, JSON_INDENT(1) | JSON_SORT_KEYS, err, sizeof(err)))
		progress(o, t, "insn counts: %s", err);
	json_decref(agent);
}

/*
 * The evidence of a run that stopped (runner/stall.h) while QEMU still
 * runs: its monitor on QMP, Xen's debug keys on SERIAL_IN, and what the
 * console prints meanwhile into console.log too.  The facts go in R.
 */
static void capture(const struct host_opts *o, struct host_result *r, const char *reason,
		    double t, pid_t pid, int serial_in, int serial_out, int log, int qmp,
		    const struct stall_track *tr)
{
	struct stall_found f;
	char err[600];
	unsigned int n = o->cpus < TOPO_MAX_CPUS ? o->cpus : TOPO_MAX_CPUS;
	uint32_t *ids = calloc(n ? n : 1, sizeof(*ids));
	struct stall_capture c = {
		.workdir = o->workdir, .reason = reason, .after_s = t,
		.window_s = o->stall_s, .qemu = pid, .con_in = serial_in, .con_out = serial_out,
		.log = log, .qmp = qmp, .apic_ids = ids, .ncpus = n, .track = tr,
	};

	/* The present CPUs are the first cpus of the slots. */
	for (unsigned int i = 0; ids && i < n; i++)
		ids[i] = o->topo ? topo_apic_id(o->topo, i) : i;
	if (!ids)
		c.ncpus = 0;   /* out of memory: no info lapic */
	snprintf(r->stall_reason, sizeof(r->stall_reason), "%s", reason);
	snprintf(r->stall_phase, sizeof(r->stall_phase), "%s", tr->phase);
	r->stall_after_s = t;
	r->stall_quiet_s = t - tr->t_last;
	progress(o, t, "%s: collecting evidence in %s/" STALL_DIR " (at most %d s)",
		 reason, o->workdir, STALL_CAPTURE_MAX_S);
	int bad = stall_capture(&c, &f, err, sizeof(err));

	free(ids);
	if (bad) {
		progress(o, t, "%s: evidence: %s", reason, err);
		return;
	}
	progress(o, t + f.took_s, "%s: evidence collected in %.0f s (%u vCPU threads running, "
		 "%u idle)%s%s", reason, f.took_s, f.vcpus_running, f.vcpus_idle,
		 f.note[0] ? "; " : "", f.note);
}

static int qemu_run(const struct host_opts *o, struct host_result *r)
{
	char *argv[QEMU_MAX_ARGS];
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	char line[4096], logpath[4096], agentpath[4096], countspath[4096];
	size_t llen = 0;
	int pfd[2], rc = -1, done = 0, in[2] = { -1, -1 }, mon[2] = { -1, -1 };
	pid_t pid;
	struct stall_track tr;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldpipe;
	char monarg[64];
	int log;
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	double t0 = now_s(), t;
	const struct qemu_settings *q = o->settings;
	const char *qemu = emulator(q);

	memset(r, 0, sizeof(*r));
	r->agent_rc = -1;
	if (!find_program(qemu)) {
		host_fail(r, "%s not found (%s)", qemu, q->qemu ? "ipibench boot --qemu" :
			  strcmp(q->emulator, "built") ? "install it with 'make deps'" :
			  "[host] qemu = built: make qemu builds it");
		return -1;
	}
	for (const char **p = (const char *[]){ image(o->xen ? o->xen : q->xen, built()->xen),
						image(q->kernel, built()->kernel),
						image(q->initrd, built()->initrd), NULL };
	     *p; p++)
		if (access(*p, R_OK)) {
			host_fail(r, "%s: %s (run 'make hv dom0')", *p, strerror(errno));
			return -1;
		}
	int nargs = qemu_build_argv(o, argv, bufs, r);
	if (nargs < 0)
		return -1;
	if (q->disk_mb && make_disk(o, r))
		return -1;
	/*
	 * For the evidence of a stall: the serial line's input (Xen's debug
	 * keys; -serial stdio reads stdin) and QEMU's monitor on QMP, over one
	 * end of a socket pair QEMU inherits.
	 */
	if (pipe2(in, O_CLOEXEC) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, mon)) {
		host_fail(r, "pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (in[i] >= 0)
				close(in[i]);
		}
		return -1;
	}
	snprintf(monarg, sizeof(monarg), "socket,id=mon,fd=%d", mon[1]);
	argv[nargs++] = "-chardev";
	argv[nargs++] = monarg;
	argv[nargs++] = "-mon";
	argv[nargs++] = "chardev=mon,mode=control";
	argv[nargs] = NULL;
	snprintf(logpath, sizeof(logpath), "%s/console.log", o->workdir);
	snprintf(agentpath, sizeof(agentpath), "%s/agent.json", o->workdir);
	unlink(agentpath);
	snprintf(countspath, sizeof(countspath), "%s/%s", o->workdir, INSNCOUNT_FILE);
	unlink(countspath);  /* the plugin appends */
	if ((log = host_log_and_pipe(logpath, pfd, r)) < 0) {
		for (int i = 0; i < 2; i++)
			close(in[i]), close(mon[i]);
		return -1;
	}
	stop_signal = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	/* A write to a QEMU that is gone is an error, not the end of ipibench. */
	sigaction(SIGPIPE, &ign, &oldpipe);
	stall_track_init(&tr, 0);

	/* QEMU dies with us, whatever way we end. */
	pid = host_spawn_io(argv, in[0], pfd[1], mon[1]);
	close(pfd[1]);
	close(in[0]);
	close(mon[1]);
	if (pid < 0) {
		host_fail(r, "fork: %s", strerror(errno));
		close(pfd[0]);
		goto out;
	}
	char topo[96] = "";
	if (o->topo) {
		memcpy(topo, ", ", 3);
		topo_format(o->topo, topo + 2, sizeof(topo) - 2);
	}
	progress(o, 0, "qemu: %u CPUs%s%s, x2apic-mode=%s, TCG %s-threaded, console in %s",
		 o->cpus, o->maxcpus > o->cpus ? " (+hotplug)" : "", topo, o->mode,
		 q->tcg[0] ? q->tcg : TCG_DEFAULT, logpath);

	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int n;

		t = now_s() - t0;
		if (stop_signal) {
			host_fail(r, "stopped by signal %d after %.0fs; QEMU killed", (int)stop_signal, t);
			break;
		}
		if (t >= o->timeout_s) {
			host_fail(r, "timeout after %us (%s); QEMU killed, see %s", o->timeout_s,
			     r->t_dom0 ? "dom0 was up, the agent did not finish" :
			     r->genapic[0] ? "Xen up, dom0 did not come up" :
			     "Xen did not reach its APIC setup", logpath);
			capture(o, r, "timeout", t, pid, in[1], pfd[0], log, mon[0], &tr);
			break;
		}
		/* From dom0 up on, a console quiet for the window is a stall. */
		if (o->stall_s && tr.dom0_up && t - tr.t_last >= o->stall_s) {
			r->stalled = 1;
			host_fail(r, "stalled: no console output for %u s in %s (dom0 up at %.0f s); "
				  "QEMU killed, see %s/" STALL_DIR, o->stall_s, tr.phase, r->t_dom0,
				  o->workdir);
			capture(o, r, "stall", t, pid, in[1], pfd[0], log, mon[0], &tr);
			break;
		}
		n = poll(&p, 1, 200);
		if (n < 0 && errno != EINTR) {
			host_fail(r, "poll: %s", strerror(errno));
			break;
		}
		if (n <= 0)
			continue;
		char buf[8192];
		ssize_t got = read(pfd[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int st = 0;
			waitpid(pid, &st, 0);
			pid = -1;
			host_fail(r, "QEMU exited (%s %d) before the agent finished; see %s",
			     WIFEXITED(st) ? "status" : "signal",
			     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), logpath);
			break;
		}
		/* As it arrives: a 256-CPU boot prints for many minutes. */
		if (host_log_write(log, buf, (size_t)got)) {
			host_fail(r, "%s: %s", logpath, strerror(errno));
			break;
		}
		for (ssize_t i = 0; i < got && !done; i++) {
			struct console_match m;

			if (buf[i] != '\n' && llen + 1 < sizeof(line)) {
				line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			t = now_s() - t0;
			stall_track_line(&tr, line, t);
			switch (console_parse_line(line, &m)) {
			case CON_GENAPIC:
				snprintf(r->genapic, sizeof(r->genapic), "%s", m.arg);
				r->t_genapic = t;
				progress(o, t, "xen: APIC driver %s", m.arg);
				break;
			case CON_INTREMAP:
				r->intremap = 1;
				progress(o, t, "xen: interrupt remapping enabled");
				break;
			case CON_X2APIC_WARNING:
				r->x2apic_warning = 1;
				progress(o, t, "xen: %s", console_strip_prefix(line));
				break;
			case CON_DOM0_UP:
				r->t_dom0 = t;
				progress(o, t, "dom0: up");
				break;
			case CON_AGENT_PROGRESS:
				progress(o, t, "agent: %s", m.arg);
				break;
			case CON_AGENT_DONE:
				r->agent_rc = atoi(m.arg);
				r->t_done = t;
				done = 1;
				break;
			case CON_XEN_PANIC:
				host_fail(r, "Xen panicked at %.0fs; see %s", t, logpath);
				done = -1;
				break;
			case CON_DOM0_CRASH:
				host_fail(r, "dom0 crashed at %.0fs (%s); see %s", t,
				     console_strip_prefix(line), logpath);
				done = -1;
				break;
			default:
				break;
			}
		}
		if (done < 0)
			break;
		if (done) {
			t = now_s() - t0;
			if (access(agentpath, R_OK)) {
				host_fail(r, "the agent finished but left no %s", agentpath);
				break;
			}
			progress(o, t, "agent: done (rc=%d), results safe; stopping QEMU", r->agent_rc);
			rc = 0;
			break;
		}
	}
	close(pfd[0]);
out:
	stop_qemu(pid);
	close(in[1]);
	close(mon[0]);
	sigaction(SIGPIPE, &oldpipe, NULL);
	close(log);
	if (!rc && (q->insn_counts || q->insn_calls))
		merge_counts(o, agentpath, countspath, q->insn_calls, t);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (stop_signal)
		raise(stop_signal);
	return rc;
}

static void qemu_describe(const struct host_opts *o, char *buf, size_t len)
{
	const struct qemu_settings *q = o->settings;

	snprintf(buf, len, "%s", qemu_version(emulator(q)));
}

/* The tree's Xen (make hv) and dom0 (make dom0: kernel, initramfs, the
 * agent), the emulator when it is make qemu's, and the TCG plugin (make
 * plugin) for instruction counts. */
static int qemu_needs(const void *settings, struct host_needs *n, char *err, size_t errlen)
{
	const struct qemu_settings *q = settings;

	(void)err, (void)errlen;
	if (n->default_build)
		host_needs_add(n, "hv");
	host_needs_add(n, "dom0");
	if (q && !strcmp(q->emulator, "built"))
		host_needs_add(n, "qemu");
	if (q && (q->insn_counts || q->insn_calls))
		host_needs_add(n, "plugin");
	return 0;
}

const struct host_backend_ops backend_qemu = {
	.name = "qemu",
	.help = "Xen under qemu-system-x86_64 (TCG), q35 + x2APIC + intel-iommu intremap",
	.flags = HB_EMULATED | HB_BOOTS_BUILD,
	.settings = qemu_settings,
	.settings_size = sizeof(struct qemu_settings),
	.describe_key = "qemu_version",
	.run = qemu_run,
	.describe = qemu_describe,
	.needs = qemu_needs,
};
