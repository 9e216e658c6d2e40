// SPDX-License-Identifier: MIT
/*
 * The persistence tracer must be able to fail. The classifier is shown
 * instruction bytes assembled in tests/trace/bad.S (AVX-512, MOVDIR64B and
 * CLZERO included, which it decodes without running), and the whole
 * checker traces routines that are wrong in one way each: each must be
 * reported as exactly that violation, and the good ones as none.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "kflush.h"
#include "trace/harness.h"

/* tests/trace/bad.S */
#define SAMPLES(X) X(ts_vmovdqu64_zmm) X(ts_vmovntdq_zmm) X(ts_vmovdqu8_k1) \
	X(ts_vmovdqu32_k2) X(ts_vmovdqu_ymm) X(ts_vmovntdq_ymm) X(ts_movnti)   \
	X(ts_movdir64b) X(ts_movdir64b_r9) X(ts_clzero) X(ts_clwb)            \
	X(ts_clflushopt) X(ts_clflush) X(ts_sfence) X(ts_lfence) X(ts_push)   \
	X(ts_riprel) X(ts_rep_stosq) X(ts_scatter) X(ts_fxsave) X(ts_load) X(ts_prefetchw) X(ts_prefetcht0)    \
	X(ts_kmovq_gpr) X(ts_kmovd_gpr) X(ts_kmovq_load) X(ts_kmovq_load_disp8)  \
	X(ts_kmovq_load_sib) X(ts_kmovq_load_nobase) X(ts_kmovq_load_rip) X(ts_kortestq) \
	X(ts_kshiftrq) X(ts_kmovq_store) X(ts_undecodable) X(ts_end)
#define DECLARE(f) void f(void);
SAMPLES(DECLARE)
void tb_good_nt(void), tb_good_cached_wb(void), tb_no_writeback(void);
void tb_wb_before_store(void), tb_mixed(void), tb_fence(void), tb_lfence(void);
void tb_guard(void), tb_short(void), tb_stray(void), tb_wrong_data(void);
void tb_unknown_writer(void), tb_rep_stos_up(void), tb_rep_stos_down(void);
void tb_flush_clflush(void), tb_flush_twice(void), tb_flush_nt(void);
void tb_cached_clwb(void), tb_cached_gap_clwb(void);
void tb_cached_clflushopt(void), tb_cached_gap_clflushopt(void);
void tb_abi_saves(void), tb_abi_clobbers_r15(void), tb_abi_swaps_rbx_r12(void);
void tb_abi_leaves_df(void);

#define RDI 0x10000040ULL

static struct td_effect classify(void (*f)(void), struct td_regs *r, enum td_kind kind)
{
	struct td_insn in;
	struct td_effect e;
	uint64_t rip = (uint64_t)(uintptr_t)f;

	td_decode((const uint8_t *)(uintptr_t)f, 16, rip, &in);
	cr_assert_eq(in.kind, kind, "%s: classified %s, not %s", in.text, td_kind_name(in.kind),
		     td_kind_name(kind));
	if (kind != TD_UNKNOWN && !in.string)
		cr_assert_eq(td_effect(&in, r, &e), 0, "%s: no address", in.text);
	else
		memset(&e, 0, sizeof(e));
	return e;
}

static struct td_regs regs(void)
{
	struct td_regs r;

	memset(&r, 0, sizeof(r));
	r.r.rdi = RDI;
	r.r.rsi = 0x20000000;
	r.r.rcx = 3;
	r.r.rdx = 0x21;
	r.r.rax = 0x30000077;
	r.r.r9 = 0x40000080;
	r.r.rsp = 0x7ff000;
	r.have_k = 1;
	r.k[1] = 0x0f;
	r.k[2] = 0x5;
	return r;
}

#define EXPECT(e, a, l) do {								\
		cr_assert_eq((e).addr, (uint64_t)(a), "address %#llx", (unsigned long long)(e).addr); \
		cr_assert_eq((e).len, (uint64_t)(l), "length %llu", (unsigned long long)(e).len); \
	} while (0)

