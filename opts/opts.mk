# SPDX-License-Identifier: GPL-3.0-or-later
# opts/: the option tables every command parses and prints its --help from.
# Used by runner/, analysis/ and probes/.
opts_SRCS := $(wildcard opts/*.c)
opts_TESTS := $(wildcard opts/tests/test_*.c)
opts_LIBS :=
