/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gentrace: write a synthetic xentrace file with a realistic record mix.
 *
 *   gentrace [--size N[k|M|G]] [--cpus N] [--mode physical|cluster|mixed]
 *            [--seed N] [--tsc-khz K] [--lost] [--no-ipi] [--round CYCLES]
 *            [--no-pic] OUT
 *
 * The file is laid out as xentrace writes it: rounds of per-CPU chunks (one
 * drained window per CPU per poll), each opened by a cpu_change record.  A
 * CPU's window covers the same TSC span as the others' in that round, and
 * holds what an HVM guest's vCPU on that pCPU would produce: VMEXIT64 /
 * handler / VMENTRY cycles (handlers without TSC, as Xen's HVMTRACE_*D
 * writes them), INJ_VIRQ, vlapic_accept_pic_intr, runstate changes, do_irq,
 * cpu idle entry/exit, now and then a wrap_buffer record (and, with --lost,
 * lost_records at a window's start).  Unless --no-ipi, each round also has
 * a few IPI operations as ipibench's patched Xen traces them: a send
 * (apic:send_ipi_mask with the ICR writes the mode implies, or
 * apic:send_ipi_allbut) on one CPU and an apic:ipi_recv on each destination
 * a little later.  The first chunk carries apic:tsc_khz.
 *
 * --no-pic leaves out vlapic_accept_pic_intr, which xenalyze does not know
 * and warns about once per record (on unbuffered stderr): with it, xenalyze
 * spends a good part of its time printing those warnings.
 *
 * Deterministic for a given seed.  A summary of what was written (records
 * per event) goes to stderr with --verbose, so tests can check a reader.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/modes.h"
#include "probes/events.h"

#define MAXCPU 512

static int no_pic;			/* --no-pic: no vlapic_accept_pic_intr */
static uint64_t round_cycles = 2000000;	/* one poll interval per round */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}
static uint32_t rn(uint32_t n)
{
	return (uint32_t)((rnd() >> 32) % n);
}

static uint8_t *win;		/* current window */
static size_t wlen, wcap;
static uint64_t nrec;

static void put32(uint32_t v)
{
	if (wlen + 4 > wcap) {
		wcap = wcap ? wcap * 2 : 1 << 20;
		win = realloc(win, wcap);
		if (!win) {
			perror("gentrace");
			exit(1);
		}
	}
	memcpy(win + wlen, &v, 4);
	wlen += 4;
}

static void rec(uint32_t ev, const uint64_t *tsc, int n, const uint32_t *d)
{
	put32(ev | (uint32_t)n << 28 | (tsc ? 1u << 31 : 0));
	if (tsc) {
		put32((uint32_t)*tsc);
		put32((uint32_t)(*tsc >> 32));
	}
	for (int i = 0; i < n; i++)
		put32(d[i]);
	nrec++;
}

struct sched_ev {
	uint64_t t;
	uint32_t ev, n, d[4];
};

