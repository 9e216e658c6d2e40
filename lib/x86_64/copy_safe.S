/* SPDX-License-Identifier: MIT */
/*
 * Fault-safe copy: the algorithm of the kernel's rep_movs_alternative()
 * (arch/x86/lib/copy_user_64.S; implementation ours)
 * with seed 001's overlapping short tail, and the rep movsq tail variants
 * the thread argued about, so the benchmark can settle it.
 *
 * Every variant follows the C ABI: rdi dst, rsi src, rdx n; returns in rax
 * the bytes NOT copied. copy_safe_entry.c wraps each one (the signal mask and
 * the handler it needs), and the registry hands out the wrappers. Each load or store of caller memory has an
 * exception table entry. A fixup turns the registers at the fault into
 * "rcx bytes left from rsi to rdi" and retries in the byte loop, which
 * stops on exactly the first byte that faults: that retry, not the
 * hardware's granularity, is what makes the returned count exact.
 * Nothing is stored past the faulting byte.
 */
#include "x86_64/asm.h"
#include "x86_64/extable.h"

	.text

/*
 * Every entry: rcx = n, and copies under 64 bytes take the shared short
 * path (word loop with seed 001's overlapping tail, or bytes).
 * Input:  rdx n.  Output: rcx n; falls through only when n >= 64.
 */
.macro SHORT_OR_LARGE
	movq %rdx,%rcx
	cmpq $64,%rcx
	jb .Lshort
.endm

/*
 * Split the aligned remainder for rep movsq.
 * Input:  rcx bytes.  Output: rcx qwords, rax the 0..7 tail bytes.
 */
.macro SPLIT_QWORDS
	movq %rcx,%rax
	shrq $3,%rcx
	andl $7,%eax
.endm

/*
 * Head of every rep movsq path (n >= 64): copy the first qword, then step
 * both pointers by 8 - (dst & 7) so dst is aligned for rep movsq.
 * Input:  rdi dst, rsi src, rcx n >= 64
 * Output: rdi aligned, rsi and rcx moved along with it (rcx >= 56)
 */
.macro ALIGN_DST
1:	movq (%rsi),%rax
2:	movq %rax,(%rdi)
	movl %edi,%eax
	andl $7,%eax
	negl %eax
	addl $8,%eax
	addq %rax,%rsi
	addq %rax,%rdi
	subq %rax,%rcx
	EXTABLE(1b, .Lbytes)
	EXTABLE(2b, .Lbytes)
.endm

/*
 * copy_safe_movsq_asm - the non-ERMS path: rep movsq, byte tail (mainline)
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi clobbered
 *
 * Also holds the short path and the byte loop that every variant shares.
 */
ENTRY(copy_safe_movsq_asm)
	SHORT_OR_LARGE
	ALIGN_DST
	SPLIT_QWORDS
10:	rep movsq
	movl %eax,%ecx
	jmp .Lbytes

	/* rcx qwords and rax tail bytes were left when a qword faulted. */
11:	leaq (%rax,%rcx,8),%rcx
	jmp .Lbytes

	EXTABLE(10b, 11b)

/*
 * Short path, 0..63 bytes: qwords, then the last 1..7 bytes as one qword
 * that overlaps bytes already copied (seed 001) instead of a byte loop.
 * A fault anywhere leaves rsi/rdi at the first byte not yet copied and rcx
 * counting from there, so the byte loop finishes exactly.
 * Input:  rdi dst, rsi src, rcx n < 64
 * Output: rax bytes not copied
 */
.Lshort:
	cmpl $8,%ecx
	jb .Lbytes
.Lword:
20:	movq (%rsi),%rax
21:	movq %rax,(%rdi)
	addq $8,%rsi
	addq $8,%rdi
	subl $8,%ecx
	jz .Lzero
	cmpl $8,%ecx
	jae .Lword
22:	movq -8(%rsi,%rcx),%rax
23:	movq %rax,-8(%rdi,%rcx)
.Lzero:
	xorl %eax,%eax
	ret

	EXTABLE(20b, .Lbytes)
	EXTABLE(21b, .Lbytes)
	EXTABLE(22b, .Lbytes)
	EXTABLE(23b, .Lbytes)

/*
 * Byte loop: short tails and the exact retry after every fault.
 * Input:  rdi dst, rsi src, rcx bytes (may be 0)
 * Output: rax bytes not copied (rcx at the byte that faulted, else 0)
 */
.Lbytes:
	testq %rcx,%rcx
	jz .Lout
.Lbyte:
30:	movb (%rsi),%al
31:	movb %al,(%rdi)
	incq %rsi
	incq %rdi
	decq %rcx
	jnz .Lbyte
.Lout:
	movq %rcx,%rax
	ret

	EXTABLE(30b, .Lout)
	EXTABLE(31b, .Lout)
END(copy_safe_movsq_asm)

/*
 * copy_safe_rep_movsb_asm - FSRM: rep movsb for every size
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi clobbered
 *
 * rep movsb stops with rcx/rsi/rdi at the faulting iteration; the byte
 * retry re-faults at once when that is exact and costs nothing otherwise.
 */
