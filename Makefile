# ipibench: top-level Makefile.
#
# `make bench` and `make test` are the two commands of README.md; each
# installs (make deps) and builds what it needs.  Each concern lives in its
# own folder with a small .mk fragment that only lists its sources, tests
# and libraries; the rules below are shared.

SHELL := /bin/bash
# `make V=1` shows the full commands.
Q := $(if $(V),,@)
CC ?= gcc
BUILD := build
CONFIG ?= configs/seed-96cpu.ini

# The release (rel) and sanitizer (asan) variants of every object.
STD = -std=c11
CFLAGS_COMMON = $(STD) -D_GNU_SOURCE -Wall -Wextra -Werror -g -MMD -MP \
		 -Iprobes/include -I.
CFLAGS_rel := -O2
CFLAGS_asan := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	       -fno-sanitize-recover=all
LDFLAGS_asan := -fsanitize=address,undefined

# Link order: users before the libraries they use.
COMPONENTS := runner analysis probes safeio
include runner/runner.mk analysis/analysis.mk probes/probes.mk safeio/safeio.mk

# Xen's public headers (xenctrl.h & co) need GNU C: sources that include
# them are listed in gnu11_SRCS by their .mk and built with -std=gnu11.
$(foreach s,$(gnu11_SRCS),$(foreach v,rel asan,$(eval $(BUILD)/$(v)/$(s:.c=.o): STD = -std=gnu11)))

EXT_LIBS := $(sort $(foreach c,$(COMPONENTS),$($(c)_LIBS))) -lm
TEST_LIBS := -lcmocka

.PHONY: all deps hv dom0 build test unit integration bench fuzz clean help ci-publish
all: build

help:
	@echo "make deps         install the Debian packages ipibench needs (sudo if not root)"
	@echo "make hv           fetch Xen 4.17 source, apply hv-patch/series, build $(HV_XEN)"
	@echo "make dom0         build the dom0 kernel + initramfs (agent inside)"
	@echo "make build        build $(BUILD)/bin/ipibench and the agent"
	@echo "make bench        run CONFIG=$(CONFIG) on its host (default: QEMU)"
	@echo "make test         unit tests (ASan+UBSan) and QEMU integration tests"
	@echo "make fuzz         run the trace reader fuzz target for longer"
	@echo "make ci-publish   smoke report + history + plots into $(BUILD)/ci/public"
	@echo "make bench-trace  ipibench trace summary vs xenalyze, with hyperfine"

deps:
	@bash mk/deps.sh

# ---- objects, libraries, binaries -------------------------------------
$(BUILD)/rel/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS_COMMON) $(CFLAGS_rel) $($(firstword $(subst /, ,$<))_CFLAGS) -c $< -o $@
$(BUILD)/asan/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS_COMMON) $(CFLAGS_asan) $($(firstword $(subst /, ,$<))_CFLAGS) -c $< -o $@

define lib_rule
$(BUILD)/$(2)/lib$(1).a: $$(patsubst %.c,$(BUILD)/$(2)/%.o,$$($(1)_SRCS))
	@mkdir -p $$(@D)
	$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach c,$(COMPONENTS),$(foreach v,rel asan,$(eval $(call lib_rule,$(c),$(v)))))

LIBS_rel := $(foreach c,$(COMPONENTS),$(BUILD)/rel/lib$(c).a)
LIBS_asan := $(foreach c,$(COMPONENTS),$(BUILD)/asan/lib$(c).a)

$(BUILD)/bin/ipibench: $(BUILD)/rel/runner/main.o $(LIBS_rel)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $^ $(EXT_LIBS) -o $@
$(BUILD)/asan/bin/ipibench: $(BUILD)/asan/runner/main.o $(LIBS_asan)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_asan) $^ $(EXT_LIBS) -o $@

# The dom0 agent: one static binary against libxen-dev's archives.
AGENT := $(BUILD)/bin/ipibench-agent
$(AGENT): $(patsubst %.c,$(BUILD)/rel/%.o,$(agent_SRCS)) $(BUILD)/rel/libprobes.a $(BUILD)/rel/libsafeio.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@ (static)")
	$(Q)$(CC) -static $^ $(agent_LIBS) -o $@

