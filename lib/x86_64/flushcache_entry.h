/* SPDX-License-Identifier: MIT */
/*
 * The flush-copy and flush-fill variants' entry points, built on the
 * drivers of flushcache.h: the short paths taken before any frame (the
 * struct page sizes, one lone line, the edge-free words), the calls that
 * every variant shares below FLUSHCACHE_BULK_MIN, and the macros that
 * make a variant of a line store and a block.
 */
#ifndef KFLUSH_X86_FLUSHCACHE_ENTRY_H
#define KFLUSH_X86_FLUSHCACHE_ENTRY_H

#include "x86_64/flushcache.h"

/*
 * nt_copy_words() with the struct page sizes unrolled: all the loads, then
 * the stores, no loop and no frame. pmemtest init-bench --clock cpu,
 * generic/fixed, alternating runs on AMD EPYC family 0x19 (Zen 3): 64 B
 * 1.50-2.11 with it, 2.13-2.62 rolled (under load); 80 B (--struct-page
 * 80, idle) generic 192-248 ms against 275-323 rolled.
 */
KFLUSH_INLINE void nt_copy_unrolled(char *d, const char *s, const size_t n)
{
	uint64_t v[12];

	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < n / 8; i++)
		v[i] = load8(s + 8 * i);
	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < n / 8; i++)
		nt_store8(d + 8 * i, v[i]);
}

/*
 * The small 8-aligned copy of a multiple of 4 below FLUSHCACHE_BULK_MIN:
 * the struct page sizes unrolled, whole aligned lines (128, 192 B) with
 * the variant's @line, the rest in words. AMD EPYC family 0x19 model
 * 0x01, copy-bench sweep, fixed, four alternations, avx2 over the avx2
 * roof: 128 B 0.81 -> 0.96 cold, 0.61 -> 0.92 hot; 192 B 0.85 -> 0.92,
 * 0.61 -> 0.89 (in words before). The lines are tested after the struct
 * page sizes: with the test first in the variant's entry, a packed 80 B
 * struct page fell from 1.35x the kernel variant's speed to 1.17x.
 */
KFLUSH_INLINE void nt_copy_small_at(char *d, const char *s, size_t n,
				    void (*line)(char *d, const char *s),
				    void (*words)(char *d, const char *s, size_t n))
{
	switch (n) {
	case 56: nt_copy_unrolled(d, s, 56); return;
	case 64: nt_copy_unrolled(d, s, 64); return;
	case 80: nt_copy_unrolled(d, s, 80); return;
	case 96: nt_copy_unrolled(d, s, 96); return;
	}
	if ((((uintptr_t)d | n) & (LINE - 1)) == 0) {
		for (; n; d += LINE, s += LINE, n -= LINE)
			line(d, s);
		return;
	}
	words(d, s, n);
}

KFLUSH_INLINE void nt_copy_small(char *d, const char *s, size_t n,
				 void (*line)(char *d, const char *s))
{
	nt_copy_small_at(d, s, n, line, nt_copy_words);
}

/*
 * nt_copy_small() for the vector variants: an 80- or 96-byte copy to a
 * 16-byte aligned destination (a packed struct page of those sizes) is
 * the header's inline constant-size path, five or six movntdq after
 * 8-byte loads, instead of ten or twelve movnti that need four
 * callee-saved registers pushed and popped. The 8-byte loads keep a
 * source just written with 8-byte stores forwarding (kflush.h). Measured
 * on AMD EPYC family 0x19 model 0x01 (Zen 3), avx2, CPU time, alternating
 * runs against the movnti path (libkflush(7), NOTES): a direct timing of
 * packed struct pages, 80 B 10 -> 8.9 ns and 96 B 11 -> 6-8.6 ns each,
 * and init-bench --struct-page 80 generic, dax_pmem 240-258 -> 175-201 ms.
 * Below 56 bytes (no struct page size) the words go out before
 * nt_copy_small()'s unrolled cases, whose twelve registers made every
 * short copy through here push five and pop them: AMD EPYC family 0x17
 * model 0x31 (Zen 2), three alternations, CPU time, avx2 ns per packed
 * copy (copy-bench struct-page -p): 16 B 4.9 -> 4.0, 32 B 5.3 -> 3.8,
 * 48 B 6.3 -> 4.8; 56 B 4.6 -> 4.9, 64-96 B the same; sweep cold fixed
 * 8-48 B over glibc memcpy plus flush 0.70-0.91 -> 0.82-1.08, 80-96 B
 * 1.17-1.27 -> 1.14-1.23.
 */
