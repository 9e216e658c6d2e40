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

/* 32 lines: all 32 zmm registers loaded before the first store. */
#define AVX512_BLOCK 32

static inline __attribute__((always_inline)) void avx512_block(char *d, const char *s)
{
	__m512i v[AVX512_BLOCK];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++)
		v[i] = _mm512_loadu_si512(s + i * LINE);
	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++)
		_mm512_stream_si512((void *)(d + i * LINE), v[i]);
}

FLUSHCACHE_VARIANT(memcpy_flushcache_avx512, AVX512_BLOCK, avx512_block, avx512_line, vec_copy_small)

void memmove_flushcache_avx512(void *dst, const void *src, size_t n)
{
	flushmove_lines(dst, src, n, AVX512_BLOCK, avx512_block, avx512_line);
}

static inline __attribute__((always_inline)) void avx512_set_line(char *d, const void *p)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(p));
}

void memset_flushcache_avx512(void *dst, int c, size_t n)
{
	__m512i v = _mm512_set1_epi8((char)c);

	flushset_lines(dst, c, n, &v, avx512_set_line);
}
