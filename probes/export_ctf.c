/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/export_ctf.c: a trace as CTF 1.8 (the Common Trace Format's
 * version babeltrace2 and Trace Compass read): in a directory, the TSDL
 * text `metadata` and one binary stream per pCPU, `stream_N`.
 *
 * Every record the sequential reader returns, cpu_change headers included,
 * is an event of pCPU N's stream (a cpu_change record: of the CPU it
 * names), in file order, so the events by name are `trace summary`'s
 * rows.  An event class is a (record ID, number of words) pair: its name
 * is the reader's (xt_event_label()), its fields the words d0, d1...
 * (32-bit unsigned); at most CLASS_MAX of them, the records of any other
 * pair go to the class "other" (event ID, words as a sequence) as the
 * summary's "other" row.  The timestamp is the record's TSC (the pCPU's
 * last one for a record without its own, and never below the stream's
 * last: a TSC going backwards is an anomaly of the reader) on the clock
 * "tsc" at the TSC's frequency (export.c: --tsc-khz, the file's record,
 * results.json; else 1 GHz, cycles as nanoseconds).
 *
 * Layout, little-endian, byte-aligned: a packet is its header (magic,
 * stream_id), its context (content_size, packet_size in bits,
 * timestamp_begin, timestamp_end, cpu_id) and events of a header (id: 32
 * bits, timestamp: 64 bits) and their words.  Each pCPU fills a packet of
 * at most PKT_MAX bytes in memory and appends it to its stream file when
 * full (opened for that write only: no descriptor per CPU is kept); the
 * metadata, which lists the classes seen, is written last.
 */
#include "probes/export.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/events.h"
#include "probes/trace.h"
#include "lib/safeio.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define PKT_MAX (16u << 10)
#define PKT_HDR 44u			/* header 8 + context 36 */
#define EV_MAX (12u + 4u + 1u + 28u)	/* header 12, then "other": 4 + 1 + 7 x 4 */
#define CLASS_MAX 65536u
#define CSLOTS (2 * CLASS_MAX)
#define OTHER_ID 0u			/* the class "other" */

struct cpkt {
	uint8_t *buf;		/* PKT_MAX bytes, allocated when the CPU is first seen */
	uint32_t len;
	uint64_t begin, end, last;	/* timestamps: first, last of the packet; the stream's last */
	bool any;
};

struct cclass {
	uint32_t key;		/* nwords << 28 | event, + 1 (0: free) */
	uint32_t id;
};

struct ctf {
	const char *dir;
	struct cpkt *cpu;		/* XT_MAX_CPUS */
	struct cclass *cls;		/* ccap slots, at most CSLOTS */
	uint32_t ccap;
	uint32_t nclass;		/* ids 1.. given; 0 is "other" */
	uint64_t other;
	int err;			/* errno of the first write error */
};

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Append BUF (LEN bytes) to DIR/NAME. */
static int append(struct ctf *c, const char *name, const void *buf, size_t len)
{
	char path[4096];
	int fd;
	ssize_t n;
	size_t done = 0;

	if (c->err)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		c->err = errno;
		return -1;
	}
	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			c->err = n < 0 ? errno : EIO;
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd)) {
		c->err = errno;
		return -1;
	}
	return 0;
}

static void pkt_flush(struct ctf *c, uint32_t cpu)
{
	struct cpkt *p = &c->cpu[cpu];
	char name[32];

	if (!p->any)
		return;
	put32(p->buf, CTF_MAGIC);
	put32(p->buf + 4, 0);
	put64(p->buf + 8, (uint64_t)p->len * 8);
	put64(p->buf + 16, (uint64_t)p->len * 8);
	put64(p->buf + 24, p->begin);
	put64(p->buf + 32, p->end);
	put32(p->buf + 40, cpu);
	snprintf(name, sizeof(name), "stream_%" PRIu32, cpu);
	append(c, name, p->buf, p->len);
	p->len = PKT_HDR;
	p->any = false;
}

