/* SPDX-License-Identifier: MIT */
/*
 * The overlap-safe flush-copy: the drivers of flushcache.h run forward or
 * backward. Forward is safe whenever dst - src >= n as unsigned (dst below
 * src, or no overlap); otherwise the copy runs from the end down. Each
 * unit (a word group, a line, a block of lines) loads all its source
 * before its first store, and the units go in the copy's direction, so a
 * store can only hit source bytes that are already loaded: that holds at
 * every distance, 1 byte included.
 */
#ifndef KFLUSH_X86_MEMMOVE_FLUSHCACHE_H
#define KFLUSH_X86_MEMMOVE_FLUSHCACHE_H

#include "x86_64/flushcache_entry.h"

KFLUSH_INLINE int move_forward(const char *d, const char *s, size_t n)
{
	return (uintptr_t)d - (uintptr_t)s >= n;
}

/*
 * Ordinary stores that may overlap their source, then the write-back. Up
 * to TEMPORAL_SMALL_MAX bytes the temporal move, inline with inline
 * write-backs where memmove() and kflush_flush() are two calls (flush.h);
 * above, one memmove() and one write-back: the temporal move's 512-byte
 * steps made the cached short moves (129-255 B) and the short_cached
 * backward ones (256-767 B) a second memmove() whenever they crossed a
 * step, 0.61-0.72x glibc memmove + flush cold at 384-640 B against
 * 0.85-0.97x (AMD EPYC family 0x17 model 0x31, copy-bench move).
 */
KFLUSH_INLINE void cached_move_wb(char *d, const char *s, size_t n)
{
	if (n - 1 < TEMPORAL_SMALL_MAX) {
		memmove_temporal(d, s, n);
	} else if (n) {
		memmove(d, s, n);
		writeback_range(d, n);
	}
}

/*
 * nt_copy_words() from the end down: the 4-byte word first, as it is last.
 * d is 8-byte aligned: a backward move's words are the kernel shape's,
 * after its head; flushmove_lines() has none (a backward move is an
 * overlapping one, whose lines below FLUSHMOVE_CACHED_MAX are cached).
 */
KFLUSH_INLINE void nt_copy_words_back(char *d, const char *s, size_t n)
{
	if (n & 4) {
		n -= 4;
		nt_store4(d + n, load4(s + n));
	}
	for (; n >= 32; n -= 32) {
		uint64_t a = load8(s + n - 32), b = load8(s + n - 24);
		uint64_t c = load8(s + n - 16), e = load8(s + n - 8);

		nt_store8(d + n - 8, e);
		nt_store8(d + n - 16, c);
		nt_store8(d + n - 24, b);
		nt_store8(d + n - 32, a);
	}
	for (; n >= 8; n -= 8)
		nt_store8(d + n - 8, load8(s + n - 8));
}

/* The kernel's shape (flushcache_core()), in whichever direction is safe. */
KFLUSH_INLINE void flushmove_core(char *d, const char *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 7), body;

	if (!n)
		return;
	if (head > n)
		head = n;
	body = (n - head) & ~(size_t)3;
	if (move_forward(d, s, n)) {
		cached_move_wb(d, s, head);
		nt_copy_words(d + head, s + head, body);
		cached_move_wb(d + head + body, s + head + body, n - head - body);
	} else {
		cached_move_wb(d + head + body, s + head + body, n - head - body);
		nt_copy_words_back(d + head, s + head, body);
		cached_move_wb(d, s, head);
	}
}

/*
 * Below this many bytes, a move whose destination lines are also source
 * lines is made with ordinary stores and written back, as PMDK does below
 * 256 B. Its loads have just brought those lines into the cache, and a
 * non-temporal store to a cached line waits for the line to leave it:
 * on Intel family 6 model 0xa7 (copy-bench --mode move, libkflush(7)),
 * hot 16-192 B moves took 13-77 ns with the NT stores against 11-24 ns
 * cached, and from 256 B the NT stores were ahead again (20.8 against
 * 24.3 ns hot, 42.5 against 45.3 cold, backward).
 */
