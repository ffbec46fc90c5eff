/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench host install|uninstall|status|check|capture: prepare a real Xen
 * test host for the reboot backend (GRUB entries per x2APIC mode in
 * custom.cfg, the patched Xen in /boot/ipibench, host.json;
 * ipibench-resume.service is the package's, or written to /etc from a
 * checkout) and take it all away again; --root DIR works on a mounted image
 * instead of /.  check says what the host is; capture (host_capture.c)
 * collects a stalled emulated host's evidence.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "runner/backend.h"
#include "runner/backends/reboot.h"
#include "runner/hostcheck.h"
#include "runner/hostopts.h"
#include "runner/results.h"
#include "runner/runner.h"
#include "runner/stall.h"
#include "runner/util.h"
#include "lib/opts.h"
#include "lib/safeio.h"
#include "lib/spawn.h"

/* What the options set: install's, and --root of them all. */
static struct {
	const char *root, *xen, *kernel, *initrd, *xen_cmdline, *dom0_cmdline, *results;
	bool yes;
} args;

static const struct opt install_opts[] = {
	OPT_STRING(0, "root", &args.root, "DIR",
		   "act on DIR as the host's / (an image; IPIBENCH_HOST_ROOT)"),
	OPT_STRING(0, "xen", &args.xen, "FILE", "the patched Xen (default BUILD/xen/xen.gz)"),
	OPT_STRING(0, "kernel", &args.kernel, "FILE",
		   "dom0 kernel (default /boot/vmlinuz-$(uname -r), as the\ndefault entry)"),
	OPT_STRING(0, "initrd", &args.initrd, "FILE",
		   "dom0 initramfs (default /boot/initrd.img-$(uname -r))"),
	OPT_STRING(0, "xen-cmdline", &args.xen_cmdline, "S",
		   "Xen's command line, its x2APIC mode options left out\n"
		   "(default: the running Xen's, as the agent reads it)"),
	OPT_STRING(0, "dom0-cmdline", &args.dom0_cmdline, "S",
		   "dom0's command line (default: this kernel's /proc/cmdline)"),
	OPT_STRING(0, "results", &args.results, "DIR",
		   "where this host keeps results (default\n/var/lib/ipibench/results); must survive reboots"),
	OPT_BOOLEAN('y', "yes", &args.yes, "the reboot backend reboots without asking first"),
	OPT_END(),
};

/* host check's options: the configs to judge (-c, repeatable), --json. */
#define CHECK_MAX_CONFIGS 16
struct check_args {
	const char *configs[CHECK_MAX_CONFIGS];
	unsigned int n;
	bool json;
	const char *root;
};

static int opt_config(const struct opt *o, const char *arg)
{
	struct check_args *a = o->value;

	if (a->n == CHECK_MAX_CONFIGS) {
		fprintf(stderr, "ipibench host check: more than %d configs\n", CHECK_MAX_CONFIGS);
		return 2;
	}
	a->configs[a->n++] = arg;
	return 0;
}

#define CHECK_HELP_C "also say whether CONFIG can run here and what it can\nshow (repeatable)"
#define CHECK_HELP_JSON "print the facts and findings as JSON"
#define CHECK_HELP_ROOT "read the host's files under DIR, the commands' output\n" \
	"from DIR" "/var/lib/ipibench/facts/ (a captured host)"
#define CHECK_OPTS(a) { \
	OPT_CALLBACK('c', "config", (a), "CONFIG", CHECK_HELP_C, opt_config), \
	OPT_BOOLEAN(0, "json", &(a)->json, CHECK_HELP_JSON), \
	OPT_STRING(0, "root", &(a)->root, "DIR", CHECK_HELP_ROOT), \
	OPT_END() }
/* The same for the help and the manual page (which keeps the table). */
static const struct opt check_help[] = {
	OPT_CALLBACK('c', "config", NULL, "CONFIG", CHECK_HELP_C, opt_config),
	OPT_BOOLEAN(0, "json", NULL, CHECK_HELP_JSON),
	OPT_STRING(0, "root", NULL, "DIR", CHECK_HELP_ROOT),
	OPT_END(),
};

const struct opts_synopsis host_synopsis = {
	"ipibench host", "prepare and check a Xen test host; capture a stalled one's evidence",
	"install [--root DIR] [--xen FILE] [--kernel FILE] [--initrd FILE]\n"
	"        [--xen-cmdline S] [--dom0-cmdline S] [--results DIR] [--yes]\n"
	"uninstall [--root DIR]\n"
	"status [--root DIR]\n"
	"check [-c CONFIG]... [--json] [--root DIR]\n"
	"capture -o DIR [--qmp SOCKET] [--serial FIFO] [--console FILE] [--pid PID]\n"
	"        [--cpus N] [--after S] [--reason WHY] [--key-quiet MS]", 1,
};

