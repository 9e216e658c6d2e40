// SPDX-License-Identifier: MIT
/*
 * libpmem's memory calls on libkflush. PMDK's flag bits are libkflush's
 * KFLUSH_F_MEM_* bits, so flags pass through unchanged; the _persist forms
 * are flags 0 and the _nodrain forms PMEM_F_MEM_NODRAIN, as pmem_memmove(3)
 * defines them. Whether they flush at all is PMDK's decision at load,
 * taken here once into a table of functions (noflush.c has the other set).
 * Also the call counters and their report at exit.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kflush.h"
#include "pmem.h"
#include "stores.h"

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

/*
 * The flushing set: the caller's flags as they are (pmem_memmove(3)), the
 * _persist forms flags 0, the _nodrain forms PMEM_F_MEM_NODRAIN.
 */
static void *memmove_wb(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMMOVE, len);
	return kflush_memmove_flags(pmemdest, src, len, flags);
}

static void *memcpy_wb(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMCPY, len);
	if (kflush_pmem_overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, flags);
	return kflush_memcpy_flags(pmemdest, src, len, flags);
}

static void *memset_wb(void *pmemdest, int c, size_t len, unsigned flags)
{
	COUNT(F_MEMSET, len);
	return kflush_memset_flags(pmemdest, c, len, flags);
}

static void *memmove_persist_wb(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_PERSIST, len);
	return kflush_memmove_flags(pmemdest, src, len, 0);
}

static void *memcpy_persist_wb(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_PERSIST, len);
	if (kflush_pmem_overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, 0);
	return kflush_memcpy_flags(pmemdest, src, len, 0);
}

static void *memset_persist_wb(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_PERSIST, len);
	return kflush_memset_flags(pmemdest, c, len, 0);
}

static void *memmove_nodrain_wb(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_NODRAIN, len);
	return kflush_memmove_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

static void *memcpy_nodrain_wb(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_NODRAIN, len);
	if (kflush_pmem_overlaps(pmemdest, src, len))
		return kflush_memmove_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
	return kflush_memcpy_flags(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

static void *memset_nodrain_wb(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_NODRAIN, len);
	return kflush_memset_flags(pmemdest, c, len, KFLUSH_F_MEM_NODRAIN);
}

static void flush_wb(const void *addr, size_t len)
{
	COUNT(F_FLUSH, len);
	kflush_flush(addr, len);
}

static void persist_wb(const void *addr, size_t len)
{
	COUNT(F_PERSIST, len);
	kflush_persist(addr, len);
}

/*
 * Flushing until the constructor below says otherwise, so that a call
 * made before it (from an earlier library's constructor) still persists.
 */
static struct pmem_ops ops = {
	.memmove = memmove_wb, .memcpy = memcpy_wb, .memset = memset_wb,
	.memmove_persist = memmove_persist_wb, .memcpy_persist = memcpy_persist_wb,
	.memset_persist = memset_persist_wb,
	.memmove_nodrain = memmove_nodrain_wb, .memcpy_nodrain = memcpy_nodrain_wb,
	.memset_nodrain = memset_nodrain_wb,
	.flush = flush_wb, .persist = persist_wb,
};

/*
 * PMDK's libpmem decides once, in its constructor (pmem_init(), PMDK
 * 1.12): PMEM_NO_FLUSH "1" never flushes, "0" always does, and any other
 * value, or none, flushes unless pmem_has_auto_flush() is 1 (eADR).
 * Without the real libpmem to ask about eADR we flush: that persists.
 */
__attribute__((constructor)) static void ops_init(void)
{
	const char *e = getenv("PMEM_NO_FLUSH");
	int flush;

	if (e && strcmp(e, "1") == 0)
		flush = 0;
	else if (e && strcmp(e, "0") == 0)
		flush = 1;
	else
		flush = kflush_pmem_real_auto_flush() != 1;
	if (!flush)
		ops = kflush_pmem_noflush_ops;
}

PMEM_API void *pmem_memmove(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	return ops.memmove(pmemdest, src, len, flags);
}

PMEM_API void *pmem_memcpy(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	return ops.memcpy(pmemdest, src, len, flags);
}

PMEM_API void *pmem_memset(void *pmemdest, int c, size_t len, unsigned flags)
{
	return ops.memset(pmemdest, c, len, flags);
}

PMEM_API void *pmem_memmove_persist(void *pmemdest, const void *src, size_t len)
{
	return ops.memmove_persist(pmemdest, src, len);
}

PMEM_API void *pmem_memcpy_persist(void *pmemdest, const void *src, size_t len)
{
	return ops.memcpy_persist(pmemdest, src, len);
}

PMEM_API void *pmem_memset_persist(void *pmemdest, int c, size_t len)
{
	return ops.memset_persist(pmemdest, c, len);
}

PMEM_API void *pmem_memmove_nodrain(void *pmemdest, const void *src, size_t len)
{
	return ops.memmove_nodrain(pmemdest, src, len);
}

PMEM_API void *pmem_memcpy_nodrain(void *pmemdest, const void *src, size_t len)
{
	return ops.memcpy_nodrain(pmemdest, src, len);
}

PMEM_API void *pmem_memset_nodrain(void *pmemdest, int c, size_t len)
{
	return ops.memset_nodrain(pmemdest, c, len);
}

PMEM_API void pmem_flush(const void *addr, size_t len)
{
	ops.flush(addr, len);
}

/* One sfence; with flushing off PMDK's pmem_drain() still fences too. */
PMEM_API void pmem_drain(void)
{
	COUNT(F_DRAIN, 0);
	kflush_drain();
}

PMEM_API void pmem_persist(const void *addr, size_t len)
{
	ops.persist(addr, len);
}

/* PMDK writes back here whether or not it flushes elsewhere; so do we. */
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