static int sev_cmp(const void *a, const void *b)
{
	const struct sched_ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* HVM activity on one CPU until its TSC reaches `until`. */
static void fill(uint64_t *tsc, uint64_t until, uint32_t cpu)
{
	static const uint32_t handlers[] = {
		0x00084011, 0x00084011, 0x00084011, 0x00084011, /* vlapic_accept_pic_intr */
		0x00082012, 0x00082012,				/* VMMCALL */
		0x00082020, 0x00082020,				/* INTR_WINDOW */
		0x00082004,					/* INJ_VIRQ */
		0x00082013,					/* HLT */
		0x0008200f,					/* INTR */
		0x00082023,					/* TRAP */
		0x0008200e,					/* CPUID */
		0x00082021,					/* NPF */
	};
	uint32_t d[7];

	while (*tsc < until) {
		uint32_t r = rn(100), h;

		if (r < 84) {
			d[0] = 0x1e + rn(20);			/* exit reason */
			d[1] = 0x81000000 + rn(1 << 20);	/* rip lo */
			d[2] = 0xffffffff;			/* rip hi */
			rec(0x00081102, tsc, 3, d);		/* VMEXIT64 */
			h = handlers[rn(sizeof(handlers) / sizeof(handlers[0]))];
			if (no_pic && h == 0x00084011)
				h = 0x00082012;			/* VMMCALL instead */
			switch (h) {
			case 0x0008200e: rec(h, NULL, 5, d); break;	/* CPUID */
			case 0x00082021: rec(h, NULL, 6, d); break;	/* NPF */
			case 0x00082020: case 0x00082004: rec(h, NULL, 3, d); break;
			case 0x00084011: rec(h, NULL, 2, d); break;
			default: rec(h, NULL, 1, d);
			}
			if (rn(4) == 0) {
				d[0] = 0xf0 + rn(15);
				rec(0x00082004, NULL, 3, d);	/* INJ_VIRQ */
			}
			*tsc += 300 + rn(3000);
			rec(0x00081001, tsc, 0, d);		/* VMENTRY */
			*tsc += 200 + rn(2000);
		} else if (r < 89) {
			d[0] = 20 + rn(40);			/* irq */
			d[1] = (uint32_t)*tsc;
			d[2] = (uint32_t)*tsc + 400 + rn(1500);
			rec(0x00802008, tsc, 3, d);		/* do_irq */
			*tsc += 2000;
		} else if (r < 93) {
			d[0] = 1; d[1] = (uint32_t)*tsc; d[2] = 0; d[3] = 0;
			rec(0x00801002, tsc, 4, d);		/* cpu_idle_entry */
			*tsc += 5000 + rn(20000);
			d[4] = d[5] = 0;
			rec(0x00801003, tsc, 6, d);		/* cpu_idle_exit */
		} else if (r < 97) {
			d[0] = (1u << 16) | cpu;		/* d1v<cpu> */
			rec(0x00021021, tsc, 1, d);		/* running_to_blocked */
			*tsc += 1000 + rn(10000);
			rec(0x00021211, tsc, 1, d);		/* blocked_to_runnable */
			*tsc += 100 + rn(1000);
			rec(0x00021101, tsc, 1, d);		/* runnable_to_running */
		} else {
			d[0] = 2 + rn(16);
			d[1] = (uint32_t)*tsc;
			rec(0x00082013, NULL, 1, d);		/* HLT */
			*tsc += 100;
		}
	}
}

static uint64_t parse_size(const char *s)
{
	char *e;
	double v = strtod(s, &e);

	switch (*e) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	case 0: break;
	default: fprintf(stderr, "gentrace: bad size '%s'\n", s); exit(2);
	}
	return (uint64_t)v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' }, { "cpus", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' }, { "seed", required_argument, NULL, 'S' },
		{ "tsc-khz", required_argument, NULL, 'k' }, { "lost", no_argument, NULL, 'l' },
		{ "no-ipi", no_argument, NULL, 'n' }, { "verbose", no_argument, NULL, 'v' },
		{ "round", required_argument, NULL, 'r' }, { "no-pic", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	uint64_t size = 64 << 20, written = 0, tsc[MAXCPU], round_start = 1000000000ull;
	uint32_t ncpu = 16, khz = 2000000, mode = IPIBENCH_PHYSICAL, ipi = 1, lost = 0, verbose = 0, c;
	struct sched_ev *sev = calloc(4 * MAXCPU, sizeof(*sev));
	uint32_t nsev[MAXCPU];
	struct sched_ev *per = calloc((size_t)MAXCPU * 64, sizeof(*per));
	uint64_t rounds = 0, ops = 0, recvs = 0, icr = 0;
	FILE *out;
	int o;

	if (!sev || !per)
		return 1;
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 's': size = parse_size(optarg); break;
		case 'c': ncpu = (uint32_t)atoi(optarg); break;
		case 'm': mode = (uint32_t)ipibench_mode_index(optarg); break;
		case 'S': rng_state ^= strtoull(optarg, NULL, 0) * 0x9e3779b97f4a7c15ull + 1; break;
		case 'k': khz = (uint32_t)atoi(optarg); break;
		case 'l': lost = 1; break;
		case 'n': ipi = 0; break;
		case 'v': verbose = 1; break;
		case 'P': no_pic = 1; break;
		case 'r': round_cycles = strtoull(optarg, NULL, 0); break;
		case 'h':
			printf("usage: gentrace [--size N[k|M|G]] [--cpus N] [--mode MODE]\n"
			       "                [--seed N] [--tsc-khz K] [--lost] [--no-ipi] [--verbose]\n"
			       "                [--round CYCLES] [--no-pic] OUT\nMODE:");
			for (size_t i = 0; ipibench_mode_name(i); i++)
				printf(" %s%s", ipibench_mode_name(i), i == IPIBENCH_PHYSICAL ? " (default)" : "");
			printf("\n");
			return 0;
		default: return 2;
		}
	}
	if (optind + 1 != argc || ncpu < 2 || ncpu > MAXCPU || mode >= IPIBENCH_NMODES) {
		fprintf(stderr, "usage: gentrace [options] OUT (2..%d cpus; see --help)\n", MAXCPU);
		return 2;
	}
	out = fopen(argv[optind], "wb");
	if (!out) {
		fprintf(stderr, "gentrace: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 22);
	for (c = 0; c < ncpu; c++)
		tsc[c] = round_start + rn(1000);
	/* The collector's TSC frequency record, first. */
	{
		uint32_t hdr[3] = { 0x2001f003, 0, 8 }, r[2] = { IPB_TRC_APIC_TSC_KHZ | 1u << 28, khz };

		fwrite(hdr, 4, 3, out);
		fwrite(r, 4, 2, out);
		written += 20;
		nrec += 2;
	}
	while (written < size || !rounds) {
		uint64_t end = round_start + round_cycles;

		memset(nsev, 0, sizeof(nsev));
		/* Plan this round's IPIs: spaced so each send's receives come
		 * before the next send of the same vector. */
		for (uint32_t k = 0; ipi && k < 3; k++) {
			uint32_t snd = rn(ncpu), vec = 0x28 + rn(4), nd = 0, clusters = 0;
			uint64_t t = round_start + round_cycles / 20 + k * (round_cycles * 3 / 10) +
				     rn((uint32_t)(round_cycles / 40) + 1);
			int allbut = mode == IPIBENCH_MIXED && rn(3) == 0;	/* mixed: some shorthand */
			uint32_t seen[MAXCPU / 16 + 1] = { 0 };
			struct sched_ev *s;

			for (c = 0; c < ncpu; c++) {
				/* Some CPUs left out of a mask, but never all of them. */
				if (c == snd || (!allbut && rn(4) == 0 &&
						 !(nd == 0 && c == ncpu - 1 - (snd == ncpu - 1))))
					continue;
				s = &per[c * 64 + nsev[c]++];
				s->t = t + 800 + rn(4000);
				s->ev = IPB_TRC_APIC_IPI_RECV;
				s->n = 1;
				s->d[0] = vec;
				nd++;
				recvs++;
				if (!seen[c / 16]++)
					clusters++;
			}
			s = &per[snd * 64 + nsev[snd]++];
			s->t = t;
			if (allbut) {
				s->ev = IPB_TRC_APIC_SEND_IPI_ALLBUT;
				s->n = 3;
				s->d[0] = vec; s->d[1] = nd; s->d[2] = 600 + rn(200);
				icr++;
			} else {
				uint32_t w = mode == IPIBENCH_PHYSICAL ? nd : clusters;

				s->ev = IPB_TRC_APIC_SEND_IPI_MASK;
				s->n = 4;
				s->d[0] = vec | (mode != IPIBENCH_PHYSICAL ? IPB_IPI_LOGICAL : 0);
				s->d[1] = nd; s->d[2] = w; s->d[3] = 300 + 180 * w + rn(100);
				icr += w;
			}
			ops++;
		}
		for (c = 0; c < ncpu && (written < size || !rounds); c++) {
			struct sched_ev *e = &per[c * 64];
			uint32_t hdr[3];

			wlen = 0;
			if (!rounds) {
				/* First schedule of d1v<cpu> here: takes it out of
				 * xenalyze's INIT state cleanly. */
				uint32_t d[1] = { (1u << 16) | c };

				rec(0x00021101, &tsc[c], 1, d);		/* runnable_to_running */
			}
			if (lost && rounds && rn(50) == 0) {
				/* lost count, did:vid, TSC of the first lost record */
				uint64_t first = tsc[c] - 1000 - rn(100000);
				uint32_t d[4] = { 1 + rn(500), (1u << 16) | c, (uint32_t)first,
						  (uint32_t)(first >> 32) };

				tsc[c] += 100;

				rec(0x0001f001, &tsc[c], 4, d);		/* lost_records */
			}
			qsort(e, nsev[c], sizeof(*e), sev_cmp);
			for (uint32_t i = 0; i < nsev[c]; i++) {
				/* Stop short: fill() overshoots by up to ~30k cycles. */
				fill(&tsc[c], e[i].t - 40000, c);
				if (tsc[c] < e[i].t)
					tsc[c] = e[i].t;
				rec(e[i].ev, &tsc[c], (int)e[i].n, e[i].d);
				tsc[c] += 50;
			}
			fill(&tsc[c], end - rn(20000), c);
			if (rn(8) == 0) {
				uint32_t d[7] = { 0 };

				rec(0x0001f002, rn(2) ? &tsc[c] : NULL, (int)rn(8), d); /* wrap_buffer */
			}
			hdr[0] = 0x2001f003;
			hdr[1] = c;
			hdr[2] = (uint32_t)wlen;
			fwrite(hdr, 4, 3, out);
			fwrite(win, 1, wlen, out);
			written += 12 + wlen;
			nrec++;
			if (tsc[c] < end)
				tsc[c] = end;
		}
		round_start = end;
		rounds++;
	}
	if (fclose(out)) {
		fprintf(stderr, "gentrace: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (verbose)
		fprintf(stderr, "gentrace: %" PRIu64 " bytes, %" PRIu64 " records (with cpu_change), "
			"%" PRIu64 " rounds, %" PRIu64 " IPI ops, %" PRIu64 " receives, %" PRIu64
			" ICR writes\n", written, nrec, rounds, ops, recvs, icr);
	free(win);
	free(sev);
	free(per);
	return 0;
}
