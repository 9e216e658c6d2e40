/* SPDX-License-Identifier: MIT */
/*
 * libkflush: the Linux kernel's x86-64 flush-copy, string and page routines
 * for persistent-memory applications in user space.
 *
 * Only the compile-time-constant cases of memcpy_flushcache() and
 * memcpy_nontemporal(), and kflush_drain()'s one sfence, are inline;
 * everything else is out of line and dispatched once, at load, to the
 * best variant this CPU can run.
 */
#ifndef KFLUSH_H
#define KFLUSH_H

#if !defined(__x86_64__)
#error "libkflush is x86-64 only"
#endif

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header. configure.ac reads these three lines (keep
 * one space between name and number); kflush_version() gives the version
 * of the library actually loaded, which can be newer than the header a
 * program was built with.
 */
#define KFLUSH_VERSION_MAJOR 0
#define KFLUSH_VERSION_MINOR 2
#define KFLUSH_VERSION_PATCH 0

const char *kflush_version(unsigned int *major, unsigned int *minor, unsigned int *patch);

#define KFLUSH_PAGE_SIZE 4096

/* CPU features, as returned by kflush_cpu_features() (names: lower case). */
#define KFLUSH_CPU_SSE2		(1ULL << 0)
#define KFLUSH_CPU_CLFLUSH	(1ULL << 1)
#define KFLUSH_CPU_CLFLUSHOPT	(1ULL << 2)
#define KFLUSH_CPU_CLWB		(1ULL << 3)
#define KFLUSH_CPU_ERMS		(1ULL << 4)
#define KFLUSH_CPU_FSRM		(1ULL << 5)
#define KFLUSH_CPU_FZRM		(1ULL << 6)
#define KFLUSH_CPU_FSRS		(1ULL << 7)
#define KFLUSH_CPU_REP_GOOD	(1ULL << 8)
#define KFLUSH_CPU_AVX2		(1ULL << 9)
#define KFLUSH_CPU_AVX512F	(1ULL << 10)
#define KFLUSH_CPU_MOVDIRI	(1ULL << 11)
#define KFLUSH_CPU_MOVDIR64B	(1ULL << 12)
#define KFLUSH_CPU_CLZERO	(1ULL << 13)
#define KFLUSH_CPU_PREFETCHW	(1ULL << 14)
#define KFLUSH_CPU_AVX512BW	(1ULL << 15)
#define KFLUSH_CPU_NR_FEATURES	16

uint64_t kflush_cpu_features(void);
uint64_t kflush_cpu_features_raw(void);
const char *kflush_cpu_feature_name(uint64_t feature);
unsigned int kflush_cache_line_size(void);

/*
 * The calls a hot loop makes go through the GOT, not the PLT: in
 * position-independent code (every PIE) a call is one indirect call to
 * the bound variant instead of a call to a stub that jumps there, as with
 * -fno-plt. GCC's attribute; other compilers call through the PLT.
 */
#if defined(__has_attribute)
#if __has_attribute(__noplt__)
#define KFLUSH_NOPLT __attribute__((__noplt__))
#endif
#endif
#ifndef KFLUSH_NOPLT
#define KFLUSH_NOPLT
#endif

/* Flush-copy family: on return no destination line is dirty; nothing fences. */
KFLUSH_NOPLT void kflush_memcpy_flushcache(void *dst, const void *src, size_t n);
KFLUSH_NOPLT void kflush_memset_flushcache(void *dst, int c, size_t n);
KFLUSH_NOPLT void kflush_memmove_flushcache(void *dst, const void *src, size_t n);
KFLUSH_NOPLT void kflush_flush(const void *addr, size_t len);
/*
 * kflush_drain() is the inline below; the library also exports it out of
 * line, for dlsym() and for programs built against older headers.
 */
#ifdef KFLUSH_DRAIN_OUT_OF_LINE
void kflush_drain(void);
#endif
void kflush_persist(const void *addr, size_t len);
void kflush_memcpy_persist(void *dst, const void *src, size_t n);

/*
 * Temporal flush-copy: ordinary stores, then the lines written back; the
 * same contract as the flush-copy family, for destinations read again soon.
 */
KFLUSH_NOPLT void kflush_memcpy_temporal(void *dst, const void *src, size_t n);
KFLUSH_NOPLT void kflush_memmove_temporal(void *dst, const void *src, size_t n);
KFLUSH_NOPLT void kflush_memset_temporal(void *dst, int c, size_t n);

