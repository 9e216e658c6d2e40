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
static inline __attribute__((always_inline)) void avx2_line(char *d, const char *s)
{
	__m256i a = _mm256_loadu_si256((const void *)s);
	__m256i b = _mm256_loadu_si256((const void *)(s + 32));

	_mm256_stream_si256((void *)d, a);
	_mm256_stream_si256((void *)(d + 32), b);
}

/* 4 lines of each half in the 16 ymm registers, then stored, in order. */
__attribute__((target("avx2")))
static inline __attribute__((always_inline)) void avx2_x2_pass(char *d, const char *s, size_t h)
{
	__m256i v[16];

	_Pragma("GCC unroll 8")
	for (int k = 0; k < 8; k++) {
		v[k] = _mm256_loadu_si256((const void *)(s + 32 * k));
		v[8 + k] = _mm256_loadu_si256((const void *)(s + h + 32 * k));
	}
	_Pragma("GCC unroll 16")
	for (int k = 0; k < 16; k++) {
		_mm256_stream_si256((void *)(d + (k < 8 ? 0 : h) + 32 * (k % 8)), v[k]);
		__asm__ __volatile__("" : : : "memory");
	}
}

/* Two streams (roof.c, ROOF_TWO_STREAMS_MIN, roof_two_streams()). */
__attribute__((target("avx2")))
void roof_avx2_x2_copy(void *dst, const void *src, size_t len)
{
	roof_two_streams(dst, src, len, 4, avx2_x2_pass, avx2_line);
}

/*
 * Cached stores written back in 512-byte steps: a step's 16 ymm loads,
 * its 16 stores, then its 8 lines written back, as lib/'s temporal path
 * goes above 128 bytes (TEMPORAL_STEP, lib/x86_64/temporal.c, a vector
 * copy of each step, then its write-backs). With only the roof that writes
 * each line back as soon as it is whole, kflush_memcpy_temporal ran
 * 1.04-1.15x the roof hot at 6-256 KiB random in three of five default
 * copy-bench runs (AMD EPYC family 0x19 model 0x11). The step's copy is
 * written here, not the C library's: with glibc 2.36's memcpy for each
 * step, the roof ran hot random copies of 4, 6, 16 and 256 KiB 4.0-9.3x
 * slower than with this one, and at 64 KiB as fast (the same machine, two
 * runs).
 */
#define WB_STEP 512

#define WB_STEPS(insn)								\
__attribute__((target("avx2")))							\
void roof_avx2_cached_##insn##_copy(void *dst, const void *src, size_t len) \
{										\
	char *d = dst;								\
	const char *s = src;							\
										\
	for (; len >= WB_STEP; d += WB_STEP, s += WB_STEP, len -= WB_STEP) {	\
		__m256i v[WB_STEP / 32];					\
										\
		_Pragma("GCC unroll 16")					\
		for (int k = 0; k < WB_STEP / 32; k++)				\
			v[k] = _mm256_loadu_si256((const void *)(s + 32 * k));	\
		_Pragma("GCC unroll 16")					\
		for (int k = 0; k < WB_STEP / 32; k++)				\
			_mm256_store_si256((void *)(d + 32 * k), v[k]);		\
		ROOF_WRITE_BACK(insn, d, WB_STEP);				\
	}									\
	if (!len)								\
		return;								\
	for (size_t off = 0; off < len; off += 64) {				\
		__m256i a = _mm256_loadu_si256((const void *)(s + off));	\
		__m256i b = _mm256_loadu_si256((const void *)(s + off + 32));	\
										\
		_mm256_store_si256((void *)(d + off), a);			\
		_mm256_store_si256((void *)(d + off + 32), b);			\
	}									\
	ROOF_WRITE_BACK(insn, d, len);						\
}										\
										\
__attribute__((target("avx2")))							\
void roof_avx2_cached_##insn##_fill(void *dst, size_t len, const void *pattern) \
{										\
	__m256i a = _mm256_loadu_si256(pattern);				\
	__m256i b = _mm256_loadu_si256((const void *)((const char *)pattern + 32)); \
	char *d = dst;								\
										\
	for (size_t off = 0, step; off < len; off += step) {			\
		step = len - off < WB_STEP ? len - off : WB_STEP;		\
		for (size_t l = 0; l < step; l += 64) {				\
			_mm256_store_si256((void *)(d + off + l), a);		\
			_mm256_store_si256((void *)(d + off + l + 32), b);	\
		}								\
		ROOF_WRITE_BACK(insn, d + off, step);				\
	}									\
}

WB_STEPS(clwb)
WB_STEPS(clflushopt)
WB_STEPS(clflush)