static struct cclass *class_slot(struct cclass *t, uint32_t cap, uint32_t key)
{
	uint32_t h = (key * 0x9e3779b1u) >> 7 & (cap - 1);

	while (t[h].key && t[h].key != key)
		h = (h + 1) & (cap - 1);
	return &t[h];
}

/* The class of (EVENT, N words): its id, OTHER_ID past CLASS_MAX; the
 * table (at most half full) doubles up to CSLOTS.  UINT32_MAX: no memory. */
static uint32_t class_of(struct ctf *c, uint32_t event, uint32_t n)
{
	uint32_t key = (n << 28 | event) + 1;
	struct cclass *k = class_slot(c->cls, c->ccap, key);

	if (k->key)
		return k->id;
	if (c->nclass == CLASS_MAX)
		return OTHER_ID;
	if (2 * (c->nclass + 1) > c->ccap) {
		uint32_t cap = 2 * c->ccap;
		struct cclass *t = calloc(cap, sizeof(*t));

		if (!t)
			return UINT32_MAX;
		for (uint32_t i = 0; i < c->ccap; i++)
			if (c->cls[i].key)
				*class_slot(t, cap, c->cls[i].key) = c->cls[i];
		free(c->cls);
		c->cls = t;
		c->ccap = cap;
		k = class_slot(t, cap, key);
	}
	k->key = key;
	k->id = ++c->nclass;
	return k->id;
}

static int put_rec(struct ctf *c, const struct xt_rec *r)
{
	/* a cpu_change record: the stream of the CPU it names */
	uint32_t cpu = r->event == XT_EV_CPU_CHANGE && r->d[0] < XT_MAX_CPUS ? r->d[0] : r->cpu;
	struct cpkt *p = &c->cpu[cpu];
	uint32_t id = class_of(c, r->event, r->nextra);
	uint64_t ts;
	uint8_t *e;

	if (id == UINT32_MAX)
		return -1;
	if (!p->buf) {
		p->buf = malloc(PKT_MAX);
		if (!p->buf)
			return -1;
		p->len = PKT_HDR;
	}
	ts = r->tsc > p->last ? r->tsc : p->last;
	if (p->len + EV_MAX > PKT_MAX)
		pkt_flush(c, cpu);
	e = p->buf + p->len;
	put32(e, id);
	put64(e + 4, ts);
	e += 12;
	if (id == OTHER_ID) {
		c->other++;
		put32(e, r->event);
		e[4] = (uint8_t)r->nextra;
		e += 5;
	}
	for (uint32_t i = 0; i < r->nextra; i++, e += 4)
		put32(e, r->d[i]);
	p->len = (uint32_t)(e - p->buf);
	if (!p->any)
		p->begin = ts;
	p->any = true;
	p->end = p->last = ts;
	return 0;
}

/* S as a TSDL string's contents: printable ASCII but '"' and '\\'; others '_'. */
static void tsdl_str(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\' ? *s : '_', f);
}

static void env_str(FILE *f, const char *key, const char *v)
{
	if (!v)
		return;
	fprintf(f, "\t%s = \"", key);
	tsdl_str(f, v);
	fputs("\";\n", f);
}

