// SPDX-License-Identifier: MIT
/*
 * Capstone decodes; the tables below say what each decoded instruction
 * does to memory. Capstone 4's per-operand access flags are not used: it
 * marks the memory operand of vmovdqu and movnti stores as read-only. So
 * an instruction whose first (destination) operand is in memory must be
 * listed here as a store or as a reader, or it is unknown; a memory
 * operand in any other position is a source (xchg and friends excepted).
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "decode.h"

static csh cs;
static int cs_ready;

int td_open(void)
{
	if (cs_ready)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		fprintf(stderr, "trace: cannot open Capstone for x86-64\n");
		return -1;
	}
	cs_ready = 1;
	return 0;
}

void td_close(void)
{
	if (cs_ready)
		cs_close(&cs);
	cs_ready = 0;
}

static int in_list(unsigned int id, const unsigned int *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == id)
			return 1;
	return 0;
}

#define IN(id, list) in_list((id), (list), sizeof(list) / sizeof((list)[0]))

static const unsigned int nt_stores[] = {
	X86_INS_MOVNTI, X86_INS_MOVNTDQ, X86_INS_MOVNTPS, X86_INS_MOVNTPD, X86_INS_MOVNTQ,
	X86_INS_MOVNTSD, X86_INS_MOVNTSS, X86_INS_VMOVNTDQ, X86_INS_VMOVNTPS, X86_INS_VMOVNTPD,
};

/* Stores of exactly their memory operand's size when it is the destination. */
static const unsigned int plain_stores[] = {
	X86_INS_MOV, X86_INS_MOVABS, X86_INS_MOVBE,
	X86_INS_MOVAPS, X86_INS_MOVAPD, X86_INS_MOVUPS, X86_INS_MOVUPD, X86_INS_MOVDQA,
	X86_INS_MOVDQU, X86_INS_MOVQ, X86_INS_MOVD, X86_INS_MOVSS, X86_INS_MOVSD,
	X86_INS_MOVLPS, X86_INS_MOVHPS, X86_INS_MOVLPD, X86_INS_MOVHPD,
	X86_INS_VMOVDQU, X86_INS_VMOVDQA, X86_INS_VMOVDQU8, X86_INS_VMOVDQU16,
	X86_INS_VMOVDQU32, X86_INS_VMOVDQU64, X86_INS_VMOVDQA32, X86_INS_VMOVDQA64,
	X86_INS_VMOVUPS, X86_INS_VMOVUPD, X86_INS_VMOVAPS, X86_INS_VMOVAPD, X86_INS_VMOVQ,
	X86_INS_VMOVD, X86_INS_VMOVSS, X86_INS_VMOVSD, X86_INS_VMOVLPS, X86_INS_VMOVHPS,
	X86_INS_VMOVLPD, X86_INS_VMOVHPD, X86_INS_VEXTRACTI128, X86_INS_VEXTRACTF128,
	X86_INS_PEXTRB, X86_INS_PEXTRW, X86_INS_PEXTRD, X86_INS_PEXTRQ, X86_INS_VPEXTRB,
	X86_INS_VPEXTRW, X86_INS_VPEXTRD, X86_INS_VPEXTRQ, X86_INS_EXTRACTPS,
	X86_INS_SETAE, X86_INS_SETA, X86_INS_SETBE, X86_INS_SETB, X86_INS_SETE, X86_INS_SETGE,
	X86_INS_SETG, X86_INS_SETLE, X86_INS_SETL, X86_INS_SETNE, X86_INS_SETNO, X86_INS_SETNP,
	X86_INS_SETNS, X86_INS_SETO, X86_INS_SETP, X86_INS_SETS,
	X86_INS_ADD, X86_INS_ADC, X86_INS_SUB, X86_INS_SBB, X86_INS_AND, X86_INS_OR,
	X86_INS_XOR, X86_INS_INC, X86_INS_DEC, X86_INS_NEG, X86_INS_NOT, X86_INS_SHL,
	X86_INS_SHR, X86_INS_SAR, X86_INS_ROL, X86_INS_ROR, X86_INS_POP,
	X86_INS_XCHG, X86_INS_XADD, X86_INS_CMPXCHG,
};

/* Every memory operand of these is written, wherever Capstone puts it. */
static const unsigned int any_pos_writers[] = { X86_INS_XCHG, X86_INS_XADD, X86_INS_CMPXCHG };

/* A memory destination that is only read. */
static const unsigned int op0_readers[] = {
	X86_INS_CMP, X86_INS_TEST, X86_INS_BT, X86_INS_PUSH, X86_INS_CALL, X86_INS_JMP,
	X86_INS_NOP, X86_INS_CMPSB,
	X86_INS_CMPSW, X86_INS_CMPSD, X86_INS_CMPSQ,
};

