# SPDX-License-Identifier: GPL-3.0-or-later
# lib/: what every other part builds on, none of it specific to one verb:
# the option tables every command parses and prints its --help and
# manual from (opts), the one engine of a config's keys, the workloads'
# params among them (keys), bounded reads of untrusted files, atomic writes and
# the name rule (safeio), running another program (spawn), and the x2APIC
# arithmetic of CPU topologies (topology: QEMU's APIC ID numbering, the
# named machine profiles, the layout and the ICR writes a send costs in
# each mode; no I/O).  Used by every part, the dom0 agent included.
lib_SRCS := $(wildcard lib/*.c)
lib_TESTS := $(wildcard lib/tests/test_*.c)
lib_LIBS := -ljansson
