// SPDX-License-Identifier: MIT
/* AVX-512 flush-move: one 64-byte vmovntdq per aligned line, either direction. */
#include <immintrin.h>

#include "x86_64/memmove_flushcache.h"

static inline __attribute__((always_inline)) void avx512_line(char *d, const char *s)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(s));
}

/* All 32 zmm registers loaded before the first store: safe either way. */
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

void memmove_flushcache_avx512(void *dst, const void *src, size_t n)
{
	flushmove_lines(dst, src, n, AVX512_BLOCK, avx512_block, avx512_line);
}
