/* SPDX-License-Identifier: MIT */
/*
 * The AVX2 line and block: two 32-byte vmovntdq per aligned line. The
 * avx2 variants store every line with them (flushcache_avx2.c), and
 * avx512_movdir64b its copies below 768 bytes (flushcache_avx512.c says
 * why). Built only into the AVX2 and AVX-512 objects.
 */
#ifndef KFLUSH_X86_FLUSHCACHE_AVX2_H
#define KFLUSH_X86_FLUSHCACHE_AVX2_H

#include <immintrin.h>

#include "x86_64/flushcache.h"

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

#endif