static int write_metadata(struct ctf *c, const char *path, const struct tr_export_meta *meta,
			  const struct tr_export_clock *clk)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char lb[16];
	int rc;

	if (!f)
		return -1;
	fputs("/* CTF 1.8 */\n\n"
	      "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n"
	      "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
	      "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n\t};\n"
	      "};\n\nenv {\n\tdomain = \"xen\";\n\ttracer_name = \"xentrace\";\n"
	      "\tconverter = \"ipibench trace export\";\n", f);
	env_str(f, "trace_file", path);
	env_str(f, "host", meta->host);
	env_str(f, "xen_version", meta->xen);
	env_str(f, "commit", meta->commit);
	env_str(f, "mode", meta->mode);
	env_str(f, "workload", meta->workload);
	fprintf(f, "\ttsc_khz_from = \"%s\";\n};\n\n", clk->source);
	fprintf(f, "clock {\n\tname = tsc;\n\tdescription = \"the TSC%s\";\n\tfreq = %.0f;\n"
		"\toffset = 0;\n\tprecision = 1;\n\tabsolute = false;\n};\n\n",
		clk->khz > 0 ? "" : " (frequency unknown: 1 GHz, cycles as nanoseconds)",
		clk->khz > 0 ? clk->khz * 1000.0 : 1e9);
	fputs("typealias integer { size = 64; align = 8; signed = false; map = clock.tsc.value; } "
	      ":= tsc_t;\n\n"
	      "stream {\n\tid = 0;\n"
	      "\tpacket.context := struct {\n\t\tuint64_t content_size;\n"
	      "\t\tuint64_t packet_size;\n\t\ttsc_t timestamp_begin;\n\t\ttsc_t timestamp_end;\n"
	      "\t\tuint32_t cpu_id;\n\t};\n"
	      "\tevent.header := struct {\n\t\tuint32_t id;\n\t\ttsc_t timestamp;\n\t};\n};\n\n"
	      "event {\n\tname = \"other\";\n\tid = 0;\n\tstream_id = 0;\n"
	      "\tfields := struct {\n\t\tuint32_t event_id;\n\t\tuint8_t nwords;\n"
	      "\t\tuint32_t d[nwords];\n\t};\n};\n", f);
	for (uint32_t h = 0; h < c->ccap; h++) {
		const struct cclass *k = &c->cls[h];
		uint32_t ev, n;

		if (!k->key)
			continue;
		ev = (k->key - 1) & 0x0fffffff;
		n = (k->key - 1) >> 28;
		fprintf(f, "\nevent {\n\tname = \"");
		tsdl_str(f, xt_event_label(ev, lb, sizeof(lb)));
		fprintf(f, "\";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n", k->id);
		if (n) {
			fputs("\tfields := struct {\n", f);
			for (uint32_t i = 0; i < n; i++)
				fprintf(f, "\t\tuint32_t d%" PRIu32 ";\n", i);
			fputs("\t};\n", f);
		}
		fputs("};\n", f);
	}
	if (fclose(f)) {
		free(buf);
		return -1;
	}
	rc = append(c, "metadata", buf, len);
	free(buf);
	return rc;
}

int tr_ctf_write(const char *dir, const char *path, const struct xt_file *f,
		 const struct tr_export_meta *meta, double opt_khz, struct tr_export_stats *st)
{
	struct tr_export_clock clk;
	struct ctf c = { .dir = dir };
	struct xt_seq s;
	struct xt_rec r;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	c.cpu = calloc(XT_MAX_CPUS, sizeof(*c.cpu));
	c.ccap = 256;
	c.cls = calloc(c.ccap, sizeof(*c.cls));
	if (!c.cpu || !c.cls || tr_export_clock(&clk, f, opt_khz, meta))
		goto out;
	st->tsc_khz = clk.khz;
	st->clock = clk.source;
	st->t0 = clk.t0;
	if (xt_seq_init(&s, f, &st->an))
		goto out;
	while (xt_seq_next(&s, &r)) {
		if (put_rec(&c, &r)) {
			xt_seq_fini(&s);
			goto out;	/* out of memory */
		}
		st->events++;
		if (c.err)
			break;
	}
	xt_seq_fini(&s);
	st->records = st->events - s.chunks;	/* the chunks' headers aside */
	for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
		pkt_flush(&c, i);
	if (c.other)
		xt_anom_add(&st->an, "more than %u (event, words) pairs: %" PRIu64 " records as "
			    "the event \"other\"", CLASS_MAX, c.other);
	if (!c.err && !write_metadata(&c, path, meta, &clk))
		rc = 0;
out:
	if (c.err)
		errno = c.err;
	if (c.cpu)
		for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
			free(c.cpu[i].buf);
	free(c.cpu);
	free(c.cls);
	return rc;
}