/*
 * The AVX-512 block loop and page clear: vmovntdq zmm is one NT line,
 * vmovdqu64 zmm (what _mm512_storeu_si512 compiles to) a cached one, so
 * that swap leaves every body line dirty, as the checker below shows.
 */
Test(classifier, avx512_line_stores)
{
	struct td_regs r = regs();
	struct td_effect e;

	e = classify(ts_vmovdqu64_zmm, &r, TD_STORE);
	EXPECT(e, RDI, 64);
	cr_assert(!e.masked);
	e = classify(ts_vmovntdq_zmm, &r, TD_STORE_NT);
	EXPECT(e, RDI, 64);
	e = classify(ts_vmovdqu_ymm, &r, TD_STORE);
	EXPECT(e, RDI, 32);
	e = classify(ts_vmovntdq_ymm, &r, TD_STORE_NT);
	EXPECT(e, RDI, 32);
}

/* Masked stores write the bytes of the elements whose opmask bit is set. */
Test(classifier, masked_stores)
{
	struct td_regs r = regs();
	struct td_effect e;

	e = classify(ts_vmovdqu8_k1, &r, TD_STORE);
	EXPECT(e, RDI, 64);
	cr_assert(e.masked);
	cr_assert_eq(e.bytemask, 0x0fULL);
	e = classify(ts_vmovdqu32_k2, &r, TD_STORE);
	EXPECT(e, RDI + 64, 64);
	cr_assert_eq(e.bytemask, 0x0f0fULL, "k2=0b101 over dwords: %#llx",
		     (unsigned long long)e.bytemask);
	r.have_k = 0;
	{
		struct td_insn in;

		td_decode((const uint8_t *)(uintptr_t)ts_vmovdqu8_k1, 16, 0, &in);
		cr_assert(in.needs_k);
		cr_assert_eq(td_effect(&in, &r, &e), -1, "a masked store without its mask");
	}
}

Test(classifier, nt_line_stores_capstone_lacks)
{
	struct td_regs r = regs();
	struct td_effect e;

	e = classify(ts_movdir64b, &r, TD_STORE_NT);
	EXPECT(e, RDI, 64);
	e = classify(ts_movdir64b_r9, &r, TD_STORE_NT);
	EXPECT(e, 0x40000080, 64);
	e = classify(ts_clzero, &r, TD_STORE_NT);
	EXPECT(e, 0x30000040, 64);	/* the line holding rax */
	e = classify(ts_movnti, &r, TD_STORE_NT);
	EXPECT(e, RDI + 8 + 3 * 4, 8);
}

Test(classifier, writebacks_fences_stack)
{
	struct td_regs r = regs();
	struct td_effect e;

	e = classify(ts_clwb, &r, TD_WB_CLWB);
	EXPECT(e, RDI + 3, 1);
	classify(ts_clflushopt, &r, TD_WB_CLFLUSHOPT);
	classify(ts_clflush, &r, TD_WB_CLFLUSH);
	classify(ts_sfence, &r, TD_SFENCE);
	classify(ts_lfence, &r, TD_LFENCE);
	e = classify(ts_push, &r, TD_STACK);
	EXPECT(e, 0x7ff000 - 8, 8);
	classify(ts_load, &r, TD_NONE);
	/* A hint names one byte and writes nothing (lines.c leaves every line as it is). */
	e = classify(ts_prefetchw, &r, TD_PREFETCH);
	EXPECT(e, RDI + 0x21 - 1, 1);
	e = classify(ts_prefetcht0, &r, TD_PREFETCH);
	EXPECT(e, 0x20000000 + 64, 1);
	e = classify(ts_riprel, &r, TD_STORE);
	/* movl $imm32, disp32(%rip) is 10 bytes: the address is after it. */
	EXPECT(e, (uint64_t)(uintptr_t)ts_riprel + 10 + 16, 4);
}

