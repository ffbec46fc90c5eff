/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/include/ipibench/abi.h must agree with the public headers the
 * hypervisor patch series adds (xen/include/public/trace.h and sysctl.h).
 *
 * The public header text is taken from the patches themselves: every line
 * the series adds to those two files (hv-patch/X/series, in order).  Every
 * series there is (hv-patch/4.17/, hv-patch/4.20/, hv-patch/staging/ ...)
 * is checked, each as a group of its own: all of them must give abi.h's
 * one interface.  Both
 * texts are parsed the same way: the #defines of the ipibench namespaces
 * are evaluated, the xen_sysctl_ipibench* structs are laid out with the
 * x86-64 rules.  Then
 *   - both sides must have the same defines with the same values and the
 *     same structs with the same fields at the same offsets and sizes;
 *   - the parsed abi.h must match what the compiler makes of abi.h
 *     (offsetof/sizeof and the macro values), so the parser is checked too;
 *   - a mutated copy of the public text must be reported as drift.
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
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "ipibench/abi.h"

#define MAX_DEFS 128
#define MAX_STRUCTS 16
#define MAX_FIELDS 48
#define NAMELEN 64

struct def {
	char name[NAMELEN];
	char expr[160];
	long long value;
	int state;              /* 0 unevaluated, 1 evaluating, 2 done */
};

struct field {
	char name[NAMELEN];
	size_t offset, size;
};

struct layout {
	char name[NAMELEN];
	struct field fields[MAX_FIELDS];
	int nr_fields;
	size_t size;
};

struct parsed {
	struct def defs[MAX_DEFS];
	int nr_defs;
	struct layout structs[MAX_STRUCTS];
	int nr_structs;
	char error[256];
};

/* ---- reading the files ----------------------------------------------- */

/* The series the group being run checks: hv-patch/X (main() runs the
 * tests once for each hv-patch/X/series).  4.17's is the default build's
 * and must be there. */
#define DEFAULT_SERIES "hv-patch/4.17"
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

/* The lines the series adds to the two public headers, in order; a line a
 * later patch removes again is dropped. */
struct lines {
	char **v;
	size_t n;
};

/* Insert s at index 'at' (at == l->n: append). */
static void lines_insert(struct lines *l, size_t at, const char *s)
{
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = strdup(s);
	l->n++;
}

/* The first line equal to s at or after from, else the last one; -1 if none. */
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

/* Remove the line lines_find() finds; its index, or -1 if none. */
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

