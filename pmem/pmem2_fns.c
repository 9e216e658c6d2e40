// SPDX-License-Identifier: MIT
/*
 * libpmem2's pmem2_get_{memmove,memcpy,memset,persist,flush,drain}_fn on
 * libkflush. The map's store granularity, as the real libpmem2 settled it
 * in pmem2_map_new() (from MAP_SYNC or device DAX, the regions'
 * persistence_domain for eADR, and PMEM2_FORCE_GRANULARITY), picks the
 * flavour, as PMDK's persist.c does:
 *   PAGE        the OS flushes: copies are plain stores, then msync()
 *               (PMDK flush-copies before its msync(); msync() alone is
 *               what pmem2_get_memcpy_fn(3) promises: copy, then persist);
 *               persist and flush are msync(), drain does nothing.
 *   CACHE_LINE  libkflush's flush-copy, write-back and sfence.
 *   BYTE        the caches are persistent (eADR): no write-back, PMDK's
 *               stores (stores.h), the fence that orders them.
 * PMEM2_F_MEM_* are libkflush's KFLUSH_F_MEM_* bits, so flags pass through.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kflush.h"
#include "stores.h"
#include "pmem2.h"

/* One counter per returned function and granularity (KFLUSH_PMEM_STATS). */
enum fn { FN_MEMMOVE, FN_MEMCPY, FN_MEMSET, FN_PERSIST, FN_FLUSH, FN_DRAIN, NR_FN };

static const char *const fn_names[NR_FN] = {
	"memmove_fn", "memcpy_fn", "memset_fn", "persist_fn", "flush_fn", "drain_fn",
};
static const char *const gran_names[NR_GRAN] = { "byte", "cache_line", "page" };

static int stats;
static _Atomic uint64_t calls[NR_FN][NR_GRAN], bytes[NR_FN][NR_GRAN];

#define COUNT(f, g, n)								\
	do {									\
		if (__builtin_expect(stats, 0)) {				\
			atomic_fetch_add_explicit(&calls[f][g], 1, memory_order_relaxed); \
			atomic_fetch_add_explicit(&bytes[f][g], (n), memory_order_relaxed); \
		}								\
	} while (0)

__attribute__((constructor)) static void stats_init(void)
{
	const char *v = getenv("KFLUSH_PMEM_STATS");

	stats = v && *v && strcmp(v, "0") != 0;
}

/* One line per function that ran, to stderr, so a test can tell who ran. */
__attribute__((destructor)) static void stats_report(void)
{
	if (!stats)
		return;
	fprintf(stderr, "libkflush-pmem2: pid %ld: calls (KFLUSH_PMEM_STATS)\n", (long)getpid());
	for (int f = 0; f < NR_FN; f++)
		for (int g = 0; g < NR_GRAN; g++) {
			uint64_t c = atomic_load(&calls[f][g]);

			if (c)
				fprintf(stderr, "libkflush-pmem2: %s/%s %llu calls %llu bytes\n",
					fn_names[f], gran_names[g], (unsigned long long)c,
					(unsigned long long)atomic_load(&bytes[f][g]));
		}
}

/*
 * The page-granularity flush: msync(MS_SYNC) from the page the range
 * starts in. A persist function has no way to report failure, so, as in
 * PMDK, a failed msync is fatal; ENOMEM (part of the range is not mapped)
 * is not, as PMDK syncs only the parts inside its mappings.
 */
static void sync_pages(const void *addr, size_t len)
{
	static long page;
	uintptr_t start;
	int saved = errno;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	start = (uintptr_t)addr & ~((uintptr_t)page - 1);
	len += (uintptr_t)addr - start;
	while (msync((void *)start, len, MS_SYNC) != 0) {
		if (errno == EINTR)
			continue;
		if (errno == ENOMEM)
			break;
		fprintf(stderr, "libkflush-pmem2: msync(%p, %zu): %s\n", (void *)start, len,
			strerror(errno));
		abort();
	}
	errno = saved;
}

/* PAGE: the cache holds nothing the OS will not write back itself. */
static void *memmove_page(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMMOVE, GRAN_PAGE, n);
	kflush_memmove_flags(d, s, n, KFLUSH_F_MEM_NOFLUSH);
	if (!(flags & KFLUSH_F_MEM_NOFLUSH))
		sync_pages(d, n);
	return d;
}

static void *memcpy_page(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMCPY, GRAN_PAGE, n);
	kflush_memmove_flags(d, s, n, KFLUSH_F_MEM_NOFLUSH);
	if (!(flags & KFLUSH_F_MEM_NOFLUSH))
		sync_pages(d, n);
	return d;
}

