# SPDX-License-Identifier: GPL-3.0-or-later
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
# The warnings every C file of the project is built with (its fuzz targets
# and tools included): formats checked beyond -Wall (no non-literal format
# strings; printf-like functions carry format attributes).
WARN := -Wall -Wextra -Wformat=2 -Werror
CFLAGS_COMMON = $(STD) -D_GNU_SOURCE $(WARN) -g -MMD -MP \
		 -Iprobes/include -I.
CFLAGS_rel := -O2
# Extra link flags of the release binaries (debian/rules: dpkg-buildflags).
LDFLAGS_rel :=
CFLAGS_asan := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	       -fno-sanitize-recover=all
LDFLAGS_asan := -fsanitize=address,undefined

# libFuzzer targets (each component's .mk adds to FUZZ_BINS; see "fuzzing").
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Iprobes/include -I. \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINS :=

# Link order: users before the libraries they use.  Include order: probes
# first, so that its trace reader is the first of FUZZ_BINS.
COMPONENTS := runner analysis probes topology safeio opts tcgplug
include probes/probes.mk runner/runner.mk analysis/analysis.mk topology/topology.mk safeio/safeio.mk opts/opts.mk \
	tcgplug/tcgplug.mk
include tests/tally/tally.mk

# Xen's public headers (xenctrl.h & co) need GNU C: sources that include
# them are listed in gnu11_SRCS by their .mk and built with -std=gnu11.
$(foreach s,$(gnu11_SRCS),$(foreach v,rel asan,$(eval $(BUILD)/$(v)/$(s:.c=.o): STD = -std=gnu11)))

EXT_LIBS := $(sort $(foreach c,$(COMPONENTS),$($(c)_LIBS))) -lm
TEST_LIBS := -lcmocka

.PHONY: all deps hv hv-off hv-inject dom0 build test unit integration bench fuzz fuzz-smoke clean help ci-publish
all: build

help:
	@echo "make deps         install the Debian packages ipibench needs (sudo if not root)"
	@echo "make hv           fetch Xen XEN=4.17|4.20 (or XEN_SRC=DIR), apply its series, build $(HV_XEN)"
	@echo "make hv-off       the same with CONFIG_IPIBENCH off, in $(HV_OFF_DIR)"
	@echo "make hv-debug     the same as a debug build (CONFIG_DEBUG, DEBUG_LOCKS), in $(HV_DEBUG_DIR)"
	@echo "make hv-inject    the same plus a test's injected send-loop work, in $(HV_INJECT_DIR)"
	@echo "make dom0         build the dom0 kernel + initramfs (agent inside)"
	@echo "make guest        build the [guest] kernel + initramfs (build/guest)"
	@echo "make build        build $(BUILD)/bin/ipibench, the agent and the TCG plugin (make plugin)"
	@echo "make bench        run CONFIG=$(CONFIG) on its host (default: QEMU)"
	@echo "make test         unit tests (ASan+UBSan), fuzz smoke, QEMU integration tests"
	@echo "make test-slow    the longer QEMU tests: faults (kill, offline, option off), hotplug on a debug build, topology, insn counts (CI runs it)"
	@echo "make test-versions  the series on Xen 4.20 and staging from ../shared: test_hv on each, test_hotplug on their debug builds, a [matrix] xen run (CI)"
	@echo "make unit         the unit stage only; make integration: the QEMU stage only"
	@echo "make fuzz         run each fuzz target ($(notdir $(FUZZ_BINS))) for FUZZ_TIME s"
	@echo "make deb          $(BUILD)/deb/ipibench_*.deb and ipibench-xen-4.17_*.deb (dpkg-buildpackage)"
	@echo "make test-host    build (cached) and boot a real Debian 12 + Xen test host image under QEMU"
	@echo "make test-guests  the seed-004 guest runs (PVH guests through xl, both IPI paths) on the test host"
	@echo "make test-guests-nic  seed-004-nic: HVM guests with an emulated e1000e, both MSI paths, dom0's ping -f and ab"
	@echo "make test-host-faults  the test host end to end, with the local backend and the fault cases"
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

