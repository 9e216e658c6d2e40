// SPDX-License-Identifier: MIT
/*
 * The temporal flush-copy: ordinary stores, then the lines written back
 * (PMDK's PMEM_F_MEM_TEMPORAL). For a destination that is read again soon
 * (a log head, an allocator's metadata) clwb leaves the line in the cache,
 * clean, where a non-temporal store would have evicted it; and below a few
 * hundred bytes ordinary stores plus a write-back are cheaper than filling
 * write-combining buffers. Same contract as the flush-copy: on return no
 * destination line is dirty; nothing fences.
 */
#include <emmintrin.h>

#include "x86_64/flush.h"

void flush_clwb(const void *addr, size_t len);
void flush_clflushopt(const void *addr, size_t len);

/*
 * Beyond that the destination goes in steps of this many bytes, each
 * written back before the next is stored. Copying 64 KiB and then writing
 * 64 KiB back finds most lines already pushed out of L1 by the copy
 * itself: fio's libpmem engine at bs=64k direct=0 (a temporal
 * pmem_memcpy) spent 26 % of its time in the copy and 15 % in the
 * write-back, where PMDK writes back every four lines as it goes. 512
 * bytes: fio there (AMD EPYC, Zen 3) drop-in/libpmem 64k 1.12 and 1.08 x,
 * 1m 0.87 and 1.00 x, against 0.84-0.86 x with 4 KiB steps and 0.74 x
 * with none (noisy host). Steps end on step boundaries of the
 * destination, so no line is written back twice.
 *
 * The boundaries hold below 512 bytes too, where a copy at a random
 * offset that crosses one pays a second call pair: taken whole, a copy
 * that fits in one step ran faster hot and slower cold (split, the
 * first step's write-backs overlap the next step's misses). AMD EPYC
 * family 0x17 model 0x31 (Zen 2), copy-bench sweep, random, six
 * alternations of 9 rounds in one build, CPU time, over glibc memcpy
 * plus kflush_flush: hot 160-512 B 0.78-0.92 split, 0.83-0.97 whole;
 * cold 256-384 B 1.10 split, 0.94-0.97 whole. Moves taken whole up to 1
 * KiB, four alternations, cold down 384 B-1 KiB: 0.94-1.21 split (medians
 * per size), 0.90-0.97 whole.
 */
#define TEMPORAL_STEP 512

/* The first step: up to the destination's next step boundary. */
KFLUSH_INLINE size_t first_step(const void *d)
{
	return TEMPORAL_STEP - ((uintptr_t)d & (TEMPORAL_STEP - 1));
}

static void copy_steps(char *d, const char *s, size_t n)
{
	kflush_memcpy_fn copy = KFLUSH_BOUND(KFLUSH_OP_MEMCPY, kflush_memcpy_fn);

	for (size_t step = first_step(d); n; d += step, s += step, n -= step, step = TEMPORAL_STEP) {
		if (step > n)
			step = n;
		copy(d, s, step);
		writeback_range(d, step);
	}
}

/*
 * Forward when the destination is below the source or clear of it, else
 * from the end down: a step then never overwrites source bytes a later
 * step still has to read.
 */
static void move_steps(char *d, const char *s, size_t n)
{
	size_t step;

	if ((uintptr_t)d - (uintptr_t)s >= n) {
		for (step = first_step(d); n; d += step, s += step, n -= step, step = TEMPORAL_STEP) {
			if (step > n)
				step = n;
			memmove(d, s, step);
			writeback_range(d, step);
		}
		return;
	}
	d += n;
	s += n;
	step = (uintptr_t)d & (TEMPORAL_STEP - 1);
	for (step = step ? step : TEMPORAL_STEP; n; n -= step, step = TEMPORAL_STEP) {
		if (step > n)
			step = n;
		d -= step;
		s -= step;
		memmove(d, s, step);
		writeback_range(d, step);
	}
}

/*
 * The C library's memset under another name, so that gcc calls it: knowing
 * a step is at most 512 bytes, gcc 12 expanded memset() here into rep
 * stosq with a store at each end, whose start-up took the fill from 8 to
 * 15-25 ns per call at 8-64 B into hot lines (Intel family 6 model 0xa7,
 * copy-bench set, glibc memset + kflush_flush 7.2-8.2 ns; libkflush(7)).
 */
extern void *libc_memset(void *dst, int c, size_t n) __asm__("memset");

static __attribute__((noinline)) void set_steps(char *d, int c, size_t n)
{
	for (size_t step = first_step(d); n; d += step, n -= step, step = TEMPORAL_STEP) {
		if (step > n)
			step = n;
		libc_memset(d, c, step);
		writeback_range(d, step);
	}
}

typedef __m128i u128 __attribute__((aligned(1)));

