# SPDX-License-Identifier: GPL-3.0-or-later
# safeio/: bounded reads of untrusted files, atomic writes, the name rule.
# Used by every other component (and by the dom0 agent).
safeio_SRCS := $(wildcard safeio/*.c)
safeio_TESTS := $(wildcard safeio/tests/test_*.c)
safeio_LIBS := -ljansson
