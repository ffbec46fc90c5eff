/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Instruction counts: markers from xen-syms, the plugin's lines into agent.json. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipibench/counters.h"
#include "ipibench/hvsyms.h"
#include "runner/insncount.h"
#include "runner/util.h"
#include "lib/safeio.h"
#include "tcgplug/ipicount.h"

int elf_symbols(const char *path, const char *const *names, size_t n, uint64_t *addrs,
		char *err, size_t errlen)
{
	struct stat st;
	const uint8_t *m;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int fd, rc = -1;
	bool found_tab = false;

	for (size_t i = 0; i < n; i++)
		addrs[i] = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, fd < 0 || errno ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		snprintf(err, errlen, "%s: not an ELF64 file (%lld bytes)", path, (long long)st.st_size);
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return -1;
	}
	size_t sz = (size_t)st.st_size;
	eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > sz ||
	    (sz - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
		snprintf(err, errlen, "%s: not an ELF64 file with section headers", path);
		goto out;
	}
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (unsigned int s = 0; s < eh->e_shnum; s++) {
		const Elf64_Shdr *t = &sh[s], *str;

		if (t->sh_type != SHT_SYMTAB)
			continue;
		if (t->sh_link >= eh->e_shnum || t->sh_entsize != sizeof(Elf64_Sym) ||
		    t->sh_offset > sz || t->sh_size > sz - t->sh_offset) {
			snprintf(err, errlen, "%s: section %u: a symbol table out of the file", path, s);
			goto out;
		}
		str = &sh[t->sh_link];
		if (str->sh_offset > sz || str->sh_size > sz - str->sh_offset || !str->sh_size) {
			snprintf(err, errlen, "%s: section %u: a string table out of the file", path,
				 t->sh_link);
			goto out;
		}
		found_tab = true;
		const char *strs = (const char *)m + str->sh_offset;
		const Elf64_Sym *sym = (const Elf64_Sym *)(m + t->sh_offset);
		for (size_t k = 0; k < t->sh_size / sizeof(Elf64_Sym); k++) {
			if (sym[k].st_name >= str->sh_size)
				continue;
			const char *nm = strs + sym[k].st_name;
			size_t room = str->sh_size - sym[k].st_name;

			if (!memchr(nm, 0, room))
				continue;
			for (size_t i = 0; i < n; i++)
				if (!addrs[i] && !strcmp(nm, names[i]))
					addrs[i] = sym[k].st_value;
		}
	}
	if (!found_tab)
		snprintf(err, errlen, "%s: no symbol table (stripped?)", path);
	else
		rc = 0;
out:
	munmap((void *)m, sz);
	return rc;
}

int insncount_syms_path(const char *xen, char *buf, size_t len, char *err, size_t errlen)
{
	const char *slash = strrchr(xen, '/');
	int dl = slash ? (int)(slash - xen) : 1;
	const char *dir = slash ? xen : ".";

	snprintf(buf, len, "%.*s/xen-syms", dl, dir);
	if (!access(buf, R_OK))
		return 0;
	snprintf(buf, len, "%.*s/src/xen/xen-syms", dl, dir);
	if (!access(buf, R_OK))
		return 0;
	snprintf(err, errlen, "%s: no xen-syms beside it (nor in src/xen/): the instruction counts "
		 "need the hypervisor's symbols (make hv)", xen);
	return -1;
}

/*
 * The markers: a plugin key, the hypervisor function (see tcgplug/README.md
 * for what each window is), and whether a build without it can be counted.
 */
static const struct { const char *key, *sym; bool required, calls; } marks[] = {
	{ "sysctl", IPIBENCH_SYM_SYSCTL, true, false },  /* a run's start */
	{ "bench", IPIBENCH_SYM_CHUNK, true, false },    /* a chunk on the sender */
	{ "send", "send_IPI_mask", true, true },       /* the send path */
	{ "wait", "flush_area_mask", false, true },    /* flush: send + local flush + wait */
	{ "wait", IPIBENCH_SYM_WAIT, false, false },     /* ipi_mask, pingpong: the wait */
	{ "handler", "invalidate_interrupt", false, true },  /* flush's receivers */
	/* ipi_mask's receivers, also between two chunks (a call in flight) */
	{ "async_handler", IPIBENCH_SYM_HANDLER, false, false },
	{ "irq", "do_IRQ", false, true },              /* interrupts, counted apart */
};
/*
 * calls=all (insncount_calls_plugin_arg()) counts every call of the boot:
 * only the hypervisor's own functions, which a build without
 * CONFIG_IPIBENCH has too, so that both builds are counted alike.
 */