ENTRY(copy_safe_rep_movsb_asm)
	movq %rdx,%rcx
40:	rep movsb
	xorl %eax,%eax
	ret

	EXTABLE(40b, .Lbytes)
END(copy_safe_rep_movsb_asm)

/*
 * copy_safe_erms_asm - ERMS without FSRM: the short path below 64 bytes
 * (rep movsb's startup cost dominates there), rep movsb from 64
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi clobbered
 */
ENTRY(copy_safe_erms_asm)
	SHORT_OR_LARGE
41:	rep movsb
	xorl %eax,%eax
	ret

	EXTABLE(41b, .Lbytes)
END(copy_safe_erms_asm)

/*
 * copy_safe_movsq_tail_overlap_asm - benchmark only: rep movsq, then the last
 * 1..7 bytes as one qword overlapping the rep movsq's last store (seed
 * 001's short-path trick carried to the large path; Guzik measured it
 * doubling the 128 -> 129 B penalty on Sapphire Rapids)
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi clobbered
 */
ENTRY(copy_safe_movsq_tail_overlap_asm)
	SHORT_OR_LARGE
	ALIGN_DST
	SPLIT_QWORDS
50:	rep movsq
	testl %eax,%eax
	jz 53f
51:	movq -8(%rsi,%rax),%rdx
52:	movq %rdx,-8(%rdi,%rax)
	xorl %eax,%eax
53:	ret

54:	leaq (%rax,%rcx,8),%rcx
	jmp .Lbytes
55:	movl %eax,%ecx
	jmp .Lbytes

	EXTABLE(50b, 54b)
	EXTABLE(51b, 55b)
	EXTABLE(52b, 55b)
END(copy_safe_movsq_tail_overlap_asm)

/*
 * copy_safe_movsq_tail_linus_asm - benchmark only: rep movsq stops one qword
 * early; the last 8 + (n & 7) bytes are two qwords that overlap each other
 * but never a rep movsq store, and there is no branch after rep movsq
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi clobbered
 */
ENTRY(copy_safe_movsq_tail_linus_asm)
	SHORT_OR_LARGE
	ALIGN_DST
	/* rcx >= 56, so at least 6 qwords remain for rep movsq. */
	SPLIT_QWORDS
	decq %rcx			/* the last whole qword goes with the tail */
60:	rep movsq
61:	movq (%rsi),%rdx
62:	movq %rdx,(%rdi)
63:	movq (%rsi,%rax),%rdx
64:	movq %rdx,(%rdi,%rax)
	xorl %eax,%eax
	ret

	/* In rep movsq: rcx qwords, then the 8 + rax byte tail. */
65:	leaq 8(%rax,%rcx,8),%rcx
	jmp .Lbytes
	/* In the first tail qword: nothing of the tail copied yet. */
66:	leal 8(%rax),%ecx
	jmp .Lbytes
	/* In the second: its first 8 - rax bytes were the first qword's. */
67:	addq $8,%rsi
	addq $8,%rdi
	movl %eax,%ecx
	jmp .Lbytes

	EXTABLE(60b, 65b)
	EXTABLE(61b, 66b)
	EXTABLE(62b, 66b)
	EXTABLE(63b, 67b)
	EXTABLE(64b, 67b)
END(copy_safe_movsq_tail_linus_asm)

/*
 * copy_safe_movsq_tail_first_asm - benchmark only: store the last qword first
 * (Herton), then rep movsq of whole qwords with no tail after it
 * Input:  rdi dst, rsi src, rdx n
 * Output: rax bytes not copied; rcx, rdx, rsi, rdi, r8, r9 clobbered
 *
 * The early tail store lands past any fault rep movsq might take, so the
 * old destination qword is kept in r8 and put back by the fixup: nothing
 * after the faulting byte differs from before the call (a concurrent
 * reader could see the tail briefly). The extra load hits the line the
 * store has to own anyway.
 */
ENTRY(copy_safe_movsq_tail_first_asm)
	SHORT_OR_LARGE
	ALIGN_DST
70:	movq -8(%rsi,%rcx),%rax
71:	movq -8(%rdi,%rcx),%r8
72:	movq %rax,-8(%rdi,%rcx)
	leaq -8(%rdi,%rcx),%r9
	SPLIT_QWORDS
73:	rep movsq
	xorl %eax,%eax
	ret

	/*
	 * The faulting byte precedes the tail qword (that qword was read and
	 * written already), so restoring it cannot undo the byte retry.
	 */
74:	movq %r8,(%r9)
	leaq (%rax,%rcx,8),%rcx
	jmp .Lbytes

	EXTABLE(70b, .Lbytes)
	EXTABLE(71b, .Lbytes)
	EXTABLE(72b, .Lbytes)
	EXTABLE(73b, 74b)
END(copy_safe_movsq_tail_first_asm)

	.section .note.GNU-stack, "", @progbits
