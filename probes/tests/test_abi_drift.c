/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One ABI: XEN_SYSCTL_ipibench is written once, in the hypervisor's public
 * header hv-patch/src/xen/include/public/ipibench.h, which user space
 * includes too (include/ipibench/abi.h).  What is left to check:
 *
 *  - the layout, pinned at compile time below: an offset or a size that
 *    changes must come with a new XEN_SYSCTL_IPIBENCH_VERSION (change both
 *    here together);
 *  - every series (hv-patch/X/series, the patches in order): the text it
 *    gives xen/include/public/ipibench.h is that file byte for byte; its
 *    sysctl.h hunks add the #include, XEN_SYSCTL_ipibench with abi.h's
 *    number and the union member under the x86 guard, and nothing else of
 *    the interface; its trace.h defines exactly ipibench/apic-trace.h's
 *    TRC_HW_APIC_* values (that part of the ABI is still written twice);
 *  - every series defines, in the xen/arch/x86/ipibench.c it adds, each
 *    function ipibench finds by name in xen-syms (ipibench/hvsyms.h);
 *  - a changed copy of each text is reported.
 */
#include <ctype.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "ipibench/abi.h"
#include "ipibench/hvsyms.h"

/* ---- the layout (x86-64) --------------------------------------------- */

_Static_assert(XEN_SYSCTL_IPIBENCH_VERSION == 1,
	       "a new interface version: update the layout checks below");
_Static_assert(XEN_SYSCTL_ipibench == 31, "the sysctl op number");

