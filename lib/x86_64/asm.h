/* SPDX-License-Identifier: MIT */
/*
 * Private to the .S files: ENTRY/END for library-internal functions. They
 * are global (registry.c takes their addresses) but hidden, so nothing
 * outside libkflush can bind to them and no call goes through the PLT.
 * The CFI lets debuggers and profilers unwind through them; none of them
 * touches the stack unless it says so with its own .cfi_* directives.
 */
#ifndef KFLUSH_X86_ASM_H
#define KFLUSH_X86_ASM_H

#ifdef __CET__
#include <cet.h>		/* _CET_ENDBR and the IBT/SHSTK property note */
#else
#define _CET_ENDBR
#endif

/* Every entry is reached through a function pointer: keep the endbr64. */
#define ENTRY(name)			\
	.text;				\
	.p2align 4;			\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
name:					\
	.cfi_startproc;			\
	_CET_ENDBR

#define END(name)			\
	.cfi_endproc;			\
	.size name, . - name

#endif /* KFLUSH_X86_ASM_H */
