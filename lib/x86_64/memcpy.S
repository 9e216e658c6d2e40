/* SPDX-License-Identifier: MIT */
/*
 * kflush_memcpy() variants: algorithm from arch/x86/lib/memcpy_64.S and
 * seed 000, implementation ours.
 *
 * All six share the SysV memcpy contract:
 *   Input:  rdi = dst, rsi = src, rdx = n (no overlap)
 *   Output: rax = dst
 *   Clobbers rcx, rdx, rsi, rdi, r8-r11 and the flags (tuned,
 *   tuned_prefetchw and avx2 also ymm0-ymm7); no stack use.
 *
 * Inside the scalar routine rcx carries the count and rdx is scratch, so
 * the ERMS entry can test n >= 2048 by shifting rdx without having to
 * reload the count that rep movsb needs (seed 000).
 */
#include "x86_64/asm.h"

/*
 * memcpy_orig's forward pass: 32 bytes per pass in four qword registers,
 * then the shared tail. Each entry has its own copy and falls into it:
 * jumping from the tuned and ERMS entries into one shared copy cost them
 * 3-11 % against memcpy_orig at 32-96 B hot on a Zen 3 (libkflush(7)).
 *
 * "False dependence": a load whose address matches an earlier,
 * still-pending store in the low 12 bits is held back as if it aliased
 * it. Going forward, that happens when the source runs just behind the
 * destination in the page; the kernel's cheap proxy is a signed compare
 * of the low address bytes, and when the source's is lower it copies
 * from the end down instead (one shared backward pass: a taken jump
 * either way).
 */
.macro FORWARD_PASS
	cmpb	%dil, %sil
	jl	.Lbackward
	subq	$32, %rcx		/* borrow below means: fewer than 32 left */
1:	movq	0(%rsi), %r8
	movq	8(%rsi), %r9
	movq	16(%rsi), %r10
	movq	24(%rsi), %r11
	leaq	32(%rsi), %rsi
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	leaq	32(%rdi), %rdi
	subq	$32, %rcx
	jae	1b
	addl	$32, %ecx		/* 0..31 left; also clears rcx[63:32] */
	jmp	.Ltail
.endm

/*
 * Loads or stores (vmovdqu) of consecutive pieces, 16 bytes each (w = x:
 * xmm) or 32 (w = y: ymm): the listed registers, one piece each from
 * disp(base, index) up. VEX-encoded throughout: a legacy SSE instruction
 * next to a caller's dirty upper ymm state is slow on Intel.
 */
.macro VPIECES load, w, disp, base, index, regs:vararg
	.set .Ld, \disp
	.irp r, \regs
	.ifb \index
	VPIECE \load, \w, \r, .Ld(\base)
	.else
	VPIECE \load, \w, \r, .Ld(\base, \index)
	.endif
	.ifc \w, x
	.set .Ld, .Ld + 16
	.else
	.set .Ld, .Ld + 32
	.endif
	.endr
.endm

.macro VPIECE load, w, r, mem:vararg
	.if \load
	vmovdqu	\mem, %\w\()mm\r
	.else
	vmovdqu	%\w\()mm\r, \mem
	.endif
.endm

.macro VLOAD args:vararg
	VPIECES 1, \args
.endm

.macro VSTORE args:vararg
	VPIECES 0, \args
.endm

/* FSRM: rep movsb is fast from the first byte, so it is the whole routine. */
ENTRY(memcpy_fsrm)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	rep movsb
	ret
END(memcpy_fsrm)

