# SPDX-License-Identifier: GPL-3.0-or-later
# agent/: the dom0 agent (build/bin/ipibench-agent, static; runs inside the
# Xen host): the hypercall table it reaches the series through
# (hvcall.h), the chunk loop (hvbench.c), each workload's run function
# (workloads/NAME_run.c), the host facts it records (agent_info.c, with
# the pure parts in hoststate.c) and its JSON.  It links the workloads'
# declarations and their params' checks, not the layout check
# (workloads/check.c: the runner's and analysis').  Every sysctl goes
# through probes/sysctl_wrap.c (the hypervisor's interface version),
# linked as an object: only libxenctrl refers to __wrap_xencall1, after
# the archives are read.  Not a library of the ipibench command.
agent_SRCS := probes/sysctliface.c probes/sysctl_wrap.c \
	$(filter-out workloads/check.c,$(wildcard workloads/*.c)) \
	$(wildcard agent/*.c agent/workloads/*.c)
agent_TESTS := $(wildcard agent/tests/test_*.c)
agent_LIBS := -Wl,--wrap=xencall1 -Wl,--start-group -lxenctrl -lxencall -lxenforeignmemory -lxendevicemodel \
	-lxenevtchn -lxengnttab -lxentoollog -lxentoolcore -ljansson -Wl,--end-group -lpthread
gnu11_SRCS += $(filter agent/%,$(agent_SRCS))
# The unit tests link the sources they test as objects: test_hvbench
# hvbench.c (not libxencall) against a fake hypervisor behind the
# hypercall table (agent/hvcall.h), GNU C for Xen's public headers as the
# agent; test_hoststate the pure parts of the host facts.
$(BUILD)/asan/agent/tests/test_hvbench: $(BUILD)/asan/agent/hvbench.o
gnu11_SRCS += agent/tests/test_hvbench.c
$(BUILD)/asan/agent/tests/test_hoststate: $(BUILD)/asan/agent/hoststate.o
