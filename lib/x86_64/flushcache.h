/* SPDX-License-Identifier: MIT */
/*
 * The flush-copy and flush-memset algorithms, shared by the per-ISA files:
 * the kernel's __memcpy_flushcache() as an inline core, and a driver that
 * streams whole 64-byte-aligned lines with a variant's own line store and
 * leaves the unaligned edges to the core.
 */
#ifndef KFLUSH_X86_FLUSHCACHE_H
#define KFLUSH_X86_FLUSHCACHE_H

#include "x86_64/flush.h"

/* Below this the edges dominate and 8-byte movnti is as fast as anything. */
#define FLUSHCACHE_BULK_MIN 256
#define LINE 64

/* Non-temporal words over [d, d+n): d 8-byte aligned, n a multiple of 4. */
KFLUSH_INLINE void nt_copy_words(char *d, const char *s, size_t n)
{
	for (; n >= 32; d += 32, s += 32, n -= 32) {
		uint64_t a = load8(s), b = load8(s + 8), c = load8(s + 16), e = load8(s + 24);

		nt_store8(d, a);
		nt_store8(d + 8, b);
		nt_store8(d + 16, c);
		nt_store8(d + 24, e);
	}
	for (; n >= 8; d += 8, s += 8, n -= 8)
		nt_store8(d, load8(s));
	if (n)
		nt_store4(d, load4(s));
}

KFLUSH_INLINE void nt_set_words(char *d, uint64_t v, size_t n)
{
	for (; n >= 32; d += 32, n -= 32) {
		nt_store8(d, v);
		nt_store8(d + 8, v);
		nt_store8(d + 16, v);
		nt_store8(d + 24, v);
	}
	for (; n >= 8; d += 8, n -= 8)
		nt_store8(d, v);
	if (n)
		nt_store4(d, (uint32_t)v);
}

/* Ordinary stores, then write the lines back. */
KFLUSH_INLINE void cached_copy_wb(char *d, const char *s, size_t n)
{
	if (n) {
		cached_copy(d, s, n);
		writeback_range(d, n);
	}
}

KFLUSH_INLINE void cached_set_wb(char *d, int c, size_t n)
{
	if (n) {
		cached_set(d, c, n);
		writeback_range(d, n);
	}
}

/*
 * arch/x86/lib/usercopy_64.c __memcpy_flushcache(), exactly: cached head up
 * to 8-byte alignment and write it back, 32 bytes of movnti per pass, then
 * 8, then 4, then a cached 1..3-byte tail written back. Only the
 * destination is aligned; the source never is. Unlike the kernel, n == 0
 * with an unaligned destination writes no line back.
 */
KFLUSH_INLINE void flushcache_core(char *d, const char *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 7);

	if (!n)
		return;
	if (head) {
		if (head > n)
			head = n;
		cached_copy_wb(d, s, head);
		d += head;
		s += head;
		n -= head;
	}
	nt_copy_words(d, s, n & ~(size_t)3);
	cached_copy_wb(d + (n & ~(size_t)3), s + (n & ~(size_t)3), n & 3);
}

/* The same shape for memset; v is c repeated in all eight bytes. */
KFLUSH_INLINE void flushset_core(char *d, int c, uint64_t v, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 7);

	if (!n)
		return;
	if (head) {
		if (head > n)
			head = n;
		cached_set_wb(d, c, head);
		d += head;
		n -= head;
	}
	nt_set_words(d, v, n & ~(size_t)3);
	cached_set_wb(d + (n & ~(size_t)3), c, n & 3);
}

KFLUSH_INLINE uint64_t byte_pattern(int c)
{
	return 0x0101010101010101ULL * (uint8_t)c;
}

