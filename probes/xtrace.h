/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/xtrace.h: reading xentrace files.
 *
 * A xentrace file is a sequence of per-CPU chunks.  Each chunk opens with a
 * TRC_TRACE_CPU_CHANGE record (header 0x2001f003: two extra words, no TSC)
 * whose words are the CPU and the byte count of the chunk; the chunk holds
 * whole trace records of that CPU (xentrace.c writes one chunk per drained
 * window of a CPU's buffer).  A record is a u32 header (bits 0-27 event,
 * 28-30 number of extra words, 31 TSC present), an optional u64 TSC (lo,
 * hi) and the extra words.
 *
 * The file is mapped read-only and walked in place: memory does not grow
 * with the file.  Every irregularity (garbage between chunks, a record that
 * runs past its chunk or the file, a chunk longer than the file, TSC going
 * backwards on one CPU, too many distinct event IDs, a block of zero
 * bytes where a chunk should start) is counted in a
 * struct xt_anom and described with its byte offset; nothing is dropped
 * silently.
 */
#ifndef IPIBENCH_XTRACE_H
#define IPIBENCH_XTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XT_MAX_CPUS 4096		/* Xen's NR_CPUS is at most 4095 */
#define XT_CPU_CHANGE_HDR 0x2001f003u	/* TRC_TRACE_CPU_CHANGE, 2 words, no TSC */
#define XT_EV_CPU_CHANGE 0x0001f003u
#define XT_EV_LOST_RECORDS 0x0001f001u
#define XT_EV_WRAP_BUFFER 0x0001f002u
#define XT_MAX_MSGS 20

/* Irregularities found while reading: counts, and the first messages. */
struct xt_anom {
	uint64_t garbage_runs;	/* bytes where a cpu_change record was expected */
	uint64_t skipped_bytes;	/* bytes not read as records, all causes */
	uint64_t bad_records;	/* records running past the end of their chunk */
	uint64_t short_chunks;	/* chunks declaring more bytes than the file has */
	uint64_t truncated;	/* 1 when the file ends inside a record/header */
	uint64_t tsc_backwards;	/* records whose TSC is below the previous one on that CPU */
	uint64_t nmsgs;		/* messages produced (only XT_MAX_MSGS kept) */
	char msgs[XT_MAX_MSGS][192];
};

