/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CPU topology and x2APIC layout arithmetic (topology.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topology.h"

/*
 * The named machines.  The 96-CPU box of the first figures is an Intel Ice
 * Lake by its author's recollection (2 x 24 cores x 2 threads is the
 * likely layout); the committed figures come from a 2-socket AMD EPYC 9754
 * (Bergamo, 128 cores, SMT 2).  Core counts that are not powers of two
 * leave holes in every socket's ID range; on AMD parts with CCDs of 6 of
 * their 8 cores (EPYC 7443) every CCD, and so every cluster, has holes.
 */
const struct topo_profile topo_profiles[] = {
	{ "ice-lake-96", { 2, 1, 24, 2 }, 96,
	  "2 x Intel Xeon (Ice Lake), 24 cores x 2 threads: the seed's first 96-CPU box; IDs 0-47, 64-111" },
	{ "epyc-9754-512", { 2, 1, 128, 2 }, 512,
	  "2 x AMD EPYC 9754 (Bergamo), 128 cores x 2 threads: the committed figures; IDs 0-511, dense" },
	{ "epyc-9654-384", { 2, 1, 96, 2 }, 384,
	  "2 x AMD EPYC 9654 (Genoa), 96 cores x 2 threads; IDs 0-191, 256-447" },
	{ "skylake-sp-48", { 2, 1, 12, 2 }, 48,
	  "2 x Intel Xeon Gold 6136 (Skylake-SP), 12 cores x 2 threads; IDs 0-23, 32-55: 4 clusters where a dense 48 has 3" },
	{ "epyc-7443-96", { 2, 4, 6, 2 }, 96,
	  "2 x AMD EPYC 7443 (Milan), 4 CCDs x 6 cores x 2 threads; IDs 0-11, 16-27, ... 112-123: 8 clusters of 12 where a dense 96 has 6" },
	{ "test-holes-14", { 1, 3, 5, 1 }, 14,
	  "tests: 3 dies x 5 cores, 14 of 15 CPUs present (1 hotplug); IDs 0-4, 8-12, 16-19: 2 clusters where a dense 14 has 1" },
	{ NULL, { 0, 0, 0, 0 }, 0, NULL },
};

const struct topo_profile *topo_profile_find(const char *name)
{
	for (const struct topo_profile *p = topo_profiles; name && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *topo_profile_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct topo_profile *p = topo_profiles; p->name && n < len; p++) {
		int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", p->name);

		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

unsigned int topo_width(unsigned int count)
{
	unsigned int w = 0;

	if (count <= 1)
		return 0;
	for (count -= 1; count; count >>= 1)
		w++;
	return w;
}

unsigned int topo_slots(const struct topo *t)
{
	return t->sockets * t->dies * t->cores * t->threads;
}

uint32_t topo_apic_id(const struct topo *t, unsigned int idx)
{
	unsigned int ws = topo_width(t->threads), wc = topo_width(t->cores);
	unsigned int wd = topo_width(t->dies);
	uint32_t smt = idx % t->threads;
	uint32_t core = idx / t->threads % t->cores;
	uint32_t die = idx / (t->threads * t->cores) % t->dies;
	uint32_t pkg = idx / (t->threads * t->cores * t->dies);

	return pkg << (ws + wc + wd) | die << (ws + wc) | core << ws | smt;
}

void topo_format(const struct topo *t, char *buf, size_t len)
{
	snprintf(buf, len, "sockets=%u,dies=%u,cores=%u,threads=%u",
		 t->sockets, t->dies, t->cores, t->threads);
}

int topo_parse(const char *s, struct topo *t, char *err, size_t errlen)
{
	static const char *const keys[] = { "sockets", "dies", "cores", "threads" };
	unsigned int v[4] = { 1, 1, 1, 1 }, seen = 0;
	unsigned long long prod = 1;
	const char *p = s;

	if (!s || !*s) {
		snprintf(err, errlen, "empty topology (expected sockets=S,dies=D,cores=C,threads=T)");
		return -1;
	}
	while (*p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		int k;

		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end) {
			snprintf(err, errlen, "'%.*s': expected KEY=COUNT (sockets, dies, cores, threads)",
				 (int)(end - p), p);
			return -1;
		}
		for (k = 0; k < 4; k++)
			if ((size_t)(eq - p) == strlen(keys[k]) && !strncmp(p, keys[k], (size_t)(eq - p)))
				break;
		if (k == 4) {
			snprintf(err, errlen, "'%.*s': unknown level (expected sockets, dies, cores, threads)",
				 (int)(eq - p), p);
			return -1;
		}
		if (seen & (1u << k)) {
			snprintf(err, errlen, "%s given twice", keys[k]);
			return -1;
		}
		seen |= 1u << k;
		unsigned long n = 0;
		const char *d = eq + 1;

		if (d == end) {
			snprintf(err, errlen, "%s: no count", keys[k]);
			return -1;
		}
		for (; d < end; d++) {
			if (*d < '0' || *d > '9' || n > TOPO_MAX_CPUS) {
				n = 0;
				break;
			}
			n = n * 10 + (unsigned long)(*d - '0');
		}
		if (n < 1 || n > TOPO_MAX_CPUS) {
			snprintf(err, errlen, "%s=%.*s: expected a count from 1 to %u", keys[k],
				 (int)(end - eq - 1), eq + 1, TOPO_MAX_CPUS);
			return -1;
		}
		v[k] = (unsigned int)n;
		prod *= n;
		if (prod > TOPO_MAX_CPUS) {
			snprintf(err, errlen, "more than %u CPUs in all", TOPO_MAX_CPUS);
			return -1;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			snprintf(err, errlen, "trailing ','");
			return -1;
		}
	}
	t->sockets = v[0];
	t->dies = v[1];
	t->cores = v[2];
	t->threads = v[3];
	return 0;
}

int layout_from_topo(struct layout *l, const struct topo *t, unsigned int cpus,
		     char *err, size_t errlen)
{
	unsigned int slots = topo_slots(t);

	if (!slots || slots > TOPO_MAX_CPUS) {
		snprintf(err, errlen, "a topology of %u CPUs (1 to %u)", slots, TOPO_MAX_CPUS);
		return -1;
	}
	if (cpus < 1 || cpus > slots) {
		snprintf(err, errlen, "%u CPUs present, but the topology has %u slots", cpus, slots);
		return -1;
	}
	l->ncpus = cpus;
	l->nslots = slots;
	for (unsigned int i = 0; i < slots; i++)
		l->apic_id[i] = topo_apic_id(t, i);
	return 0;
}

int layout_dense(struct layout *l, unsigned int cpus, unsigned int maxcpus,
		 char *err, size_t errlen)
{
	struct topo t = { maxcpus < cpus ? cpus : maxcpus, 1, 1, 1 };

	return layout_from_topo(l, &t, cpus, err, errlen);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int layout_from_ids(struct layout *l, const uint32_t *ids, unsigned int n,
		    char *err, size_t errlen)
{
	static uint32_t sorted[TOPO_MAX_CPUS];

	if (n < 1 || n > TOPO_MAX_CPUS) {
		snprintf(err, errlen, "%u CPUs (1 to %u)", n, TOPO_MAX_CPUS);
		return -1;
	}
	memcpy(sorted, ids, n * sizeof(*ids));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	if (sorted[n - 1] > X2APIC_ID_MAX) {
		snprintf(err, errlen, "x2APIC ID %u: above %u, which ipibench does not handle",
			 (unsigned int)sorted[n - 1], X2APIC_ID_MAX);
		return -1;
	}
	for (unsigned int i = 1; i < n; i++)
		if (sorted[i] == sorted[i - 1]) {
			snprintf(err, errlen, "x2APIC ID %u appears twice", (unsigned int)sorted[i]);
			return -1;
		}
	l->ncpus = l->nslots = n;
	memcpy(l->apic_id, ids, n * sizeof(*ids));
	return 0;
}

/* Per cluster, how many present CPUs; the number of clusters indexed. */
static unsigned int cluster_counts(const struct layout *l, unsigned int *counts, size_t ncounts)
{
	unsigned int top = 0;

	memset(counts, 0, ncounts * sizeof(*counts));
	for (unsigned int i = 0; i < l->ncpus; i++) {
		uint32_t c = x2apic_cluster(l->apic_id[i]);

		if (c < ncounts) {
			counts[c]++;
			if (c + 1 > top)
				top = c + 1;
		}
	}
	return top;
}

/*
 * What each x2APIC ID 0..X2APIC_ID_MAX is in L: 0 no slot's, 1 a hotplug
 * slot's, 2 a present CPU's.
 */
static uint8_t id_kinds[X2APIC_ID_MAX + 1];

static void map_ids(const struct layout *l)
{
	memset(id_kinds, 0, sizeof(id_kinds));
	for (unsigned int i = 0; i < l->nslots; i++)
		if (l->apic_id[i] <= X2APIC_ID_MAX)
			id_kinds[l->apic_id[i]] = i < l->ncpus ? 2 : 1;
}

void layout_summarize(const struct layout *l, struct layout_summary *s)
{
	static unsigned int counts[X2APIC_CLUSTERS];
	unsigned int top;

	memset(s, 0, sizeof(*s));
	s->cpus = l->ncpus;
	s->slots = l->nslots;
	for (unsigned int i = 0; i < l->nslots; i++)
		if (l->apic_id[i] > s->max_apic_id)
			s->max_apic_id = l->apic_id[i];
	top = cluster_counts(l, counts, sizeof(counts) / sizeof(counts[0]));
	s->per_cluster_min = ~0u;
	for (unsigned int c = 0; c < top; c++) {
		if (!counts[c])
			continue;
		s->clusters++;
		if (counts[c] < s->per_cluster_min)
			s->per_cluster_min = counts[c];
		if (counts[c] > s->per_cluster_max)
			s->per_cluster_max = counts[c];
	}
	if (!s->clusters)
		s->per_cluster_min = 0;
	map_ids(l);
	for (uint32_t id = 0; id <= s->max_apic_id; id++) {
		int k = id_kinds[id];

		if (k != 2) {
			s->holes++;
			if (k == 1)
				s->hotplug_holes++;
		}
	}
	s->cluster_holes = s->clusters * X2APIC_CLUSTER_SIZE - s->cpus;
}

/* Append to buf at *n, keeping it terminated and within len. */
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n = *n + (size_t)w < len ? *n + (size_t)w : len - 1;
}

/* The runs of IDs 0..max of kind K (0: no CPU can have it; 1: hotplug). */
static void append_holes(uint32_t max, int kind, char *buf,
			 size_t len, size_t *n)
{
	int first = 1;

	for (uint32_t id = 0; id <= max; id++) {
		uint32_t end = id;

		if (id_kinds[id] != kind)
			continue;
		while (end < max && id_kinds[end + 1] == kind)
			end++;
		if (end == id)
			append(buf, len, n, "%s%u", first ? "" : ",", (unsigned int)id);
		else
			append(buf, len, n, "%s%u-%u", first ? "" : ",", (unsigned int)id,
			       (unsigned int)end);
		first = 0;
		id = end;
	}
}

void layout_describe(const struct layout *l, char *buf, size_t len)
{
	static unsigned int counts[X2APIC_CLUSTERS];
	struct layout_summary s;
	unsigned int top;
	size_t n = 0;
	int first = 1;

	buf[0] = '\0';
	layout_summarize(l, &s);
	top = cluster_counts(l, counts, sizeof(counts) / sizeof(counts[0]));
	append(buf, len, &n, "%u CPUs, %u cluster%s in use (", s.cpus, s.clusters,
	       s.clusters == 1 ? "" : "s");
	for (unsigned int c = 0; c < top; c++) {
		unsigned int e = c;

		if (!counts[c])
			continue;
		while (e + 1 < top && counts[e + 1] == counts[c])
			e++;
		if (e == c)
			append(buf, len, &n, "%s%u: %u CPU%s", first ? "" : ", ", c, counts[c],
			       counts[c] == 1 ? "" : "s");
		else
			append(buf, len, &n, "%s%u-%u: %u CPUs each", first ? "" : ", ", c, e,
			       counts[c]);
		first = 0;
		c = e;
	}
	append(buf, len, &n, "); x2APIC IDs 0-%u", (unsigned int)s.max_apic_id);
	if (!s.holes) {
		append(buf, len, &n, ", no holes");
		return;
	}
	append(buf, len, &n, ", holes ");
	if (s.holes > s.hotplug_holes) {
		append_holes(s.max_apic_id, 0, buf, len, &n);
		append(buf, len, &n, " (no CPU)%s", s.hotplug_holes ? ", " : "");
	}
	if (s.hotplug_holes) {
		append_holes(s.max_apic_id, 1, buf, len, &n);
		append(buf, len, &n, " (hotplug)");
	}
}

/* ---- masks and ICR writes -------------------------------------------- */

int cpuset_parse(const char *s, const struct layout *l, unsigned int self,
		 struct cpuset *out, char *err, size_t errlen)
{
	const char *p = s;

	memset(out, 0, sizeof(*out));
	if (!s) {
		snprintf(err, errlen, "no mask");
		return -1;
	}
	if (!strcmp(s, "all") || !strcmp(s, "all-but-self")) {
		for (unsigned int c = 0; c < l->ncpus; c++)
			if (strcmp(s, "all") == 0 || c != self)
				cpuset_set(out, c);
		return 0;
	}
	while (*p) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= l->ncpus) {
			snprintf(err, errlen, "mask '%s': CPUs %lu-%lu are not all among the %u CPUs",
				 s, a, b, l->ncpus);
			return -1;
		}
		for (unsigned long c = a; c <= b; c++)
			cpuset_set(out, (unsigned int)c);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (p == s)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "mask '%s': expected all, all-but-self or a list like 0-7,9", s);
	return -1;
}

