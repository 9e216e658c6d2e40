/* SPDX-License-Identifier: MIT */
/*
 * clear_page and clear_pages variants: algorithm from
 * arch/x86/lib/clear_page_64.S (implementation ours), with
 * seed 004's split into separately bound functions (no branch per page)
 * and the 2026 clear_pages: one rep stos over the whole extent, because
 * the string engine only sees the extent's real size that way (AMD Zen
 * stops allocating in the cache for regions larger than L3).
 *
 * clear_page_*:  Input: rdi = page (4096-byte aligned)
 * clear_pages_*: Input: rdi = addr (4096-byte aligned), rsi = npages
 * Output: none. Clobbers rax, rcx, rdi and the flags (rep_stosq_page rdx
 * too); rsi is preserved.
 */
#include "x86_64/asm.h"

#define PAGE_SIZE 4096

ENTRY(clear_page_rep_stosb)
	movl	$PAGE_SIZE, %ecx
	xorl	%eax, %eax
	rep stosb
	ret
END(clear_page_rep_stosb)

ENTRY(clear_page_rep_stosq)
	movl	$PAGE_SIZE / 8, %ecx
	xorl	%eax, %eax
	rep stosq
	ret
END(clear_page_rep_stosq)

/* Without fast strings: the extent loop below, for one page's 64 lines. */
ENTRY(clear_page_mov)
	movl	$PAGE_SIZE / 64, %ecx
	jmp	.Lclear_lines
END(clear_page_mov)

ENTRY(clear_pages_rep_stosb)
	movq	%rsi, %rcx
	shlq	$12, %rcx		/* npages * 4096 bytes */
	xorl	%eax, %eax
	rep stosb
	ret
END(clear_pages_rep_stosb)

ENTRY(clear_pages_rep_stosq)
	movq	%rsi, %rcx
	shlq	$9, %rcx		/* npages * 512 qwords */
	xorl	%eax, %eax
	rep stosq
	ret
END(clear_pages_rep_stosq)

/*
 * The extent a page at a time, one rep stosq each: for a CPU whose long
 * string stores run slower than page-sized ones (cpu_rules.c, Zen 2).
 */
ENTRY(clear_pages_rep_stosq_page)
	movq	%rsi, %rdx
	xorl	%eax, %eax
	testq	%rdx, %rdx
	jz	.Lpages_done
.Lpages_loop:
	movl	$PAGE_SIZE / 8, %ecx
	rep stosq
	decq	%rdx
	jnz	.Lpages_loop
.Lpages_done:
	ret
END(clear_pages_rep_stosq_page)

ENTRY(clear_pages_mov)
	movq	%rsi, %rcx
	shlq	$6, %rcx		/* npages * 64 lines */
	jz	.Lclear_done
	/* rcx lines from rdi: eight qword stores, one line, per pass. */
.Lclear_lines:
	xorl	%eax, %eax
.Lclear_loop:
	movq	%rax, 0(%rdi)
	movq	%rax, 8(%rdi)
	movq	%rax, 16(%rdi)
	movq	%rax, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rax, 40(%rdi)
	movq	%rax, 48(%rdi)
	movq	%rax, 56(%rdi)
	leaq	64(%rdi), %rdi
	decq	%rcx
	jnz	.Lclear_loop
.Lclear_done:
	ret
END(clear_pages_mov)

	.section .note.GNU-stack, "", @progbits
