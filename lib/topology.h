/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CPU topology and x2APIC layout arithmetic, with no I/O: the one home of
 *  - how QEMU numbers APIC IDs for -smp sockets=S,dies=D,cores=C,threads=T
 *    (QEMU's include/hw/i386/topology.h: each level gets ceil(log2(count))
 *    bits of the ID, thread | core | die | socket from low to high, so a
 *    count that is not a power of two leaves IDs no CPU has);
 *  - which of those CPUs are present (QEMU: the first N CPU indexes of
 *    -smp N,...; the rest are hotplug slots Xen counts as disabled) and
 *    how Xen numbers them (MADT order: CPU n is the n-th present index);
 *  - the x2APIC logical ID Xen's cluster and mixed drivers derive from an
 *    x2APIC ID (cluster = id >> 4, logical bit = id & 15);
 *  - how many ICR writes a send to a CPU mask costs through each route:
 *    physical (one per destination), cluster (one per cluster reached;
 *    mixed mode's IPIs take this route too) or the APIC ALLBUT shorthand
 *    (one, when Xen may use it and the mask is every online CPU but self).
 * Used by the runner (QEMU's -smp, the check of measured ICR writes after
 * each run) and the report (the layout, expected against measured).
 */
#ifndef IPIBENCH_TOPOLOGY_H
#define IPIBENCH_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most CPU slots a topology or layout may have (the config's cpus limit). */
#define TOPO_MAX_CPUS 4096
/* Logical IDs per x2APIC cluster. */
#define X2APIC_CLUSTER_SIZE 16
/*
 * The largest x2APIC ID a layout may hold: a topology of TOPO_MAX_CPUS
 * slots, each of its 4 levels rounded up to a power of two (less than
 * double), stays below 16 * 4096; IDs a hypervisor reports are refused
 * above it.  Its clusters fit a struct cpuset.
 */
#define X2APIC_ID_MAX 65535u
#define X2APIC_CLUSTERS ((X2APIC_ID_MAX + 1) / X2APIC_CLUSTER_SIZE)

struct topo {
	unsigned int sockets, dies, cores, threads;   /* each >= 1 */
};

/*
 * "sockets=S,dies=D,cores=C,threads=T": keys in any order, each at most
 * once, a missing one is 1, at least one given, each count 1..TOPO_MAX_CPUS
 * and their product at most TOPO_MAX_CPUS.  0, or -1 with a message.
 */
int topo_parse(const char *s, struct topo *t, char *err, size_t errlen);
/* The canonical text, "sockets=2,dies=1,cores=24,threads=2". */
void topo_format(const struct topo *t, char *buf, size_t len);
/* CPU slots (present + hotplug): the product of the counts. */
unsigned int topo_slots(const struct topo *t);
/* Bits QEMU gives a level of COUNT (>= 1) entries: ceil(log2(count)). */
unsigned int topo_width(unsigned int count);
/* The APIC ID QEMU gives CPU index IDX (< topo_slots()). */
uint32_t topo_apic_id(const struct topo *t, unsigned int idx);

/* Named machines ([host] profile, boot --profile): one table, topology.c. */
struct topo_profile {
	const char *name;
	struct topo topo;
	unsigned int cpus;      /* CPUs present at boot (<= slots) */
	const char *about;      /* what machine it models, for --help and docs */
};
/* NULL-terminated (name NULL). */
extern const struct topo_profile topo_profiles[];
const struct topo_profile *topo_profile_find(const char *name);
/* "ice-lake-96, ..." for messages. */
const char *topo_profile_names(char *buf, size_t len);

/* x2APIC cluster and logical ID (the LDR's low 16 bits: one bit) of an ID. */
static inline uint32_t x2apic_cluster(uint32_t apic_id)
{
	return apic_id >> 4;
}
static inline uint32_t x2apic_logical_id(uint32_t apic_id)
{
	return 1u << (apic_id & 15);
}

/* The CPUs Xen numbers 0..ncpus-1 with their x2APIC IDs, and the slots. */
struct layout {
	unsigned int ncpus;               /* present CPUs (Xen's online CPUs) */
	unsigned int nslots;              /* with the hotplug slots */
	uint32_t apic_id[TOPO_MAX_CPUS];  /* [0, nslots): present ones first */
};

/* The layout of T with CPUS (1..slots) present.  0, or -1 with a message. */
int layout_from_topo(struct layout *l, const struct topo *t, unsigned int cpus,
		     char *err, size_t errlen);
/* QEMU's default topology (-smp CPUS,maxcpus=MAXCPUS): dense IDs 0.. */
int layout_dense(struct layout *l, unsigned int cpus, unsigned int maxcpus,
		 char *err, size_t errlen);
/*
 * A layout from the IDs a hypervisor reported for CPUs 0..n-1 (all present,
 * no slots known): IDs distinct, at most X2APIC_ID_MAX.  0, or -1 with a
 * message.
 */
int layout_from_ids(struct layout *l, const uint32_t *ids, unsigned int n,
		    char *err, size_t errlen);

struct layout_summary {
	unsigned int cpus, slots;
	uint32_t max_apic_id;             /* of the slots, present or not */
	unsigned int clusters;            /* clusters with a present CPU */
	unsigned int per_cluster_min, per_cluster_max;
	/* IDs 0..max_apic_id no present CPU has ... */
	unsigned int holes;
	/* ... of which hotplug slots have (the rest: no CPU can have them) */
	unsigned int hotplug_holes;
	/* logical IDs free in the clusters in use (clusters * 16 - cpus) */
	unsigned int cluster_holes;
};
void layout_summarize(const struct layout *l, struct layout_summary *s);
/*
 * One line for people: "2 clusters in use (0: 10 CPUs, 1: 4); IDs 0-20,
 * holes 5-7,13-15 (no CPU), 20 (hotplug)".  Runs of clusters with the same
 * count are folded ("0-31: 16 CPUs each").
 */
void layout_describe(const struct layout *l, char *buf, size_t len);

/* ---- CPU masks (the workloads' mask param) and ICR writes ------------ */

/* A set of Xen CPU numbers. */
struct cpuset {
	uint64_t w[TOPO_MAX_CPUS / 64];
};
static inline void cpuset_set(struct cpuset *s, unsigned int cpu)
{
	s->w[cpu / 64] |= 1ULL << (cpu % 64);
}
static inline bool cpuset_has(const struct cpuset *s, unsigned int cpu)
{
	return s->w[cpu / 64] >> (cpu % 64) & 1;
}
/*
 * The workload mask syntax: "all", "all-but-self" (every present CPU but
 * SELF), or a list "1,17,33" / "0-7,9" of CPUs below l->ncpus.  0, or -1
 * with a message.
 */
int cpuset_parse(const char *s, const struct layout *l, unsigned int self,
		 struct cpuset *out, char *err, size_t errlen);

enum icr_route {
	ICR_PHYSICAL,    /* x2APIC physical: a write per destination */
	ICR_CLUSTER,     /* x2APIC cluster logical: a write per cluster reached */
	ICR_SHORTHAND,   /* the APIC ALLBUT shorthand: one write */
};
const char *icr_route_name(enum icr_route r);

/*
 * The route a send_IPI_mask() from SELF to DEST takes in MODE (physical,
 * cluster or mixed) with send routine SENDER (genapic: the mode's own;
 * physical or cluster: that routine, never the shorthand), as Xen's
 * send_IPI_mask() chooses: the shorthand when SHORTHAND_OK (the workload
 * allows it and the hypervisor says it is eligible: no disabled CPUs ...)
 * and DEST plus SELF is every present CPU.  -1 for an unknown mode or sender.
 */
int icr_route_for(const struct layout *l, const char *mode, const char *sender,
		  bool shorthand_ok, unsigned int self, const struct cpuset *dest);
/*
 * ICR writes of one send from SELF to DEST by ROUTE: physical, the
 * destinations but SELF; cluster, the clusters of those; shorthand, 1 (0
 * when there is no destination but SELF, for every route).
 */
unsigned int icr_writes(const struct layout *l, enum icr_route route,
			unsigned int self, const struct cpuset *dest);

#endif
