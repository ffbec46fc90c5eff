# runner/: the ipibench CLI, configs, host backends, results store; the agent.
runner_SRCS := $(filter-out runner/main.c,$(wildcard runner/*.c runner/backends/*.c))
runner_TESTS := $(wildcard runner/tests/test_*.c)
runner_LIBS := -ljansson -linih

# The dom0 agent (static; runs inside the Xen host).
agent_SRCS := runner/console.c runner/wlspec.c $(wildcard runner/agent/*.c runner/agent/workloads/*.c)
agent_LIBS := -Wl,--start-group -lxenctrl -lxencall -lxenforeignmemory -lxendevicemodel \
	-lxenevtchn -lxengnttab -lxentoollog -lxentoolcore -ljansson -Wl,--end-group -lpthread
gnu11_SRCS += $(filter runner/agent/%,$(agent_SRCS))

# ---- fuzzing the config parser (libFuzzer, clang) ------------------------
# `make fuzz` / `make fuzz-smoke` run every $(FUZZ_BINS) from its
# FUZZ_CORPUS_<name>.  The target links the runner's sources (config.c
# needs the backend registry and the workload table) and safeio.  (clang
# warns about the { NULL } ends of wlspec.c's tables, which gcc accepts.)
FUZZ_CONFIG_SRCS := runner/fuzz/fuzz_config.c $(runner_SRCS) $(wildcard safeio/*.c)
$(BUILD)/fuzz/fuzz_config: $(FUZZ_CONFIG_SRCS) $(wildcard runner/*.h runner/backends/*.h safeio/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Wno-missing-field-initializers \
		-Iprobes/include -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(FUZZ_CONFIG_SRCS) -ljansson -linih -o $@
FUZZ_BINS += $(BUILD)/fuzz/fuzz_config
FUZZ_CORPUS_fuzz_config := runner/fuzz/corpus

# The check of results.json before a --resume (results_check).
FUZZ_RESUME_SRCS := runner/fuzz/fuzz_resume.c $(runner_SRCS) $(wildcard safeio/*.c)
$(BUILD)/fuzz/fuzz_resume: $(FUZZ_RESUME_SRCS) $(wildcard runner/*.h runner/backends/*.h safeio/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Wno-missing-field-initializers \
		-Iprobes/include -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(FUZZ_RESUME_SRCS) -ljansson -linih -o $@
FUZZ_BINS += $(BUILD)/fuzz/fuzz_resume
FUZZ_CORPUS_fuzz_resume := runner/fuzz/corpus-resume