#ifdef KFLUSH_HAVE_MOVNTDQ_PATH
/*
 * The avx2 variants' other short word-shaped copies, 60-252 B that are
 * neither a struct page size the unrolled cases take nor whole aligned
 * lines (nt_copy_small_at()'s last case from vec_copy_small_at()): a word
 * to the first 16-byte boundary, then the 16-byte pieces of the header's
 * constant-size path (two 8-byte loads each, so a source just written
 * forwards), straight below a line, and the words left. AMD EPYC family
 * 0x17 model 0x31 (Zen 2), alternating builds, three runs each, CPU time,
 * avx2's speed over the movnti variant's beside it (the words in both
 * builds), after over before: copy-bench struct-page, packed, 72 B
 * 1.03-1.06, 88 B 1.12-1.13, 104-224 B 1.00-1.21; sweep, fixed layout,
 * 72-224 B hot 1.05-1.13, cold 0.97-1.19, where the unchanged 64 and 96 B
 * read 0.91-1.06. Below 56 B such pieces (in a loop) lost to the words on
 * packed copies: 32 B 4.2 -> 5.3 ns, 40 B 4.6 -> 5.5, 48 B 5.5 -> 6.1.
 * avx512 keeps the words: no AVX-512 CPU to measure it on.
 */
KFLUSH_INLINE void vec_copy_pieces(char *d, const char *s, size_t n)
{
	if ((uintptr_t)d & 8) {
		nt_store8(d, load8(s));
		d += 8;
		s += 8;
		n -= 8;
	}
	for (; n >= LINE; d += LINE, s += LINE, n -= LINE)
		kflush_movntdq_n(d, s, LINE);
	if (n & 32) {
		kflush_movntdq_n(d, s, 32);
		d += 32;
		s += 32;
	}
	if (n & 16) {
		kflush_movntdq_n(d, s, 16);
		d += 16;
		s += 16;
	}
	if (n & 8) {
		nt_store8(d, load8(s));
		d += 8;
		s += 8;
	}
	if (n & 4)
		nt_store4(d, load4(s));
}

KFLUSH_INLINE void vec_copy_small_at(char *d, const char *s, size_t n,
				     void (*line)(char *d, const char *s),
				     void (*words)(char *d, const char *s, size_t n))
{
	if ((((uintptr_t)d & 15) | ((n - 80) & ~(size_t)16)) == 0) {	/* 80 or 96 */
		if (n == 80)
			kflush_movntdq_n(d, s, 80);
		else
			kflush_movntdq_n(d, s, 96);
		return;
	}
	if (n < 56) {
		nt_copy_words(d, s, n);
		return;
	}
	nt_copy_small_at(d, s, n, line, words);
}

KFLUSH_INLINE void vec_copy_small(char *d, const char *s, size_t n,
				  void (*line)(char *d, const char *s))
{
	vec_copy_small_at(d, s, n, line, nt_copy_words);
}

/* The avx2 variants' (avx512 was not measured with the pieces). */
KFLUSH_INLINE void vec_copy_small_pieces(char *d, const char *s, size_t n,
					 void (*line)(char *d, const char *s))
{
	vec_copy_small_at(d, s, n, line, vec_copy_pieces);
}

/*
 * The vector variants' lone line (a 64-byte struct page through the call):
 * the header's inline constant-size path, eight 8-byte loads in asm, two
 * per xmm, then four 16-byte movntdq, so the call stores as the inline
 * path does. 8-byte loads: a record just built with 8-byte stores (the
 * memmap template, its lru words rewritten per page) forwards to them,
 * where a wider load waits for those stores to retire (copy-bench
 * struct-page 64 B, ns per page: Intel family 6 model 0xcf 6.6 with one
 * 64-byte load, 3.2-3.3 with the eight; AMD family 0x19 model 0x01 8.9
 * with two 32-byte loads, 3.4-3.6 with the eight, which cost a 64-byte
 * copy of a source not just written 2-7 %). Merging them into wider
 * registers for fewer stores costs shuffles and bought nothing measured:
 *   - avx512, one zmm (three shuffles), Intel 0xcf without movdir64b, the
 *     same bench, nine runs of 7 rounds, CPU time: 3.2-4.1 ns, four movntdq
 *     2.8-3.8; init-bench generic/fixed nd_pmem 1.05-1.28 -> 1.03-1.08;
 *   - avx2, two ymm (two vinserti128), AMD EPYC family 0x17 model 0x31
 *     (Zen 2), CPU time, alternating builds: struct-page 64 B 3.9-4.0 ->
 *     3.0-3.1 ns (the inline path 3.0-3.5), init-bench generic/fixed
 *     (three alternations of 10 rebinds) nd_pmem 1.34-1.35 -> 1.08-1.12,
 *     dax_pmem 1.48-1.54 -> 1.21-1.25. On Intel 0xcf the two ymm and the
 *     four movntdq tied (2.8-3.2 ns); Zen 3 was not measured this way.
 */
