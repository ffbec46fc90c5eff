# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Sourced by scripts/test-host.sh and tests/host/test_tco.sh: the test host's
# emulated board, as QEMU options in the array test_host_board.
#
# q35, the machine of the QEMU backend (runner/backends/qemu.c): x2APIC,
# VT-d interrupt remapping (with -device intel-iommu, test-host.sh).
# max-ram-below-4g=1G: of the 2 GiB, 1 GiB is above 4 GiB.  GRUB runs its
# modules at the top of the RAM below 4 GiB and Xen takes its first pages
# (the CPUs' stacks) from the top of all RAM; with all 2 GiB below 4 GiB
# these were the same pages.  QEMU's TCG sends every write to a page that
# still has translated code through its slow path (TB invalidation), and
# GRUB's stale blocks outside the bytes the stack writes keep it there:
# 40,000-180,000 such writes a second to Xen's two stack pages (trace
# memory_notdirty_write_access), Xen and dom0 >10x slower than with
# -kernel.  With 1 GiB above 4 GiB: none, as with -kernel.  An emulation
# artefact: a real host does not need it.
#
# ICH9-LPC.noreboot=on: the ICH9 TCO watchdog's "no reboot" strap.  QEMU's
# TCO1_CNT resets to 0, the timer not halted (hw/acpi/tco.c:
# TCO1_CNT_DEFAULT), so dom0's iTCO_wdt finds the watchdog running at
# probe, clears the chipset's NO_REBOOT bit and leaves it clear, and the
# kernel's watchdog core pets it (TCO_RLD) every 15 s of a 30 s timeout
# from then on.  The second expiry without a pet is a board reset
# (tco_timer_expired: watchdog_perform_action, QEMU's default action
# reset), which -no-reboot turns into QEMU exiting with status 0: the whole
# host gone, no message anywhere.  Under nested TCG an HVM guest starves
# dom0 that long (docs/guests.md).  With
# the strap an expiry is only counted, never acted on.  A real host's
# watchdog is its own business: this is the emulated board's.
# TEST_HOST_TCO_RESET=1 leaves QEMU's default, to see the reset happen.
# shellcheck disable=SC2054 # QEMU's options are comma-separated
test_host_board=(-machine q35,kernel-irqchip=split,max-ram-below-4g=1G)
[ "${TEST_HOST_TCO_RESET:-}" = 1 ] || test_host_board+=(-global ICH9-LPC.noreboot=on)
