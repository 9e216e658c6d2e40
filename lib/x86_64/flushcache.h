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

/*
 * The same from a destination that may be only 4-byte aligned: a 4-byte
 * store first where it is not 8-byte aligned. For the drivers, whose body
 * starts wherever a call's head left it; the short paths test the
 * alignment in the entry instead, so that an 8-aligned call pays nothing.
 */
KFLUSH_INLINE void nt_copy_words4(char *d, const char *s, size_t n)
{
	if (((uintptr_t)d & 4) && n) {
		nt_store4(d, load4(s));
		d += 4;
		s += 4;
		n -= 4;
	}
	nt_copy_words(d, s, n);
}

KFLUSH_INLINE void nt_set_words4(char *d, uint64_t v, size_t n)
{
	if (((uintptr_t)d & 4) && n) {
		nt_store4(d, (uint32_t)v);
		d += 4;
		n -= 4;
	}
	nt_set_words(d, v, n);
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
 * the copy has a sub-word edge (a destination not 4-byte aligned, or a
 * length that leaves 1..3 bytes after the last 4-byte store), the whole of
 * that edge's line within the copy goes through the cache. A 4-aligned
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
 * Sets *head and *tail to the bytes to write cached at each end; *head is
 * n when every line goes through the cache.
 */
KFLUSH_INLINE void split_edges(const char *d, size_t n, size_t *head, size_t *tail)
{
	uintptr_t a = (uintptr_t)d;
	size_t h = 0, t = 0;

	if (a & 3)
		h = LINE - (a & (LINE - 1));
	if (h >= n) {
		*head = n;
		*tail = 0;
		return;
	}
	/* The NT body starts 4-aligned; its end must be 4-aligned. */
	if ((n - h) & 3) {
		t = (a + n) & (LINE - 1);
		if (t > n - h)
			t = n - h;
	}
	/* A sub-word edge and no whole line: every line through the cache. */
	if ((h | t) && n < (size_t)(-a & (LINE - 1)) + LINE) {
		*head = n;
		*tail = 0;
		return;
	}
	*head = h;
	*tail = t;
}

/*
 * NT words from *d (4-byte aligned) up to its line boundary; advances *d
 * and *s, returns the @n bytes less those.
 */
KFLUSH_INLINE size_t nt_words_to_line(char **d, const char **s, size_t n)
{
	size_t to_line = (size_t)(-(uintptr_t)*d & (LINE - 1));

	nt_copy_words4(*d, *s, to_line);
	*d += to_line;
	*s += to_line;
	return n - to_line;
}

/*
 * Words up to a line boundary from *d (4-byte aligned), then @block over
 * @block_lines whole lines at a time, then @line over the rest of the
 * whole lines; advances *d and *s, returns the bytes left (under a line).
 */
KFLUSH_INLINE size_t nt_copy_body(char **d, const char **s, size_t n, size_t block_lines,
				  void (*block)(char *d, const char *s),
				  void (*line)(char *d, const char *s))
{
	n = nt_words_to_line(d, s, n);
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
 * The NT edges (FLUSHCACHE_NT_EDGES_MIN): the head, one unaligned 8-byte
 * store up to the first 8-byte boundary (advances *d and *s, shrinks *n) ...
 */
KFLUSH_INLINE void nt_edge_head(char **d, const char **s, size_t *n)
{
	size_t head = (size_t)(-(uintptr_t)*d & 7);

	if (head) {
		nt_store8(*d, load8(*s));
		*d += head;
		*s += head;
		*n -= head;
	}
}

/*
 * ... and after the body, its @n (< LINE) bytes left: the whole words,
 * then the copy's last 8 bytes (@last, from @slast) over the rest.
 */
KFLUSH_INLINE void nt_edge_tail(char *d, const char *s, size_t n, char *last, const char *slast)
{
	nt_copy_words(d, s, n & ~(size_t)7);
	if (n & 7)
		nt_store8(last, load8(slast));
}

/*
 * A variant may also send every call below @cached_below bytes that has a
 * sub-word edge (a destination or an end not 4-byte aligned) all through
 * the cache, tested in its entry before its driver
 * sets up a frame (0: none; the "_short_cached" variants,
 * SHORT_CACHED_BELOW and SHORT_CACHED_SET_BELOW, flushcache_entry.h).
 */
KFLUSH_INLINE int all_cached_call(const void *d, size_t n, size_t cached_below)
{
	return n < cached_below && (((uintptr_t)d | ((uintptr_t)d + n)) & 3) != 0;
}

/*
 * Where a driver's NT edges start (its @nt_from): FLUSHCACHE_NT_EDGES_MIN,
 * or in a "_short_cached" variant its @cached_below, so that it has no
 * cached edge lines at all: a call with a sub-word edge goes all through
 * the cache below it and all NT from it (flushcache_entry.h says why).
 */
KFLUSH_INLINE size_t nt_edges_from(size_t cached_below)
{
	return cached_below ? cached_below : FLUSHCACHE_NT_EDGES_MIN;
}

/*
 * The driver behind every variant but "kernel": below @nt_from bytes
 * (nt_edges_from()), cached edge lines as above and an NT body in 8- and
 * 4-byte words, or, from FLUSHCACHE_BULK_MIN bytes, words up to a line
 * boundary, then @block (@block_lines whole lines, all loads
 * issued before the first store: the compiler may not hoist a load above
 * an NT store through a char pointer, and with a cold source the loads in
 * flight set the bandwidth), then @line, then words; from @nt_from,
 * the same body between two NT edge words.
 * @block and @line must be static always_inline functions.
 */
KFLUSH_INLINE void flushcache_lines(char *d, const char *s, size_t n, size_t nt_from,
				    size_t block_lines,
				    void (*block)(char *d, const char *s),
				    void (*line)(char *d, const char *s))
{
	size_t head, tail;

	if (n >= nt_from) {
		char *last = d + n - 8;
		const char *slast = s + n - 8;

		nt_edge_head(&d, &s, &n);
		n = nt_copy_body(&d, &s, n, block_lines, block, line);
		nt_edge_tail(d, s, n, last, slast);
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
	split_edges(d, n, &head, &tail);
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
	nt_copy_words4(d, s, n);
	cached_copy_wb(d + n, s + n, tail);
}

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

	nt_set_words4(*d, v, to_line);
	*d += to_line;
	n -= to_line;
	for (; n >= LINE; *d += LINE, n -= LINE)
		line(*d, p);
	return n;
}

/*
 * The memset driver; @line stores one aligned line of the pattern in @p.
 * Its edges follow flushcache_lines(): cached edge lines below @nt_from,
 * unaligned NT words from there (the pattern is the same at any
 * alignment). Intel family 6 model 0xa7, copy-bench set,
 * two runs, random sizes and offsets, time with NT edges over time with
 * cached ones: cold 0.45-0.65 at 192 B-4 KiB, 0.82-0.91 at 6-24 KiB; hot
 * 1.3-2.8 at 8-512 B, 1.07-1.08 at 768 B-1 KiB, 0.85-0.99 from 1.5 KiB.
 */
KFLUSH_INLINE void flushset_lines(char *d, int c, size_t n, size_t nt_from, const void *p,
				  void (*line)(char *d, const void *p))
{
	uint64_t v = byte_pattern(c);
	size_t head, tail;

	if (n >= nt_from) {
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

	split_edges(d, n, &head, &tail);
	if (head + tail == n) {
		memset_temporal(d, c, n);
		return;
	}
	cached_set_wb(d, c, head);
	d += head;
	n -= head + tail;
	if (n >= FLUSHCACHE_BULK_MIN)
		n = nt_set_body(&d, v, n, p, line);
	nt_set_words4(d, v, n);
	cached_set_wb(d + n, c, tail);
}

#endif /* KFLUSH_X86_FLUSHCACHE_H */