#define AT(s, f, off) \
	_Static_assert(offsetof(struct s, f) == (off), #s "." #f)

AT(xen_sysctl_ipibench_sample, cycles, 0);
AT(xen_sysctl_ipibench_sample, ns, 8);
AT(xen_sysctl_ipibench_sample, icr_writes, 16);
AT(xen_sysctl_ipibench_sample, cpu, 20);
AT(xen_sysctl_ipibench_sample, send_cycles, 24);
AT(xen_sysctl_ipibench_sample, flags, 28);
_Static_assert(sizeof(struct xen_sysctl_ipibench_sample) == 32, "sample");

AT(xen_sysctl_ipibench_cpu, apic_id, 0);
AT(xen_sysctl_ipibench_cpu, logical_id, 4);
AT(xen_sysctl_ipibench_cpu, cluster, 8);
AT(xen_sysctl_ipibench_cpu, flags, 12);
AT(xen_sysctl_ipibench_cpu, irqs, 16);
AT(xen_sysctl_ipibench_cpu, ipis, 24);
AT(xen_sysctl_ipibench_cpu, dev_irqs, 32);
AT(xen_sysctl_ipibench_cpu, vectors, 40);
AT(xen_sysctl_ipibench_cpu, pad, 44);
_Static_assert(sizeof(struct xen_sysctl_ipibench_cpu) == 48, "cpu");
/* 64 bits, as Xen counts them. */
_Static_assert(sizeof(((struct xen_sysctl_ipibench_cpu *)0)->dev_irqs) == 8,
	       "dev_irqs");

AT(xen_sysctl_ipibench_info, version, 0);
AT(xen_sysctl_ipibench_info, nr_cpu_ids, 4);
AT(xen_sysctl_ipibench_info, online_cpus, 8);
AT(xen_sysctl_ipibench_info, present_cpus, 12);
AT(xen_sysctl_ipibench_info, disabled_cpus, 16);
AT(xen_sysctl_ipibench_info, unaccounted_cpus, 20);
AT(xen_sysctl_ipibench_info, shorthand_eligible, 24);
AT(xen_sysctl_ipibench_info, tsc_khz, 28);
AT(xen_sysctl_ipibench_info, vector, 32);
AT(xen_sysctl_ipibench_info, x2apic, 36);
AT(xen_sysctl_ipibench_info, max_iterations, 40);
AT(xen_sysctl_ipibench_info, max_samples, 44);
AT(xen_sysctl_ipibench_info, idle_timeout_ms, 48);
AT(xen_sysctl_ipibench_info, run_live, 52);
AT(xen_sysctl_ipibench_info, dev_sbdf, 56);
AT(xen_sysctl_ipibench_info, dev_irte, 60);
AT(xen_sysctl_ipibench_info, dev_msi_addr, 64);
AT(xen_sysctl_ipibench_info, dev_msi_data, 68);
AT(xen_sysctl_ipibench_info, genapic, 72);
_Static_assert(sizeof(struct xen_sysctl_ipibench_info) == 104, "info");

AT(xen_sysctl_ipibench, op, 0);
AT(xen_sysctl_ipibench, flags, 4);
AT(xen_sysctl_ipibench, run_id, 8);
AT(xen_sysctl_ipibench, cpu, 12);
AT(xen_sysctl_ipibench, peer, 16);
AT(xen_sysctl_ipibench, vector, 20);
AT(xen_sysctl_ipibench, sender, 24);
AT(xen_sysctl_ipibench, iterations, 28);
AT(xen_sysctl_ipibench, start, 32);
AT(xen_sysctl_ipibench, nr_cpus, 36);
AT(xen_sysctl_ipibench, nr_samples, 40);
AT(xen_sysctl_ipibench, done, 44);
AT(xen_sysctl_ipibench, mask.bitmap, 48);
AT(xen_sysctl_ipibench, mask.nr_bits, 56);
AT(xen_sysctl_ipibench, samples, 64);
AT(xen_sysctl_ipibench, cpus, 72);
AT(xen_sysctl_ipibench, info, 80);
AT(xen_sysctl_ipibench, icr_writes, 88);
AT(xen_sysctl_ipibench, ipis_sent, 96);
AT(xen_sysctl_ipibench, ipis_received, 104);
AT(xen_sysctl_ipibench, path, 112);
AT(xen_sysctl_ipibench, status, 116);
AT(xen_sysctl_ipibench, result, 120);
AT(xen_sysctl_ipibench, pad, 124);
/* The whole of struct xen_sysctl's 128-byte union. */
_Static_assert(sizeof(struct xen_sysctl_ipibench) == 128, "request");

/* ---- reading the series ---------------------------------------------- */

#define HEADER "hv-patch/src/xen/include/public/ipibench.h"
#define DEFAULT_SERIES "hv-patch/4.17"

/* The series the group being run checks (main() runs the tests once for
 * each hv-patch/X/series); 4.17's must be there. */
static char series_dir[256] = DEFAULT_SERIES;
static char repo_root[4096];

/* The repository root: $IPIBENCH_ROOT, or the nearest parent of the
 * working directory that holds DEFAULT_SERIES/series. */
static int find_root(char *root, size_t len)
{
	const char *env = getenv("IPIBENCH_ROOT");
	char probe[8192];

	if (env) {
		snprintf(root, len, "%s", env);
		return 0;
	}
	if (!getcwd(root, len))
		return -1;
	for (int up = 0; up < 6; up++) {
		snprintf(probe, sizeof(probe), "%s/" DEFAULT_SERIES "/series", root);
		if (access(probe, R_OK) == 0)
			return 0;
		char *slash = strrchr(root, '/');
		if (!slash || slash == root)
			break;
		*slash = '\0';
	}
	return -1;
}

struct lines {
	char **v;
	size_t n;
};

static void lines_insert(struct lines *l, size_t at, const char *s)
{
	if (at > l->n)
		at = l->n;
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = strdup(s);
	l->n++;
}

/* The first line equal to s at or after from, else the last one; -1. */
static long lines_find(const struct lines *l, const char *s, size_t from)
{
	for (size_t i = from; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return (long)i;
	for (size_t i = l->n; i-- > 0;)
		if (!strcmp(l->v[i], s))
			return (long)i;
	return -1;
}

static long lines_remove(struct lines *l, const char *s, size_t from)
{
	long i = lines_find(l, s, from);

	if (i >= 0) {
		free(l->v[i]);
		memmove(&l->v[i], &l->v[i + 1], (l->n - (size_t)i - 1) * sizeof(*l->v));
		l->n--;
	}
	return i;
}

/* What the series gives FILE (a path in Xen's tree). */
struct series_text {
	char *added;            /* the lines the series adds, in order */
	int unguarded_member;   /* the union member (last) added outside the x86 #if */
	int member_seen;
};

static int is_member(const char *l)
{
	char w[3][64];

	return sscanf(l, " %63s %63s %63s", w[0], w[1], w[2]) == 3 &&
	       !strcmp(w[0], "struct") && !strcmp(w[1], "xen_sysctl_ipibench") &&
	       !strcmp(w[2], "ipibench;");
}

#define X86_GUARD "#if defined(__i386__) || defined(__x86_64__)"

/*
 * The lines the series adds to FILE: a line a later patch removes is
 * dropped, lines added right after a removed one replace it, lines added
 * after a context line the series added go right after it.  For sysctl.h
 * also whether the union member is added inside an x86 #if of its hunk.
 */
static int read_series(const char *root, const char *file, struct series_text *out)
{
	char path[8192], *series, *save = NULL;
	struct lines added = { NULL, 0 };
	size_t len = 1;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s/series", root, series_dir);
	series = tu_slurp(path);
	if (!series)
		return -1;
	for (char *line = strtok_r(series, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (isspace((unsigned char)*line))
			line++;
		if (!*line || *line == '#')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, series_dir, line);
		char *patch = tu_slurp(path);
		if (!patch) {
			fprintf(stderr, "test_abi_drift: %s/series: %s: cannot read it\n",
				series_dir, line);
			goto out;
		}
		int wanted = 0;
		long at = -1;
		size_t cur = 0;
		/* The #if nesting seen in the current hunk: +1 in X86_GUARD. */
		int depth = 0, in_x86 = 0;
		char *psave = NULL;

		for (char *l = strtok_r(patch, "\n", &psave); l;
		     l = strtok_r(NULL, "\n", &psave)) {
			if (!strncmp(l, "+++ ", 4)) {
				wanted = strlen(l) >= strlen(file) &&
					 !strcmp(l + strlen(l) - strlen(file), file);
				continue;
			}
			if (!strncmp(l, "diff --git", 10)) {
				wanted = 0;
				continue;
			}
			if (!strncmp(l, "--- ", 4))
				continue;
			if (!strncmp(l, "@@", 2)) {
				at = -1;
				cur = 0;
				depth = in_x86 = 0;
				continue;
			}
			if (wanted && (l[0] == '+' || l[0] == ' ')) {
				const char *t = l + 1;

				if (!strncmp(t, "#if", 3)) {
					depth++;
					if (!strcmp(t, X86_GUARD))
						in_x86 = depth;
				} else if (!strncmp(t, "#endif", 6) && depth > 0) {
					if (in_x86 == depth)
						in_x86 = 0;
					depth--;
				}
				/* Where the last patch that adds it, or has it
				 * as context, puts it. */
				if (is_member(t)) {
					out->member_seen |= l[0] == '+';
					out->unguarded_member = !in_x86;
				}
			}
			if (wanted && l[0] == '+') {
				if (at >= 0)
					lines_insert(&added, (size_t)at++, l + 1);
				else
					lines_insert(&added, added.n, l + 1);
				cur = at >= 0 ? (size_t)at : added.n;
			} else if (wanted && l[0] == '-') {
				long i = lines_remove(&added, l + 1, cur);
				if (i >= 0 && i < at)
					at--;
				if (i >= 0 && at < 0)
					at = i;
				if (i >= 0)
					cur = (size_t)i;
			} else if (wanted && l[0] == ' ') {
				long i = lines_find(&added, l + 1, cur);
				at = i >= 0 ? i + 1 : -1;
				if (i >= 0)
					cur = (size_t)i + 1;
			} else {
				at = -1;
			}
		}
		free(patch);
	}
	for (size_t i = 0; i < added.n; i++)
		len += strlen(added.v[i]) + 1;
	out->added = malloc(len);
	out->added[0] = '\0';
	for (size_t i = 0; i < added.n; i++) {
		strcat(out->added, added.v[i]);
		strcat(out->added, "\n");
	}
	rc = 0;
out:
	for (size_t i = 0; i < added.n; i++)
		free(added.v[i]);
	free(added.v);
	free(series);
	return rc;
}

/* ---- the checks (0, or -1 with why in err) ----------------------------- */

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Case-insensitive: does s hold "ipibench"? */
static int mentions_ipibench(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "ipibench", 8))
			return 1;
	return 0;
}

