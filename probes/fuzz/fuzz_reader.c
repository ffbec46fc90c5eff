/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libFuzzer target for the xentrace reader: any byte string goes through
 * the summary (fast path), the sequential reader, the TSC-merged reader
 * and the ipi / irq analyses, and the totals must agree:
 *  - the summary's fast path and the plain sequential reader count the same
 *    records and chunks;
 *  - every byte is accounted for: record bytes + 12 per chunk header +
 *    skipped bytes == the input size (nothing silently dropped);
 *  - the merged reader returns exactly the sequential reader's records,
 *    and, told which records are wanted (xt_merge_want(), as the HVM
 *    profile tells it), the same wanted ones in the same order;
 *  - the parallel summary (2 workers, batches of 3 chunks, forced on any
 *    size) says what the sequential one says: counts, per-CPU rows,
 *    anomalies and their messages.
 *  - the HVM profile counted in file order (tr_hvm_par), sequentially and
 *    with the workers, is the TSC-ordered pass's (tr_hvm_run), vCPU for
 *    vCPU and count for count, whichever of the two each run took;
 *  - the per-guest IPI figures (tr_hvm_guests) add up: every decoded ICR
 *    write is in exactly one class, injections are IPI vectors or interrupts;
 *  - the Chrome export (probes/export.h) is JSON that jansson parses, with
 *    as many events as it says, every record read, and trace ipi's
 *    receives, each bound to its send by a flow or unmatched; the CTF
 *    export (into a directory under /tmp, emptied after each input) has an
 *    event per record and chunk header.
 * An input starting with xz's magic is also unpacked (xt_unpack_xz, bound
 * 1 MiB): refused with one line naming it, or read as above.
 * The seeds (probes/fuzz/corpus) include the families the bounds are for:
 * runs of zero bytes between and inside chunks, 64 KiB of zeros (the
 * walker's stop; longer runs after a chunk do not fit in -max_len and are
 * test_trace_cmd's), an .xz of zeros, chunk
 * headers declaring 4 GiB, and apic:tsc_khz records out of range; FIFOs
 * and sparse files cannot be fuzzed and are tests (test_trace_cmd).
 * A disagreement aborts, so the fuzzer reports it like a crash.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/export.h"
#include "probes/trace.h"
#include "probes/xtrace.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_guests(const struct tr_summary *s)
{
	struct tr_hvm_guest *g;
	uint32_t n;

	if (!s->has_hvm)
		return;
	CHECK(tr_hvm_guests(&s->hvm, &g, &n) == 0);
	for (uint32_t i = 0; i < n; i++) {
		CHECK(g[i].ipi_sent + g[i].ipi_self + g[i].icr_other >= g[i].icr_writes);
		CHECK(g[i].ipi_logical + g[i].ipi_shorthand <= g[i].ipi_sent);
		CHECK(g[i].inj_ipi + g[i].inj_irq == g[i].inj);
		CHECK(g[i].evtchn_op <= g[i].vmmcall);
		CHECK(g[i].ipis == (g[i].ipi_sent ? g[i].ipi_sent : g[i].evtchn_op));
	}
	tr_hvm_guests_free(g, n);
}

static void same_cmap(const struct cmap *a, const struct cmap *b)
{
	for (uint32_t i = 0; i < a->cap; i++)
		CHECK(!a->used[i] || a->v[i] == tr_cmap_get(b, a->key[i]));
	for (uint32_t i = 0; i < b->cap; i++)
		CHECK(!b->used[i] || b->v[i] == tr_cmap_get(a, b->key[i]));
	CHECK(a->overflow == b->overflow);
}

/* S's HVM profile is the TSC-ordered pass's. */
static void same_as_tsc_pass(const struct xt_file *f, const struct tr_summary *s)
{
	const struct tr_par tsc = { .threads = 1, .hvm_pass = TR_HVM_TSC };
	const struct tr_hvm *a = &s->hvm, *b;
	struct tr_summary t;

	CHECK(tr_summary_run_with(&t, f, &tsc) == 0);
	CHECK(t.has_hvm == s->has_hvm);
	b = &t.hvm;
	if (s->has_hvm) {
		CHECK(a->nv == b->nv && a->svm == b->svm && a->hvm_records == b->hvm_records);
		CHECK(a->no_vcpu == b->no_vcpu && a->before_exit == b->before_exit);
		CHECK(a->short_records == b->short_records && a->sched_records == b->sched_records);
		for (uint32_t i = 0; i < a->nv; i++) {
			const struct tr_hvm_vcpu *x = &a->v[i], *y = &b->v[i];

			CHECK(x->dom == y->dom && x->vcpu == y->vcpu && x->vmexit == y->vmexit);
			CHECK(x->vmentry == y->vmentry && x->exits == y->exits);
			CHECK(x->icr_writes == y->icr_writes && x->ipi_sent == y->ipi_sent);
			CHECK(x->ipi_self == y->ipi_self && x->ipi_logical == y->ipi_logical);
			CHECK(x->ipi_shorthand == y->ipi_shorthand && x->icr_other == y->icr_other);
			same_cmap(&x->reason, &y->reason);
			same_cmap(&x->handler, &y->handler);
			same_cmap(&x->virq, &y->virq);
			same_cmap(&x->msr_read, &y->msr_read);
			same_cmap(&x->msr_write, &y->msr_write);
			same_cmap(&x->ipi_vec, &y->ipi_vec);
			same_cmap(&x->ipi_dest, &y->ipi_dest);
			same_cmap(&x->hypercall, &y->hypercall);
		}
	}
	tr_summary_fini(&t);
}

/* The Chrome export (probes/export.h): JSON that parses, with trace ipi's
 * receives, each a flow or unmatched, and every record read. */
static void check_export(const struct xt_file *f, const struct tr_ipi *p, uint64_t records)
{
	struct tr_export_meta meta = { 0 };
	struct tr_export_stats st;
	struct tr_chrome *c;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_error_t e;
	json_t *j;

	CHECK(out);
	c = tr_chrome_begin(out);
	CHECK(c);
	CHECK(tr_chrome_file(c, "fuzz \"input\"\xff", f, &meta, 0, &st) == 0);
	CHECK(tr_chrome_end(c) == 0);
	tr_chrome_free(c);
	CHECK(fclose(out) == 0);
	CHECK(st.records == records);
	CHECK(st.recvs == p->recv && st.unmatched == p->unmatched);
	CHECK(st.flows + st.unmatched == st.recvs);
	j = json_loadb(buf, len, 0, &e);
	if (!j)
		fprintf(stderr, "export: line %d: %s\n", e.line, e.text);
	CHECK(j && json_is_array(json_object_get(j, "traceEvents")));
	CHECK(json_array_size(json_object_get(j, "traceEvents")) == st.events);
	json_decref(j);
	free(buf);
}

/* The CTF export into a directory of this process's, emptied after each
 * input and removed at exit: every record and chunk header an event, all
 * written. */
static char ctf_dir[64];

static void ctf_empty(void)
{
	struct dirent *de;
	DIR *d = opendir(ctf_dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

static void ctf_remove(void)
{
	ctf_empty();
	rmdir(ctf_dir);
}

static void check_ctf(const struct xt_file *f, uint64_t records, uint64_t chunks)
{
	struct tr_export_meta meta = { 0 };
	struct tr_export_stats st;
	int rc;

	if (!ctf_dir[0]) {
		snprintf(ctf_dir, sizeof(ctf_dir), "/tmp/fuzz_reader-ctf-XXXXXX");
		CHECK(mkdtemp(ctf_dir));
		atexit(ctf_remove);
	}
	rc = tr_ctf_write(ctf_dir, "fuzz", f, &meta, 0, &st);
	ctf_empty();
	CHECK(rc == 0);
	CHECK(st.records == records && st.events == records + chunks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xt_file f;
	struct tr_summary s;
	struct tr_ipi p;
	struct tr_irq q;
	struct xt_anom an = { 0 };
	struct xt_seq seq;
	struct xt_merge *m;
	struct xt_rec r;
	uint64_t nrec = 0, nchunk = 0, bytes = 0, nmerge = 0;
	struct tr_row *rows;
	size_t nrows;
	uint64_t sum = 0;

	if (xt_is_xz(data, size)) {
		char err[512];

		if (xt_unpack_xz(&f, "in.xz", data, size, 1u << 20, err, sizeof(err))) {
			CHECK(!strncmp(err, "in.xz: xz: ", 11) && !strchr(err, '\n'));
		} else {
			CHECK(f.len <= 1u << 20);
			CHECK(tr_summary_run(&s, &f) == 0);
			check_guests(&s);
			tr_summary_fini(&s);
			xt_unmap(&f);
		}
		return 0;
	}
	xt_mem(&f, data, size);
	CHECK(tr_summary_run(&s, &f) == 0);
	check_guests(&s);
	same_as_tsc_pass(&f, &s);
	rows = tr_summary_rows(&s, &nrows);
	for (size_t i = 0; i < nrows; i++)
		sum += rows[i].count;
	free(rows);
	CHECK(sum == s.records + s.chunks);

	CHECK(xt_seq_init(&seq, &f, &an) == 0);
	while (xt_seq_next(&seq, &r)) {
		CHECK(r.nextra <= 7);
		CHECK(r.cpu < XT_MAX_CPUS);
		CHECK(r.off < size);
		/* Chunk headers come as cpu_change records at the chunk's offset. */
		if (r.event == XT_EV_CPU_CHANGE && seq.c.hdr_off == r.off)
			nchunk++;
		else
			nrec++;
		bytes += xt_rec_size((uint32_t)r.nextra << 28 | (r.has_tsc ? 1u << 31 : 0));
	}
	xt_seq_fini(&seq);
	CHECK(nrec == s.records);
	CHECK(nchunk == s.chunks);
	CHECK(an.skipped_bytes == s.an.skipped_bytes);
	CHECK(an.tsc_backwards == s.an.tsc_backwards);
	CHECK(bytes + an.skipped_bytes == size);

	m = xt_merge_open(&f, NULL);
	CHECK(m != NULL);
	{
		/* The HVM profile's pairs; `wanted` follows the plain merge. */
		const struct xt_want w[] = { { 0x0ffff000, 0x00021000 }, { 0x0fff0000, 0x00080000 } };
		struct xt_merge *mw = xt_merge_open(&f, NULL);
		struct xt_rec rw;

		CHECK(mw != NULL);
		CHECK(xt_merge_want(mw, w, 2) == 0);
		while (xt_merge_next(m, &r)) {
			nmerge++;
			if ((r.event & w[0].mask) != w[0].value && (r.event & w[1].mask) != w[1].value)
				continue;
			do
				CHECK(xt_merge_next(mw, &rw));
			while ((rw.event & w[0].mask) != w[0].value && (rw.event & w[1].mask) != w[1].value);
			CHECK(rw.off == r.off && rw.tsc == r.tsc && rw.cpu == r.cpu);
		}
		while (xt_merge_next(mw, &rw))
			CHECK((rw.event & w[0].mask) != w[0].value && (rw.event & w[1].mask) != w[1].value);
		xt_merge_close(mw);
	}
	xt_merge_close(m);
	CHECK(nmerge == s.records);

	CHECK(tr_ipi_run(&p, &f) == 0);
	/* The file's apic:tsc_khz record is taken only in range. */
	CHECK(!p.tsc_khz || (p.tsc_khz >= TR_TSC_KHZ_MIN && p.tsc_khz <= TR_TSC_KHZ_MAX));
	check_export(&f, &p, s.records);
	check_ctf(&f, s.records, s.chunks);
	tr_ipi_fini(&p);
	CHECK(tr_irq_run(&q, &f) == 0);
	tr_irq_fini(&q);
	{
		const struct tr_par par = { .threads = 2, .min_bytes = 0, .batch = 3 };
		struct tr_summary t;

		CHECK(tr_summary_run_with(&t, &f, &par) == 0);
		same_as_tsc_pass(&f, &t);
		CHECK(t.records == s.records && t.chunks == s.chunks && t.lost == s.lost);
		CHECK(t.ncpu == s.ncpu);
		CHECK(!memcmp(t.cpu, s.cpu, XT_MAX_CPUS * sizeof(s.cpu[0])));
		CHECK(!memcmp(&t.an, &s.an, sizeof(s.an)));
		CHECK(t.ev.n == s.ev.n && t.ev.overflow == s.ev.overflow);
		for (uint32_t i = 0; i < s.ev.cap; i++)
			if (s.ev.used[i]) {
				uint32_t j = cmap_hash(s.ev.key[i], t.ev.cap);

				while (t.ev.used[j] && t.ev.key[j] != s.ev.key[i])
					j = (j + 1) & (t.ev.cap - 1);
				CHECK(t.ev.used[j] && t.ev.v[j] == s.ev.v[i]);
			}
		tr_summary_fini(&t);
	}
	json_decref(tr_anom_json(&s.an));
	tr_summary_fini(&s);
	return 0;
}