/*
 * 1..128 bytes with loads from both ends: no loop, no call, a branch per
 * size class, the way the C library's small memcpy is built. Every load
 * comes before any store, and the compiler cannot move one past a store
 * that may alias it, so the copy is right for overlapping buffers too:
 * kflush_memmove_temporal() uses it (test_flags sweeps every overlap).
 */
KFLUSH_INLINE void small_copy(char *d, const char *s, size_t n)
{
	if (n >= 32) {
		/* 32..128: two or four 16-byte words from each end. */
		__m128i a = _mm_loadu_si128((const u128 *)s);
		__m128i b = _mm_loadu_si128((const u128 *)(s + 16));
		__m128i y = _mm_loadu_si128((const u128 *)(s + n - 32));
		__m128i z = _mm_loadu_si128((const u128 *)(s + n - 16));

		if (n > 64) {
			__m128i c = _mm_loadu_si128((const u128 *)(s + 32));
			__m128i e = _mm_loadu_si128((const u128 *)(s + 48));
			__m128i w = _mm_loadu_si128((const u128 *)(s + n - 64));
			__m128i x = _mm_loadu_si128((const u128 *)(s + n - 48));

			_mm_storeu_si128((u128 *)(d + 32), c);
			_mm_storeu_si128((u128 *)(d + 48), e);
			_mm_storeu_si128((u128 *)(d + n - 64), w);
			_mm_storeu_si128((u128 *)(d + n - 48), x);
		}
		_mm_storeu_si128((u128 *)d, a);
		_mm_storeu_si128((u128 *)(d + 16), b);
		_mm_storeu_si128((u128 *)(d + n - 32), y);
		_mm_storeu_si128((u128 *)(d + n - 16), z);
	} else if (n >= 16) {
		__m128i a = _mm_loadu_si128((const u128 *)s);
		__m128i z = _mm_loadu_si128((const u128 *)(s + n - 16));

		_mm_storeu_si128((u128 *)d, a);
		_mm_storeu_si128((u128 *)(d + n - 16), z);
	} else if (n >= 8) {
		uint64_t a = load8(s), z = load8(s + n - 8);

		memcpy(d, &a, 8);
		memcpy(d + n - 8, &z, 8);
	} else if (n >= 4) {
		uint32_t a = load4(s), z = load4(s + n - 4);

		memcpy(d, &a, 4);
		memcpy(d + n - 4, &z, 4);
	} else {
		/* 1..3: first, middle and last byte (some the same). */
		char a = s[0], m = s[n >> 1], z = s[n - 1];

		d[0] = a;
		d[n >> 1] = m;
		d[n - 1] = z;
	}
}

/* small_copy()'s stores for a fill: 1..128 bytes of @c, no loop, no call. */
KFLUSH_INLINE void small_set(char *d, int c, size_t n)
{
	const uint64_t w = (unsigned char)c * 0x0101010101010101ULL;

	if (n >= 32) {
		const __m128i v = _mm_set1_epi8((char)c);

		if (n > 64) {
			_mm_storeu_si128((u128 *)(d + 32), v);
			_mm_storeu_si128((u128 *)(d + 48), v);
			_mm_storeu_si128((u128 *)(d + n - 64), v);
			_mm_storeu_si128((u128 *)(d + n - 48), v);
		}
		_mm_storeu_si128((u128 *)d, v);
		_mm_storeu_si128((u128 *)(d + 16), v);
		_mm_storeu_si128((u128 *)(d + n - 32), v);
		_mm_storeu_si128((u128 *)(d + n - 16), v);
	} else if (n >= 16) {
		const __m128i v = _mm_set1_epi8((char)c);

		_mm_storeu_si128((u128 *)d, v);
		_mm_storeu_si128((u128 *)(d + n - 16), v);
	} else if (n >= 8) {
		memcpy(d, &w, 8);
		memcpy(d + n - 8, &w, 8);
	} else if (n >= 4) {
		const uint32_t h = (uint32_t)w;

		memcpy(d, &h, 4);
		memcpy(d + n - 4, &h, 4);
	} else {
		d[0] = (char)c;
		d[n >> 1] = (char)c;
		d[n - 1] = (char)c;
	}
}

/*
 * A temporal copy or move up to TEMPORAL_SMALL_MAX bytes (small_copy() is
 * overlap-safe), above that @steps.
 */
KFLUSH_INLINE void temporal_copy(char *d, const char *s, size_t n,
				 void (*steps)(char *d, const char *s, size_t n),
				 void (*wb)(const void *p))
{
	uintptr_t line = kflush_clflush_size;

	if (n - 1 >= TEMPORAL_SMALL_MAX) {
		steps(d, s, n);
		return;
	}
	small_copy(d, s, n);
	store_gap();
	wb_lines(d, n, line, wb);
}

