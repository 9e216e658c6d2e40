/* SPDX-License-Identifier: MIT */
/* Private to libkflush: the registry, the bound slots and the CPU state. */
#ifndef KFLUSH_INTERNAL_H
#define KFLUSH_INTERNAL_H

#include <stdint.h>

/* The library defines the exported, out-of-line kflush_drain(). */
#define KFLUSH_DRAIN_OUT_OF_LINE
#include "kflush.h"

/* On exported definitions; everything else is hidden by -fvisibility=hidden. */
#define KFLUSH_API __attribute__((visibility("default")))

/* A variant the benchmark may call but dispatch never binds. */
#define KFLUSH_IMPL_NO_BIND	(1U << 0)

struct kflush_impl {
	const char *name;
	uint64_t requires;	/* KFLUSH_CPU_* bits, all needed */
	unsigned int flags;	/* KFLUSH_IMPL_* */
	kflush_fn fn;
};

/*
 * Each family file defines its operation's variants, best first: dispatch
 * binds the variant a per-CPU rule names, else the first usable one with
 * neither KFLUSH_IMPL_NO_BIND nor KFLUSH_IMPL_RULE_ONLY. The last entry
 * is the baseline: it requires no feature bit (movnti, clflush and SSE2 are
 * architectural on x86-64), so masking can never leave an op unbound.
 */
struct kflush_impl_list {
	const struct kflush_impl *impls;
	unsigned int nr;
};

#define KFLUSH_IMPLS(op_name, ...)						\
	static const struct kflush_impl op_name##_impls[] = { __VA_ARGS__ };	\
	const struct kflush_impl_list op_name##_list = {			\
		op_name##_impls,						\
		sizeof(op_name##_impls) / sizeof(op_name##_impls[0]),		\
	}

#define KFLUSH_IMPL(nm, req, fl, func) \
	{ .name = (nm), .requires = (req), .flags = (fl), .fn = (kflush_fn)(func) }

extern const struct kflush_impl_list kflush_memcpy_flushcache_list;
extern const struct kflush_impl_list kflush_memset_flushcache_list;
extern const struct kflush_impl_list kflush_flush_list;
extern const struct kflush_impl_list kflush_memcpy_list;
extern const struct kflush_impl_list kflush_copy_safe_list;
extern const struct kflush_impl_list kflush_clear_page_list;
extern const struct kflush_impl_list kflush_clear_pages_list;
extern const struct kflush_impl_list kflush_clear_pages_flushcache_list;
extern const struct kflush_impl_list kflush_copy_page_list;
extern const struct kflush_impl_list kflush_memmove_flushcache_list;

/*
 * The bound variant of each operation, what the ifunc resolvers return
 * and what writeback_range() and copy_safe's wrapper jump through.
 * Statically set to the baseline variant, so a jump through a slot before
 * the first resolver has bound everything is still correct.
 */
extern kflush_fn kflush_slot[KFLUSH_NR_OPS];

#define KFLUSH_BOUND(op, type) ((type)kflush_slot[op])

/*
 * Code an ifunc resolver reaches. Resolvers run while the dynamic linker
 * relocates, before any constructor: libc's environ is still NULL, our own
 * PLT may not be filled yet, and the sanitizers' runtimes (and their shadow
 * memory) are not set up. So: no instrumentation, and no call out of the
 * library, not even to strcmp.
 */
#define KFLUSH_EARLY __attribute__((no_sanitize_address, no_sanitize_undefined))

/* Binds every operation (once) and returns @op's bound variant. */
kflush_fn kflush_resolve(enum kflush_op op);

/*
 * An exported entry point bound by GNU ifunc, the way glibc binds memcpy:
 * callers' PLT slots hold the bound variant itself, so a call is the PLT
 * jump and the variant, with no wrapper and no second indirect jump
 * (tools/callbench measures both). Put this before the declaration
 *   KFLUSH_API void kflush_x(...) __attribute__((ifunc("kflush_x_resolve")));
 */
#define KFLUSH_RESOLVER(op, type, name)					\
	static KFLUSH_EARLY type name##_resolve(void)			\
	{									\
		return (type)kflush_resolve(op);				\
	}

/*
 * The baseline variant of each operation (the last of its list): what the
 * slots hold before kflush_init() runs. Each family file defines its own.
 */
void memcpy_flushcache_kernel(void *dst, const void *src, size_t n);
void memset_flushcache_kernel(void *dst, int c, size_t n);
void flush_clflush(const void *addr, size_t len);
void *memcpy_orig(void *dst, const void *src, size_t n);
size_t copy_safe_movsq(void *dst, const void *src, size_t n);
void clear_page_mov(void *page);
void clear_pages_mov(void *addr, size_t npages);
void clear_pages_flushcache_movnti(void *addr, size_t npages);
void copy_page_mov(void *to, const void *from);
void memmove_flushcache_kernel(void *dst, const void *src, size_t n);

/* Features after KFLUSH_HWCAPS masking, and the CPUID cache-line size. */
extern uint64_t kflush_cpu_mask;
extern uint64_t kflush_cpu_raw;
extern unsigned int kflush_clflush_size;

/*
 * The "tuned" and "tuned_prefetchw" kflush_memcpy variants: rep movsb
 * from movsb_min bytes, the AVX copy below; with avoid_near also below
 * whenever (dst - src) mod 64 is 1..31, where some CPUs' rep movsb
 * crawls. Set by a per-CPU rule.
 */
struct kflush_memcpy_tuning {
	size_t movsb_min;
	int avoid_near;
};
extern struct kflush_memcpy_tuning kflush_memcpy_tuning;

/* Marks a variant that only a per-CPU rule binds (cpu_rules.c). */
#define KFLUSH_IMPL_RULE_ONLY	(1U << 1)

/* The CPU as detected: CPUID(0) vendor and CPUID(1).EAX. */
extern char kflush_cpu_vendor[13];
extern uint32_t kflush_cpu_eax1;
extern int kflush_cpu_rules_off;

void kflush_cpu_detect(void);

/*
 * The CPUID words the library decodes, 0 where the leaf (or, for xcr0,
 * XGETBV) is not available: leaf 1, leaf 7 subleaves 0 and 1, 0x80000008.
 */
struct kflush_cpuid {
	uint32_t l1_ebx, l1_ecx, l1_edx;
	uint32_t l7_ebx, l7_ecx, l7_edx;
	uint32_t l7_1_eax;
	uint32_t e1_ecx, e8_ebx;
	uint64_t xcr0;
};
uint64_t kflush_cpuid_features(const struct kflush_cpuid *c);
void kflush_cpu_report(void);
uint64_t kflush_cpu_vendor_features(const char *vendor, uint32_t eax1, uint64_t cpuid_features);
unsigned int kflush_cpu_family(uint32_t eax1);
unsigned int kflush_cpu_model(uint32_t eax1);
int kflush_same(const char *a, const char *b);
const char *kflush_cpu_rule(const char *vendor, uint32_t eax1, enum kflush_op op,
			    unsigned int nth, struct kflush_memcpy_tuning *tuning);

#endif /* KFLUSH_INTERNAL_H */