static char *public_text_from_series(const char *root, int *nr_patches)
{
	char path[8192], *series, *save = NULL, *text;
	struct lines added = { NULL, 0 };
	size_t len = 1;

	*nr_patches = 0;
	snprintf(path, sizeof(path), "%s/%s/series", root, series_dir);
	series = tu_slurp(path);
	if (!series)
		return NULL;
	for (char *line = strtok_r(series, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (isspace((unsigned char)*line))
			line++;
		if (!*line || *line == '#')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, series_dir, line);
		char *patch = tu_slurp(path);
		if (!patch) {
			/* A series naming a missing patch is broken: no text. */
			fprintf(stderr, "test_abi_drift: %s/series: %s: cannot read it\n",
				series_dir, line);
			free(series);
			for (size_t i = 0; i < added.n; i++)
				free(added.v[i]);
			free(added.v);
			return NULL;
		}
		(*nr_patches)++;
		int wanted = 0;
		/* Lines a patch adds right after removing one replace it
		 * in place (a field renamed keeps its position); lines added
		 * after a context line the series added go right after it (a
		 * field appended to a struct stays in it), searched from the
		 * hunk's previous line on; other added lines are appended. */
		long at = -1;
		size_t cur = 0;
		char *psave = NULL;
		for (char *l = strtok_r(patch, "\n", &psave); l;
		     l = strtok_r(NULL, "\n", &psave)) {
			if (!strncmp(l, "+++ ", 4)) {
				wanted = strstr(l, "xen/include/public/sysctl.h") ||
					 strstr(l, "xen/include/public/trace.h");
				continue;
			}
			if (!strncmp(l, "diff --git", 10) || !strncmp(l, "--- ", 4)) {
				if (l[0] == 'd')
					wanted = 0;
				continue;
			}
			if (!strncmp(l, "@@", 2)) {
				at = -1;
				cur = 0;
			} else if (wanted && l[0] == '+') {
				if (at >= 0)
					lines_insert(&added, (size_t)at++, l + 1);
				else
					lines_insert(&added, added.n, l + 1);
				cur = at >= 0 ? (size_t)at : added.n;
			} else if (wanted && l[0] == '-') {
				long i = lines_remove(&added, l + 1, cur);
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
	free(series);
	for (size_t i = 0; i < added.n; i++)
		len += strlen(added.v[i]) + 1;
	text = malloc(len);
	text[0] = '\0';
	for (size_t i = 0; i < added.n; i++) {
		strcat(text, added.v[i]);
		strcat(text, "\n");
		free(added.v[i]);
	}
	free(added.v);
	return text;
}

/* ---- parsing --------------------------------------------------------- */

static void strip_comments(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '/' && r[1] == '*') {
			char *end = strstr(r + 2, "*/");
			/* keep line structure */
			for (char *p = r; p < (end ? end + 2 : r + strlen(r)); p++)
				if (*p == '\n')
					*w++ = '\n';
			r = end ? end + 2 : r + strlen(r);
			*w++ = ' ';
		} else if (r[0] == '/' && r[1] == '/') {
			while (*r && *r != '\n')
				r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static int interesting_define(const char *name)
{
	return !strncmp(name, "TRC_HW_APIC", 11) ||
	       !strncmp(name, "XEN_SYSCTL_IPIBENCH", 19) ||
	       !strcmp(name, "XEN_SYSCTL_ipibench");
}

static struct def *find_def(struct parsed *p, const char *name)
{
	for (int i = 0; i < p->nr_defs; i++)
		if (!strcmp(p->defs[i].name, name))
			return &p->defs[i];
	return NULL;
}

/* A small evaluator: numbers, known names, ( ) + - | << and casts-free. */
struct eval {
	struct parsed *p;
	const char *s;
	int err;
};

static long long eval_or(struct eval *e);
static int eval_def(struct parsed *p, struct def *d);

static void skip_ws(struct eval *e)
{
	while (isspace((unsigned char)*e->s))
		e->s++;
}

static long long eval_primary(struct eval *e)
{
	skip_ws(e);
	if (*e->s == '(') {
		e->s++;
		long long v = eval_or(e);
		skip_ws(e);
		if (*e->s == ')')
			e->s++;
		else
			e->err = 1;
		return v;
	}
	if (isdigit((unsigned char)*e->s)) {
		char *end;
		long long v = strtoll(e->s, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		e->s = end;
		return v;
	}
	if (isalpha((unsigned char)*e->s) || *e->s == '_') {
		char name[NAMELEN];
		size_t n = 0;
		while ((isalnum((unsigned char)*e->s) || *e->s == '_') &&
		       n < sizeof(name) - 1)
			name[n++] = *e->s++;
		name[n] = '\0';
		struct def *d = find_def(e->p, name);
		if (!d || eval_def(e->p, d)) {
			e->err = 1;
			return 0;
		}
		return d->value;
	}
	e->err = 1;
	return 0;
}

static long long eval_add(struct eval *e)
{
	long long v = eval_primary(e);

	for (;;) {
		skip_ws(e);
		if (*e->s == '+') {
			e->s++;
			v += eval_primary(e);
		} else if (*e->s == '-') {
			e->s++;
			v -= eval_primary(e);
		} else {
			return v;
		}
	}
}

static long long eval_shift(struct eval *e)
{
	long long v = eval_add(e);

	for (;;) {
		skip_ws(e);
		if (e->s[0] == '<' && e->s[1] == '<') {
			e->s += 2;
			v <<= eval_add(e);
		} else {
			return v;
		}
	}
}

static long long eval_or(struct eval *e)
{
	long long v = eval_shift(e);

	for (;;) {
		skip_ws(e);
		if (*e->s == '|') {
			e->s++;
			v |= eval_shift(e);
		} else {
			return v;
		}
	}
}

static int eval_def(struct parsed *p, struct def *d)
{
	if (d->state == 2)
		return 0;
	if (d->state == 1)
		return -1;      /* recursive */
	d->state = 1;
	struct eval e = { .p = p, .s = d->expr };
	d->value = eval_or(&e);
	skip_ws(&e);
	if (e.err || *e.s) {
		snprintf(p->error, sizeof(p->error), "cannot evaluate %s = %s",
			 d->name, d->expr);
		return -1;
	}
	d->state = 2;
	return 0;
}

/* size and alignment of a field type, 0 if unknown */
static size_t type_size(const char *type)
{
	static const struct { const char *name; size_t size; } types[] = {
		{ "char", 1 }, { "uint8_t", 1 }, { "uint16_t", 2 },
		{ "uint32_t", 4 }, { "uint64_t", 8 }, { "uint64_aligned_t", 8 },
		{ "ipibench_u64", 8 },
	};

	if (!strncmp(type, "XEN_GUEST_HANDLE_64(", 20))
		return 8;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i].name))
			return types[i].size;
	return 0;
}

static int parse_struct_body(struct parsed *p, struct layout *st, char *body)
{
	size_t off = 0, align = 1;
	char *save = NULL;

	for (char *decl = strtok_r(body, ";", &save); decl;
	     decl = strtok_r(NULL, ";", &save)) {
		char type[NAMELEN * 2], name[NAMELEN];
		size_t count = 1;

		while (isspace((unsigned char)*decl))
			decl++;
		if (!*decl)
			continue;
		/* "TYPE NAME" or "TYPE NAME[N]"; TYPE may be a handle macro */
		char *last = decl + strlen(decl);
		while (last > decl && isspace((unsigned char)last[-1]))
			*--last = '\0';
		char *br = strchr(decl, '[');
		if (br) {
			char *endp;
			long n = strtol(br + 1, &endp, 0);
			if (n <= 0 || *endp != ']') {
				snprintf(p->error, sizeof(p->error),
					 "%s: bad array in '%s'", st->name, decl);
				return -1;
			}
			count = (size_t)n;
			*br = '\0';
		}
		char *sp = decl + strlen(decl);
		while (sp > decl && !isspace((unsigned char)sp[-1]))
			sp--;
		snprintf(name, sizeof(name), "%s", sp);
		while (sp > decl && isspace((unsigned char)sp[-1]))
			sp--;
		snprintf(type, sizeof(type), "%.*s", (int)(sp - decl), decl);
		size_t sz = type_size(type);
		if (!sz || !*name) {
			snprintf(p->error, sizeof(p->error),
				 "%s: unknown type '%s' of '%s'", st->name, type,
				 name);
			return -1;
		}
		if (st->nr_fields == MAX_FIELDS)
			return -1;
		off = (off + sz - 1) / sz * sz;
		struct field *f = &st->fields[st->nr_fields++];
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->offset = off;
		f->size = sz * count;
		off += f->size;
		if (sz > align)
			align = sz;
	}
	st->size = (off + align - 1) / align * align;
	return 0;
}

static int parse(struct parsed *p, const char *input)
{
	char *text = strdup(input), *s;

	memset(p, 0, sizeof(*p));
	strip_comments(text);

	/* defines, line by line */
	for (s = text; *s;) {
		char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s) : strlen(s);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		char *l = line;
		while (isspace((unsigned char)*l))
			l++;
		if (!strncmp(l, "#define", 7)) {
			char name[NAMELEN];
			int used = 0;
			if (sscanf(l + 7, " %63[A-Za-z0-9_]%n", name, &used) == 1 &&
			    interesting_define(name) && p->nr_defs < MAX_DEFS) {
				struct def *d = &p->defs[p->nr_defs++];
				char *e = l + 7 + used;
				while (isspace((unsigned char)*e))
					e++;
				snprintf(d->name, sizeof(d->name), "%s", name);
				snprintf(d->expr, sizeof(d->expr), "%s", e);
				char *end = d->expr + strlen(d->expr);
				while (end > d->expr && isspace((unsigned char)end[-1]))
					*--end = '\0';
			}
		}
		s = eol ? eol + 1 : s + n;
	}
	for (int i = 0; i < p->nr_defs; i++)
		if (eval_def(p, &p->defs[i])) {
			free(text);
			return -1;
		}

	/* structs */
	for (s = text; (s = strstr(s, "struct ")) != NULL;) {
		char name[NAMELEN];
		int used = 0;

		if (s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) {
			s += 7;
			continue;
		}
		if (sscanf(s + 7, " %63[A-Za-z0-9_]%n", name, &used) != 1) {
			s += 7;
			continue;
		}
		char *after = s + 7 + used;
		while (isspace((unsigned char)*after))
			after++;
		if (*after != '{' || strncmp(name, "xen_sysctl_ipibench", 19)) {
			s = after;
			continue;
		}
		char *close = strchr(after, '}');
		if (!close || p->nr_structs == MAX_STRUCTS) {
			snprintf(p->error, sizeof(p->error), "struct %s: no end",
				 name);
			free(text);
			return -1;
		}
		struct layout *st = &p->structs[p->nr_structs++];
		snprintf(st->name, sizeof(st->name), "%s", name);
		*close = '\0';
		if (parse_struct_body(p, st, after + 1)) {
			free(text);
			return -1;
		}
		s = close + 1;
	}
	free(text);
	return 0;
}

static const struct layout *find_struct(const struct parsed *p,
					const char *name)
{
	for (int i = 0; i < p->nr_structs; i++)
		if (!strcmp(p->structs[i].name, name))
			return &p->structs[i];
	return NULL;
}

/* Differences between two parsed headers, one line each into out. */
static int compare(struct parsed *a, struct parsed *b, char *out, size_t len)
{
	int diffs = 0;
	size_t used = 0;

#define DIFF(...)                                                        \
	do {                                                             \
		diffs++;                                                 \
		if (used < len)                                          \
			used += (size_t)snprintf(out + used, len - used, \
						 __VA_ARGS__);           \
	} while (0)

	out[0] = '\0';
	for (int i = 0; i < a->nr_defs; i++) {
		struct def *d = find_def(b, a->defs[i].name);
		if (!d)
			DIFF("abi.h lacks %s\n", a->defs[i].name);
		else if (d->value != a->defs[i].value)
			DIFF("%s: public %#llx, abi.h %#llx\n", d->name,
			     a->defs[i].value, d->value);
	}
	for (int i = 0; i < b->nr_defs; i++)
		if (!find_def(a, b->defs[i].name))
			DIFF("public header lacks %s\n", b->defs[i].name);
	for (int i = 0; i < a->nr_structs; i++) {
		const struct layout *x = &a->structs[i];
		const struct layout *y = find_struct(b, x->name);
		if (!y) {
			DIFF("abi.h lacks struct %s\n", x->name);
			continue;
		}
		if (x->size != y->size)
			DIFF("struct %s: size public %zu, abi.h %zu\n", x->name,
			     x->size, y->size);
		if (x->nr_fields != y->nr_fields)
			DIFF("struct %s: %d fields public, %d abi.h\n", x->name,
			     x->nr_fields, y->nr_fields);
		for (int f = 0; f < x->nr_fields && f < y->nr_fields; f++) {
			const struct field *fx = &x->fields[f], *fy = &y->fields[f];
			if (strcmp(fx->name, fy->name) ||
			    fx->offset != fy->offset || fx->size != fy->size)
				DIFF("struct %s field %d: public %s@%zu+%zu, abi.h %s@%zu+%zu\n",
				     x->name, f, fx->name, fx->offset, fx->size,
				     fy->name, fy->offset, fy->size);
		}
	}
	for (int i = 0; i < b->nr_structs; i++)
		if (!find_struct(a, b->structs[i].name))
			DIFF("public header lacks struct %s\n",
			     b->structs[i].name);
#undef DIFF
	return diffs;
}

/* ---- what the compiler makes of abi.h -------------------------------- */

struct compiled_field {
	const char *strct, *field;
	size_t offset, size;
};
#define F(s, f) { #s, #f, offsetof(struct s, f), sizeof(((struct s *)0)->f) }
static const struct compiled_field compiled_fields[] = {
	F(xen_sysctl_ipibench_sample, cycles),
	F(xen_sysctl_ipibench_sample, ns),
	F(xen_sysctl_ipibench_sample, icr_writes),
	F(xen_sysctl_ipibench_sample, cpu),
	F(xen_sysctl_ipibench_sample, send_cycles),
	F(xen_sysctl_ipibench_sample, flags),
	F(xen_sysctl_ipibench_cpu, apic_id),
	F(xen_sysctl_ipibench_cpu, logical_id),
	F(xen_sysctl_ipibench_cpu, cluster),
	F(xen_sysctl_ipibench_cpu, flags),
	F(xen_sysctl_ipibench_cpu, irqs),
	F(xen_sysctl_ipibench_cpu, ipis),
	F(xen_sysctl_ipibench_cpu, vectors),
	F(xen_sysctl_ipibench_cpu, dev_irqs),
	F(xen_sysctl_ipibench_info, genapic),
	F(xen_sysctl_ipibench_info, nr_cpu_ids),
	F(xen_sysctl_ipibench_info, online_cpus),
	F(xen_sysctl_ipibench_info, present_cpus),
	F(xen_sysctl_ipibench_info, disabled_cpus),
	F(xen_sysctl_ipibench_info, unaccounted_cpus),
	F(xen_sysctl_ipibench_info, shorthand_eligible),
	F(xen_sysctl_ipibench_info, tsc_khz),
	F(xen_sysctl_ipibench_info, vector),
	F(xen_sysctl_ipibench_info, x2apic),
	F(xen_sysctl_ipibench_info, int_dest_mode),
	F(xen_sysctl_ipibench_info, int_delivery_mode),
	F(xen_sysctl_ipibench_info, max_iterations),
	F(xen_sysctl_ipibench_info, max_samples),
	F(xen_sysctl_ipibench_info, idle_timeout_ms),
	F(xen_sysctl_ipibench_info, run_live),
	F(xen_sysctl_ipibench_info, dev_sbdf),
	F(xen_sysctl_ipibench_info, dev_irte),
	F(xen_sysctl_ipibench_info, dev_msi_addr),
	F(xen_sysctl_ipibench_info, dev_msi_data),
	F(xen_sysctl_ipibench_info, pad),
	F(xen_sysctl_ipibench, run_id),
	F(xen_sysctl_ipibench, op),
	F(xen_sysctl_ipibench, flags),
	F(xen_sysctl_ipibench, cpu),
	F(xen_sysctl_ipibench, peer),
	F(xen_sysctl_ipibench, vector),
	F(xen_sysctl_ipibench, iterations),
	F(xen_sysctl_ipibench, start),
	F(xen_sysctl_ipibench, mask_bits),
	F(xen_sysctl_ipibench, nr_cpus),
	F(xen_sysctl_ipibench, nr_samples),
	F(xen_sysctl_ipibench, done),
	F(xen_sysctl_ipibench, mask),
	F(xen_sysctl_ipibench, samples),
	F(xen_sysctl_ipibench, cpus),
	F(xen_sysctl_ipibench, info),
	F(xen_sysctl_ipibench, icr_writes),
	F(xen_sysctl_ipibench, ipis_sent),
	F(xen_sysctl_ipibench, ipis_received),
	F(xen_sysctl_ipibench, path),
	F(xen_sysctl_ipibench, status),
	F(xen_sysctl_ipibench, result),
	F(xen_sysctl_ipibench, sender),
};
#undef F
static const struct { const char *name; size_t size; } compiled_sizes[] = {
	{ "xen_sysctl_ipibench_sample", sizeof(struct xen_sysctl_ipibench_sample) },
	{ "xen_sysctl_ipibench_cpu", sizeof(struct xen_sysctl_ipibench_cpu) },
	{ "xen_sysctl_ipibench_info", sizeof(struct xen_sysctl_ipibench_info) },
	{ "xen_sysctl_ipibench", sizeof(struct xen_sysctl_ipibench) },
};
#define D(n) { #n, (long long)(n) }
static const struct { const char *name; long long value; } compiled_defs[] = {
	D(TRC_HW_APIC), D(TRC_HW_APIC_SEND_IPI_MASK),
	D(TRC_HW_APIC_SEND_IPI_ALLBUT), D(TRC_HW_APIC_SEND_IPI_SELF),
	D(TRC_HW_APIC_MASK_TO_APICID), D(TRC_HW_APIC_VECTOR_ALLOC_MASK),
	D(TRC_HW_APIC_IPI_RECV), D(TRC_HW_APIC_ICR_WRITE),
	D(TRC_HW_APIC_LOGICAL), D(XEN_SYSCTL_ipibench),
	D(XEN_SYSCTL_IPIBENCH_OP_query),
	D(XEN_SYSCTL_IPIBENCH_OP_fetch), D(XEN_SYSCTL_IPIBENCH_OP_flush_all),
	D(XEN_SYSCTL_IPIBENCH_OP_flush_mask),
	D(XEN_SYSCTL_IPIBENCH_OP_ipi_mask), D(XEN_SYSCTL_IPIBENCH_OP_pingpong),
	D(XEN_SYSCTL_IPIBENCH_OP_vector_capacity),
	D(XEN_SYSCTL_IPIBENCH_OP_irq_delivery),
	D(XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND), D(XEN_SYSCTL_IPIBENCH_F_CONTINUE),
	D(XEN_SYSCTL_IPIBENCH_F_LOOP),
	D(XEN_SYSCTL_IPIBENCH_SENDER_genapic),
	D(XEN_SYSCTL_IPIBENCH_SENDER_physical),
	D(XEN_SYSCTL_IPIBENCH_SENDER_cluster),
	D(XEN_SYSCTL_IPIBENCH_MAX_CPUS),
	D(XEN_SYSCTL_IPIBENCH_PATH_GENAPIC),
	D(XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND),
	D(XEN_SYSCTL_IPIBENCH_PATH_MSI), D(XEN_SYSCTL_IPIBENCH_PATH_REMAPPED),
	D(XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT),
	D(XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND),
	D(XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP),
	D(XEN_SYSCTL_IPIBENCH_CPU_ONLINE),
};
#undef D

/* ---- fixtures and tests ---------------------------------------------- */

struct fixture {
	char root[4096];
	char *public_text, *abi_text;
	int nr_patches;
	struct parsed pub, abi;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char path[8192];

	if (!fx)
		return -1;
	snprintf(fx->root, sizeof(fx->root), "%s", repo_root);
	fx->public_text = public_text_from_series(fx->root, &fx->nr_patches);
	snprintf(path, sizeof(path), "%s/probes/include/ipibench/abi.h",
		 fx->root);
	fx->abi_text = tu_slurp(path);
	if (!fx->public_text || !fx->abi_text)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	free(fx->public_text);
	free(fx->abi_text);
	free(fx);
	return 0;
}

static void test_both_parse(void **state)
{
	struct fixture *fx = *state;

	assert_true(fx->nr_patches > 0);
	if (parse(&fx->pub, fx->public_text))
		fail_msg("public header: %s", fx->pub.error);
	if (parse(&fx->abi, fx->abi_text))
		fail_msg("abi.h: %s", fx->abi.error);
	assert_int_equal(fx->pub.nr_structs, 4);
	assert_true(fx->pub.nr_defs >= 20);
}

/* The IDs the trace reader relies on, fixed by the design. */
static void test_trace_ids_in_patch(void **state)
{
	struct fixture *fx = *state;
	static const struct { const char *name; long long v; } ids[] = {
		{ "TRC_HW_APIC", 0x00804000 },
		{ "TRC_HW_APIC_SEND_IPI_MASK", 0x00804001 },
		{ "TRC_HW_APIC_SEND_IPI_ALLBUT", 0x00804002 },
		{ "TRC_HW_APIC_SEND_IPI_SELF", 0x00804003 },
		{ "TRC_HW_APIC_MASK_TO_APICID", 0x00804004 },
		{ "TRC_HW_APIC_VECTOR_ALLOC_MASK", 0x00804005 },
		{ "TRC_HW_APIC_IPI_RECV", 0x00804006 },
		{ "TRC_HW_APIC_ICR_WRITE", 0x00804007 },
		{ "TRC_HW_APIC_LOGICAL", 0x800 },
	};

	assert_int_equal(parse(&fx->pub, fx->public_text), 0);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct def *d = find_def(&fx->pub, ids[i].name);
		if (!d)
			fail_msg("patch does not define %s", ids[i].name);
		assert_int_equal(d->value, ids[i].v);
	}
}

