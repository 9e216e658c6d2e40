// SPDX-License-Identifier: MIT
/*
 * The persistence proof, by watching the instructions: every call below
 * runs the shipped libkflush.so in a child single-stepped by
 * tests/trace/, which decodes each instruction with Capstone and judges
 * the cache lines at return (tests/trace/lines.c): no line left dirty,
 * every destination byte written, nothing written outside it, the bytes
 * right, no fence (kflush_*_persist and kflush_drain: exactly one, last),
 * no line mixing NT and cached stores (all variants but the kernel one),
 * and the write-back instruction the flush variant's name, or for the
 * flush-copy edges the documented precedence, says.
 *
 * Covered: every usable memcpy_flushcache, memset_flushcache and flush
 * variant and the entry points, over the size and offset classes each
 * path has (tails of 1-3 bytes, unaligned heads, the block/line/word
 * bulk paths), and the header's constant-size inline paths. The bound
 * write-back changes with KFLUSH_HWCAPS: tests/masked-*.sh rerun this
 * program so the edges go through clwb, clflushopt and clflush in turn.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dlfcn.h>
#include <string.h>

#include "kflush.h"
#include "testutil.h"
#include "trace/harness.h"

#define MAX_VARIANTS 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every class below FLUSHCACHE_BULK_MIN (256): tails of 1..3 bytes after
 * 4- and 8-byte words, sub-line and multi-line, around line multiples.
 * Up to 16 bytes (all edge, no body) at every destination offset below;
 * beyond, each size at a few of them, rotating, so every offset meets
 * sizes of every class.
 */
#define SMALL_MAX 16
static const size_t sizes[] = {
	17, 20, 23, 24, 28, 31, 32, 33, 36, 40, 47, 48, 56, 60, 61, 63, 64, 65, 67, 71, 72, 80,
	96, 100, 120, 127, 128, 129, 130, 191, 192, 193, 200, 252, 255, 256, 257, 259, 263, 300,
};
/* 8-aligned, 4-aligned, odd, and the last bytes of a line. */
static const size_t doffs[] = { 0, 1, 3, 4, 7, 8, 60, 63 };
static const size_t soffs[] = { 0, 1, 5, 63 };
/*
 * The bulk path: words to a line, blocks (movnti/movdir64b 4 lines, AVX2
 * 8, AVX-512 32), then lines, then words and a tail.
 */
static const struct {
	size_t n, doff;
} bigs[] = { { 323, 0 }, { 323, 63 }, { 589, 0 }, { 589, 7 }, { 2119, 0 }, { 2119, 60 },
	     { 4096 + 3, 1 } };
/* KFLUSH_TEST_QUICK: one case of each class above. */
static const struct {
	size_t n, doff;
} quick[] = { { 0, 0 }, { 1, 1 }, { 3, 4 }, { 5, 0 }, { 7, 3 }, { 13, 7 }, { 24, 8 },
	      { 63, 60 }, { 65, 63 }, { 129, 1 }, { 300, 4 }, { 589, 0 } };
static const int set_values[] = { 0x00, 0xff, 0x5a, 0x1c3 };

static void fail_if(size_t bad, const char *msg)
{
	if (bad)
		cr_assert_fail("%s", msg);
}

/* Documented precedence (kflush_memcpy_flushcache(3)): kernel only with nothing better. */
static int kernel_bound(void)
{
	return !(kflush_cpu_features() & (KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX2 |
					  KFLUSH_CPU_MOVDIR64B | KFLUSH_CPU_SSE2));
}

static void one(const char *name, const void *fn, enum tp_shape shape, size_t doff,
		  size_t soff, size_t n, int c, int allow_mixed, int fences)
{
	struct tp_call call = {
		.name = name, .fn = fn, .shape = shape, .doff = doff, .soff = soff, .n = n,
		.c = c, .wb = tp_expected_wb(), .fences = fences, .allow_mixed = allow_mixed,
	};
	char msg[1024];

	fail_if(tp_run(&call, msg, sizeof(msg)), msg);
}

/*
 * Stops at the first failing case: one clear message, not thousands. The
 * entry points run a lighter plan (per_size offsets for the larger sizes):
 * the variant they call was swept in full directly.
 */