#define NMARKS (sizeof(marks) / sizeof(marks[0]))

static int plugin_arg(const char *xen, const char *outfile, bool calls, char *buf, size_t len,
		      char *err, size_t errlen);

int insncount_plugin_arg(const char *xen, const char *outfile, char *buf, size_t len,
			 char *err, size_t errlen)
{
	return plugin_arg(xen, outfile, false, buf, len, err, errlen);
}

int insncount_calls_plugin_arg(const char *xen, const char *outfile, char *buf, size_t len,
			       char *err, size_t errlen)
{
	return plugin_arg(xen, outfile, true, buf, len, err, errlen);
}

static int plugin_arg(const char *xen, const char *outfile, bool calls, char *buf, size_t len,
		      char *err, size_t errlen)
{
	const char *names[NMARKS + 2];
	uint64_t a[NMARKS + 2];
	char syms[4096], so[4096];
	size_t o;

	snprintf(so, sizeof(so), "%s/tcgplug/libipicount.so", build_dir());
	if (access(so, R_OK)) {
		snprintf(err, errlen, "%s: %s (make plugin)", so, strerror(errno));
		return -1;
	}
	if (strchr(so, ',') || strchr(outfile, ',')) {
		snprintf(err, errlen, "paths with commas cannot be passed to QEMU: %s, %s", so, outfile);
		return -1;
	}
	if (insncount_syms_path(xen, syms, sizeof(syms), err, errlen))
		return -1;
	names[0] = "_stext";
	names[1] = "_etext";
	for (size_t i = 0; i < NMARKS; i++)
		names[i + 2] = marks[i].sym;
	if (elf_symbols(syms, names, NMARKS + 2, a, err, errlen))
		return -1;
	if (!a[0] || !a[1] || a[0] >= a[1]) {
		snprintf(err, errlen, "%s: no _stext/_etext: not a Xen symbol file", syms);
		return -1;
	}
	o = (size_t)snprintf(buf, len, "%s,out=%s,text=%" PRIx64 "-%" PRIx64 "%s", so, outfile,
			     a[0], a[1], calls ? ",calls=all" : "");
	for (size_t i = 0; i < NMARKS && o < len; i++) {
		if (calls && !marks[i].calls)
			continue;
		if (!a[i + 2]) {
			if (calls && !strcmp(marks[i].key, "send")) {
				snprintf(err, errlen, "%s: no symbol %s: not a Xen symbol file", syms,
					 marks[i].sym);
				return -1;
			}
			if (!marks[i].required)
				continue;
			snprintf(err, errlen, "%s: no symbol %s: instruction counts need the patched "
				 "hypervisor (CONFIG_IPIBENCH)", syms, marks[i].sym);
			return -1;
		}
		o += (size_t)snprintf(buf + o, len - o, ",%s=%" PRIx64, marks[i].key, a[i + 2]);
	}
	if (o >= len) {
		snprintf(err, errlen, "the plugin's arguments do not fit %zu bytes", len);
		return -1;
	}
	return 0;
}

/* ---- the plugin's lines ------------------------------------------------ */

/* The fields of a line, in ic_format_run()'s order: one home, window.c. */
#define NFIELDS (5 + IC_NKINDS * (4 + IC_NCNT))
struct line_run {
	uint64_t f[NFIELDS];   /* seq op flags icr_all dropped, then per kind */
};

static void field_name(size_t i, char *buf, size_t len)
{
	static const char *const head[] = { "seq", "op", "flags", "icr_all", "dropped" };
	static const char *const agg[] = { "n", "max", "min", "irqs" };

	if (i < 5) {
		snprintf(buf, len, "%s", head[i]);
		return;
	}
	i -= 5;
	size_t k = i / (4 + IC_NCNT), j = i % (4 + IC_NCNT);
	snprintf(buf, len, "%s.%s", ic_kind_names[k], j < 4 ? agg[j] : ic_cnt_names[j - 4]);
}

