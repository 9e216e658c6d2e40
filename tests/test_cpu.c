// SPDX-License-Identifier: MIT
/*
 * CPU features as the kernel derives them (lib/x86_64/cpu.c,
 * cpuid_decode.c and cpu_vendor.c). The CPUID decoder and the
 * vendor/family/model rule are compiled into this program: the decoder is
 * held to the manuals' bit positions on synthetic leaves, the rule is fed
 * synthetic CPUID values from tables taken from the kernel's
 * arch/x86/kernel/cpu/ sources. Then, on this host, the library's
 * kflush_cpu_features_raw() must agree with what the running kernel says
 * in /proc/cpuinfo, and the derived bits with the rule applied to the
 * host's own CPUID.
 */
#include <criterion/criterion.h>
#include <cpuid.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

#define DERIVED (KFLUSH_CPU_REP_GOOD | KFLUSH_CPU_FSRS)

struct cpu_case {
	const char *vendor;
	uint32_t eax1;		/* CPUID(1).EAX */
	int fsrm;		/* CPUID(7,0).EDX[4] */
	int rep_good, fsrs;	/* what the kernel sets */
	const char *what;
};

/*
 * intel.c, early_init_intel() (6.15+): REP_GOOD when
 * c->x86_vfm >= INTEL_PENTIUM_M_DOTHAN (IFM(6, 0x0D)) and
 * IA32_MISC_ENABLE.FAST_STRING is set (assumed: user space cannot read
 * it). The model includes the extended model (arch/x86/lib/cpu.c,
 * x86_model()). No FSRS rule.
 */
static const struct cpu_case intel[] = {
	{ "GenuineIntel", 0x00000543, 0, 0, 0, "family 5 (Pentium)" },
	{ "GenuineIntel", 0x00000617, 0, 0, 0, "family 6 model 0x01 (Pentium Pro)" },
	{ "GenuineIntel", 0x00000695, 0, 0, 0, "family 6 model 0x09 (Pentium M Banias)" },
	{ "GenuineIntel", 0x000006c0, 0, 0, 0, "family 6 model 0x0c, just below Dothan" },
	{ "GenuineIntel", 0x000006d8, 0, 1, 0, "family 6 model 0x0d (Pentium M Dothan)" },
	{ "GenuineIntel", 0x000006f6, 0, 1, 0, "family 6 model 0x0f (Merom)" },
	{ "GenuineIntel", 0x000106ca, 0, 1, 0, "family 6 model 0x1c (Atom Pineview, base model 0xc)" },
	{ "GenuineIntel", 0x000806f8, 1, 1, 0, "family 6 model 0x8f (Sapphire Rapids, FSRM)" },
	{ "GenuineIntel", 0x00000f41, 0, 1, 0, "family 15 model 4 (Pentium 4 Nocona)" },
	{ "GenuineIntel", 0x00000f07, 0, 1, 0, "family 15 model 0" },
	{ "GenuineIntel", 0x00300f01, 1, 1, 0, "family 0x12" },
	{ "GenuineIntel", 0x00400f01, 1, 1, 0, "family 0x13" },
};

/*
 * amd.c, init_amd(): REP_GOOD for c->x86 >= 0x10, and "AMD FSRM also
 * implies FSRS" (cpu_has(c, X86_FEATURE_FSRM), any family); init_amd_k8()
 * for family 0xf: "On C+ stepping K8 rep microcode works well", level =
 * cpuid_eax(1), (level >= 0x0f48 && level < 0x0f50) || level >= 0x0f58.
 */
