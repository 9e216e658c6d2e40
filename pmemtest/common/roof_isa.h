/* SPDX-License-Identifier: MIT */
/* The roof strategies built for one ISA each (roof_avx2.c, roof_avx512.c). */
#ifndef PMEMTEST_ROOF_ISA_H
#define PMEMTEST_ROOF_ISA_H

#include <stddef.h>

void roof_avx2_copy(void *dst, const void *src, size_t len);
void roof_avx2_fill(void *dst, size_t len, const void *pattern);
void roof_avx512_copy(void *dst, const void *src, size_t len);
void roof_avx512_fill(void *dst, size_t len, const void *pattern);
/* Two streams: the two halves' lines in turn (roof.c, ROOF_TWO_STREAMS_MIN). */
void roof_avx2_x2_copy(void *dst, const void *src, size_t len);
void roof_avx512_x2_copy(void *dst, const void *src, size_t len);

/*
 * Cached stores in 512-byte steps, each step's lines written back before
 * the next step is stored (roof_avx2.c), once per write-back instruction.
 */
#define ROOF_WB_DECLARE(insn)							\
	void roof_avx2_cached_##insn##_copy(void *dst, const void *src, size_t len); \
	void roof_avx2_cached_##insn##_fill(void *dst, size_t len, const void *pattern);
ROOF_WB_DECLARE(clwb)
ROOF_WB_DECLARE(clflushopt)
ROOF_WB_DECLARE(clflush)
#undef ROOF_WB_DECLARE

/*
 * A byte stored to the stack before a write-back, as lib/'s temporal
 * path does (store_gap(), lib/x86_64/flush.h): on Intel family 6 model
 * 0xcf a clwb or clflushopt right after the stores to its line ran 1.6-5x
 * slower.
 */
static inline __attribute__((always_inline)) void roof_store_gap(void)
{
	char gap;

	__asm__ __volatile__("movb $0, %0" : "=m"(gap));
}

/*
 * The cached roofs' write-backs: [d, d + n) (whole lines, n > 0) written
 * back a line at a time with @insn (clwb, clflushopt, clflush), after
 * roof_store_gap().
 */
#define ROOF_WRITE_BACK(insn, d, n)						\
	do {									\
		roof_store_gap();						\
		for (size_t l_ = 0; l_ < (n); l_ += 64)				\
			__asm__ __volatile__(#insn " %0"			\
					     : "+m"(*(char (*)[64])((d) + l_))); \
	} while (0)

/*
 * The two-stream copies' driver: @pass copies @batch lines of each half of
 * [src, src+len), the first half's (at @d, @s) before the second's (@h
 * bytes on); the lines left over, one of each half in turn, and the
 * second half's last when their number is odd, with @line. Inlined into
 * each strategy, built for its ISA.
 */
static inline __attribute__((always_inline)) void
roof_two_streams(char *d, const char *s, size_t len, size_t batch,
		 void (*pass)(char *d, const char *s, size_t h),
		 void (*line)(char *d, const char *s))
{
	size_t lines = len / 64, half = lines / 2, h = half * 64, i = 0;

	for (; i + batch <= half; i += batch)
		pass(d + 64 * i, s + 64 * i, h);
	for (; i < half; i++) {
		line(d + 64 * i, s + 64 * i);
		line(d + h + 64 * i, s + h + 64 * i);
	}
	if (lines & 1)
		line(d + 64 * (lines - 1), s + 64 * (lines - 1));
}

#endif /* PMEMTEST_ROOF_ISA_H */
