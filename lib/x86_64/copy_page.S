/* SPDX-License-Identifier: MIT */
/*
 * copy_page variants (algorithm from arch/x86/lib/copy_page_64.S,
 * implementation ours) plus seed 004's
 * rep movsb (7.5 % faster than rep movsq on Haswell) and its split into
 * separately bound functions.
 *
 * Input:  rdi = to, rsi = from (both 4096-byte aligned, no overlap)
 * Output: none. Clobbers rax, rcx, rdx, rsi, rdi, r8-r11, flags;
 *         copy_page_mov saves and restores rbx and r12 itself.
 */
#include "x86_64/asm.h"

#define PAGE_SIZE	4096
#define PREFETCH_LINES	5	/* how far ahead copy_page_mov prefetches */

ENTRY(copy_page_rep_movsb)
	movl	$PAGE_SIZE, %ecx
	rep movsb
	ret
END(copy_page_rep_movsb)

ENTRY(copy_page_rep_movsq)
	movl	$PAGE_SIZE / 8, %ecx
	rep movsq
	ret
END(copy_page_rep_movsq)

/* One line: all eight loads issue before the first store. */
.macro copy_line
	movq	0(%rsi), %rax
	movq	8(%rsi), %rdx
	movq	16(%rsi), %r8
	movq	24(%rsi), %r9
	movq	32(%rsi), %r10
	movq	40(%rsi), %r11
	movq	48(%rsi), %rbx
	movq	56(%rsi), %r12
	movq	%rax, 0(%rdi)
	movq	%rdx, 8(%rdi)
	movq	%r8, 16(%rdi)
	movq	%r9, 24(%rdi)
	movq	%r10, 32(%rdi)
	movq	%r11, 40(%rdi)
	movq	%rbx, 48(%rdi)
	movq	%r12, 56(%rdi)
	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
.endm

/*
 * Without fast strings: a register loop that prefetches the source a few
 * lines ahead. The last lines run without the prefetch so it never pulls
 * in the line after the source page, which the caller did not ask for.
 */
ENTRY(copy_page_mov)
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0

	movl	$PAGE_SIZE / 64 - PREFETCH_LINES, %ecx
.Lprefetch_loop:
	prefetcht0 PREFETCH_LINES * 64(%rsi)
	copy_line
	decl	%ecx
	jnz	.Lprefetch_loop

	movl	$PREFETCH_LINES, %ecx
.Llast_lines:
	copy_line
	decl	%ecx
	jnz	.Llast_lines

	popq	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore r12
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
	ret
END(copy_page_mov)

	.section .note.GNU-stack, "", @progbits