static void usage(FILE *f)
{
	opts_usage_lines(f, &host_synopsis);
	fprintf(f,
"\n"
"Prepare this Xen host for 'backend = reboot': install copies the patched Xen\n"
"to /boot/ipibench/, writes one GRUB menu entry per x2APIC mode (%s:\n"
"ids ipibench-MODE) into /boot/grub/custom.cfg (sourced by\n"
"Debian's grub.cfg through /etc/grub.d/41_custom; no update-grub needed),\n"
"uses the package's " HOST_UNIT_NAME " (from a checkout: writes it to\n"
"/etc/systemd/system/) and records it all in /var/lib/ipibench/host.json.\n"
"The reboot backend boots each entry once (next_entry in grubenv, as\n"
"grub-reboot does) and the unit resumes the matrix after each boot.\n"
"uninstall removes all of it and disables the unit (results stay); status\n"
"shows what is installed and which run is pending.  install and uninstall\n"
"need root.\n"
"\n"
"check says what this host is (Xen version and build, the modes it offers,\n"
"the APIC driver, x2APIC IDs and clusters, hotplug CPUs and so whether\n"
"flush_tlb_all takes the ALLBUT shorthand, interrupt remapping, cpufreq,\n"
"turbo, C-states, SMT, microcode, Xen's command line), from xl info, xl\n"
"dmesg, xenpm and /proc/cpuinfo, and for each -c CONFIG whether it can run\n"
"here and what it can show, each finding with its fix.  Exit status 1 when\n"
"a config cannot run here.\n"
"\n"
"capture collects the evidence of an emulated host that stopped making\n"
"progress, as 'ipibench run' does for the QEMU it starts (docs/stalls.md),\n"
"for a QEMU another program started (the test host of scripts/test-host.sh):\n"
"QEMU's threads, its monitor over QMP (info registers -a, info lapic of\n"
"each vCPU, info irq, info pic, info cpus), then Xen's debug keys r q i 0 d\n"
"over the serial line, into DIR/stall/ (host.txt, qemu-monitor.txt,\n"
"xen-keys.log, summary.json).  What is not given, or does not answer, is\n"
"said and left out.  Exit status 1 when DIR/stall/ could not be written.\n"
"\n"
"install:\n", mode_list());
	opts_help(f, install_opts);
	fprintf(f, "\ncheck:\n");
	opts_help(f, check_help);
	fprintf(f, "\ncapture:\n");
	opts_help(f, host_capture_opts());
}

static void opts_usage(FILE *f, const struct opts_cmd *cmd)
{
	(void)cmd;
	usage(f);
}

static void page_text(FILE *f, const void *data)
{
	(void)data;
	usage(f);
}

/* ---- small file helpers ------------------------------------------------ */

/* GRUB's config files: read by safeio's rule (a FIFO is refused at once),
 * at most this many bytes. */
#define GRUB_CFG_MAX (16u << 20)

/* PATH's text, or NULL when it is missing or not a regular file within
 * GRUB_CFG_MAX. */
static char *read_text(const char *path)
{
	char *buf, err[512];

	if (sio_read_file(path, GRUB_CFG_MAX, &buf, NULL, err, sizeof(err)))
		return NULL;
	return buf;
}

/*
 * The running kernel's command line.  /proc files report a size of 0 and
 * are not inputs under --root, so safeio's regular-file rule (which
 * refuses a file that grows while read) is not for them: one line, at most
 * 4 KiB, read directly.  "" when it cannot be read.
 */
