/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/tbuf.h: draining Xen's per-CPU trace buffers into a xentrace file.
 *
 * The logic of tools/xentrace/xentrace.c (monitor_tbufs, write_buffer),
 * without libxenctrl: the buffers are given as memory, so tests drive it on
 * fake buffers and probes/collect.c on the mapped real ones.
 *
 * Each CPU's buffer is a struct t_buf { u32 cons, prod; } followed by
 * data_size bytes.  cons and prod count modulo 2 * data_size; Xen writes
 * whole records and pads the end of the ring with a TRC_TRACE_WRAP_BUFFER
 * record, so a window never splits a record except at the ring's end.  One
 * drain writes, for each CPU with data, a cpu_change record (cpu, window
 * bytes) and the window (in two pieces when it wraps), then moves cons.
 */
#ifndef IPIBENCH_TBUF_H
#define IPIBENCH_TBUF_H

#include <stdint.h>
#include <stddef.h>

struct tb_ring {		/* = Xen's struct t_buf */
	uint32_t cons;		/* next byte offset the consumer (us) reads */
	uint32_t prod;		/* next byte offset Xen writes */
};

struct tb_set {
	uint32_t ncpu;
	uint32_t data_size;		/* bytes of records per CPU buffer */
	struct tb_ring **ring;		/* per CPU, NULL when the CPU has no buffer */
	const uint8_t **data;		/* per CPU: the data_size bytes after the ring */
};

struct tb_stats {
	uint64_t bytes;		/* written to the file */
	uint64_t windows;	/* chunks written */
	uint64_t records;	/* records drained */
	uint64_t lost_records;	/* records Xen reports lost (TRC_LOST_RECORDS d0) */
	uint64_t lost_events;	/* TRC_LOST_RECORDS records seen */
	uint64_t wrap_records;	/* TRC_TRACE_WRAP_BUFFER records (ring wrapped) */
	uint64_t full_windows;	/* windows that filled the whole buffer: likely loss */
	uint64_t bogus;		/* cons/prod out of range: buffer skipped */
	uint64_t bad_windows;	/* windows whose records did not parse */
};

struct tb_writer {
	int fd;
	uint8_t *buf;		/* one window: header + data_size bytes */
	size_t cap;
	struct tb_stats st;
};

/* fd: the output file (kept open by the caller). */
int tb_writer_init(struct tb_writer *w, int fd, uint32_t data_size);
void tb_writer_fini(struct tb_writer *w);

/* A one-record chunk carrying ipibench's apic:tsc_khz (first in the file). */
int tb_write_tsc_khz(struct tb_writer *w, uint32_t cpu, uint32_t khz);

/* Drain every CPU once.  0, or -1 with errno when writing failed. */
int tb_drain(const struct tb_set *s, struct tb_writer *w);

/* Drop what is in the buffers now (cons = prod). */
void tb_discard(const struct tb_set *s);

#endif
