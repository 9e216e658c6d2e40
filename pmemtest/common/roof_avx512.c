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

/* One line, one zmm. */
__attribute__((target("avx512f")))
static inline __attribute__((always_inline)) void avx512_line(char *d, const char *s)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
}

/* 16 lines of each half in the 32 zmm registers, then stored, in order. */
__attribute__((target("avx512f")))
static inline __attribute__((always_inline)) void avx512_x2_pass(char *d, const char *s, size_t h)
{
	__m512i v[32];

	_Pragma("GCC unroll 16")
	for (int k = 0; k < 16; k++) {
		v[k] = _mm512_loadu_si512((const void *)(s + 64 * k));
		v[16 + k] = _mm512_loadu_si512((const void *)(s + h + 64 * k));
	}
	_Pragma("GCC unroll 32")
	for (int k = 0; k < 32; k++) {
		_mm512_stream_si512((void *)(d + (k < 16 ? 0 : h) + 64 * (k % 16)), v[k]);
		__asm__ __volatile__("" : : : "memory");
	}
}

/* Two streams (roof.c, ROOF_TWO_STREAMS_MIN, roof_two_streams()). */
__attribute__((target("avx512f")))
void roof_avx512_x2_copy(void *dst, const void *src, size_t len)
{
	roof_two_streams(dst, src, len, 16, avx512_x2_pass, avx512_line);
}
