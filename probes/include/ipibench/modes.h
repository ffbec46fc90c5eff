/*
 * Xen's x2APIC destination modes (x2apic-mode=) and the genapic driver the
 * hypervisor names for each: the contract every part checks runs against.
 */
#ifndef IPIBENCH_MODES_H
#define IPIBENCH_MODES_H

#include <stddef.h>
#include <string.h>

/* The i-th mode and its driver, in the order reports show them (physical,
 * cluster, mixed); NULL past the last.  entry[0] is the mode, entry[1] its
 * genapic. */
static inline const char *const *ipibench_mode_entry(size_t i)
{
	static const char *const map[][2] = {
		{ "physical", "x2apic_phys" },
		{ "cluster", "x2apic_cluster" },
		{ "mixed", "x2apic_mixed" },
	};

	return i < sizeof(map) / sizeof(map[0]) ? map[i] : NULL;
}

/* The i-th mode's name, NULL past the last (to list or rank them). */
static inline const char *ipibench_mode_name(size_t i)
{
	const char *const *e = ipibench_mode_entry(i);

	return e ? e[0] : NULL;
}

/* physical -> x2apic_phys, cluster -> x2apic_cluster, mixed -> x2apic_mixed. */
static inline const char *ipibench_mode_genapic(const char *mode)
{
	const char *const *e;

	for (size_t i = 0; (e = ipibench_mode_entry(i)); i++)
		if (!strcmp(mode, e[0]))
			return e[1];
	return NULL;
}

#endif
