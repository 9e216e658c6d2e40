// SPDX-License-Identifier: MIT
/*
 * The 64-byte roof: vmovntdq zmm. Built with a target attribute, so nothing
 * else in pmemtest sees AVX-512; called only when CPUID says the CPU has it.
 */
#include <immintrin.h>

#include "roof_isa.h"

/*
 * A block loads all 32 zmm registers (32 lines) before its first store, as
 * lib/'s avx512 flush-copy does: on a cold source that is worth ~15 % over
 * 4 lines per pass (PMDK batches too). The barrier keeps the stores in order.
 */
#define LD(i) __m512i z##i = _mm512_loadu_si512((const void *)(s + 64 * (i)));
#define ST(i) _mm512_stream_si512((void *)(d + 64 * (i)), z##i); \
	__asm__ __volatile__("" : : : "memory");
#define X8(M, a, b, c, e, f, g, h, k) M(a) M(b) M(c) M(e) M(f) M(g) M(h) M(k)

__attribute__((target("avx512f")))
void roof_avx512_copy(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (len == 64) {	/* see movnti_copy() in roof.c */
		_mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
		return;
	}
	for (; len >= 32 * 64; d += 32 * 64, s += 32 * 64, len -= 32 * 64) {
		X8(LD, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(LD, 8, 9, 10, 11, 12, 13, 14, 15)
		X8(LD, 16, 17, 18, 19, 20, 21, 22, 23)
		X8(LD, 24, 25, 26, 27, 28, 29, 30, 31)
		X8(ST, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(ST, 8, 9, 10, 11, 12, 13, 14, 15)
		X8(ST, 16, 17, 18, 19, 20, 21, 22, 23)
		X8(ST, 24, 25, 26, 27, 28, 29, 30, 31)
	}
	for (; len >= 64; d += 64, s += 64, len -= 64)
		_mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
}

__attribute__((target("avx512f")))
void roof_avx512_fill(void *dst, size_t len, const void *pattern)
{
	__m512i v = _mm512_loadu_si512(pattern);
	char *d = dst;

	if (len == 64) {	/* a lone line first (sse2_fill() in roof.c) */
		_mm512_stream_si512((void *)d, v);
		return;
	}
	for (size_t off = 0; off + 64 <= len; off += 64)
		_mm512_stream_si512((void *)(d + off), v);
}

/*
 * Two streams (roof.c, ROOF_TWO_STREAMS_MIN): 16 lines of each half of the
 * copy loaded, then stored, the first half's first; the lines left over
 * one of each in turn, and the second half's last when their number is odd.
 */
__attribute__((target("avx512f")))
void roof_avx512_x2_copy(void *dst, const void *src, size_t len)
{
	size_t lines = len / 64, half = lines / 2, h = half * 64, i = 0;
	char *d = dst;
	const char *s = src;

	for (; i + 16 <= half; i += 16) {
		__m512i v[32];

		_Pragma("GCC unroll 16")
		for (int k = 0; k < 16; k++) {
			v[k] = _mm512_loadu_si512((const void *)(s + 64 * (i + k)));
			v[16 + k] = _mm512_loadu_si512((const void *)(s + h + 64 * (i + k)));
		}
		_Pragma("GCC unroll 16")
		for (int k = 0; k < 16; k++) {
			_mm512_stream_si512((void *)(d + 64 * (i + k)), v[k]);
			__asm__ __volatile__("" : : : "memory");
		}
		_Pragma("GCC unroll 16")
		for (int k = 0; k < 16; k++) {
			_mm512_stream_si512((void *)(d + h + 64 * (i + k)), v[16 + k]);
			__asm__ __volatile__("" : : : "memory");
		}
	}
	for (; i < half; i++) {
		_mm512_stream_si512((void *)(d + 64 * i), _mm512_loadu_si512((const void *)(s + 64 * i)));
		_mm512_stream_si512((void *)(d + h + 64 * i),
				    _mm512_loadu_si512((const void *)(s + h + 64 * i)));
	}
	if (lines & 1)
		_mm512_stream_si512((void *)(d + 64 * (lines - 1)),
				    _mm512_loadu_si512((const void *)(s + 64 * (lines - 1))));
}
