# SPDX-License-Identifier: GPL-3.0-or-later
# runner/: the ipibench CLI, configs, host backends, results store; the agent.
# The workloads' declarations are a part of their own (workloads/); the
# agent's run functions (runner/agent/workloads/NAME_run.c) call Xen.
runner_SRCS := $(filter-out runner/main.c,$(wildcard runner/*.c runner/backends/*.c runner/host/*.c))
runner_TESTS := $(wildcard runner/tests/test_*.c)
runner_LIBS := -ljansson -linih
# printf-like calls are checked, and no format string is built at run time.
runner_CFLAGS += -Wformat=2

# The dom0 agent (static; runs inside the Xen host).
# The workloads' declarations and their params' checks, not the layout
# check (workloads/check.c: the runner's and analysis').
# Every sysctl goes through probes/sysctl_wrap.c (the hypervisor's interface
# version), linked as an object: only libxenctrl refers to __wrap_xencall1,
# after the archives are read.
agent_SRCS := runner/console.c runner/hoststate.c probes/sysctliface.c probes/sysctl_wrap.c \
	$(filter-out workloads/check.c,$(wildcard workloads/*.c)) \
	$(wildcard runner/agent/*.c runner/agent/workloads/*.c)
agent_LIBS := -Wl,--wrap=xencall1 -Wl,--start-group -lxenctrl -lxencall -lxenforeignmemory -lxendevicemodel \
	-lxenevtchn -lxengnttab -lxentoollog -lxentoolcore -ljansson -Wl,--end-group -lpthread
gnu11_SRCS += $(filter runner/agent/%,$(agent_SRCS))
# test_hvbench: hvbench.c (not libxencall) against a fake hypervisor
# behind the hypercall table (runner/agent/hvcall.h); GNU C for Xen's
# public headers, as the agent.
$(BUILD)/asan/runner/tests/test_hvbench: $(BUILD)/asan/runner/agent/hvbench.o
gnu11_SRCS += runner/tests/test_hvbench.c

# ---- fuzzing the config parser and the resume check (libFuzzer, clang) ---
# `make fuzz` / `make fuzz-smoke` run every $(FUZZ_BINS) from its
# FUZZ_CORPUS_<name>.  Each target links the runner's sources (config.c
# needs the backend registry and the workload table), the workloads,
# safeio, topology, opts and tcgplug/window.c (the plugin's window keys are
# checked there).  (clang
# warns about the { NULL } ends of wlspec.c's tables, which gcc accepts.)
# $(1): the target, runner/fuzz/$(1).c; $(2): its seed corpus.
define runner_fuzz
FUZZ_SRCS_$(1) := runner/fuzz/$(1).c $$(runner_SRCS) $$(wildcard workloads/*.c safeio/*.c topology/*.c opts/*.c) \
	tcgplug/window.c
$$(BUILD)/fuzz/$(1): $$(FUZZ_SRCS_$(1)) $$(wildcard runner/*.h runner/backends/*.h runner/host/*.h workloads/*.h safeio/*.h topology/*.h opts/*.h tcgplug/*.h)
	@mkdir -p $$(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Wno-missing-field-initializers \
		-Iprobes/include -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$$(FUZZ_SRCS_$(1)) -ljansson -linih -o $$@
FUZZ_BINS += $$(BUILD)/fuzz/$(1)
FUZZ_CORPUS_$(1) := $(2)
endef
# The config parser (config_load_string).
$(eval $(call runner_fuzz,fuzz_config,runner/fuzz/corpus))
# The check of results.json before a --resume (results_check).
$(eval $(call runner_fuzz,fuzz_resume,runner/fuzz/corpus-resume))
