/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every sysctl the agent makes goes out with the hypervisor's interface
 * version: see probes/sysctliface.h. */
#ifndef IPIBENCH_SYSCTL_WRAP_H
#define IPIBENCH_SYSCTL_WRAP_H

#include <stdint.h>

/* The version the hypervisor took (0 before the first sysctl got through). */
uint32_t agent_sysctl_version(void);

#endif
