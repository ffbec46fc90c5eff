/* SPDX-License-Identifier: MIT */
/*
 * Xen's x2APIC destination modes (x2apic-mode=) and the genapic driver the
 * hypervisor names for each: the contract every part checks runs against.
 */
#ifndef IPIBENCH_MODES_H
#define IPIBENCH_MODES_H

#include <stddef.h>
#include <string.h>

/* How many modes the table below has (for arrays indexed by mode; checked
 * against the table at compile time). */
#define IPIBENCH_NMODES 3

/* The modes' positions in the table below, for code that must treat one
 * mode apart (a generator's ICR writes, say); reports iterate instead. */
enum ipibench_mode { IPIBENCH_PHYSICAL, IPIBENCH_CLUSTER, IPIBENCH_MIXED };

/* The mode ipibench boots when none is asked for: Xen's own default
 * (CONFIG_X2APIC_MIXED). */
#define IPIBENCH_MODE_DEFAULT IPIBENCH_MIXED

/* Mode I's name (COL 0) or genapic (COL 1), in the order messages list
 * them: physical, cluster, mixed; NULL past the last. */
static inline const char *ipibench_mode_entry(size_t i, int col)
{
	static const char *const map[][2] = {
		[IPIBENCH_PHYSICAL] = { "physical", "x2apic_phys" },
		[IPIBENCH_CLUSTER] = { "cluster", "x2apic_cluster" },
		[IPIBENCH_MIXED] = { "mixed", "x2apic_mixed" },
	};
	_Static_assert(sizeof(map) / sizeof(map[0]) == IPIBENCH_NMODES,
		       "IPIBENCH_NMODES is the number of rows of the mode table");

	return i < sizeof(map) / sizeof(map[0]) ? map[i][col ? 1 : 0] : NULL;
}

/* Mode I's name (for listing them); NULL past the last. */
static inline const char *ipibench_mode_name(size_t i)
{
	return ipibench_mode_entry(i, 0);
}

/* The position of mode in the table (0 for physical), IPIBENCH_NMODES for
 * a name that is no mode: the order reports sort modes in, others last.
 * Iterate the modes with
 *     for (size_t i = 0; i < IPIBENCH_NMODES; i++) ... ipibench_mode_name(i) */
static inline size_t ipibench_mode_index(const char *mode)
{
	const char *m;
	size_t i;

	for (i = 0; (m = ipibench_mode_name(i)); i++)
		if (!strcmp(mode, m))
			return i;
	return i;
}

/* physical -> x2apic_phys, cluster -> x2apic_cluster, mixed -> x2apic_mixed;
 * NULL for anything else (NULL included). */
static inline const char *ipibench_mode_genapic(const char *mode)
{
	for (size_t i = 0; mode && ipibench_mode_entry(i, 0); i++)
		if (!strcmp(mode, ipibench_mode_entry(i, 0)))
			return ipibench_mode_entry(i, 1);
	return NULL;
}

#endif
