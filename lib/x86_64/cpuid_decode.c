// SPDX-License-Identifier: MIT
/*
 * CPUID words to feature bits. cpu.c reads the leaves; this only decodes
 * them, and is pure, so that tests/test_cpu.c can compile it in and hold
 * every bit position to the vendors' manuals with synthetic leaves: on a
 * host that has both of two neighbouring features (clflushopt and clwb,
 * say), reading the wrong bit is invisible to a comparison with
 * /proc/cpuinfo.
 */
#include "internal.h"

#define XCR0_SSE	(1ULL << 1)
#define XCR0_AVX	(1ULL << 2)
#define XCR0_AVX512	(7ULL << 5)	/* opmask, ZMM0-15 upper, ZMM16-31 */

KFLUSH_EARLY uint64_t kflush_cpuid_features(const struct kflush_cpuid *c)
{
	const uint64_t avx = XCR0_SSE | XCR0_AVX, avx512 = avx | XCR0_AVX512;
	uint64_t f = 0;

	if (c->l1_edx & (1U << 26))
		f |= KFLUSH_CPU_SSE2;
	if (c->l1_edx & (1U << 19))
		f |= KFLUSH_CPU_CLFLUSH;
	if (c->l7_ebx & (1U << 9))
		f |= KFLUSH_CPU_ERMS;
	/* Vector state must be enabled by the OS (XCR0), not only present. */
	if ((c->l7_ebx & (1U << 5)) && (c->xcr0 & avx) == avx)
		f |= KFLUSH_CPU_AVX2;
	if ((c->l7_ebx & (1U << 16)) && (c->xcr0 & avx512) == avx512)
		f |= KFLUSH_CPU_AVX512F;
	if (c->l7_ebx & (1U << 23))
		f |= KFLUSH_CPU_CLFLUSHOPT;
	if (c->l7_ebx & (1U << 24))
		f |= KFLUSH_CPU_CLWB;
	if (c->l7_ecx & (1U << 27))
		f |= KFLUSH_CPU_MOVDIRI;
	if (c->l7_ecx & (1U << 28))
		f |= KFLUSH_CPU_MOVDIR64B;
	if (c->l7_edx & (1U << 4))
		f |= KFLUSH_CPU_FSRM;
	if (c->l7_1_eax & (1U << 10))
		f |= KFLUSH_CPU_FZRM;
	if (c->l7_1_eax & (1U << 11))
		f |= KFLUSH_CPU_FSRS;
	if (c->e8_ebx & 1U)
		f |= KFLUSH_CPU_CLZERO;
	return f;
}