/* Flags of the *_flags calls: PMDK's PMEM_F_MEM_* meanings and values. */
#define KFLUSH_F_MEM_NODRAIN		(1U << 0)
#define KFLUSH_F_MEM_NONTEMPORAL	(1U << 1)
#define KFLUSH_F_MEM_TEMPORAL		(1U << 2)
#define KFLUSH_F_MEM_WC			(1U << 3)
#define KFLUSH_F_MEM_WB			(1U << 4)
#define KFLUSH_F_MEM_NOFLUSH		(1U << 5)
#define KFLUSH_F_MEM_VALID		0x3fU

void *kflush_memcpy_flags(void *dst, const void *src, size_t n, unsigned int flags);
void *kflush_memmove_flags(void *dst, const void *src, size_t n, unsigned int flags);
void *kflush_memset_flags(void *dst, int c, size_t n, unsigned int flags);

/* String, fault-safe copy and page routines. */
KFLUSH_NOPLT void *kflush_memcpy(void *dst, const void *src, size_t n);
size_t kflush_copy_safe(void *dst, const void *src, size_t n);
/*
 * siginfo_t is POSIX, not ISO C: <signal.h> has it only when the program
 * asks for POSIX.1b or later (-std=gnu*, C++, _POSIX_C_SOURCE >= 199309L,
 * _XOPEN_SOURCE >= 500, _DEFAULT_SOURCE, _GNU_SOURCE), and so has every
 * program that can install an SA_SIGINFO handler to call this from. glibc
 * marks the type with __siginfo_t_defined (its SA_SIGINFO comes with plain
 * POSIX.1 too, without the type); other C libraries define SA_SIGINFO and
 * siginfo_t together.
 */
#if defined(__siginfo_t_defined) || (!defined(__GLIBC__) && defined(SA_SIGINFO))
int kflush_fault_handler(int sig, siginfo_t *info, void *ucontext);
#endif
void kflush_clear_page(void *page);
void kflush_clear_pages(void *addr, size_t npages);
void kflush_clear_pages_flushcache(void *addr, size_t npages);
void kflush_copy_page(void *to, const void *from);

/* The registry: every dispatched operation and its variants. */
enum kflush_op {
	KFLUSH_OP_MEMCPY_FLUSHCACHE,
	KFLUSH_OP_MEMSET_FLUSHCACHE,
	KFLUSH_OP_FLUSH,
	KFLUSH_OP_MEMCPY,
	KFLUSH_OP_COPY_SAFE,
	KFLUSH_OP_CLEAR_PAGE,
	KFLUSH_OP_CLEAR_PAGES,
	KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE,
	KFLUSH_OP_COPY_PAGE,
	KFLUSH_OP_MEMMOVE_FLUSHCACHE,
	KFLUSH_NR_OPS
};

/* The type each operation's variants have; cast kflush_variant_fn() to it. */
typedef void (*kflush_fn)(void);
typedef void (*kflush_memcpy_flushcache_fn)(void *dst, const void *src, size_t n);
typedef void (*kflush_memset_flushcache_fn)(void *dst, int c, size_t n);
typedef void (*kflush_flush_fn)(const void *addr, size_t len);
typedef void *(*kflush_memcpy_fn)(void *dst, const void *src, size_t n);
typedef size_t (*kflush_copy_safe_fn)(void *dst, const void *src, size_t n);
typedef void (*kflush_clear_page_fn)(void *page);
typedef void (*kflush_clear_pages_fn)(void *addr, size_t npages);
typedef void (*kflush_copy_page_fn)(void *to, const void *from);
typedef void (*kflush_memmove_flushcache_fn)(void *dst, const void *src, size_t n);

const char *kflush_op_name(enum kflush_op op);
int kflush_variant_count(enum kflush_op op);
const char *kflush_variant_name(enum kflush_op op, unsigned int idx);
uint64_t kflush_variant_requires(enum kflush_op op, unsigned int idx);
int kflush_variant_usable(enum kflush_op op, unsigned int idx);
int kflush_variant_bindable(enum kflush_op op, unsigned int idx);
int kflush_variant_bound(enum kflush_op op);
int kflush_variant_find(enum kflush_op op, const char *name);
kflush_fn kflush_variant_fn(enum kflush_op op, unsigned int idx);

#ifndef KFLUSH_DRAIN_OUT_OF_LINE
/**
 * kflush_drain() - wait for earlier non-temporal stores and write-backs
 *
 * One sfence, inline: a call for one instruction cost more than the fence
 * on a hot path. Also a compiler barrier.
 */
