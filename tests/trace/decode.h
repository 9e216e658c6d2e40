/* SPDX-License-Identifier: MIT */
/*
 * The classifier of the persistence tracer: what one x86-64 instruction
 * does to memory, from its bytes (Capstone) and the registers it runs with.
 * It knows the stores, write-backs and fences a flush-copy can be made of;
 * anything that writes memory some other way, and anything Capstone cannot
 * decode, is reported as unknown so the proof fails instead of looking away.
 */
#ifndef KFLUSH_TRACE_DECODE_H
#define KFLUSH_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum td_kind {
	TD_NONE,		/* no memory write, no write-back, no fence */
	TD_STORE,		/* ordinary (cached) store */
	TD_STORE_NT,		/* non-temporal store: movnt*, movdir64b, clzero */
	TD_STACK,		/* push/call: the return address or a spill, on the stack */
	TD_WB_CLWB,		/* write-back of the line holding addr */
	TD_WB_CLFLUSHOPT,
	TD_WB_CLFLUSH,
	TD_SFENCE,
	TD_MFENCE,
	TD_LFENCE,
	TD_PREFETCH,		/* a prefetch hint: writes nothing; addr is the byte it names */
	TD_UNKNOWN,		/* undecodable, or a memory write the classifier does not model */
};

/*
 * One memory effect. A masked AVX-512 store writes only the bytes whose
 * bit is set in bytemask (bit i = byte addr + i, len <= 64); every other
 * store writes all of [addr, addr + len).
 */
struct td_effect {
	enum td_kind kind;
	uint64_t addr;
	uint64_t len;
	int masked;
	uint64_t bytemask;
};

/* What the classifier needs of the tracee besides its registers. */
struct td_regs {
	struct user_regs_struct r;
	int have_k;		/* k[] valid (read from XSAVE only when needed) */
	uint64_t k[8];		/* AVX-512 opmask registers */
};

/*
 * A decoded instruction, register-independent: cached per address by the
 * driver, so loops cost one Capstone call per distinct instruction.
 */
struct td_insn {
	uint64_t rip;
	unsigned int size;
	enum td_kind kind;
	int string;		/* stos/movs: effect only known after the step */
	int needs_k;		/* masked store: needs the opmask registers */
	int kreg;		/* its opmask register */
	unsigned int elem;	/* its element size */
	int mem_base, mem_index, mem_seg;	/* Capstone x86_reg, 0 if none */
	int mem_scale;
	int64_t mem_disp;
	unsigned int mem_size;
	int addr_reg;		/* movdir64b/clzero: the register holding the address */
	int line_align;		/* clzero: the line holding it */
	unsigned int width;	/* string element width */
	int rep;
	char text[224];		/* mnemonic and operands, for reports */
};

/* Open Capstone once per process; 0 or -1 (message on stderr). */
int td_open(void);
void td_close(void);

/*
 * Decode the instruction in bytes[0, avail) at address rip. Returns 0, or
 * -1 with kind TD_UNKNOWN and text saying why (never a silent skip).
 */
int td_decode(const uint8_t *bytes, size_t avail, uint64_t rip, struct td_insn *in);

/*
 * The effect of running in with registers before. String instructions are
 * resolved from the registers after the step (td_string_effect()).
 * Returns 0, or -1 for an address the classifier cannot compute.
 */
int td_effect(const struct td_insn *in, const struct td_regs *before, struct td_effect *e);
int td_string_effect(const struct td_insn *in, const struct user_regs_struct *before,
		     const struct user_regs_struct *after, struct td_effect *e);

const char *td_kind_name(enum td_kind k);

#endif /* KFLUSH_TRACE_DECODE_H */
