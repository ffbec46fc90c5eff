#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# QEMU with the irq_delivery test device (QEMU's edu) added behind the
# runner's back: with `ipibench boot --no-test-device --qemu` this, Xen's
# command line does not name it (test_testdev.c).
exec qemu-system-x86_64 -device edu,bus=pcie.0,addr=0x1 "$@"