/* sysctl.h: the include, the op number, the member (guarded), no more. */
static int check_sysctl(const struct series_text *t, char *err, size_t len)
{
	int include = 0, number = 0;
	char *copy = strdup(t->added), *save = NULL;
	int rc = 0;

	for (char *l = strtok_r(copy, "\n", &save); l && !rc;
	     l = strtok_r(NULL, "\n", &save)) {
		long v;
		char name[64];

		if (!strcmp(l, "#include \"ipibench.h\""))
			include++;
		else if (sscanf(l, " #define %63s %li", name, &v) == 2 &&
			 !strcmp(name, "XEN_SYSCTL_ipibench")) {
			if (v != XEN_SYSCTL_ipibench)
				rc = bad(err, len, "sysctl.h: XEN_SYSCTL_ipibench is %ld, "
					  "abi.h says %d", v, XEN_SYSCTL_ipibench);
			number++;
		} else if (is_member(l)) {
			continue;
		} else if (mentions_ipibench(l)) {
			rc = bad(err, len, "sysctl.h: more of the interface than its "
				  "op number, union member and #include: \"%s\"", l);
		}
	}
	free(copy);
	if (rc)
		return rc;
	if (include != 1)
		return bad(err, len, "sysctl.h: #include \"ipibench.h\" added %d times",
			    include);
	if (number != 1)
		return bad(err, len, "sysctl.h: XEN_SYSCTL_ipibench defined %d times",
			    number);
	if (!t->member_seen)
		return bad(err, len, "sysctl.h: no union member "
			    "struct xen_sysctl_ipibench ipibench");
	if (t->unguarded_member)
		return bad(err, len, "sysctl.h: the union member is not under "
			    X86_GUARD);
	return 0;
}

