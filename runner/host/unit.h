/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench-resume.service, the systemd unit that resumes a matrix after each
 * reboot of a test host (runner/host/ipibench-resume.service is its text).
 */
#ifndef IPIBENCH_HOST_UNIT_H
#define IPIBENCH_HOST_UNIT_H

#include <stddef.h>

#define HOST_UNIT_NAME "ipibench-resume.service"

/* The ipibench-resume.service text for this ipibench binary and build dir. */
int host_unit_text(const char *ipibench, const char *build, char *buf, size_t len);

#endif
