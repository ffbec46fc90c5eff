/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a real Xen host is, and what a config can show on it.
 *
 * The facts (struct hc_facts) are read from the text of `xl info`, `xl
 * dmesg`, `xenpm get-cpufreq-para 0`, `xenpm get-max-cstate`, /proc/cpuinfo
 * and /sys/hypervisor: each parser takes the text and the name it came from
 * and refuses a malformed line in one line naming both.  The judgement,
 * hc_judge(), is a pure function of the facts and a config: findings
 * (error, warning, info) with the fix.  `ipibench host check` prints both;
 * `ipibench run` refuses a local or reboot config on an error before any
 * run, and keeps the warnings in results.json's host object.
 */
#ifndef IPIBENCH_HOSTCHECK_H
#define IPIBENCH_HOSTCHECK_H

#include <stddef.h>
#include <jansson.h>

#include "runner/config.h"

/* At most this many x2APIC IDs (the MADT's enabled CPUs) are kept. */
#define HC_MAX_APIC 4096
/* A command's or a file's text is read up to this many bytes. */
#define HC_TEXT_MAX (8u << 20)

struct hc_facts {
	char xen_version[48];     /* "4.17.5"; "" unknown */
	int xen_major, xen_minor; /* -1 unknown */
	int debug;                /* Xen's "debug=y": 1, "debug=n": 0, -1 unknown */
	char genapic[32];         /* "x2apic_mixed"; "" unknown */
	char xen_cmdline[1024];
	int nr_cpus;              /* xl info nr_cpus; -1 unknown */
	int threads_per_core;     /* -1 unknown */
	int info_lines;           /* xl dmesg had Xen's info-level boot lines */
	int hotplug_cpus;         /* "SMP: Allowing N CPUs (M hotplug CPUs)": M; -1 unknown */
	int allowed_cpus;         /* its N; -1 unknown */
	int madt_enabled, madt_disabled;  /* the MADT's LAPIC/X2APIC entries Xen listed */
	unsigned int apic_ids[HC_MAX_APIC];   /* the enabled ones' APIC IDs, in order */
	unsigned int napic;
	int intremap;             /* interrupt remapping: 1, 0, -1 unknown */
	char cpufreq_driver[32];  /* "" unknown; "none": Xen drives no frequency */
	char governor[32];        /* "" unknown or none */
	int turbo;                /* 1 on, 0 off or not there, -1 unknown */
	int max_cstate;           /* -1 unknown, 1000: unlimited */
	char microcode[32], cpu_model[96];
};

/* Facts that nothing set: every field unknown. */
void hc_facts_init(struct hc_facts *f);

/* The parsers: TEXT as the output of NAME (for messages); 0, or -1 with
 * "NAME:LINE: ..." in err for a line that cannot be what Xen prints. */
int hc_parse_xl_info(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen);
int hc_parse_xl_dmesg(struct hc_facts *f, const char *name, const char *text,
		      char *err, size_t errlen);
int hc_parse_cpufreq(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen);
int hc_parse_max_cstate(struct hc_facts *f, const char *name, const char *text,
			char *err, size_t errlen);
int hc_parse_cpuinfo(struct hc_facts *f, const char *name, const char *text,
		     char *err, size_t errlen);

/*
 * Where the texts come from: the files under ROOT ("/" or NULL: this host),
 * and each command's output from CMD (NULL: run it when ROOT is this host,
 * else read ROOT/var/lib/ipibench/facts/NAME, a captured host's).  CMD
 * returns the output (malloc'd) or NULL when the command is not there.
 */
struct hc_source {
	const char *root;
	char *(*cmd)(void *ctx, const char *const argv[]);
	void *ctx;
};
int hc_collect(struct hc_facts *f, const struct hc_source *src, char *err, size_t errlen);
/*
 * hc_collect()'s part from ROOT's /proc/cpuinfo, at most MAX bytes of it:
 * 0 (also when it is not there: those facts stay unknown), or -1 with ERR
 * the parse's refusal naming the file and line.
 */
int hc_collect_cpuinfo(struct hc_facts *f, const char *root, size_t max, char *err,
		       size_t errlen);
/*
 * The text of FILE under ROOT ("/" or NULL: this host), at most MAX bytes
 * (a /proc file of this host, whose size says 0, is read as far as MAX).
 * NULL when it is not there, or with ERR set when it cannot be read.
 */
char *hc_read_text(const char *root, const char *file, size_t max, char *err, size_t errlen);

/* Interrupt remapping still unknown (no VT-d line: AMD-Vi) but turned off on
 * Xen's command line: 0. */
void hc_intremap_from_cmdline(struct hc_facts *f);
/* The x2APIC clusters (ID >> 4) the enabled CPUs are in. */
unsigned int hc_clusters(const struct hc_facts *f);
/* Whether flush_tlb_all()'s IPI takes the ALLBUT shorthand: 1, 0, -1 unknown. */
int hc_takes_shorthand(const struct hc_facts *f);
/* The facts as JSON (host check --json, results.json). */
json_t *hc_facts_json(const struct hc_facts *f);

enum hc_level { HC_ERROR, HC_WARNING, HC_INFO };
#define HC_MAX_FINDINGS 24
struct hc_finding {
	enum hc_level level;
	char where[320];    /* "FILE:LINE" of the config key, or "" for the host */
	char text[400];
	char fix[400];      /* "" when there is nothing to change */
};

/*
 * What config C (read from FILE; NULL: the host alone) can show on a host
 * with facts F: the number of findings written to OUT (at most max).
 */
unsigned int hc_judge(const struct hc_facts *f, const struct config *c, const char *file,
		      struct hc_finding *out, unsigned int max);
const char *hc_level_name(enum hc_level l);
/* The findings as a JSON array of {level, where, text, fix}. */
json_t *hc_findings_json(const struct hc_finding *fs, unsigned int n);

/* The x2APIC modes a Xen of these facts offers, ", "-separated, into buf. */
void hc_modes_offered(const struct hc_facts *f, char *buf, size_t len);

/*
 * `ipibench run`'s preflight for a local or reboot config C from FILE, on
 * this host (facts from SRC): -1 with the first error as one line
 * "WHERE: TEXT; FIX" in err; else 0, the warnings printed once to stderr
 * and, with *host set, the facts and findings as *host ({facts, findings}).
 */
int hc_preflight(const struct config *c, const char *file, const struct hc_source *src,
		 json_t **host, char *err, size_t errlen);

#endif