# The command is a static PIE against Debian's archives (libgsl.a,
# libgslcblas.a, libjansson.a, libinih.a, libc.a): resolving GSL's symbols
# and relocating five shared libraries cost more than `ipibench trace
# summary` spends on a 100 KB trace (0.72 against 1.61 ms for `trace
# --help`; probes/README.md "Speed").  The Debian package links it
# dynamically (IPIBENCH_STATIC= in debian/rules), so that the archive's
# security updates of jansson & co reach it.
# The linker writes its output in small pieces, and the page cache keeps
# them as 4 KiB folios: exec'ing that file cost 0.08 ms more at every start
# (`ipibench --version` 0.64 against 0.555 ms, the same 44 page faults)
# than a copy of it written in 1 MiB pieces, until the pages leave the
# cache.  So the binary is linked to $@.ld and copied (cp writes big
# pieces), then renamed over $@ (a running ipibench keeps its old inode).
IPIBENCH_STATIC ?= 1
LDFLAGS_ipibench := $(if $(IPIBENCH_STATIC),-static-pie)
$(BUILD)/bin/ipibench: $(BUILD)/rel/runner/main.o $(LIBS_rel)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@$(if $(IPIBENCH_STATIC), (static-pie))")
	$(Q)$(CC) $(LDFLAGS_rel) $(LDFLAGS_ipibench) $^ $(EXT_LIBS) -o $@.ld
	$(Q)cp $@.ld $@.new && rm -f $@.ld && mv -f $@.new $@
$(BUILD)/asan/bin/ipibench: $(BUILD)/asan/runner/main.o $(LIBS_asan)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_asan) $^ $(EXT_LIBS) -o $@

# The dom0 agent: one static binary against libxen-dev's archives.
AGENT := $(BUILD)/bin/ipibench-agent
$(AGENT): $(patsubst %.c,$(BUILD)/rel/%.o,$(agent_SRCS)) $(BUILD)/rel/libprobes.a $(BUILD)/rel/libsafeio.a \
	  $(BUILD)/rel/libopts.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@ (static)")
	$(Q)$(CC) -static $(LDFLAGS_rel) $^ $(agent_LIBS) -o $@

# Unit tests: one cmocka binary per test source, sanitizer build.
ALL_TESTS := $(foreach c,$(COMPONENTS),$($(c)_TESTS))
TEST_BINS := $(patsubst %.c,$(BUILD)/asan/%,$(ALL_TESTS))
$(BUILD)/asan/%: $(BUILD)/asan/%.o $(LIBS_asan)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_asan) $^ $(EXT_LIBS) $(TEST_LIBS) -o $@

INTEGRATION_TESTS := $(wildcard tests/integration/test_*.c)
# Keep the test objects (reached only through the pattern rule above, so
# intermediate).  Not a bare .SECONDARY: that makes every target secondary,
# and then a missing object (a source file new since the last build) never
# gets into its library: the link fails with undefined references.
.SECONDARY: $(patsubst %.c,$(BUILD)/asan/%.o,$(ALL_TESTS) $(INTEGRATION_TESTS))
INTEGRATION_BINS := $(patsubst %.c,$(BUILD)/asan/%,$(INTEGRATION_TESTS))
$(INTEGRATION_BINS): $(BUILD)/asan/tests/integration/itest.o

