// SPDX-License-Identifier: MIT
/*
 * kflush_memcpy() and the page routines: their variant lists and exported
 * entry points. The variants are in memcpy.S, clear_page.S and
 * copy_page.S. Seed 004 wants no branch per page: each entry point is a
 * GNU ifunc bound once at load (registry.c), never a feature test per call.
 */
#include <stddef.h>

#include "x86_64/pages.h"

/* Seed 000's switch-over, until a per-CPU rule (cpu_rules.c) sets this CPU's. */
struct kflush_memcpy_tuning kflush_memcpy_tuning = { 2048, 0 };

#ifdef KFLUSH_TEST_TUNING
/*
 * Test builds only (tests/local.mk): only one CPU's rule turns avoid_near
 * on, so tests/test_memcpy_tuned_forced.c sets the tuning itself to run
 * the near-distance path on any host with erms and avx2. A call, not an
 * environment variable read at load: each Criterion test runs in a fresh
 * process and wants several tunings, and the tracer's child must be
 * forked after the change. The installed library has no such code.
 */
void kflush_test_memcpy_tuning(size_t movsb_min, int avoid_near);
void kflush_test_memcpy_tuning(size_t movsb_min, int avoid_near)
{
	kflush_memcpy_tuning.movsb_min = movsb_min;
	kflush_memcpy_tuning.avoid_near = avoid_near;
}
#endif

/* In memcpy.S, which reads avoid_near at offset 8. */
void *memcpy_tuned(void *dst, const void *src, size_t n);
void *memcpy_tuned_prefetchw(void *dst, const void *src, size_t n);
void *memcpy_avx2(void *dst, const void *src, size_t n);
_Static_assert(offsetof(struct kflush_memcpy_tuning, movsb_min) == 0 &&
	       offsetof(struct kflush_memcpy_tuning, avoid_near) == 8,
	       "memcpy.S reads the tuning at these offsets");

/* Every variant stays listed, bound or not, so the benchmark can race them. */
KFLUSH_IMPLS(kflush_memcpy,
	KFLUSH_IMPL("tuned", KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2, KFLUSH_IMPL_RULE_ONLY, memcpy_tuned),
	KFLUSH_IMPL("tuned_prefetchw", KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2 | KFLUSH_CPU_PREFETCHW,
		    KFLUSH_IMPL_RULE_ONLY, memcpy_tuned_prefetchw),
	KFLUSH_IMPL("avx2", KFLUSH_CPU_AVX2, KFLUSH_IMPL_RULE_ONLY, memcpy_avx2),
	KFLUSH_IMPL("fsrm", KFLUSH_CPU_FSRM, 0, memcpy_fsrm),
	KFLUSH_IMPL("erms", KFLUSH_CPU_ERMS, 0, memcpy_erms),
	KFLUSH_IMPL("orig", 0, 0, memcpy_orig),
);

KFLUSH_IMPLS(kflush_clear_page,
	KFLUSH_IMPL("rep_stosb", KFLUSH_CPU_ERMS, 0, clear_page_rep_stosb),
	KFLUSH_IMPL("rep_stosq", KFLUSH_CPU_REP_GOOD, 0, clear_page_rep_stosq),
	KFLUSH_IMPL("mov", 0, 0, clear_page_mov),
);

KFLUSH_IMPLS(kflush_clear_pages,
	KFLUSH_IMPL("rep_stosq_page", KFLUSH_CPU_REP_GOOD, KFLUSH_IMPL_RULE_ONLY,
		    clear_pages_rep_stosq_page),
	KFLUSH_IMPL("rep_stosb", KFLUSH_CPU_ERMS, 0, clear_pages_rep_stosb),
	KFLUSH_IMPL("rep_stosq", KFLUSH_CPU_REP_GOOD, 0, clear_pages_rep_stosq),
	KFLUSH_IMPL("mov", 0, 0, clear_pages_mov),
);

KFLUSH_IMPLS(kflush_copy_page,
	KFLUSH_IMPL("rep_movsb", KFLUSH_CPU_ERMS, 0, copy_page_rep_movsb),
	KFLUSH_IMPL("rep_movsq", KFLUSH_CPU_REP_GOOD, 0, copy_page_rep_movsq),
	KFLUSH_IMPL("mov", 0, 0, copy_page_mov),
);

KFLUSH_RESOLVER(KFLUSH_OP_MEMCPY, kflush_memcpy_fn, kflush_memcpy)

/**
 * kflush_memcpy() - copy memory, the kernel's way
 * @dst: destination, any alignment
 * @src: source, any alignment; must not overlap @dst
 * @n: bytes to copy
 *
 * The kernel's memcpy(): on a CPU with a per-CPU rule, the variant it
 * names (tuned or tuned_prefetchw: AVX below the switch-over measured on
 * that CPU, rep movsb from it; or avx2 throughout). Otherwise rep movsb on
 * FSRM CPUs; on ERMS CPUs without FSRM rep movsb from 2048 bytes and the
 * scalar routine below that; else memcpy_orig. Ordinary cached stores;
 * does not fence.
 *
 * Return: @dst.
 */
KFLUSH_API void *kflush_memcpy(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memcpy_resolve")));

KFLUSH_RESOLVER(KFLUSH_OP_CLEAR_PAGE, kflush_clear_page_fn, kflush_clear_page)

/**
 * kflush_clear_page() - zero one page
 * @page: the page, 4096-byte aligned
 *
 * rep stosb (ERMS), rep stosq (fast strings) or a qword store loop,
 * whichever was bound at load. Ordinary cached stores; does not fence.
 */
KFLUSH_API void kflush_clear_page(void *page)
	__attribute__((ifunc("kflush_clear_page_resolve")));

KFLUSH_RESOLVER(KFLUSH_OP_CLEAR_PAGES, kflush_clear_pages_fn, kflush_clear_pages)

/**
 * kflush_clear_pages() - zero a run of pages
 * @addr: first page, 4096-byte aligned
 * @npages: number of pages; 0 touches nothing
 *
 * The string variants clear the whole extent with a single rep stos, never
 * page by page, so the CPU sees its true size (Zen parts stop allocating
 * cache lines for extents larger than L3); but a per-CPU rule binds
 * rep_stosq_page, one rep stosq a page, where that measured faster (Zen 2).
 * Does not fence.
 */
KFLUSH_API void kflush_clear_pages(void *addr, size_t npages)
	__attribute__((ifunc("kflush_clear_pages_resolve")));

KFLUSH_RESOLVER(KFLUSH_OP_COPY_PAGE, kflush_copy_page_fn, kflush_copy_page)

/**
 * kflush_copy_page() - copy one page
 * @to: destination page, 4096-byte aligned
 * @from: source page, 4096-byte aligned; must not overlap @to
 *
 * rep movsb (ERMS), rep movsq (fast strings) or a prefetching register
 * loop, whichever was bound at load. Does not fence.
 */
KFLUSH_API void kflush_copy_page(void *to, const void *from)
	__attribute__((ifunc("kflush_copy_page_resolve")));
