# SPDX-License-Identifier: GPL-3.0-or-later
# make test-versions (.ci/run, after make test-slow): the series on the
# other Xen versions, from the release trees CI has in ../shared:
#  - versions/NAME for each NAME in TV_NAMES: unpack the one tarball of
#    $(TV_SHARED)/xen-NAME/ into build/upstream/, `make hv XEN_SRC=` it
#    (hv-patch/X/ by the tree's version), then tests/integration/test_hv on
#    that build (ITEST_XEN) through the tally, so its counts show;
#  - debug/NAME for each NAME in TV_NAMES: the same tree as a debug build
#    (`make hv-debug XEN_SRC=`: CONFIG_DEBUG, DEBUG_LOCKS; the tree's own
#    build when its defaults already make it one, as staging's do), then
#    tests/integration/test_hotplug on it (CPUs offline and online with and
#    without a run);
#  - not part of test-versions, run by name: nmi/NAME
#    (tests/integration/test_nmi on that debug build: NMIs injected
#    during a traced run) and debug-abi/staging
#    (tests/integration/test_sysctl_abi on staging's debug build); make
#    test-slow runs both on 4.17's;
#  - versions/matrix: one short workload on `[matrix] xen = 4.17,
#    src-4.20.4` and its report's "Between builds" (scripts/test-matrix-xen.sh).
# A missing or second tarball, a tree whose series does not apply or
# build, fails that run (the tally counts one failure per run that did not
# get to its tests), loudly, naming what is missing.
TV_SHARED ?= ../shared
TV_NAMES := 4.20 staging
TV_DIR := $(BUILD)/upstream
TV_TEST_HV := $(BUILD)/asan/tests/integration/test_hv
TV_TEST_HOTPLUG := $(BUILD)/asan/tests/integration/test_hotplug
TV_TEST_SYSCTL_ABI := $(BUILD)/asan/tests/integration/test_sysctl_abi
TV_TEST_NMI := $(BUILD)/asan/tests/integration/test_nmi
TV_RUNS := $(addprefix versions/,$(TV_NAMES) matrix) $(addprefix debug/,$(TV_NAMES))
.PHONY: test-versions $(TV_RUNS) $(addprefix nmi/,$(TV_NAMES)) debug-abi/staging $(addprefix tv-hv/,$(TV_NAMES)) $(addprefix tv-hv-debug/,$(TV_NAMES))

# tv-hv/NAME: the tree unpacked (once per tarball) and built; its build
# folder in $(TV_DIR)/NAME.build.
$(addprefix tv-hv/,$(TV_NAMES)): tv-hv/%: deps
	@set -e; tb=$$(ls $(TV_SHARED)/xen-$*/*.tar.xz 2>/dev/null || true); \
	if [ -z "$$tb" ] || [ $$(echo "$$tb" | wc -l) -ne 1 ]; then \
		echo "test-versions: FAILED: no single tarball in $(TV_SHARED)/xen-$*/ (found: $${tb:-none})" >&2; \
		exit 1; \
	fi; \
	top=$$(tar tJf "$$tb" | head -1 | cut -d/ -f1); \
	mkdir -p $(TV_DIR); \
	if [ ! -f "$(TV_DIR)/$$top.unpacked" ] || [ "$$tb" -nt "$(TV_DIR)/$$top.unpacked" ]; then \
		echo "test-versions: unpacking $$tb into $(TV_DIR)/$$top"; \
		rm -rf "$(TV_DIR)/$$top"; \
		tar xJf "$$tb" -C $(TV_DIR); \
		: >"$(TV_DIR)/$$top.unpacked"; \
	fi; \
	$(MAKE) --no-print-directory hv XEN_SRC=$(TV_DIR)/$$top; \
	bash scripts/hv.sh --dir $(BUILD) --src $(TV_DIR)/$$top >$(TV_DIR)/$*.build; \
	echo "$(TV_DIR)/$$top" >$(TV_DIR)/$*.src

# tv-hv-debug/NAME: the same tree (tv-hv/NAME unpacked it and wrote its
# path to $(TV_DIR)/NAME.src) as a debug build; its build folder in
# $(TV_DIR)/NAME.debug.
# A tree whose own defaults already make its build a debug one (staging's
# Kconfig turns CONFIG_DEBUG on, and DEBUG_LOCKS follows it) is not built
# twice: its build's xen.config says so, and test_hotplug checks it again.
$(addprefix tv-hv-debug/,$(TV_NAMES)): tv-hv-debug/%: tv-hv/%
	@set -e; src=$$(cat $(TV_DIR)/$*.src); rel=$$(cat $(TV_DIR)/$*.build); \
	if grep -qx 'CONFIG_DEBUG=y' $$rel/xen.config && grep -qx 'CONFIG_DEBUG_LOCKS=y' $$rel/xen.config; then \
		echo "test-versions: $$rel is a debug build already (CONFIG_DEBUG, DEBUG_LOCKS)"; \
		echo "$$rel" >$(TV_DIR)/$*.debug; \
	else \
		$(MAKE) --no-print-directory hv-debug XEN_SRC=$$src; \
		echo "$$(bash scripts/hv.sh --dir $(BUILD) --src $$src)-debug" >$(TV_DIR)/$*.debug; \
	fi

$(addprefix debug/,$(TV_NAMES)): debug/%: tv-hv-debug/% $(TV_TEST_HOTPLUG) dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) \
		env ITEST_XEN=$$(cat $(TV_DIR)/$*.debug)/xen ./$(TV_TEST_HOTPLUG)

$(addprefix nmi/,$(TV_NAMES)): nmi/%: tv-hv-debug/% $(TV_TEST_NMI) dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) \
		env ITEST_XEN=$$(cat $(TV_DIR)/$*.debug)/xen ./$(TV_TEST_NMI)

debug-abi/staging: debug-abi/%: tv-hv-debug/% $(TV_TEST_SYSCTL_ABI) dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) \
		env ITEST_XEN=$$(cat $(TV_DIR)/$*.debug)/xen ./$(TV_TEST_SYSCTL_ABI)

$(addprefix versions/,$(TV_NAMES)): versions/%: tv-hv/% $(TV_TEST_HV) dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) \
		env ITEST_XEN=$$(cat $(TV_DIR)/$*.build)/xen ./$(TV_TEST_HV)

versions/matrix: tv-hv/4.20 hv dom0 build $(TALLY)
	@$(TALLY) cmd $(TALLY_FILE) $@ $(ITEST_TIMEOUT) \
		bash scripts/test-matrix-xen.sh tests/integration/data/versions-matrix.ini \
		$(BUILD)/itest/versions-matrix

test-versions:
	$(call tally_stages,$(TV_RUNS))