build: deps $(BUILD)/bin/ipibench $(AGENT) $(XTRACE_REC) $(IPICOUNT_SO)
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
# XEN=4.17 (the default: Debian 12's source) or XEN=4.20 (Debian 13's), or
# XEN_SRC=DIR, a tree of your own (patched in a copy): each build in its own
# folder (mk/hv.sh says which); build/xen links to the 4.17 one.
XEN ?= 4.17
HV_ARGS := $(if $(XEN_SRC),--src $(XEN_SRC),$(XEN))
HV_DIR := $(if $(XEN_SRC),$(shell bash mk/hv.sh --dir $(BUILD) $(HV_ARGS) 2>/dev/null),$(BUILD)/xen-$(XEN))
HV_XEN := $(HV_DIR)/xen
# The build a `make bench XEN=...` or `XEN_SRC=...` runs on (else the config's).
HV_RUN_ARGS := $(if $(XEN_SRC)$(filter command line environment,$(origin XEN)),--xen $(HV_XEN))
hv: deps
	@bash mk/hv.sh $(BUILD) $(HV_ARGS)
# mk/hv.sh's versions, folders, series and refusals (no download, no build).
.PHONY: hv-script-test
hv-script-test:
	@bash tests/hv/test_hv_sh.sh
UNIT_EXTRA += hv-script-test
# The test host's emulated board against the TCO watchdog reset (issue 17):
# a multiboot stub under QEMU, about 15 s (tests/host/test_tco.sh).
.PHONY: host-board-test
host-board-test:
	@bash tests/host/test_tco.sh
UNIT_EXTRA += host-board-test
# No `PRODUCER | grep -q` in a script that sets pipefail: it fails when it
# matches early in a long output (tests/lint/test_pipefail_grep.sh).
.PHONY: shell-lint
shell-lint:
	@bash tests/lint/test_pipefail_grep.sh
UNIT_EXTRA += shell-lint

# The same series with CONFIG_IPIBENCH off (hv-patch/noipibench.config),
# sharing make hv's source package and ccache: what test_faults boots to
# show that the option really compiles the interface out.
HV_OFF_DIR := $(BUILD)/xen-noipibench
hv-off: hv
	@HV_OUT=$(HV_OFF_DIR) HV_FRAGMENT=hv-patch/noipibench.config \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash mk/hv.sh $(BUILD) $(HV_ARGS)

# The same series in a debug build, as Xen developers build
# (hv-patch/debug.config: CONFIG_DEBUG, CONFIG_DEBUG_LOCKS), in make hv's
# folder with -debug appended (build/xen-4.17-debug, build/xen-src-ID-debug),
# sharing its source package and ccache: what test_hotplug boots (ITEST_XEN;
# make test-versions' debug/NAME runs, mk/versions.mk).
HV_DEBUG_DIR := $(HV_DIR)-debug
.PHONY: hv-debug
hv-debug: hv
	@HV_OUT=$(HV_DEBUG_DIR) HV_FRAGMENT=hv-patch/debug.config \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash mk/hv.sh $(BUILD) $(HV_ARGS)

# The series plus one test-only patch that adds work in the x2APIC send
# loops (tests/integration/data/inject-send-work.patch, never part of
# hv-patch/), sharing make hv's source package and ccache: what
# test_insn_inject boots beside make hv's build, for the instruction-count
# history to flag.
HV_INJECT_DIR := $(BUILD)/xen-inject
HV_INJECT_PATCH := tests/integration/data/inject-send-work.patch
hv-inject: hv
	@HV_OUT=$(HV_INJECT_DIR) HV_PATCH=$(HV_INJECT_PATCH) \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash mk/hv.sh $(BUILD) $(HV_ARGS)

DOM0_DIR := $(BUILD)/dom0
dom0: deps $(AGENT)
	@bash mk/dom0.sh $(DOM0_DIR) $(AGENT)

# make guest: the PVH guest of a [guest] config (configs/seed-004.ini's
# kernel and ramdisk): make dom0's kernel as build/guest/vmlinux and the
# busybox initramfs with the ipbipi module built for it (mk/guest/).
GUEST_DIR := $(BUILD)/guest
.PHONY: guest
guest: deps dom0
	@bash mk/guest-initramfs.sh $(GUEST_DIR) $(DOM0_DIR)

