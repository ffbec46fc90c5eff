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
#include "safeio/safeio.h"

/* ---- GRUB environment block ------------------------------------------ */

int grubenv_parse(const char *buf, size_t len, struct grubenv *e, char *err, size_t errlen)
{
	size_t sl = strlen(GRUBENV_SIG), i;

	e->n = 0;
	if (len < sl || memcmp(buf, GRUBENV_SIG, sl)) {
		snprintf(err, errlen, "not a GRUB environment block (no '# GRUB Environment Block' line)");
		return -1;
	}
	for (i = sl; i < len;) {
		if (buf[i] == '#' || buf[i] == '\n') {
			/* comment or padding: skip the line */
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			continue;
		}
		size_t k = i;
		while (k < len && buf[k] != '=' && buf[k] != '\n')
			k++;
		if (k >= len || buf[k] != '=') {
			i = k + 1;
			continue;
		}
		char key[128], val[GRUBENV_SIZE];
		size_t kl = k - i, vl = 0;

		if (kl == 0 || kl >= sizeof(key)) {
			snprintf(err, errlen, "bad variable name at byte %zu", i);
			return -1;
		}
		memcpy(key, buf + i, kl);
		key[kl] = '\0';
		for (i = k + 1; i < len && buf[i] != '\n'; i++) {
			if (buf[i] == '\\' && i + 1 < len)
				i++;
			if (vl + 1 >= sizeof(val)) {
				snprintf(err, errlen, "value of %s too long", key);
				return -1;
			}
			val[vl++] = buf[i];
		}
		val[vl] = '\0';
		i++;
		if (grubenv_set(e, key, val)) {
			snprintf(err, errlen, "too many variables");
			return -1;
		}
	}
	return 0;
}

int grubenv_format(const struct grubenv *e, char out[GRUBENV_SIZE], char *err, size_t errlen)
{
	size_t n = strlen(GRUBENV_SIG);

	memcpy(out, GRUBENV_SIG, n);
	for (unsigned int i = 0; i < e->n; i++) {
		const char *k = e->v[i].key, *v = e->v[i].val;
		size_t need = strlen(k) + 2;

		for (const char *p = v; *p; p++)
			need += (*p == '\\' || *p == '\n') ? 2 : 1;
		if (n + need > GRUBENV_SIZE) {
			snprintf(err, errlen, "GRUB environment block full (1024 bytes) at %s", k);
			return -1;
		}
		n += (size_t)sprintf(out + n, "%s=", k);
		for (const char *p = v; *p; p++) {
			if (*p == '\\' || *p == '\n')
				out[n++] = '\\';
			out[n++] = *p;
		}
		out[n++] = '\n';
	}
	memset(out + n, '#', GRUBENV_SIZE - n);
	return 0;
}

const char *grubenv_get(const struct grubenv *e, const char *key)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key))
			return e->v[i].val;
	return NULL;
}

int grubenv_set(struct grubenv *e, const char *key, const char *val)
{
	if (!*key || strpbrk(key, "=\n") || strlen(key) >= sizeof(e->v[0].key) ||
	    strlen(val) >= sizeof(e->v[0].val))
		return -1;
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key)) {
			snprintf(e->v[i].val, sizeof(e->v[i].val), "%s", val);
			return 0;
		}
	if (e->n == GRUBENV_MAX_VARS)
		return -1;
	snprintf(e->v[e->n].key, sizeof(e->v[e->n].key), "%s", key);
	snprintf(e->v[e->n].val, sizeof(e->v[e->n].val), "%s", val);
	e->n++;
	return 0;
}

void grubenv_unset(struct grubenv *e, const char *key)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key)) {
			memmove(&e->v[i], &e->v[i + 1], (e->n - i - 1) * sizeof(e->v[0]));
			e->n--;
			return;
		}
}