# Unit tests: one cmocka binary per test source, sanitizer build.
ALL_TESTS := $(foreach c,$(COMPONENTS),$($(c)_TESTS))
TEST_BINS := $(patsubst %.c,$(BUILD)/asan/%,$(ALL_TESTS))
$(BUILD)/asan/%: $(BUILD)/asan/%.o $(LIBS_asan)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_asan) $^ $(EXT_LIBS) $(TEST_LIBS) -o $@
.SECONDARY:

INTEGRATION_TESTS := $(wildcard tests/integration/test_*.c)
INTEGRATION_BINS := $(patsubst %.c,$(BUILD)/asan/%,$(INTEGRATION_TESTS))
$(INTEGRATION_BINS): $(BUILD)/asan/tests/integration/itest.o

build: deps $(BUILD)/bin/ipibench $(AGENT)
	@true

# The commit results.json names (tool.commit): regenerated when it changes.
COMMIT_H := $(BUILD)/gen/ipibench_commit.h
$(COMMIT_H): FORCE
	@mkdir -p $(@D)
	@c=$$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown); \
	line="#define IPIBENCH_COMMIT \"$$c\""; \
	[ "$$(cat $@ 2>/dev/null)" = "$$line" ] || echo "$$line" >$@
.PHONY: FORCE
$(BUILD)/rel/runner/results.o $(BUILD)/asan/runner/results.o: $(COMMIT_H)
$(BUILD)/rel/runner/results.o $(BUILD)/asan/runner/results.o: CFLAGS_COMMON += -include $(COMMIT_H)

# ---- the hypervisor and the dom0 image ---------------------------------
HV_DIR := $(BUILD)/xen
HV_XEN := $(HV_DIR)/xen
hv: deps
	@bash mk/hv.sh $(HV_DIR)

DOM0_DIR := $(BUILD)/dom0
dom0: deps $(AGENT)
	@bash mk/dom0.sh $(DOM0_DIR) $(AGENT)

# ---- the two commands --------------------------------------------------
# Components add extra checks (e.g. a short fuzz run) to UNIT_EXTRA.
unit: deps $(TEST_BINS) $(XENALYZE)
	@bash mk/runtests.sh unit $(TEST_BINS)
	@$(if $(UNIT_EXTRA),$(MAKE) --no-print-directory $(UNIT_EXTRA))

integration: hv dom0 build $(INTEGRATION_BINS)
	@bash mk/runtests.sh integration $(INTEGRATION_BINS)

test: deps
	@rm -f $(BUILD)/test-tally
	@$(MAKE) --no-print-directory unit integration
	@bash mk/runtests.sh total

# The run, then its report (tables, the seed comparison, plots); a run with
# failed parts still gets its report, and make still fails.  A stopped bench
# is finished with `build/bin/ipibench run --resume DIR`.
bench: hv dom0 build
	@out=$${BENCH_OUT:-results/runs/$(notdir $(basename $(CONFIG)))-$$(date +%Y%m%d-%H%M%S)}; \
	$(BUILD)/bin/ipibench run -c $(CONFIG) -o "$$out"; rc=$$?; \
	$(BUILD)/bin/ipibench report "$$out" -o "$$out/report" || rc=1; \
	echo "bench: results in $$out/results.json, report in $$out/report/report.md"; \
	exit $$rc

# CI publishing: the smoke results of the integration test (or a fresh smoke
# run), its report, and the history with earlier sets from results/history.
CI_SMOKE := $(BUILD)/itest/run/smoke
CI_OUT := $(BUILD)/ci/public
ci-publish: hv dom0 build
	@test -f $(CI_SMOKE)/results.json || $(BUILD)/bin/ipibench run -c configs/smoke.ini -o $(CI_SMOKE)
	IPIBENCH_HISTORY_DIR=results/history bash analysis/ci.sh publish $(CI_OUT) $(CI_SMOKE)
	@echo "ci-publish: $(CI_OUT)/index.html"

clean:
	rm -rf $(BUILD)/rel $(BUILD)/asan $(BUILD)/bin

-include $(shell find $(BUILD)/rel $(BUILD)/asan -name '*.d' -type f 2>/dev/null)