static const struct cpu_case amd[] = {
	{ "AuthenticAMD", 0x00000662, 0, 0, 0, "family 6 (K7)" },
	{ "AuthenticAMD", 0x00000f40, 0, 0, 0, "K8 0x0f40 (rev B)" },
	{ "AuthenticAMD", 0x00000f47, 0, 0, 0, "K8 0x0f47, below rev C" },
	{ "AuthenticAMD", 0x00000f48, 0, 1, 0, "K8 0x0f48 (rev C)" },
	{ "AuthenticAMD", 0x00000f4f, 0, 1, 0, "K8 0x0f4f" },
	{ "AuthenticAMD", 0x00000f50, 0, 0, 0, "K8 0x0f50 (model 5 rev B)" },
	{ "AuthenticAMD", 0x00000f57, 0, 0, 0, "K8 0x0f57" },
	{ "AuthenticAMD", 0x00000f58, 0, 1, 0, "K8 0x0f58 (model 5 rev C)" },
	{ "AuthenticAMD", 0x00000fc0, 0, 1, 0, "K8 0x0fc0" },
	{ "AuthenticAMD", 0x00020f71, 0, 1, 0, "K8 rev E (extended model 2)" },
	{ "AuthenticAMD", 0x00040f13, 0, 1, 0, "K8 rev F (extended model 4)" },
	{ "AuthenticAMD", 0x00100f22, 0, 1, 0, "family 0x10" },
	{ "AuthenticAMD", 0x00600f12, 0, 1, 0, "family 0x15" },
	{ "AuthenticAMD", 0x00800f12, 0, 1, 0, "family 0x17 (Zen 1, no FSRM)" },
	{ "AuthenticAMD", 0x00a00f11, 1, 1, 1, "family 0x19 (Zen 3, FSRM)" },
	{ "AuthenticAMD", 0x00b00f21, 1, 1, 1, "family 0x1a (Zen 5, FSRM)" },
	{ "AuthenticAMD", 0x00000f48, 1, 1, 1, "K8 with FSRM: no family test" },
	{ "AuthenticAMD", 0x00000662, 1, 0, 1, "K7 with FSRM: FSRS without REP_GOOD" },
};

/*
 * hygon.c, init_hygon(): set_cpu_cap(c, X86_FEATURE_REP_GOOD) always; no
 * FSRS rule. centaur.c: init_centaur() calls init_c3() for family 6 and
 * >= 7, which sets REP_GOOD for (c->x86 == 6 && c->x86_model >= 0xf) and
 * for c->x86 >= 7. zhaoxin.c: init_zhaoxin() calls init_zhaoxin_cap() for
 * c->x86 >= 6, which sets REP_GOOD for c->x86 >= 6. common.c matches the
 * vendor strings in each cpu_dev's c_ident; any other vendor gets nothing.
 */
static const struct cpu_case others[] = {
	{ "HygonGenuine", 0x00900f01, 1, 1, 0, "Hygon family 0x18, FSRM" },
	{ "HygonGenuine", 0x00000f48, 0, 1, 0, "Hygon, any family" },
	{ "CentaurHauls", 0x00000540, 0, 0, 0, "Centaur family 5 (WinChip)" },
	{ "CentaurHauls", 0x000006a9, 0, 0, 0, "Centaur family 6 model 0x0a (C7)" },
	{ "CentaurHauls", 0x000006d0, 0, 0, 0, "Centaur family 6 model 0x0d" },
	{ "CentaurHauls", 0x000006fd, 0, 1, 0, "Centaur family 6 model 0x0f (Nano)" },
	{ "CentaurHauls", 0x00000711, 1, 1, 0, "Centaur family 7, FSRM" },
	{ "  Shanghai  ", 0x00000540, 0, 0, 0, "Zhaoxin family 5" },
	{ "  Shanghai  ", 0x000006f0, 0, 1, 0, "Zhaoxin family 6" },
	{ "  Shanghai  ", 0x000107b5, 1, 1, 0, "Zhaoxin family 7 model 0x1b, FSRM" },
	{ "GenuineTMx86", 0x00000f24, 0, 0, 0, "Transmeta" },
	{ "KVMKVMKVM\0\0\0", 0x000806f8, 1, 0, 0, "unknown vendor" },
};

static void check_table(const struct cpu_case *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t in = t[i].fsrm ? KFLUSH_CPU_FSRM : 0;
		uint64_t got = kflush_cpu_vendor_features(t[i].vendor, t[i].eax1, in);

		cr_expect_eq(got & ~DERIVED, 0, "%s (%#010" PRIx32 "): derived %#" PRIx64
			     ", more than REP_GOOD and FSRS", t[i].what, t[i].eax1, got);
		cr_expect_eq(!!(got & KFLUSH_CPU_REP_GOOD), t[i].rep_good,
			     "%s %s (%#010" PRIx32 "): REP_GOOD %d, the kernel sets %d", t[i].vendor,
			     t[i].what, t[i].eax1, !!(got & KFLUSH_CPU_REP_GOOD), t[i].rep_good);
		cr_expect_eq(!!(got & KFLUSH_CPU_FSRS), t[i].fsrs,
			     "%s %s (%#010" PRIx32 "): FSRS %d, the kernel sets %d", t[i].vendor,
			     t[i].what, t[i].eax1, !!(got & KFLUSH_CPU_FSRS), t[i].fsrs);
	}
}

#define CHECK_TABLE(t) check_table((t), sizeof(t) / sizeof((t)[0]))

