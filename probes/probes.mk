# probes/: trace ABI, trace collection, xentrace reader (`ipibench trace`).
probes_SRCS := $(wildcard probes/*.c)
probes_TESTS := $(wildcard probes/tests/test_*.c)
probes_LIBS := -ljansson
# collect.c includes xenctrl.h (GNU C).  Only the agent refers to it, so the
# host binary, which has no libxenctrl, never pulls collect.o out of the
# archive; the agent's link line already has -lxenctrl -lxenforeignmemory
# -lxenevtchn -lpthread.
gnu11_SRCS += probes/collect.c

# ---- tools: trace generator, xenalyze (reference), speed benchmark ------
GENTRACE := $(BUILD)/bin/gentrace
XENALYZE := $(BUILD)/bin/xenalyze
$(GENTRACE): probes/tools/gentrace.c probes/events.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_rel) $< -o $@
$(XENALYZE): probes/tools/build-xenalyze.sh
	@bash probes/tools/build-xenalyze.sh $@

# `make bench-trace`: hyperfine, ipibench trace summary vs xenalyze --summary
# (see probes/README.md).  A benchmark, not a test.
.PHONY: bench-trace
bench-trace: $(BUILD)/bin/ipibench $(GENTRACE) $(XENALYZE)
	@bash probes/tools/bench-trace.sh

# ---- fuzzing the reader (libFuzzer, clang) ------------------------------
# `make fuzz` runs long (FUZZ_TIME s), `make fuzz-smoke` briefly as part of
# `make test`; both start from probes/fuzz/corpus and keep what they find in
# build/fuzz/corpus.  A crash or a broken invariant leaves build/fuzz/crash-*.
FUZZ_BIN := $(BUILD)/fuzz/fuzz_reader
FUZZ_SRCS := probes/fuzz/fuzz_reader.c probes/xtrace.c probes/trace_an.c probes/cmap.c \
	probes/hist.c probes/events.c
FUZZ_TIME ?= 600
FUZZ_SMOKE_TIME ?= 45
$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard probes/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Iprobes/include -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(FUZZ_SRCS) -ljansson -o $@

define run_fuzz
	@mkdir -p $(BUILD)/fuzz/corpus
	@echo "fuzz: $(1) s on $(FUZZ_BIN) (corpus $(BUILD)/fuzz/corpus)"
	@set -o pipefail; nice $(FUZZ_BIN) -max_total_time=$(1) -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ \
		$(BUILD)/fuzz/corpus probes/fuzz/corpus 2>&1 | tail -n 30 || \
		{ echo "fuzz: FAILED; the input is in $(BUILD)/fuzz/ (crash-*, timeout-*, oom-*)"; exit 1; }
endef

.PHONY: fuzz-smoke
fuzz: $(FUZZ_BIN)
	$(call run_fuzz,$(FUZZ_TIME))
fuzz-smoke: $(FUZZ_BIN)
	$(call run_fuzz,$(FUZZ_SMOKE_TIME))
UNIT_EXTRA += fuzz-smoke

# ipibench-xtrace: a dom0 recorder on collect.c (static, like the agent).
XTRACE_REC := $(BUILD)/bin/ipibench-xtrace
$(XTRACE_REC): probes/tools/xtrace-rec.c $(BUILD)/rel/libprobes.a
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -Iprobes/include -I. -static \
		$< $(BUILD)/rel/libprobes.a $(agent_LIBS) -o $@
