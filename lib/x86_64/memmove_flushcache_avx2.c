// SPDX-License-Identifier: MIT
/* AVX2 flush-move: two 32-byte vmovntdq per aligned line, either direction. */
#include <immintrin.h>

#include "x86_64/memmove_flushcache.h"

static inline __attribute__((always_inline)) void avx2_line(char *d, const char *s)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)s);
	__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));

	_mm256_stream_si256((__m256i *)d, a);
	_mm256_stream_si256((__m256i *)(d + 32), b);
}

/* All 16 ymm registers loaded before the first store: safe either way. */
#define AVX2_BLOCK 8

static inline __attribute__((always_inline)) void avx2_block(char *d, const char *s)
{
	__m256i v[2 * AVX2_BLOCK];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < 2 * AVX2_BLOCK; i++)
		v[i] = _mm256_loadu_si256((const __m256i *)(s + i * 32));
	_Pragma("GCC unroll 64")
	for (int i = 0; i < 2 * AVX2_BLOCK; i++)
		_mm256_stream_si256((__m256i *)(d + i * 32), v[i]);
}

void memmove_flushcache_avx2(void *dst, const void *src, size_t n)
{
	flushmove_lines(dst, src, n, AVX2_BLOCK, avx2_block, avx2_line);
}