/* public/ipibench.h: the file in hv-patch/src, byte for byte. */
static int check_header(const char *series_text, const char *file, char *err,
			size_t len)
{
	size_t i = 0, line = 1;

	if (!*series_text)
		return bad(err, len, "the series adds no xen/include/public/ipibench.h");
	while (series_text[i] && series_text[i] == file[i]) {
		if (file[i] == '\n')
			line++;
		i++;
	}
	if (series_text[i] || file[i])
		return bad(err, len, "xen/include/public/ipibench.h differs from "
			    HEADER " at line %zu", line);
	return 0;
}

static const struct { const char *name; long value; } trace_ids[] = {
#define T(n) { #n, n }
	T(TRC_HW_APIC), T(TRC_HW_APIC_SEND_IPI_MASK), T(TRC_HW_APIC_SEND_IPI_ALLBUT),
	T(TRC_HW_APIC_SEND_IPI_SELF), T(TRC_HW_APIC_MASK_TO_APICID),
	T(TRC_HW_APIC_IPI_RECV), T(TRC_HW_APIC_ICR_WRITE), T(TRC_HW_APIC_LOGICAL),
#undef T
};
#define NR_TRACE_IDS (sizeof(trace_ids) / sizeof(trace_ids[0]))

/* trace.h: "#define TRC_HW_APIC_X VALUE", VALUE a number or
 * "(TRC_HW_APIC + N)": exactly apic-trace.h's names and values. */
static int check_trace(const char *text, char *err, size_t len)
{
	char *copy = strdup(text), *save = NULL;
	int seen[NR_TRACE_IDS] = { 0 }, rc = 0;
	long base = -1;

	for (char *l = strtok_r(copy, "\n", &save); l && !rc;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[64], rest[128];
		long v, n;
		size_t k;

		if (sscanf(l, " #define %63s %127[^\n]", name, rest) != 2 ||
		    strncmp(name, "TRC_HW_APIC", 11))
			continue;
		if (sscanf(rest, "(TRC_HW_APIC + %li)", &n) == 1 && base >= 0)
			v = base + n;
		else if (sscanf(rest, "%li", &v) != 1)
			rc = bad(err, len, "trace.h: %s: cannot read \"%s\"", name, rest);
		if (rc)
			break;
		if (!strcmp(name, "TRC_HW_APIC"))
			base = v;
		for (k = 0; k < NR_TRACE_IDS; k++)
			if (!strcmp(trace_ids[k].name, name))
				break;
		if (k == NR_TRACE_IDS)
			rc = bad(err, len, "trace.h: %s is not in ipibench/apic-trace.h", name);
		else if (trace_ids[k].value != v)
			rc = bad(err, len, "trace.h: %s is %#lx, ipibench/apic-trace.h "
				  "says %#lx", name, v, trace_ids[k].value);
		else
			seen[k]++;
	}
	free(copy);
	for (size_t k = 0; !rc && k < NR_TRACE_IDS; k++)
		if (seen[k] != 1)
			rc = bad(err, len, "trace.h: %s defined %d times", trace_ids[k].name,
				  seen[k]);
	return rc;
}

