// SPDX-License-Identifier: MIT
/*
 * CPU feature detection (CPUID + XGETBV) and the KFLUSH_HWCAPS mask. The
 * features the kernel derives from vendor and model are in cpu_vendor.c.
 * Detection runs from an ifunc resolver (registry.c): everything it
 * reaches is KFLUSH_EARLY and calls nothing outside the library.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

uint64_t kflush_cpu_mask;
char kflush_cpu_vendor[13];
uint32_t kflush_cpu_eax1;
uint64_t kflush_cpu_raw;
unsigned int kflush_clflush_size = 64;

static const char *const feature_names[KFLUSH_CPU_NR_FEATURES] = {
	"sse2", "clflush", "clflushopt", "clwb", "erms", "fsrm", "fzrm",
	"fsrs", "rep_good", "avx2", "avx512f", "movdiri", "movdir64b",
	"clzero", "prefetchw", "avx512bw",
};

static KFLUSH_EARLY uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static KFLUSH_EARLY uint64_t detect(void)
{
	unsigned int eax, ebx, ecx, edx, max, max_ext, eax1;
	struct kflush_cpuid c;
	char vendor[13];
	uint64_t f;

	if (!__get_cpuid(0, &max, &ebx, &ecx, &edx))
		return 0;
	/* Byte by byte: memcpy is a call out of the library at -O0 or under ASan. */
	for (int i = 0; i < 4; i++) {
		vendor[i] = (char)(ebx >> (8 * i));
		vendor[4 + i] = (char)(edx >> (8 * i));
		vendor[8 + i] = (char)(ecx >> (8 * i));
	}
	vendor[12] = '\0';

	/* Field by field, for the same reason (no memset either). */
	c.l7_ebx = c.l7_ecx = c.l7_edx = c.l7_1_eax = c.e1_ecx = c.e8_ebx = 0;
	c.xcr0 = 0;
	__cpuid(1, eax, ebx, ecx, edx);
	eax1 = eax;
	c.l1_ebx = ebx;
	c.l1_ecx = ecx;
	c.l1_edx = edx;
	if ((edx & (1U << 19)) && ((ebx >> 8) & 0xff))
		kflush_clflush_size = ((ebx >> 8) & 0xff) * 8;
	/* XGETBV exists only when the OS has set CR4.OSXSAVE. */
	if ((ecx & bit_OSXSAVE) && (ecx & bit_AVX))
		c.xcr0 = xgetbv0();
	if (max >= 7) {
		__cpuid_count(7, 0, eax, ebx, ecx, edx);
		c.l7_ebx = ebx;
		c.l7_ecx = ecx;
		c.l7_edx = edx;
		if (eax >= 1) {
			__cpuid_count(7, 1, eax, ebx, ecx, edx);
			c.l7_1_eax = eax;
		}
	}
	__cpuid(0x80000000, max_ext, ebx, ecx, edx);
	if (max_ext >= 0x80000001) {
		__cpuid(0x80000001, eax, ebx, ecx, edx);
		c.e1_ecx = ecx;
	}
	if (max_ext >= 0x80000008) {
		__cpuid(0x80000008, eax, ebx, ecx, edx);
		c.e8_ebx = ebx;
	}
	f = kflush_cpuid_features(&c);

	for (int i = 0; i < 13; i++)
		kflush_cpu_vendor[i] = vendor[i];
	kflush_cpu_eax1 = eax1;
	return f | kflush_cpu_vendor_features(vendor, eax1, f);
}

/* Whether [s, s+len) is exactly the NUL-terminated @name. */
static KFLUSH_EARLY int name_is(const char *s, size_t len, const char *name)
{
	size_t i = 0;

	while (i < len && name[i] && s[i] == name[i])
		i++;
	return i == len && !name[i];
}

static KFLUSH_EARLY uint64_t feature_by_name(const char *name, size_t len)
{
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (name_is(name, len, feature_names[i]))
			return 1ULL << i;
	return 0;
}

/*
 * KFLUSH_HWCAPS="-avx512f,-clwb": each "-name" masks a feature off. Any
 * other entry is ignored, and reported once by kflush_cpu_report(), so a
 * typo never silently changes what gets bound. With @report 0 (in a
 * resolver) nothing is printed.
 */
static KFLUSH_EARLY uint64_t hwcaps_mask(const char *env, int report)
{
	uint64_t off = 0;
	const char *p = env;

	while (p && *p) {
		size_t len = 0;
		uint64_t bit = 0;

		while (p[len] && p[len] != ',')
			len++;
		if (len > 1 && p[0] == '-')
			bit = feature_by_name(p + 1, len - 1);
		if (bit)
			off |= bit;
		else if (len && report)
			fprintf(stderr, "libkflush: KFLUSH_HWCAPS: ignoring unknown entry '%.*s'\n",
				(int)len, p);
		p = p[len] ? p + len + 1 : NULL;
	}
	return off;
}

/* __environ: glibc's <unistd.h>; __libc_stack_end: the dynamic linker's, weak for other libcs. */
extern void *__libc_stack_end __attribute__((weak));

/*
 * getenv() without libc. A resolver runs before libc has set environ, so
 * then the environment is read where the kernel put it: after argc and
 * argv's NULL on the initial stack, to which the dynamic linker's
 * __libc_stack_end points while it relocates. When the library is
 * dlopen()ed later, environ is set and is what getenv() would read.
 */
static KFLUSH_EARLY const char *early_getenv(const char *name)
{
	char **env = __environ;

	if (!env && &__libc_stack_end && __libc_stack_end) {
		char **argv = (char **)__libc_stack_end + 1;

		while (*argv)
			argv++;
		env = argv + 1;
	}
	for (; env && *env; env++) {
		const char *e = *env;
		size_t i = 0;

		while (name[i] && e[i] == name[i])
			i++;
		if (!name[i] && e[i] == '=')
			return e + i + 1;
	}
	return NULL;
}

static const char *hwcaps_env, *rules_env;

/* KFLUSH_CPU_RULES=0: bind by the precedence alone, as on a CPU without rules. */
int kflush_cpu_rules_off;

KFLUSH_EARLY void kflush_cpu_detect(void)
{
	hwcaps_env = early_getenv("KFLUSH_HWCAPS");
	rules_env = early_getenv("KFLUSH_CPU_RULES");
	kflush_cpu_rules_off = rules_env && rules_env[0] == '0' && !rules_env[1];
	kflush_cpu_raw = detect();
	kflush_cpu_mask = kflush_cpu_raw & ~hwcaps_mask(hwcaps_env, 0);
}

/* From the constructor: the entries it ignored, now that stdio works. */
void kflush_cpu_report(void)
{
	(void)hwcaps_mask(hwcaps_env, 1);
	if (rules_env && !((rules_env[0] == '0' || rules_env[0] == '1') && !rules_env[1]))
		fprintf(stderr, "libkflush: KFLUSH_CPU_RULES: ignoring '%s' (0 or 1); the "
			"per-CPU rules apply\n", rules_env);
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
