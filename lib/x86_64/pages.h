/* SPDX-License-Identifier: MIT */
/*
 * Private: the memcpy and page-routine variants (memcpy.S, clear_page.S,
 * copy_page.S, clear_pages_flushcache*.c) and the line driver the
 * flush-clear variants share. The baseline of each operation is declared
 * in internal.h.
 */
#ifndef KFLUSH_X86_PAGES_H
#define KFLUSH_X86_PAGES_H

#include "x86_64/flush.h"

void *memcpy_fsrm(void *dst, const void *src, size_t n);
void *memcpy_erms(void *dst, const void *src, size_t n);

void clear_page_rep_stosb(void *page);
void clear_page_rep_stosq(void *page);
void clear_pages_rep_stosb(void *addr, size_t npages);
void clear_pages_rep_stosq(void *addr, size_t npages);
void clear_pages_rep_stosq_page(void *addr, size_t npages);

void copy_page_rep_movsb(void *to, const void *from);
void copy_page_rep_movsq(void *to, const void *from);

void clear_pages_flushcache_clzero(void *addr, size_t npages);
void clear_pages_flushcache_avx512(void *addr, size_t npages);
void clear_pages_flushcache_avx2(void *addr, size_t npages);

#define CLEAR_LINE 64

/*
 * Zero [addr, addr + npages * 4096) one 64-byte line at a time with @line,
 * four lines per pass (a page is 64 lines, so there is no remainder).
 * @line must be a static always_inline function: each variant gets its own
 * copy of the loop with the store inlined, not a call per line.
 */
KFLUSH_INLINE void clear_lines(void *addr, size_t npages, void (*line)(char *d))
{
	char *d = addr;
	char *end = d + npages * KFLUSH_PAGE_SIZE;

	for (; d < end; d += 4 * CLEAR_LINE) {
		line(d);
		line(d + CLEAR_LINE);
		line(d + 2 * CLEAR_LINE);
		line(d + 3 * CLEAR_LINE);
	}
}

#endif /* KFLUSH_X86_PAGES_H */
