# SPDX-License-Identifier: GPL-3.0-or-later
# runner/: the ipibench CLI, configs, host backends, results store.  The
# workloads' declarations are a part of their own (workloads/), and so is
# the dom0 agent that runs them (agent/).
runner_SRCS := $(wildcard runner/*.c runner/backends/*.c runner/host/*.c)
runner_TESTS := $(wildcard runner/tests/test_*.c)
runner_LIBS := -ljansson -linih
# printf-like calls are checked, and no format string is built at run time.
runner_CFLAGS += -Wformat=2

# ---- fuzzing the config parser and the resume check (libFuzzer, clang) ---
# `make fuzz` / `make fuzz-smoke` run every $(FUZZ_BINS) from its
# FUZZ_CORPUS_<name>.  Each target links the runner's sources (config.c
# needs the backend registry and the workload table), the workloads,
# lib/ and tcgplug/window.c (the plugin's window keys are
# checked there).  (clang
# warns about the { NULL } ends of wlspec.c's tables, which gcc accepts.)
# $(1): the target, runner/fuzz/$(1).c; $(2): its seed corpus.
define runner_fuzz
FUZZ_SRCS_$(1) := runner/fuzz/$(1).c $$(runner_SRCS) $$(wildcard workloads/*.c lib/*.c) \
	tcgplug/window.c
$$(BUILD)/fuzz/$(1): $$(FUZZ_SRCS_$(1)) $$(wildcard runner/*.h runner/backends/*.h runner/host/*.h workloads/*.h lib/*.h tcgplug/*.h)
	@mkdir -p $$(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Wno-missing-field-initializers \
		-Iinclude -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$$(FUZZ_SRCS_$(1)) -ljansson -linih -o $$@
FUZZ_BINS += $$(BUILD)/fuzz/$(1)
FUZZ_CORPUS_$(1) := $(2)
endef
# The config parser (config_load_string).
$(eval $(call runner_fuzz,fuzz_config,runner/fuzz/corpus))
# The check of results.json before a --resume (results_check).
$(eval $(call runner_fuzz,fuzz_resume,runner/fuzz/corpus-resume))
