// SPDX-License-Identifier: MIT
/*
 * The 32-byte roof: vmovntdq ymm. Built with a target attribute, so nothing
 * else in pmemtest sees AVX2; called only when CPUID says the CPU has it.
 */
#include <immintrin.h>

#include "roof_isa.h"

/*
 * A block loads all 16 ymm registers (8 lines) before its first store, as
 * lib/'s avx2 flush-copy does: the loads of a cold source overlap. The
 * barrier keeps the compiler from interleaving loads and stores again.
 */
#define LD(i) __m256i y##i = _mm256_loadu_si256((const void *)(s + 32 * (i)));
#define ST(i) _mm256_stream_si256((void *)(d + 32 * (i)), y##i); \
	__asm__ __volatile__("" : : : "memory");
#define X8(M, a, b, c, e, f, g, h, k) M(a) M(b) M(c) M(e) M(f) M(g) M(h) M(k)

__attribute__((target("avx2")))
void roof_avx2_copy(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (len == 64) {	/* see movnti_copy() in roof.c */
		LD(0) LD(1)
		ST(0) ST(1)
		return;
	}
	for (; len >= 8 * 64; d += 8 * 64, s += 8 * 64, len -= 8 * 64) {
		X8(LD, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(LD, 8, 9, 10, 11, 12, 13, 14, 15)
		X8(ST, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(ST, 8, 9, 10, 11, 12, 13, 14, 15)
	}
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m256i a = _mm256_loadu_si256((const void *)s);
		__m256i b = _mm256_loadu_si256((const void *)(s + 32));

		_mm256_stream_si256((void *)d, a);
		_mm256_stream_si256((void *)(d + 32), b);
	}
}

__attribute__((target("avx2")))
void roof_avx2_fill(void *dst, size_t len, const void *pattern)
{
	__m256i a = _mm256_loadu_si256(pattern);
	__m256i b = _mm256_loadu_si256((const void *)((const char *)pattern + 32));
	char *d = dst;

	if (len == 64) {	/* a lone line first (sse2_fill() in roof.c) */
		_mm256_stream_si256((void *)d, a);
		_mm256_stream_si256((void *)(d + 32), b);
		return;
	}
	for (size_t off = 0; off + 64 <= len; off += 64) {
		_mm256_stream_si256((void *)(d + off), a);
		_mm256_stream_si256((void *)(d + off + 32), b);
	}
}

/* One line, two 32-byte halves. */
__attribute__((target("avx2")))
static inline void avx2_line(char *d, const char *s)
{
	__m256i a = _mm256_loadu_si256((const void *)s);
	__m256i b = _mm256_loadu_si256((const void *)(s + 32));

	_mm256_stream_si256((void *)d, a);
	_mm256_stream_si256((void *)(d + 32), b);
}

/*
 * Two streams (roof.c, ROOF_TWO_STREAMS_MIN): 4 lines of each half of the
 * copy loaded into the 16 ymm registers, then stored, the first half's
 * first; the lines left over one of each in turn, and the second half's
 * last when their number is odd.
 */
__attribute__((target("avx2")))
void roof_avx2_x2_copy(void *dst, const void *src, size_t len)
{
	size_t lines = len / 64, half = lines / 2, h = half * 64, i = 0;
	char *d = dst;
	const char *s = src;

	for (; i + 4 <= half; i += 4) {
		__m256i v[16];

		_Pragma("GCC unroll 8")
		for (int k = 0; k < 8; k++) {
			v[k] = _mm256_loadu_si256((const void *)(s + 64 * i + 32 * k));
			v[8 + k] = _mm256_loadu_si256((const void *)(s + h + 64 * i + 32 * k));
		}
		_Pragma("GCC unroll 8")
		for (int k = 0; k < 8; k++) {
			_mm256_stream_si256((void *)(d + 64 * i + 32 * k), v[k]);
			__asm__ __volatile__("" : : : "memory");
		}
		_Pragma("GCC unroll 8")
		for (int k = 0; k < 8; k++) {
			_mm256_stream_si256((void *)(d + h + 64 * i + 32 * k), v[8 + k]);
			__asm__ __volatile__("" : : : "memory");
		}
	}
	for (; i < half; i++) {
		avx2_line(d + 64 * i, s + 64 * i);
		avx2_line(d + h + 64 * i, s + h + 64 * i);
	}
	if (lines & 1)
		avx2_line(d + 64 * (lines - 1), s + 64 * (lines - 1));
}
