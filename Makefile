# SPDX-License-Identifier: GPL-3.0-or-later
# ipibench: top-level Makefile.
#
# `make bench` and `make test` are the two commands of README.md; each
# installs (make deps) and builds what it needs.  Each concern lives in its
# own folder with a .mk fragment that lists its sources, tests and
# libraries and adds the rules of its own artefacts and checks (fuzz
# targets, the TCG plugin, the trace recorder, ci-template-test); the
# object, library, binary and test rules below are shared, and the
# hypervisor, dom0, guest, package, test-host and CI targets are here too
# (their scripts are in scripts/, the image builders in images/).

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
		 -Iinclude -I.
CFLAGS_rel := -O2
# Extra link flags of the release binaries (debian/rules: dpkg-buildflags).
LDFLAGS_rel :=
CFLAGS_asan := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	       -fno-sanitize-recover=all
LDFLAGS_asan := -fsanitize=address,undefined

# libFuzzer targets (each component's .mk adds to FUZZ_BINS; see "fuzzing").
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Iinclude -I. \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINS :=

# Link order: users before the libraries they use.  Include order: probes
# first, so that its trace reader is the first of FUZZ_BINS.
COMPONENTS := runner analysis probes workloads lib tcgplug
include probes/probes.mk runner/runner.mk analysis/analysis.mk workloads/workloads.mk lib/lib.mk \
	tcgplug/tcgplug.mk agent/agent.mk
include tests/tally/tally.mk

# Xen's public headers (xenctrl.h & co) need GNU C: sources that include
# them are listed in gnu11_SRCS by their .mk and built with -std=gnu11.
$(foreach s,$(gnu11_SRCS),$(foreach v,rel asan,$(eval $(BUILD)/$(v)/$(s:.c=.o): STD = -std=gnu11)))

EXT_LIBS := $(sort $(foreach c,$(COMPONENTS),$($(c)_LIBS))) -lm
TEST_LIBS := -lcmocka

.PHONY: all deps hv hv-off hv-inject hv-bare dom0 build test unit integration bench fuzz fuzz-smoke clean help ci-publish
all: build