KFLUSH_INLINE void vec_one_line(char *d, const char *s)
{
	kflush_movntdq_n(d, s, LINE);
}

/* Four movntdq of @x over the aligned line at @d, in one asm. */
KFLUSH_INLINE void vec_set_line(char *d, kflush_xmm x)
{
	__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%1, 16(%0)\n\t"
			     KFLUSH_MOVNTDQ "%1, 32(%0)\n\t" KFLUSH_MOVNTDQ "%1, 48(%0)"
			     : : "r"(d), "x"(x) : "memory");
}

/*
 * nt_set_words() for the avx2 fills, from 48 bytes: 16-byte movntdq from
 * the first 16-byte boundary, a word at either end, and below a line
 * straight stores, no loop. No load, so no store to forward from, and half
 * the store uops of the words. AMD EPYC family 0x17 model 0x31 (Zen 2),
 * copy-bench set, fixed layout (a call a line), three runs of 11 rounds,
 * CPU time, avx2 over the movnti variant beside it, which keeps the words:
 * cold 1.11-1.14 at 48-64 B, 1.20-1.27 at 80-96, 1.20-1.34 at 160 and 224,
 * 0.94-1.04 at 128 and 192 (whole lines); hot 0.96-1.13 (0.97-1.07 at 4-40
 * B, where both run the words). A direct timing outside pmemtest of packed
 * fills (each line completed by the next call): with the 16-byte stores
 * from 32 B, four runs, 32 B took 4.0-6.3 ns against the words' 3.0-4.1
 * and 40 B 4.2-6.2 against 3.6-4.2, so the words stay below 48; from 48 B,
 * five runs, 48-160 B gave no clear answer (80-96 B 0.81-0.94 of the
 * words' speed, where the same words in both functions read 0.71-1.28 at
 * 24-40 B). An aligned line is four straight stores: through the loop it
 * took 4.4-4.7 ns cold, 3.3 without it, the words 3.7-3.8.
 */
KFLUSH_INLINE void vec_set_words(char *d, uint64_t v, size_t n)
{
	const kflush_xmm x = { (long long)v, (long long)v };

	if (n < 48) {
		nt_set_words(d, v, n);
		return;
	}
	if (n == LINE && !((uintptr_t)d & (LINE - 1))) {
		vec_set_line(d, x);
		return;
	}
	if ((uintptr_t)d & 8) {
		nt_store8(d, v);
		d += 8;
		n -= 8;
	}
	for (; n >= LINE; d += LINE, n -= LINE)
		vec_set_line(d, x);
	if (n & 32) {
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%1, 16(%0)"
				     : : "r"(d), "x"(x) : "memory");
		d += 32;
	}
	if (n & 16) {
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)" : : "r"(d), "x"(x) : "memory");
		d += 16;
	}
	if (n & 8) {
		nt_store8(d, v);
		d += 8;
	}
	if (n & 4)
		nt_store4(d, (uint32_t)v);
}
#endif

/*
 * A copy below FLUSHCACHE_BULK_MIN bytes stores no whole line, so it runs
 * none of a variant's line or block code: one function takes it for every
 * variant, flushcache_lines() with the movnti line (flushcache.c, built
 * without vector flags).
 * The avx512 variant's own lines function, for a copy of 1 byte too,
 * aligned its stack to 64 bytes for its block's registers. Intel family
 * 6 model 0xcf (a guest without movdir64b), copy-bench sweep, three runs
 * of 11 rounds, CPU time, time against the old avx512 entry run as a
 * variant beside it: hot fixed 1-3 B 0.93, 4-96 B 0.99, hot random and
 * cold 0.98-1.02. The bound report had movnti 1.04-1.06x faster at 96 B
 * and under hot in six runs; after, 1.00-1.01 in five.
 */
void flushcache_short(char *d, const char *s, size_t n);