# ---- the Debian packages -------------------------------------------------
# make deb: ipibench_VERSION_amd64.deb (command, agent, man page) and
# ipibench-xen-4.17_VERSION_amd64.deb (make hv's hypervisor) in
# $(BUILD)/deb, by dpkg-buildpackage in a scratch copy of the tracked files
# (mk/deb.sh; debian/ says how).  make deb-test: lintian and the packages'
# contents (tests/deb/test_deb.sh), a unit check of the tally.
.PHONY: deb deb-test
deb: hv
	@bash mk/deb.sh $(BUILD)
deb-test: deb
	@bash tests/deb/test_deb.sh $(BUILD)
UNIT_EXTRA += deb-test

# ---- the real Debian test host -------------------------------------------
# make host-image: a raw disk of Debian 12 with systemd, GRUB and Debian's
# own Xen 4.17 (mmdebstrap; mk/host-image.sh), cached in $(HOST_DIR) by the
# hash of its package list and scripts.  make test-host boots it under QEMU
# through GRUB into Xen and a systemd dom0, logs in on the serial console
# and checks what the host says (mk/test-host.sh).  Needs root.
HOST_DIR := $(BUILD)/host
.PHONY: host-image test-host
host-image: deps
	@bash mk/host-image.sh $(HOST_DIR)
# TEST_HOST_E2E=1: also end to end with the packages (make deb) installed
# on the booted host and a reboot-backend matrix through real reboots.
# TEST_HOST_FAULTS=1 (with TEST_HOST_E2E=1): then backend = local on the
# booted host, a matrix hard reset mid-run and resumed, and a panicking
# entry's Xen that falls back to GRUB's default (mk/test-host.sh).
# TEST_HOST_BOOT=direct: Xen, kernel and initramfs of the image with QEMU's
# -kernel/-initrd instead of GRUB (login checks only).
test-host: host-image $(if $(TEST_HOST_E2E),deb)
	@$(if $(TEST_HOST_E2E),TEST_HOST_DEBS=$(BUILD)/deb) bash mk/test-host.sh $(HOST_DIR)
# make test-host-faults: all of it in one boot sequence, as .ci/run runs it
# (= make test-host TEST_HOST_E2E=1 TEST_HOST_FAULTS=1): the end-to-end
# stage, then the local backend, the hard reset and the panicking entry.
.PHONY: test-host-faults
# Its limit (TEST_HOST_TIMEOUT, from QEMU's start) is 45 min, not the
# script's 40: 24.5 min at load 3-4, two to three times as slow at load
# 6-13 (README.md).  Not in .ci/run (README.md says why).
test-host-faults: host-image deb
	@TEST_HOST_DEBS=$(BUILD)/deb TEST_HOST_FAULTS=1 TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-2700} \
		bash mk/test-host.sh $(HOST_DIR)
# make test-guests: configs/seed-004.ini's guest runs on the test host
# (issue 17): the image booted directly on make hv's patched Xen with SVM
# in the emulated CPU, `ipibench run` on it driving a PVH guest per IPI
# path through xl, then checks of results.json, the traces, that no guest
# is left (xl list), and `ipibench report` on the set (mk/test-host.sh
# TEST_HOST_HVM; 4-7 min here).  .ci/run runs it.  GUEST_CONFIGS: the
# configs run there in turn (TEST_HOST_HVM_CONFIGS); `make test-guests-nic`
# runs configs/seed-004-nic.ini's HVM guests with an emulated NIC instead
# (README: the time it takes), with credit2's migration resistance off
# (TEST_HOST_XEN_ARGS, default sched_credit2_migrate_resist=0): a dom0
# stranded on credit2's runqueue with both pCPUs idle hung the host under
# these guests (README "The emulated host went away"; the proposed fix is
# hv-patch/upstream/0001).  Not in .ci/run: README says why.
GUEST_CONFIGS ?= configs/seed-004.ini
.PHONY: test-guests test-guests-nic
test-guests: host-image hv build guest
	@TEST_HOST_BOOT=direct TEST_HOST_XEN=$(HV_XEN) TEST_HOST_HVM=$(GUEST_DIR) \
		TEST_HOST_HVM_CONFIGS="$(GUEST_CONFIGS)" TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-2400} \
		bash mk/test-host.sh $(HOST_DIR) $(BUILD)/test-guests