static __inline__ __attribute__((__always_inline__)) void kflush_drain(void)
{
	__asm__ __volatile__("sfence" : : : "memory");
}
#endif

/*
 * Constant-size inline paths (seed: "x86/string: extend memcpy_flushcache()
 * fixed-size fastpaths"). Each store is its own asm with a "memory" clobber,
 * so the compiler can neither drop nor reorder it around other accesses.
 */
static __inline__ __attribute__((__always_inline__)) void
kflush_movnti_4(void *dst, const void *src)
{
	uint32_t v;

	/* memcpy, not a cast: the source may be unaligned. */
	__builtin_memcpy(&v, src, sizeof(v));
	__asm__ __volatile__("movntil %1, %0"
			     : "=m"(*(uint32_t *)dst)
			     : "r"(v)
			     : "memory");
}

static __inline__ __attribute__((__always_inline__)) void
kflush_movnti_8(void *dst, const void *src)
{
	uint64_t v;

	__builtin_memcpy(&v, src, sizeof(v));
	__asm__ __volatile__("movntiq %1, %0"
			     : "=m"(*(uint64_t *)dst)
			     : "r"(v)
			     : "memory");
}

static __inline__ __attribute__((__always_inline__)) void
kflush_movnti_16(void *dst, const void *src)
{
	kflush_movnti_8(dst, src);
	kflush_movnti_8((char *)dst + 8, (const char *)src + 8);
}

static __inline__ __attribute__((__always_inline__)) void
kflush_movnti_32(void *dst, const void *src)
{
	kflush_movnti_16(dst, src);
	kflush_movnti_16((char *)dst + 16, (const char *)src + 16);
}

static __inline__ __attribute__((__always_inline__)) void
kflush_movnti_64(void *dst, const void *src)
{
	kflush_movnti_32(dst, src);
	kflush_movnti_32((char *)dst + 32, (const char *)src + 32);
}

/*
 * 16..96 bytes, a multiple of 16, to a 16-byte-aligned destination: all the
 * loads, then the movntdq stores in one asm. On a Zen 3 (libkflush(7),
 * NOTES) this streamed a memmap of 64-byte struct pages at 0.94-1.00x the
 * roof where eight movnti reached 0.90-0.91x in the same runs, and one asm
 * per movntdq was slower than movnti. SSE2 is baseline on x86-64: no
 * dispatch. Code built without SSE registers (-mgeneral-regs-only,
 * -mno-sse2) keeps movnti, which needs only general registers.
 */
#ifdef __SSE2__
#define KFLUSH_HAVE_MOVNTDQ_PATH 1
typedef long long kflush_xmm __attribute__((__vector_size__(16)));

/* VEX-encoded in AVX code: legacy SSE next to dirty upper ymm state stalls on Intel. */
#ifdef __AVX__
#define KFLUSH_MOVNTDQ "vmovntdq "
#define KFLUSH_LOAD_2X8 "vmovq %1, %0\n\tvmovhps %2, %0, %0"
#else
#define KFLUSH_MOVNTDQ "movntdq "
#define KFLUSH_LOAD_2X8 "movq %1, %0\n\tmovhps %2, %0"
#endif

/* An 8-byte piece of a source of any type and alignment. */
typedef long long kflush_u64_any __attribute__((__may_alias__, __aligned__(1)));

static __inline__ __attribute__((__always_inline__)) kflush_xmm
kflush_xmm_load(const char *s, const size_t i, const size_t n)
{
	kflush_xmm v = { 0, 0 };

	/*
	 * Two 8-byte loads, not one of 16: a record just built with 8-byte
	 * stores forwards to them, where a 16-byte load waits for the stores
	 * to retire (copy-bench struct-page, template refreshed per page:
	 * 5.8 GB/s against 12.8 with movnti). In asm, or the compiler merges
	 * them into one.
	 */
	if (16 * i < n)
		__asm__(KFLUSH_LOAD_2X8
			: "=x"(v)
			: "m"(*(const kflush_u64_any *)(s + 16 * i)),
			  "m"(*(const kflush_u64_any *)(s + 16 * i + 8)));
	return v;
}