/*
 * The v2 contract: sysctl 31 (30 is XEN_SYSCTL_dt_overlay from 4.18 on),
 * no private version (the sysctl's interface_version versions it), no
 * implementation constants (chunk length, samples per chunk: the query
 * reports the limits), a run_id in the request.
 */
static void test_v2_contract(void **state)
{
	struct fixture *fx = *state;
	static const char *const gone[] = {
		"XEN_SYSCTL_IPIBENCH_VERSION", "XEN_SYSCTL_IPIBENCH_CHUNK_SAMPLES",
		"XEN_SYSCTL_IPIBENCH_CHUNK_US", "XEN_SYSCTL_IPIBENCH_MAX_ITERATIONS",
	};
	struct def *d;

	assert_int_equal(parse(&fx->pub, fx->public_text), 0);
	d = find_def(&fx->pub, "XEN_SYSCTL_ipibench");
	assert_non_null(d);
	assert_int_equal(d->value, 31);
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (find_def(&fx->pub, gone[i]))
			fail_msg("the public header still defines %s", gone[i]);
	assert_int_equal(offsetof(struct xen_sysctl_ipibench, run_id), 0);
	assert_int_equal(sizeof(((struct xen_sysctl_ipibench *)0)->run_id), 4);
}

static void test_no_drift(void **state)
{
	struct fixture *fx = *state;
	char diffs[4096];

	assert_int_equal(parse(&fx->pub, fx->public_text), 0);
	assert_int_equal(parse(&fx->abi, fx->abi_text), 0);
	if (compare(&fx->pub, &fx->abi, diffs, sizeof(diffs)))
		fail_msg("abi.h drifted from the patch's public header:\n%s",
			 diffs);
}

