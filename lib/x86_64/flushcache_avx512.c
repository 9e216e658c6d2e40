// SPDX-License-Identifier: MIT
/*
 * AVX-512 flush-copy, flush-move and flush-memset: one 64-byte vmovntdq per
 * aligned line. A block loads all its lines before its first store, so the
 * same block serves a move in either direction.
 */
#include <immintrin.h>

#include "x86_64/memmove_flushcache.h"

static inline __attribute__((always_inline)) void avx512_line(char *d, const char *s)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(s));
}

/* 32 lines: all 32 zmm registers loaded before the first store, stored in order. */
#define AVX512_BLOCK 32

static inline __attribute__((always_inline)) void avx512_block(char *d, const char *s)
{
	__m512i v[AVX512_BLOCK];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++)
		v[i] = _mm512_loadu_si512(s + i * LINE);
	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++) {
		_mm512_stream_si512((void *)(d + i * LINE), v[i]);
		nt_in_order();
	}
}

/*
 * One line on its own, as a call for a 64-byte struct page makes it: the
 * header's inline constant-size path (kflush_movntdq_n(): eight 8-byte
 * loads in asm, two per xmm, then four 16-byte movntdq). A record just
 * built with 8-byte stores (the memmap template, its lru words rewritten
 * per page) forwards to 8-byte loads, where a 64-byte load waits for
 * those stores to retire: Intel family 6 model 0xcf (the guest with
 * movdir64b), copy-bench struct-page 64 B, ns per page, 6.6 with the
 * 64-byte load, 3.2-3.3 with the eight loads merged into one zmm for one
 * store. Merging them costs three shuffles: on the guest without
 * movdir64b, the same bench, nine runs of 7 rounds, CPU time, the zmm
 * store 3.2-4.1 ns, four movntdq 2.8-3.8 (faster in eight, equal in
 * one); sweep 64 B, two runs, 0.90-1.00 of the zmm store's time in every
 * layout; init-bench generic/fixed (three alternations of 12 rebinds)
 * nd_pmem 1.05-1.28 with the zmm store, 1.03-1.08 this way.
 */
static inline __attribute__((always_inline)) void avx512_one_line(char *d, const char *s)
{
	kflush_movntdq_n(d, s, LINE);
}

FLUSHCACHE_VARIANT(memcpy_flushcache_avx512, AVX512_BLOCK, avx512_block, avx512_line,
		   avx512_one_line, vec_copy_small)

/*
 * avx512 below MOVDIR64B_STREAM_MIN bytes, movdir64b lines from there,
 * bound only by a per-CPU rule. On the Intel Xeon that KVM presents as
 * family 6 model 0xa7, copy-bench cold sweep, two runs of 11 rounds,
 * movdir64b's time over avx512's: 0.86-0.92 from 384 KiB at fixed sizes,
 * 0.95-1.03 at random sizes and offsets; below, 0.86-0.99 fixed but
 * 1.04-1.13 random at 8-256 KiB. A direct timing shows why: back to
 * back, movdir64b streams 11.8-12.0 GB/s, the 32-line zmm block
 * 10.5-10.7; with a gap after each copy (what random offsets make),
 * where the prefetchers do not run ahead, movdir64b falls to 9.0-9.1
 * and the block, with 32 loads in flight, holds 9.9-10.7.
 */
#define MOVDIR64B_STREAM_MIN (512u << 10)

static __attribute__((noinline)) void avx512_movdir64b_lines(char *d, const char *s, size_t n)
{
	if (n >= MOVDIR64B_STREAM_MIN)
		flushcache_lines(d, s, n, MOVDIR64B_BLOCK, movdir64b_block, movdir64b_line);
	else
		flushcache_lines(d, s, n, AVX512_BLOCK, avx512_block, avx512_line);
}

FLUSHCACHE_ENTRY(memcpy_flushcache_avx512_movdir64b, avx512_movdir64b_lines, avx512_line,
		 avx512_one_line, vec_copy_small)

void memmove_flushcache_avx512(void *dst, const void *src, size_t n)
{
	flushmove_lines(dst, src, n, AVX512_BLOCK, avx512_block, avx512_line);
}

static inline __attribute__((always_inline)) void avx512_set_line(char *d, const void *p)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(p));
}

static __attribute__((noinline)) void avx512_set_lines(char *d, int c, size_t n)
{
	__m512i v = _mm512_set1_epi8((char)c);

	flushset_lines(d, c, n, &v, avx512_set_line);
}

FLUSHSET_ENTRY(memset_flushcache_avx512, avx512_set_lines)
