/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sysctl interface version probe (probes/sysctliface.c) against fake hypervisors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probes/sysctliface.h"

/* struct xen_sysctl's head, as the probe reads it. */
struct fake_sysctl {
	uint32_t cmd, interface_version;
	uint8_t u[128];
};

/* A hypervisor that accepts one version (0: none, as under an XSM denial)
 * and then fails with `then` (0: success). */
struct fake_hv {
	uint32_t accepts;
	int then;
	unsigned int calls;
	uint32_t seen[4];
};

static int fake_call(void *arg, void *buf)
{
	struct fake_hv *hv = arg;
	struct fake_sysctl *s = buf;

	if (hv->calls < 4)
		hv->seen[hv->calls] = s->interface_version;
	hv->calls++;
	if (s->interface_version != hv->accepts) {
		errno = EACCES;
		return -1;
	}
	if (hv->then) {
		errno = hv->then;
		return -1;
	}
	s->u[0] = 0x5a;  /* an answer */
	return 0;
}

static const uint32_t cmds[] = { 1, 3 };

static struct sysctl_iface fresh(void)
{
	struct sysctl_iface st = { 0, cmds, 2 };
	return st;
}

static struct fake_sysctl req(uint32_t cmd)
{
	struct fake_sysctl s;

	memset(&s, 0, sizeof(s));
	s.cmd = cmd;
	s.interface_version = SYSCTL_IFACE_XEN417;  /* what Debian 12's libxenctrl writes */
	return s;
}

/* Xen 4.17-4.20: the first try gets through, nothing is rewritten. */
static void test_xen417(void **state)
{
	struct sysctl_iface st = fresh();
	struct fake_hv hv = { SYSCTL_IFACE_XEN417, 0, 0, { 0 } };
	struct fake_sysctl s = req(3);

	(void)state;
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), 0);
	assert_int_equal(hv.calls, 1);
	assert_int_equal(st.version, SYSCTL_IFACE_XEN417);
	assert_int_equal(s.u[0], 0x5a);
}

/* Staging: refused with 0x15, retried with 0x16, which then sticks. */
static void test_staging(void **state)
{
	struct sysctl_iface st = fresh();
	struct fake_hv hv = { SYSCTL_IFACE_XEN421, 0, 0, { 0 } };
	struct fake_sysctl s = req(3), t = req(1);

	(void)state;
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), 0);
	assert_int_equal(hv.calls, 2);
	assert_int_equal(hv.seen[0], SYSCTL_IFACE_XEN417);
	assert_int_equal(hv.seen[1], SYSCTL_IFACE_XEN421);
	assert_int_equal(st.version, SYSCTL_IFACE_XEN421);
	assert_int_equal(s.u[0], 0x5a);
	/* The next sysctl goes straight out with the version found. */
	assert_int_equal(sysctl_iface_call(&st, &t, fake_call, &hv), 0);
	assert_int_equal(hv.calls, 3);
	assert_int_equal(hv.seen[2], SYSCTL_IFACE_XEN421);
}

/* A sysctl not on the list keeps its caller's version and is not retried,
 * even once the hypervisor's version is known: its layout may differ. */
static void test_unlisted(void **state)
{
	struct sysctl_iface st = fresh();
	struct fake_hv hv = { SYSCTL_IFACE_XEN421, 0, 0, { 0 } };
	struct fake_sysctl s = req(7);

	(void)state;
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(hv.calls, 1);
	assert_int_equal(st.version, 0);
	st.version = SYSCTL_IFACE_XEN421;
	s = req(7);
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), -1);
	assert_int_equal(hv.seen[1], SYSCTL_IFACE_XEN417);
}

/* Refused under every version (an XSM denial): the caller's own error,
 * its own version back in the buffer, nothing learnt. */
static void test_refused(void **state)
{
	struct sysctl_iface st = fresh();
	struct fake_hv hv = { 0, 0, 0, { 0 } };
	struct fake_sysctl s = req(1);

	(void)state;
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(hv.calls, 2);
	assert_int_equal(s.interface_version, SYSCTL_IFACE_XEN417);
	assert_int_equal(st.version, 0);
}

/* Another error than EACCES means the version was right: kept, no retry. */
static void test_other_error(void **state)
{
	struct sysctl_iface st = fresh();
	struct fake_hv hv = { SYSCTL_IFACE_XEN417, EINVAL, 0, { 0 } };
	struct fake_sysctl s = req(1);

	(void)state;
	assert_int_equal(sysctl_iface_call(&st, &s, fake_call, &hv), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(hv.calls, 1);
	assert_int_equal(st.version, SYSCTL_IFACE_XEN417);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xen417),
		cmocka_unit_test(test_staging),
		cmocka_unit_test(test_unlisted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_other_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
