// SPDX-License-Identifier: MIT
/*
 * libpmem's memory calls on libkflush. PMDK's flag bits are libkflush's
 * KFLUSH_F_MEM_* bits, so flags pass through unchanged; the _persist forms
 * are flags 0 and the _nodrain forms PMEM_F_MEM_NODRAIN, as pmem_memmove(3)
 * defines them. Also the call counters and their report at exit.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kflush.h"
#include "pmem.h"

int kflush_pmem_stats;

static const char *const names[NR_PMEM_FN] = {
	"pmem_memmove", "pmem_memcpy", "pmem_memset",
	"pmem_memmove_persist", "pmem_memcpy_persist", "pmem_memset_persist",
	"pmem_memmove_nodrain", "pmem_memcpy_nodrain", "pmem_memset_nodrain",
	"pmem_flush", "pmem_drain", "pmem_persist",
	"pmem_deep_flush", "pmem_deep_drain", "pmem_deep_persist",
	"pmem_has_hw_drain", "pmem_has_auto_flush",
	"pmem_map_file", "pmem_unmap", "pmem_is_pmem", "pmem_msync",
	"pmem_errormsg", "pmem_check_version",
};

static _Atomic uint64_t calls[NR_PMEM_FN], bytes[NR_PMEM_FN];

void kflush_pmem_count(enum pmem_fn f, size_t n)
{
	atomic_fetch_add_explicit(&calls[f], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&bytes[f], n, memory_order_relaxed);
}

__attribute__((constructor)) static void stats_init(void)
{
	const char *v = getenv("KFLUSH_PMEM_STATS");

	kflush_pmem_stats = v && *v && strcmp(v, "0") != 0;
}

/* One line per function called, to stderr, so a test can tell who ran. */
__attribute__((destructor)) static void stats_report(void)
{
	if (!kflush_pmem_stats)
		return;
	fprintf(stderr, "libkflush-pmem: pid %ld: calls (KFLUSH_PMEM_STATS)\n", (long)getpid());
	for (int i = 0; i < NR_PMEM_FN; i++) {
		uint64_t c = atomic_load(&calls[i]);

		if (c)
			fprintf(stderr, "libkflush-pmem: %s %llu calls %llu bytes\n", names[i],
				(unsigned long long)c, (unsigned long long)atomic_load(&bytes[i]));
	}
}

/* PMDK's pmem_memcpy is its memmove: overlapping callers must keep working. */
static int overlaps(const void *d, const void *s, size_t n)
{
	return (uintptr_t)d - (uintptr_t)s < n || (uintptr_t)s - (uintptr_t)d < n;
}

PMEM_API void *pmem_memmove(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMMOVE, len);
	return kflush_memmove_flags(pmemdest, src, len, flags);
}

PMEM_API void *pmem_memcpy(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMCPY, len);
	if (overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, flags);
	return kflush_memcpy_flags(pmemdest, src, len, flags);
}

PMEM_API void *pmem_memset(void *pmemdest, int c, size_t len, unsigned flags)
{
	COUNT(F_MEMSET, len);
	return kflush_memset_flags(pmemdest, c, len, flags);
}

PMEM_API void *pmem_memmove_persist(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_PERSIST, len);
	return kflush_memmove_flags(pmemdest, src, len, 0);
}

PMEM_API void *pmem_memcpy_persist(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_PERSIST, len);
	if (overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, 0);
	return kflush_memcpy_flags(pmemdest, src, len, 0);
}

PMEM_API void *pmem_memset_persist(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_PERSIST, len);
	return kflush_memset_flags(pmemdest, c, len, 0);
}

PMEM_API void *pmem_memmove_nodrain(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_NODRAIN, len);
	return kflush_memmove_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

PMEM_API void *pmem_memcpy_nodrain(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_NODRAIN, len);
	if (overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
	return kflush_memcpy_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

PMEM_API void *pmem_memset_nodrain(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_NODRAIN, len);
	return kflush_memset_flags(pmemdest, c, len, KFLUSH_F_MEM_NODRAIN);
}

PMEM_API void pmem_flush(const void *addr, size_t len)
{
	COUNT(F_FLUSH, len);
	kflush_flush(addr, len);
}

PMEM_API void pmem_drain(void)
{
	COUNT(F_DRAIN, 0);
	kflush_drain();
}

PMEM_API void pmem_persist(const void *addr, size_t len)
{
	COUNT(F_PERSIST, len);
	kflush_persist(addr, len);
}

/* PMDK flushes here whether or not the platform has eADR; so do we. */
PMEM_API void pmem_deep_flush(const void *addr, size_t len)
{
	COUNT(F_DEEP_FLUSH, len);
	kflush_flush(addr, len);
}

/*
 * The fence is ours; reaching the persistence domain of a device-DAX or
 * file mapping (the region's deep_flush file, or msync) needs libpmem's
 * record of which mapping the range is in, so that part is the real one.
 */
PMEM_API int pmem_deep_drain(const void *addr, size_t len)
{
	COUNT(F_DEEP_DRAIN, len);
	kflush_drain();
	return kflush_pmem_real_deep_drain(addr, len);
}

PMEM_API int pmem_deep_persist(const void *addr, size_t len)
{
	COUNT(F_DEEP_PERSIST, len);
	kflush_flush(addr, len);
	kflush_drain();
	return kflush_pmem_real_deep_drain(addr, len);
}

/* x86-64 has no hardware drain instruction: PMDK answers 0 there too. */
PMEM_API int pmem_has_hw_drain(void)
{
	COUNT(F_HAS_HW_DRAIN, 0);
	return 0;
}