/*
 * The AVX copy, instantiated three times below: "tuned" (movsb = 1),
 * "tuned_prefetchw" (the same with prefetch = 1) and "avx2" (movsb = 0,
 * no rep movsb at any size). Under 32 B it is memcpy_orig's
 * tail; from 32 to 256 B, AVX loads and stores (16 bytes to 64 B, 32
 * above) from both ends, all loads first, as glibc does (user space may
 * use vector registers, the kernel's memcpy may not); above, a loop of
 * 32-byte pieces. A 64-byte hot copy took memcpy_orig twice as long as glibc's
 * memcpy on a Zen 3, and a 16-byte loop ran 0.7-0.8x a 32-byte one L1-hot
 * at 512 B-2 KiB (libkflush(7)).
 *
 * tuned is the kernel's choice made per CPU, from kflush_memcpy_tuning
 * (a per-CPU rule sets it, strings.c): rep movsb from movsb_min bytes, and
 * below it, or when avoid_near is set and (dst - src) mod 64 is 1..31
 * (where that CPU's rep movsb crawls), a copy without it: the loop up to
 * movsb_min, memcpy_orig's forward or backward pass at a near distance
 * from movsb_min on. avx2 is for a CPU whose rep movsb does not pay on
 * the whole: on AMD family 0x17 model 0x31 it crawls at those distances
 * and wins only aligned L2-hot copies (libkflush(7)).
 *
 * prefetch = 1 asks for the destination's lines for writing (prefetchw)
 * before anything else: its first and last line on entry, and in the AVX
 * copy up to 256 B every line between them. A store to a line the core
 * does not hold waits in the store buffer for the line's read for
 * ownership, which starts only as the store leaves; the hint starts it
 * at once, for every line. On Intel family 6 model 0xa7 (copy-bench
 * memcpy, two runs of 21 rounds, geometric means of each class) that made
 * tuned 1.19x as fast at 1-96 B hot (L2, the bench's 256 KiB window) and
 * 1.27-1.28x cold, 1.10x and 1.15-1.16x at 97 B-2 KiB, 1.01x from 2 KiB;
 * in L1 (a direct timing walking 16 KiB) 0.87-1.00x at 16-256 B, the
 * hints' own cost. A hint in the loop as well, 256 B ahead, gained cold
 * copies from 384 B another 1.1-1.2x but cost up to 0.6x in L1 at 1-2
 * KiB, so the loop has none. prefetcht0 ran the same (single-threaded, a
 * line no other core holds comes in exclusive either way); prefetchw
 * also takes a line another core shares without a second request when
 * the store comes.
 *
 * A prefetch neither faults nor changes memory: for n = 0 the two hints
 * fall on dst's line and the one before it, which costs less than a test
 * of n (1-3 % at 1-96 B hot). The variant's entry starts a 64-byte line:
 * where the assembler put it (16-byte aligned), the hints cost 0.3-0.6
 * ns a call at 80-192 B in L1 (0.71-0.86x tuned's speed, a direct timing,
 * medians of 31 rounds), and nothing measurable with it on a line of its
 * own (0.92-1.08x).
 *
 * All clobber ymm0-ymm7 as well (all caller-saved), and leave the upper
 * halves zero.
 */
.macro VEC_MEMCPY fn, movsb, prefetch=0
.if \prefetch
	.text
	.p2align 6
.endif
ENTRY(\fn)
	movq	%rdi, %rax
	movq	%rdx, %rcx
.if \prefetch
	prefetchw	(%rdi)
	prefetchw	-1(%rdi, %rdx)
.endif
	cmpq	$32, %rdx
	jb	.Ltail
.if \movsb
	cmpq	kflush_memcpy_tuning(%rip), %rdx	/* .movsb_min */
	jae	.L\fn\()_long
.L\fn\()_short:
.endif
	cmpq	$64, %rdx
	ja	.L\fn\()_over64
	/* 32..64: two 16-byte pieces from each end (no ymm: no vzeroupper). */
	VLOAD	x, 0, %rsi, , 0, 1
	VLOAD	x, -32, %rsi, %rdx, 2, 3
	VSTORE	x, 0, %rdi, , 0, 1
	VSTORE	x, -32, %rdi, %rdx, 2, 3
	ret

.if \movsb
.L\fn\()_long:
	cmpl	$0, kflush_memcpy_tuning+8(%rip)	/* .avoid_near */
	je	.L\fn\()_movsb
	movl	%edi, %r8d
	subl	%esi, %r8d
	andl	$63, %r8d
	subl	$1, %r8d		/* 1..31 -> 0..30; 0 -> 0xffffffff */
	cmpl	$31, %r8d
	jb	.L\fn\()_short
.L\fn\()_movsb:
	rep movsb
	ret
.endif

.L\fn\()_over64:
.if \prefetch
	prefetchw	64(%rdi)	/* n > 64: the line after dst's */