/*
 * Where the kernel's edges cost: a line that gets both ordinary stores and
 * non-temporal stores in one call is slow on current Intel parts. Either
 * the NT data in a write-combining buffer must drain before the cached
 * store can own the line, or the NT store must evict the line the cached
 * store just dirtied; measured here (pmemtest copy-bench) at 80-600 ns per
 * call instead of 15-30. So every variant but "kernel" writes a line either
 * only with NT stores or only with cached stores plus a write-back: when
 * the copy has a sub-word edge (a destination not 8-byte aligned, or a
 * length that leaves 1..3 bytes after the last 4-byte store), the whole of
 * that edge's line within the copy goes through the cache. An 8-aligned
 * copy of a multiple of 4 bytes (every struct page size) stays pure NT, so
 * packed copies do not fall into the cached-edge trap PMDK's does.
 *
 * A copy with a sub-word edge and no whole aligned line goes all through
 * the cache (flushcache_lines() hands it to the temporal copy): its NT
 * words could only fill part of a line, and no CPU measured here made a
 * partial NT line faster than the cache, hot or cold (libkflush(7)). AMD
 * EPYC family 0x17 model 0x31 (Zen 2), copy-bench sweep, random sizes and
 * offsets, three alternations of 9 rounds, CPU time, speed over glibc
 * memcpy plus kflush_flush at 4-96 B (geometric mean), before and after:
 * hot 0.45 and 0.76, cold 0.66 and 0.89; the fill (set) 0.49 and 0.87,
 * 0.55 and 0.81; 128-768 B unchanged within the runs' noise.
 *
 * A variant may also send every call below @cached_below bytes that has a
 * sub-word edge all through the cache (0: none; the "_short_cached"
 * variants, SHORT_CACHED_BELOW).
 *
 * Sets *head and *tail to the bytes to write cached at each end; *head is
 * n when every line goes through the cache.
 */
KFLUSH_INLINE void split_edges(const char *d, size_t n, size_t cached_below, size_t *head,
			       size_t *tail)
{
	uintptr_t a = (uintptr_t)d;
	size_t h = 0, t = 0;

	if (a & 7)
		h = LINE - (a & (LINE - 1));
	if (h >= n) {
		*head = n;
		*tail = 0;
		return;
	}
	/* The NT body starts 8-aligned; its end must be 4-aligned. */
	if ((n - h) & 3) {
		t = (a + n) & (LINE - 1);
		if (t > n - h)
			t = n - h;
	}
	/* A sub-word edge and no whole line: every line through the cache. */
	if ((h | t) && (n < cached_below || n < (size_t)(-a & (LINE - 1)) + LINE)) {
		*head = n;
		*tail = 0;
		return;
	}
	*head = h;
	*tail = t;
}

/*
 * Words up to a line boundary from *d (8-byte aligned), then @block over
 * @block_lines whole lines at a time, then @line over the rest of the
 * whole lines; advances *d and *s, returns the bytes left (under a line).
 */
KFLUSH_INLINE size_t nt_copy_body(char **d, const char **s, size_t n, size_t block_lines,
				  void (*block)(char *d, const char *s),
				  void (*line)(char *d, const char *s))
{
	size_t to_line = (size_t)(-(uintptr_t)*d & (LINE - 1));

	nt_copy_words(*d, *s, to_line);
	*d += to_line;
	*s += to_line;
	n -= to_line;
	for (; n >= block_lines * LINE; *d += block_lines * LINE, *s += block_lines * LINE,
	     n -= block_lines * LINE)
		block(*d, *s);
	for (; n >= LINE; *d += LINE, *s += LINE, n -= LINE)
		line(*d, *s);
	return n;
}

/*
 * From this many bytes a copy's edges are non-temporal too: one unaligned
 * 8-byte movnti stores the bytes up to the first 8-byte boundary and
 * another the last 8 bytes, each overlapping the aligned word beside it
 * (the same source bytes, stored twice; movnti has no alignment rule and
 * the source of a copy does not overlap its destination). No line mixes
 * cached and NT stores, and no edge line is read first, as a cached edge
 * store must when its line is not in the cache. Below, the cached edge
 * lines of split_edges(), because NT words into part of a line that is
 * in the cache wait for it to leave. Intel family 6 model 0xa7,
 * copy-bench sweep, two runs, time NT edges / cached edges, random sizes
 * and offsets: cold 0.59-0.76 at 192 B-2 KiB, 0.85-0.94 at 3-8 KiB; hot
 * 1.13-2.6 at 8-768 B, 0.90-1.01 from 1 KiB (libkflush(7)).
 */
