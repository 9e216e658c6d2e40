/* SPDX-License-Identifier: MIT */
/*
 * The exception table: one entry per instruction that may fault on a
 * caller's address, naming where to resume (the kernel's __ex_table).
 * The .S side emits entries with EXTABLE(); fault.c looks the faulting
 * RIP up in it from the SIGSEGV/SIGBUS handler.
 */
#ifndef KFLUSH_X86_EXTABLE_H
#define KFLUSH_X86_EXTABLE_H

/*
 * The section's name is a C identifier, so the linker defines __start_ and
 * __stop_ symbols for it; each module that links it in has its own.
 */
#ifdef __ASSEMBLER__

/*
 * EXTABLE(insn, fixup): if the instruction at label insn faults, resume at
 * label fixup with every register as it was at the fault. Both fields are
 * PC-relative, so the table needs no relocation in a shared library and
 * stays read-only.
 */
#define EXTABLE(insn, fixup)				\
	.pushsection __kflush_extable, "a";		\
	.balign 4;					\
	.long (insn) - .;				\
	.long (fixup) - .;				\
	.popsection

#else
#include <stddef.h>
#include <stdint.h>

/* Both offsets are relative to the address of the field that holds them. */
struct kflush_extable_entry {
	int32_t insn;
	int32_t fixup;
};

#define KFLUSH_EXTABLE_START __start___kflush_extable
#define KFLUSH_EXTABLE_STOP __stop___kflush_extable

/* Hidden, so the references are PC-relative and resolved at link time. */
extern const struct kflush_extable_entry KFLUSH_EXTABLE_START[]
	__attribute__((visibility("hidden")));
extern const struct kflush_extable_entry KFLUSH_EXTABLE_STOP[]
	__attribute__((visibility("hidden")));

/* Functions in copy_safe.S (hidden; copy_safe_entry.c wraps them). */
size_t copy_safe_rep_movsb_asm(void *dst, const void *src, size_t n);
size_t copy_safe_erms_asm(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_overlap_asm(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_linus_asm(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_first_asm(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_asm(void *dst, const void *src, size_t n);
#endif /* __ASSEMBLER__ */

#endif /* KFLUSH_X86_EXTABLE_H */
