// SPDX-License-Identifier: MIT
/*
 * kflush_clear_pages_flushcache(): zero whole pages for persistent memory
 * without leaving a dirty line behind. Every store is non-temporal, so
 * there is nothing to write back, and like the rest of the flush family
 * nothing fences: the caller drains once for however many calls it made.
 */
#include "x86_64/pages.h"

static inline __attribute__((always_inline)) void movnti_line(char *d)
{
	for (int i = 0; i < CLEAR_LINE; i += 8)
		nt_store8(d + i, 0);
}

void clear_pages_flushcache_movnti(void *addr, size_t npages)
{
	clear_lines(addr, npages, movnti_line);
}

/*
 * AMD's CLZERO zeroes the whole line holding the address in rax. The APM
 * gives it an implied non-temporal memory type using the write-combining
 * protocol, like a streaming store, and makes it weakly ordered (sfence
 * orders it). So it leaves no dirty line to write back, and the
 * persistence tracer counts it as a 64-byte non-temporal store. Only ever called with
 * line-aligned addresses: it would silently widen anything else.
 */
static inline __attribute__((always_inline)) void clzero_line(char *d)
{
	__asm__ __volatile__("clzero" : : "a"(d) : "memory");
}

void clear_pages_flushcache_clzero(void *addr, size_t npages)
{
	clear_lines(addr, npages, clzero_line);
}

KFLUSH_IMPLS(kflush_clear_pages_flushcache,
	KFLUSH_IMPL("clzero", KFLUSH_CPU_CLZERO, 0, clear_pages_flushcache_clzero),
	KFLUSH_IMPL("avx512", KFLUSH_CPU_AVX512F, 0, clear_pages_flushcache_avx512),
	KFLUSH_IMPL("avx2", KFLUSH_CPU_AVX2, 0, clear_pages_flushcache_avx2),
	KFLUSH_IMPL("movnti", 0, 0, clear_pages_flushcache_movnti),
);

KFLUSH_RESOLVER(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, kflush_clear_pages_fn, kflush_clear_pages_flushcache)

/**
 * kflush_clear_pages_flushcache() - zero pages, leaving no line dirty
 * @addr: first page, 4096-byte aligned
 * @npages: number of 4096-byte pages; 0 touches nothing
 *
 * Every byte is zeroed by a non-temporal store (movnti, vmovntdq or
 * CLZERO, whichever was bound at load), so on return no line of the extent
 * is dirty in this CPU's cache. Does not fence: call kflush_drain() before
 * relying on the zeroes being persistent or ordered before later stores.
 */
KFLUSH_API void kflush_clear_pages_flushcache(void *addr, size_t npages)
	__attribute__((ifunc("kflush_clear_pages_flushcache_resolve")));
