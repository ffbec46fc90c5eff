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