#define FLUSHCACHE_NT_EDGES_MIN 1024

/*
 * The driver behind every variant but "kernel": below
 * FLUSHCACHE_NT_EDGES_MIN bytes, cached edge lines as above and an NT
 * body in 8- and 4-byte words, or, from FLUSHCACHE_BULK_MIN bytes, words
 * up to a line boundary, then @block (@block_lines whole lines, all loads
 * issued before the first store: the compiler may not hoist a load above
 * an NT store through a char pointer, and with a cold source the loads in
 * flight set the bandwidth), then @line, then words; from
 * FLUSHCACHE_NT_EDGES_MIN, the same body between two NT edge words.
 * @block and @line must be static always_inline functions.
 */
KFLUSH_INLINE void flushcache_lines(char *d, const char *s, size_t n, size_t cached_below,
				    size_t block_lines,
				    void (*block)(char *d, const char *s),
				    void (*line)(char *d, const char *s))
{
	size_t head, tail;

	if (n >= FLUSHCACHE_NT_EDGES_MIN) {
		char *last = d + n - 8;
		const char *slast = s + n - 8;

		head = (size_t)(-(uintptr_t)d & 7);
		if (head) {
			nt_store8(d, load8(s));
			d += head;
			s += head;
			n -= head;
		}
		n = nt_copy_body(&d, &s, n, block_lines, block, line);
		nt_copy_words(d, s, n & ~(size_t)7);
		if (n & 7)
			nt_store8(last, load8(slast));
		return;
	}

	/*
	 * Ask for the cached edge lines first: where one is not in the cache,
	 * its read then overlaps the source loads instead of holding up every
	 * store behind it. Intel family 6 model 0xa7, copy-bench sweep, three
	 * runs of 11 rounds, CPU time, random sizes and offsets, ns per copy
	 * before and after (PMDK's NT copy beside them): cold 128 B 72 and
	 * 71 (61, 70), 512 B 152 and 124 (138, 133), 768 B 203 and 158 (185,
	 * 188), the 1 B-4 KiB mix 107 and 96 (110, 108); hot the same within
	 * 1-3 ns. The fill gained nothing from it (no loads to overlap).
	 */
	split_edges(d, n, cached_below, &head, &tail);
	if (head + tail == n) {
		/* No NT body: one call, inline stores and write-backs. */
		memcpy_temporal(d, s, n);
		return;
	}
	if (head)
		__builtin_prefetch(d, 1, 3);
	if (tail)
		__builtin_prefetch(d + n - 1, 1, 3);
	cached_copy_wb(d, s, head);
	d += head;
	s += head;
	n -= head + tail;
	if (n >= FLUSHCACHE_BULK_MIN)
		n = nt_copy_body(&d, &s, n, block_lines, block, line);
	nt_copy_words(d, s, n);
	cached_copy_wb(d + n, s + n, tail);
}

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
KFLUSH_INLINE void nt_copy_small(char *d, const char *s, size_t n,
				 void (*line)(char *d, const char *s))
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
	nt_copy_words(d, s, n);
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
KFLUSH_INLINE void vec_copy_small(char *d, const char *s, size_t n,
				  void (*line)(char *d, const char *s))
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
	nt_copy_small(d, s, n, line);
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
 * FLUSHCACHE_BULK_MIN bytes, the variant's @lines. Below, the small
 * 8-aligned copy of a multiple of 4 (the other struct page sizes) goes to
 * @small, decided before any frame is set up: NT words and no edge, what
 * flushcache_lines() would do anyway (nt_copy_small), or with 16-byte
 * stores where the variant may use them (vec_copy_small); any other short
 * copy to flushcache_short().
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
#define FLUSHCACHE_ENTRY_SHORT(name, lines, line, one_line, small, short_copy)	\
	void name(void *dst, const void *src, size_t n)			\
	{									\
		if ((((uintptr_t)dst & (LINE - 1)) | (n ^ LINE)) == 0)		\
			one_line(dst, src);					\
		else if (n >= FLUSHCACHE_BULK_MIN)				\
			lines(dst, src, n);					\
		else if ((((uintptr_t)dst & 7) | (n & 3)) == 0)			\
			small(dst, src, n, line);				\
		else								\
			short_copy(dst, src, n);				\
	}