static void sweep(const char *name, const void *fn, enum tp_shape shape, int allow_mixed,
		  int fences, size_t per_size)
{
	size_t k = 0;

	if (tp_quick()) {
		for (; k < ARRAY_SIZE(quick); k++)
			one(name, fn, shape, quick[k].doff, soffs[k % ARRAY_SIZE(soffs)], quick[k].n,
			    set_values[k % ARRAY_SIZE(set_values)], allow_mixed, fences);
		return;
	}
	for (size_t n = 0; n <= SMALL_MAX; n++)
		for (size_t j = 0; j < ARRAY_SIZE(doffs); j += per_size < 3 ? 2 : 1, k++)
			one(name, fn, shape, doffs[j], soffs[k % ARRAY_SIZE(soffs)], n,
			    set_values[k % ARRAY_SIZE(set_values)], allow_mixed, fences);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < per_size; j++, k++)
			one(name, fn, shape, doffs[(i * per_size + j) % ARRAY_SIZE(doffs)],
			    soffs[k % ARRAY_SIZE(soffs)], sizes[i],
			    set_values[k % ARRAY_SIZE(set_values)], allow_mixed, fences);
	for (size_t i = 0; i < ARRAY_SIZE(bigs); i += per_size < 3 ? 2 : 1, k++)
		one(name, fn, shape, bigs[i].doff, 5, bigs[i].n,
		    set_values[k % ARRAY_SIZE(set_values)], allow_mixed, fences);
	cr_log_info("%s: %zu calls traced, %zu instructions so far", name, k, tp_steps());
}

static void variant_sweep(enum kflush_op op, const struct tu_variant *v, enum tp_shape shape)
{
	kflush_fn fn = kflush_variant_fn(op, (unsigned int)v->idx);

	cr_assert(fn, "%s: usable but no function", v->name);
	sweep(v->name, (const void *)fn, shape, strcmp(v->name, "kernel") == 0, 0, 3);
}

TestSuite(persistence, .init = tp_setup, .fini = tp_teardown);

ParameterizedTestParameters(persistence, memcpy_flushcache)
{
	static struct tu_variant v[MAX_VARIANTS];

	return cr_make_param_array(struct tu_variant, v,
				   tu_usable_variants(KFLUSH_OP_MEMCPY_FLUSHCACHE, v, MAX_VARIANTS));
}

ParameterizedTest(struct tu_variant *v, persistence, memcpy_flushcache)
{
	variant_sweep(KFLUSH_OP_MEMCPY_FLUSHCACHE, v, TP_COPY);
}

ParameterizedTestParameters(persistence, memset_flushcache)
{
	static struct tu_variant v[MAX_VARIANTS];

	return cr_make_param_array(struct tu_variant, v,
				   tu_usable_variants(KFLUSH_OP_MEMSET_FLUSHCACHE, v, MAX_VARIANTS));
}

ParameterizedTest(struct tu_variant *v, persistence, memset_flushcache)
{
	variant_sweep(KFLUSH_OP_MEMSET_FLUSHCACHE, v, TP_SET);
}

/*
 * avx512_movdir64b, avx512_x2 and avx512_ymm_short_cached store their
 * lines in two streams from 8 KiB (libkflush(7), Variants), the variants
 * whose path changes beyond the sizes above: for each, one call just past
 * that size, neither end aligned, one whose halves end in lines left over
 * from avx512_x2's 16-line batches and avx512_ymm_short_cached's 4-line
 * ones, and one of 512 KiB. Not in the quick plan.
 */
Test(persistence, two_streams)
{
	static const char *const names[] = { "avx512_movdir64b", "avx512_x2",
					     "avx512_ymm_short_cached" };
	size_t ran = 0;

	if (tp_quick())
		cr_skip_test("KFLUSH_TEST_QUICK: the streamed copies are not in the quick plan");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int idx = kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, names[i]);
		kflush_fn fn;

		cr_assert_geq(idx, 0, "no %s variant", names[i]);
		fn = kflush_variant_fn(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)idx);
		if (!fn) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", names[i]);
			continue;
		}
		ran++;
		one(names[i], (const void *)fn, TP_COPY, 1, 5, (8u << 10) + 3, 0, 0, 0);
		one(names[i], (const void *)fn, TP_COPY, 1, 5, (8u << 10) + 389, 0, 0, 0);
		one(names[i], (const void *)fn, TP_COPY, 1, 5, (512u << 10) + 3, 0, 0, 0);
	}
	if (!ran)
		cr_skip_test("none of avx512_movdir64b, avx512_x2, avx512_ymm_short_cached "
			     "usable here");
	cr_log_info("%zu instructions stepped", tp_steps());
}

/* What dispatch bound, through the exported symbols. */
Test(persistence, entry_points)
{
	sweep("kflush_memcpy_flushcache", (const void *)kflush_memcpy_flushcache, TP_COPY,
	      kernel_bound(), 0, 1);
	sweep("kflush_memset_flushcache", (const void *)kflush_memset_flushcache, TP_SET,
	      kernel_bound(), 0, 1);
}

/* The one flush-copy that fences: once, after every store and write-back. */
Test(persistence, memcpy_persist_fences_once)
{
	sweep("kflush_memcpy_persist", (const void *)kflush_memcpy_persist, TP_COPY,
	      kernel_bound(), 1, 1);
}

