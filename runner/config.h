/*
 * Benchmark configs (INI, parsed with inih):
 *   [host]            backend, cpus, maxcpus, memory, dom0_memory, timeout,
 *                     cmdline, name, disk_mb, tcg (qemu only: multi | single),
 *                     test_device (qemu only: true | false)
 *   [matrix]          modes, repetitions, order, seed, cpus (a sweep: one
 *                     result set per CPU count, in DIR/cN/)
 *   [workload:NAME]   type = <workload type>, then that type's parameters
 * Unknown keys, bad values, duplicate keys, unknown or repeated sections,
 * missing sections and lines too long for inih are errors reported as
 * FILE:LINE: message; nothing runs on an invalid config.  Host and workload
 * names follow the name rule (sio_name_ok); a workload name is at most
 * CFG_WL_NAME_MAX bytes, as inih keeps section names of 49 bytes.
 */
#ifndef IPIBENCH_CONFIG_H
#define IPIBENCH_CONFIG_H

#include <stddef.h>

#include <jansson.h>

#include "runner/wlspec.h"

#define CFG_MAX_MODES 3
#define CFG_MAX_WORKLOADS 32
#define CFG_MAX_SWEEP 16
/* inih (ini.c's MAX_SECTION) keeps 49 bytes of a section name; longer
 * [workload:NAME] headers are refused rather than cut. */
#define CFG_SECTION_MAX 49
#define CFG_WL_NAME_MAX (CFG_SECTION_MAX - 9)

enum cfg_order { ORDER_INTERLEAVED, ORDER_RANDOMIZED, ORDER_BLOCKED };

struct cfg_workload {
	char name[64];
	const struct wl_type *type;
	json_t *params;              /* checked, defaults filled in */
};

struct config {
	struct {
		char backend[16];
		unsigned int cpus, maxcpus, memory, dom0_memory, timeout, disk_mb;
		char cmdline[512];
		char name[64];
		char tcg[8];             /* TCG threading: multi (default) | single */
		int test_device;         /* qemu: attach QEMU_TEST_DEVICE (default 1) */
	} host;
	struct {
		char modes[CFG_MAX_MODES][16];
		unsigned int nmodes;
		unsigned int repetitions;
		enum cfg_order order;
		unsigned int seed;
		unsigned int cpus[CFG_MAX_SWEEP];   /* sweep; empty: host.cpus */
		unsigned int ncpus;
	} matrix;
	struct cfg_workload wl[CFG_MAX_WORKLOADS];
	unsigned int nwl;
	json_t *sections;            /* the config as {section: {key: value}} */
	char *text;                  /* the config as read (DIR/config.ini) */
	size_t textlen;
};

/* Parse FILE (a regular file of at most SIO_MAX_CONFIG bytes); 0, or -1
 * with "FILE:LINE: message" (or "FILE: message") in err. */
int config_load(const char *file, struct config *c, char *err, size_t errlen);
/* The same from a string (name is used in messages). */
int config_load_string(const char *name, const char *text, struct config *c,
		       char *err, size_t errlen);
void config_free(struct config *c);
/* The agent's job for boot number RUN (0-based position in results.json):
 * the workloads and their params; a paired-sender workload without its own
 * seed gets one drawn from [matrix] seed and RUN. */
json_t *config_job(const struct config *c, size_t run);
const char *cfg_order_name(enum cfg_order o);

#endif