/*
 * Every variant's entry point. First, one whole aligned line (a 64-byte
 * struct page in a memmap: pmemtest init-bench's `generic` call) goes out
 * as the variant's own line store, one test and no frame. From
 * FLUSHCACHE_BULK_MIN bytes, the variant's @lines, except a call that a
 * "_short_cached" variant sends all through the cache (@cached_below,
 * all_cached_call()), which goes straight to the temporal copy: the
 * lines driver set up its frame before it found out. AMD EPYC family 0x17
 * model 0x31 (Zen 2), copy-bench sweep and set, five alternations of 11
 * rounds, CPU time, time against the driver's test, over PMDK's NT copy
 * or fill beside it: random sizes and offsets, copies hot 0.95-0.98 at
 * 384-768 B, cold 0.95-0.97 at 256-384 B (1.06 at 448 B); fills hot 0.96
 * at 256-448 B, cold 0.94-0.96 at 320-448 B; fixed sizes 0.97-1.04.
 *
 * Below FLUSHCACHE_BULK_MIN, the small 8-aligned copy of a multiple of 4
 * (the other struct page sizes) goes to @small, decided before any frame
 * is set up: NT words and no edge, what flushcache_lines() would do
 * anyway (nt_copy_small), or with 16-byte stores where the variant may
 * use them (vec_copy_small, and vec_copy_small_pieces for more sizes);
 * any other short copy to @short_copy (flushcache_short(), or the
 * temporal copy in a "_short_cached" variant), but one with no sub-word
 * edge whose destination is 4-byte and not 8-byte aligned goes to
 * flushcache_short() in every variant: its first 4 bytes one movnti, the
 * rest NT words, no line through the cache, out of line so that the
 * entry keeps no frame. Such
 * a call had a sub-word edge before, and its edge lines went through the
 * cache: records of 4 mod 8 bytes stored back to back alternated between
 * NT calls and cached ones, each waiting for the line the last one had
 * written back (Intel family 6 model 0xa7, copy-bench sweep and set,
 * packed layout; libkflush(7), NOTES).
 * @one_line is the line store of that first case; a variant may load it
 * differently from the lines of a longer copy (vec_one_line()).
 *
 * Why the line store and not eight movnti: out of line, every call adds a
 * return-address store and a few branches to a stream of NT stores that
 * is already waiting for write-combining buffers, and eight store uops per
 * line leave no room to hide them; four vector stores do. Measured
 * (AMD EPYC family 0x19 model 0x01, Zen 3, loaded 2-vCPU VM, 512 MiB
 * stream, thread CPU time, min of 15 interleaved rounds, ns per 64 B):
 * inline movnti 3.92, called movnti 4.53, called 2 x 32 B 3.94, called 4 x
 * 16 B 3.98; libkflush(7), NOTES, has the init-bench ratios.
 */
#define FLUSHCACHE_ENTRY_AT(name, cached_below, lines, line, one_line, small, short_copy) \
	void name(void *dst, const void *src, size_t n)			\
	{									\
		if ((((uintptr_t)dst & (LINE - 1)) | (n ^ LINE)) == 0)		\
			one_line(dst, src);					\
		else if (n >= FLUSHCACHE_BULK_MIN && all_cached_call(dst, n, (cached_below))) \
			memcpy_temporal(dst, src, n);				\
		else if (n >= FLUSHCACHE_BULK_MIN)				\
			lines(dst, src, n);					\
		else if ((((uintptr_t)dst & 7) | (n & 3)) == 0)			\
			small(dst, src, n, line);				\
		else if ((((uintptr_t)dst | n) & 3) == 0)			\
			flushcache_short(dst, src, n);				\
		else								\
			short_copy(dst, src, n);				\
	}

#define FLUSHCACHE_ENTRY(name, lines, line, one_line, small)		\
	FLUSHCACHE_ENTRY_AT(name, 0, lines, line, one_line, small, flushcache_short)

/*
 * A variant with one line store and one block for every length: its lines
 * driver, with NT edges from nt_edges_from(@cached_below), and its entry,
 * @short_copy below FLUSHCACHE_BULK_MIN.
 */
