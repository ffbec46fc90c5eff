/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Benchmark configs (INI, parsed with inih):
 *   [host]            backend, the keys of every backend (cpus, maxcpus,
 *                     timeout, name: host_common_settings[]) and those of
 *                     the chosen backend's table (runner/backends/NAME.c;
 *                     `ipibench run --list` shows them)
 *   [matrix]          modes (default: every mode of the build), repetitions,
 *                     order, seed, cpus (a sweep: one result set per CPU
 *                     count, in DIR/cN/), xen (builds: version names or
 *                     paths, runner/xenbuild.h; one result set per build
 *                     in DIR/xen-LABEL/ when there are several)
 *   [workload:NAME]   type = <workload type>, then that type's parameters
 *   [guest]           optional: the guest the workloads are to run in
 *                     (docs/guests.md; on the local backend): type
 *                     (pvh | hvm), vcpus, memory (MiB), cmdline (the guest
 *                     kernel's extra arguments), ipi_path (evtchn | apic:
 *                     the ipbipi workload's IPIs, guest/init),
 *                     paging (shadow | hap), kernel, ramdisk, trace_mask,
 *                     trace_secs, timeout, and for hvm: nic (the emulated
 *                     NIC's model: e1000e), nic_address, msi_path (pirq |
 *                     apic: xen_nopv, a list), dom0_address, ping_secs,
 *                     ab_secs (config.c's guest_keys[], `run --list`);
 *                     config_guest_xl() renders it; runner/guest.h runs
 *                     the guests (ipi_path may list both paths: one guest
 *                     run each; with a NIC, msi_path's paths); no
 *                     [workload:NAME] needed then
 * Unknown keys, bad values, duplicate keys, unknown or repeated sections,
 * missing sections and lines too long for inih are errors reported as
 * FILE:LINE: message; nothing runs on an invalid config.  Host and workload
 * names follow the name rule (sio_name_ok); a workload name is at most
 * CFG_WL_NAME_MAX bytes, as inih keeps section names of 49 bytes.
 */
#ifndef IPIBENCH_CONFIG_H
#define IPIBENCH_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "runner/backend.h"
#include "workloads/workloads.h"
#include "runner/xenbuild.h"

#define CFG_MAX_MODES 3
#define CFG_MAX_WORKLOADS 32
#define CFG_MAX_SWEEP 16
#define CFG_MAX_XEN 4
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

/* [guest] (all defaults when the section is absent; given says whether it was). */
#define CFG_GUEST_CMDLINE_MAX 160
#define CFG_GUEST_VCPUS_MAX 128      /* Xen's HVM_MAX_VCPUS */
#define CFG_GUEST_MEMORY_MIN 64      /* MiB */
#define CFG_GUEST_MEMORY_MAX 65536
#define CFG_GUEST_VCPUS_DEFAULT 2
#define CFG_GUEST_MEMORY_DEFAULT 256
enum cfg_ipi_path { IPI_PATH_EVTCHN, IPI_PATH_APIC };
enum cfg_guest_type { GUEST_PVH, GUEST_HVM };
/* An HVM guest's MSIs (and all of Xen's paths in it): pirq, Linux's own
 * choice on Xen HVM without APIC virtualization (event channels, Xen's
 * upcall vector); apic, xen_nopv (the emulated local APIC delivers the
 * MSI's vector). */
enum cfg_msi_path { MSI_PATH_PIRQ, MSI_PATH_APIC };
/* The dom0 bridge an HVM guest's emulated NIC is put on (runner/guest.c
 * makes it when it is not there, and removes what it made), dom0's address
 * on it and the guest's (guest/init's ipb.nic=ADDR), both /PREFIX. */
#define CFG_GUEST_BRIDGE "xenbr0"
#define CFG_GUEST_NIC_PREFIX 24
#define CFG_GUEST_NIC_ADDRESS_DEFAULT "10.0.0.2"
#define CFG_GUEST_DOM0_ADDRESS_DEFAULT "10.0.0.1"
/* The NIC load's defaults (those of the shell script it replaces): ping -f -w, ab -t. */
#define CFG_GUEST_PING_SECS_DEFAULT 60
#define CFG_GUEST_AB_SECS_DEFAULT 10
/* At least the number of [guest] keys (config.c's guest_keys[]). */
#define CFG_GUEST_KEYS_MAX 24
struct cfg_guest {
	int given;
	enum cfg_guest_type type;    /* default pvh */
	const char *nic;             /* the emulated NIC's model (hvm); NULL: none */
	char nic_address[16];        /* dotted IPv4; default CFG_GUEST_NIC_ADDRESS_DEFAULT */
	char dom0_address[16];       /* dom0's on the bridge; default the first of the /24
				      * (CFG_GUEST_DOM0_ADDRESS_DEFAULT for the default guest's) */
	enum cfg_msi_path msi_path;  /* default pirq */
	/* msi_path = pirq, apic: with a NIC one guest run per path, in order
	 * (msi_path above is the first; the runner sets it per run). */
	enum cfg_msi_path msi_paths[2];
	unsigned int nmsi;
	unsigned int ping_secs;      /* ping -f -w: the NIC load through the recordings */
	unsigned int ab_secs;        /* ab -t after them */
	unsigned int vcpus;          /* 1..CFG_GUEST_VCPUS_MAX */
	unsigned int memory;         /* MiB */
	char cmdline[CFG_GUEST_CMDLINE_MAX + 1];   /* default empty */
	enum cfg_ipi_path ipi_path;  /* default evtchn */
	int hap;                     /* paging = hap: 1; shadow (default): 0 */
	int hap_line;                /* the line of paging = hap (its refusal names it) */
	/* ipi_path = evtchn, apic: one guest run per path, in order (ipi_path
	 * above is the first; the runner sets it per run). */
	enum cfg_ipi_path paths[2];
	unsigned int npaths;
	/* The guest kernel and initramfs (paths on the Xen host; relative to
	 * where ipibench runs). */
	char kernel[256], ramdisk[256];
	unsigned long trace_mask;    /* xentrace -e of the HVM recording */
	unsigned int trace_secs;     /* xentrace -T of each recording */
	unsigned int timeout;        /* seconds from xl create to the workload's end */
};
#define CFG_GUEST_KERNEL_DEFAULT "build/guest/vmlinux"
#define CFG_GUEST_RAMDISK_DEFAULT "build/guest/initrd.gz"
#define CFG_GUEST_TRACE_MASK_DEFAULT 0x0008ffff   /* the seed's: TRC_HVM */
/* The scheduler class: runstate changes name domain and vCPU per pCPU. */
#define CFG_GUEST_SCHED_MASK 0x000affff
#define CFG_GUEST_TRACE_SECS_DEFAULT 5
#define CFG_GUEST_TIMEOUT_DEFAULT 900

struct config {
	struct host_config host;     /* settings: the backend's, freed by config_free() */
	struct cfg_guest guest;
	struct {
		char modes[CFG_MAX_MODES][16];
		unsigned int nmodes;
		unsigned int repetitions;
		enum cfg_order order;
		unsigned int seed;
		unsigned int cpus[CFG_MAX_SWEEP];   /* sweep; empty: host.cpus */
		unsigned int ncpus;
		int modes_given;             /* 0: each build's own modes */
		/* The hypervisor builds (at least one: the default build). */
		struct xen_build xen[CFG_MAX_XEN];
		unsigned int nxen;
		const struct xen_build *build;   /* the one being run (config_use_build()) */
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
/*
 * Replace the config's builds with SPEC (`ipibench run --xen`), checking
 * the modes it names against it; 0, or -1 with "--xen SPEC: ..." in err.
 */
int config_set_xen(struct config *c, const char *spec, char *err, size_t errlen);
/* Run build I next: matrix.build, and matrix.modes its modes when the
 * config names none. */
void config_use_build(struct config *c, unsigned int i);
/* The agent's job for boot number RUN (0-based position in results.json):
 * the workloads and their params; a paired-sender workload without its own
 * seed gets one drawn from [matrix] seed and RUN. */
json_t *config_job(const struct config *c, size_t run);
const char *cfg_order_name(enum cfg_order o);
const char *cfg_ipi_path_name(enum cfg_ipi_path p);
const char *cfg_guest_type_name(enum cfg_guest_type t);
const char *cfg_msi_path_name(enum cfg_msi_path p);
/* The guest's IPI path on MSI path P (pirq: evtchn; apic: apic). */
enum cfg_ipi_path cfg_msi_path_ipi(enum cfg_msi_path p);
/*
 * The xl domain config of [guest] for a guest named NAME booting KERNEL
 * with RAMDISK (the paths on the host; for hvm KERNEL is a bzImage the
 * device model loads, console on the emulated serial port): into buf
 * (LEN bytes); the bytes written, or -1 when they do not fit.
 */
int config_guest_xl(const struct cfg_guest *g, const char *name, const char *kernel,
		    const char *ramdisk, char *buf, size_t len);
/* `run --list`'s lines of [guest]'s keys (config.c's guest_keys[]). */
void config_guest_help(FILE *f);
/*
 * Every key a config may have, from the tables the parser reads it by
 * (lib/keys.h tables: [host]: host_common_settings[] and each backend's;
 * [matrix]: matrix_keys[]; [guest]: guest_keys[]; [workload:NAME]: each
 * workload type's params), for ipibench.ini(5) and docs/configs.md: FN(key, DATA)
 * for each, in order.  SCOPE says when the key applies (NULL: always).
 */
/* The [host], [matrix] and [guest] tables are complete (keys_verify()):
 * 0, or -1 with "[SECTION] KEY: reason". */
int config_tables_verify(char *err, size_t errlen);
struct cfg_key {
	const char *section, *scope, *key, *type, *range, *def, *help;
};
void config_keys(void (*fn)(const struct cfg_key *k, void *data), void *data);
/* ipibench.ini(5) (FMT OPTS_FMT_MAN) or docs/configs.md (OPTS_FMT_MD) of
 * config_keys() on F (runner/config_doc.c); 0, or 1 on a write error. */
int config_doc(FILE *f, int fmt);
/* Whether a guest of G's type is held after its workload (ipb.hold) and
 * its run ends by xl destroy rather than by its power-off. */
int cfg_guest_held(const struct cfg_guest *g);
/* Whether G's runs are its NIC load's, one per msi_path (type = hvm, nic). */
int cfg_guest_nic_runs(const struct cfg_guest *g);

#endif
