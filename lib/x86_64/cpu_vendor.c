// SPDX-License-Identifier: MIT
/*
 * The features the kernel derives from vendor, family and model instead of
 * reading a CPUID bit. Kept apart from the CPUID reads, and pure, so that
 * tests/test_cpu.c can compile this file in and feed it synthetic CPUs.
 */
#include "internal.h"

/* strcmp() is a call out of the library, which a resolver may not make. */
KFLUSH_EARLY int kflush_same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* arch/x86/lib/cpu.c, x86_family() and x86_model(). */
KFLUSH_EARLY unsigned int kflush_cpu_family(uint32_t eax1)
{
	unsigned int family = (eax1 >> 8) & 0xf;

	if (family == 0xf)
		family += (eax1 >> 20) & 0xff;
	return family;
}

KFLUSH_EARLY unsigned int kflush_cpu_model(uint32_t eax1)
{
	unsigned int model = (eax1 >> 4) & 0xf;

	if (kflush_cpu_family(eax1) >= 6)
		model += ((eax1 >> 16) & 0xf) << 4;
	return model;
}

/*
 * X86_FEATURE_REP_GOOD, as each vendor's init in arch/x86/kernel/cpu/ sets
 * it in current kernels (Intel's rule moved to early_init_intel() when
 * families beyond 6 and 15 appeared).
 */
static KFLUSH_EARLY int rep_good(const char *vendor, uint32_t eax1)
{
	unsigned int family = kflush_cpu_family(eax1), model = kflush_cpu_model(eax1);

	/*
	 * intel.c, early_init_intel(): x86_vfm >= INTEL_PENTIUM_M_DOTHAN, that
	 * is family 6 from model 0x0d on and every later family, 15 included,
	 * provided IA32_MISC_ENABLE has fast strings enabled. User space
	 * cannot read that MSR: we assume the firmware left them on, as it
	 * does by default (the kernel then also keeps ERMS, which we read
	 * from CPUID regardless).
	 */
	if (kflush_same(vendor, "GenuineIntel"))
		return family > 6 || (family == 6 && model >= 0x0d);
	/*
	 * amd.c: init_amd() for family 0x10 and later; init_amd_k8() for K8
	 * revision C and later, judged on the whole CPUID(1).EAX.
	 */
	if (kflush_same(vendor, "AuthenticAMD"))
		return family >= 0x10 ||
		       (family == 0xf && ((eax1 >= 0x0f48 && eax1 < 0x0f50) || eax1 >= 0x0f58));
	/* hygon.c, init_hygon(): always. */
	if (kflush_same(vendor, "HygonGenuine"))
		return 1;
	/* centaur.c, init_c3() (called for family 6 and >= 7). */
	if (kflush_same(vendor, "CentaurHauls"))
		return (family == 6 && model >= 0x0f) || family >= 7;
	/* zhaoxin.c, init_zhaoxin_cap() (called for family >= 6). */
	if (kflush_same(vendor, "  Shanghai  "))
		return family >= 6;
	return 0;
}

/**
 * kflush_cpu_vendor_features() - features the kernel derives, not reads
 * @vendor: the CPUID(0) vendor string, NUL-terminated ("GenuineIntel")
 * @eax1: CPUID(1).EAX, the family/model/stepping signature
 * @cpuid_features: the KFLUSH_CPU_* bits read from CPUID
 *
 * Not exported. REP_GOOD by vendor, family and model; FSRS on AMD parts
 * with FSRM (amd.c, init_amd(): "AMD FSRM also implies FSRS"; Hygon's
 * init does not do this).
 *
 * Return: the KFLUSH_CPU_* bits to add to @cpuid_features.
 */
KFLUSH_EARLY uint64_t kflush_cpu_vendor_features(const char *vendor, uint32_t eax1,
						 uint64_t cpuid_features)
{
	uint64_t f = 0;

	if (rep_good(vendor, eax1))
		f |= KFLUSH_CPU_REP_GOOD;
	if (kflush_same(vendor, "AuthenticAMD") && (cpuid_features & KFLUSH_CPU_FSRM))
		f |= KFLUSH_CPU_FSRS;
	return f;
}