#define F_SEQ 0
#define F_ICR_ALL 3
#define F_DROPPED 4
#define F_KIND(k, j) (5 + (k) * (4 + IC_NCNT) + (j))
#define J_N 0
#define J_MAX 1
#define J_MIN 2
#define J_IRQS 3
#define J_CNT(c) (4 + (c))

/* "run KEY=N ..." with exactly the fields, in order. */
static int parse_line(char *line, struct line_run *r, char *why, size_t len)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save), name[40];

	if (!tok || strcmp(tok, "run")) {
		snprintf(why, len, "not a 'run' line");
		return -1;
	}
	for (size_t i = 0; i < NFIELDS; i++) {
		char *eq, *end;

		field_name(i, name, sizeof(name));
		tok = strtok_r(NULL, " ", &save);
		if (!tok || !(eq = strchr(tok, '=')) || (size_t)(eq - tok) != strlen(name) ||
		    strncmp(tok, name, strlen(name))) {
			snprintf(why, len, "field %zu: expected %s=N", i + 1, name);
			return -1;
		}
		errno = 0;
		if (eq[1] < '0' || eq[1] > '9' || (r->f[i] = strtoull(eq + 1, &end, 10), errno) || *end) {
			snprintf(why, len, "%s: not an unsigned number", name);
			return -1;
		}
	}
	if ((tok = strtok_r(NULL, " ", &save))) {
		snprintf(why, len, "'%.40s': more fields than the plugin writes", tok);
		return -1;
	}
	return 0;
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* One workload's insn_counts from its runs' last lines. */
static json_t *workload_counts(const struct line_run *runs, size_t n, json_t *counters)
{
	struct line_run s = { { 0 } };
	uint64_t ops = (uint64_t)json_integer_value(json_object_get(counters, IPB_COUNTER(OPERATIONS)));
	uint64_t icr = (uint64_t)json_integer_value(json_object_get(counters, IPB_COUNTER(ICR_WRITES)));
	const size_t hmax = F_KIND(IC_HANDLER, J_MAX), smax = F_KIND(IC_SEND, J_MAX),
		     smin = F_KIND(IC_SEND, J_MIN);

	for (size_t i = 0; i < n; i++) {
		for (size_t f = F_ICR_ALL; f < NFIELDS; f++) {
			bool is_max = (f - 5) % (4 + IC_NCNT) == J_MAX && f >= 5;
			bool is_min = (f - 5) % (4 + IC_NCNT) == J_MIN && f >= 5;

			if (is_max)
				s.f[f] = runs[i].f[f] > s.f[f] ? runs[i].f[f] : s.f[f];
			else if (is_min)
				s.f[f] = !i || runs[i].f[f] < s.f[f] ? runs[i].f[f] : s.f[f];
			else
				s.f[f] += runs[i].f[f];
		}
	}
#define K(k, j) s.f[F_KIND(k, j)]
	uint64_t sends = K(IC_SEND, J_N), handlers = K(IC_HANDLER, J_N);
	uint64_t picr = K(IC_SEND, J_CNT(IC_ICR));
	json_t *o = json_object();

	json_object_set_new(o, IPB_INSN(OPERATIONS), json_integer((json_int_t)ops));
	json_object_set_new(o, IPB_INSN(SEND_CALLS), json_integer((json_int_t)sends));
	json_object_set_new(o, IPB_INSN(SEND_INSNS_PER_OP), json_real(per(K(IC_SEND, J_CNT(IC_INSNS)), ops)));
	json_object_set_new(o, IPB_INSN(SEND_INSNS_MIN), json_integer((json_int_t)(sends ? s.f[smin] : 0)));
	json_object_set_new(o, IPB_INSN(SEND_INSNS_MAX), json_integer((json_int_t)s.f[smax]));
	json_object_set_new(o, IPB_INSN(SEND_X2APIC_MSR_WRITES), json_integer((json_int_t)K(IC_SEND, J_CNT(IC_X2APIC))));
	json_object_set_new(o, IPB_INSN(WAIT_INSNS_PER_OP), json_real(per(K(IC_WAIT, J_CNT(IC_INSNS)), ops)));
	json_object_set_new(o, IPB_INSN(WAIT_PAUSE_PER_OP), json_real(per(K(IC_WAIT, J_CNT(IC_PAUSE)), ops)));
	json_object_set_new(o, IPB_INSN(HANDLERS), json_integer((json_int_t)handlers));
	json_object_set_new(o, IPB_INSN(HANDLER_INSNS_MEAN), json_real(per(K(IC_HANDLER, J_CNT(IC_INSNS)), handlers)));
	json_object_set_new(o, IPB_INSN(HANDLER_INSNS_MAX), json_integer((json_int_t)s.f[hmax]));
	json_object_set_new(o, IPB_INSN(HANDLER_INSNS_MIN), json_integer((json_int_t)(handlers ? K(IC_HANDLER, J_MIN) : 0)));
	json_object_set_new(o, IPB_INSN(ICR_WRITES), json_integer((json_int_t)picr));
	json_object_set_new(o, IPB_INSN(ICR_WRITES_HV), json_integer((json_int_t)icr));
	json_object_set_new(o, IPB_INSN(ICR_MATCH), json_boolean(picr == icr));
	json_object_set_new(o, IPB_INSN(CHUNK_INSNS), json_integer((json_int_t)K(IC_BENCH, J_CNT(IC_INSNS))));
	json_object_set_new(o, IPB_INSN(INTERRUPTS), json_integer((json_int_t)K(IC_IRQ, J_N)));
	json_object_set_new(o, IPB_INSN(INTERRUPTS_IN_WINDOWS),
			    json_integer((json_int_t)(K(IC_SEND, J_IRQS) + K(IC_WAIT, J_IRQS) +
						      K(IC_HANDLER, J_IRQS))));
	json_object_set_new(o, IPB_INSN(INTERRUPT_INSNS), json_integer((json_int_t)K(IC_IRQ, J_CNT(IC_INSNS))));
	json_object_set_new(o, IPB_INSN(DROPPED_WINDOWS), json_integer((json_int_t)s.f[F_DROPPED]));
	json_object_set_new(o, IPB_INSN(RUNS), json_integer((json_int_t)n));
#undef K
	return o;
}

