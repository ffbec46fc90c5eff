# SPDX-License-Identifier: GPL-3.0-or-later
# workloads/: what a workload is, shared by the host command and the agent:
# each workload's declaration (NAME.c: type, help, params with their
# ranges and defaults, what one call sends), the registry built from
# list.h, the params' checks (wlspec.c) and the check of a run's ICR
# writes against the layout (check.c).  No Xen code: the agent's run
# functions are agent/workloads/NAME_run.c.
workloads_SRCS := $(wildcard workloads/*.c)
workloads_TESTS := $(wildcard workloads/tests/test_*.c)
workloads_LIBS := -ljansson
# printf-like calls are checked, and no format string is built at run time.
workloads_CFLAGS += -Wformat=2