const char *icr_route_name(enum icr_route r)
{
	switch (r) {
	case ICR_PHYSICAL: return "physical";
	case ICR_CLUSTER: return "cluster";
	case ICR_SHORTHAND: return "shorthand";
	}
	return "?";
}

int icr_route_for(const struct layout *l, const char *mode, const char *sender,
		  bool shorthand_ok, unsigned int self, const struct cpuset *dest)
{
	bool everyone = true;

	if (!sender || !strcmp(sender, "genapic")) {
		for (unsigned int c = 0; c < l->ncpus && everyone; c++)
			if (c != self && !cpuset_has(dest, c))
				everyone = false;
		if (shorthand_ok && everyone)
			return ICR_SHORTHAND;
		if (!mode)
			return -1;
		if (!strcmp(mode, "physical"))
			return ICR_PHYSICAL;
		if (!strcmp(mode, "cluster") || !strcmp(mode, "mixed"))
			return ICR_CLUSTER;
		return -1;
	}
	if (!strcmp(sender, "physical"))
		return ICR_PHYSICAL;
	if (!strcmp(sender, "cluster"))
		return ICR_CLUSTER;
	return -1;
}

unsigned int icr_writes(const struct layout *l, enum icr_route route,
			unsigned int self, const struct cpuset *dest)
{
	static struct cpuset clusters_seen;    /* X2APIC_CLUSTERS bits */
	unsigned int n = 0;

	memset(&clusters_seen, 0, sizeof(clusters_seen));
	for (unsigned int c = 0; c < l->ncpus; c++) {
		uint32_t cl;

		if (c == self || !cpuset_has(dest, c))
			continue;
		switch (route) {
		case ICR_PHYSICAL:
			n++;
			break;
		case ICR_CLUSTER:
			cl = x2apic_cluster(l->apic_id[c]);
			if (!cpuset_has(&clusters_seen, cl)) {
				cpuset_set(&clusters_seen, cl);
				n++;
			}
			break;
		case ICR_SHORTHAND:
			return 1;
		}
	}
	return n;
}
