// SPDX-License-Identifier: MIT
/* TEMPORARY scaffolding: replaced by memcpy.S, clear_page.S, copy_page.S and
 * clear_pages_flushcache.c (issue 3). Must not survive into a release. */
#include "x86_64/flush.h"

void *memcpy_orig(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}

void clear_page_mov(void *page)
{
	memset(page, 0, KFLUSH_PAGE_SIZE);
}

void clear_pages_mov(void *addr, size_t npages)
{
	memset(addr, 0, npages * KFLUSH_PAGE_SIZE);
}

void clear_pages_flushcache_movnti(void *addr, size_t npages)
{
	char *p = addr;

	for (size_t i = 0; i < npages * KFLUSH_PAGE_SIZE; i += 8)
		nt_store8(p + i, 0);
}

void copy_page_mov(void *to, const void *from)
{
	memcpy(to, from, KFLUSH_PAGE_SIZE);
}

KFLUSH_IMPLS(kflush_memcpy, KFLUSH_IMPL("orig", 0, 0, memcpy_orig));
KFLUSH_IMPLS(kflush_clear_page, KFLUSH_IMPL("mov", 0, 0, clear_page_mov));
KFLUSH_IMPLS(kflush_clear_pages, KFLUSH_IMPL("mov", 0, 0, clear_pages_mov));
KFLUSH_IMPLS(kflush_clear_pages_flushcache, KFLUSH_IMPL("movnti", 0, 0, clear_pages_flushcache_movnti));
KFLUSH_IMPLS(kflush_copy_page, KFLUSH_IMPL("mov", 0, 0, copy_page_mov));

KFLUSH_API void *kflush_memcpy(void *dst, const void *src, size_t n)
{
	return KFLUSH_BOUND(KFLUSH_OP_MEMCPY, kflush_memcpy_fn)(dst, src, n);
}

KFLUSH_API void kflush_clear_page(void *page)
{
	KFLUSH_BOUND(KFLUSH_OP_CLEAR_PAGE, kflush_clear_page_fn)(page);
}

KFLUSH_API void kflush_clear_pages(void *addr, size_t npages)
{
	KFLUSH_BOUND(KFLUSH_OP_CLEAR_PAGES, kflush_clear_pages_fn)(addr, npages);
}

KFLUSH_API void kflush_clear_pages_flushcache(void *addr, size_t npages)
{
	KFLUSH_BOUND(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, kflush_clear_pages_fn)(addr, npages);
}

KFLUSH_API void kflush_copy_page(void *to, const void *from)
{
	KFLUSH_BOUND(KFLUSH_OP_COPY_PAGE, kflush_copy_page_fn)(to, from);
}