#define FLUSHMOVE_CACHED_MAX 256

/* Whether [d, d+n) and [s, s+n) touch a common cache line (n > 0). */
KFLUSH_INLINE int move_shares_lines(const char *d, const char *s, size_t n)
{
	uintptr_t d0 = (uintptr_t)d & ~(uintptr_t)(LINE - 1), d1 = ((uintptr_t)d + n - 1) | (LINE - 1);
	uintptr_t s0 = (uintptr_t)s & ~(uintptr_t)(LINE - 1), s1 = ((uintptr_t)s + n - 1) | (LINE - 1);

	return d0 <= s1 && s0 <= d1;
}

/*
 * The short move within its own lines (above), tested where a variant is
 * entered, so that nothing runs before its cached copy: in the driver it
 * came after the driver's frame (six pushes), and the bound flush-move
 * ran 0.66-0.93x the speed of glibc memmove + kflush_flush at 16-96 B
 * hot, 0.96-1.21x after (AMD EPYC family 0x17 model 0x31, copy-bench
 * move, three alternations).
 */
KFLUSH_INLINE int move_short_cached(const char *d, const char *s, size_t n)
{
	return n - 1 < FLUSHMOVE_CACHED_MAX - 1 && move_shares_lines(d, s, n);
}

/*
 * flushcache_lines() in either direction, but from FLUSHCACHE_BULK_MIN
 * bytes whole lines only: the partial lines at both ends are cached and
 * written back, as PMDK's movnt paths make them, and the rest goes in
 * blocks and lines, each loading its source before its stores.
 * Non-temporal words into part of a line that is in the cache wait for
 * the line to leave it, and a move's edge lines mostly are: one of them
 * holds source bytes just loaded. On Intel family 6 model 0xa7,
 * copy-bench --mode move with the destination 16-48 bytes into its line,
 * hot, ns per move (PMDK's NT memmove beside it): backward 320-640 B
 * 50-104 with NT edge words (34-76), 33-69 with cached edges; forward
 * 53-101 (42-76) against 38-69; cold 0.86-0.98x PMDK's speed against
 * 0.98-1.24x. Caching only an edge line that holds source bytes left
 * the forward moves at 0.97-1.00x PMDK hot. A copy's edges are another
 * matter (flushcache_lines()): its destination lines are not its
 * source's, and cached edges in all of them cost it a read of each cold
 * edge line (sweep cold random 384-768 B, 1.1x the time) and gained
 * nothing hot. Below FLUSHCACHE_BULK_MIN the split is the copy's; a
 * short move within its own lines never gets here (move_short_cached(),
 * tested where a variant is entered). From there up to @cached_below
 * bytes (the "_short_cached" variants; 0 in the others) a backward move
 * with a cached edge goes all through the cache
 * (FLUSHMOVE_SHORT_CACHED_VARIANT).
 */
KFLUSH_INLINE void flushmove_lines(char *d, const char *s, size_t n, size_t cached_below,
				   size_t block_lines,
				   void (*block)(char *d, const char *s),
				   void (*line)(char *d, const char *s))
{
	size_t head, tail, blocks = 0, lines = 0, words;
	const size_t bsz = block_lines * LINE;
	char *bd;
	const char *bs;

	if (n >= FLUSHCACHE_BULK_MIN) {
		head = (size_t)(-(uintptr_t)d & (LINE - 1));
		tail = (size_t)(((uintptr_t)d + n) & (LINE - 1));
		blocks = (n - head - tail) / bsz;
		lines = (n - head - tail) % bsz / LINE;
		words = 0;
	} else {
		split_edges(d, n, &head, &tail);
		words = n - head - tail;
	}
	bd = d + head;
	bs = s + head;

	if (move_forward(d, s, n)) {
		cached_move_wb(d, s, head);
		for (size_t i = 0; i < blocks; i++, bd += bsz, bs += bsz)
			block(bd, bs);
		for (size_t i = 0; i < lines; i++, bd += LINE, bs += LINE)
			line(bd, bs);
		nt_copy_words4(bd, bs, words);
		cached_move_wb(bd + words, bs + words, tail);
		return;
	}

	if (n < cached_below && n >= FLUSHCACHE_BULK_MIN && (head | tail)) {
		cached_move_wb(d, s, n);
		return;
	}

	/* bd/bs advance to the end of the body, then each piece steps down. */
	bd += blocks * bsz + lines * LINE;
	bs += blocks * bsz + lines * LINE;
	cached_move_wb(bd + words, bs + words, tail);
	nt_copy_words_back(bd, bs, words);
	for (size_t i = 0; i < lines; i++) {
		bd -= LINE;
		bs -= LINE;
		line(bd, bs);
	}
	for (size_t i = 0; i < blocks; i++) {
		bd -= bsz;
		bs -= bsz;
		block(bd, bs);
	}
	cached_move_wb(d, s, head);
}