/*
 * The header's constant-size paths compiled into this program: 4..96 in
 * the struct page sizes become NT stores and no call (movntdq to a 16-byte
 * aligned destination, offset 0, movnti otherwise); 5, 24 and 100 call out.
 */
#define INLINE_COPY(N)								\
	static __attribute__((noinline)) void inline_copy_##N(void *d, const void *s) \
	{									\
		memcpy_flushcache(d, s, N);					\
	}
INLINE_COPY(4) INLINE_COPY(5) INLINE_COPY(8) INLINE_COPY(16) INLINE_COPY(24)
INLINE_COPY(32) INLINE_COPY(48) INLINE_COPY(64) INLINE_COPY(80) INLINE_COPY(96)
INLINE_COPY(100)

Test(persistence, inline_constant_sizes)
{
	static const struct {
		size_t n;
		void (*fn)(void *d, const void *s);
	} c[] = {
		{ 4, inline_copy_4 }, { 5, inline_copy_5 }, { 8, inline_copy_8 },
		{ 16, inline_copy_16 }, { 24, inline_copy_24 }, { 32, inline_copy_32 },
		{ 48, inline_copy_48 }, { 64, inline_copy_64 }, { 80, inline_copy_80 },
		{ 96, inline_copy_96 }, { 100, inline_copy_100 },
	};
	static const size_t offs[] = { 0, 1, 4, 8, 60 };

	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		for (size_t j = 0; j < (tp_quick() ? 2 : ARRAY_SIZE(offs)); j++)
			one("memcpy_flushcache(constant)", (const void *)c[i].fn, TP_COPY, offs[j], j,
			    c[i].n, 0, kernel_bound(), 0);
}

/* kflush_flush: each variant's name is the instruction it must run. */
static const struct {
	const char *name;
	enum td_kind insn;
} flush_insns[] = {
	{ "clwb", TD_WB_CLWB }, { "clflushopt", TD_WB_CLFLUSHOPT }, { "clflush", TD_WB_CLFLUSH },
};

static const size_t flush_lens[] = { 0, 1, 2, 7, 8, 63, 64, 65, 127, 128, 129, 200, 300,
				     4095, 4097 };
static const size_t flush_offs[] = { 0, 1, 31, 63 };

static void flush_sweep(const char *name, const void *fn, enum td_kind insn, int fences)
{
	for (size_t i = 0; i < ARRAY_SIZE(flush_lens); i++)
		for (size_t j = 0; j < ARRAY_SIZE(flush_offs); j++) {
			struct tp_call call = {
				.name = name, .fn = fn, .shape = TP_FLUSH, .doff = flush_offs[j],
				.n = flush_lens[i], .wb = insn, .fences = fences,
			};
			char msg[1024];

			/* KFLUSH_TEST_QUICK: a quarter, every length and offset still met. */
			if (tp_quick() && (i + j) % 4)
				continue;
			fail_if(tp_run(&call, msg, sizeof(msg)), msg);
		}
}

ParameterizedTestParameters(persistence, flush)
{
	static struct tu_variant v[MAX_VARIANTS];

	return cr_make_param_array(struct tu_variant, v,
				   tu_usable_variants(KFLUSH_OP_FLUSH, v, MAX_VARIANTS));
}

ParameterizedTest(struct tu_variant *v, persistence, flush)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_FLUSH, (unsigned int)v->idx);
	size_t i = 0;

	while (i < ARRAY_SIZE(flush_insns) && strcmp(flush_insns[i].name, v->name))
		i++;
	cr_assert(i < ARRAY_SIZE(flush_insns), "flush variant %s: which instruction?", v->name);
	cr_assert(fn);
	flush_sweep(v->name, (const void *)fn, flush_insns[i].insn, 0);
}

Test(persistence, flush_entry_points)
{
	struct tp_call drain = {
		.name = "kflush_drain (inline)", .fn = (const void *)kflush_drain,
		.shape = TP_DRAIN, .fences = 1,
	};
	/* The exported, out-of-line kflush_drain: <kflush.h>'s is inline. */
	struct tp_call exported = {
		.name = "kflush_drain (exported)", .fn = dlsym(RTLD_DEFAULT, "kflush_drain"),
		.shape = TP_DRAIN, .fences = 1,
	};
	char msg[1024];

	cr_assert_not_null(exported.fn, "dlsym(kflush_drain): %s", dlerror());
	cr_assert_neq(exported.fn, (const void *)kflush_drain, "the inline is not the export");

	flush_sweep("kflush_flush", (const void *)kflush_flush, tp_expected_wb(), 0);
	flush_sweep("kflush_persist", (const void *)kflush_persist, tp_expected_wb(), 1);
	fail_if(tp_run(&drain, msg, sizeof(msg)), msg);
	fail_if(tp_run(&exported, msg, sizeof(msg)), msg);
}
