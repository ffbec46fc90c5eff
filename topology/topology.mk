# SPDX-License-Identifier: GPL-3.0-or-later
# topology/: CPU topologies (QEMU's APIC ID numbering), the named machine
# profiles, the x2APIC layout they give and the ICR writes a send costs in
# each mode.  Pure arithmetic, no I/O; used by the runner and analysis.
topology_SRCS := $(wildcard topology/*.c)
topology_TESTS := $(wildcard topology/tests/test_*.c)
topology_LIBS := -ljansson
