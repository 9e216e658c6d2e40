/* SPDX-License-Identifier: MIT */
/*
 * Private macros for the fault-safe copy's .S file: function entry/end and
 * the exception table. May be merged with lib/x86_64/asm.h later.
 */
#ifndef KFLUSH_X86_ASM_CS_H
#define KFLUSH_X86_ASM_CS_H

#include "x86_64/extable.h"

#ifdef __ASSEMBLER__

/* A hidden (library-internal) function: visible to C, not exported. */
#define CS_FUNC_START(name)		\
	.p2align 4;			\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
name:					\
	.cfi_startproc

#define CS_FUNC_END(name)		\
	.cfi_endproc;			\
	.size name, . - name

/*
 * CS_EXTABLE(insn, fixup): if the instruction at label insn faults, resume
 * at label fixup with every register as it was at the fault. Both fields
 * are PC-relative, so the table needs no relocation in a shared library
 * and stays read-only.
 */
#define CS_EXTABLE(insn, fixup)				\
	.pushsection KFLUSH_EXTABLE_SECTION_S, "a";	\
	.balign 4;					\
	.long (insn) - .;				\
	.long (fixup) - .;				\
	.popsection

#endif /* __ASSEMBLER__ */

#endif /* KFLUSH_X86_ASM_CS_H */
