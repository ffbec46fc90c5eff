# SPDX-License-Identifier: GPL-3.0-or-later
# tests/tally/: the tally of make unit/integration/test (ipibench-tally:
# each cmocka binary's TAP counted, the stage's TAP in $(TALLY_FILE).tap)
# and the test that it is honest (test_tally, on fake_suite's misbehaving
# cmocka binaries; the first binary of the unit stage).
TALLY := $(BUILD)/bin/ipibench-tally
TALLY_FILE := $(BUILD)/test-tally
TALLY_FAKE := $(BUILD)/tally/fake_suite
TALLY_TEST := $(BUILD)/asan/tests/tally/test_tally
$(TALLY): tests/tally/tally.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 $< -o $@
$(TALLY_FAKE): tests/tally/fake_suite.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 $< -lcmocka -o $@
$(TALLY_TEST): tests/tally/test_tally.c $(TALLY) $(TALLY_FAKE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(STD) -D_GNU_SOURCE $(WARN) -g $(CFLAGS_asan) \
		-DTALLY='"$(TALLY)"' -DFAKE='"$(TALLY_FAKE)"' $< $(LDFLAGS_asan) -lcmocka -o $@
