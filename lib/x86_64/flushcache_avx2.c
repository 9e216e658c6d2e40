// SPDX-License-Identifier: MIT
/*
 * AVX2 flush-copy, flush-move and flush-memset: two 32-byte vmovntdq per
 * aligned line. A block loads all its lines before its first store, so the
 * same block serves a move in either direction.
 */
#include <immintrin.h>

#include "x86_64/flushcache_avx2.h"
#include "x86_64/memmove_flushcache.h"

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