/*
 * kflush_memcpy_temporal, kflush_memmove_temporal and
 * kflush_memset_temporal, once per write-back instruction, bound by GNU
 * ifunc to the one the flush operation is bound to (so KFLUSH_HWCAPS
 * applies): a small copy, move or fill is then the call and nothing else,
 * where the general path is two more calls (the copy or fill, and the
 * flush).
 */
#define DEFINE_TEMPORAL(insn)							\
	static void memcpy_temporal_##insn(void *dst, const void *src, size_t n)	\
	{									\
		temporal_copy(dst, src, n, copy_steps, wb_##insn);		\
	}									\
	static void memmove_temporal_##insn(void *dst, const void *src, size_t n) \
	{									\
		temporal_copy(dst, src, n, move_steps, wb_##insn);		\
	}									\
	/* kflush_memset_temporal, the same way. */				\
	static void memset_temporal_##insn(void *dst, int c, size_t n)		\
	{									\
		uintptr_t line = kflush_clflush_size;				\
										\
		if (n - 1 >= TEMPORAL_SMALL_MAX) {				\
			set_steps(dst, c, n);					\
			return;							\
		}								\
		small_set(dst, c, n);						\
		store_gap();							\
		wb_lines(dst, n, line, wb_##insn);				\
	}

DEFINE_TEMPORAL(clwb)
DEFINE_TEMPORAL(clflushopt)
DEFINE_TEMPORAL(clflush)

/* Which of the three a resolver returns: the one kflush_flush() is bound to. */
static KFLUSH_EARLY int temporal_wb(void)
{
	kflush_fn flush = kflush_resolve(KFLUSH_OP_FLUSH);

	if (flush == (kflush_fn)flush_clwb)
		return 0;
	return flush == (kflush_fn)flush_clflushopt ? 1 : 2;
}

static KFLUSH_EARLY kflush_memcpy_flushcache_fn kflush_memcpy_temporal_resolve(void)
{
	static const kflush_memcpy_flushcache_fn fns[] = {
		memcpy_temporal_clwb, memcpy_temporal_clflushopt, memcpy_temporal_clflush
	};

	return fns[temporal_wb()];
}

static KFLUSH_EARLY kflush_memmove_flushcache_fn kflush_memmove_temporal_resolve(void)
{
	static const kflush_memmove_flushcache_fn fns[] = {
		memmove_temporal_clwb, memmove_temporal_clflushopt, memmove_temporal_clflush
	};

	return fns[temporal_wb()];
}

static KFLUSH_EARLY kflush_memset_flushcache_fn kflush_memset_temporal_resolve(void)
{
	static const kflush_memset_flushcache_fn fns[] = {
		memset_temporal_clwb, memset_temporal_clflushopt, memset_temporal_clflush
	};

	return fns[temporal_wb()];
}

/* The library's own calls (flushcache.h). */
void memcpy_temporal(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memcpy_temporal_resolve")));
void memmove_temporal(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memmove_temporal_resolve")));
void memset_temporal(void *dst, int c, size_t n)
	__attribute__((ifunc("kflush_memset_temporal_resolve")));

/**
 * kflush_memcpy_temporal() - copy through the cache, then write the lines back
 * @dst: destination, any alignment
 * @src: source, any alignment; must not overlap @dst
 * @n: bytes to copy; 0 touches nothing
 *
 * kflush_memcpy() followed by kflush_flush() over the destination, in
 * steps of 512 bytes of destination so each step's lines are still in the
 * cache when they are written back; up to 128 bytes an inline copy and
 * inline write-backs with the same instruction kflush_flush() is bound
 * to. Does not fence: kflush_drain() before relying on it.
 */
KFLUSH_API void kflush_memcpy_temporal(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memcpy_temporal_resolve")));

/**
 * kflush_memmove_temporal() - move through the cache, then write the lines back
 * @dst: destination, any alignment
 * @src: source, any alignment; may overlap @dst
 * @n: bytes to move; 0 touches nothing
 *
 * memmove() followed by kflush_flush() over the destination, in 512-byte
 * steps taken in the direction the overlap requires; up to 128 bytes an
 * inline copy that loads every byte before it stores one, and inline
 * write-backs, as kflush_memcpy_temporal(). Does not fence.
 */
KFLUSH_API void kflush_memmove_temporal(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memmove_temporal_resolve")));

/**
 * kflush_memset_temporal() - fill through the cache, then write the lines back
 * @dst: destination, any alignment
 * @c: byte value
 * @n: bytes to fill; 0 touches nothing
 *
 * memset() followed by kflush_flush() over the destination, in 512-byte
 * steps; up to 128 bytes inline stores and inline write-backs with the
 * instruction kflush_flush() is bound to, as kflush_memcpy_temporal().
 * Does not fence.
 */
KFLUSH_API void kflush_memset_temporal(void *dst, int c, size_t n)
	__attribute__((ifunc("kflush_memset_temporal_resolve")));