/* Writes memory without a memory operand the tables above could model. */
static const unsigned int implicit_writers[] = {
	X86_INS_MASKMOVDQU, X86_INS_VMASKMOVDQU, X86_INS_MASKMOVQ, X86_INS_ENTER,
	X86_INS_SYSCALL, X86_INS_SYSENTER, X86_INS_INT, X86_INS_INTO, X86_INS_INT1,
};

/* AVX-512 stores that may carry an opmask, and their element size. */
static const struct {
	unsigned int id, elem;
} masked_stores[] = {
	{ X86_INS_VMOVDQU8, 1 }, { X86_INS_VMOVDQU16, 2 }, { X86_INS_VMOVDQU32, 4 },
	{ X86_INS_VMOVDQA32, 4 }, { X86_INS_VMOVUPS, 4 }, { X86_INS_VMOVAPS, 4 },
	{ X86_INS_VMOVSS, 4 }, { X86_INS_VMOVDQU64, 8 }, { X86_INS_VMOVDQA64, 8 },
	{ X86_INS_VMOVUPD, 8 }, { X86_INS_VMOVAPD, 8 }, { X86_INS_VMOVSD, 8 },
};

static int unknown(struct td_insn *in, const char *why)
{
	in->kind = TD_UNKNOWN;
	snprintf(in->text + strlen(in->text), sizeof(in->text) - strlen(in->text), " (%s)", why);
	return -1;
}