.endif
	cmpq	$128, %rdx
	ja	.L\fn\()_over128
	/* 65..128: two 32-byte pieces from each end. */
	VLOAD	y, 0, %rsi, , 0, 1
	VLOAD	y, -64, %rsi, %rdx, 2, 3
	VSTORE	y, 0, %rdi, , 0, 1
	VSTORE	y, -64, %rdi, %rdx, 2, 3
	vzeroupper
	ret

.L\fn\()_over128:
	cmpq	$256, %rdx
	ja	.L\fn\()_over256
.if \prefetch
	/* With dst, dst + 64, dst + n - 1: no two hints over 64 B apart. */
	prefetchw	128(%rdi)
	prefetchw	-65(%rdi, %rdx)
.endif
	/* 129..256: four from each end. */
	VLOAD	y, 0, %rsi, , 0, 1, 2, 3
	VLOAD	y, -128, %rsi, %rdx, 4, 5, 6, 7
	VSTORE	y, 0, %rdi, , 0, 1, 2, 3
	VSTORE	y, -128, %rdi, %rdx, 4, 5, 6, 7
	vzeroupper
	ret

	/*
	 * From 257 B (tuned: up to movsb_min): passes over whole destination
	 * lines, the first and last 64 bytes loaded first and stored last
	 * (the passes start at the first line boundary past dst and may end
	 * short of the last 64). Aligned stores: on an Intel Emerald Rapids
	 * the unaligned loop ran hot copies at random offsets 0.83-0.87x rep
	 * movsb from 1 KiB, where every other store split a line. The loop
	 * starts on a 32-byte boundary: on AMD family 0x17 model 0x31 where
	 * the assembler happened to put it decided 8 KiB L1-hot copies, 95
	 * or 133 ns (a direct timing, best of 7).
	 *
	 * tuned moves one line (two ymm) per pass: a 128-byte pass ran cold
	 * copies of 768 B to 1 KiB 0.85-0.9x this one on a Zen 3, and hot
	 * ones no faster. avx2 moves two (four ymm), then one if a line is
	 * left: on AMD family 0x17 model 0x31, L1-hot direct timings (best
	 * of 7) 512 B 8.7-9.5 -> 7.5-7.9 ns, 2 KiB 23.6-24.6 -> 21.6-22.2, 8
	 * KiB 88-89 -> 80.5-81 (glibc 7.2-8.2, 22, 80-87); copy-bench memcpy
	 * over glibc, two alternations: hot random from 2 KiB 0.90-0.91 ->
	 * 0.96-0.97, at 97 B-2 KiB 0.94-0.96 -> 0.97-0.99, cold random
	 * 1.04-1.08 -> 1.00-1.03 (over orig unchanged there, 1.32-1.35).
	 */
.L\fn\()_over256:
.if \movsb
	cmpq	kflush_memcpy_tuning(%rip), %rdx	/* .movsb_min */
	jae	.L\fn\()_scalar	/* a long copy at a near distance */
.endif
	VLOAD	y, 0, %rsi, , 6, 7
	VLOAD	y, -64, %rsi, %rdx, 4, 5
	movq	%rdi, %r9
	leaq	-64(%rdi, %rdx), %r8
	movl	%edi, %ecx
	andl	$63, %ecx
	negl	%ecx
	addl	$64, %ecx		/* 1..64 bytes to the next line */
	addq	%rcx, %rdi
	addq	%rcx, %rsi
	subq	%rcx, %rdx
	subq	$64, %rdx		/* > 256 - 64 - 64 */
	.p2align 5
.if \movsb
1:	VLOAD	y, 0, %rsi, , 0, 1
	VSTORE	y, 0, %rdi, , 0, 1
	addq	$64, %rsi
	addq	$64, %rdi
	subq	$64, %rdx
	ja	1b
.else
1:	VLOAD	y, 0, %rsi, , 0, 1, 2, 3
	VSTORE	y, 0, %rdi, , 0, 1, 2, 3
	subq	$-128, %rsi
	subq	$-128, %rdi
	addq	$-128, %rdx
	cmpq	$64, %rdx		/* signed: may have gone below 0 */
	jg	1b
	testq	%rdx, %rdx
	jle	2f
	VLOAD	y, 0, %rsi, , 0, 1
	VSTORE	y, 0, %rdi, , 0, 1
