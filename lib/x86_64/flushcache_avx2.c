// SPDX-License-Identifier: MIT
/*
 * AVX2 flush-copy, flush-move and flush-memset: two 32-byte vmovntdq per
 * aligned line. A block loads all its lines before its first store, so the
 * same block serves a move in either direction.
 */
#include <immintrin.h>

#include "x86_64/memmove_flushcache.h"

static inline __attribute__((always_inline)) void avx2_line(char *d, const char *s)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)s);
	__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));

	_mm256_stream_si256((__m256i *)d, a);
	_mm256_stream_si256((__m256i *)(d + 32), b);
}

/*
 * 8 lines: all 16 ymm registers loaded before the first store, the
 * stores then line by line (nt_in_order()).
 */
#define AVX2_BLOCK 8

static inline __attribute__((always_inline)) void avx2_block(char *d, const char *s)
{
	__m256i v[2 * AVX2_BLOCK];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < 2 * AVX2_BLOCK; i++)
		v[i] = _mm256_loadu_si256((const __m256i *)(s + i * 32));
	_Pragma("GCC unroll 64")
	for (int i = 0; i < 2 * AVX2_BLOCK; i++) {
		_mm256_stream_si256((__m256i *)(d + i * 32), v[i]);
		nt_in_order();
	}
}

/*
 * One line on its own (a 64-byte struct page): eight 8-byte loads in
 * asm, two per xmm (kflush_xmm_load()), then two 32-byte stores (the
 * avx512 variant stores the four xmm as they are: four movntdq were no
 * faster than these two on Intel family 6 model 0xcf, struct-page 64 B
 * 2.8-3.2 ns both, libkflush(7)). A record just built with 8-byte
 * stores forwards to them; a 32-byte load waits for those stores to
 * retire. AMD EPYC family 0x19 model 0x01, idle, CPU time, alternating
 * with the 32-byte loads: copy-bench struct-page 64 B (template lru
 * refreshed per page) 8.9 -> 3.4-3.6 ns per page in three runs (movnti
 * 3.8-4.0); init-bench generic unchanged in four (nd_pmem 83.5-112.7 vs
 * 83.9-88.5 ms, dax_pmem 94.2-105.6 vs 94.1-102.5). Cost: a 64-byte copy
 * of a source not just written, sweep, 1.01 -> 0.94 of the avx2 roof
 * cold and 0.96 -> 0.94 hot (4 runs). An earlier try on this CPU under
 * load (5-9) had put init-bench generic up to 126 ms; idle it did not.
 */
static inline __attribute__((always_inline)) void avx2_one_line(char *d, const char *s)
{
	const __m128i a = (__m128i)kflush_xmm_load(s, 0, LINE), b = (__m128i)kflush_xmm_load(s, 1, LINE),
		      c = (__m128i)kflush_xmm_load(s, 2, LINE), e = (__m128i)kflush_xmm_load(s, 3, LINE);

	_mm256_stream_si256((__m256i *)d, _mm256_set_m128i(b, a));
	_mm256_stream_si256((__m256i *)(d + 32), _mm256_set_m128i(e, c));
}

FLUSHCACHE_VARIANT(memcpy_flushcache_avx2, AVX2_BLOCK, avx2_block, avx2_line, avx2_one_line,
		   vec_copy_small)

void memmove_flushcache_avx2(void *dst, const void *src, size_t n)
{
	flushmove_lines(dst, src, n, AVX2_BLOCK, avx2_block, avx2_line);
}

static inline __attribute__((always_inline)) void avx2_set_line(char *d, const void *p)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);

	_mm256_stream_si256((__m256i *)d, v);
	_mm256_stream_si256((__m256i *)(d + 32), v);
}

static __attribute__((noinline)) void avx2_set_lines(char *d, int c, size_t n)
{
	__m256i v = _mm256_set1_epi8((char)c);

	flushset_lines(d, c, n, &v, avx2_set_line);
}

FLUSHSET_ENTRY(memset_flushcache_avx2, avx2_set_lines)
