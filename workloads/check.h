/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The layout check of one run (results.json's run object, after the
 * agent): the x2APIC IDs the hypervisor reported (run.hv.cpus) against
 * those the topology implies, and the measured ICR writes per call of each
 * workload whose declaration says where a call sends (workloads.h's
 * wl_dest: the flushes, ipi_mask, pingpong) against those the layout
 * implies for the run's mode, sender, destinations and shorthand
 * (topology.h).  It records what it found in
 * the run (docs/results-schema.md, "layout"):
 *   run.layout            the layout: source, topology, cpus, clusters,
 *                         per-cluster counts, holes, describe
 *   workload.icr_check    {route, expected, measured, ok} per call; with
 *                         counters_by_sender, "by_sender": one per routine
 */
#ifndef IPIBENCH_WORKLOADS_CHECK_H
#define IPIBENCH_WORKLOADS_CHECK_H

#include <stddef.h>

#include <jansson.h>

#include "lib/topology.h"

/*
 * Check RUN and record the results in it.  EXPECT: the layout the host was
 * built with (its present CPUs must have the reported IDs, in order), or
 * NULL to take the hypervisor's IDs as they are; TOPOLOGY: its text for the
 * record (NULL: none).  0 when everything agrees; 1 on the first mismatch,
 * -1 when RUN lacks what a check needs (no query, bad IDs): both with one
 * line in msg.
 */
int layout_check_run(json_t *run, const struct layout *expect, const char *topology,
		     char *msg, size_t len);

#endif
