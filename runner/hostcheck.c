/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runner/hostcheck.c: a real Xen host's facts, and a config's findings on it (hostcheck.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/hostcheck.h"
#include "runner/backend.h"
#include "runner/xenbuild.h"
#include "ipibench/modes.h"
#include "lib/safeio.h"
#include "lib/spawn.h"

void hc_facts_init(struct hc_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->xen_major = f->xen_minor = f->debug = -1;
	f->nr_cpus = f->threads_per_core = -1;
	f->hotplug_cpus = f->allowed_cpus = -1;
	f->intremap = f->turbo = f->max_cstate = -1;
}

/* ---- reading the texts ----------------------------------------------- */

/* The next line of *P (without its newline) into BUF; 0 at the end. */
static int next_line(const char **p, char *buf, size_t len, int *lineno, int *toolong)
{
	const char *s = *p, *e;
	size_t n;

	if (!*s)
		return 0;
	e = strchr(s, '\n');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	*toolong = n >= len;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	(*lineno)++;
	return 1;
}

static int bad(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int bad(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	char m[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%d: %s", name, line, m);
	return -1;
}

/* A value Xen or the tools print: printable ASCII, at most LEN-1 bytes. */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

/* Decimal digits only, at most 9 of them: the value, or -1. */
static int small_uint(const char *s)
{
	long v = 0;

	if (!*s || strlen(s) > 9)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	size_t k = strspn(s, " \t");
	memmove(s, s + k, strlen(s + k) + 1);
}

/* "key   : value" of xl info and xenpm: key and value, or 0 for another line. */
static int key_value(char *line, char **k, char **v)
{
	char *c = strchr(line, ':');

	if (!c)
		return 0;
	*c = '\0';
	*k = line;
	*v = c + 1;
	trim(*k);
	trim(*v);
	return 1;
}

#define HC_LINE 2048

int hc_parse_xl_info(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen)
{
	char line[HC_LINE], *k, *v;
	int n = 0, toolong;

	while (next_line(&text, line, sizeof(line), &n, &toolong)) {
		if (toolong)
			return bad(err, errlen, name, n, "a line longer than %d bytes", HC_LINE - 1);
		if (!key_value(line, &k, &v))
			continue;
		if (!printable(v))
			return bad(err, errlen, name, n, "%s: a control character or non-ASCII byte", k);
		if (!strcmp(k, "xen_version")) {
			int ma, mi;
			if (sscanf(v, "%d.%d", &ma, &mi) != 2 || ma < 3 || ma > 99 || mi < 0 || mi > 99 ||
			    strlen(v) >= sizeof(f->xen_version))
				return bad(err, errlen, name, n, "xen_version '%.40s': not a Xen version", v);
			snprintf(f->xen_version, sizeof(f->xen_version), "%s", v);
			f->xen_major = ma;
			f->xen_minor = mi;
		} else if (!strcmp(k, "xen_commandline")) {
			if (strlen(v) >= sizeof(f->xen_cmdline))
				return bad(err, errlen, name, n, "xen_commandline: longer than %zu bytes",
					   sizeof(f->xen_cmdline) - 1);
			snprintf(f->xen_cmdline, sizeof(f->xen_cmdline), "%s", v);
		} else if (!strcmp(k, "nr_cpus") || !strcmp(k, "threads_per_core")) {
			int x = small_uint(v);
			if (x < 1 || x > 65536)
				return bad(err, errlen, name, n, "%s '%.20s': expected a count", k, v);
			*(!strcmp(k, "nr_cpus") ? &f->nr_cpus : &f->threads_per_core) = x;
		}
	}
	return 0;
}

/* LINE without xl dmesg's "(XEN) " and a "[ time ] " after it. */
static const char *xen_text(const char *line)
{
	if (!strncmp(line, "(XEN) ", 6))
		line += 6;
	if (*line == '[') {
		const char *e = strchr(line, ']');
		if (e)
			line = e + 1 + (e[1] == ' ');
	}
	return line;
}

/* "0x1f" of "...[0x1f]": the number, or -1. */
static long bracket_hex(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	char *end;
	unsigned long v;

	if (!p)
		return -1;
	p += strlen(key);
	errno = 0;
	v = strtoul(p, &end, 16);
	if (errno || end == p || *end != ']' || v > 0xffffffffUL)
		return -1;
	return (long)v;
}

int hc_parse_xl_dmesg(struct hc_facts *f, const char *name, const char *text,
		      char *err, size_t errlen)
{
	char line[HC_LINE];
	int n = 0, toolong;

	while (next_line(&text, line, sizeof(line), &n, &toolong)) {
		const char *s = xen_text(line);
		unsigned int a;
		int h;
		char word[40];

		if (toolong)
			continue;   /* a long line is none of those read here */
		/* xen/drivers/char/console.c: "Xen version %d.%d%s (%s@%s) (%s) %s %s";
		 * the build info (xen_build_info()) has debug=y or debug=n. */
		if (!strncmp(s, "Xen version ", 12)) {
			int ma, mi, len = 0;
			if (sscanf(s + 12, "%d.%d%n", &ma, &mi, &len) != 2 || ma < 3 || ma > 99 ||
			    mi < 0 || mi > 99)
				return bad(err, errlen, name, n, "'Xen version' without a version");
			if (!f->xen_version[0]) {
				size_t vl = strcspn(s + 12, " ");
				if (vl >= sizeof(f->xen_version) || !printable(s + 12))
					return bad(err, errlen, name, n, "'Xen version': not a version");
				snprintf(f->xen_version, sizeof(f->xen_version), "%.*s", (int)vl, s + 12);
				f->xen_major = ma;
				f->xen_minor = mi;
			}
			if (strstr(s, " debug=y"))
				f->debug = 1;
			else if (strstr(s, " debug=n"))
				f->debug = 0;
		} else if (sscanf(s, "Using APIC driver %39s", word) == 1 ||
			   sscanf(s, "Switched to APIC driver %39s", word) == 1) {
			/* genapic/probe.c, then apic.c when x2APIC is enabled: the last wins */
			if (!printable(word) || strlen(word) >= sizeof(f->genapic))
				return bad(err, errlen, name, n, "APIC driver: not a driver's name");
			snprintf(f->genapic, sizeof(f->genapic), "%.31s", word);
		} else if (sscanf(s, "SMP: Allowing %u CPUs (%d hotplug CPUs)", &a, &h) == 2) {
			/* mpparse.c set_nr_cpu_ids() */
			if (a > 65536 || h < 0 || h > 65536)
				return bad(err, errlen, name, n, "SMP: Allowing: counts out of range");
			f->allowed_cpus = (int)a;
			f->hotplug_cpus = h;
			f->info_lines = 1;
		} else if (!strncmp(s, "ACPI: LAPIC (", 13) || !strncmp(s, "ACPI: X2APIC (", 14)) {
			/* drivers/acpi/tables.c acpi_table_print_madt_entry() */
			long id = bracket_hex(s, s[6] == 'L' ? "lapic_id[" : "apic_id[");
			int en = strstr(s, " enabled)") != NULL, dis = strstr(s, " disabled)") != NULL;
			if (id < 0 || en == dis)
				return bad(err, errlen, name, n, "a MADT entry Xen would not print");
			f->info_lines = 1;
			if (dis)
				f->madt_disabled++;
			else {
				f->madt_enabled++;
				if (f->napic < HC_MAX_APIC)
					f->apic_ids[f->napic++] = (unsigned int)id;
			}
		} else if (!strcmp(s, "Intel VT-d Interrupt Remapping enabled.")) {
			f->intremap = 1;   /* drivers/passthrough/vtd/iommu.c */
		} else if (!strcmp(s, "Intel VT-d Interrupt Remapping not enabled.")) {
			f->intremap = 0;
		}
	}
	return 0;
}

int hc_parse_cpufreq(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen)
{
	char line[HC_LINE], *k, *v;
	int n = 0, toolong, any = 0;

	/* tools/misc/xenpm.c print_cpufreq_para() */
	while (next_line(&text, line, sizeof(line), &n, &toolong)) {
		if (toolong || !key_value(line, &k, &v))
			continue;
		if (!printable(v))
			return bad(err, errlen, name, n, "%s: a control character or non-ASCII byte", k);
		if (!strcmp(k, "scaling_driver")) {
			if (!*v || strlen(v) >= sizeof(f->cpufreq_driver))
				return bad(err, errlen, name, n, "scaling_driver '%.40s': not a driver", v);
			snprintf(f->cpufreq_driver, sizeof(f->cpufreq_driver), "%s", v);
			any = 1;
		} else if (!strcmp(k, "current_governor")) {
			if (strlen(v) >= sizeof(f->governor))
				return bad(err, errlen, name, n, "current_governor: too long");
			snprintf(f->governor, sizeof(f->governor), "%s", v);
		} else if (!strcmp(k, "turbo mode")) {
			if (!strcmp(v, "enabled"))
				f->turbo = 1;
			else if (!strcmp(v, "disabled or n/a"))
				f->turbo = 0;
			else
				return bad(err, errlen, name, n, "turbo mode '%.40s': not what xenpm prints", v);
		}
	}
	/* "failed to get cpufreq parameter": Xen drives no frequency (cpufreq=none,
	 * or firmware without _PSS) */
	if (!any)
		snprintf(f->cpufreq_driver, sizeof(f->cpufreq_driver), "none");
	return 0;
}

int hc_parse_max_cstate(struct hc_facts *f, const char *name, const char *text,
			char *err, size_t errlen)
{
	char line[HC_LINE];
	int n = 0, toolong;

	/* xenpm get-max-cstate: "Max possible C-state: C1" or "...: unlimited" */
	while (next_line(&text, line, sizeof(line), &n, &toolong)) {
		const char *p = strstr(line, "C-state: ");
		int v;

		if (toolong || !p || strncmp(line, "Max possible", 12))
			continue;
		p += 9;
		if (!strncmp(p, "unlimited", 9)) {
			f->max_cstate = 1000;
			continue;
		}
		if (*p != 'C' || (v = small_uint(p + 1)) < 0 || v > 999)
			return bad(err, errlen, name, n, "max C-state '%.20s': not C<n> or unlimited", p);
		f->max_cstate = v;
	}
	return 0;
}

int hc_parse_cpuinfo(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen)
{
	char line[HC_LINE], *k, *v;
	int n = 0, toolong;

	while (next_line(&text, line, sizeof(line), &n, &toolong)) {
		if (toolong || !key_value(line, &k, &v))
			continue;
		if (!strcmp(k, "microcode") && !f->microcode[0]) {
			if (!printable(v) || strlen(v) >= sizeof(f->microcode))
				return bad(err, errlen, name, n, "microcode: not a revision");
			snprintf(f->microcode, sizeof(f->microcode), "%s", v);
		} else if (!strcmp(k, "model name") && !f->cpu_model[0]) {
			if (!printable(v))
				return bad(err, errlen, name, n, "model name: a control character or non-ASCII byte");
			snprintf(f->cpu_model, sizeof(f->cpu_model), "%.*s",
				 (int)sizeof(f->cpu_model) - 1, v);
		}
	}
	return 0;
}

/* ---- collecting them ------------------------------------------------- */

static const char *cmdline_opt(const char *cl, const char *word, char *buf, size_t len);

void hc_intremap_from_cmdline(struct hc_facts *f)
{
	char v[256];

	/* AMD-Vi prints no line for it: Xen's command line can still turn it off
	 * (iommu=no-intremap, iommu=0|off|no|false: docs/misc/xen-command-line). */
	if (f->intremap >= 0 || !cmdline_opt(f->xen_cmdline, "iommu", v, sizeof(v)))
		return;
	char *save = NULL;

	for (char *t = strtok_r(v, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strcmp(t, "no-intremap") || !strcmp(t, "intremap=0") || !strcmp(t, "0") ||
		    !strcmp(t, "off") || !strcmp(t, "no") || !strcmp(t, "false"))
			f->intremap = 0;
}

static int this_host(const char *root)
{
	return !root || !*root || !strcmp(root, "/");
}

/* ARGV's standard output, at most HC_TEXT_MAX bytes; NULL when it cannot run. */
static char *run_cmd(const char *const argv[])
{
	struct sio_child c = SIO_CHILD_INIT;
	char *buf;
	int st;

	c.argv = argv;
	buf = sio_child_capture(&c, HC_TEXT_MAX, &st);
	if (buf && st == 127) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *hc_read_text(const char *root, const char *file, size_t max, char *err, size_t errlen)
{
	char path[PATH_MAX], *buf = NULL;

	snprintf(path, sizeof(path), "%s%s", this_host(root) ? "" : root, file);
	if (this_host(root) && !strncmp(file, "/proc/", 6)) {
		FILE *fp = fopen(path, "r");
		size_t len;

		if (!fp)
			return NULL;
		buf = malloc(max + 1);
		len = buf ? fread(buf, 1, max, fp) : 0;
		fclose(fp);
		if (buf)
			buf[len] = '\0';
		return buf;
	}
	if (access(path, F_OK))
		return NULL;
	if (sio_read_file(path, max, &buf, NULL, err, errlen))
		return NULL;
	return buf;
}

/* The captured output of a command under ROOT: var/lib/ipibench/facts/NAME. */
#define HC_FACTS_DIR "/var/lib/ipibench/facts/"

static char *command_text(const struct hc_source *src, const char *const argv[], const char *file,
			  char *err, size_t errlen)
{
	if (src->cmd)
		return src->cmd(src->ctx, argv);
	if (this_host(src->root))
		return run_cmd(argv);
	return hc_read_text(src->root, file, HC_TEXT_MAX, err, errlen);
}

int hc_collect_cpuinfo(struct hc_facts *f, const char *root, size_t max, char *err,
		       size_t errlen)
{
	char e[400], name[PATH_MAX];
	char *t = hc_read_text(root, "/proc/cpuinfo", max, e, sizeof(e));
	int rc;

	if (!t)
		return 0;   /* not there or not read: its facts stay unknown */
	snprintf(name, sizeof(name), "%s/proc/cpuinfo", this_host(root) ? "" : root);
	rc = hc_parse_cpuinfo(f, name, t, err, errlen);
	free(t);
	return rc ? -1 : 0;
}

int hc_collect(struct hc_facts *f, const struct hc_source *src, char *err, size_t errlen)
{
	static const struct {
		const char *argv[5], *file, *name;
		int (*parse)(struct hc_facts *, const char *, const char *, char *, size_t);
	} cmds[] = {
		{ { "xl", "info", NULL }, HC_FACTS_DIR "xl-info", "xl info", hc_parse_xl_info },
		{ { "xl", "dmesg", NULL }, HC_FACTS_DIR "xl-dmesg", "xl dmesg", hc_parse_xl_dmesg },
		{ { "xenpm", "get-cpufreq-para", "0", NULL }, HC_FACTS_DIR "xenpm-cpufreq",
		  "xenpm get-cpufreq-para 0", hc_parse_cpufreq },
		{ { "xenpm", "get-max-cstate", NULL }, HC_FACTS_DIR "xenpm-max-cstate",
		  "xenpm get-max-cstate", hc_parse_max_cstate },
	};
	char *t, e[400] = "", name[PATH_MAX];

	hc_facts_init(f);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		e[0] = '\0';
		t = command_text(src, cmds[i].argv, cmds[i].file, e, sizeof(e));
		if (!t) {
			if (e[0]) {
				snprintf(err, errlen, "%s", e);
				return -1;
			}
			continue;   /* not there: its facts stay unknown */
		}
		snprintf(name, sizeof(name), "%s%s", this_host(src->root) || src->cmd ? "" : src->root,
			 this_host(src->root) || src->cmd ? cmds[i].name : cmds[i].file);
		int rc = cmds[i].parse(f, name, t, err, errlen);
		free(t);
		if (rc)
			return -1;
	}
	if (hc_collect_cpuinfo(f, src->root, HC_TEXT_MAX, err, errlen))
		return -1;
	hc_intremap_from_cmdline(f);
	/* Without xl: the version /sys/hypervisor gives. */
	if (!f->xen_version[0]) {
		char *ma = hc_read_text(src->root, "/sys/hypervisor/version/major", HC_TEXT_MAX,
					e, sizeof(e));
		char *mi = hc_read_text(src->root, "/sys/hypervisor/version/minor", HC_TEXT_MAX,
					e, sizeof(e));
		if (ma && mi) {
			ma[strcspn(ma, "\n")] = mi[strcspn(mi, "\n")] = '\0';
			int a = small_uint(ma), b = small_uint(mi);
			if (a >= 3 && a < 100 && b >= 0 && b < 100) {
				f->xen_major = a;
				f->xen_minor = b;
				snprintf(f->xen_version, sizeof(f->xen_version), "%d.%d", a, b);
			}
		}
		free(ma);
		free(mi);
	}
	return 0;
}

/* ---- what the facts mean --------------------------------------------- */

unsigned int hc_clusters(const struct hc_facts *f)
{
	unsigned int n = 0;

	/* x2APIC logical ID: cluster = APIC ID >> 4 (genapic/x2apic.c x2apic_cluster()) */
	for (unsigned int i = 0; i < f->napic; i++) {
		unsigned int c = f->apic_ids[i] >> 4, seen = 0;
		for (unsigned int j = 0; j < i && !seen; j++)
			seen = (f->apic_ids[j] >> 4) == c;
		n += !seen;
	}
	return n;
}

/* The value of WORD= on Xen's command line ("" for a bare WORD), or NULL. */
static const char *cmdline_opt(const char *cl, const char *word, char *buf, size_t len)
{
	size_t wl = strlen(word);

	for (const char *p = cl; *p; ) {
		p += strspn(p, " ");
		size_t tl = strcspn(p, " ");
		if (tl >= wl && !strncmp(p, word, wl) && (p[wl] == '=' || tl == wl)) {
			size_t vl = tl == wl ? 0 : tl - wl - 1;
			snprintf(buf, len, "%.*s", (int)vl, p + wl + 1);
			if (tl == wl)
				buf[0] = '\0';
			return buf;
		}
		p += tl;
	}
	return NULL;
}

/*
 * xen/arch/x86/smp.c send_IPI_mask(): the ALLBUT shorthand is taken when
 * !unaccounted_cpus && !disabled_cpus && no CPU hotplug in progress && every
 * present CPU is online (or offline ones are parked), for a mask of every
 * online CPU but this one, which flush_tlb_all() sends.  disabled_cpus counts
 * the MADT's disabled entries (mpparse.c MP_processor_info_x()), and "SMP:
 * Allowing N CPUs (M hotplug CPUs)" has M = N - present, N defaulting to
 * present + disabled; maxcpus= below the present CPUs leaves some
 * unaccounted.  So: shorthand when M is 0, maxcpus= does not cut the present
 * CPUs, and every allowed CPU is online (xl info nr_cpus).
 */
int hc_takes_shorthand(const struct hc_facts *f)
{
	char v[32];

	if (f->hotplug_cpus < 0)
		return -1;
	if (f->hotplug_cpus > 0)
		return 0;
	if (cmdline_opt(f->xen_cmdline, "maxcpus", v, sizeof(v)) && f->madt_enabled > 0 &&
	    small_uint(v) >= 0 && small_uint(v) < f->madt_enabled)
		return 0;
	if (f->nr_cpus > 0 && f->allowed_cpus > 0 && f->nr_cpus < f->allowed_cpus)
		return 0;
	return 1;
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(int v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *bool_or_null(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

json_t *hc_facts_json(const struct hc_facts *f)
{
	json_t *o = json_object(), *ids = json_array();
	int sh = hc_takes_shorthand(f);

	for (unsigned int i = 0; i < f->napic; i++)
		json_array_append_new(ids, json_integer(f->apic_ids[i]));
	json_object_set_new(o, "xen_version", str_or_null(f->xen_version));
	json_object_set_new(o, "xen_debug", bool_or_null(f->debug));
	json_object_set_new(o, "genapic", str_or_null(f->genapic));
	json_object_set_new(o, "xen_cmdline", json_string(f->xen_cmdline));
	json_object_set_new(o, "cpus", int_or_null(f->nr_cpus));
	json_object_set_new(o, "smt", f->threads_per_core < 0 ? json_null() :
			    json_boolean(f->threads_per_core > 1));
	json_object_set_new(o, "allowed_cpus", int_or_null(f->allowed_cpus));
	json_object_set_new(o, "hotplug_cpus", int_or_null(f->hotplug_cpus));
	json_object_set_new(o, "madt_disabled", f->info_lines ? json_integer(f->madt_disabled) :
			    json_null());
	json_object_set_new(o, "x2apic_ids", ids);
	json_object_set_new(o, "x2apic_clusters", f->napic ? json_integer(hc_clusters(f)) :
			    json_null());
	json_object_set_new(o, "flush_takes_shorthand", bool_or_null(sh));
	json_object_set_new(o, "interrupt_remapping", bool_or_null(f->intremap));
	json_object_set_new(o, "cpufreq_driver", str_or_null(f->cpufreq_driver));
	json_object_set_new(o, "cpufreq_governor", str_or_null(f->governor));
	json_object_set_new(o, "turbo", bool_or_null(f->turbo));
	json_object_set_new(o, "max_cstate", f->max_cstate == 1000 ? json_string("unlimited") :
			    int_or_null(f->max_cstate));
	json_object_set_new(o, "microcode", str_or_null(f->microcode));
	json_object_set_new(o, "cpu_model", str_or_null(f->cpu_model));
	return o;
}

/* ---- the judgement ---------------------------------------------------- */

struct judge {
	struct hc_finding *out;
	unsigned int n, max;
};

static void add(struct judge *j, enum hc_level l, const char *where, const char *fix,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(struct judge *j, enum hc_level l, const char *where, const char *fix,
		const char *fmt, ...)
{
	struct hc_finding *x;
	va_list ap;

	if (j->n >= j->max)
		return;
	x = &j->out[j->n++];
	x->level = l;
	snprintf(x->where, sizeof(x->where), "%s", where ? where : "");
	snprintf(x->fix, sizeof(x->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	va_end(ap);
}

/* The line of KEY in [SECTION] of the config's text (0: not there). */
static int key_line(const struct config *c, const char *section, const char *key)
{
	const char *p = c->text;
	char line[256];
	int n = 0, toolong, in = 0;

	if (!p)
		return 0;
	while (next_line(&p, line, sizeof(line), &n, &toolong)) {
		char *s = line, *k, *v;
		s += strspn(s, " \t");
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (e)
				*e = '\0';
			in = !strcmp(s + 1, section);
			continue;
		}
		if (in && *s != ';' && *s != '#' && strchr(s, '=')) {
			*strchr(s, '=') = ':';
			if (key_value(s, &k, &v) && !strcmp(k, key))
				return n;
		}
	}
	return 0;
}

static void where_of(char *buf, size_t len, const char *file, const struct config *c,
		     const char *section, const char *key)
{
	int l = key_line(c, section, key);

	if (l)
		snprintf(buf, len, "%s:%d", file, l);
	else
		snprintf(buf, len, "%s: [%s]", file, section);
}

/* The mode a genapic name is: "physical", "cluster", "mixed", or NULL. */
static const char *genapic_mode(const char *g)
{
	return !strcmp(g, "x2apic_phys") ? "physical" : !strcmp(g, "x2apic_cluster") ? "cluster" :
	       !strcmp(g, "x2apic_mixed") ? "mixed" : NULL;
}

static int has_mode(const struct config *c, const char *m)
{
	for (unsigned int i = 0; i < c->matrix.nmodes; i++)
		if (!strcmp(c->matrix.modes[i], m))
			return 1;
	return 0;
}

/* Whether the config compares flush_tlb_all() between modes through the
 * genapic (a flush workload without senders, sender or shorthand = false). */
static int flush_between_modes(const struct config *c, const char **wname)
{
	for (unsigned int i = 0; i < c->nwl; i++) {
		const json_t *p = c->wl[i].params;
		const char *sender = json_string_value(json_object_get(p, "sender"));
		const char *senders = json_string_value(json_object_get(p, "senders"));
		json_t *sh = json_object_get(p, "shorthand");

		if (strcmp(c->wl[i].type->type, "flush_tlb_all"))
			continue;
		if ((sender && strcmp(sender, "genapic")) || (senders && *senders))
			continue;
		if (json_is_false(sh))
			continue;
		*wname = c->wl[i].name;
		return 1;
	}
	return 0;
}

/* A pin on Xen's command line: the host's, or the reboot backend's [host] cmdline. */
static int pinned(const struct hc_facts *f, const struct config *c, const char *word, char *v,
		  size_t vlen)
{
	const char *extra = NULL;

	if (c && !strcmp(c->host.backend, "reboot"))
		extra = json_string_value(json_object_get(json_object_get(c->sections, "host"),
							  "cmdline"));
	if (extra && cmdline_opt(extra, word, v, vlen))
		return 1;
	return cmdline_opt(f->xen_cmdline, word, v, vlen) != NULL;
}

unsigned int hc_judge(const struct hc_facts *f, const struct config *c, const char *file,
		      struct hc_finding *out, unsigned int max)
{
	struct judge j = { out, 0, max };
	char w[320], v[128];
	const char *booted = genapic_mode(f->genapic), *wname = NULL;
	int reboot = c && !strcmp(c->host.backend, "reboot");
	int sh = hc_takes_shorthand(f);

	/* The host itself. */
	if (!f->xen_version[0])
		add(&j, c ? HC_ERROR : HC_WARNING, NULL,
		    "run it in dom0 of a Xen host, with xl and xenpm (xen-utils) installed",
		    "no Xen found: neither xl info nor /sys/hypervisor gave a version");
	if (f->xen_version[0] && !f->info_lines)
		add(&j, HC_WARNING, NULL, "boot Xen with loglvl=all (and conring_size=1m on a large box)",
		    "xl dmesg has none of Xen's info-level boot lines (SMP, MADT): hotplug CPUs, "
		    "x2APIC IDs and so the shorthand are unknown");
	if (f->genapic[0] && !booted)
		add(&j, HC_ERROR, NULL, "enable x2APIC in the firmware (and drop x2apic=0/nox2apic "
		    "from Xen's command line)",
		    "Xen uses the APIC driver %s, not an x2APIC one: no x2APIC mode to measure",
		    f->genapic);
	if (f->debug == 1)
		add(&j, HC_WARNING, NULL, "build Xen without CONFIG_DEBUG (the package's hypervisor "
		    "is a release build)",
		    "a debug build of Xen: its assertions and checks change what an IPI costs");
	if (sh == 1)
		add(&j, HC_WARNING, NULL,
		    "make Xen take the genapic path: boot it with maxcpus= one below the CPUs present "
		    "(one left unaccounted), or take one offline (xen-hptool cpu-offline N); "
		    "firmware that lists hotplug CPU slots in the MADT does it too",
		    "no hotpluggable or disabled CPUs: flush_tlb_all takes the ALLBUT shorthand "
		    "(one ICR write in every mode), so physical and mixed boots send the same; "
		    "the paired senders and shorthand = false are not affected");
	if (f->intremap == 0)
		add(&j, HC_WARNING, NULL, "enable VT-d (or AMD-Vi) in the firmware and drop "
		    "iommu=no-intremap from Xen's command line",
		    "interrupt remapping is off: Xen turns cluster mode into mixed (or physical)");
	if (f->cpufreq_driver[0] && strcmp(f->cpufreq_driver, "none") &&
	    f->governor[0] && strcmp(f->governor, "performance") && !pinned(f, c, "cpufreq", v, sizeof(v)))
		add(&j, HC_WARNING, NULL, "cpufreq=xen:performance on Xen's command line",
		    "cpufreq governor %s: the frequency moves under the runs", f->governor);
	if (f->turbo == 1)
		add(&j, HC_WARNING, NULL, "turn turbo (Turbo Boost, Core Performance Boost) off in the "
		    "firmware, or run xenpm disable-turbo-mode before the runs",
		    "turbo is on: the clock depends on how many cores are busy and how hot they are");
	if ((f->max_cstate > 1 || (f->max_cstate < 0 && f->xen_version[0])) &&
	    !pinned(f, c, "max_cstate", v, sizeof(v)))
		add(&j, HC_WARNING, NULL, "max_cstate=1 on Xen's command line",
		    f->max_cstate > 1 ? "deep C-states allowed (max C-state %s): an idle target wakes "
		    "late, by more than the modes differ" : "the C-state limit is unknown%s: an idle "
		    "target in a deep C-state wakes late",
		    f->max_cstate == 1000 ? "unlimited" : f->max_cstate > 1 ? "> C1" : "");
	if (f->threads_per_core > 1)
		add(&j, HC_INFO, NULL, "smt=0 on Xen's command line (or SMT off in the firmware) to "
		    "measure without siblings",
		    "SMT on (%d threads per core): siblings share a core's execution units",
		    f->threads_per_core);
	if (!c)
		return j.n;

	/* The config on this host.  The Xen its runs boot: the running one
	 * (local), or for reboot the build `host install` copied when its
	 * version is known (config_load() checked its modes), else the running. */
	const struct xen_build *b = c->matrix.build;
	int built = reboot && b && b->major;
	int major = built ? (int)b->major : f->xen_major, minor = built ? (int)b->minor : f->xen_minor;
	const char *version = built ? (b->version[0] ? b->version : b->label) : f->xen_version;
	int cluster_gone = major > 4 || (major == 4 && minor >= 20);
	if (cluster_gone && has_mode(c, "cluster")) {
		where_of(w, sizeof(w), file, c, "matrix", "modes");
		add(&j, HC_ERROR, w, "remove it from [matrix] modes",
		    "mode cluster: this Xen (%s) has no cluster mode", version);
	} else if (f->intremap == 0 && has_mode(c, "cluster")) {
		where_of(w, sizeof(w), file, c, "matrix", "modes");
		add(&j, HC_ERROR, w, "enable VT-d (or AMD-Vi) interrupt remapping in the firmware, "
		    "or remove cluster from [matrix] modes",
		    "mode cluster: interrupt remapping is off here, and Xen then boots cluster as "
		    "mixed or physical");
	}
	if (f->nr_cpus > 0 && c->host.cpus != (unsigned int)f->nr_cpus) {
		char fix[80];
		where_of(w, sizeof(w), file, c, "host", "cpus");
		snprintf(fix, sizeof(fix), "set [host] cpus = %d", f->nr_cpus);
		add(&j, HC_WARNING, w, fix, "cpus = %u, but this host has %d CPUs online: the "
		    "results would record the config's count", c->host.cpus, f->nr_cpus);
	}
	if (!strcmp(c->host.backend, "local") && booted) {
		/* A run of another mode fails at once (backends/local.c); a config
		 * with no run in the booted mode cannot show anything here. */
		int any = has_mode(c, booted);
		for (unsigned int i = 0; i < c->matrix.nmodes; i++)
			if (strcmp(c->matrix.modes[i], booted)) {
				where_of(w, sizeof(w), file, c, "matrix", "modes");
				char fix[200];
				if (any)
					snprintf(fix, sizeof(fix), "remove it from [matrix] modes, or use "
						 "backend = reboot to switch modes");
				else
					snprintf(fix, sizeof(fix), "set [matrix] modes = %s, or boot Xen "
						 "with x2apic-mode=%s (backend = reboot switches modes)",
						 booted, c->matrix.modes[i]);
				add(&j, any ? HC_WARNING : HC_ERROR, w, fix, "mode %s: this host booted %s "
				    "(%s mode); backend = local runs in the mode it booted%s",
				    c->matrix.modes[i], f->genapic, booted,
				    any ? ", so that mode's runs will fail" : "");
				if (!any)
					break;
			}
	}
	if (flush_between_modes(c, &wname) && sh == 1 && c->matrix.nmodes > 1) {
		snprintf(w, sizeof(w), "%s: [workload:%s]", file, wname);
		add(&j, HC_WARNING, w, "see the shorthand's fix above",
		    "flush_tlb_all between modes: every mode sends the ALLBUT shorthand here, "
		    "so the modes' flush times cannot differ by the send routine");
	}
	/* What the report can say. */
	if (!strcmp(c->host.backend, "local") || c->matrix.nmodes < 2)
		add(&j, HC_INFO, NULL, NULL, "one boot: the report compares the send routines inside "
		    "it (paired, with the A/A control), never one mode with another");
	else if (c->matrix.repetitions < 2)
		add(&j, HC_INFO, NULL, "[matrix] repetitions = 2 or more",
		    "one boot per mode: no between-mode verdict (the boot, not the mode, could "
		    "explain a difference)");
	else
		add(&j, HC_INFO, NULL, NULL, "%u boots per mode: between-mode verdicts with the "
		    "boot as the unit", c->matrix.repetitions);
	if (reboot && !pinned(f, c, "max_cstate", v, sizeof(v)))
		add(&j, HC_INFO, NULL, "[host] cmdline = max_cstate=1 cpufreq=xen:performance",
		    "the reboot entries do not pin the C-states");
	return j.n;
}

const char *hc_level_name(enum hc_level l)
{
	return l == HC_ERROR ? "error" : l == HC_WARNING ? "warning" : "info";
}

json_t *hc_findings_json(const struct hc_finding *fs, unsigned int n)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "level",
						   hc_level_name(fs[i].level), "where", fs[i].where,
						   "text", fs[i].text, "fix", fs[i].fix));
	return a;
}

void hc_modes_offered(const struct hc_facts *f, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t m = 0; m < IPIBENCH_NMODES && f->xen_major >= 0; m++) {
		const char *name = ipibench_mode_name(m);
		if (xen_has_mode((unsigned)f->xen_major, (unsigned)f->xen_minor, name) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", name);
	}
}

int hc_preflight(const struct config *c, const char *file, const struct hc_source *src,
		 json_t **host, char *err, size_t errlen)
{
	struct hc_facts *f = malloc(sizeof(*f));
	struct hc_finding fs[HC_MAX_FINDINGS];
	unsigned int n;
	char q[3][600];

	if (host)
		*host = NULL;
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (hc_collect(f, src, err, errlen)) {
		free(f);
		return -1;
	}
	if (!f->xen_version[0]) {
		/* Not a Xen host: the backend refuses it with its own line. */
		free(f);
		return 0;
	}
	n = hc_judge(f, c, file, fs, HC_MAX_FINDINGS);
	for (unsigned int i = 0; i < n; i++)
		if (fs[i].level == HC_ERROR) {
			snprintf(err, errlen, "%s%s%s%s%s", fs[i].where[0] ? fs[i].where : "",
				 fs[i].where[0] ? ": " : "", fs[i].text, fs[i].fix[0] ? "; " : "",
				 fs[i].fix);
			free(f);
			return -1;
		}
	for (unsigned int i = 0; i < n; i++)
		if (fs[i].level == HC_WARNING)
			fprintf(stderr, "ipibench run: warning: %s%s%s (fix: %s)\n",
				sio_shown(q[0], sizeof(q[0]), fs[i].where), fs[i].where[0] ? ": " : "",
				sio_shown(q[1], sizeof(q[1]), fs[i].text),
				sio_shown(q[2], sizeof(q[2]), fs[i].fix[0] ? fs[i].fix : "none"));
	if (host) {
		json_t *w = json_array();
		for (unsigned int i = 0; i < n; i++)
			if (fs[i].level == HC_WARNING) {
				json_t *one = hc_findings_json(&fs[i], 1);
				json_array_extend(w, one);
				json_decref(one);
			}
		*host = json_pack("{s:o, s:o}", "facts", hc_facts_json(f), "warnings", w);
	}
	free(f);
	return 0;
}