/* Capstone 4 predates MOVDIR64B (66 [REX] 0F 38 F8 /r, r = address) and CLZERO (0F 01 FC). */
static int predecode(const uint8_t *b, size_t avail, struct td_insn *in)
{
	static const int gpr[16] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
		X86_REG_RSI, X86_REG_RDI, X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	size_t i = 0;
	unsigned int rex = 0;

	if (avail >= 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xfc) {
		in->size = 3;
		in->kind = TD_STORE_NT;
		in->addr_reg = X86_REG_RAX;
		in->line_align = 1;
		snprintf(in->text, sizeof(in->text), "clzero");
		return 1;
	}
	if (avail < 6 || b[0] != 0x66)
		return 0;
	i = 1;
	if ((b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (b[i] != 0x0f || b[i + 1] != 0x38 || b[i + 2] != 0xf8 || (b[i + 3] >> 6) == 3)
		return 0;
	in->kind = TD_STORE_NT;
	in->addr_reg = gpr[((b[i + 3] >> 3) & 7) | ((rex & 4) << 1)];
	in->size = 0;	/* not needed: the tracer steps, it never skips ahead */
	snprintf(in->text, sizeof(in->text), "movdir64b");
	return 1;
}

/*
 * The SIB and displacement bytes after a ModRM byte, in 64-bit mode with
 * 64-bit addressing (Intel SDM vol. 2A, 2.1.5, tables 2-2 and 2-3): none
 * for a register operand; a SIB when rm is 4; disp8 for mod 1, disp32 for
 * mod 2, and for mod 0 with rm 5 (RIP-relative) or a SIB base of 5.
 */
static size_t modrm_address_bytes(const uint8_t *m, size_t avail)
{
	unsigned int mod = m[0] >> 6, rm = m[0] & 7;
	size_t sib = mod != 3 && rm == 4;

	if (mod == 3)
		return 0;
	if (mod == 1)
		return sib + 1;
	if (mod == 2 || rm == 5 || (sib && avail > 1 && (m[1] & 7) == 5))
		return sib + 4;
	return sib;
}

/*
 * Capstone 4 cannot decode most VEX opmask instructions (kmovq k1, rcx,
 * which glibc's AVX-512 memset runs before its masked store, kortestq,
 * kandq, ...). In VEX map 0F, opcodes 41-4B, 90-93, 98 and 99 and in map
 * 0F3A 30-33 are only these; the register forms and the load (kmov k, m)
 * touch no memory. The one that stores, kmov m, k (0F 91), stays unknown.
 */
static int predecode_opmask(const uint8_t *b, size_t avail, struct td_insn *in)
{
	size_t vex = b[0] == 0xc5 ? 2 : 3;
	unsigned int map, op, modrm;

	if (avail < vex + 2 || (b[0] != 0xc4 && b[0] != 0xc5))
		return 0;
	map = b[0] == 0xc5 ? 1 : b[1] & 0x1f;
	op = b[vex];
	modrm = b[vex + 1];
	if (map == 1 && !((op >= 0x41 && op <= 0x4b) || (op >= 0x90 && op <= 0x93) ||
			  op == 0x98 || op == 0x99))
		return 0;
	if (map == 3 && (op < 0x30 || op > 0x33))
		return 0;
	if (map != 1 && map != 3)
		return 0;
	snprintf(in->text, sizeof(in->text), "opmask instruction (VEX %s %02x)",
		 map == 1 ? "0F" : "0F3A", op);
	if (map == 1 && op == 0x91) {
		unknown(in, "a store of an opmask register");
		return 1;
	}
	if ((modrm >> 6) != 3 && !(map == 1 && op == 0x90)) {
		unknown(in, "an opmask instruction with a memory operand");
		return 1;
	}
	in->kind = TD_NONE;
	/* Opcode and ModRM, an imm8 in map 0F3A (register forms only), the load's address bytes. */
	in->size = (unsigned int)(vex + 2 + (map == 3) + modrm_address_bytes(b + vex + 1, avail - vex - 1));
	return 1;
}

int td_decode(const uint8_t *bytes, size_t avail, uint64_t rip, struct td_insn *in)
{
	const uint8_t *p = bytes;
	uint64_t addr = rip;
	cs_insn *ci;
	cs_x86 *x;
	int mem = -1, nmem = 0, kreg = 0;

	memset(in, 0, sizeof(*in));
	in->rip = rip;
	if (predecode(bytes, avail, in))
		return 0;
	if (predecode_opmask(bytes, avail, in))
		return in->kind == TD_UNKNOWN ? -1 : 0;
	if (td_open())
		return unknown(in, "no Capstone");
	ci = cs_malloc(cs);
	if (!ci || !cs_disasm_iter(cs, &p, &avail, &addr, ci)) {
		if (ci)
			cs_free(ci, 1);
		snprintf(in->text, sizeof(in->text), "bytes %02x %02x %02x %02x", bytes[0],
			 bytes[1], bytes[2], bytes[3]);
		return unknown(in, "Capstone cannot decode");
	}
	snprintf(in->text, sizeof(in->text), "%s %s", ci->mnemonic, ci->op_str);
	in->size = ci->size;
	x = &ci->detail->x86;
	for (int k = 0; k < x->op_count; k++) {
		if (x->operands[k].type == X86_OP_MEM) {
			if (mem < 0)
				mem = k;
			nmem++;
		} else if (x->operands[k].type == X86_OP_REG &&
			   x->operands[k].reg >= X86_REG_K1 && x->operands[k].reg <= X86_REG_K7) {
			kreg = x->operands[k].reg - X86_REG_K0;
		}
	}
	if (mem >= 0) {
		const cs_x86_op *o = &x->operands[mem];

		in->mem_base = o->mem.base;
		in->mem_index = o->mem.index;
		in->mem_scale = o->mem.scale;
		in->mem_disp = o->mem.disp;
		in->mem_seg = o->mem.segment;
		in->mem_size = o->size;
	}

	switch (ci->id) {
	case X86_INS_CLWB: in->kind = TD_WB_CLWB; break;
	case X86_INS_CLFLUSHOPT: in->kind = TD_WB_CLFLUSHOPT; break;
	case X86_INS_CLFLUSH: in->kind = TD_WB_CLFLUSH; break;
	case X86_INS_SFENCE: in->kind = TD_SFENCE; break;
	case X86_INS_MFENCE: in->kind = TD_MFENCE; break;
	case X86_INS_LFENCE: in->kind = TD_LFENCE; break;
	case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
		in->kind = TD_PREFETCH;
		break;
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
		in->string = 1;
		break;
	case X86_INS_PUSH: case X86_INS_PUSHFQ: case X86_INS_CALL:
		in->kind = TD_STACK;
		break;
	default:
		break;
	}
	/* movsd is also the SSE scalar move: the string form has two memory operands. */
	if (ci->id == X86_INS_MOVSD && nmem == 2)
		in->string = 1;
	if (in->string) {
		in->kind = TD_STORE;
		in->width = in->mem_size;
		in->rep = x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE;
	} else if (in->kind == TD_NONE && IN(ci->id, implicit_writers)) {
		unknown(in, "writes memory implicitly");
	} else if (in->kind == TD_NONE && mem >= 0) {
		int dest = mem == 0 || IN(ci->id, any_pos_writers);

		if (!dest)
			;	/* a source operand */
		else if (kreg) {
			in->kind = TD_UNKNOWN;
			for (size_t i = 0; i < sizeof(masked_stores) / sizeof(masked_stores[0]); i++)
				if (masked_stores[i].id == ci->id) {
					in->kind = TD_STORE;
					in->needs_k = 1;
					in->kreg = kreg;
					in->elem = masked_stores[i].elem;
				}
			if (in->kind == TD_UNKNOWN)
				unknown(in, "masked store of an unmodelled kind");
		} else if (IN(ci->id, nt_stores)) {
			in->kind = TD_STORE_NT;
		} else if (IN(ci->id, plain_stores)) {
			in->kind = TD_STORE;
		} else if (!IN(ci->id, op0_readers)) {
			unknown(in, "memory destination of an unmodelled kind");
		}
	}
	if (in->kind == TD_STORE_NT && kreg)
		unknown(in, "masked non-temporal store");
	cs_free(ci, 1);
	return in->kind == TD_UNKNOWN ? -1 : 0;
}

static int reg_value(const struct user_regs_struct *r, int reg, uint64_t next_rip, uint64_t *v)
{
	switch (reg) {
	case X86_REG_INVALID: *v = 0; return 0;
	case X86_REG_RAX: *v = r->rax; return 0;
	case X86_REG_RBX: *v = r->rbx; return 0;
	case X86_REG_RCX: *v = r->rcx; return 0;
	case X86_REG_RDX: *v = r->rdx; return 0;
	case X86_REG_RSI: *v = r->rsi; return 0;
	case X86_REG_RDI: *v = r->rdi; return 0;
	case X86_REG_RBP: *v = r->rbp; return 0;
	case X86_REG_RSP: *v = r->rsp; return 0;
	case X86_REG_R8: *v = r->r8; return 0;
	case X86_REG_R9: *v = r->r9; return 0;
	case X86_REG_R10: *v = r->r10; return 0;
	case X86_REG_R11: *v = r->r11; return 0;
	case X86_REG_R12: *v = r->r12; return 0;
	case X86_REG_R13: *v = r->r13; return 0;
	case X86_REG_R14: *v = r->r14; return 0;
	case X86_REG_R15: *v = r->r15; return 0;
	case X86_REG_RIP: *v = next_rip; return 0;
	case X86_REG_FS: *v = r->fs_base; return 0;
	case X86_REG_GS: *v = r->gs_base; return 0;
	default: return -1;	/* 32-bit addressing and the like: never silently guessed */
	}
}

int td_effect(const struct td_insn *in, const struct td_regs *before, struct td_effect *e)
{
	const struct user_regs_struct *r = &before->r;
	uint64_t base, index, seg;

	memset(e, 0, sizeof(*e));
	e->kind = in->kind;
	if (in->kind == TD_NONE || in->kind == TD_SFENCE || in->kind == TD_MFENCE ||
	    in->kind == TD_LFENCE || in->kind == TD_UNKNOWN)
		return 0;
	if (in->kind == TD_STACK) {
		e->addr = r->rsp - 8;
		e->len = 8;
		return 0;
	}
	if (in->addr_reg) {
		/* movdir64b and clzero: the 64-byte line at the register's address. */
		if (reg_value(r, in->addr_reg, 0, &base))
			return -1;
		e->addr = in->line_align ? base & ~63ULL : base;
		e->len = 64;
		return 0;
	}
	if (reg_value(r, in->mem_base, in->rip + in->size, &base) ||
	    reg_value(r, in->mem_index, 0, &index) || reg_value(r, in->mem_seg, 0, &seg))
		return -1;
	e->addr = seg + base + index * (uint64_t)in->mem_scale + (uint64_t)in->mem_disp;
	e->len = in->mem_size;
	if ((in->kind >= TD_WB_CLWB && in->kind <= TD_WB_CLFLUSH) || in->kind == TD_PREFETCH)
		e->len = 1;
	if (in->needs_k) {
		uint64_t k = before->have_k ? before->k[in->kreg] : 0;
		unsigned int nelem = in->mem_size / in->elem;

		if (!before->have_k || in->mem_size > 64)
			return -1;
		e->masked = 1;
		for (unsigned int i = 0; i < nelem; i++)
			if (k >> i & 1)
				e->bytemask |= ((1ULL << in->elem) - 1) << (in->elem * i);
	}
	return 0;
}

int td_string_effect(const struct td_insn *in, const struct user_regs_struct *before,
		     const struct user_regs_struct *after, struct td_effect *e)
{
	uint64_t count = in->rep ? before->rcx - after->rcx : 1;
	int down = (before->eflags >> 10) & 1;	/* DF */

	memset(e, 0, sizeof(*e));
	e->kind = TD_STORE;
	if (in->width == 0 || count > (1ULL << 40))
		return -1;
	e->len = count * in->width;
	e->addr = down ? before->rdi + in->width - e->len : before->rdi;
	return 0;
}

const char *td_kind_name(enum td_kind k)
{
	static const char *const names[] = {
		[TD_NONE] = "none", [TD_STORE] = "store", [TD_STORE_NT] = "nt-store",
		[TD_STACK] = "stack", [TD_WB_CLWB] = "clwb", [TD_WB_CLFLUSHOPT] = "clflushopt",
		[TD_WB_CLFLUSH] = "clflush", [TD_SFENCE] = "sfence", [TD_MFENCE] = "mfence",
		[TD_LFENCE] = "lfence", [TD_PREFETCH] = "prefetch", [TD_UNKNOWN] = "unknown",
	};

	return (unsigned int)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