test-guests-nic: host-image hv build guest
	@TEST_HOST_BOOT=direct TEST_HOST_XEN=$(HV_XEN) TEST_HOST_HVM=$(GUEST_DIR) \
		TEST_HOST_XEN_ARGS="$${TEST_HOST_XEN_ARGS-sched_credit2_migrate_resist=0}" \
		TEST_HOST_HVM_CONFIGS=configs/seed-004-nic.ini TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-3600} \
		bash mk/test-host.sh $(HOST_DIR) $(BUILD)/test-guests-nic

# ---- fuzzing (libFuzzer, clang) ----------------------------------------
# Each component's .mk adds its target to FUZZ_BINS (with its own build rule,
# FUZZ_CFLAGS) and names its seeds FUZZ_CORPUS_<name> := DIR.  `make fuzz`
# runs each for FUZZ_TIME s; `make fuzz-smoke` (part of make unit and make
# test, each run a test of its own in the tally) shares FUZZ_SMOKE_TIME s
# between them, at least FUZZ_SMOKE_MIN s each (45 s in all, as with the
# one target there was; 10 s each, the minimum, for the five there are
# now).  mk/fuzz.sh keeps what they find in build/fuzz/.
FUZZ_TIME ?= 600
FUZZ_SMOKE_TIME ?= 45
FUZZ_SMOKE_MIN ?= 10
FUZZ_NAMES := $(notdir $(FUZZ_BINS))
FUZZ_SMOKE_EACH := $(shell n=$(words $(FUZZ_NAMES)); t=$$(( $(FUZZ_SMOKE_TIME) / (n ? n : 1) )); \
	echo $$(( t < $(FUZZ_SMOKE_MIN) ? $(FUZZ_SMOKE_MIN) : t )))
define fuzz_rules
.PHONY: fuzz/$(1) fuzz-smoke/$(1)
fuzz/$(1): $(BUILD)/fuzz/$(1)
	@bash mk/fuzz.sh $$< $(FUZZ_TIME) $$(FUZZ_CORPUS_$(1))
fuzz-smoke/$(1): $(BUILD)/fuzz/$(1)
	@bash mk/fuzz.sh $$< $(FUZZ_SMOKE_EACH) $$(FUZZ_CORPUS_$(1))
# Its time limit in the tally: the run, plus building the target.
TIMEOUT_fuzz-smoke/$(1) := $(shell echo $$(( $(FUZZ_SMOKE_EACH) + 600 )))
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call fuzz_rules,$(n))))
fuzz: $(addprefix fuzz/,$(FUZZ_NAMES))
fuzz-smoke: $(addprefix fuzz-smoke/,$(FUZZ_NAMES))
UNIT_EXTRA += $(addprefix fuzz-smoke/,$(FUZZ_NAMES))