Test(cpu, intel_rules) { CHECK_TABLE(intel); }
Test(cpu, amd_rules) { CHECK_TABLE(amd); }
Test(cpu, other_vendor_rules) { CHECK_TABLE(others); }

/* This CPU's CPUID(0) vendor string, read here, never from the library. */
static void host_vendor(char vendor[13])
{
	unsigned int max = 0, b = 0, c = 0, d = 0;

	vendor[0] = '\0';
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
}

/*
 * The library applies the rule to this CPU: REP_GOOD and FSRS in the raw
 * set are what the rule gives for the host's vendor and signature (FSRS
 * also comes from its own CPUID bit, CPUID(7,1).EAX[11]).
 */
Test(cpu, host_derived)
{
	unsigned int max = 0, a, b = 0, c = 0, d = 0, eax1;
	uint64_t raw = kflush_cpu_features_raw(), want, fsrs_bit = 0;
	char vendor[13];

	cr_assert(__get_cpuid(0, &max, &b, &c, &d));
	host_vendor(vendor);
	__cpuid(1, eax1, b, c, d);
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		if (a >= 1) {
			__cpuid_count(7, 1, a, b, c, d);
			if (a & (1U << 11))
				fsrs_bit = KFLUSH_CPU_FSRS;
		}
	}
	want = kflush_cpu_vendor_features(vendor, eax1, raw & KFLUSH_CPU_FSRM) | fsrs_bit;
	cr_log_info("host: %s, CPUID(1).EAX %#010x", vendor, eax1);
	cr_expect_eq(raw & DERIVED, want & DERIVED,
		     "%s %#010x: raw REP_GOOD/FSRS %#" PRIx64 ", the rule gives %#" PRIx64,
		     vendor, eax1, raw & DERIVED, want & DERIVED);
}

/* The first "flags" line of /proc/cpuinfo, with a space at each end. */
static char *cpuinfo_flags(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "flags", 5) != 0 || !colon)
			continue;
		line[strcspn(line, "\n")] = '\0';
		cr_assert(asprintf(&out, " %s ", colon + 1) > 0);
		break;
	}
	free(line);
	fclose(f);
	return out;
}

static int listed(const char *flags, const char *name)
{
	char word[64];

	snprintf(word, sizeof(word), " %s ", name);
	return strstr(flags, word) != NULL;
}

static int cmdline_has(const char *word)
{
	char buf[4096];
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, word) != NULL;
}

/*
 * Where the kernel and libkflush both read a CPUID bit (and, for the
 * vector ones, XCR0), they agree both ways. The synthetic ones the kernel
 * sets from vendor, family and model are checked where the kernel lists
 * them: it may know more (an older kernel lacks newer rules; fast strings
 * turned off in IA32_MISC_ENABLE, which user space cannot read, remove
 * rep_good and erms). PREFETCHW both ways but on AMD, where the kernel
 * may list it without the CPUID bit.
 */
