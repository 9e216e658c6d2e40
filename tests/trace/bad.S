/* SPDX-License-Identifier: MIT */
/*
 * Routines for the tracer's self-tests (tests/test_trace.c): flush-copies
 * that are wrong in exactly one way each, the good ones they are measured
 * against, and instruction samples the classifier decodes but that never
 * run (AVX-512, MOVDIR64B, CLZERO: this CPU may lack them). Written in
 * assembly so no compiler can make a bad routine accidentally good.
 *
 * Copies: rdi = dst (8-byte aligned), rsi = src, rdx = n (a multiple of 8).
 * Flushes: rdi = addr, rsi = len.
 */
	.text

.macro FN name
	.globl \name
	.type \name, @function
	.p2align 4
\name:
.endm

/* movnti words over [rdi, rdi + rdx) from rsi: the body of every copy here. */
.macro NT_COPY
	xor %ecx, %ecx
1:	cmp %rdx, %rcx
	jae 2f
	mov (%rsi,%rcx), %rax
	movnti %rax, (%rdi,%rcx)
	add $8, %rcx
	jmp 1b
2:
.endm

/* Byte stores through the cache over [rdi, rdi + rdx). */
.macro CACHED_COPY from
	mov $\from, %ecx
3:	cmp %rdx, %rcx
	jae 4f
	movzbl (%rsi,%rcx), %eax
	mov %al, (%rdi,%rcx)
	inc %rcx
	jmp 3b
4:
.endm

/* clflush every line touching [rdi, rdi + rdx). */
.macro CLFLUSH_RANGE
	mov %rdi, %rcx
	and $-64, %rcx
	lea (%rdi,%rdx), %r8
5:	cmp %r8, %rcx
	jae 6f
	clflush (%rcx)
	add $64, %rcx
	jmp 5b
6:
.endm

/*
 * \insn on every line touching [rdi, rdi + rdx), right after the stores or
 * (gap = 1) after one more store, to the stack.
 */
.macro WB_RANGE insn, gap
	mov %rdi, %rcx
	and $-64, %rcx
	lea (%rdi,%rdx), %r8
	.if \gap
	movb $0, -8(%rsp)
	.endif
7:	cmp %r8, %rcx
	jae 8f
	\insn (%rcx)
	add $64, %rcx
	jmp 7b
8:
.endm

FN tb_good_nt
	NT_COPY
	ret

FN tb_good_cached_wb
	CACHED_COPY 0
	CLFLUSH_RANGE
	ret

/* Run only where the CPU has the instruction. */
FN tb_cached_clwb
	CACHED_COPY 0
	WB_RANGE clwb, 0
	ret

FN tb_cached_gap_clwb
	CACHED_COPY 0
	WB_RANGE clwb, 1
	ret

FN tb_cached_clflushopt
	CACHED_COPY 0
	WB_RANGE clflushopt, 0
	ret

FN tb_cached_gap_clflushopt
	CACHED_COPY 0
	WB_RANGE clflushopt, 1
	ret

FN tb_no_writeback
	CACHED_COPY 0
	ret

/* Written back, then stored to again: the last store leaves the line dirty. */
FN tb_wb_before_store
	CACHED_COPY 0
	CLFLUSH_RANGE
	movzbl (%rsi), %eax
	mov %al, (%rdi)
	ret

FN tb_mixed
	mov (%rsi), %rax
	movnti %rax, (%rdi)
	CACHED_COPY 8
	CLFLUSH_RANGE
	ret

FN tb_fence
	NT_COPY
	sfence
	ret

FN tb_lfence
	NT_COPY
	lfence
	ret

FN tb_guard
	add $8, %rdx
	NT_COPY
	ret

FN tb_short
	sub $8, %rdx
	NT_COPY
	ret

FN tb_stray
	NT_COPY
	movnti %rax, -4096(%rdi)
	ret

FN tb_wrong_data
	NT_COPY
	xor %eax, %eax
	movnti %rax, (%rdi)
	ret

/* The FPU state over the destination: a memory write no table models. */
FN tb_unknown_writer
	fxsave64 (%rdi)
	ret

/* rdi = dst, esi = byte, rdx = n: rep stosb up, then write the lines back. */
FN tb_rep_stos_up
	mov %esi, %eax
	mov %rdx, %rcx
	mov %rdi, %r9
	rep stosb
	mov %r9, %rdi
	CLFLUSH_RANGE
	ret