int grubenv_load(const char *path, struct grubenv *e, char *err, size_t errlen)
{
	char buf[GRUBENV_SIZE + 1];
	char why[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	e->n = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%.700s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != GRUBENV_SIZE) {
		snprintf(err, errlen, "%s: %s (a GRUB environment block is exactly %d bytes)",
			 path, n < 0 ? strerror(errno) : "wrong size", GRUBENV_SIZE);
		return -1;
	}
	if (grubenv_parse(buf, GRUBENV_SIZE, e, why, sizeof(why))) {
		snprintf(err, errlen, "%.700s: %s", path, why);
		return -1;
	}
	return 0;
}

int grubenv_store(const char *path, const struct grubenv *e, char *err, size_t errlen)
{
	char buf[GRUBENV_SIZE];
	int fd;

	if (grubenv_format(e, buf, err, errlen))
		return -1;
	/* In place: the file keeps its blocks, where GRUB's save_env writes. */
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
	    ftruncate(fd, sizeof(buf)) || fsync(fd)) {
		snprintf(err, errlen, "%.700s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

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
	snprintf(l->unit_link, sizeof(l->unit_link),
		 "%s/etc/systemd/system/multi-user.target.wants/" HOST_UNIT_NAME, l->root);
}

#define HJ_STR(X) \
	X(xen) X(kernel) X(initrd) X(grub_xen) X(grub_kernel) X(grub_initrd) X(grub_fs) \
	X(xen_cmdline) X(dom0_cmdline) X(results) X(installed)

int host_install_load(const struct host_layout *l, struct host_install *h, char *err, size_t errlen)
{
	json_t *j;

	memset(h, 0, sizeof(*h));
	if (access(l->host_json, F_OK)) {
		snprintf(err, errlen, "ipibench is not installed on this host (no %s): "
			 "run 'ipibench host install' first", l->host_json);
		return -1;
	}
	if (!(j = sio_load_json(l->host_json, SIO_MAX_JSON, err, errlen)))
		return -1;
	if (!json_is_object(j)) {
		snprintf(err, errlen, "%s: $: expected an object", l->host_json);
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

/* ---- GRUB entries, custom.cfg, the unit -------------------------------- */

static const char *const modes[] = { "physical", "cluster", "mixed", NULL };

void host_entry_id(const char *mode, char *buf, size_t len)
{
	snprintf(buf, len, HOST_ENTRY_PREFIX "%s", mode);
}

/* GRUB single-quoted string: ' becomes '\''. */
static size_t gq(char *out, size_t len, const char *s)
{
	size_t n = 0;

#define PUT(c) do { if (n + 1 < len) out[n] = (c); n++; } while (0)
	PUT('\'');
	for (; *s; s++) {
		if (*s == '\'') {
			PUT('\''); PUT('\\'); PUT('\''); PUT('\'');
		} else {
			PUT(*s);
		}
	}
	PUT('\'');
#undef PUT
	if (len)
		out[n < len ? n : len - 1] = '\0';
	return n;
}

int host_entries_text(const struct host_install *h, char *buf, size_t len)
{
	size_t n = 0;
	char qx[1100], qk[1100], qi[1100];

	gq(qx, sizeof(qx), h->grub_xen);
	gq(qk, sizeof(qk), h->grub_kernel);
	gq(qi, sizeof(qi), h->grub_initrd);
#define OUT(...) do { \
		int k_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__); \
		n += (size_t)(k_ > 0 ? k_ : 0); \
	} while (0)
	OUT("%s\n", HOST_CFG_BEGIN);
	OUT("# Booted once each by the reboot backend (next_entry in grubenv), never\n"
	    "# by default.  ipibench_run and ipibench_cmdline come from grubenv.\n");
	for (int i = 0; modes[i]; i++) {
		char id[64];

		host_entry_id(modes[i], id, sizeof(id));
		OUT("menuentry 'ipibench: Xen x2apic-mode=%s' --id %s {\n", modes[i], id);
		OUT("\tload_env ipibench_run ipibench_cmdline\n");
		OUT("\tinsmod part_msdos\n\tinsmod part_gpt\n\tinsmod %s\n", h->grub_fs);
		OUT("\tinsmod gzio\n\tinsmod multiboot2\n");
		OUT("\tsearch --no-floppy --file --set=root %s\n", qx);
		OUT("\techo 'ipibench: Xen x2apic-mode=%s, run '\"${ipibench_run}\"\n", modes[i]);
		OUT("\tmultiboot2 %s %s x2apic-mode=%s ipibench.run=${ipibench_run} ${ipibench_cmdline}\n",
		    qx, h->xen_cmdline, modes[i]);
		OUT("\tmodule2 %s placeholder %s\n", qk, h->dom0_cmdline);
		if (h->grub_initrd[0])
			OUT("\tmodule2 --nounzip %s\n", qi);
		OUT("}\n");
	}
	OUT("%s\n", HOST_CFG_END);
#undef OUT
	return n < len ? 0 : -1;
}

char *host_cfg_strip(const char *text, int *found)
{
	char *out = malloc(strlen(text) + 1);
	const char *b = strstr(text, HOST_CFG_BEGIN), *e;

	*found = 0;
	if (!out)
		return NULL;
	if (!b || !(e = strstr(b, HOST_CFG_END))) {
		strcpy(out, text);
		return out;
	}
	*found = 1;
	e += strlen(HOST_CFG_END);
	if (*e == '\n')
		e++;
	memcpy(out, text, (size_t)(b - text));
	strcpy(out + (b - text), e);
	return out;
}

/* The template of runner/host/ipibench-resume.service (a unit test keeps them equal). */
static const char unit_template[] =
"# ipibench-resume.service: after each reboot of a test host, finish the\n"
"# x2APIC mode matrix the reboot backend left pending.  Installed by\n"
"# 'ipibench host install', enabled by the reboot backend before its first\n"
"# reboot, disabled when the matrix is done, removed by 'ipibench host uninstall'.\n"
"[Unit]\n"
"Description=ipibench: resume the pending x2APIC mode matrix\n"
"ConditionPathExists=/var/lib/ipibench/pending\n"
"After=local-fs.target proc-xen.mount xenstored.service\n"
"\n"
"[Service]\n"
"Type=oneshot\n"
"EnvironmentFile=/var/lib/ipibench/pending\n"
"Environment=IPIBENCH_BUILD=@BUILD@\n"
"ExecStart=@IPIBENCH@ run --resume ${IPIBENCH_RESULTS}\n"
"StandardOutput=journal+console\n"
"StandardError=journal+console\n"
"TimeoutStartSec=infinity\n"
"\n"
"[Install]\n"
"WantedBy=multi-user.target\n";

int host_unit_text(const char *ipibench, const char *build, char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = unit_template; *p;) {
		const char *sub = NULL;
		size_t skip = 1;

		if (!strncmp(p, "@IPIBENCH@", 10))
			sub = ipibench, skip = 10;
		else if (!strncmp(p, "@BUILD@", 7))
			sub = build, skip = 7;
		if (sub) {
			size_t sl = strlen(sub);
			if (n + sl >= len)
				return -1;
			memcpy(buf + n, sub, sl);
			n += sl;
		} else {
			if (n + 1 >= len)
				return -1;
			buf[n++] = *p;
		}
		p += skip;
	}
	buf[n] = '\0';
	return 0;
}

