/*
 * Xen's x2APIC destination modes (x2apic-mode=) and the genapic driver the
 * hypervisor names for each: the contract every part checks runs against.
 */
#ifndef IPIBENCH_MODES_H
#define IPIBENCH_MODES_H

#include <string.h>

/* physical -> x2apic_phys, cluster -> x2apic_cluster, mixed -> x2apic_mixed. */
static inline const char *ipibench_mode_genapic(const char *mode)
{
	static const char *const map[][2] = {
		{ "physical", "x2apic_phys" },
		{ "cluster", "x2apic_cluster" },
		{ "mixed", "x2apic_mixed" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(mode, map[i][0]))
			return map[i][1];
	return NULL;
}

#endif