Test(classifier, rep_stos_by_register_delta)
{
	struct td_insn in;
	struct td_effect e;
	struct user_regs_struct b, a;

	td_decode((const uint8_t *)(uintptr_t)ts_rep_stosq, 16, 0, &in);
	cr_assert(in.string && in.rep && in.width == 8, "%s", in.text);
	memset(&b, 0, sizeof(b));
	b.rdi = RDI;
	b.rcx = 10;
	a = b;
	a.rcx = 7;
	cr_assert_eq(td_string_effect(&in, &b, &a, &e), 0);
	EXPECT(e, RDI, 24);
	b.eflags = 1u << 10;	/* DF: downwards, the first element at rdi */
	cr_assert_eq(td_string_effect(&in, &b, &a, &e), 0);
	EXPECT(e, RDI - 16, 24);
}

/*
 * glibc's AVX-512 memset sets its store mask with kmovq k1, rcx, which
 * Capstone 4 cannot decode; opmask instructions write no memory but kmov
 * to memory, which is not modelled.
 */
Test(classifier, opmask_instructions)
{
	struct td_regs r = regs();

	classify(ts_kmovq_gpr, &r, TD_NONE);
	classify(ts_kmovd_gpr, &r, TD_NONE);
	classify(ts_kmovq_load, &r, TD_NONE);
	classify(ts_kortestq, &r, TD_NONE);
	classify(ts_kshiftrq, &r, TD_NONE);
	classify(ts_kmovq_store, &r, TD_UNKNOWN);
}

/*
 * Their lengths, from the encodings (Intel SDM vol. 2A, 2.1.5 and the
 * VEX prefix): 2- or 3-byte VEX, opcode, ModRM, then SIB, displacement
 * and the immediate of the 0F3A forms.
 */
Test(classifier, opmask_lengths)
{
	static const struct {
		void (*f)(void);
		unsigned int size;
	} cases[] = {
		{ ts_kmovq_gpr, 5 },		/* c4 e1 fb 92 c9 */
		{ ts_kmovd_gpr, 4 },		/* c5 fb 92 d0 */
		{ ts_kmovq_load, 5 },		/* c4 e1 f8 90 0f */
		{ ts_kmovq_load_disp8, 6 },	/* ... 4f 08 */
		{ ts_kmovq_load_sib, 10 },	/* ... 8c cf 00 01 00 00 */
		{ ts_kmovq_load_nobase, 10 },	/* ... 0c cd 40 00 00 00 */
		{ ts_kmovq_load_rip, 9 },	/* ... 0d rel32 */
		{ ts_kortestq, 5 },		/* c4 e1 f8 98 d1 */
		{ ts_kshiftrq, 6 },		/* c4 e3 f9 31 d1 03 */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct td_insn in;

		td_decode((const uint8_t *)(uintptr_t)cases[i].f, 16, (uint64_t)(uintptr_t)cases[i].f,
			  &in);
		cr_expect_eq(in.size, cases[i].size, "%s: %u bytes, the encoding has %u", in.text,
			     in.size, cases[i].size);
	}
}

/* Never a silent skip: what it cannot decode or does not model is unknown. */
Test(classifier, unknown_is_reported)
{
	struct td_regs r = regs();

	classify(ts_scatter, &r, TD_UNKNOWN);
	classify(ts_fxsave, &r, TD_UNKNOWN);
	classify(ts_undecodable, &r, TD_UNKNOWN);
}