Test(cpu, agrees_with_proc_cpuinfo)
{
	static const struct { const char *name; uint64_t bit; } both[] = {
		{ "sse2", KFLUSH_CPU_SSE2 }, { "clflush", KFLUSH_CPU_CLFLUSH },
		{ "clflushopt", KFLUSH_CPU_CLFLUSHOPT }, { "clwb", KFLUSH_CPU_CLWB },
		{ "erms", KFLUSH_CPU_ERMS }, { "fsrm", KFLUSH_CPU_FSRM },
		{ "avx2", KFLUSH_CPU_AVX2 }, { "avx512f", KFLUSH_CPU_AVX512F },
		{ "avx512bw", KFLUSH_CPU_AVX512BW },
		{ "movdiri", KFLUSH_CPU_MOVDIRI }, { "movdir64b", KFLUSH_CPU_MOVDIR64B },
		{ "clzero", KFLUSH_CPU_CLZERO },
	}, listed_only[] = {
		{ "rep_good", KFLUSH_CPU_REP_GOOD }, { "fsrs", KFLUSH_CPU_FSRS },
		{ "fzrm", KFLUSH_CPU_FZRM },
	}, amd_derives_more[] = {
		/*
		 * Linux names PREFETCHW (CPUID 0x80000001 ECX bit 8) after
		 * AMD's 3DNow!, and on AMD CPUs also sets it for LM or 3DNow
		 * whatever the bit says (amd.c, init_amd(): "3DNow or LM implies
		 * PREFETCHW"), as on QEMU's TCG "max" CPU; libkflush reads the
		 * bit. Elsewhere both ways.
		 */
		{ "3dnowprefetch", KFLUSH_CPU_PREFETCHW },
	};
	char vendor[13];
	int on_amd;
	const char *preload = getenv("LD_PRELOAD");
	uint64_t raw = kflush_cpu_features_raw();
	char *flags = cpuinfo_flags();
	int fast_strings_off;

	if (preload && strstr(preload, "vgpreload"))
		cr_skip_test("under valgrind, whose CPUID is not the CPU's");
	if (cmdline_has("clearcpuid") || cmdline_has("noxsave"))
		cr_skip_test("the kernel command line hides CPU features (clearcpuid/noxsave)");
	if (!flags)
		cr_skip_test("no flags line in /proc/cpuinfo");

	fast_strings_off = (raw & KFLUSH_CPU_ERMS) && !listed(flags, "erms") &&
			   !listed(flags, "rep_good");
	if (fast_strings_off)
		cr_log_warn("the kernel lists neither erms nor rep_good although CPUID has ERMS: "
			    "fast strings are off in IA32_MISC_ENABLE; erms is not compared");
	for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
		int k = listed(flags, both[i].name), l = !!(raw & both[i].bit);

		if (fast_strings_off && both[i].bit == KFLUSH_CPU_ERMS)
			continue;
		cr_expect_eq(l, k, "%s: /proc/cpuinfo %s it, kflush_cpu_features_raw() %s",
			     both[i].name, k ? "lists" : "does not list", l ? "has it" : "does not");
	}
	host_vendor(vendor);
	on_amd = strcmp(vendor, "AuthenticAMD") == 0;
	for (size_t i = 0; i < sizeof(amd_derives_more) / sizeof(amd_derives_more[0]); i++) {
		int k = listed(flags, amd_derives_more[i].name), l = !!(raw & amd_derives_more[i].bit);

		if (on_amd && k && !l)
			cr_log_info("%s: listed by this kernel, not in CPUID (derived on AMD)",
				    amd_derives_more[i].name);
		else
			cr_expect_eq(l, k, "%s: /proc/cpuinfo %s it, kflush_cpu_features_raw() %s",
				     amd_derives_more[i].name, k ? "lists" : "does not list",
				     l ? "has it" : "does not");
	}
	for (size_t i = 0; i < sizeof(listed_only) / sizeof(listed_only[0]); i++) {
		int k = listed(flags, listed_only[i].name), l = !!(raw & listed_only[i].bit);

		if (k)
			cr_expect(l, "%s: /proc/cpuinfo lists it, kflush_cpu_features_raw() does not",
				  listed_only[i].name);
		else if (l)
			cr_log_info("%s: set by libkflush, not listed by this kernel",
				    listed_only[i].name);
	}
	free(flags);
}

/*
 * The CPUID decoder (lib/x86_64/cpuid_decode.c, compiled in) on synthetic
 * leaves: each feature's bit as the Intel SDM (vol. 2A, CPUID) and AMD's
 * APM (vol. 3, appendix E) give it, set alone and cleared alone from
 * all-ones words. The comparison with /proc/cpuinfo above cannot tell two
 * bits apart on a host that has both.
 */
enum word { L1_EDX, L7_EBX, L7_ECX, L7_EDX, L7_1_EAX, E1_ECX, E8_EBX };

static const struct cpuid_bit {
	const char *name;
	enum word word;
	unsigned int bit;
	uint64_t feature;
} cpuid_bits[] = {
	{ "sse2", L1_EDX, 26, KFLUSH_CPU_SSE2 },
	{ "clflush", L1_EDX, 19, KFLUSH_CPU_CLFLUSH },
	{ "erms", L7_EBX, 9, KFLUSH_CPU_ERMS },
	{ "avx2", L7_EBX, 5, KFLUSH_CPU_AVX2 },
	{ "avx512f", L7_EBX, 16, KFLUSH_CPU_AVX512F },
	{ "avx512bw", L7_EBX, 30, KFLUSH_CPU_AVX512BW },
	{ "clflushopt", L7_EBX, 23, KFLUSH_CPU_CLFLUSHOPT },
	{ "clwb", L7_EBX, 24, KFLUSH_CPU_CLWB },
	{ "movdiri", L7_ECX, 27, KFLUSH_CPU_MOVDIRI },
	{ "movdir64b", L7_ECX, 28, KFLUSH_CPU_MOVDIR64B },
	{ "fsrm", L7_EDX, 4, KFLUSH_CPU_FSRM },
	{ "fzrm", L7_1_EAX, 10, KFLUSH_CPU_FZRM },
	{ "fsrs", L7_1_EAX, 11, KFLUSH_CPU_FSRS },
	{ "clzero", E8_EBX, 0, KFLUSH_CPU_CLZERO },
	{ "prefetchw", E1_ECX, 8, KFLUSH_CPU_PREFETCHW },
};

