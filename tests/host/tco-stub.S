/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tests/host/test_tco.sh: a multiboot stub for the test host's QEMU board
 * that does what dom0's iTCO_wdt does at probe on it (drivers/watchdog/
 * iTCO_wdt.c): clear the chipset's NO_REBOOT bit (GCS, in the RCBA) and
 * leave the TCO timer running, then stops petting it: halts for ever.
 * The timer is set to 2 ticks (1.2 s), so its second expiry, the board
 * reset, comes 2.4 s after the reload.  32-bit protected mode, flat, no
 * paging: QEMU's multiboot loader enters it so.
 */
	.set	PMBASE, 0x600		/* SeaBIOS's ACPI PM base on q35 */
	.set	RCBA, 0xfed1c000
	.set	TCO, PMBASE + 0x60	/* ICH9 TCO block: RLD +0, TCO1_CNT +8, TMR +0x12 */

	.section .text
	.code32
	.align	4
	.long	0x1badb002		/* multiboot 1 magic; flags 0: an ELF */
	.long	0
	.long	-0x1badb002

	.globl	start
start:	cli
	/* LPC (0:1f.0) config: PMBASE, ACPI enable, RCBA enable. */
	mov	$0x8000f840, %eax
	mov	$0xcf8, %dx
	out	%eax, %dx
	mov	$(PMBASE | 1), %eax
	mov	$0xcfc, %dx
	out	%eax, %dx
	mov	$0x8000f844, %eax
	mov	$0xcf8, %dx
	out	%eax, %dx
	mov	$0x80, %al
	mov	$0xcfc, %dx
	out	%al, %dx
	mov	$0x8000f8f0, %eax
	mov	$0xcf8, %dx
	out	%eax, %dx
	mov	$(RCBA | 1), %eax
	mov	$0xcfc, %dx
	out	%eax, %dx
	/* GCS: NO_REBOOT (bit 5) cleared, as iTCO_wdt's probe does. */
	movl	$0, RCBA + 0x3410
	/* TCO_TMR = 2 ticks, TCO1_CNT = 0 (timer not halted), one reload. */
	mov	$2, %ax
	mov	$(TCO + 0x12), %dx
	out	%ax, %dx
	xor	%ax, %ax
	mov	$(TCO + 0x08), %dx
	out	%ax, %dx
	mov	$1, %ax
	mov	$TCO, %dx
	out	%ax, %dx
	/* "T" on the debug console: the timer is armed. */
	mov	$'T', %al
	mov	$0xe9, %dx
	out	%al, %dx
1:	hlt
	jmp	1b