/* The checker fed the AVX-512 line stores directly: storeu leaves a dirty line. */
Test(classifier, avx512_storeu_line_is_dirty)
{
	static unsigned char buf[6 * 64] __attribute__((aligned(64)));
	struct tl_expect x = {
		.dst = (uint64_t)(uintptr_t)(buf + 128), .n = 64,
		.win_lo = (uint64_t)(uintptr_t)buf, .win_hi = (uint64_t)(uintptr_t)(buf + 320),
		.wb = TD_WB_CLWB,
	};
	struct td_regs r = regs();
	struct tl_state s = { 0 };
	struct td_insn in;
	struct td_effect e;

	r.r.rdi = x.dst;
	for (int bad = 0; bad < 2; bad++) {
		void (*f)(void) = bad ? ts_vmovdqu64_zmm : ts_vmovntdq_zmm;

		td_decode((const uint8_t *)(uintptr_t)f, 16, (uint64_t)(uintptr_t)f, &in);
		cr_assert_eq(td_effect(&in, &r, &e), 0);
		tl_begin(&s, &x);
		tl_sink(&s, &in, &e);
		tl_finish(&s);
		cr_assert_eq(s.count[TL_DIRTY], (size_t)bad, "%s: %zu dirty lines", in.text,
			     s.count[TL_DIRTY]);
		cr_assert_eq(tl_failures(&s), (size_t)bad);
	}
	tl_free(&s);
}

TestSuite(checker, .init = tp_setup, .fini = tp_teardown);

/*
 * Trace fn over n bytes at doff: the violation `want` must be reported and
 * no other, bar the unwritten or wrong bytes that follow from it (TL_NR:
 * a good routine, nothing may be reported).
 */
static void expect_only(const char *name, void (*fn)(void), enum tp_shape shape, size_t doff,
			size_t n, enum td_kind wb, enum tl_violation want)
{
	struct tp_call c = {
		.name = name, .fn = (const void *)fn, .shape = shape, .doff = doff, .n = n,
		.c = 0x5a, .wb = wb,
	};
	char msg[1024] = "";
	size_t bad = tp_run(&c, msg, sizeof(msg));
	const struct tl_state *s = tp_last();

	if (want == TL_NR) {
		cr_assert_eq(bad, 0, "a good routine failed: %s", msg);
		return;
	}
	cr_assert(s->count[want], "%s: not reported as %s: %s", name, tl_violation_name(want),
		  bad ? msg : "no violation at all");
	for (int v = 0; v < TL_NR; v++)
		if (v != want && v != TL_DATA && v != TL_UNWRITTEN)
			cr_assert_eq(s->count[v], 0, "%s: also %s: %s", name,
				     tl_violation_name((enum tl_violation)v), msg);
	cr_log_info("%s caught: %s", name, msg);
}

Test(checker, good_routines_pass)
{
	expect_only("nt copy", tb_good_nt, TP_COPY, 0, 136, TD_WB_CLWB, TL_NR);
	expect_only("cached copy + clflush", tb_good_cached_wb, TP_COPY, 8, 200, TD_WB_CLFLUSH,
		    TL_NR);
	expect_only("rep stosb", tb_rep_stos_up, TP_SET, 3, 133, TD_WB_CLFLUSH, TL_NR);
	expect_only("std; rep stosb", tb_rep_stos_down, TP_SET, 5, 77, TD_WB_CLFLUSH, TL_NR);
}

Test(checker, each_bad_routine_is_its_violation)
{
	expect_only("no write-back", tb_no_writeback, TP_COPY, 0, 64, TD_WB_CLFLUSH, TL_DIRTY);
	expect_only("store after write-back", tb_wb_before_store, TP_COPY, 0, 64, TD_WB_CLFLUSH,
		    TL_DIRTY);
	expect_only("mixed line", tb_mixed, TP_COPY, 0, 64, TD_WB_CLFLUSH, TL_MIXED);
	expect_only("clflush claimed clwb", tb_good_cached_wb, TP_COPY, 0, 64, TD_WB_CLWB,
		    TL_WRONG_WB);
	expect_only("fence", tb_fence, TP_COPY, 0, 64, TD_WB_CLWB, TL_FENCE);
	expect_only("lfence", tb_lfence, TP_COPY, 0, 64, TD_WB_CLWB, TL_LFENCE);
	expect_only("guard write", tb_guard, TP_COPY, 0, 64, TD_WB_CLWB, TL_OUTSIDE);
	expect_only("short", tb_short, TP_COPY, 0, 64, TD_WB_CLWB, TL_UNWRITTEN);
	expect_only("stray", tb_stray, TP_COPY, 0, 64, TD_WB_CLWB, TL_STRAY);
	expect_only("wrong data", tb_wrong_data, TP_COPY, 0, 64, TD_WB_CLWB, TL_DATA);
	expect_only("fxsave", tb_unknown_writer, TP_COPY, 0, 512, TD_WB_CLWB, TL_UNKNOWN);
}