/* True when anything irregular was found (skipped bytes, TSC going back). */
bool xt_anom_any(const struct xt_anom *an);
void xt_anom_add(struct xt_anom *an, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A file (or a memory buffer) to read. */
struct xt_file {
	const uint8_t *base;
	size_t len;
	bool mapped;
	int fd;			/* kept open for pread() of chunk bodies; -1 for memory */
};

/*
 * The most bytes a trace may have, plain or unpacked from xz, unless the
 * caller gives its own bound: 8 GiB.  A real xentrace file of a few
 * minutes of a busy host is hundreds of MB (probes/tests/data's are at
 * most a few MB, docs/measurements.md reads a generated 1 GiB one in 1-4
 * s); the reader takes about a second per GiB, so the bound is seconds of
 * work, not the minutes a 64 GiB sparse file took.  `ipibench trace
 * --max-gib N` raises it.
 */
#define XT_MAX_BYTES (8ull << 30)

/*
 * Map PATH read-only: 0, or -1 with a one-line reason in ERR (the name
 * through sio_shown()).  Opened by safeio's rule (sio_open_regular():
 * O_NONBLOCK, a regular file; symlinks are followed, as for any file a
 * user names), at most MAX bytes (xt_map: XT_MAX_BYTES), and refused when
 * it has a hole (SEEK_HOLE; a sparse file is not a trace) naming the
 * hole's offset.  Nothing of the file's content is in the message.
 */
int xt_map_max(struct xt_file *f, const char *path, uint64_t max, char *err, size_t errlen);
int xt_map(struct xt_file *f, const char *path, char *err, size_t errlen);
void xt_mem(struct xt_file *f, const void *buf, size_t len);
void xt_unmap(struct xt_file *f);
/* xt_map_max(PATH, MAX), or, for a file starting with xz's magic, its
 * contents unpacked (probes/xz.c, liblzma) into memory of at most MAX and
 * at most XT_XZ_MAX_BYTES bytes and mapped: the same xt_file as of the
 * unpacked file.  Past that, or corrupt or truncated, it is refused with
 * one line naming PATH and the compressed offset. */
#define XT_XZ_MAX_BYTES (2ull << 30)	/* trace summary's bound: 2 GiB unpacked */
/* A block of this many zero bytes is not in any trace (a record's header is
 * never 0, and one comes every 40 bytes at most): aligned in an .xz file's
 * unpacked data, it is refused while unpacking, before it fills memory;
 * where a chunk should start in a file, the walker stops there and counts
 * the rest as skipped (an anomaly naming the offset; a file of zeros has
 * no chunk, so it is refused), instead of scanning it. */
#define XT_ZERO_BLOCK (64u << 10)
int xt_open(struct xt_file *f, const char *path, uint64_t max, char *err, size_t errlen);
bool xt_is_xz(const void *p, size_t len);
/* IN (INLEN bytes of xz) unpacked into F as xt_open() does; PATH names it. */
int xt_unpack_xz(struct xt_file *f, const char *path, const void *in, size_t inlen,
		 uint64_t max, char *err, size_t errlen);

/* One record.  tsc is the record's own TSC, or the last one seen on that
 * CPU when the record has none (has_tsc false). */
struct xt_rec {
	uint64_t off;		/* byte offset of the header in the file */
	uint64_t tsc;
	uint32_t event;		/* 28-bit event ID */
	uint32_t cpu;
	uint32_t nextra;	/* 0..7 */
	bool has_tsc;
	uint32_t d[7];
};

/* A chunk: the cpu_change header at hdr_off, then len bytes at data_off
 * (len is clamped to the file; declared is what the header said). */
struct xt_chunk {
	uint64_t hdr_off, data_off, len, declared;
	uint32_t cpu;
};

/* Walks chunk headers, jumping over chunk bodies.  Chunk-level
 * irregularities go to an (NULL: not reported, for secondary walkers). */
struct xt_walk {
	const struct xt_file *f;
	uint64_t off;
	struct xt_anom *an;
};
void xt_walk_init(struct xt_walk *w, const struct xt_file *f, struct xt_anom *an);
/* 1 and *c filled, or 0 at the end of the file. */
int xt_walk_next(struct xt_walk *w, struct xt_chunk *c);

/* Sequential reader: every record in file order, the cpu_change records
 * included (as event XT_EV_CPU_CHANGE with d[0] = cpu, d[1] = size). */
struct xt_seq {
	struct xt_walk w;
	struct xt_chunk c;
	uint64_t pos, end;	/* inside the current chunk */
	bool in_chunk;
	struct xt_anom *an;
	uint64_t *last_tsc;	/* per CPU */
	uint64_t chunks;
	uint64_t drop_done;	/* bytes of the mapping already released */
};
int xt_seq_init(struct xt_seq *s, const struct xt_file *f, struct xt_anom *an);
void xt_seq_fini(struct xt_seq *s);
/* 1 and *r filled, 0 at the end of the file. */
int xt_seq_next(struct xt_seq *s, struct xt_rec *r);

/* Read the record at *pos of chunk c (for callers walking chunks
 * themselves): 1 and *r filled, or 0 when the chunk is done; what remains
 * of it is then counted and described in an. */
int xt_chunk_rec(const struct xt_file *f, const struct xt_chunk *c, uint64_t *pos,
		 uint64_t *last_tsc, struct xt_anom *an, struct xt_rec *r);
/* For callers walking chunks themselves with s->w: the file up to pos is
 * done with (lets the mapping behind it go). */
void xt_seq_release(struct xt_seq *s, uint64_t pos);

/* Merged reader: the records of all CPUs in TSC order (cpu_change records
 * are not returned).  Needs a mapped file (each CPU is read at its own
 * place in it). */
struct xt_merge;
struct xt_merge *xt_merge_open(const struct xt_file *f, struct xt_anom *an);
int xt_merge_next(struct xt_merge *m, struct xt_rec *r);
void xt_merge_close(struct xt_merge *m);
/* The caller wants only records whose event & mask == value for one of
 * the n pairs (1 to XT_MERGE_MAX_WANT, given once, before the first
 * xt_merge_next(); else -1 and nothing changes).  The merge may then
 * leave out others where that changes nothing in the order of the rest
 * (xtrace.c, skip_unwanted(), says when); it still returns some, so the
 * caller checks each record's event as before.  Anomalies are reported
 * the same either way. */
#define XT_MERGE_MAX_WANT 4
struct xt_want {
	uint32_t mask, value;
};
int xt_merge_want(struct xt_merge *m, const struct xt_want *w, uint32_t n);

/* xt_rec_size() by the header's top four bits (TSC flag, words), for the
 * hot loops: a load in place of the arithmetic. */
extern const uint8_t xt_rec_sizes[16];

/* Decode one record at p (avail bytes): its size, or 0 if it does not fit. */
static inline uint32_t xt_rec_size(uint32_t hdr)
{
	return 4 + ((hdr >> 31) ? 8 : 0) + 4 * ((hdr >> 28) & 7);
}

#endif