void memmove_flushcache_movnti(void *dst, const void *src, size_t n);
/* The movnti driver behind the entry's test (flushcache.c). */
void movnti_move_lines(char *d, const char *s, size_t n) __attribute__((visibility("hidden")));
void memmove_flushcache_avx2(void *dst, const void *src, size_t n);
void memmove_flushcache_avx2_short_cached(void *dst, const void *src, size_t n);
void memmove_flushcache_avx512(void *dst, const void *src, size_t n);

/*
 * Every flush-move's entry: the short move within its own lines first;
 * then below FLUSHCACHE_BULK_MIN bytes a move stores no whole line and
 * runs none of a variant's line or block code, so @short_move (the movnti
 * driver) takes it, before a vector driver's frame (five pushes and a
 * stack aligned for the block's registers) is set up, as the flush-copy's
 * short calls do (flushcache_short()); else the variant's @lines.
 */
KFLUSH_INLINE void flushmove_entry(char *d, const char *s, size_t n,
				   void (*short_move)(char *d, const char *s, size_t n),
				   void (*lines)(char *d, const char *s, size_t n))
{
	if (move_short_cached(d, s, n))
		cached_move_wb(d, s, n);
	else if (n < FLUSHCACHE_BULK_MIN)
		short_move(d, s, n);
	else
		lines(d, s, n);
}

#define FLUSHMOVE_ENTRY(name, cached_below, short_move, block_lines, block, line) \
	static __attribute__((noinline)) void name##_lines(char *d, const char *s, size_t n) \
	{									\
		flushmove_lines(d, s, n, (cached_below), (block_lines), block, line); \
	}									\
	void name(void *dst, const void *src, size_t n)			\
	{									\
		flushmove_entry(dst, src, n, short_move, name##_lines);	\
	}

#define FLUSHMOVE_VARIANT(name, block_lines, block, line)			\
	FLUSHMOVE_ENTRY(name, 0, movnti_move_lines, block_lines, block, line)

/*
 * The flush-copy's "_short_cached" rule for a move, backward only: from
 * FLUSHCACHE_BULK_MIN to SHORT_CACHED_BELOW bytes a move that runs from
 * its end down (its destination above its source, overlapping) and has a
 * partial edge line goes all through the cache. Below FLUSHCACHE_BULK_MIN
 * such a move shares lines with its source and is cached already. AMD
 * EPYC family 0x17 model 0x31 (Zen 2), copy-bench move, three runs of 11
 * rounds, CPU time, against avx2 beside it: backward (up) 256-640 B cold
 * 1.45-1.64x, hot 1.07-1.43x; forward (down) 0.96-1.04x, the same code.
 * Forward moves all through the cache had run 0.74-0.81x cold at
 * 384-640 B (hot 1.04-1.18x), so they stay as avx2's; the test sits on
 * the backward path, where placed before the direction test it cost the
 * forward moves 6 % hot at 384 B.
 */
#define FLUSHMOVE_SHORT_CACHED_VARIANT(name, block_lines, block, line)		\
	FLUSHMOVE_ENTRY(name, SHORT_CACHED_BELOW, movnti_move_lines, block_lines, block, line)

#endif /* KFLUSH_X86_MEMMOVE_FLUSHCACHE_H */