int host_grub_path(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX], cur[PATH_MAX], parent[PATH_MAX];
	struct stat st, up;
	size_t mnt = 0;      /* real[0..mnt) is the mount point ("" for /) */

	if (!realpath(path, real) || stat(real, &st))
		return -1;
	snprintf(cur, sizeof(cur), "%s", real);
	while (strcmp(cur, "/")) {
		char *slash;

		snprintf(parent, sizeof(parent), "%s", cur);
		slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(parent, &up) || up.st_dev != st.st_dev) {
			mnt = strlen(cur);   /* cur is the mount point */
			break;
		}
		snprintf(cur, sizeof(cur), "%s", parent);
	}
	snprintf(buf, len, "%s", real[mnt] ? real + mnt : "/");
	return 0;
}

/* ---- pending state ----------------------------------------------------- */

int host_pending_load(const char *path, struct host_pending *p, char *err, size_t errlen)
{
	char line[1200];
	FILE *f = fopen(path, "r");

	memset(p, 0, sizeof(*p));
	if (!f) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%.700s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '='), *v;

		line[strcspn(line, "\n")] = '\0';
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
		else if (!strcmp(line, "IPIBENCH_REBOOTS"))
			p->reboots = (unsigned int)strtoul(v, NULL, 10);
	}
	fclose(f);
	if (!p->results[0] || !p->matrix[0]) {
		snprintf(err, errlen, "%s: no IPIBENCH_RESULTS or IPIBENCH_MATRIX line", path);
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
		"IPIBENCH_REBOOT_MODE=%s\nIPIBENCH_REBOOTS=%u\n",
		p->results, p->matrix, p->reboot_for, p->mode, p->reboots);
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
			       const char *xen_cmdline, const char *reboot_for,
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
	if (reboot_for && !strcmp(reboot_for, marker)) {
		snprintf(why, len, "rebooted for this run but Xen's command line has no %s: "
			 "GRUB did not boot entry " HOST_ENTRY_PREFIX "%s (see 'ipibench host status')",
			 marker, mode);
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

	if (access(l->unit, R_OK)) {
		snprintf(err, len, "%.400s missing: run 'ipibench host install' again", l->unit);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", l->unit_link);
	*strrchr(dir, '/') = '\0';
	run_mkdirs(dir);
	unlink(l->unit_link);
	/* What `systemctl enable` does; the target is the unit's path on the host. */
	if (symlink("/etc/systemd/system/" HOST_UNIT_NAME, l->unit_link)) {
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

	/* What is this host running? */
	snprintf(path, sizeof(path), "%s/probe", o->workdir);
	if (run_mkdirs(path)) {
		host_fail(r, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (host_agent_exec(o, NULL, path, "agent.log", r, &a))
		return -1;
	json_decref(a);

	snprintf(path, sizeof(path), "%s/results.json", dir);
	res = sio_load_json(path, SIO_MAX_JSON, why, sizeof(why));
	last = res ? results_last_pending(res, id) : 1;
	json_decref(res);

	switch (reboot_decide(o->mode, marker, r->genapic, r->xen_cmdline,
			      nopend ? "" : p.reboot_for, why, sizeof(why))) {
	case STEP_RUN_HERE:
		host_progress(o, "        reboot: ", "%s", why);
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
	snprintf(p.reboot_for, sizeof(p.reboot_for), "%s", marker);
	snprintf(p.mode, sizeof(p.mode), "%s", o->mode);
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
	if (o->extra_cmdline && *o->extra_cmdline)
		grubenv_set(&e, "ipibench_cmdline", o->extra_cmdline);
	else
		grubenv_unset(&e, "ipibench_cmdline");
	if (grubenv_store(l.grubenv, &e, r->error, sizeof(r->error)))
		return -1;
	sync();
	host_progress(o, "        reboot: ", "%s; next boot (once): %s, then '%s' resumes %s", why, entry,
		 HOST_UNIT_NAME, dir);
	const char *cmd = reboot_cmd();
	host_progress(o, "        reboot: ", "rebooting: %s", cmd);
	fflush(NULL);
	rc = system(cmd);
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
	char host[256] = "?";

	(void)o;
	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "real hardware (reboot backend, GRUB one-shot entries) on %s", host);
}

const struct host_backend_ops backend_reboot = {
	.name = "reboot",
	.help = "a real test host rebooted through GRUB into each mode ('ipibench host install')",
	.run = reboot_run,
	.describe = reboot_describe,
};
