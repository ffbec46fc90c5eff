/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runner/tests/hostcfg.h: load a config made of a [host] section and the
 * including test's own HOSTCFG_REST (its [matrix] and workloads), for the
 * tests of the backends' [host] keys.  Include after cmocka.h.
 */
#ifndef IPIBENCH_TESTS_HOSTCFG_H
#define IPIBENCH_TESTS_HOSTCFG_H

#include <stdio.h>
#include <string.h>

#include "runner/backends/qemu.h"
#include "runner/config.h"

/* The qemu backend's settings of a loaded config. */
#define QS(c) ((const struct qemu_settings *)(c)->host.settings)

/* Load "[host]\n" HOST HOSTCFG_REST; 0 or -1 with the error in err. */
static inline int load_host(const char *host, struct config *c, char *err, size_t len)
{
	char text[512];

	snprintf(text, sizeof(text), "[host]\n%s%s", host, HOSTCFG_REST);
	err[0] = '\0';
	return config_load_string("t.ini", text, c, err, len);
}

/* HOST is refused with exactly MSG. */
static inline void expect_error(const char *host, const char *msg)
{
	struct config c;
	char err[256];

	assert_int_equal(load_host(host, &c, err, sizeof(err)), -1);
	if (strcmp(err, msg))
		fail_msg("expected '%s', got '%s'", msg, err);
}

#endif