#define FLUSHCACHE_VARIANT_AT(name, cached_below, short_copy, block_lines, block, line, one_line, \
			      small)						\
	static __attribute__((noinline)) void name##_lines(char *d, const char *s, size_t n) \
	{									\
		flushcache_lines(d, s, n, nt_edges_from(cached_below), (block_lines), block,	\
				 line);						\
	}									\
	FLUSHCACHE_ENTRY_AT(name, cached_below, name##_lines, line, one_line, small, short_copy)

#define FLUSHCACHE_VARIANT(name, block_lines, block, line, one_line, small)	\
	FLUSHCACHE_VARIANT_AT(name, 0, flushcache_short, block_lines, block, line, one_line, small)

/*
 * The "_short_cached" variants (bound by a per-CPU rule): every call with
 * a sub-word edge below SHORT_CACHED_BELOW bytes goes all through
 * the cache, a whole line or not. Below FLUSHCACHE_BULK_MIN the entry's
 * last case always has such an edge (its destination is not 4-aligned or
 * its length leaves 1..3 bytes), so it is the temporal copy itself.
 * AMD EPYC family 0x17 model 0x31 (Zen 2), copy-bench sweep and set,
 * random sizes (+-25 %) and offsets, three runs of 11 rounds, CPU time,
 * this variant's speed over avx2's beside it: copies cold 1.15-1.54x at
 * 96-512 B, hot 1.1-2.0x; fills cold 1.2-1.9x, hot 1.05-2.0x. With every
 * such call below 1 KiB all through the cache, fills still gained 1.33x
 * cold in the 768 B cell (576-960 B) and copies tied there, but both lost
 * 4-13 % in the 896 B and 1 KiB cells, hot and cold (libkflush(7),
 * Per-CPU rules).
 *
 * From SHORT_CACHED_BELOW, every byte of a copy is NT, its edges too
 * (nt_edges_from(), flushcache.h), where the other variants keep cached
 * edge lines up to FLUSHCACHE_NT_EDGES_MIN: so no call of this variant
 * mixes cached and NT lines. A cold edge line stored through the cache is
 * read first, and the NT stores behind it wait. AMD EPYC family 0x17
 * model 0x31 (Zen 2), copy-bench sweep, random sizes and offsets, five
 * alternations of 11 rounds, CPU time, time after over time before (each
 * over PMDK's NT copy beside it): cold 0.92 in the 768 B cell (576-960
 * B), 0.84 at 896 B, 0.73 at 1 KiB; hot 0.98-1.01 there, fixed sizes and
 * the 1 B-4 KiB mixes 0.93-1.02. With NT edges from 512 B, hot copies
 * ran 1.04-1.14x the time at 448 B-1 KiB; from 384 B, 1.07-1.36x at
 * 384-640 B (libkflush(7), Per-CPU rules).
 */
#define SHORT_CACHED_BELOW 768

/*
 * The same for a fill, from a boundary of its own: all through the cache
 * below it with a sub-word edge, every byte NT from it, lower than a
 * copy's: with no source to load, an NT fill gained more cold and lost
 * nothing hot. The same runs (copy-bench set, each over PMDK's NT memset
 * beside it), time after over time before: cold random 0.58 in the 512 B
 * cell, 0.34-0.51 at 576 B-896 B, 0.45 at 1 KiB, 0.89 at 1280 B; hot
 * random 0.90-1.01, the mixes 0.92-0.94. The 384 B
 * cell (288-480 B) ran 1.28x the time cold: calls on both sides of the
 * boundary, a cold cached one and NT ones after it, cost more than
 * either kind alone. From 256 B that cell was the 256 B one (1.56x), and
 * hot fills ran 1.25-1.31x the time at 320-512 B; from 512 B, the 448
 * and 512 B cells 1.24-1.30x cold.
 */
#define SHORT_CACHED_SET_BELOW 384

#define FLUSHCACHE_SHORT_CACHED_VARIANT(name, block_lines, block, line, one_line, small) \
	FLUSHCACHE_VARIANT_AT(name, SHORT_CACHED_BELOW, memcpy_temporal, block_lines, block, line, \
			      one_line, small)

/*
 * As for a copy (flushcache_short()): a fill below FLUSHCACHE_BULK_MIN
 * bytes stores no whole line, so one function, the movnti variant's
 * driver, takes it for every variant, before a vector variant broadcasts
 * its pattern into a register and a 64-byte aligned stack slot. Intel
 * family 6 model 0xcf (guest without movdir64b), copy-bench set, three
 * runs of 11 rounds, CPU time, against the old avx512 entry run beside
 * it: 0.98-0.99 of the time at 4-255 B hot and cold random, 0.94 cold
 * fixed 97-255 B, 0.98-1.01 in the other classes.
 */
void flushset_short(char *d, int c, size_t n);

/*
 * Every fill variant's entry point. Below FLUSHCACHE_BULK_MIN an 8-aligned
 * fill of a multiple of 4 has no edge (split_edges(); a 4-aligned one
 * goes to flushset_short(), as a copy's does) and is stored by
 * @words, NT stores whole lines and all, as the copy's small path does
 * (nt_copy_small()): in the entry, where the frame-free stores need no
 * call. @words is nt_set_words(), or vec_set_words() where the variant
 * measured faster with it. AMD EPYC family 0x17 model 0x31 (Zen 2),
 * copy-bench set, three alternations of 9 rounds, CPU time, speed over
 * glibc memset plus kflush_flush: 64 B at a line boundary cold 1.02-1.21
 * with the driver, 1.19-1.33 with the words in flushset_short(); in the
 * entry, beside a variant that still called flushset_short() for them,
 * 1.15-1.45x that variant's speed cold and 1.05-1.20x hot at 64-192 B
 * (the words, before vec_set_words()). Any other short
 * fill goes to @short_set. From FLUSHCACHE_BULK_MIN, as the copy's entry:
 * @lines, or the temporal fill for a call below @cached_below with a
 * sub-word edge.
 */
#define FLUSHSET_ENTRY_AT(name, cached_below, lines, words, short_set)	\
	void name(void *dst, int c, size_t n)					\
	{									\
		if (n >= FLUSHCACHE_BULK_MIN && all_cached_call(dst, n, (cached_below))) \
			memset_temporal(dst, c, n);				\
		else if (n >= FLUSHCACHE_BULK_MIN)				\
			lines(dst, c, n);					\
		else if ((((uintptr_t)dst & 7) | (n & 3)) == 0)			\
			words(dst, byte_pattern(c), n);				\
		else if ((((uintptr_t)dst | n) & 3) == 0)			\
			flushset_short(dst, c, n);				\
		else								\
			short_set(dst, c, n);					\
	}

#define FLUSHSET_ENTRY(name, lines, words) FLUSHSET_ENTRY_AT(name, 0, lines, words, flushset_short)

/*
 * A vector fill variant, memset_flushcache_@isa, and its "_short_cached"
 * form (SHORT_CACHED_SET_BELOW; below FLUSHCACHE_BULK_MIN any fill its
 * entry leaves has a sub-word edge, so it is the temporal fill): both
 * drive flushset_lines() with the byte broadcast into a @vec by
 * @broadcast and stored a line at a time by @set_line, and take edge-free
 * short fills to @words; the "_short_cached" form's other short fills go
 * to @short_cached_set (memset_temporal(), or a variant's own way of
 * storing them through the cache).
 */
#define FLUSHSET_VEC_VARIANTS(isa, vec, broadcast, set_line, words, short_cached_set) \
	static inline __attribute__((always_inline)) void isa##_set_drive(char *d, int c, \
									  size_t n,	\
									  size_t cached_below) \
	{									\
		vec v = broadcast((char)c);					\
										\
		flushset_lines(d, c, n, nt_edges_from(cached_below), &v, set_line); \
	}									\
	static __attribute__((noinline)) void isa##_set_lines(char *d, int c, size_t n) \
	{									\
		isa##_set_drive(d, c, n, 0);					\
	}									\
	static __attribute__((noinline)) void isa##_set_lines_short_cached(char *d, int c, \
									   size_t n)	\
	{									\
		isa##_set_drive(d, c, n, SHORT_CACHED_SET_BELOW);		\
	}									\
	FLUSHSET_ENTRY(memset_flushcache_##isa, isa##_set_lines, words)		\
	FLUSHSET_ENTRY_AT(memset_flushcache_##isa##_short_cached, SHORT_CACHED_SET_BELOW, \
			  isa##_set_lines_short_cached, words, short_cached_set)

/* Per-ISA variants, each in a file built with its own -m flags. */
void memcpy_flushcache_avx2(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx2_short_cached(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512_movdir64b(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512_x2(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512_ymm_short_cached(void *dst, const void *src, size_t n);
void memset_flushcache_avx2(void *dst, int c, size_t n);
void memset_flushcache_avx2_short_cached(void *dst, int c, size_t n);
void memset_flushcache_avx512(void *dst, int c, size_t n);
void memset_flushcache_avx512_short_cached(void *dst, int c, size_t n);

#endif /* KFLUSH_X86_FLUSHCACHE_ENTRY_H */
