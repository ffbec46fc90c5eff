# SPDX-License-Identifier: GPL-3.0-or-later
# analysis/: statistics, reports, plots, history (`ipibench report|history`).
analysis_SRCS := $(wildcard analysis/*.c)
analysis_TESTS := $(wildcard analysis/tests/test_*.c)
analysis_LIBS := -ljansson -lgsl -lgslcblas

# The GitLab CI template, run for real with gitlab-ci-local (shell executor)
# on fixture results; part of `make test` through UNIT_EXTRA.
.PHONY: ci-template-test
ci-template-test: $(BUILD)/bin/ipibench
	@bash analysis/tests/ci_template_test.sh
UNIT_EXTRA += ci-template-test

# test_hostile runs the real binary (the sanitizer build) on poisoned files.
$(BUILD)/asan/analysis/tests/test_hostile: | $(BUILD)/asan/bin/ipibench

# ci.sh publish fetching the previous history from a loopback HTTP server:
# only HTTP 404 means "first pipeline" (part of `make test` through UNIT_EXTRA).
.PHONY: ci-fetch-test
ci-fetch-test: $(BUILD)/bin/ipibench
	@bash analysis/tests/ci_fetch_test.sh
UNIT_EXTRA += ci-fetch-test

# ---- fuzzing the results.json reader (libFuzzer, clang), as probes/ does --
# The readers of report and history (results.json, hyperfine JSON, perf
# stat CSV), the statistics and the escapers; seeds in analysis/fuzz/corpus.
# `make fuzz` / `fuzz-smoke` run every FUZZ_BINS entry from its
# FUZZ_CORPUS_<name>.
FUZZ_RESULTS_SRCS := analysis/fuzz/fuzz_results.c analysis/inputs.c analysis/hoststate.c analysis/runlevel.c analysis/util.c \
	analysis/stats.c analysis/plot.c lib/safeio.c lib/spawn.c lib/topology.c \
	$(wildcard workloads/*.c) lib/keys.c lib/opts.c lib/opts_doc.c
# (The workloads' declarations are there for the layout check; clang warns
# about the { NULL } ends of their tables, which gcc accepts.)
$(BUILD)/fuzz/fuzz_results: $(FUZZ_RESULTS_SRCS) \
		$(wildcard analysis/*.h lib/*.h workloads/*.h include/ipibench/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Wno-missing-field-initializers -Iinclude -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(FUZZ_RESULTS_SRCS) -ljansson -lgsl -lgslcblas -lm -o $@
FUZZ_BINS += $(BUILD)/fuzz/fuzz_results
FUZZ_CORPUS_fuzz_results := analysis/fuzz/corpus
# One results file is at most 64 KiB here: no allocation of it needs 256 MB
# (a pair index taken as an array size did: 2^62 aborted, 1e8 took 1.6 GB).
FUZZ_OPTS_fuzz_results := -dict=analysis/fuzz/results.dict -malloc_limit_mb=256 -rss_limit_mb=1024