#define NR_CPUID_BITS (sizeof(cpuid_bits) / sizeof(cpuid_bits[0]))
/* XCR0: x87 | SSE | AVX | opmask | ZMM_Hi256 | Hi16_ZMM (SDM vol. 1, 13.3). */
#define XCR0_ALL 0xe7ULL

static uint32_t *word_of(struct kflush_cpuid *c, enum word w)
{
	switch (w) {
	case L1_EDX: return &c->l1_edx;
	case L7_EBX: return &c->l7_ebx;
	case L7_ECX: return &c->l7_ecx;
	case L7_EDX: return &c->l7_edx;
	case L7_1_EAX: return &c->l7_1_eax;
	case E1_ECX: return &c->e1_ecx;
	case E8_EBX: return &c->e8_ebx;
	}
	return NULL;
}

static uint64_t all_features(void)
{
	uint64_t all = 0;

	for (size_t i = 0; i < NR_CPUID_BITS; i++)
		all |= cpuid_bits[i].feature;
	return all;
}

Test(cpu, cpuid_bit_positions)
{
	const uint64_t all = all_features();

	for (size_t i = 0; i < NR_CPUID_BITS; i++) {
		const struct cpuid_bit *b = &cpuid_bits[i];
		struct kflush_cpuid one = { .xcr0 = XCR0_ALL }, but = {
			0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
			0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, XCR0_ALL,
		};
		uint64_t got;

		*word_of(&one, b->word) |= 1U << b->bit;
		*word_of(&but, b->word) &= ~(1U << b->bit);
		got = kflush_cpuid_features(&one);
		cr_expect_eq(got, b->feature, "%s alone (bit %u): decoded %#" PRIx64 ", want %#" PRIx64,
			     b->name, b->bit, got, b->feature);
		got = kflush_cpuid_features(&but);
		cr_expect_eq(got, all & ~b->feature,
			     "all but %s (bit %u): decoded %#" PRIx64 ", want %#" PRIx64, b->name,
			     b->bit, got, all & ~b->feature);
	}
}

/* AVX2, AVX-512F and AVX-512BW count only with their register state enabled in XCR0. */
Test(cpu, cpuid_vector_state)
{
	static const struct { uint64_t xcr0; uint64_t want; const char *what; } cases[] = {
		{ 0, 0, "XCR0 unreadable" },
		{ 0x03, 0, "x87|SSE" },
		{ 0x05, 0, "x87|AVX without SSE" },
		{ 0x07, KFLUSH_CPU_AVX2, "x87|SSE|AVX" },
		{ 0x67, KFLUSH_CPU_AVX2, "no opmask" },
		{ 0xa7, KFLUSH_CPU_AVX2, "no ZMM_Hi256" },
		{ 0xc7, KFLUSH_CPU_AVX2, "no Hi16_ZMM" },
		{ 0xe7, KFLUSH_CPU_AVX2 | KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX512BW, "all" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kflush_cpuid c = { .l7_ebx = (1U << 5) | (1U << 16) | (1U << 30),
					   .xcr0 = cases[i].xcr0 };
		uint64_t got = kflush_cpuid_features(&c);

		cr_expect_eq(got, cases[i].want, "XCR0 %#" PRIx64 " (%s): decoded %#" PRIx64
			     ", want %#" PRIx64, cases[i].xcr0, cases[i].what, got, cases[i].want);
	}
}

/*
 * KFLUSH_HWCAPS when the library is dlopen()ed after the program set it
 * with setenv(): it is read from environ then, not from the environment
 * the process started with (libkflush(7), ENVIRONMENT). The program that
 * does it is copy_safe_helper, the one here that dlopen()s the library;
 * its own environment must not hold the variable.
 */
Test(cpu, hwcaps_from_setenv_before_dlopen)
{
	static const char *const unset[] = { "KFLUSH_HWCAPS", NULL };
	char path[] = COPY_SAFE_HELPER, mode[] = "hwcaps-setenv", err[1024];
	char *argv[] = { path, mode, NULL };
	int status = tu_spawn(path, argv, unset, NULL, NULL, 0, err, sizeof(err));

	cr_assert(status != -1, "cannot run %s", path);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the mask set before dlopen() was not applied (status %#x: 60 features, "
		  "61 binding): %s", status, err);
}