/*
 * A clwb or clflushopt right after the stores to its line is reported
 * (libkflush(7): slow on the Emerald Rapids host); one store to the stack
 * in between is the good case. Each runs only where the CPU has it.
 */
Test(checker, writeback_right_after_store)
{
	static const struct {
		uint64_t need;
		enum td_kind wb;
		void (*bad)(void), (*good)(void);
		const char *name;
	} insns[] = {
		{ KFLUSH_CPU_CLWB, TD_WB_CLWB, tb_cached_clwb, tb_cached_gap_clwb, "clwb" },
		{ KFLUSH_CPU_CLFLUSHOPT, TD_WB_CLFLUSHOPT, tb_cached_clflushopt,
		  tb_cached_gap_clflushopt, "clflushopt" },
	};
	int ran = 0;

	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		if (!(kflush_cpu_features_raw() & insns[i].need)) {
			cr_log_info("no %s on this CPU: its samples not run", insns[i].name);
			continue;
		}
		expect_only(insns[i].name, insns[i].bad, TP_COPY, 8, 200, insns[i].wb,
			    TL_WB_AFTER_STORE);
		expect_only(insns[i].name, insns[i].good, TP_COPY, 8, 200, insns[i].wb, TL_NR);
		ran++;
	}
	if (!ran)
		cr_skip_test("neither clwb nor clflushopt on this CPU");
}

Test(checker, flush_routines)
{
	expect_only("clflush as clflush", tb_flush_clflush, TP_FLUSH, 1, 130, TD_WB_CLFLUSH,
		    TL_NR);
	expect_only("clflush as clwb", tb_flush_clflush, TP_FLUSH, 1, 130, TD_WB_CLWB,
		    TL_WRONG_WB);
	expect_only("twice", tb_flush_twice, TP_FLUSH, 0, 128, TD_WB_CLFLUSH, TL_WB_COUNT);
	expect_only("stores in a flush", tb_flush_nt, TP_FLUSH, 0, 64, TD_WB_CLFLUSH, TL_OUTSIDE);
}

static void ignore_effects(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	(void)ctx;
	(void)in;
	(void)e;
}

/*
 * A traced call must return with the callee-saved registers it was given
 * and the direction flag clear (tt_call()): the one check that sees an
 * assembly routine's lost push or swapped pops, which leave its bytes right.
 */
Test(tracer, callee_saved_registers)
{
	static const struct {
		void (*fn)(void);
		const char *broken;	/* what the report must name; NULL: a good routine */
	} calls[] = {
		{ tb_abi_saves, NULL },
		{ tb_abi_clobbers_r15, "r15" },
		{ tb_abi_swaps_rbx_r12, "rbx" },
		{ tb_abi_leaves_df, "direction flag" },
		{ tb_abi_saves, NULL },	/* the tracee's registers are set afresh each call */
	};
	struct tt_tracer t;
	unsigned char *arena;

	tp_arena_start(&t, &arena, 4096, "the tracer's register check went untested");
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		char err[256] = "";
		int r = tt_call(&t, (const void *)calls[i].fn, 0, 0, 0, ignore_effects, NULL, err,
				sizeof(err));

		if (!calls[i].broken) {
			cr_expect_eq(r, 0, "call %zu, a good routine: %s", i, err);
			continue;
		}
		cr_expect_eq(r, -1, "call %zu: breaks the %s, not reported", i, calls[i].broken);
		cr_expect(strstr(err, calls[i].broken) != NULL, "call %zu: reported as \"%s\", "
			  "not as its %s", i, err, calls[i].broken);
	}
	tt_stop_arena(&t, arena, 4096);
}
