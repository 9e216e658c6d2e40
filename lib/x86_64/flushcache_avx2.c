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

static inline __attribute__((always_inline)) void avx2_set_drive(char *d, int c, size_t n,
								 size_t cached_below)
{
	__m256i v = _mm256_set1_epi8((char)c);

	flushset_lines(d, c, n, nt_edges_from(cached_below), &v, avx2_set_line);
}

static __attribute__((noinline)) void avx2_set_lines(char *d, int c, size_t n)
{
	avx2_set_drive(d, c, n, 0);
}

FLUSHSET_ENTRY(memset_flushcache_avx2, avx2_set_lines, vec_set_words)

static __attribute__((noinline)) void avx2_set_lines_short_cached(char *d, int c, size_t n)
{
	avx2_set_drive(d, c, n, SHORT_CACHED_SET_BELOW);
}

/* Below FLUSHCACHE_BULK_MIN any fill the entry leaves has a sub-word edge. */
FLUSHSET_ENTRY_AT(memset_flushcache_avx2_short_cached, SHORT_CACHED_SET_BELOW,
		  avx2_set_lines_short_cached, vec_set_words, memset_temporal)