# `make help` names every public target: everything a user or CI runs.
# The .PHONY targets that are not (the default goal's alias, the helpers
# of other rules, the per-test runs unit/..., integration/..., fuzz/NAME,
# versions/NAME: those with a '/') are listed here; tests/doc/test_make_help.sh
# holds `make help` against the .PHONY targets and this list.
INTERNAL_TARGETS := all FORCE
help:
	@echo "make help: this list.  Build and run (README.md):"
	@echo "  make deps         install the Debian packages building and make bench need (sudo if not root)"
	@echo "  make deps-test    make deps, and the packages the tests need (make test runs it)"
	@echo "  make deps-ci      make deps-test, and what only CI needs (.ci/run runs it)"
	@echo "  make build        build $(BUILD)/bin/ipibench, the agent and the TCG plugin"
	@echo "  make agent        build the dom0 agent only ($(AGENT))"
	@echo "  make hv           fetch Xen XEN=4.17|4.20 (or XEN_SRC=DIR), apply its series, build $(HV_XEN)"
	@echo "  make hv-off       the same with CONFIG_IPIBENCH off, in $(HV_OFF_DIR)"
	@echo "  make hv-debug     the same as a debug build (CONFIG_DEBUG, DEBUG_LOCKS), in $(HV_DEBUG_DIR)"
	@echo "  make hv-inject    the same plus a test's injected send-loop work, in $(HV_INJECT_DIR)"
	@echo "  make hv-bare      the same without hv-patch/upstream's fixes to Xen itself, in $(HV_BARE_DIR)"
	@echo "  make hv-series    the series for XEN (or XEN_SRC) as format-patch files + cover letter, From you, in $(BUILD)/hv-series/"
	@echo "  make hv-prefix-check  every prefix of the series for XEN (or XEN_SRC) builds, release and debug (long)"
	@echo "  make dom0         build the dom0 kernel + initramfs (agent inside)"
	@echo "  make guest        build the [guest] kernel + initramfs ($(GUEST_DIR))"
	@echo "  make plugin       build the TCG plugin that counts instructions ($(IPICOUNT_SO))"
	@echo "  make bench        run CONFIG=$(CONFIG) on its host (default: QEMU), then its report"
	@echo "  make bench-trace  ipibench trace summary against xenalyze and cat: times, instructions, the commit"
	@echo "  make bench-boot   BOOT_CONFIG=$(BOOT_CONFIG) on its emulated host: each run's phases, the commit, busy or idle"
	@echo "  make soak         N=BOOTS [SEED=S NIC=M NIC_PER_BOOT=K SOAK_CONFIGS=...]: boots back to back, the stalls counted"
	@echo "  make man          the manual pages, in $(BUILD)/man"
	@echo "  make docs         regenerate docs/commands.md and docs/configs.md from the binary"
	@echo "  make schema-doc   regenerate docs/results-schema.md's field tables from the results contract (counters.h)"
	@echo "  make clean        remove the objects and binaries ($(BUILD)/rel, asan, bin)"
	@echo "Tests (each ends with 'ipibench tests: N passed, N failed'):"
	@echo "  make test         unit tests (ASan+UBSan), fuzz smoke, checks, QEMU integration tests"
	@echo "  make unit         the unit stage only"
	@echo "  make check        the unit tests alone (ASan+UBSan), in parallel: no Xen, QEMU, package or npm"
	@echo "  make integration  the QEMU stage only"
	@echo "  make test-slow    the longer QEMU tests: faults, hotplug on a debug build, topology, instruction counts (CI)"
	@echo "  make test-nmi     NMIs injected into a debug build during a traced run (one of make test-slow's)"
	@echo "  make test-versions  the series on Xen 4.20 and staging from ../shared, release and debug builds (CI)"
	@echo "  make test-host    build (cached) and boot a real Debian 12 + Xen test host image under QEMU"
	@echo "  make test-host-faults  the test host end to end, with the local backend and the fault cases"
	@echo "  make qemu         the test host's QEMU for HVM guests: Debian 13's source with scripts/emu/'s fixes"
	@echo "  make test-guests  the seed-004 guest runs (PVH guests through xl, both IPI paths) on the test host"
	@echo "  make test-guests-nic  seed-004-nic: HVM guests with an emulated e1000e, both MSI paths"
	@echo "  make fuzz         run each fuzz target ($(notdir $(FUZZ_BINS))) for FUZZ_TIME s"
	@echo "  make fuzz-smoke   each fuzz target briefly (part of make unit)"
	@echo "Checks (each part of make unit):"
	@echo "  make shell-lint   no 'PRODUCER | grep -q' under pipefail in the scripts"
	@echo "  make words-lint   no words about how the project was developed, in the tree and the manual pages"
	@echo "  make licence-check  every source file's SPDX line against debian/copyright and licensecheck"
	@echo "  make layering-lint  each part includes of another only its public headers (docs/design.md)"
	@echo "  make xen-style-test  the hypervisor series' CODING_STYLE check on its good and bad samples"
	@echo "  make doc-test     manual pages and docs against --help and the key tables"
	@echo "  make make-help-test  this list against the Makefile's targets"
	@echo "  make hv-script-test  scripts/hv.sh's versions, folders and refusals"
	@echo "  make hv-series-check  the single-source series' markers, scripts/hv-series.py's own tests"
	@echo "  make hv-style     Xen's CODING_STYLE on the lines the series adds, on every Xen line"
	@echo "  make hv-prefix-test  scripts/hv-prefix-build.sh on a stand-in tree: its lines, the first failing prefix, --series"
	@echo "  make apt-sources-test  scripts/deps.sh's apt sources (one-line and deb822) and its three lists"
	@echo "  make host-board-test  the test host's emulated board (about 15 s)"
	@echo "  make ci-template-test  the GitLab CI template, with gitlab-ci-local"
	@echo "  make ci-fetch-test  ci.sh publish fetching the previous history"
	@echo "  make deb-test     lintian and the packages' contents (builds make deb)"
	@echo "Packages and CI:"
	@echo "  make deb          $(BUILD)/deb/ipibench_*.deb and ipibench-xen-4.17_*.deb (dpkg-buildpackage)"
	@echo "  make host-image   the Debian 12 + Xen test host disk image (cached in $(HOST_DIR))"
	@echo "  make ci-publish   smoke report + history + plots into $(BUILD)/ci/public"

# The Debian packages, in three lists (scripts/deps.sh says why each is there):
# make deps what building and make bench need; make deps-test adds what
# the tests need (make test, unit, integration, test-slow run it); make
# deps-ci adds what only CI's targets need (.ci/run runs it).
.PHONY: deps-test deps-ci
deps:
	@bash scripts/deps.sh build
deps-test:
	@bash scripts/deps.sh test
deps-ci:
	@bash scripts/deps.sh ci
# make deps's apt source derivation on both forms of apt sources (fixtures).
.PHONY: apt-sources-test
apt-sources-test:
	@bash tests/deps/test_apt_sources.sh
UNIT_EXTRA += apt-sources-test

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
# summary` spends on a 100 KB trace (docs/measurements.md, "The trace reader's
# speed").  The Debian package links it dynamically (IPIBENCH_STATIC= in
# debian/rules), so that the archive's security updates of jansson & co
# reach it.
# The linker writes its output in small pieces, and the page cache keeps
# them as 4 KiB folios: exec'ing that file cost more at every start (the
# same page faults; docs/measurements.md) than a copy of it written in
# 1 MiB pieces, until the pages leave the cache.  So the binary is linked to $@.ld and copied (cp writes big
# pieces), then renamed over $@ (a running ipibench keeps its old inode).
IPIBENCH_STATIC ?= 1
LDFLAGS_ipibench := $(if $(IPIBENCH_STATIC),-static-pie)
$(BUILD)/bin/ipibench: $(BUILD)/rel/cli/main.o $(LIBS_rel)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@$(if $(IPIBENCH_STATIC), (static-pie))")
	$(Q)$(CC) $(LDFLAGS_rel) $(LDFLAGS_ipibench) $^ $(EXT_LIBS) -o $@.ld
	$(Q)cp $@.ld $@.new && rm -f $@.ld && mv -f $@.new $@
