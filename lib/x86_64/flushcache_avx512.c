// SPDX-License-Identifier: MIT
/* AVX-512 flush-copy/memset: one 64-byte vmovntdq per aligned line. */
#include <immintrin.h>

#include "x86_64/flushcache.h"

static inline __attribute__((always_inline)) void avx512_line(char *d, const char *s)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(s));
	REC(KFLUSH_REC_NT, d, LINE);
}

void memcpy_flushcache_avx512(void *dst, const void *src, size_t n)
{
	flushcache_lines(dst, src, n, avx512_line);
}

static inline __attribute__((always_inline)) void avx512_set_line(char *d, const void *p)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(p));
	REC(KFLUSH_REC_NT, d, LINE);
}

void memset_flushcache_avx512(void *dst, int c, size_t n)
{
	__m512i v = _mm512_set1_epi8((char)c);

	flushset_lines(dst, c, n, &v, avx512_set_line);
}