2:
.endif
	VSTORE	y, 0, %r9, , 6, 7
	VSTORE	y, 0, %r8, , 4, 5
	vzeroupper
	ret

.if \movsb
	/* Near distances from movsb_min on: memcpy_orig's passes. */
.L\fn\()_scalar:
	FORWARD_PASS
.endif
END(\fn)
.endm

VEC_MEMCPY memcpy_tuned, 1
VEC_MEMCPY memcpy_tuned_prefetchw, 1, 1
VEC_MEMCPY memcpy_avx2, 0

/*
 * ERMS without FSRM: rep movsb has a start-up cost that only pays off on
 * long copies (seed 000 measured 32..256 B copies 16-112 % slower with it),
 * so below 2048 B this is memcpy_orig. Copies under 32 B never see the
 * extra shift.
 */
ENTRY(memcpy_erms)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	cmpq	$32, %rdx
	jb	.Ltail
	shrq	$11, %rdx		/* zero iff n < 2048; rcx keeps n */
	jnz	.Lerms_movsb
	FORWARD_PASS
.Lerms_movsb:
	rep movsb
	ret
END(memcpy_erms)

/* The kernel's memcpy_orig; its backward pass and tail serve all entries. */
ENTRY(memcpy_orig)
	movq	%rdi, %rax
	movq	%rdx, %rcx
	cmpq	$32, %rcx
	jb	.Ltail
	FORWARD_PASS

.Lbackward:
	addq	%rcx, %rsi
	addq	%rcx, %rdi
	subq	$32, %rcx
.Lbackward_loop:
	movq	-8(%rsi), %r8
	movq	-16(%rsi), %r9
	movq	-24(%rsi), %r10
	movq	-32(%rsi), %r11
	leaq	-32(%rsi), %rsi
	movq	%r8, -8(%rdi)
	movq	%r9, -16(%rdi)
	movq	%r10, -24(%rdi)
	movq	%r11, -32(%rdi)
	leaq	-32(%rdi), %rdi
	subq	$32, %rcx
	jae	.Lbackward_loop
	addl	$32, %ecx
	/* What is left is the head: step back to the start of the buffers. */
	subq	%rcx, %rsi
	subq	%rcx, %rdi

	/*
	 * 0..31 bytes at rsi/rdi, count in rcx (upper half zero). Each size
	 * class is two loads from each end that may overlap in the middle,
	 * so no size needs a loop or a byte-by-byte walk.
	 */
.Ltail:
	cmpl	$16, %ecx
	jb	.Lunder16
	movq	0(%rsi), %r8
	movq	8(%rsi), %r9
	movq	-16(%rsi, %rcx), %r10
	movq	-8(%rsi, %rcx), %r11
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, -16(%rdi, %rcx)
	movq	%r11, -8(%rdi, %rcx)
	ret

	.p2align 4
.Lunder16:
	cmpl	$8, %ecx
	jb	.Lunder8
	movq	(%rsi), %r8
	movq	-8(%rsi, %rcx), %r9
	movq	%r8, (%rdi)
	movq	%r9, -8(%rdi, %rcx)
	ret

	.p2align 4
.Lunder8:
	cmpl	$4, %ecx
	jb	.Lunder4
	movl	(%rsi), %r8d
	movl	-4(%rsi, %rcx), %r9d
	movl	%r8d, (%rdi)
	movl	%r9d, -4(%rdi, %rcx)
	ret

	.p2align 4
.Lunder4:
	/* 1..3 bytes: bytes 0, 1 and n-1 (1 and n-1 coincide for n = 2). */
	subl	$1, %ecx
	jb	.Ldone			/* n == 0 */
	movzbl	(%rsi), %r8d
	jz	.Lone			/* n == 1; movzbl kept the flags */
	movzbl	1(%rsi), %r9d
	movzbl	(%rsi, %rcx), %r10d
	movb	%r9b, 1(%rdi)
	movb	%r10b, (%rdi, %rcx)
.Lone:
	movb	%r8b, (%rdi)
.Ldone:
	ret
END(memcpy_orig)

	.section .note.GNU-stack, "", @progbits