static void *memset_page(void *d, int c, size_t n, unsigned flags)
{
	COUNT(FN_MEMSET, GRAN_PAGE, n);
	kflush_memset_flags(d, c, n, KFLUSH_F_MEM_NOFLUSH);
	if (!(flags & KFLUSH_F_MEM_NOFLUSH))
		sync_pages(d, n);
	return d;
}

static void persist_page(const void *p, size_t n)
{
	COUNT(FN_PERSIST, GRAN_PAGE, n);
	sync_pages(p, n);
}

static void flush_page(const void *p, size_t n)
{
	COUNT(FN_FLUSH, GRAN_PAGE, n);
	sync_pages(p, n);
}

/* msync already waited: nothing is left to drain. */
static void drain_page(void)
{
	COUNT(FN_DRAIN, GRAN_PAGE, 0);
}

/* CACHE_LINE: libkflush's flags forms do exactly what pmem2 asks. */
static void *memmove_line(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMMOVE, GRAN_CACHE_LINE, n);
	return kflush_memmove_flags(d, s, n, flags);
}

static void *memcpy_line(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMCPY, GRAN_CACHE_LINE, n);
	if (kflush_pmem_overlaps(d, s, n))
		return kflush_memmove_flags(d, s, n, flags);
	return kflush_memcpy_flags(d, s, n, flags);
}

static void *memset_line(void *d, int c, size_t n, unsigned flags)
{
	COUNT(FN_MEMSET, GRAN_CACHE_LINE, n);
	return kflush_memset_flags(d, c, n, flags);
}

static void persist_line(const void *p, size_t n)
{
	COUNT(FN_PERSIST, GRAN_CACHE_LINE, n);
	kflush_persist(p, n);
}

static void flush_line(const void *p, size_t n)
{
	COUNT(FN_FLUSH, GRAN_CACHE_LINE, n);
	kflush_flush(p, n);
}

static void drain_line(void)
{
	COUNT(FN_DRAIN, GRAN_CACHE_LINE, 0);
	kflush_drain();
}

/*
 * BYTE: a store is persistent once it is globally visible, so no
 * write-back, and the stores PMDK's byte-granularity copies make
 * (stores.h): ordinary ones, or non-temporal ones and their fence for
 * NONTEMPORAL; then the fence that orders them. memcpy_fn is memmove_fn.
 */
static void *move_byte(void *d, const void *s, size_t n, unsigned flags)
{
	kflush_pmem_eadr_move(d, s, n, flags);
	kflush_pmem_drain_unless(flags);
	return d;
}

static void *memmove_byte(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMMOVE, GRAN_BYTE, n);
	return move_byte(d, s, n, flags);
}

static void *memcpy_byte(void *d, const void *s, size_t n, unsigned flags)
{
	COUNT(FN_MEMCPY, GRAN_BYTE, n);
	return move_byte(d, s, n, flags);
}

static void *memset_byte(void *d, int c, size_t n, unsigned flags)
{
	COUNT(FN_MEMSET, GRAN_BYTE, n);
	kflush_pmem_eadr_set(d, c, n, flags);
	kflush_pmem_drain_unless(flags);
	return d;
}

static void persist_byte(const void *p, size_t n)
{
	COUNT(FN_PERSIST, GRAN_BYTE, n);
	(void)p;
	kflush_drain();
}

static void flush_byte(const void *p, size_t n)
{
	COUNT(FN_FLUSH, GRAN_BYTE, n);
	(void)p;
}

static void drain_byte(void)
{
	COUNT(FN_DRAIN, GRAN_BYTE, 0);
	kflush_drain();
}

/* PMDK aborts on a granularity it does not know; so do we. */
static int granularity(struct pmem2_map *map, const char *who)
{
	int g = kflush_pmem2_real_granularity(map);

	if (g < 0 || g >= NR_GRAN) {
		fprintf(stderr, "libkflush-pmem2: %s: map %p has no known granularity (%d)\n",
			who, (void *)map, g);
		abort();
	}
	return g;
}

#define GETTER(type, name, fn)							\
	PMEM2_API type pmem2_get_##name(struct pmem2_map *map)			\
	{									\
		static const type by_gran[NR_GRAN] = {				\
			[GRAN_BYTE] = fn##_byte,				\
			[GRAN_CACHE_LINE] = fn##_line,				\
			[GRAN_PAGE] = fn##_page,				\
		};								\
		return by_gran[granularity(map, "pmem2_get_" #name)];		\
	}

GETTER(pmem2_memmove_fn, memmove_fn, memmove)
GETTER(pmem2_memcpy_fn, memcpy_fn, memcpy)
GETTER(pmem2_memset_fn, memset_fn, memset)
GETTER(pmem2_persist_fn, persist_fn, persist)
GETTER(pmem2_flush_fn, flush_fn, flush)
GETTER(pmem2_drain_fn, drain_fn, drain)