$(BUILD)/asan/bin/ipibench: $(BUILD)/asan/cli/main.o $(LIBS_asan)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_asan) $^ $(EXT_LIBS) -o $@

# The dom0 agent: one static binary against libxen-dev's archives (make
# agent: what a local-backend bench runs here).
AGENT := $(BUILD)/bin/ipibench-agent
.PHONY: agent
agent: $(AGENT)
$(AGENT): $(patsubst %.c,$(BUILD)/rel/%.o,$(agent_SRCS)) $(BUILD)/rel/libprobes.a $(BUILD)/rel/liblib.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@ (static)")
	$(Q)$(CC) -static $(LDFLAGS_rel) $^ $(agent_LIBS) -o $@

# Unit tests: one cmocka binary per test source, sanitizer build.
ALL_TESTS := $(foreach c,$(COMPONENTS) agent,$($(c)_TESTS))
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
# folder (scripts/hv.sh says which); build/xen links to the 4.17 one.
XEN ?= 4.17
HV_ARGS := $(if $(XEN_SRC),--src $(XEN_SRC),$(XEN))
HV_DIR := $(if $(XEN_SRC),$(shell bash scripts/hv.sh --dir $(BUILD) $(HV_ARGS) 2>/dev/null),$(BUILD)/xen-$(XEN))
HV_XEN := $(HV_DIR)/xen
# The build a `make bench XEN=...` or `XEN_SRC=...` runs on (else the config's).
HV_RUN_ARGS := $(if $(XEN_SRC)$(filter command line environment,$(origin XEN)),--xen $(HV_XEN))
hv: deps
	@bash scripts/hv.sh $(BUILD) $(HV_ARGS)
# scripts/hv.sh's versions, folders, series and refusals (no download, no build).
.PHONY: hv-script-test
hv-script-test:
	@bash tests/hv/test_hv_sh.sh
UNIT_EXTRA += hv-script-test
# make hv-prefix-check's script on a stand-in tree (no Xen build).
.PHONY: hv-prefix-test
hv-prefix-test:
	@bash tests/hv/test_hv_prefix.sh
UNIT_EXTRA += hv-prefix-test
# The test host's emulated board against the TCO watchdog reset (docs/guests.md):
# a multiboot stub under QEMU, about 15 s (tests/host/test_tco.sh).
.PHONY: host-board-test
host-board-test:
	@bash tests/host/test_tco.sh
UNIT_EXTRA += host-board-test
# Every tracked shell script through shellcheck, warnings and errors
# (tests/lint/test_shellcheck.sh), and no `PRODUCER | grep -q` in a script
# that sets pipefail: it fails when it matches early in a long output
# (tests/lint/test_pipefail_grep.sh).
.PHONY: shell-lint
shell-lint:
	@bash tests/lint/test_shellcheck.sh; a=$$?; bash tests/lint/test_pipefail_grep.sh && exit $$a
UNIT_EXTRA += shell-lint
# No words about how the project was developed (issue numbers, work
# sessions, dates and load figures as narration, the build machine's
# paths) in the tracked files or the manual pages (tests/lint/words.py).
.PHONY: words-lint
words-lint: man
	@bash tests/lint/test_words.sh $(BUILD)/man
UNIT_EXTRA += words-lint
# Each part includes of another only the headers docs/design.md's Source
# layout table names as its public ones (tests/lint/layering.py).
.PHONY: layering-lint
layering-lint:
	@bash tests/lint/test_layering.sh
UNIT_EXTRA += layering-lint
# debian/copyright true for every tracked file: each SPDX line against the
# Files paragraph of its path and Debian's licensecheck, and an SPDX line
# in every source file (tests/lint/licence.py).
.PHONY: licence-check
licence-check:
	@bash tests/lint/test_licence.sh
UNIT_EXTRA += licence-check
# Xen's CODING_STYLE on the lines a hypervisor series adds to C files
# (tests/lint/xen_style.py): the checker on its good and bad samples.
.PHONY: xen-style-test
xen-style-test:
	@bash tests/lint/test_xen_style.sh