/* The parser reads abi.h as the compiler does. */
static void test_parser_matches_compiler(void **state)
{
	struct fixture *fx = *state;
	size_t nr_table = sizeof(compiled_fields) / sizeof(compiled_fields[0]);
	size_t seen = 0;

	assert_int_equal(parse(&fx->abi, fx->abi_text), 0);
	for (int s = 0; s < fx->abi.nr_structs; s++) {
		const struct layout *st = &fx->abi.structs[s];
		int sized = 0;
		for (size_t i = 0; i < sizeof(compiled_sizes) / sizeof(compiled_sizes[0]); i++)
			if (!strcmp(compiled_sizes[i].name, st->name)) {
				assert_int_equal(st->size, compiled_sizes[i].size);
				sized = 1;
			}
		if (!sized)
			fail_msg("struct %s is not in the test's size table",
				 st->name);
		for (int f = 0; f < st->nr_fields; f++) {
			const struct field *fd = &st->fields[f];
			size_t i;
			for (i = 0; i < nr_table; i++)
				if (!strcmp(compiled_fields[i].strct, st->name) &&
				    !strcmp(compiled_fields[i].field, fd->name))
					break;
			if (i == nr_table)
				fail_msg("%s.%s is not in the test's field table",
					 st->name, fd->name);
			assert_int_equal(fd->offset, compiled_fields[i].offset);
			assert_int_equal(fd->size, compiled_fields[i].size);
			seen++;
		}
	}
	assert_int_equal(seen, nr_table);

	size_t nr_defs = sizeof(compiled_defs) / sizeof(compiled_defs[0]);
	assert_int_equal((size_t)fx->abi.nr_defs, nr_defs);
	for (size_t i = 0; i < nr_defs; i++) {
		struct def *d = find_def(&fx->abi, compiled_defs[i].name);
		if (!d)
			fail_msg("parser missed %s", compiled_defs[i].name);
		assert_int_equal(d->value, compiled_defs[i].value);
	}
}

