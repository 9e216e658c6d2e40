// SPDX-License-Identifier: MIT
/* The machine's roofs: plain non-temporal and rep-string stores of the contenders' bytes. */
#include <string.h>

#include <immintrin.h>

#include "kflush.h"

#include "roof.h"
#include "stats.h"

void roof_nt_fill(void *dst, size_t len, const void *pattern)
{
	uint64_t v[8];
	char *d = dst;

	memcpy(v, pattern, sizeof(v));
	for (size_t off = 0; off + 64 <= len; off += 64)
		for (int i = 0; i < 8; i++)
			__asm__ __volatile__("movntiq %1, %0"
					     : "=m"(*(uint64_t *)(d + off + 8 * i)) : "r"(v[i]));
}

__attribute__((target("avx512f")))
static void nt_fill_avx512(char *d, size_t len, const void *pattern)
{
	__m512i v = _mm512_loadu_si512(pattern);

	for (size_t off = 0; off + 64 <= len; off += 64)
		_mm512_stream_si512((void *)(d + off), v);
}

__attribute__((target("avx2")))
static void nt_fill_avx2(char *d, size_t len, const void *pattern)
{
	__m256i a = _mm256_loadu_si256(pattern);
	__m256i b = _mm256_loadu_si256((const void *)((const char *)pattern + 32));

	for (size_t off = 0; off + 64 <= len; off += 64) {
		_mm256_stream_si256((void *)(d + off), a);
		_mm256_stream_si256((void *)(d + off + 32), b);
	}
}

const char *roof_nt_fill_wide(void *dst, size_t len, const void *pattern)
{
	uint64_t f = kflush_cpu_features_raw();

	if (f & KFLUSH_CPU_AVX512F) {
		nt_fill_avx512(dst, len, pattern);
		return "avx512";
	}
	if (f & KFLUSH_CPU_AVX2) {
		nt_fill_avx2(dst, len, pattern);
		return "avx2";
	}
	roof_nt_fill(dst, len, pattern);
	return "movnti";
}

uint64_t roof_nt_fill_timed(void *dst, size_t len, const void *pattern)
{
	uint64_t t0 = stats_now_ns();

	roof_nt_fill(dst, len, pattern);
	__asm__ __volatile__("sfence" : : : "memory");
	return stats_now_ns() - t0;
}

/*
 * The copy roof is built for the widest store, with target attributes so
 * pmemtest needs no -m flags; the choice is made once from the raw CPUID
 * features (the machine's roof, not what KFLUSH_HWCAPS leaves us).
 */
/*
 * Load a batch of lines into registers, then stream them out: with 32 zmm
 * (16 ymm) registers that is 32 (8) lines of loads in flight before the
 * first store, which on a cold source is worth ~15 % over 4 lines per pass
 * (PMDK does the same). The barrier keeps the stores in order.
 */
#define NT_LD512(i) __m512i z##i = _mm512_loadu_si512((const void *)(s + 64 * (i)));
#define NT_ST512(i) _mm512_stream_si512((void *)(d + 64 * (i)), z##i); \
	__asm__ __volatile__("" : : : "memory");
#define NT_X8(M, a, b, c, e, f, g, h, k) M(a) M(b) M(c) M(e) M(f) M(g) M(h) M(k)

__attribute__((target("avx512f")))
static void nt_copy_avx512(char *d, const char *s, size_t len)
{
	for (; len >= 32 * 64; d += 32 * 64, s += 32 * 64, len -= 32 * 64) {
		NT_X8(NT_LD512, 0, 1, 2, 3, 4, 5, 6, 7)
		NT_X8(NT_LD512, 8, 9, 10, 11, 12, 13, 14, 15)
		NT_X8(NT_LD512, 16, 17, 18, 19, 20, 21, 22, 23)
		NT_X8(NT_LD512, 24, 25, 26, 27, 28, 29, 30, 31)
		NT_X8(NT_ST512, 0, 1, 2, 3, 4, 5, 6, 7)
		NT_X8(NT_ST512, 8, 9, 10, 11, 12, 13, 14, 15)
		NT_X8(NT_ST512, 16, 17, 18, 19, 20, 21, 22, 23)
		NT_X8(NT_ST512, 24, 25, 26, 27, 28, 29, 30, 31)
	}
	for (; len >= 64; d += 64, s += 64, len -= 64)
		_mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
}

#define NT_LD256(i) __m256i y##i = _mm256_loadu_si256((const void *)(s + 32 * (i)));
#define NT_ST256(i) _mm256_stream_si256((void *)(d + 32 * (i)), y##i); \
	__asm__ __volatile__("" : : : "memory");

__attribute__((target("avx2")))
static void nt_copy_avx2(char *d, const char *s, size_t len)
{
	for (; len >= 8 * 64; d += 8 * 64, s += 8 * 64, len -= 8 * 64) {
		NT_X8(NT_LD256, 0, 1, 2, 3, 4, 5, 6, 7)
		NT_X8(NT_LD256, 8, 9, 10, 11, 12, 13, 14, 15)
		NT_X8(NT_ST256, 0, 1, 2, 3, 4, 5, 6, 7)
		NT_X8(NT_ST256, 8, 9, 10, 11, 12, 13, 14, 15)
	}
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m256i a = _mm256_loadu_si256((const void *)s);
		__m256i b = _mm256_loadu_si256((const void *)(s + 32));

		_mm256_stream_si256((void *)d, a);
		_mm256_stream_si256((void *)(d + 32), b);
	}
}

static void nt_copy_movnti(char *d, const char *s, size_t len)
{
	for (size_t off = 0; off < len; off += 64) {
		uint64_t v[8];

		memcpy(v, s + off, sizeof(v));
		for (int i = 0; i < 8; i++)
			__asm__ __volatile__("movntiq %1, %0"
					     : "=m"(*(uint64_t *)(d + off + 8 * i)) : "r"(v[i]));
	}
}

static void (*nt_copy)(char *, const char *, size_t);
static const char *nt_copy_name;

static void nt_copy_pick(void)
{
	uint64_t f = kflush_cpu_features_raw();

	if (nt_copy)
		return;
	if (f & KFLUSH_CPU_AVX512F) {
		nt_copy_name = "avx512";
		nt_copy = nt_copy_avx512;
	} else if (f & KFLUSH_CPU_AVX2) {
		nt_copy_name = "avx2";
		nt_copy = nt_copy_avx2;
	} else {
		nt_copy_name = "movnti";
		nt_copy = nt_copy_movnti;
	}
}

const char *roof_nt_copy_name(void)
{
	nt_copy_pick();
	return nt_copy_name;
}

void roof_nt_copy(void *dst, const void *src, size_t len)
{
	nt_copy_pick();
	nt_copy(dst, src, len);
}

uint64_t roof_nt_copy_timed(void *dst, const void *src, size_t len)
{
	uint64_t t0;

	nt_copy_pick();
	t0 = stats_now_ns();
	nt_copy(dst, src, len);
	__asm__ __volatile__("sfence" : : : "memory");
	return stats_now_ns() - t0;
}

void roof_rep_stosb(void *dst, size_t len)
{
	void *d = dst;
	size_t n = len;

	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

uint64_t roof_rep_stosb_timed(void *dst, size_t len)
{
	uint64_t t0 = stats_now_ns();

	roof_rep_stosb(dst, len);
	return stats_now_ns() - t0;
}
