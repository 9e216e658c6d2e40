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

FLUSHCACHE_VARIANT(memcpy_flushcache_avx2, AVX2_BLOCK, avx2_block, avx2_line, vec_one_line,
		   vec_copy_small_pieces)

FLUSHCACHE_SHORT_CACHED_VARIANT(memcpy_flushcache_avx2_short_cached, AVX2_BLOCK, avx2_block,
				avx2_line, vec_one_line, vec_copy_small_pieces)

FLUSHMOVE_VARIANT(memmove_flushcache_avx2, AVX2_BLOCK, avx2_block, avx2_line)
FLUSHMOVE_SHORT_CACHED_VARIANT(memmove_flushcache_avx2_short_cached, AVX2_BLOCK, avx2_block,
			       avx2_line)

static inline __attribute__((always_inline)) void avx2_set_line(char *d, const void *p)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);

	_mm256_stream_si256((__m256i *)d, v);
	_mm256_stream_si256((__m256i *)(d + 32), v);
}

FLUSHSET_VEC_VARIANTS(avx2, __m256i, _mm256_set1_epi8, avx2_set_line, vec_set_words,
		      memset_temporal)