static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n;
	char *out;

	if (!at)
		return NULL;
	n = strlen(text) - strlen(from) + strlen(to) + 1;
	out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	return out;
}

/* The comparison really fails on drift: mutate the public side. */
static void test_detects_drift(void **state)
{
	struct fixture *fx = *state;
	static const struct { const char *from, *to; } mutations[] = {
		{ "TRC_HW_APIC + 0x7", "TRC_HW_APIC + 0x8" },
		{ "XEN_SYSCTL_ipibench                      31",
		  "XEN_SYSCTL_ipibench                      30" },
		{ "uint32_t run_id;", "uint32_t version;" },
		{ "uint32_t idle_timeout_ms;", "uint32_t idle_timeout_us;" },
		{ "uint32_t send_cycles;", "uint64_aligned_t send_cycles;" },
		{ "uint32_t nr_samples;", "uint32_t nr_samples, extra;" },
		{ "char genapic[32];", "char genapic[16];" },
		{ "uint32_t peer;", "uint32_t partner;" },
		{ "XEN_SYSCTL_IPIBENCH_F_LOOP           (1U << 2)",
		  "XEN_SYSCTL_IPIBENCH_F_LOOP           (1U << 3)" },
		{ "uint32_t sender;", "uint32_t pad;" },
	};
	char diffs[4096];
	int tried = 0;

	assert_int_equal(parse(&fx->abi, fx->abi_text), 0);
	for (size_t i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		char *mutated = replace_once(fx->public_text, mutations[i].from,
					     mutations[i].to);
		struct parsed *p = calloc(1, sizeof(*p));

		if (!mutated) {
			free(p);
			continue;
		}
		tried++;
		if (parse(p, mutated) == 0 &&
		    compare(p, &fx->abi, diffs, sizeof(diffs)) == 0)
			fail_msg("mutation '%s' -> '%s' not detected",
				 mutations[i].from, mutations[i].to);
		free(mutated);
		free(p);
	}
	/* The "uint32_t nr_samples, extra" form must not parse silently. */
	assert_true(tried >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_parse),
		cmocka_unit_test(test_trace_ids_in_patch),
		cmocka_unit_test(test_v2_contract),
		cmocka_unit_test(test_no_drift),
		cmocka_unit_test(test_parser_matches_compiler),
		cmocka_unit_test(test_detects_drift),
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
