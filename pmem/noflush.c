// SPDX-License-Identifier: MIT
/*
 * libpmem's memory calls with flushing off, PMDK's choice at load when
 * PMEM_NO_FLUSH=1, or on eADR unless PMEM_NO_FLUSH=0 (memory.c decides).
 * PMDK's pmem_init() then binds the "eadr" copies (stores.h), an empty
 * pmem_flush() and a pmem_drain() that still fences; pmem_persist() is
 * the two, so only the fence; pmem_deep_flush() still writes back.
 */
#include "kflush.h"
#include "stores.h"
#include "pmem.h"

static void *move(void *d, const void *s, size_t n, unsigned flags)
{
	kflush_pmem_eadr_move(d, s, n, flags);
	kflush_pmem_drain_unless(flags);
	return d;
}

static void *set(void *d, int c, size_t n, unsigned flags)
{
	kflush_pmem_eadr_set(d, c, n, flags);
	kflush_pmem_drain_unless(flags);
	return d;
}

static void *memmove_nf(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMMOVE, len);
	return move(pmemdest, src, len, flags);
}

static void *memcpy_nf(void *pmemdest, const void *src, size_t len, unsigned flags)
{
	COUNT(F_MEMCPY, len);
	return move(pmemdest, src, len, flags);
}

static void *memset_nf(void *pmemdest, int c, size_t len, unsigned flags)
{
	COUNT(F_MEMSET, len);
	return set(pmemdest, c, len, flags);
}

static void *memmove_persist_nf(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_PERSIST, len);
	return move(pmemdest, src, len, 0);
}

static void *memcpy_persist_nf(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_PERSIST, len);
	return move(pmemdest, src, len, 0);
}

static void *memset_persist_nf(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_PERSIST, len);
	return set(pmemdest, c, len, 0);
}

static void *memmove_nodrain_nf(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMMOVE_NODRAIN, len);
	return move(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

static void *memcpy_nodrain_nf(void *pmemdest, const void *src, size_t len)
{
	COUNT(F_MEMCPY_NODRAIN, len);
	return move(pmemdest, src, len, KFLUSH_F_MEM_NODRAIN);
}

static void *memset_nodrain_nf(void *pmemdest, int c, size_t len)
{
	COUNT(F_MEMSET_NODRAIN, len);
	return set(pmemdest, c, len, KFLUSH_F_MEM_NODRAIN);
}

static void flush_nf(const void *addr, size_t len)
{
	COUNT(F_FLUSH, len);
	(void)addr;
}

static void persist_nf(const void *addr, size_t len)
{
	COUNT(F_PERSIST, len);
	(void)addr;
	kflush_drain();
}

const struct pmem_ops kflush_pmem_noflush_ops = {
	.memmove = memmove_nf, .memcpy = memcpy_nf, .memset = memset_nf,
	.memmove_persist = memmove_persist_nf, .memcpy_persist = memcpy_persist_nf,
	.memset_persist = memset_persist_nf,
	.memmove_nodrain = memmove_nodrain_nf, .memcpy_nodrain = memcpy_nodrain_nf,
	.memset_nodrain = memset_nodrain_nf,
	.flush = flush_nf, .persist = persist_nf,
};
