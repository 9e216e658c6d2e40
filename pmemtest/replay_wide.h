/* SPDX-License-Identifier: MIT */
/*
 * The "wide" store: what the kernel cannot do (no vector registers in
 * memmap init). Aligned 64-byte pieces of a struct page go out as one
 * 64-byte NT store (AVX-512) or two 32-byte ones (AVX2); the unaligned
 * edges as 16-byte NT stores and, at an 8-byte edge, movnti. Struct pages
 * are packed back to back, so the partial lines of one are completed by the
 * next and the write-combining buffers still leave as whole lines. Nothing
 * is ever written through the cache, unlike PMDK's temporal-store edges.
 */
#ifndef PMEMTEST_REPLAY_WIDE_H
#define PMEMTEST_REPLAY_WIDE_H

#include <immintrin.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void
wide_store(char *d, const char *s, const unsigned int sp, const int has512)
{
	unsigned int n = sp;

	(void)has512;

	if ((uintptr_t)d & 8) {
		long long v;

		__builtin_memcpy(&v, s, 8);
		_mm_stream_si64((long long *)d, v);
		d += 8; s += 8; n -= 8;
	}
	while (n >= 16 && ((uintptr_t)d & 63)) {
		if (!((uintptr_t)d & 31) && n >= 32) {
			_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
			d += 32; s += 32; n -= 32;
		} else {
			_mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
			d += 16; s += 16; n -= 16;
		}
	}
	for (; n >= 64; d += 64, s += 64, n -= 64) {
#ifdef __AVX512F__
		if (has512) {
			_mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
			continue;
		}
#endif
		_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
		_mm256_stream_si256((__m256i *)(d + 32), _mm256_loadu_si256((const __m256i *)(s + 32)));
	}
	if (n >= 32) {
		_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
		d += 32; s += 32; n -= 32;
	}
	if (n >= 16) {
		_mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
		d += 16; s += 16; n -= 16;
	}
	if (n) {
		long long v;

		__builtin_memcpy(&v, s, 8);
		_mm_stream_si64((long long *)d, v);
	}
}

#endif /* PMEMTEST_REPLAY_WIDE_H */
