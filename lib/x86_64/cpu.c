// SPDX-License-Identifier: MIT
/*
 * CPU feature detection (CPUID + XGETBV) and the KFLUSH_HWCAPS mask. The
 * features the kernel derives from vendor and model are in cpu_vendor.c.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t kflush_cpu_mask;
uint64_t kflush_cpu_raw;
unsigned int kflush_clflush_size = 64;

static const char *const feature_names[KFLUSH_CPU_NR_FEATURES] = {
	"sse2", "clflush", "clflushopt", "clwb", "erms", "fsrm", "fzrm",
	"fsrs", "rep_good", "avx2", "avx512f", "movdiri", "movdir64b",
	"clzero",
};

#define XCR0_SSE	(1ULL << 1)
#define XCR0_AVX	(1ULL << 2)
#define XCR0_AVX512	(7ULL << 5)	/* opmask, ZMM0-15 upper, ZMM16-31 */

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t detect(void)
{
	unsigned int eax, ebx, ecx, edx, max, max_ext, eax1;
	uint64_t f = 0, xcr0 = 0;
	char vendor[13];

	if (!__get_cpuid(0, &max, &ebx, &ecx, &edx))
		return 0;
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';

	__cpuid(1, eax, ebx, ecx, edx);
	eax1 = eax;
	if (edx & bit_SSE2)
		f |= KFLUSH_CPU_SSE2;
	if (edx & (1U << 19)) {
		f |= KFLUSH_CPU_CLFLUSH;
		if ((ebx >> 8) & 0xff)
			kflush_clflush_size = ((ebx >> 8) & 0xff) * 8;
	}
	/* AVX state must be enabled by the OS, not only present in the CPU. */
	if ((ecx & bit_OSXSAVE) && (ecx & bit_AVX))
		xcr0 = xgetbv0();

	if (max >= 7) {
		__cpuid_count(7, 0, eax, ebx, ecx, edx);
		if (ebx & (1U << 9))
			f |= KFLUSH_CPU_ERMS;
		if ((ebx & bit_AVX2) && (xcr0 & (XCR0_SSE | XCR0_AVX)) == (XCR0_SSE | XCR0_AVX))
			f |= KFLUSH_CPU_AVX2;
		if ((ebx & bit_AVX512F) &&
		    (xcr0 & (XCR0_SSE | XCR0_AVX | XCR0_AVX512)) == (XCR0_SSE | XCR0_AVX | XCR0_AVX512))
			f |= KFLUSH_CPU_AVX512F;
		if (ebx & bit_CLFLUSHOPT)
			f |= KFLUSH_CPU_CLFLUSHOPT;
		if (ebx & bit_CLWB)
			f |= KFLUSH_CPU_CLWB;
		if (ecx & (1U << 27))
			f |= KFLUSH_CPU_MOVDIRI;
		if (ecx & (1U << 28))
			f |= KFLUSH_CPU_MOVDIR64B;
		if (edx & (1U << 4))
			f |= KFLUSH_CPU_FSRM;
		if (eax >= 1) {
			__cpuid_count(7, 1, eax, ebx, ecx, edx);
			if (eax & (1U << 10))
				f |= KFLUSH_CPU_FZRM;
			if (eax & (1U << 11))
				f |= KFLUSH_CPU_FSRS;
		}
	}

	__cpuid(0x80000000, max_ext, ebx, ecx, edx);
	if (max_ext >= 0x80000008) {
		__cpuid(0x80000008, eax, ebx, ecx, edx);
		if (ebx & 1U)
			f |= KFLUSH_CPU_CLZERO;
	}
	return f | kflush_cpu_vendor_features(vendor, eax1, f);
}

static uint64_t feature_by_name(const char *name, size_t len)
{
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (strlen(feature_names[i]) == len && strncmp(feature_names[i], name, len) == 0)
			return 1ULL << i;
	return 0;
}

/*
 * KFLUSH_HWCAPS="-avx512f,-clwb": each "-name" masks a feature off. Any
 * other entry is reported once (we run once, from the constructor) and
 * ignored, so a typo never silently changes what gets bound.
 */
static uint64_t hwcaps_mask(const char *env)
{
	uint64_t off = 0;
	const char *p = env;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		uint64_t bit = 0;

		if (len > 1 && p[0] == '-')
			bit = feature_by_name(p + 1, len - 1);
		if (bit)
			off |= bit;
		else if (len)
			fprintf(stderr, "libkflush: KFLUSH_HWCAPS: ignoring unknown entry '%.*s'\n",
				(int)len, p);
		p = end ? end + 1 : NULL;
	}
	return off;
}

void kflush_cpu_detect(void)
{
	kflush_cpu_raw = detect();
	kflush_cpu_mask = kflush_cpu_raw & ~hwcaps_mask(getenv("KFLUSH_HWCAPS"));
}

/**
 * kflush_cpu_features() - CPU features libkflush dispatches on
 *
 * Return: KFLUSH_CPU_* bits detected at load, less those KFLUSH_HWCAPS
 * masked off.
 */
KFLUSH_API uint64_t kflush_cpu_features(void)
{
	return kflush_cpu_mask;
}

/**
 * kflush_cpu_features_raw() - CPU features before KFLUSH_HWCAPS masking
 *
 * Return: KFLUSH_CPU_* bits as detected by CPUID and XGETBV.
 */
KFLUSH_API uint64_t kflush_cpu_features_raw(void)
{
	return kflush_cpu_raw;
}

/**
 * kflush_cpu_feature_name() - lower-case name of one feature bit
 * @feature: a single KFLUSH_CPU_* bit
 *
 * Return: the name KFLUSH_HWCAPS accepts, or NULL if @feature is not
 * exactly one known bit.
 */
KFLUSH_API const char *kflush_cpu_feature_name(uint64_t feature)
{
	if (!feature || (feature & (feature - 1)))
		return NULL;
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (feature == 1ULL << i)
			return feature_names[i];
	return NULL;
}

/**
 * kflush_cache_line_size() - the write-back granule
 *
 * Return: the CLFLUSH line size from CPUID leaf 1, in bytes (64 on every
 * current x86-64 CPU).
 */
KFLUSH_API unsigned int kflush_cache_line_size(void)
{
	return kflush_clflush_size;
}
