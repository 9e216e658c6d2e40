// SPDX-License-Identifier: MIT
/* AVX-512 flush-clear: one 64-byte vmovntdq per line. */
#include <immintrin.h>

#include "x86_64/pages.h"

static inline __attribute__((always_inline)) void avx512_line(char *d)
{
	_mm512_stream_si512((void *)d, _mm512_setzero_si512());
}

void clear_pages_flushcache_avx512(void *addr, size_t npages)
{
	clear_lines(addr, npages, avx512_line);
}