static void proc_cmdline(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cmdline", "r");

	buf[0] = '\0';
	if (f && !fgets(buf, (int)len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int write_text(const char *path, const char *text, mode_t mode, char *err, size_t len)
{
	return sio_write_file(path, text, strlen(text), mode, err, len);
}

/* FROM (the hypervisor image: a regular file) copied atomically to TO. */
static int copy_file(const char *from, const char *to, char *err, size_t len)
{
	char buf[1 << 16];
	struct sio_atomic a;
	struct stat st;
	FILE *in = fopen(from, "rb");
	size_t n;

	if (!in) {
		snprintf(err, len, "%.700s: %s", from, strerror(errno));
		return -1;
	}
	if (fstat(fileno(in), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%.700s: not a regular file", from);
		fclose(in);
		return -1;
	}
	if (sio_atomic_open(&a, to, 0644, err, len)) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, a.f) != n)
			break;   /* ferror(a.f): commit fails */
	if (ferror(in)) {
		snprintf(err, len, "%.700s: read error", from);
		fclose(in);
		sio_atomic_abort(&a);
		return -1;
	}
	fclose(in);
	return sio_atomic_commit(&a, err, len);
}

static void dirname_of(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s", path);
	char *s = strrchr(buf, '/');
	if (s && s != buf)
		*s = '\0';
}

/* Drop the words of S that start with any of PREFIXES (NULL-terminated). */
static void drop_words(char *s, const char *const *prefixes)
{
	char out[2048] = "";
	size_t n = 0;

	for (char *p = s; *p;) {
		p += strspn(p, " \t\n");
		size_t w = strcspn(p, " \t\n");
		int drop = 0;

		if (!w)
			break;
		for (const char *const *q = prefixes; *q; q++)
			if (!strncmp(p, *q, strlen(*q)))
				drop = 1;
		if (!drop && n + w + 2 < sizeof(out))
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%.*s", n ? " " : "", (int)w, p);
		p += w;
	}
	strcpy(s, out);
}

/* The running Xen's command line, from the agent (it needs a dom0). */
static int running_xen_cmdline(char *buf, size_t len, char *err, size_t errlen)
{
	char dir[] = "/tmp/ipibench-host-XXXXXX";
	struct host_opts o;
	struct host_result r;
	json_t *a = NULL;
	int rc;

	if (host_check_dom0(err, errlen))
		return -1;
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	host_opts_default(&o, 1);
	o.quiet = 1;
	o.timeout_s = 60;
	rc = host_agent_exec(&o, NULL, dir, "agent.log", &r, &a);
	json_decref(a);
	if (rc)
		snprintf(err, errlen, "%s", r.error);
	else
		snprintf(buf, len, "%s", r.xen_cmdline);
	char p[64];
	snprintf(p, sizeof(p), "%s/agent.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/agent.log", dir);
	unlink(p);
	rmdir(dir);
	return rc;
}

/* systemd reads the units again: 0 when systemctl says it did. */
static int daemon_reload(void)
{
	struct sio_child c = SIO_CHILD_INIT;

	c.argv = (const char *[]){ "systemctl", "daemon-reload", NULL };
	c.out = c.err = SIO_CHILD_INHERIT;
	return sio_child_run(&c) ? -1 : 0;
}

static int need_root(const struct host_layout *l, const char *what)
{
	if (!l->root[0] && geteuid()) {
		fprintf(stderr, "ipibench host %s: must run as root (it writes /boot/grub, "
			"/etc/systemd/system and /var/lib/ipibench); try: sudo %s host %s\n",
			what, "ipibench", what);
		return -1;
	}
	return 0;
}

/* ---- install ------------------------------------------------------------ */

static int do_install(const struct host_layout *l, struct host_install *h, const char *xen_src)
{
	char err[1024], text[16384], path[PATH_MAX], exe[PATH_MAX], ids[128];
	struct stat xs, ks;
	struct grubenv e;
	ssize_t n;

	/* Checks first: nothing is written unless all of them pass. */
	if (access(l->grub_dir, W_OK)) {
		fprintf(stderr, "ipibench host install: %s: %s (is GRUB this host's boot loader?)\n",
			l->grub_dir, strerror(errno));
		return 1;
	}
	for (const char *f, *const *p = (const char *const[]){ xen_src, h->kernel, h->initrd, NULL };
	     (f = *p); p++)
		if (*f && access(f, R_OK)) {
			fprintf(stderr, "ipibench host install: %s: %s\n", f, strerror(errno));
			return 1;
		}
	if (run_mkdirs(l->boot_dir) || run_mkdirs(l->state_dir)) {
		fprintf(stderr, "ipibench host install: %s: %s\n", l->boot_dir, strerror(errno));
		return 1;
	}
	snprintf(h->xen, sizeof(h->xen), "%s/xen.gz", l->boot_dir);
	if (stat(l->boot_dir, &xs) || stat(h->kernel, &ks) || xs.st_dev != ks.st_dev) {
		fprintf(stderr, "ipibench host install: %s is not on the filesystem of %s: GRUB "
			"entries load Xen and dom0 from one filesystem (copy it to /boot)\n",
			h->kernel, l->boot_dir);
		return 1;
	}
	if (h->initrd[0] && (stat(h->initrd, &ks) || xs.st_dev != ks.st_dev)) {
		fprintf(stderr, "ipibench host install: %s is not on the filesystem of %s\n",
			h->initrd, l->boot_dir);
		return 1;
	}
	if (run_mkdirs(h->results)) {
		fprintf(stderr, "ipibench host install: %s: %s\n", h->results, strerror(errno));
		return 1;
	}
	struct statfs sf;
	if (!statfs(h->results, &sf) && (sf.f_type == 0x01021994 || sf.f_type == 0x858458f6)) {
		fprintf(stderr, "ipibench host install: %s is on a tmpfs: results would not "
			"survive a reboot (give --results DIR)\n", h->results);
		return 1;
	}

	/* 1. The hypervisor. */
	if (copy_file(xen_src, h->xen, err, sizeof(err))) {
		fprintf(stderr, "ipibench host install: %s\n", err);
		return 1;
	}
	if (host_grub_path(h->xen, h->grub_xen, sizeof(h->grub_xen)) ||
	    host_grub_path(h->kernel, h->grub_kernel, sizeof(h->grub_kernel)) ||
	    (h->initrd[0] && host_grub_path(h->initrd, h->grub_initrd, sizeof(h->grub_initrd)))) {
		fprintf(stderr, "ipibench host install: cannot resolve GRUB paths: %s\n", strerror(errno));
		return 1;
	}
	/* 2. The menu entries, replacing an earlier install's. */
	char *old = read_text(l->custom_cfg), *kept;
	int found;
	kept = host_cfg_strip(old ? old : "", &found);
	free(old);
	if (host_entries_text(h, text, sizeof(text))) {
		fprintf(stderr, "ipibench host install: GRUB entries too long\n");
		free(kept);
		return 1;
	}
	size_t kl = strlen(kept);
	char *cfg = malloc(kl + strlen(text) + 2);
	sprintf(cfg, "%s%s%s", kept, kl && kept[kl - 1] != '\n' ? "\n" : "", text);
	free(kept);
	int rc = write_text(l->custom_cfg, cfg, 0644, err, sizeof(err));
	free(cfg);
	if (rc) {
		fprintf(stderr, "ipibench host install: %s\n", err);
		return 1;
	}
	/* 3. GRUB's environment block must exist for next_entry. */
	rc = grubenv_load(l->grubenv, &e, err, sizeof(err));
	if (rc < 0 || (rc == 1 && grubenv_store(l->grubenv, &e, err, sizeof(err)))) {
		fprintf(stderr, "ipibench host install: %s\n", err);
		return 1;
	}
	/* 4. The unit (enabled by the reboot backend when a matrix starts): the
	 * package's when it is the one this command would write (it runs this
	 * binary), else written to /etc, where it overrides the package's. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (host_unit_text(exe, build_dir(), text, sizeof(text))) {
		fprintf(stderr, "ipibench host install: unit text too long\n");
		return 1;
	}
	const char *unit = NULL;
	for (size_t i = 0; i < sizeof(l->unit_pkg) / sizeof(l->unit_pkg[0]) && !unit; i++) {
		char *pkg = read_text(l->unit_pkg[i]);
		if (pkg && !strcmp(pkg, text))
			unit = l->unit_pkg[i];
		free(pkg);
	}
	if (unit) {
		if (unlink(l->unit) && errno != ENOENT) {
			fprintf(stderr, "ipibench host install: %s: %s\n", l->unit, strerror(errno));
			return 1;
		}
	} else {
		unit = l->unit;
		dirname_of(l->unit, path, sizeof(path));
		if (run_mkdirs(path) || write_text(l->unit, text, 0644, err, sizeof(err))) {
			fprintf(stderr, "ipibench host install: %s\n", err[0] ? err : strerror(errno));
			return 1;
		}
	}
	if (!l->root[0] && !access("/run/systemd/system", F_OK) && daemon_reload())
		fprintf(stderr, "ipibench host install: warning: systemctl daemon-reload failed\n");
	/* 5. The record. */
	iso_now(h->installed, sizeof(h->installed));
	if (host_install_store(l, h, err, sizeof(err))) {
		fprintf(stderr, "ipibench host install: %s\n", err);
		return 1;
	}
	printf("ipibench host install: GRUB entries %s in %s\n",
	       host_entry_list(ids, sizeof(ids), ", "), l->custom_cfg);
	printf("  xen: %s (GRUB %s)\n  dom0: %s%s%s\n  unit: %s\n  results: %s\n",
	       h->xen, h->grub_xen, h->grub_kernel, h->grub_initrd[0] ? " + " : "",
	       h->grub_initrd, unit, h->results);
	old = read_text(l->grub_cfg);
	if (!old || !strstr(old, "custom.cfg"))
		printf("  warning: %s does not source custom.cfg: run update-grub "
		       "(Debian's /etc/grub.d/41_custom adds it)\n", l->grub_cfg);
	free(old);
	printf("  next: a config with [host] backend = reboot, then 'ipibench run -c CONFIG -o %s/NAME'\n",
	       h->results);
	return 0;
}

static int cmd_install(int argc, char **argv)
{
	static const struct opts_cmd cmd = {
		.name = "ipibench host install", .opts = install_opts, .usage = opts_usage,
		.syn = &host_synopsis,
	};
	struct host_layout layout, *l = &layout;
	struct host_install h;
	char xen[PATH_MAX], err[512], **rest;
	const char *root, *xen_cmdline, *dom0_cmdline, *kernel, *initrd, *results;
	struct utsname u;
	int nrest, rc;

	memset(&h, 0, sizeof(h));
	memset(&args, 0, sizeof(args));
	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	if (nrest) {
		fprintf(stderr, "ipibench host install: unexpected '%s' (see 'ipibench host --help')\n",
			rest[0]);
		return 2;
	}
	root = args.root, xen_cmdline = args.xen_cmdline, dom0_cmdline = args.dom0_cmdline;
	kernel = args.kernel, initrd = args.initrd, results = args.results;
	h.assume_yes = args.yes;
	if (args.xen)
		snprintf(xen, sizeof(xen), "%s", args.xen);
	else
		snprintf(xen, sizeof(xen), "%s/xen/xen.gz", build_dir());
	/* The defaults are under --root, so they come once it is known. */
	host_layout_init(l, root);
	uname(&u);
	if ((kernel ? snprintf(h.kernel, sizeof(h.kernel), "%s", kernel) :
	     snprintf(h.kernel, sizeof(h.kernel), "%s/boot/vmlinuz-%s", l->root, u.release))
	    >= (int)sizeof(h.kernel) ||
	    (initrd ? snprintf(h.initrd, sizeof(h.initrd), "%s", initrd) :
	     snprintf(h.initrd, sizeof(h.initrd), "%s/boot/initrd.img-%s", l->root, u.release))
	    >= (int)sizeof(h.initrd) ||
	    (results ? snprintf(h.results, sizeof(h.results), "%s", results) :
	     snprintf(h.results, sizeof(h.results), "%s/results", l->state_dir))
	    >= (int)sizeof(h.results)) {
		fprintf(stderr, "ipibench host install: a path is too long\n");
		return 2;
	}
	if (need_root(l, "install"))
		return 1;
	if (access(h.kernel, R_OK)) {
		fprintf(stderr, "ipibench host install: dom0 kernel %s: %s (give --kernel)\n",
			h.kernel, strerror(errno));
		return 1;
	}
	if (access(h.initrd, R_OK)) {
		fprintf(stderr, "ipibench host install: dom0 initramfs %s: %s (give --initrd)\n",
			h.initrd, strerror(errno));
		return 1;
	}
	static const char *const xen_drop[] = { "x2apic-mode=", "x2apic_phys=", "ipibench.", NULL };
	static const char *const dom0_drop[] = { "BOOT_IMAGE=", "initrd=", "placeholder", NULL };
	if (xen_cmdline) {
		snprintf(h.xen_cmdline, sizeof(h.xen_cmdline), "%s", xen_cmdline);
	} else if (running_xen_cmdline(h.xen_cmdline, sizeof(h.xen_cmdline), err, sizeof(err))) {
		fprintf(stderr, "ipibench host install: cannot read the running Xen's command line "
			"(%s): give --xen-cmdline\n", err);
		return 1;
	}
	/* Each entry sets its own x2APIC mode: an option that would set another
	 * (given, or on the running Xen's command line) is left out, and said. */
	char opt[128], q[160];
	while (cmdline_apic_option(h.xen_cmdline, opt, sizeof(opt))) {
		const char *const one[] = { opt, NULL };
		fprintf(stderr, "ipibench host install: %s left out of Xen's command line: each "
			"entry sets its own x2APIC mode\n", sio_shown(q, sizeof(q), opt));
		drop_words(h.xen_cmdline, one);
	}
	drop_words(h.xen_cmdline, xen_drop);
	if (dom0_cmdline) {
		snprintf(h.dom0_cmdline, sizeof(h.dom0_cmdline), "%s", dom0_cmdline);
	} else {
		proc_cmdline(h.dom0_cmdline, sizeof(h.dom0_cmdline));
	}
	drop_words(h.dom0_cmdline, dom0_drop);
	snprintf(h.grub_fs, sizeof(h.grub_fs), "ext2");
	if (!l->root[0] && find_program("grub-probe")) {
		struct sio_child c = SIO_CHILD_INIT;
		int st;

		c.argv = (const char *[]){ "grub-probe", "--target=fs", "/boot", NULL };
		char *fs = sio_child_capture(&c, 64, &st);
		if (fs && st == 0 && fs[0] && fs[0] != '\n') {
			fs[strcspn(fs, "\n")] = '\0';
			snprintf(h.grub_fs, sizeof(h.grub_fs), "%s", fs);
		}
		free(fs);
	}
	return do_install(l, &h, xen);
}

/* ---- uninstall ------------------------------------------------------------ */

static int cmd_uninstall(const struct host_layout *l)
{
	char err[512], path[PATH_MAX];
	struct grubenv e;
	int problems = 0;

	if (need_root(l, "uninstall"))
		return 1;
	/* Unit first: nothing must resume a matrix halfway through.  The
	 * package's unit stays (the package removes it); /etc's was install's. */
	if (unlink(l->unit_link) && errno != ENOENT)
		problems++, fprintf(stderr, "ipibench host uninstall: %s: %s\n", l->unit_link, strerror(errno));
	int etc_unit = !access(l->unit, F_OK);
	if (unlink(l->unit) && errno != ENOENT)
		problems++, fprintf(stderr, "ipibench host uninstall: %s: %s\n", l->unit, strerror(errno));
	if (!l->root[0] && !access("/run/systemd/system", F_OK))
		(void)daemon_reload();
	unlink(l->pending);
	/* GRUB: the entries, a one-shot boot into one of them, our variables. */
	char *old = read_text(l->custom_cfg);
	if (old) {
		int found;
		char *kept = host_cfg_strip(old, &found);

		if (found && (strspn(kept, " \t\n") == strlen(kept) ? unlink(l->custom_cfg)
				: write_text(l->custom_cfg, kept, 0644, err, sizeof(err))))
			problems++, fprintf(stderr, "ipibench host uninstall: %s: %s\n", l->custom_cfg,
					    strerror(errno));
		free(kept);
		free(old);
	}
	if (grubenv_load(l->grubenv, &e, err, sizeof(err)) == 0) {
		const char *ne = grubenv_get(&e, "next_entry");
		if (ne && !strncmp(ne, HOST_ENTRY_PREFIX, strlen(HOST_ENTRY_PREFIX)))
			grubenv_unset(&e, "next_entry");
		grubenv_unset(&e, "ipibench_run");
		grubenv_unset(&e, "ipibench_cmdline");
		if (grubenv_store(l->grubenv, &e, err, sizeof(err)))
			problems++, fprintf(stderr, "ipibench host uninstall: %s\n", err);
	}
	snprintf(path, sizeof(path), "%s/xen.gz", l->boot_dir);
	unlink(path);
	rmdir(l->boot_dir);
	unlink(l->host_json);
	rmdir(l->state_dir);   /* only when no results are kept inside */
	sync();
	if (problems)
		return 1;
	printf("ipibench host uninstall: GRUB entries, %s%s%s and %s removed, %s disabled "
	       "(results kept)\n", l->boot_dir, etc_unit ? ", " : "", etc_unit ? l->unit : "",
	       l->host_json, HOST_UNIT_NAME);
	return 0;
}

/* ---- status -------------------------------------------------------------- */

/*
 * What status prints of host.json, grubenv and the pending file is
 * untrusted (they sit under --root, which may be any image): each value
 * goes through sio_shown(), so an escape sequence or a newline in one is
 * shown, not acted on.
 */
static const char *shown_next(char (*q)[320], unsigned *nq, const char *s)
{
	return sio_shown(q[(*nq)++ % 8], sizeof(q[0]), s);
}
#define SHOWN(s) shown_next(q, &nq, (s))

static int cmd_status(const struct host_layout *l)
{
	char ids[128];
	struct host_install h;
	struct host_pending p;
	struct grubenv e;
	char err[1024], q[8][320];
	unsigned nq = 0;
	int installed = !host_install_load(l, &h, err, sizeof(err));

	if (!installed) {
		printf("ipibench host: %s\n", SHOWN(err));
	} else {
		char *cfg = read_text(l->custom_cfg), *main = read_text(l->grub_cfg);
		int entries = cfg && strstr(cfg, HOST_CFG_BEGIN) && strstr(cfg, HOST_CFG_END);

		printf("ipibench host: installed %s%s\n", SHOWN(h.installed),
		       h.assume_yes ? " (reboots without asking)" : "");
		printf("  GRUB entries: %s in %s%s\n",
		       entries ? host_entry_list(ids, sizeof(ids), " ") : "MISSING",
		       SHOWN(l->custom_cfg), main && !strstr(main, "custom.cfg") ?
		       " (WARNING: grub.cfg does not source it; run update-grub)" : "");
		free(cfg);
		free(main);
		printf("  xen: %s%s\n", SHOWN(h.xen), access(h.xen, R_OK) ? " (MISSING)" : "");
		printf("  dom0: %s %s\n", SHOWN(h.kernel), SHOWN(h.initrd));
		printf("  xen cmdline: %s x2apic-mode=MODE ipibench.run=RUN\n", SHOWN(h.xen_cmdline));
		struct stat ls;
		const char *unit = host_unit_path(l);
		/* lstat: the link points at the unit's path on the host, not under --root. */
		printf("  unit: %s (%s)\n", SHOWN(unit ? unit : l->unit),
		       !unit ? "MISSING" : lstat(l->unit_link, &ls) ? "disabled" : "enabled");
		printf("  results: %s\n", SHOWN(h.results));
	}
	int rc = grubenv_load(l->grubenv, &e, err, sizeof(err));
	if (rc < 0) {
		printf("  grubenv: %s\n", SHOWN(err));
	} else {
		const char *ne = grubenv_get(&e, "next_entry");
		printf("  grubenv: next boot %s%s\n", ne && *ne ? "once into " : "default entry",
		       ne && *ne ? SHOWN(ne) : "");
	}
	rc = host_pending_load(l->pending, &p, err, sizeof(err));
	if (rc < 0) {
		printf("  pending: %s\n", SHOWN(err));
	} else if (rc == 1) {
		printf("  pending: none\n");
	} else {
		char path[1100], why[512] = "";
		json_t *res, *run;
		size_t i, ok = 0, total = 0;
		const char *next = NULL, *next_mode = NULL;

		snprintf(path, sizeof(path), "%s/results.json", p.results);
		res = sio_load_json(path, SIO_MAX_JSON, why, sizeof(why));
		if (res && results_check(res, path, why, sizeof(why))) {
			json_decref(res);   /* its ids and modes are printed below */
			res = NULL;
		}
		if (!res)
			printf("  pending: %s\n", SHOWN(why));
		json_array_foreach(json_object_get(res, "runs"), i, run) {
			const char *st = json_string_value(json_object_get(run, "status"));
			total++;
			if (st && !strcmp(st, "ok"))
				ok++;
			else if (!next) {
				next = json_string_value(json_object_get(run, "id"));
				next_mode = json_string_value(json_object_get(run, "mode"));
			}
		}
		printf("  pending: %s: %zu of %zu runs ok; next %s (%s); last reboot for %s (%u reboots)\n",
		       SHOWN(p.results), ok, total, next ? SHOWN(next) : "none",
		       next_mode ? SHOWN(next_mode) : "-",
		       p.reboot_for[0] ? SHOWN(p.reboot_for) : "-", p.reboots);
		json_decref(res);
	}
	return installed ? 0 : 1;
}
#undef SHOWN

/*
 * The options of uninstall, status (and a mistyped subcommand): --root DIR
 * and --help.  ARGV[0] is the subcommand.  -1: go on with *root set;
 * otherwise the exit status.
 */
static int root_only(int argc, char **argv, const char **root)
{
	const struct opt opts[] = { install_opts[0], OPT_END() };	/* --root */
	char name[64], **rest;
	const struct opts_cmd cmd = { .name = name, .opts = opts, .usage = opts_usage,
				      .syn = &host_synopsis };
	int nrest, rc;

	snprintf(name, sizeof(name), "ipibench host %s", argv[0]);
	memset(&args, 0, sizeof(args));
	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	if (nrest) {
		fprintf(stderr, "ipibench host %s: unexpected '%s' (see 'ipibench host --help')\n",
			argv[0], rest[0]);
		return 2;
	}
	*root = args.root;
	return -1;
}

/* ---- check --------------------------------------------------------------- */

/* IDS as ranges: "0-11, 16-27". */
static void id_ranges(const struct hc_facts *f, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < f->napic && o < len; ) {
		unsigned int j = i;
		while (j + 1 < f->napic && f->apic_ids[j + 1] == f->apic_ids[j] + 1)
			j++;
		o += (size_t)(j > i ? snprintf(buf + o, len - o, "%s%u-%u", i ? ", " : "",
					      f->apic_ids[i], f->apic_ids[j]) :
			      snprintf(buf + o, len - o, "%s%u", i ? ", " : "", f->apic_ids[i]));
		i = j + 1;
	}
}

#define UNK(s) ((s)[0] ? (s) : "unknown")

static void print_facts(const struct hc_facts *f)
{
	char q[6][320], ids[600], modes[64];
	int sh = hc_takes_shorthand(f);

	hc_modes_offered(f, modes, sizeof(modes));
	printf("Xen: %s (%s build)\n", sio_shown(q[0], sizeof(q[0]), UNK(f->xen_version)),
	       f->debug == 1 ? "debug" : f->debug == 0 ? "release" : "unknown");
	printf("modes offered: %s\n", modes[0] ? modes : "unknown");
	printf("APIC driver: %s\n", sio_shown(q[0], sizeof(q[0]), UNK(f->genapic)));
	if (f->nr_cpus >= 0)
		printf("CPUs: %d online", f->nr_cpus);
	else
		printf("CPUs: unknown");
	if (f->allowed_cpus >= 0)
		printf(", %d allowed (%d hotplug)", f->allowed_cpus, f->hotplug_cpus);
	if (f->info_lines)
		printf("; MADT: %d enabled, %d disabled", f->madt_enabled, f->madt_disabled);
	printf("\n");
	id_ranges(f, ids, sizeof(ids));
	if (f->napic)
		printf("x2APIC IDs: %s (%u clusters of 16 IDs)\n", ids, hc_clusters(f));
	else
		printf("x2APIC IDs: unknown (xl dmesg without Xen's MADT lines: loglvl=all)\n");
	printf("flush_tlb_all: %s\n", sh == 1 ? "the ALLBUT shorthand (one ICR write in every mode)" :
	       sh == 0 ? "the genapic's send routine (the modes differ)" : "unknown");
	printf("interrupt remapping: %s\n", f->intremap == 1 ? "enabled" :
	       f->intremap == 0 ? "off" : "unknown");
	printf("cpufreq: %s, governor %s, turbo %s\n",
	       sio_shown(q[0], sizeof(q[0]), UNK(f->cpufreq_driver)),
	       sio_shown(q[1], sizeof(q[1]), f->governor[0] ? f->governor : "none"),
	       f->turbo == 1 ? "on" : f->turbo == 0 ? "off or not there" : "unknown");
	if (f->max_cstate == 1000)
		printf("max C-state: unlimited\n");
	else if (f->max_cstate >= 0)
		printf("max C-state: C%d\n", f->max_cstate);
	else
		printf("max C-state: unknown\n");
	printf("SMT: %s\n", f->threads_per_core > 1 ? "on" : f->threads_per_core == 1 ? "off" :
	       "unknown");
	printf("CPU: %s, microcode %s\n", sio_shown(q[0], sizeof(q[0]), UNK(f->cpu_model)),
	       sio_shown(q[1], sizeof(q[1]), UNK(f->microcode)));
	printf("Xen command line: %s\n", sio_shown(q[2], sizeof(q[2]), f->xen_cmdline));
}

static void print_findings(const struct hc_finding *fs, unsigned int n, const char *indent)
{
	char q[3][600];

	for (unsigned int i = 0; i < n; i++) {
		printf("%s%s: %s%s%s\n", indent, hc_level_name(fs[i].level),
		       sio_shown(q[0], sizeof(q[0]), fs[i].where), fs[i].where[0] ? ": " : "",
		       sio_shown(q[1], sizeof(q[1]), fs[i].text));
		if (fs[i].fix[0])
			printf("%s    fix: %s\n", indent, sio_shown(q[2], sizeof(q[2]), fs[i].fix));
	}
}

static int cmd_check(int argc, char **argv)
{
	struct check_args a = { .n = 0 };
	const struct opt opts[] = CHECK_OPTS(&a);
	const struct opts_cmd cmd = { .name = "ipibench host check", .opts = opts,
				      .usage = opts_usage, .syn = &host_synopsis };
	struct hc_finding fs[HC_MAX_FINDINGS];
	struct hc_facts *f;
	char err[1024], **rest;
	int nrest, rc, cannot = 0;
	json_t *out = NULL, *cfgs = NULL;

	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	if (nrest) {
		fprintf(stderr, "ipibench host check: unexpected '%s' (see 'ipibench host --help')\n",
			rest[0]);
		return 2;
	}
	/* Every config read first: a bad one is refused before anything is printed. */
	for (unsigned int i = 0; i < a.n; i++) {
		struct config c;

		if (config_load(a.configs[i], &c, err, sizeof(err))) {
			fprintf(stderr, "ipibench host check: %s\n", err);
			return 2;
		}
		config_free(&c);
	}
	f = malloc(sizeof(*f));
	if (!f)
		return 2;
	const struct hc_source src = { .root = a.root ? a.root : getenv("IPIBENCH_HOST_ROOT") };
	if (hc_collect(f, &src, err, sizeof(err))) {
		fprintf(stderr, "ipibench host check: %s\n", sio_shown((char[600]){ 0 }, 600, err));
		free(f);
		return 2;
	}
	unsigned int n = hc_judge(f, NULL, NULL, fs, HC_MAX_FINDINGS);
	struct hc_finding hostf[HC_MAX_FINDINGS];
	memcpy(hostf, fs, sizeof(hostf));
	if (a.json) {
		out = json_pack("{s:o, s:o}", "facts", hc_facts_json(f), "host", hc_findings_json(fs, n));
		cfgs = json_array();
	} else {
		print_facts(f);
		print_findings(fs, n, "");
	}
	for (unsigned int i = 0; i < a.n; i++) {
		struct config c;
		unsigned int k, errors = 0;

		if (config_load(a.configs[i], &c, err, sizeof(err))) {
			fprintf(stderr, "ipibench host check: %s\n", err);
			json_decref(out);
			json_decref(cfgs);
			free(f);
			return 2;
		}
		k = hc_judge(f, &c, a.configs[i], fs, HC_MAX_FINDINGS);
		/* The host's own findings were printed once, above: the config's are
		 * those with a place in it, and what its report can show. */
		for (unsigned int x = 0; x < k; x++)
			errors += fs[x].level == HC_ERROR;
		cannot |= errors > 0;
		if (a.json) {
			json_array_append_new(cfgs, json_pack("{s:s, s:b, s:o}", "config", a.configs[i],
							      "can_run", !errors, "findings",
							      hc_findings_json(fs, k)));
		} else {
			char q[320];
			printf("\n%s: %s (backend = %s)\n", sio_shown(q, sizeof(q), a.configs[i]),
			       errors ? "cannot run here" : "can run here", c.host.backend);
			struct hc_finding own[HC_MAX_FINDINGS];
			unsigned int m = 0;
			for (unsigned int x = 0; x < k; x++) {
				int shown = 0;
				for (unsigned int y = 0; y < n && !shown; y++)
					shown = !strcmp(hostf[y].text, fs[x].text);
				if (!shown || fs[x].level == HC_ERROR)
					own[m++] = fs[x];
			}
			print_findings(own, m, "  ");
		}
		config_free(&c);
	}
	if (a.json) {
		json_object_set_new(out, "configs", cfgs);
		char *s = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(out);
	}
	free(f);
	return cannot ? 1 : 0;
}

int cmd_host(int argc, char **argv)
{
	struct host_layout l;
	const char *root = NULL;
	int rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	/* the manual page (lib/opts_doc.c) */
	if (!strncmp(argv[1], "--help=", 7) && opts_fmt(argv[1] + 7) >= 0)
		return opts_page(stdout, opts_fmt(argv[1] + 7), &host_synopsis, page_text, NULL);
	if (!strcmp(argv[1], "install"))
		return cmd_install(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "capture")) {
		const struct opts_cmd like = { .usage = opts_usage, .syn = &host_synopsis };

		return host_capture_cmd(argc - 1, argv + 1, &like);
	}
	if ((rc = root_only(argc - 1, argv + 1, &root)) >= 0)
		return rc;
	host_layout_init(&l, root);
	if (!strcmp(argv[1], "uninstall"))
		return cmd_uninstall(&l);
	if (!strcmp(argv[1], "status"))
		return cmd_status(&l);
	fprintf(stderr, "ipibench host: '%s' is not install, uninstall, status, check or capture\n",
		argv[1]);
	return 2;
}
