/* SPDX-License-Identifier: MIT */
/*
 * libpmem2's calls that libkflush has nothing to add to, forwarded to the
 * real libpmem2.so.1: each is a tail jump through a slot pmem2_load.c
 * fills from dlsym(). Written here rather than in C because a jump needs
 * no knowledge of the signature: the 46 calls keep their exact ABI
 * (pmem2_perror() is variadic and has no va_list twin a C wrapper could
 * call). A call that arrives before the constructor filled the slots
 * (another library's constructor) takes the slow path, which saves the
 * argument registers, resolves, and jumps on.
 */
#ifdef __CET__
#include <cet.h>
#else
#define _CET_ENDBR
#endif

	.section .data.rel.ro,"aw",@progbits
	.p2align 3
	.globl kflush_pmem2_fwd
	.hidden kflush_pmem2_fwd
kflush_pmem2_fwd:			/* { const char *name; void **slot; }[] */

	.macro FWD name
	.pushsection .bss
	.p2align 3
.Lslot_\name:
	.quad 0
	.popsection
	.pushsection .rodata.str1.1,"aMS",@progbits,1
.Lname_\name:
	.string "\name"
	.popsection
	.quad .Lname_\name, .Lslot_\name
	.pushsection .text
	.p2align 4
	.globl \name
	.type \name, @function
\name:
	.cfi_startproc
	_CET_ENDBR
	movq .Lslot_\name(%rip), %r11
	testq %r11, %r11
	jz 1f
	jmpq *%r11
1:	leaq .Lslot_\name(%rip), %r11
	jmp kflush_pmem2_slow
	.cfi_endproc
	.size \name, . - \name
	.popsection
	.endm

	FWD pmem2_badblock_clear
	FWD pmem2_badblock_context_delete
	FWD pmem2_badblock_context_new
	FWD pmem2_badblock_next
	FWD pmem2_config_delete
	FWD pmem2_config_new
	FWD pmem2_config_set_length
	FWD pmem2_config_set_offset
	FWD pmem2_config_set_protection
	FWD pmem2_config_set_required_store_granularity
	FWD pmem2_config_set_sharing
	FWD pmem2_config_set_vdm
	FWD pmem2_config_set_vm_reservation
	FWD pmem2_deep_flush
	FWD pmem2_map_delete
	FWD pmem2_map_from_existing
	FWD pmem2_map_get_address
	FWD pmem2_map_get_size
	FWD pmem2_map_get_store_granularity
	FWD pmem2_map_new
	FWD pmem2_memcpy_async
	FWD pmem2_memmove_async
	FWD pmem2_memset_async
	FWD pmem2_perror
	FWD pmem2_source_alignment
	FWD pmem2_source_delete
	FWD pmem2_source_device_id
	FWD pmem2_source_device_usc
	FWD pmem2_source_from_anon
	FWD pmem2_source_from_fd
	FWD pmem2_source_get_fd
	FWD pmem2_source_numa_node
	FWD pmem2_source_pread_mcsafe
	FWD pmem2_source_pwrite_mcsafe
	FWD pmem2_source_size
	FWD pmem2_vm_reservation_delete
	FWD pmem2_vm_reservation_extend
	FWD pmem2_vm_reservation_get_address
	FWD pmem2_vm_reservation_get_size
	FWD pmem2_vm_reservation_map_find
	FWD pmem2_vm_reservation_map_find_first
	FWD pmem2_vm_reservation_map_find_last
	FWD pmem2_vm_reservation_map_find_next
	FWD pmem2_vm_reservation_map_find_prev
	FWD pmem2_vm_reservation_new
	FWD pmem2_vm_reservation_shrink

	.globl kflush_pmem2_fwd_end
	.hidden kflush_pmem2_fwd_end
kflush_pmem2_fwd_end:

/*
 * r11 = the slot. Every register an argument can be in (rdi, rsi, rdx,
 * rcx, r8, r9, al for a variadic call, xmm0-7) is saved around the C
 * resolver, which returns what to jump to: the real function, or a stub
 * that fails with -ENOSYS when the real library is missing.
 * The vector registers sit at the bottom of the frame: a callee whose
 * variadic prologue puts its own save area where this one's was (PMDK's
 * pmem2_perror() does) must not find the right values left there by
 * chance when al was lost.
 */
	.text
	.p2align 4
	.type kflush_pmem2_slow, @function
kflush_pmem2_slow:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq $-16, %rsp
	subq $192, %rsp
	movq %rdi, 128(%rsp)
	movq %rsi, 136(%rsp)
	movq %rdx, 144(%rsp)
	movq %rcx, 152(%rsp)
	movq %r8, 160(%rsp)
	movq %r9, 168(%rsp)
	movq %rax, 176(%rsp)
	movdqa %xmm0, 0(%rsp)
	movdqa %xmm1, 16(%rsp)
	movdqa %xmm2, 32(%rsp)
	movdqa %xmm3, 48(%rsp)
	movdqa %xmm4, 64(%rsp)
	movdqa %xmm5, 80(%rsp)
	movdqa %xmm6, 96(%rsp)
	movdqa %xmm7, 112(%rsp)
	movq %r11, %rdi
	call kflush_pmem2_resolve
	movq %rax, 184(%rsp)
	movq 128(%rsp), %rdi
	movq 136(%rsp), %rsi
	movq 144(%rsp), %rdx
	movq 152(%rsp), %rcx
	movq 160(%rsp), %r8
	movq 168(%rsp), %r9
	movq 176(%rsp), %rax
	movdqa 0(%rsp), %xmm0
	movdqa 16(%rsp), %xmm1
	movdqa 32(%rsp), %xmm2
	movdqa 48(%rsp), %xmm3
	movdqa 64(%rsp), %xmm4
	movdqa 80(%rsp), %xmm5
	movdqa 96(%rsp), %xmm6
	movdqa 112(%rsp), %xmm7
	movq 184(%rsp), %r11
	leave
	.cfi_def_cfa %rsp, 8
	jmpq *%r11
	.cfi_endproc
	.size kflush_pmem2_slow, . - kflush_pmem2_slow

	.section .note.GNU-stack,"",@progbits