/* The plugin's out= file, text only: 0, or -1 with the reason (BUF freed). */
static int read_plugin_output(const char *file, char **buf, size_t *len, char *err, size_t errlen)
{
	if (sio_read_file(file, SIO_MAX_JSON, buf, len, err, errlen))
		return -1;
	if (memchr(*buf, 0, *len)) {
		snprintf(err, errlen, "%s: a NUL byte: not the plugin's output", file);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

int insncount_merge(const char *file, json_t *agent, char *err, size_t errlen)
{
	char *buf = NULL, *line, *save = NULL, why[200];
	size_t len, nruns = 0, cap = 0, lineno = 0, next = 0;
	struct line_run *runs = NULL;
	json_t *wls = json_object_get(agent, "workloads"), *w;
	int rc = -1;

	if (read_plugin_output(file, &buf, &len, err, errlen))
		return -1;
	/* strtok_r skips empty lines; count them by hand for the line numbers. */
	for (char *p = buf; p && *p; p = line ? line : NULL) {
		char *nl = strchr(p, '\n');
		struct line_run r;

		lineno++;
		if (!nl) {
			/* A last line without its newline: QEMU killed mid-write. */
			break;
		}
		*nl = 0;
		line = nl + 1;
		if (!*p)
			continue;
		if (parse_line(p, &r, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%zu: %s", file, lineno, why);
			goto out;
		}
		if (nruns && r.f[F_SEQ] == runs[nruns - 1].f[F_SEQ]) {
			runs[nruns - 1] = r;  /* cumulative: the last line of a run wins */
			continue;
		}
		if (nruns && r.f[F_SEQ] < runs[nruns - 1].f[F_SEQ]) {
			snprintf(err, errlen, "%s:%zu: run %" PRIu64 " after run %" PRIu64, file, lineno,
				 r.f[F_SEQ], runs[nruns - 1].f[F_SEQ]);
			goto out;
		}
		if (nruns == cap) {
			struct line_run *n2 = realloc(runs, (cap = cap ? 2 * cap : 16) * sizeof(*runs));
			if (!n2) {
				snprintf(err, errlen, "%s: out of memory", file);
				goto out;
			}
			runs = n2;
		}
		runs[nruns++] = r;
		(void)save;
	}
	size_t i;
	json_array_foreach(wls, i, w) {
		json_t *cnt = json_object_get(w, IPB_KEY(WL_COUNTERS));
		json_int_t br = json_integer_value(json_object_get(w, IPB_KEY(WL_BENCH_RUNS)));

		if (br <= 0)
			continue;
		if ((size_t)br > nruns - next) {
			snprintf(err, errlen, "%s: workload %s ran %lld runs, the plugin saw %zu more",
				 file, json_string_value(json_object_get(w, "name")), (long long)br,
				 nruns - next);
			goto out;
		}
		/* A workload of its own runs (not only nested ones, as
		 * sysctl_refusals' health check) gets the counts. */
		if (json_integer_value(json_object_get(cnt, IPB_COUNTER(OPERATIONS))) > 0)
			json_object_set_new(w, IPB_KEY(WL_INSN_COUNTS),
					    workload_counts(runs + next, (size_t)br, cnt));
		next += (size_t)br;
	}
	rc = 0;
out:
	free(runs);
	free(buf);
	return rc;
}

/* ---- calls=all: every call of the boot, in buckets ------------------- */

/* Least squares insns = base + k * PAUSE over a bucket's calls: a wait's
 * count without its spin.  0 when the sums do not allow it. */
static int spin_fit(const struct ic_bucket *b, double *base, double *k)
{
	long double n = (long double)b->n, sx = (long double)b->pause, sy = (long double)b->insns,
		    sxx = (long double)b->pause2, sxy = (long double)b->insns_pause, d;

	if (b->pause == UINT64_MAX || b->pause2 == UINT64_MAX || b->insns_pause == UINT64_MAX ||
	    b->insns == UINT64_MAX || b->n < 2)
		return 0;
	d = n * sxx - sx * sx;
	if (d <= 0)
		return 0;
	*k = (double)((n * sxy - sx * sy) / d);
	*base = (double)((sy - (long double)*k * sx) / n);
	return 1;
}

int insncount_calls_merge(const char *file, json_t *agent, char *err, size_t errlen)
{
	char *buf = NULL, why[200];
	size_t len, lineno = 0, lines = 0;
	static struct ic_calls last, c;
	int rc = -1;

	if (read_plugin_output(file, &buf, &len, err, errlen))
		return -1;
	memset(&last, 0, sizeof(last));
	for (char *p = buf, *nl; *p && (nl = strchr(p, '\n')); p = nl + 1) {
		/* A last line without its newline is QEMU killed mid-write: ignored. */
		lineno++;
		*nl = 0;
		if (!*p)
			continue;
		if (ic_parse_calls(p, &c, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%zu: %s", file, lineno, why);
			goto out;
		}
		if (lines && (c.seq <= last.seq || c.closed < last.closed)) {
			snprintf(err, errlen, "%s:%zu: seq=%" PRIu64 " closed=%" PRIu64 " after seq=%"
				 PRIu64 " closed=%" PRIu64 ": not one plugin's lines", file, lineno,
				 c.seq, c.closed, last.seq, last.closed);
			goto out;
		}
		last = c;
		lines++;
	}
	if (!lines) {
		snprintf(err, errlen, "%s: no complete 'calls' line (no call closed?)", file);
		goto out;
	}
	json_t *o = json_object(), *bs = json_array();

	json_object_set_new(o, "closed", json_integer((json_int_t)last.closed));
	json_object_set_new(o, "overflow", json_integer((json_int_t)last.overflow));
	json_object_set_new(o, "dropped_windows", json_integer((json_int_t)last.dropped));
	for (unsigned int i = 0; i < last.nr; i++) {
		const struct ic_bucket *b = &last.b[i];
		double base, k;
		json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:f}",
				      "kind", ic_kind_names[b->kind], "vector", (json_int_t)b->vector,
				      "icr_writes", (json_int_t)b->icr, "calls", (json_int_t)b->n,
				      "insns_mean", per(b->insns, b->n), "insns_min", (json_int_t)b->min,
				      "insns_max", (json_int_t)b->max, "irqs", (json_int_t)b->irqs,
				      "pause_mean", per(b->pause, b->n));

		if (b->pause && spin_fit(b, &base, &k))
			json_object_set_new(j, "spin_fit", json_pack("{s:f, s:f}", "base", base,
								     "insns_per_pause", k));
		json_array_append_new(bs, j);
	}
	json_object_set_new(o, "buckets", bs);
	json_object_set_new(agent, "insn_calls", o);
	rc = 0;
out:
	free(buf);
	return rc;
}
