/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A hypervisor build: what `make hv` left in build/xen-4.17/,
 * build/xen-4.20/ or build/xen-src-ID/ (scripts/hv.sh), named in a config's
 * `[matrix] xen = ...`, `ipibench run --xen` or `ipibench boot --xen` by a
 * version name (4.17: build/xen-4.17/xen), a build's label (src-ID:
 * build/xen-src-ID/xen) or a path (the xen binary or its folder).  Its build-info gives the version, where the source came from
 * and the series hash; the version decides which x2APIC modes exist.
 */
#ifndef IPIBENCH_XENBUILD_H
#define IPIBENCH_XENBUILD_H

#include <stddef.h>

#define XB_PATH_MAX 4096

struct xen_build {
	char spec[256];          /* as given ("" for the default build) */
	char label[64];          /* short name: the version name, or the folder's
	                          * without xen- (a name by safeio's rule) */
	char path[XB_PATH_MAX];  /* the xen binary */
	char version[64];        /* build-info XEN_VERSION ("" when unknown) */
	char source[160];        /* XEN_SOURCE: debian:V, git:DESCRIBE, tree:V */
	char series[32], series_hash[32];
	char fixes[128];         /* FIXES: hv-patch/upstream's fixes built in,
	                          * comma-separated, or none ("" when unknown) */
	unsigned int major, minor;   /* 0.0 when unknown */
};

/*
 * "4.17.5", "4.17.5+72-g01140da4e8-1", "4.20", "4.23-unstable" -> major,
 * minor; 0, or -1 when S does not start with MAJOR.MINOR.
 */
int xen_version_parse(const char *s, unsigned int *major, unsigned int *minor);

/*
 * 1 when Xen MAJOR.MINOR has x2APIC mode MODE (0.0, unknown: every mode).
 * Pure cluster mode is gone since 4.20 (upstream 9b0d2465c8:
 * x2apic-mode=cluster boots mixed).
 */
int xen_has_mode(unsigned int major, unsigned int minor, const char *mode);
/* The modes of Xen MAJOR.MINOR, "physical, mixed", in BUF. */
const char *xen_modes_text(unsigned int major, unsigned int minor, char *buf, size_t len);

/*
 * Resolve SPEC (NULL or "": the default build, BUILD/xen/xen) and read its
 * build-info.  A build that is not there is refused (0, or -1 with a
 * one-line reason in err naming the make command that builds it; the
 * caller names SPEC); a binary without build-info is a build of unknown
 * version.
 */
int xen_build_resolve(const char *spec, struct xen_build *b, char *err, size_t errlen);

/*
 * 0 when build B has MODE, else -1 with "Xen V (PATH) has no MODE mode
 * (removed in 4.20); its modes are ..." in err.
 */
int xen_build_mode_check(const struct xen_build *b, const char *mode, char *err, size_t errlen);

#endif