static __inline__ __attribute__((__always_inline__)) void
kflush_movntdq_n(char *d, const char *s, const size_t n)
{
	const kflush_xmm a = kflush_xmm_load(s, 0, n), b = kflush_xmm_load(s, 1, n),
			 c = kflush_xmm_load(s, 2, n), e = kflush_xmm_load(s, 3, n),
			 f = kflush_xmm_load(s, 4, n), g = kflush_xmm_load(s, 5, n);

	switch (n) {
	case 16:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)" : : "r"(d), "x"(a) : "memory");
		break;
	case 32:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%2, 16(%0)"
				     : : "r"(d), "x"(a), "x"(b) : "memory");
		break;
	case 48:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%2, 16(%0)\n\t"
				     KFLUSH_MOVNTDQ "%3, 32(%0)"
				     : : "r"(d), "x"(a), "x"(b), "x"(c) : "memory");
		break;
	case 64:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%2, 16(%0)\n\t"
				     KFLUSH_MOVNTDQ "%3, 32(%0)\n\t" KFLUSH_MOVNTDQ "%4, 48(%0)"
				     : : "r"(d), "x"(a), "x"(b), "x"(c), "x"(e) : "memory");
		break;
	case 80:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%2, 16(%0)\n\t"
				     KFLUSH_MOVNTDQ "%3, 32(%0)\n\t" KFLUSH_MOVNTDQ "%4, 48(%0)\n\t"
				     KFLUSH_MOVNTDQ "%5, 64(%0)"
				     : : "r"(d), "x"(a), "x"(b), "x"(c), "x"(e), "x"(f)
				     : "memory");
		break;
	case 96:
		__asm__ __volatile__(KFLUSH_MOVNTDQ "%1, (%0)\n\t" KFLUSH_MOVNTDQ "%2, 16(%0)\n\t"
				     KFLUSH_MOVNTDQ "%3, 32(%0)\n\t" KFLUSH_MOVNTDQ "%4, 48(%0)\n\t"
				     KFLUSH_MOVNTDQ "%5, 64(%0)\n\t" KFLUSH_MOVNTDQ "%6, 80(%0)"
				     : : "r"(d), "x"(a), "x"(b), "x"(c), "x"(e), "x"(f), "x"(g)
				     : "memory");
		break;
	}
}
#endif /* __SSE2__ */

/**
 * memcpy_flushcache() - copy so that no destination line is left dirty
 * @dst: destination
 * @src: source
 * @n: bytes to copy
 *
 * Compile-time-constant sizes 4, 8, 16, 32, 48, 64, 80 and 96 become
 * non-temporal stores and no call: movntdq when the size is a multiple of 16
 * and @dst is 16-byte aligned (a test of @dst, the compiler drops it when it
 * knows the alignment; not in code built without SSE registers), movnti
 * otherwise; anything else calls kflush_memcpy_flushcache(). Does not
 * fence: call kflush_drain() before depending on persistence.
 */
static __inline__ __attribute__((__always_inline__)) void
memcpy_flushcache(void *dst, const void *src, size_t n)
{
	char *d = (char *)dst;
	const char *s = (const char *)src;

	if (!__builtin_constant_p(n)) {
		kflush_memcpy_flushcache(dst, src, n);
		return;
	}

#ifdef KFLUSH_HAVE_MOVNTDQ_PATH
	if ((n == 16 || n == 32 || n == 48 || n == 64 || n == 80 || n == 96) &&
	    !((uintptr_t)d & 15)) {
		kflush_movntdq_n(d, s, n);
		return;
	}
#endif
	/* 64, 80 and 96 are the x86-64 struct page sizes; 32/48 ride along. */
	switch (n) {
	case 4:  kflush_movnti_4(d, s); break;
	case 8:  kflush_movnti_8(d, s); break;
	case 16: kflush_movnti_16(d, s); break;
	case 32: kflush_movnti_32(d, s); break;
	case 48: kflush_movnti_32(d, s); kflush_movnti_16(d + 32, s + 32); break;
	case 64: kflush_movnti_64(d, s); break;
	case 80: kflush_movnti_64(d, s); kflush_movnti_16(d + 64, s + 64); break;
	case 96: kflush_movnti_64(d, s); kflush_movnti_32(d + 64, s + 64); break;
	default: kflush_memcpy_flushcache(dst, src, n); break;
	}
}

/**
 * memcpy_nontemporal() - write-once streaming copy that bypasses the cache
 * @dst: destination
 * @src: source
 * @n: bytes to copy
 *
 * The kernel's memcpy_nontemporal(): on x86-64 the same constant-size
 * non-temporal paths and the same out-of-line routine as
 * memcpy_flushcache(). Does not fence: pair it with kflush_drain().
 */
static __inline__ __attribute__((__always_inline__)) void
memcpy_nontemporal(void *dst, const void *src, size_t n)
{
	memcpy_flushcache(dst, src, n);
}

#ifdef __cplusplus
}
#endif

#endif /* KFLUSH_H */