/* The same with the direction flag set: from the last byte down. */
FN tb_rep_stos_down
	mov %esi, %eax
	mov %rdx, %rcx
	mov %rdi, %r9
	lea -1(%rdi,%rdx), %rdi
	std
	rep stosb
	cld
	mov %r9, %rdi
	CLFLUSH_RANGE
	ret

/* A write-back routine: the right lines, with clflush (rdi = addr, rsi = len). */
FN tb_flush_clflush
	mov %rsi, %rdx
	test %rdx, %rdx
	jz 7f
	CLFLUSH_RANGE
7:	ret

/* Writes the data back in place with movnti before the write-backs. */
FN tb_flush_nt
	mov (%rdi), %rax
	movnti %rax, (%rdi)
	mov %rsi, %rdx
	CLFLUSH_RANGE
	ret

FN tb_flush_twice
	mov %rsi, %rdx
	CLFLUSH_RANGE
	CLFLUSH_RANGE
	ret

/*
 * The System V register contract, which tt_call() checks at every return:
 * one routine keeps it (saves and restores what it uses), the others break
 * it one way each. No arguments, no memory but the stack.
 */
FN tb_abi_saves
	push %rbx
	push %r12
	xor %ebx, %ebx
	xor %r12d, %r12d
	pop %r12
	pop %rbx
	ret

FN tb_abi_clobbers_r15
	xor %r15d, %r15d
	ret

/* copy_page_mov's pops in the wrong order: each register gets the other's value. */
FN tb_abi_swaps_rbx_r12
	push %rbx
	push %r12
	pop %rbx
	pop %r12
	ret

FN tb_abi_leaves_df
	std
	ret

/* Decoded by the classifier tests, never run. */
FN ts_vmovdqu64_zmm
	vmovdqu64 %zmm0, (%rdi)
FN ts_vmovntdq_zmm
	vmovntdq %zmm0, (%rdi)
FN ts_vmovdqu8_k1
	vmovdqu8 %zmm0, (%rdi){%k1}
FN ts_vmovdqu32_k2
	vmovdqu32 %zmm1, 64(%rdi){%k2}
FN ts_vmovdqu_ymm
	vmovdqu %ymm0, (%rdi)
FN ts_vmovntdq_ymm
	vmovntdq %ymm0, (%rdi)
FN ts_movnti
	movnti %rax, 8(%rdi,%rcx,4)
FN ts_movdir64b
	movdir64b (%rsi), %rdi
FN ts_movdir64b_r9
	movdir64b (%rsi), %r9
FN ts_clzero
	clzero
FN ts_clwb
	clwb 3(%rdi)
FN ts_clflushopt
	clflushopt (%rdi)
FN ts_clflush
	clflush (%rdi)
FN ts_sfence
	sfence
FN ts_lfence
	lfence
FN ts_push
	push %rbx
FN ts_riprel
	movl $1, 16(%rip)
FN ts_rep_stosq
	rep stosq
FN ts_scatter
	vpscatterdd %zmm0, (%rdi,%zmm1,4){%k1}
FN ts_fxsave
	fxsave (%rdi)
FN ts_load
	mov (%rdi), %rax
FN ts_prefetchw
	prefetchw -1(%rdi, %rdx)
FN ts_prefetcht0
	prefetcht0 64(%rsi)
/* Opmask instructions, most of which Capstone 4 cannot decode. */
FN ts_kmovq_gpr
	kmovq %rcx, %k1
FN ts_kmovd_gpr
	kmovd %eax, %k2
FN ts_kmovq_load
	kmovq (%rdi), %k1
FN ts_kmovq_load_disp8
	kmovq 8(%rdi), %k1
FN ts_kmovq_load_sib
	kmovq 0x100(%rdi,%rcx,8), %k1
FN ts_kmovq_load_nobase
	kmovq 0x40(,%rcx,8), %k1
FN ts_kmovq_load_rip
	kmovq ts_kmovq_load(%rip), %k1
FN ts_kortestq
	kortestq %k1, %k2
FN ts_kshiftrq
	kshiftrq $3, %k1, %k2
FN ts_kmovq_store
	kmovq %k1, (%rdi)
FN ts_undecodable
	.byte 0xd6, 0xd6, 0xd6, 0xd6
FN ts_end
	ret

	.section .note.GNU-stack, "", @progbits