/*
 * Each of ipibench/hvsyms.h's names is defined in CODE (the lines a series
 * adds to ipibench.c): a line at the left margin, not a declaration
 * (no ';' at its end), with the name followed by '(' and preceded by a
 * space or a '*'.  0, or -1 naming the first one missing.
 */
static int check_syms(const char *code, char *err, size_t len)
{
	static const char *const syms[] = IPIBENCH_SYMS;

	for (size_t k = 0; k < sizeof(syms) / sizeof(syms[0]); k++) {
		size_t n = strlen(syms[k]);
		int found = 0;

		for (const char *l = code; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			size_t ll = strcspn(l, "\n");
			const char *p = l;

			if (isspace((unsigned char)*l) || *l == '#' || *l == '/' || *l == '*' ||
			    (ll && l[ll - 1] == ';'))
				continue;
			while ((p = strstr(p, syms[k])) && p < l + ll) {
				if (p > l && (p[-1] == ' ' || p[-1] == '*') && p[n] == '(') {
					found = 1;
					break;
				}
				p += n;
			}
		}
		if (!found)
			return bad(err, len, "ipibench.c: no definition of %s() (ipibench/hvsyms.h)",
				   syms[k]);
	}
	return 0;
}

/* ---- tests ------------------------------------------------------------ */

struct fixture {
	struct series_text sysctl, header, trace, code;
	char *file;             /* HEADER */
};

/* The file as the series adds it: without scripts/hv-series.py's marker lines
 * (a comment line of its own opening with @file, @if or @end). */
static void drop_markers(char *s)
{
	char *out = s, *line = s;

	while (*line) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line + 1) : strlen(line);
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "/* @file ", 9) && strncmp(p, "/* @if ", 7) &&
		    strncmp(p, "/* @end", 7)) {
			memmove(out, line, n);
			out += n;
		}
		line += n;
	}
	*out = '\0';
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char path[8192];

	if (!fx)
		return -1;
	snprintf(path, sizeof(path), "%s/" HEADER, repo_root);
	fx->file = tu_slurp(path);
	if (fx->file)
		drop_markers(fx->file);
	if (!fx->file ||
	    read_series(repo_root, "xen/include/public/sysctl.h", &fx->sysctl) ||
	    read_series(repo_root, "xen/include/public/ipibench.h", &fx->header) ||
	    read_series(repo_root, "xen/include/public/trace.h", &fx->trace) ||
	    read_series(repo_root, "xen/arch/x86/ipibench.c", &fx->code))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	free(fx->sysctl.added);
	free(fx->header.added);
	free(fx->trace.added);
	free(fx->code.added);
	free(fx->file);
	free(fx);
	return 0;
}

static void test_header_is_the_file(void **state)
{
	struct fixture *fx = *state;
	char err[256];

	if (check_header(fx->header.added, fx->file, err, sizeof(err)))
		fail_msg("%s: %s", series_dir, err);
}

static void test_sysctl_hunks(void **state)
{
	struct fixture *fx = *state;
	char err[256];

	if (check_sysctl(&fx->sysctl, err, sizeof(err)))
		fail_msg("%s: %s", series_dir, err);
}

static void test_trace_ids(void **state)
{
	struct fixture *fx = *state;
	char err[256];

	if (check_trace(fx->trace.added, err, sizeof(err)))
		fail_msg("%s: %s", series_dir, err);
}

static void test_symbols_defined(void **state)
{
	struct fixture *fx = *state;
	char err[256];

	if (check_syms(fx->code.added, err, sizeof(err)))
		fail_msg("%s: %s", series_dir, err);
}

/* Replace the first FROM in TEXT by TO (malloc'd; NULL if not there). */
static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	char *r;

	if (!p)
		return NULL;
	r = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	sprintf(r, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	return r;
}