UNIT_EXTRA += xen-style-test
# The check itself on the series, as each line's patches add it
# (scripts/hv-series.py patchset: no tree needed): part of make unit.
HV_LINES := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' hv-patch/lines | awk '{print $$1}')
.PHONY: hv-style
hv-style:
	@set -e; d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	for l in $(HV_LINES); do \
		python3 scripts/hv-series.py patchset --line $$l --out $$d/$$l; \
		python3 tests/lint/xen_style.py $$d/$$l/*.patch; \
		echo "hv-style: the $$l line's $$(ls $$d/$$l | wc -l) patches follow CODING_STYLE"; \
	done
UNIT_EXTRA += hv-style

# The same series with CONFIG_IPIBENCH off (hv-patch/noipibench.config),
# sharing make hv's source package and ccache: what test_faults boots to
# show that the option really compiles the interface out.
HV_OFF_DIR := $(BUILD)/xen-noipibench
hv-off: hv
	@HV_OUT=$(HV_OFF_DIR) HV_FRAGMENT=hv-patch/noipibench.config \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# Every build carries hv-patch/upstream's fixes to Xen itself (a series of
# their own, for xen-devel; docs/hv-series.md): credit2 as it ships strands
# dom0's only vCPU on its runqueue with every pCPU idle after a wake-up
# (docs/stalls.md).  make hv-bare builds the series alone, sharing make
# hv's source package and ccache, to reproduce what the fixes fix
# (configs/repro-credit2-strand.ini).
HV_BARE_DIR := $(HV_DIR)-bare
hv-bare: hv
	@HV_OUT=$(HV_BARE_DIR) HV_UPSTREAM=0 \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# The same series in a debug build, as Xen developers build
# (hv-patch/debug.config: CONFIG_DEBUG, CONFIG_DEBUG_LOCKS), in make hv's
# folder with -debug appended (build/xen-4.17-debug, build/xen-src-ID-debug),
# sharing its source package and ccache: what test_hotplug and
# test_sysctl_abi boot (ITEST_XEN;
# make test-versions' debug/NAME runs, scripts/versions.mk).
HV_DEBUG_DIR := $(HV_DIR)-debug
.PHONY: hv-debug
hv-debug: hv
	@HV_OUT=$(HV_DEBUG_DIR) HV_FRAGMENT=hv-patch/debug.config \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# Every prefix of the series builds and links, release and debug
# (scripts/hv-prefix-build.sh, docs/hv-series.md), for the line of XEN or
# XEN_SRC: the series made as a git tree (scripts/hv.sh with HV_GITTREE), each
# prefix built in one copy of it under $(BUILD)/hv-prefix/, make O= per
# config, one ccache.  Two builds per patch: not part of make test.
HV_PREFIX_TREE := $(BUILD)/hv-prefix/series-$(if $(XEN_SRC),$(notdir $(HV_DIR)),$(XEN))
.PHONY: hv-prefix-check
hv-prefix-check: deps
	@rm -rf $(HV_PREFIX_TREE)
	@HV_GITTREE=$(HV_PREFIX_TREE) bash scripts/hv.sh $(BUILD) $(HV_ARGS)
	@HV_CCACHE_DIR=$${HV_CCACHE_DIR:-$(BUILD)/hv-prefix/ccache} bash scripts/hv-prefix-build.sh \
		-n $$(grep -c . hv-patch/series) $(HV_PREFIX_TREE)

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
		bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# The series plus one test-only patch that takes what is left of the
# high-priority vector pool once every CPU is up
# (tests/integration/data/take-hipriority-pool.patch, never part of
# hv-patch/), sharing make hv's source package and ccache: what
# test_vector_pool boots, for a run that needs the benchmark vector to be
# refused with ENOSPC instead of crashing the host.
HV_POOL_DIR := $(BUILD)/xen-pool-taken
HV_POOL_PATCH := tests/integration/data/take-hipriority-pool.patch
.PHONY: hv-pool-taken
INTERNAL_TARGETS += hv-pool-taken
hv-pool-taken: hv
	@HV_OUT=$(HV_POOL_DIR) HV_PATCH=$(HV_POOL_PATCH) \
		HV_DL_DIR=$(HV_DIR)/dl HV_CCACHE_DIR=$(HV_DIR)/ccache \
		bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# The series as xen-devel reads it: `git format-patch` files and a cover
# letter for the line of XEN (or XEN_SRC's tree), From and Signed-off-by
# your git identity, in build/hv-series/LINE-or-ID/ (scripts/hv-series.py,
# docs/hv-series.md), ready for git send-email.
HV_SERIES_DIR := $(BUILD)/hv-series/$(if $(XEN_SRC),$(notdir $(HV_DIR)),$(XEN))
.PHONY: hv-series hv-series-check
hv-series: deps
	@HV_EXPORT=$(HV_SERIES_DIR) bash scripts/hv.sh $(BUILD) $(HV_ARGS)

# The series' markers and names are sound, and its generator does what it
# says (tests/hv/test_hv_series.py): part of make unit.
hv-series-check:
	@python3 scripts/hv-series.py check
	@python3 scripts/hv-series.py --hv hv-patch/upstream check
	@python3 tests/hv/test_hv_series.py
UNIT_EXTRA += hv-series-check

DOM0_DIR := $(BUILD)/dom0
dom0: deps $(AGENT)
	@bash images/dom0.sh $(DOM0_DIR) $(AGENT)

# make guest: the PVH guest of a [guest] config (configs/seed-004.ini's
# kernel and ramdisk): make dom0's kernel as build/guest/vmlinux and the
# busybox initramfs with the ipbipi module built for it (guest/).
GUEST_DIR := $(BUILD)/guest
.PHONY: guest
guest: deps dom0
	@bash images/guest-initramfs.sh $(GUEST_DIR) $(DOM0_DIR)

# ---- manual pages and the generated docs --------------------------------
# make man: every page in $(BUILD)/man (debian/rules installs them), each
# printed by the binary from the tables its --help and its config parser
# use (lib/opts_doc.c, runner/config_doc.c).  make docs: docs/commands.md and
# docs/configs.md, the same in Markdown (committed; make doc-test fails
# when they are stale).
MAN_DIR := $(BUILD)/man
MAN_VERBS := run boot host trace report history
MAN_PAGES := $(MAN_DIR)/ipibench.1 $(patsubst %,$(MAN_DIR)/ipibench-%.1,$(MAN_VERBS)) \
	$(MAN_DIR)/ipibench-agent.8 $(MAN_DIR)/ipibench.ini.5
.PHONY: man docs doc-test make-help-test
man: $(MAN_PAGES)
$(MAN_DIR)/ipibench.1: $(BUILD)/bin/ipibench
	@mkdir -p $(@D)
	$(Q)$< --help=man >$@.tmp && mv $@.tmp $@
$(MAN_DIR)/ipibench-%.1: $(BUILD)/bin/ipibench
	@mkdir -p $(@D)
	$(Q)$< $* --help=man >$@.tmp && mv $@.tmp $@
$(MAN_DIR)/ipibench-agent.8: $(AGENT)
	@mkdir -p $(@D)
	$(Q)$< --help=man >$@.tmp && mv $@.tmp $@
$(MAN_DIR)/ipibench.ini.5: $(BUILD)/bin/ipibench
	@mkdir -p $(@D)
	$(Q)$< run --list-keys=man >$@.tmp && mv $@.tmp $@
GEN_DOCS := $(BUILD)/gen/docs
$(GEN_DOCS)/commands.md: $(BUILD)/bin/ipibench $(AGENT)
	@mkdir -p $(@D)
	$(Q){ printf '%s\n' '<!-- SPDX-License-Identifier: GPL-3.0-or-later -->' \
	    '<!-- Generated by `make docs` from each command'"'"'s --help=md: edit the' \
	    '     command'"'"'s help and option table, not this file. -->' '# Commands' '' \
	    'Every command of ipibench and its options, as its --help and its manual' \
	    'page say them.  The config file'"'"'s keys are in [configs.md](configs.md).' '' && \
	  $< --help=md && \
	  for v in $(MAN_VERBS); do $< $$v --help=md || exit 1; done && \
	  $(AGENT) --help=md; } >$@.tmp && mv $@.tmp $@
$(GEN_DOCS)/configs.md: $(BUILD)/bin/ipibench
	@mkdir -p $(@D)
	$(Q)$< run --list-keys=md >$@.tmp && mv $@.tmp $@
docs: $(GEN_DOCS)/commands.md $(GEN_DOCS)/configs.md
	cp $(GEN_DOCS)/commands.md docs/commands.md
	cp $(GEN_DOCS)/configs.md docs/configs.md
# The pages render without a warning and name themselves; every option of
# each --help is in its page and in docs/commands.md and nothing else is;
# every config key is in ipibench.ini(5), docs/configs.md and run --list;
# the committed docs are what the binary prints (as git's t0450).
doc-test: man $(GEN_DOCS)/commands.md $(GEN_DOCS)/configs.md
	@bash tests/doc/test_doc.sh $(BUILD)
UNIT_EXTRA += doc-test
make-help-test:
	@bash tests/doc/test_make_help.sh
UNIT_EXTRA += make-help-test

# ---- the Debian packages -------------------------------------------------
# make deb: ipibench_VERSION_amd64.deb (command, agent, manual pages of
# make man, ipibench-resume.service, maintainer scripts),
# ipibench-xen-4.17_VERSION_amd64.deb (make hv's hypervisor) and the source
# package in $(BUILD)/deb, by dpkg-buildpackage in a scratch copy of the
# tracked files (scripts/deb.sh; debian/ says how).  make deb-test: lintian on
# the source and binary packages, their contents, relations and maintainer
# scripts (tests/deb/test_deb.sh), a unit check of the tally.
.PHONY: deb deb-test
deb: deps-test hv
	@bash scripts/deb.sh $(BUILD)
deb-test: deb
	@bash tests/deb/test_deb.sh $(BUILD)
UNIT_EXTRA += deb-test

# ---- the real Debian test host -------------------------------------------
# make host-image: a raw disk of Debian 12 with systemd, GRUB and Debian's
# own Xen 4.17 (mmdebstrap; images/host-image.sh), cached in $(HOST_DIR) by the
# hash of its package list and scripts.  make test-host boots it under QEMU
# through GRUB into Xen and a systemd dom0, logs in on the serial console
# and checks what the host says (scripts/test-host.sh).  Needs root.
HOST_DIR := $(BUILD)/host
.PHONY: host-image test-host
host-image: deps-ci
	@bash images/host-image.sh $(HOST_DIR)
# TEST_HOST_E2E=1: also end to end with the packages (make deb) installed
# on the booted host and a reboot-backend matrix through real reboots.
# TEST_HOST_FAULTS=1 (with TEST_HOST_E2E=1): then backend = local on the
# booted host, a matrix hard reset mid-run and resumed, and a panicking
# entry's Xen that falls back to GRUB's default (scripts/test-host.sh).
# TEST_HOST_BOOT=direct: Xen, kernel and initramfs of the image with QEMU's
# -kernel/-initrd instead of GRUB (login checks only).
test-host: host-image $(if $(TEST_HOST_E2E),deb)
	@$(if $(TEST_HOST_E2E),TEST_HOST_DEBS=$(BUILD)/deb) bash scripts/test-host.sh $(HOST_DIR)
# make test-host-faults: all of it in one boot sequence, as .ci/run runs it
# (= make test-host TEST_HOST_E2E=1 TEST_HOST_FAULTS=1): the end-to-end
# stage, then the local backend, the hard reset and the panicking entry.
.PHONY: test-host-faults
# Its limit (TEST_HOST_TIMEOUT, from QEMU's start) is 45 min, not the
# script's 40: it takes two to three times as long on a busy machine as on
# an idle one (docs/measurements.md).  Not in .ci/run (docs/ci.md says why).
test-host-faults: host-image deb
	@TEST_HOST_DEBS=$(BUILD)/deb TEST_HOST_FAULTS=1 TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-2700} \
		bash scripts/test-host.sh $(HOST_DIR)
# make qemu: the test host's emulator for HVM guests, Debian 13's QEMU
# source with Debian's patches and scripts/emu/qemu-*.patch
# (scripts/qemu-build.sh; docs/stalls.md says why).  Rebuilt when a patch
# changes; the benchmark's own backend keeps the distribution's QEMU.
QEMU_DIR := $(BUILD)/qemu
QEMU_BUILT := $(QEMU_DIR)/qemu-system-x86_64
.PHONY: qemu
qemu: deps
	@bash scripts/qemu-build.sh $(QEMU_DIR)

# make test-guests: configs/seed-004.ini's guest runs on the test host
# (docs/guests.md): the image booted directly on make hv's patched Xen with SVM
# in the emulated CPU, `ipibench run` on it driving a PVH guest per IPI
# path through xl, then checks of results.json, the traces, that no guest
# is left (xl list), and `ipibench report` on the set (scripts/test-host.sh
# TEST_HOST_HVM; its time: docs/measurements.md).  .ci/run runs it.
# GUEST_CONFIGS: the configs run there in turn (TEST_HOST_HVM_CONFIGS);
# `make test-guests-nic` runs configs/seed-004-nic.ini's HVM guests with an
# emulated NIC instead (TEST_HOST_XEN_ARGS adds words to Xen's command line; docs/guests.md).
# Ten minutes without console output is a stall (TEST_HOST_STALL): its
# evidence goes to build/test-guests-nic/stall/.  Not in .ci/run:
# docs/ci.md says why.
GUEST_CONFIGS ?= configs/seed-004.ini
.PHONY: test-guests test-guests-nic
test-guests: host-image hv build guest qemu
	@TEST_HOST_BOOT=direct TEST_HOST_XEN=$(HV_XEN) TEST_HOST_HVM=$(GUEST_DIR) \
		TEST_HOST_QEMU=$${TEST_HOST_QEMU:-$(QEMU_BUILT)} \
		TEST_HOST_HVM_CONFIGS="$(GUEST_CONFIGS)" TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-2400} \
		bash scripts/test-host.sh $(HOST_DIR) $(BUILD)/test-guests
test-guests-nic: host-image hv build guest qemu
	@TEST_HOST_BOOT=direct TEST_HOST_XEN=$(HV_XEN) TEST_HOST_HVM=$(GUEST_DIR) \
		TEST_HOST_QEMU=$${TEST_HOST_QEMU:-$(QEMU_BUILT)} \
		TEST_HOST_HVM_CONFIGS=configs/seed-004-nic.ini TEST_HOST_TIMEOUT=$${TEST_HOST_TIMEOUT:-3600} \
		TEST_HOST_STALL=$${TEST_HOST_STALL:-600} \
		bash scripts/test-host.sh $(HOST_DIR) $(BUILD)/test-guests-nic

# ---- fuzzing (libFuzzer, clang) ----------------------------------------
# Each component's .mk adds its target to FUZZ_BINS (with its own build rule,
# FUZZ_CFLAGS) and names its seeds FUZZ_CORPUS_<name> := DIR (and may give
# libFuzzer options FUZZ_OPTS_<name>: a dictionary, memory limits).  `make fuzz`
# runs each for FUZZ_TIME s; `make fuzz-smoke` (part of make unit and make
# test, each run a test of its own in the tally) shares FUZZ_SMOKE_TIME s
# between them, at least FUZZ_SMOKE_MIN s each (by default 45 s in all,
# but never under 10 s a target).  scripts/fuzz.sh keeps what they find in
# build/fuzz/.
FUZZ_TIME ?= 600
FUZZ_SMOKE_TIME ?= 45
FUZZ_SMOKE_MIN ?= 10
FUZZ_NAMES := $(notdir $(FUZZ_BINS))
FUZZ_SMOKE_EACH := $(shell n=$(words $(FUZZ_NAMES)); t=$$(( $(FUZZ_SMOKE_TIME) / (n ? n : 1) )); \
	echo $$(( t < $(FUZZ_SMOKE_MIN) ? $(FUZZ_SMOKE_MIN) : t )))
define fuzz_rules
.PHONY: fuzz/$(1) fuzz-smoke/$(1)
fuzz/$(1): $(BUILD)/fuzz/$(1)
	@bash scripts/fuzz.sh $$< $(FUZZ_TIME) $$(FUZZ_CORPUS_$(1)) $$(FUZZ_OPTS_$(1))
fuzz-smoke/$(1): $(BUILD)/fuzz/$(1)
	@bash scripts/fuzz.sh $$< $(FUZZ_SMOKE_EACH) $$(FUZZ_CORPUS_$(1)) $$(FUZZ_OPTS_$(1))
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
# failed", whatever failed (tests/tally/tally.c says how it counts), and
# write the stage as TAP to $(TALLY_FILE).tap:
#  - each cmocka binary (unit: TEST_BINS under ASan+UBSan, the tally's own
#    test first; integration: INTEGRATION_BINS) under a time limit, speaking
#    TAP: its declared tests (its plans) against those that passed;
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
# make check: the first tier, the cmocka binaries of the unit stage and
# nothing they would need a Xen or QEMU build, a package or npm for, run
# CHECK_JOBS at a time (default: every CPU, and two more).  test_xenalyze
# then compares with its stored counts only and says so; make unit also
# runs xenalyze.  The binaries that take longest start first (CHECK_FIRST,
# the longest in docs/measurements.md's figures): one started last would
# run on alone.  The two more jobs are for test_guest_nic and test_guest,
# which wait on the guest lifecycle's bounds for nearly all of their
# 11-13 s: with a job each but no CPU's worth of work, the others have the
# CPUs.
CHECK_FIRST := $(addprefix $(BUILD)/asan/,runner/tests/test_guest_nic runner/tests/test_guest \
	probes/tests/test_export analysis/tests/test_hostile analysis/tests/test_report \
	probes/tests/test_hvmpar runner/tests/test_stall analysis/tests/test_history)
CHECK_RUNS := $(addprefix check/,$(filter $(TEST_BINS),$(CHECK_FIRST)) $(TALLY_TEST) \
	$(filter-out $(CHECK_FIRST),$(TEST_BINS)))
CHECK_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 2 )))
# The integration tests that would take make test past about 30 minutes:
# make test-slow (which .ci/run runs after make test) has them.
SLOW_BINS := $(addprefix $(BUILD)/asan/tests/integration/,test_faults test_topology test_insn_counts \
	test_insn_inject test_insn_calls test_hotplug test_sysctl_abi test_testdev test_vector_pool test_nmi \
	test_epyc512 \
	test_stall)
ITEST_RUNS := $(addprefix integration/,$(filter-out $(SLOW_BINS),$(INTEGRATION_BINS)))
SLOW_RUNS := $(addprefix integration/,$(SLOW_BINS))
.PHONY: $(UNIT_RUNS) $(CHECK_RUNS) $(ITEST_RUNS) $(SLOW_RUNS) test-slow check

$(addprefix unit/,$(TALLY_TEST) $(TEST_BINS)): unit/%: % $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(TEST_TIMEOUT) ./$*
$(CHECK_RUNS): check/%: % $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(TEST_TIMEOUT) ./$*
unit/$(BUILD)/asan/probes/tests/test_xenalyze: $(XENALYZE)
# test_abi_drift reads each line's series as its patches (scripts/hv-series.py
# patchset), laid out as IPIBENCH_ROOT/hv-patch/LINE/series.
ABI_ROOT := $(BUILD)/abi-root
ABI_DRIFT_RUNS := $(addsuffix /$(BUILD)/asan/probes/tests/test_abi_drift,unit check)
$(ABI_DRIFT_RUNS): abi-root
$(ABI_DRIFT_RUNS): export IPIBENCH_ROOT := $(abspath $(ABI_ROOT))
INTERNAL_TARGETS += abi-root
.PHONY: abi-root
abi-root:
	@rm -rf $(ABI_ROOT) && mkdir -p $(ABI_ROOT)/hv-patch
	@for l in $(HV_LINES); do \
		python3 scripts/hv-series.py patchset --line $$l --out $(ABI_ROOT)/hv-patch/$$l && \
		(cd $(ABI_ROOT)/hv-patch/$$l && ls *.patch >series) || exit 1; \
	done
	@ln -s $(abspath hv-patch/src) $(ABI_ROOT)/hv-patch/src
$(addprefix unit/,$(UNIT_EXTRA)): unit/%: $(TALLY)
	@$(TALLY) cmd $(TALLY_FILE) $@ $(or $(TIMEOUT_$*),$(EXTRA_TIMEOUT)) \
		$(MAKE) --no-print-directory $*
$(ITEST_RUNS) $(SLOW_RUNS): integration/%: % hv dom0 build $(TALLY)
	@$(TALLY) run $(TALLY_FILE) $@ $(ITEST_TIMEOUT) ./$*
integration/$(BUILD)/asan/tests/integration/test_faults: hv-off
integration/$(BUILD)/asan/tests/integration/test_insn_calls: hv-off
integration/$(BUILD)/asan/tests/integration/test_insn_inject: hv-inject
# test_hotplug boots make hv-debug's 4.17 build (make test-versions: each
# line's, scripts/versions.mk).
integration/$(BUILD)/asan/tests/integration/test_hotplug: hv-debug
integration/$(BUILD)/asan/tests/integration/test_sysctl_abi: hv-debug
integration/$(BUILD)/asan/tests/integration/test_vector_pool: hv-pool-taken
# test_epyc512's 512-CPU host runs on make qemu's emulator ([host] qemu = built).
integration/$(BUILD)/asan/tests/integration/test_epyc512: qemu

# $(call tally_stages,RUNS[,MAKE OPTIONS]): make deps-test and the tally tool
# (without them, the closing line by hand), a fresh tally expecting every
# run, all the runs (make -k: a failure stops nothing else), then the
# closing line.
define tally_stages
	@rm -f $(TALLY_FILE) $(TALLY_FILE).tap; \
	if ! $(MAKE) --no-print-directory deps-test $(TALLY); then \
		echo "ipibench tests: 0 passed, 1 failed"; exit 1; \
	fi; \
	$(TALLY) expect $(TALLY_FILE) $(1) && \
	$(MAKE) -k --no-print-directory $(2) $(1); \
	$(TALLY) total $(TALLY_FILE)
endef
unit:
	$(call tally_stages,$(UNIT_RUNS))
check:
	$(call tally_stages,$(CHECK_RUNS),-j$(CHECK_JOBS))
integration:
	$(call tally_stages,$(ITEST_RUNS))
test:
	$(call tally_stages,$(UNIT_RUNS) $(ITEST_RUNS))
test-slow:
	$(call tally_stages,$(SLOW_RUNS))
.PHONY: test-nmi
integration/$(BUILD)/asan/tests/integration/test_nmi: hv-debug
test-nmi:
	$(call tally_stages,integration/$(BUILD)/asan/tests/integration/test_nmi)
# make test-versions: the series on 4.20 and staging (CI, after test-slow).
include scripts/versions.mk

# The run, then its report (tables, the seed comparison, plots); a run with
# failed parts still gets its report, and make still fails.  First
# `ipibench run --needs` says what CONFIG needs on this machine: the
# targets built next (hv, dom0, plugin, agent, guest: runner/needs.h), or
# one line naming the host it needs (backend = local off a Xen dom0,
# backend = reboot before `ipibench host install`), and nothing more is
# built.  The terminal gets the report's headline (report --summary); the
# whole report is in DIR/report/report.md.  A stopped bench is finished
# with `build/bin/ipibench run --resume DIR`.
# $(call build_needs,CONFIGS): what each config needs built, built (or exit 2
# with the line saying what it needs that make cannot build).
build_needs = for c in $(1); do \
		needs=$$($(BUILD)/bin/ipibench run -c $$c --needs) || exit 2; \
		if [ -n "$$needs" ]; then $(MAKE) --no-print-directory $$needs || exit 2; fi; \
	done
bench: deps $(BUILD)/bin/ipibench
	@$(call build_needs,$(CONFIG))
	@out=$${BENCH_OUT:-results/runs/$(notdir $(basename $(CONFIG)))-$$(date +%Y%m%d-%H%M%S)}; \
	$(BUILD)/bin/ipibench run -c $(CONFIG) -o "$$out" $(HV_RUN_ARGS); rc=$$?; \
	echo; \
	$(BUILD)/bin/ipibench report -q --summary "$$out" -o "$$out/report" || rc=1; \
	echo "bench: results in $$out/"; \
	exit $$rc

# make bench-boot: the time BOOT_CONFIG takes on its emulated host, by run
# and workload, with the commit and whether the machine was busy
# (scripts/bench-boot.sh).
BOOT_CONFIG ?= configs/seed-512cpu.ini
.PHONY: bench-boot
bench-boot: deps $(BUILD)/bin/ipibench
	@$(call build_needs,$(BOOT_CONFIG))
	@bash scripts/bench-boot.sh $(BUILD)/bin/ipibench $(BOOT_CONFIG) $(BUILD)/bench-boot

# make soak: at least N boots of SOAK_CONFIGS back to back, in an order
# SEED draws, then NIC guest sets of test-guests-nic, NIC_PER_BOOT in each
# boot of the test host; how many completed, how
# many stalled and each stall's evidence (scripts/soak.sh, docs/stalls.md).
N ?= 30
SEED ?= 1
NIC ?= 0
NIC_PER_BOOT ?= 1
SOAK_CONFIGS ?= configs/soak-multi.ini configs/soak-single.ini
SOAK_OUT ?= results/soak/soak-$(SEED)
.PHONY: soak
soak: deps $(BUILD)/bin/ipibench
	@$(call build_needs,$(SOAK_CONFIGS))
	@BUILD=$(BUILD) MAKE="$(MAKE)" NIC_PER_BOOT=$(NIC_PER_BOOT) \
		bash scripts/soak.sh $(N) $(SEED) $(SOAK_OUT) $(NIC) $(SOAK_CONFIGS)

# CI publishing: the smoke results of the integration test (or a fresh smoke
# run), its report, and the history with earlier sets from results/history.
CI_SMOKE := $(BUILD)/itest/run/smoke
CI_OUT := $(BUILD)/ci/public
ci-publish: deps-ci hv dom0 build
	@test -f $(CI_SMOKE)/results.json || $(BUILD)/bin/ipibench run -c configs/smoke.ini -o $(CI_SMOKE)
	IPIBENCH_HISTORY_DIR=results/history bash analysis/ci.sh publish $(CI_OUT) $(CI_SMOKE)
	@echo "ci-publish: $(CI_OUT)/index.html"

clean:
	rm -rf $(BUILD)/rel $(BUILD)/asan $(BUILD)/bin

-include $(shell find $(BUILD)/rel $(BUILD)/asan -name '*.d' -type f 2>/dev/null)
