/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench-xtrace: record Xen's trace buffers into a xentrace file with
 * probes/collect.c, from dom0 (static, like the agent).
 *
 *   ipibench-xtrace [-e MASK] [-s PAGES] [-c CPU,CPU-CPU...] [-p POLL_MS]
 *                   [-T SECONDS] OUT
 *
 * Records until SIGINT/SIGTERM or -T seconds, then prints what it counted
 * (one JSON line on stdout; exit status 3 when Xen lost records: bytes, records, lost records, wraps...).  The
 * agent links collect.c directly; this tool exercises the same code by hand
 * and stands in for xentrace where it is not installed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "probes/collect.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* "0,2-5" -> bitmap */
static int parse_cpus(const char *s, uint8_t *map, size_t bytes)
{
	char *end;

	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b >= bytes * 8)
			return -1;
		for (unsigned long i = a; i <= b; i++)
			map[i / 8] |= (uint8_t)(1u << (i % 8));
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ipb_collect_opts o = { .poll_ms = 100 };
	struct ipb_collect_stats st;
	struct ipb_collector *c;
	static uint8_t cpus[512];
	unsigned long secs = 0;
	char err[512];
	json_t *js;
	int opt;

	while ((opt = getopt(argc, argv, "e:s:c:p:T:h")) != -1) {
		switch (opt) {
		case 'e':
			o.evt_mask = !strcmp(optarg, "all") ? 0x0ffff000 :
				     (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.pages_per_cpu = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			if (parse_cpus(optarg, cpus, sizeof(cpus))) {
				fprintf(stderr, "ipibench-xtrace: bad CPU list '%s'\n", optarg);
				return 2;
			}
			o.cpu_mask = cpus;
			o.cpu_mask_bytes = sizeof(cpus);
			break;
		case 'p':
			o.poll_ms = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'T':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			printf("usage: ipibench-xtrace [-e MASK|all] [-s PAGES] [-c CPUS] [-p POLL_MS] "
			       "[-T SECONDS] OUT\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: ipibench-xtrace [options] OUT (see -h)\n");
		return 2;
	}
	o.path = argv[optind];
	if (!o.poll_ms)
		o.poll_ms = 100;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (secs) {
		signal(SIGALRM, on_signal);
		alarm((unsigned)secs);
	}
	if (ipb_collect_start(&c, &o, err, sizeof(err))) {
		fprintf(stderr, "ipibench-xtrace: %s\n", err);
		return 1;
	}
	while (!stop)
		pause();
	if (ipb_collect_stop(c, &st, err, sizeof(err))) {
		fprintf(stderr, "ipibench-xtrace: %s\n", err);
		return 1;
	}
	js = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:i,s:i}", "file", o.path,
		       "bytes", (json_int_t)st.tb.bytes, "windows", (json_int_t)st.tb.windows,
		       "records", (json_int_t)st.tb.records,
		       "lost_records", (json_int_t)st.tb.lost_records,
		       "lost_events", (json_int_t)st.tb.lost_events,
		       "wrap_records", (json_int_t)st.tb.wrap_records,
		       "full_windows", (json_int_t)st.tb.full_windows,
		       "bogus", (json_int_t)st.tb.bogus, "cpus", (int)st.cpus,
		       "pages_per_cpu", (int)st.pages_per_cpu, "tsc_khz", (int)st.tsc_khz);
	if (js) {
		json_dumpf(js, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(js);
	}
	return st.tb.lost_records ? 3 : 0;
}