#define FLUSHCACHE_ENTRY(name, lines, line, one_line, small)		\
	FLUSHCACHE_ENTRY_SHORT(name, lines, line, one_line, small, flushcache_short)

/* A variant with one line store and one block for every length. */
#define FLUSHCACHE_VARIANT(name, block_lines, block, line, one_line, small)	\
	static __attribute__((noinline)) void name##_lines(char *d, const char *s, size_t n) \
	{									\
		flushcache_lines(d, s, n, 0, (block_lines), block, line);	\
	}									\
	FLUSHCACHE_ENTRY(name, name##_lines, line, one_line, small)

/*
 * The "_short_cached" variants (bound by a per-CPU rule): every call with
 * a sub-word edge below SHORT_CACHED_BELOW bytes goes all through
 * the cache, a whole line or not. Below FLUSHCACHE_BULK_MIN the entry's
 * last case always has such an edge (its destination is not 8-aligned or
 * its length leaves 1..3 bytes), so it is the temporal copy itself.
 * AMD EPYC family 0x17 model 0x31 (Zen 2), copy-bench sweep and set,
 * random sizes (+-25 %) and offsets, three runs of 11 rounds, CPU time,
 * this variant's speed over avx2's beside it: copies cold 1.15-1.54x at
 * 96-512 B, hot 1.1-2.0x; fills cold 1.2-1.9x, hot 1.05-2.0x. With every
 * such call below 1 KiB all through the cache, fills still gained 1.33x
 * cold in the 768 B cell (576-960 B) and copies tied there, but both lost
 * 4-13 % in the 896 B and 1 KiB cells, hot and cold (libkflush(7),
 * Per-CPU rules).
 */
#define SHORT_CACHED_BELOW 768

#define FLUSHCACHE_SHORT_CACHED_VARIANT(name, block_lines, block, line, one_line, small) \
	static __attribute__((noinline)) void name##_lines(char *d, const char *s, size_t n) \
	{									\
		flushcache_lines(d, s, n, SHORT_CACHED_BELOW, (block_lines), block, line); \
	}									\
	FLUSHCACHE_ENTRY_SHORT(name, name##_lines, line, one_line, small, memcpy_temporal)

/*
 * MOVDIR64B writes a full 64-byte line as one direct store with
 * write-combining semantics: the line is not left in the cache (a cached
 * copy is written back and invalidated first), so it keeps the contract.
 * The destination must be 64-byte aligned; the source need not be.
 */
struct line64 {
	char b[LINE];
};

static inline __attribute__((always_inline)) void movdir64b_line(char *d, const char *s)
{
	__asm__ __volatile__("movdir64b %1, %0"
			     : : "r"(d), "m"(*(const struct line64 *)(const void *)s) : "memory");
}

/* Memory to memory: nothing to load ahead. */
#define MOVDIR64B_BLOCK 4

static inline __attribute__((always_inline)) void movdir64b_block(char *d, const char *s)
{
	_Pragma("GCC unroll 64")
	for (int i = 0; i < MOVDIR64B_BLOCK; i++)
		movdir64b_line(d + i * LINE, s + i * LINE);
}

/* nt_copy_body() for a fill: words to a line boundary, then @line. */
KFLUSH_INLINE size_t nt_set_body(char **d, uint64_t v, size_t n, const void *p,
				 void (*line)(char *d, const void *p))
{
	size_t to_line = (size_t)(-(uintptr_t)*d & (LINE - 1));

	nt_set_words(*d, v, to_line);
	*d += to_line;
	n -= to_line;
	for (; n >= LINE; *d += LINE, n -= LINE)
		line(*d, p);
	return n;
}

/*
 * The memset driver; @line stores one aligned line of the pattern in @p.
 * Its edges follow flushcache_lines(): cached edge lines below
 * FLUSHCACHE_NT_EDGES_MIN, unaligned NT words from there (the pattern is
 * the same at any alignment). Intel family 6 model 0xa7, copy-bench set,
 * two runs, random sizes and offsets, time with NT edges over time with
 * cached ones: cold 0.45-0.65 at 192 B-4 KiB, 0.82-0.91 at 6-24 KiB; hot
 * 1.3-2.8 at 8-512 B, 1.07-1.08 at 768 B-1 KiB, 0.85-0.99 from 1.5 KiB.
 */
KFLUSH_INLINE void flushset_lines(char *d, int c, size_t n, size_t cached_below, const void *p,
				  void (*line)(char *d, const void *p))
{
	uint64_t v = byte_pattern(c);
	size_t head, tail;

	if (n >= FLUSHCACHE_NT_EDGES_MIN) {
		char *last = d + n - 8;

		head = (size_t)(-(uintptr_t)d & 7);
		if (head) {
			nt_store8(d, v);
			d += head;
			n -= head;
		}
		n = nt_set_body(&d, v, n, p, line);
		nt_set_words(d, v, n & ~(size_t)7);
		if (n & 7)
			nt_store8(last, v);
		return;
	}

	split_edges(d, n, cached_below, &head, &tail);
	if (head + tail == n) {
		memset_temporal(d, c, n);
		return;
	}
	cached_set_wb(d, c, head);
	d += head;
	n -= head + tail;
	if (n >= FLUSHCACHE_BULK_MIN)
		n = nt_set_body(&d, v, n, p, line);
	nt_set_words(d, v, n);
	cached_set_wb(d + n, c, tail);
}

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
 * fill of a multiple of 4 has no edge (split_edges()) and is stored in NT
 * words whole lines and all, as the copy's small path does
 * (nt_copy_small()): in the entry, where the frame-free words need no
 * call. AMD EPYC family 0x17 model 0x31 (Zen 2), copy-bench set, three
 * alternations of 9 rounds, CPU time, speed over glibc memset plus
 * kflush_flush: 64 B at a line boundary cold 1.02-1.21 with the driver,
 * 1.19-1.33 with the words in flushset_short(); in the entry, beside a
 * variant that still called flushset_short() for them, 1.15-1.45x that
 * variant's speed cold and 1.05-1.20x hot at 64-192 B. Any other short
 * fill goes to @short_set.
 */
#define FLUSHSET_ENTRY_SHORT(name, lines, short_set)				\
	void name(void *dst, int c, size_t n)					\
	{									\
		if (n >= FLUSHCACHE_BULK_MIN)					\
			lines(dst, c, n);					\
		else if ((((uintptr_t)dst & 7) | (n & 3)) == 0)			\
			nt_set_words(dst, byte_pattern(c), n);			\
		else								\
			short_set(dst, c, n);					\
	}

#define FLUSHSET_ENTRY(name, lines) FLUSHSET_ENTRY_SHORT(name, lines, flushset_short)

/* Per-ISA variants, each in a file built with its own -m flags. */
void memcpy_flushcache_avx2(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx2_short_cached(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512_movdir64b(void *dst, const void *src, size_t n);
void memset_flushcache_avx2(void *dst, int c, size_t n);
void memset_flushcache_avx2_short_cached(void *dst, int c, size_t n);
void memset_flushcache_avx512(void *dst, int c, size_t n);

#endif /* KFLUSH_X86_FLUSHCACHE_H */
