# SPDX-License-Identifier: GPL-3.0-or-later
# probes/: trace ABI, trace collection, xentrace reader (`ipibench trace`).
probes_SRCS := $(wildcard probes/*.c)
probes_TESTS := $(wildcard probes/tests/test_*.c)
probes_LIBS := -ljansson -llzma -pthread
# printf-like calls are checked, and no format string is built at run time.
probes_CFLAGS += -Wformat=2
# collect.c includes xenctrl.h (GNU C).  Only the agent refers to it, so the
# host binary, which has no libxenctrl, never pulls collect.o out of the
# archive; the agent's link line already has -lxenctrl -lxenforeignmemory
# -lxenevtchn -lpthread.
gnu11_SRCS += probes/collect.c
# sysctl_wrap.c wraps libxencall's xencall1 for the agent and ipibench-xtrace
# (-Wl,--wrap=xencall1): the same, GNU C, and never pulled into the host
# binary.
gnu11_SRCS += probes/sysctl_wrap.c

# ---- tools: trace generator, xenalyze (reference), speed benchmark ------
GENTRACE := $(BUILD)/bin/gentrace
XENALYZE := $(BUILD)/bin/xenalyze
$(GENTRACE): probes/tools/gentrace.c probes/events.h include/ipibench/modes.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_rel) $< -o $@
$(XENALYZE): probes/tools/build-xenalyze.sh
	@bash probes/tools/build-xenalyze.sh $@

# ---- the results contract's tables in docs/results-schema.md -----------
# schema-md prints include/ipibench/counters.h's rows as Markdown;
# `make schema-doc` puts them between the document's marker lines (the
# prose around them is written by hand).  test_counters fails when the
# committed document differs from what it prints.
SCHEMA_MD := $(BUILD)/bin/schema-md
$(SCHEMA_MD): probes/tools/schema-md.c lib/safeio.c lib/safeio.h \
		include/ipibench/counters.h include/ipibench/counters_md.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_rel) probes/tools/schema-md.c lib/safeio.c -ljansson -o $@
.PHONY: schema-doc
schema-doc: $(SCHEMA_MD)
	$(SCHEMA_MD) --update docs/results-schema.md

# `make bench-trace`: hyperfine, ipibench trace summary vs xenalyze --summary
# (see probes/README.md).  A benchmark, not a test.
.PHONY: bench-trace
bench-trace: deps-test $(BUILD)/bin/ipibench $(GENTRACE) $(XENALYZE)
	@bash probes/tools/bench-trace.sh

# ---- fuzzing the reader (libFuzzer, clang) ------------------------------
# The first of FUZZ_BINS (the Makefile's fuzz section runs them all: `make
# fuzz`, and `make fuzz-smoke` in make unit/test); seeds in
# probes/fuzz/corpus, what it finds kept in build/fuzz/corpus-fuzz_reader.
FUZZ_BINS += $(BUILD)/fuzz/fuzz_reader
FUZZ_CORPUS_fuzz_reader := probes/fuzz/corpus
fuzz_reader_SRCS := probes/fuzz/fuzz_reader.c probes/xtrace.c probes/trace_an.c probes/cmap.c \
	probes/hist.c probes/events.c probes/hvm.c probes/xz.c probes/export.c probes/export_chrome.c probes/export_ctf.c \
	lib/safeio.c
$(BUILD)/fuzz/fuzz_reader: $(fuzz_reader_SRCS) $(wildcard probes/*.h) lib/safeio.h
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(fuzz_reader_SRCS) -ljansson -llzma -o $@

# The reader of `trace diff --reference` (probes/hvmref.c) on any JSON;
# seeds in probes/fuzz/corpus-hvmref (the seed's reference file).
FUZZ_BINS += $(BUILD)/fuzz/fuzz_hvmref
FUZZ_CORPUS_fuzz_hvmref := probes/fuzz/corpus-hvmref
fuzz_hvmref_SRCS := probes/fuzz/fuzz_hvmref.c probes/hvmref.c lib/safeio.c
$(BUILD)/fuzz/fuzz_hvmref: $(fuzz_hvmref_SRCS) probes/hvmref.h lib/safeio.h
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(fuzz_hvmref_SRCS) -ljansson -o $@

# ipibench-xtrace: a dom0 recorder on collect.c (static, like the agent).
XTRACE_REC := $(BUILD)/bin/ipibench-xtrace
# Its sysctls (tbuf_op) go through the interface-version wrapper, as the
# agent's do.
XTRACE_REC_OBJS := $(BUILD)/rel/probes/sysctl_wrap.o $(BUILD)/rel/probes/sysctliface.o
$(XTRACE_REC): probes/tools/xtrace-rec.c $(XTRACE_REC_OBJS) $(BUILD)/rel/libprobes.a
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -O2 -Iinclude -I. -static \
		$< $(XTRACE_REC_OBJS) $(BUILD)/rel/libprobes.a $(agent_LIBS) -o $@