/* The checks see a change: each mutation of a good text is reported. */
static void test_detects_changes(void **state)
{
	struct fixture *fx = *state;
	static const struct { const char *from, *to; } sysctl_muts[] = {
		{ "XEN_SYSCTL_ipibench                      31",
		  "XEN_SYSCTL_ipibench                      32" },
		{ "#include \"ipibench.h\"", "#include \"xen.h\"" },
		{ "struct xen_sysctl_ipibench          ipibench;",
		  "struct xen_sysctl_ipibench          bench;" },
		{ "#include \"ipibench.h\"",
		  "#include \"ipibench.h\"\n#define XEN_SYSCTL_IPIBENCH_OP_query 0" },
	};
	struct series_text t = fx->sysctl;
	char err[256], *m;

	for (size_t i = 0; i < sizeof(sysctl_muts) / sizeof(sysctl_muts[0]); i++) {
		m = replace_once(fx->sysctl.added, sysctl_muts[i].from, sysctl_muts[i].to);
		if (!m)
			fail_msg("%s: sysctl.h has no \"%s\"", series_dir, sysctl_muts[i].from);
		t.added = m;
		assert_int_equal(check_sysctl(&t, err, sizeof(err)), -1);
		free(m);
	}
	t.added = fx->sysctl.added;
	t.unguarded_member = 1;
	assert_int_equal(check_sysctl(&t, err, sizeof(err)), -1);

	m = replace_once(fx->header.added, "uint64_aligned_t dev_irqs;",
			 "uint32_t dev_irqs;");
	assert_non_null(m);
	assert_int_equal(check_header(m, fx->file, err, sizeof(err)), -1);
	free(m);

	/* a renamed function, and one left only declared */
	m = replace_once(fx->code.added, "bench_chunk(void *unused)\n", "bench_chunk2(void *unused)\n");
	assert_non_null(m);
	assert_int_equal(check_syms(m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bench_chunk()"));
	free(m);
	m = replace_once(fx->code.added, "int ipibench_sysctl(struct xen_sysctl_ipibench *op)\n",
			 "int ipibench_sysctl(struct xen_sysctl_ipibench *op);\n");
	assert_non_null(m);
	assert_int_equal(check_syms(m, err, sizeof(err)), -1);
	free(m);

	m = replace_once(fx->trace.added, "(TRC_HW_APIC + 0x6)", "(TRC_HW_APIC + 0x5)");
	assert_non_null(m);
	assert_int_equal(check_trace(m, err, sizeof(err)), -1);
	free(m);
	m = replace_once(fx->trace.added, "#define TRC_HW_APIC_IPI_RECV",
			 "#define TRC_HW_APIC_VECTOR_ALLOC_MASK (TRC_HW_APIC + 0x5)\n"
			 "#define TRC_HW_APIC_IPI_RECV");
	assert_non_null(m);
	assert_int_equal(check_trace(m, err, sizeof(err)), -1);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_is_the_file),
		cmocka_unit_test(test_sysctl_hunks),
		cmocka_unit_test(test_trace_ids),
		cmocka_unit_test(test_symbols_defined),
		cmocka_unit_test(test_detects_changes),
	};
	char pattern[8192], name[300];
	int failed = 0, has_default = 0;
	glob_t g;

	if (find_root(repo_root, sizeof(repo_root))) {
		fprintf(stderr, "test_abi_drift: " DEFAULT_SERIES "/series not found "
			"(run from the repository or set IPIBENCH_ROOT)\n");
		return 1;
	}
	snprintf(pattern, sizeof(pattern), "%s/hv-patch/*/series", repo_root);
	if (glob(pattern, 0, NULL, &g)) {
		fprintf(stderr, "test_abi_drift: no %s\n", pattern);
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		/* ROOT/hv-patch/X/series -> hv-patch/X */
		const char *rel = g.gl_pathv[i] + strlen(repo_root) + 1;

		snprintf(series_dir, sizeof(series_dir), "%.*s",
			 (int)(strlen(rel) - strlen("/series")), rel);
		has_default |= !strcmp(series_dir, DEFAULT_SERIES);
		snprintf(name, sizeof(name), "abi_drift: %s", series_dir);
		printf("test_abi_drift: the series in %s\n", series_dir);
		fflush(stdout);
		failed += cmocka_run_group_tests_name(name, tests, setup, teardown);
	}
	globfree(&g);
	return failed || !has_default;
}
