/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench host install|uninstall|status: prepare a real Xen test host for
 * the reboot backend (GRUB entries per x2APIC mode in custom.cfg, the
 * patched Xen in /boot/ipibench, host.json; ipibench-resume.service is the
 * package's, or written to /etc from a checkout) and take it all away again.  --root DIR works on a mounted image instead of /.
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
#include "runner/hostopts.h"
#include "runner/results.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "opts/opts.h"
#include "safeio/safeio.h"

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

const struct opts_synopsis host_synopsis = {
	"ipibench host", "prepare a real Xen test host for the reboot backend",
	"install [--root DIR] [--xen FILE] [--kernel FILE] [--initrd FILE]\n"
	"        [--xen-cmdline S] [--dom0-cmdline S] [--results DIR] [--yes]\n"
	"uninstall [--root DIR]\n"
	"status [--root DIR]", 1,
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
"\n", mode_list());
	opts_help(f, install_opts);
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
	if (!l->root[0] && !access("/run/systemd/system", F_OK) && system("systemctl daemon-reload"))
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
		FILE *p = popen("grub-probe --target=fs /boot 2>/dev/null", "r");
		char fs[32] = "";
		if (p && fgets(fs, sizeof(fs), p) && fs[0] != '\n') {
			fs[strcspn(fs, "\n")] = '\0';
			snprintf(h.grub_fs, sizeof(h.grub_fs), "%s", fs);
		}
		if (p)
			pclose(p);
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
		(void)!system("systemctl daemon-reload");
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

int cmd_host(int argc, char **argv)
{
	struct host_layout l;
	const char *root = NULL;
	int rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	/* the manual page (opts/doc.c) */
	if (!strncmp(argv[1], "--help=", 7) && opts_fmt(argv[1] + 7) >= 0)
		return opts_page(stdout, opts_fmt(argv[1] + 7), &host_synopsis, page_text, NULL);
	if (!strcmp(argv[1], "install"))
		return cmd_install(argc - 1, argv + 1);
	if ((rc = root_only(argc - 1, argv + 1, &root)) >= 0)
		return rc;
	host_layout_init(&l, root);
	if (!strcmp(argv[1], "uninstall"))
		return cmd_uninstall(&l);
	if (!strcmp(argv[1], "status"))
		return cmd_status(&l);
	fprintf(stderr, "ipibench host: '%s' is not install, uninstall or status\n", argv[1]);
	return 2;
}
