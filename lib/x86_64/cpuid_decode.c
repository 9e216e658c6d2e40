// SPDX-License-Identifier: MIT
/*
 * CPUID words to feature bits. cpu.c reads the leaves; this only decodes
 * them, and is pure, so that tests/test_cpu.c can compile it in and hold
 * every bit position to the vendors' manuals with synthetic leaves: on a
 * host that has both of two neighbouring features (clflushopt and clwb,
 * say), reading the wrong bit is invisible to a comparison with
 * /proc/cpuinfo.
 */
#include <stddef.h>

#include "internal.h"

#define XCR0_SSE	(1ULL << 1)
#define XCR0_AVX	(1ULL << 2)
#define XCR0_AVX512	(7ULL << 5)	/* opmask, ZMM0-15 upper, ZMM16-31 */

/*
 * One row per feature: the CPUID word and bit (Intel SDM vol. 2A, CPUID;
 * AMD APM vol. 3, appendix E), and the XCR0 state the OS must have enabled
 * for it, where it uses vector registers: present is not usable.
 */
static const struct cpuid_bit {
	size_t word;		/* offsetof(struct kflush_cpuid, ...) */
	unsigned int bit;
	uint64_t xcr0;
	uint64_t feature;
} cpuid_bits[] = {
	{ offsetof(struct kflush_cpuid, l1_edx), 26, 0, KFLUSH_CPU_SSE2 },
	{ offsetof(struct kflush_cpuid, l1_edx), 19, 0, KFLUSH_CPU_CLFLUSH },
	{ offsetof(struct kflush_cpuid, l7_ebx), 9, 0, KFLUSH_CPU_ERMS },
	{ offsetof(struct kflush_cpuid, l7_ebx), 5, XCR0_SSE | XCR0_AVX, KFLUSH_CPU_AVX2 },
	{ offsetof(struct kflush_cpuid, l7_ebx), 16, XCR0_SSE | XCR0_AVX | XCR0_AVX512,
	  KFLUSH_CPU_AVX512F },
	{ offsetof(struct kflush_cpuid, l7_ebx), 30, XCR0_SSE | XCR0_AVX | XCR0_AVX512,
	  KFLUSH_CPU_AVX512BW },
	{ offsetof(struct kflush_cpuid, l7_ebx), 23, 0, KFLUSH_CPU_CLFLUSHOPT },
	{ offsetof(struct kflush_cpuid, l7_ebx), 24, 0, KFLUSH_CPU_CLWB },
	{ offsetof(struct kflush_cpuid, l7_ecx), 27, 0, KFLUSH_CPU_MOVDIRI },
	{ offsetof(struct kflush_cpuid, l7_ecx), 28, 0, KFLUSH_CPU_MOVDIR64B },
	{ offsetof(struct kflush_cpuid, l7_edx), 4, 0, KFLUSH_CPU_FSRM },
	{ offsetof(struct kflush_cpuid, l7_1_eax), 10, 0, KFLUSH_CPU_FZRM },
	{ offsetof(struct kflush_cpuid, l7_1_eax), 11, 0, KFLUSH_CPU_FSRS },
	{ offsetof(struct kflush_cpuid, e1_ecx), 8, 0, KFLUSH_CPU_PREFETCHW },
	{ offsetof(struct kflush_cpuid, e8_ebx), 0, 0, KFLUSH_CPU_CLZERO },
};

KFLUSH_EARLY uint64_t kflush_cpuid_features(const struct kflush_cpuid *c)
{
	uint64_t f = 0;

	for (size_t i = 0; i < sizeof(cpuid_bits) / sizeof(cpuid_bits[0]); i++) {
		const struct cpuid_bit *b = &cpuid_bits[i];
		/* A uint32_t member, read as one (no memcpy: resolvers call this). */
		uint32_t word = *(const uint32_t *)(const void *)((const char *)c + b->word);

		if ((word >> b->bit & 1) && (c->xcr0 & b->xcr0) == b->xcr0)
			f |= b->feature;
	}
	return f;
}
