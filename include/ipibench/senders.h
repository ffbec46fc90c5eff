/* SPDX-License-Identifier: MIT */
/*
 * The x2APIC send routines a workload can choose (`sender`, `senders`):
 * their names, indexed by XEN_SYSCTL_IPIBENCH_SENDER_* (abi.h): genapic 0,
 * physical 1, cluster 2.  The one home of these names for the runner's
 * config check, the agent and the report.
 */
#ifndef IPIBENCH_SENDERS_H
#define IPIBENCH_SENDERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* NULL-terminated, in XEN_SYSCTL_IPIBENCH_SENDER_* order. */
static inline const char *const *ipibench_sender_names(void)
{
	static const char *const names[] = { "genapic", "physical", "cluster", NULL };

	return names;
}

/* The index (XEN_SYSCTL_IPIBENCH_SENDER_*) of the LEN bytes at S, or -1. */
static inline int ipibench_sender_index(const char *s, size_t len)
{
	const char *const *n = ipibench_sender_names();

	for (int i = 0; s && n[i]; i++)
		if (strlen(n[i]) == len && !strncmp(s, n[i], len))
			return i;
	return -1;
}

/*
 * splitmix64 of (HI << 32 | LO): the draws of paired senders, the runner's
 * per-boot seed (HI the [matrix] seed, LO the run) and the agent's order
 * within a pair (HI the seed, LO the pair: bit 0 set puts B first).
 */
static inline uint64_t ipibench_pair_mix(uint32_t hi, uint32_t lo)
{
	uint64_t z = ((uint64_t)hi << 32 | lo) + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