# ---- the two commands, and the tally -----------------------------------
# make unit, make integration and make test run every test of their stages
# and end with the tally's closing line, "ipibench tests: N passed, N
# failed", whatever failed (tests/tally/tally.c says how it counts):
#  - each cmocka binary (unit: TEST_BINS under ASan+UBSan, the tally's own
#    test first; integration: INTEGRATION_BINS) under a time limit, its
#    declared tests against those that passed;
#  - each UNIT_EXTRA check (ci-template-test, each fuzz-smoke/NAME) as one
#    test: `make CHECK` exits 0 within its time limit;
#  - a test whose binary did not build, or whose stage could not run (make
#    hv failed, say), counts as one failure: make -k runs all the rest.
# Time limits in seconds: TEST_TIMEOUT per unit binary, ITEST_TIMEOUT per
# integration binary, EXTRA_TIMEOUT per check (or TIMEOUT_<check>).
TEST_TIMEOUT ?= 600
ITEST_TIMEOUT ?= 3600
EXTRA_TIMEOUT ?= 1800
UNIT_RUNS := $(addprefix unit/,$(TALLY_TEST) $(TEST_BINS) $(UNIT_EXTRA))
# The integration tests that would take make test past about 30 minutes:
# make test-slow (which .ci/run runs after make test) has them.
SLOW_BINS := $(addprefix $(BUILD)/asan/tests/integration/,test_faults test_topology test_insn_counts \
	test_insn_inject test_insn_calls test_hotplug)
ITEST_RUNS := $(addprefix integration/,$(filter-out $(SLOW_BINS),$(INTEGRATION_BINS)))
SLOW_RUNS := $(addprefix integration/,$(SLOW_BINS))
.PHONY: $(UNIT_RUNS) $(ITEST_RUNS) $(SLOW_RUNS) test-slow

$(addprefix unit/,$(TALLY_TEST) $(TEST_BINS)): unit/%: % $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(TEST_TIMEOUT) ./$*
unit/$(BUILD)/asan/probes/tests/test_xenalyze: $(XENALYZE)
$(addprefix unit/,$(UNIT_EXTRA)): unit/%: $(TALLY)
	@$(TALLY) cmd $(TALLY_FILE) $@ $(or $(TIMEOUT_$*),$(EXTRA_TIMEOUT)) \
		$(MAKE) --no-print-directory $*
$(ITEST_RUNS) $(SLOW_RUNS): integration/%: % hv dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) ./$*
integration/$(BUILD)/asan/tests/integration/test_faults: hv-off
integration/$(BUILD)/asan/tests/integration/test_insn_calls: hv-off
integration/$(BUILD)/asan/tests/integration/test_insn_inject: hv-inject
# test_hotplug boots make hv-debug's 4.17 build (make test-versions: each
# line's, mk/versions.mk).
integration/$(BUILD)/asan/tests/integration/test_hotplug: hv-debug

# $(call tally_stages,RUNS): make deps and the tally tool (without them, the
# closing line by hand), a fresh tally expecting every run, all the runs
# (make -k: a failure stops nothing else), then the closing line.
define tally_stages
	@rm -f $(TALLY_FILE); \
	if ! $(MAKE) --no-print-directory deps $(TALLY); then \
		echo "ipibench tests: 0 passed, 1 failed"; exit 1; \
	fi; \
	$(TALLY) expect $(TALLY_FILE) $(1) && \
	$(MAKE) -k --no-print-directory $(1); \
	$(TALLY) total $(TALLY_FILE)
endef
unit:
	$(call tally_stages,$(UNIT_RUNS))
integration:
	$(call tally_stages,$(ITEST_RUNS))
test:
	$(call tally_stages,$(UNIT_RUNS) $(ITEST_RUNS))
test-slow:
	$(call tally_stages,$(SLOW_RUNS))
# make test-versions: the series on 4.20 and staging (CI, after test-slow).
include mk/versions.mk

# The run, then its report (tables, the seed comparison, plots); a run with
# failed parts still gets its report, and make still fails.  A stopped bench
# is finished with `build/bin/ipibench run --resume DIR`.
bench: hv dom0 build
	@out=$${BENCH_OUT:-results/runs/$(notdir $(basename $(CONFIG)))-$$(date +%Y%m%d-%H%M%S)}; \
	$(BUILD)/bin/ipibench run -c $(CONFIG) -o "$$out" $(HV_RUN_ARGS); rc=$$?; \
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
