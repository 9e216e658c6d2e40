// SPDX-License-Identifier: MIT
/* AVX2 flush-clear: two 32-byte vmovntdq per line. */
#include <immintrin.h>

#include "x86_64/pages.h"

static inline __attribute__((always_inline)) void avx2_line(char *d)
{
	const __m256i z = _mm256_setzero_si256();

	_mm256_stream_si256((__m256i *)(void *)d, z);
	_mm256_stream_si256((__m256i *)(void *)(d + 32), z);
}

void clear_pages_flushcache_avx2(void *addr, size_t npages)
{
	clear_lines(addr, npages, avx2_line);
}
