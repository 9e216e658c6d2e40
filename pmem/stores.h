/* SPDX-License-Identifier: MIT */
/*
 * What both drop-ins store as PMDK does. PMDK's memcpy is its memmove, so
 * an overlapping copy is a move (kflush_pmem_overlaps()). And how PMDK 1.12
 * copies, moves and fills when it does not flush: libpmem with flushing
 * off (PMEM_NO_FLUSH=1, or eADR) and libpmem2 at byte granularity both use
 * libpmem2's x86_64/init.c "eadr" memmove/memset:
 *   NOFLUSH                ordinary stores, no write-back, no fence;
 *   NONTEMPORAL            non-temporal stores for the whole lines, then an
 *                          sfence of their own (barrier_after_ntstores);
 *   anything else          ordinary stores, no write-back, whatever the size
 *                          (no PMEM_MOVNT_THRESHOLD, and WC is no hint here);
 * and a zero-length or in-place copy returns before storing or fencing.
 * The caller then drains (one more sfence) unless NODRAIN or NOFLUSH.
 * Traced on Debian 12's libpmem 1.12.1 and libpmem2 1.12.1 alike.
 *
 * libkflush's NONTEMPORAL flag form is that store and that sfence, except
 * that it writes a partial first or last line back (libkflush's edge rule)
 * where PMDK leaves it in the cache.
 */
#ifndef KFLUSH_PMEM_STORES_H
#define KFLUSH_PMEM_STORES_H

#include <stdint.h>

#include "kflush.h"

/* Whether [d, d + n) and [s, s + n) overlap. */
static inline int kflush_pmem_overlaps(const void *d, const void *s, size_t n)
{
	return (uintptr_t)d - (uintptr_t)s < n || (uintptr_t)s - (uintptr_t)d < n;
}

/* The flags of the libkflush call that stores as PMDK's "eadr" copies do. */
static inline unsigned int kflush_pmem_eadr_store(unsigned int flags)
{
	if ((flags & (KFLUSH_F_MEM_NOFLUSH | KFLUSH_F_MEM_NONTEMPORAL)) ==
	    KFLUSH_F_MEM_NONTEMPORAL)
		return KFLUSH_F_MEM_NONTEMPORAL;
	return KFLUSH_F_MEM_NOFLUSH;
}

/*
 * PMDK's "eadr" memmove, which is its memcpy too: nothing stored, and no
 * barrier, for no bytes or onto itself; the caller drains.
 */
static inline void kflush_pmem_eadr_move(void *d, const void *s, size_t n, unsigned int flags)
{
	unsigned int how = kflush_pmem_eadr_store(flags);

	if (!n || d == s)
		return;
	if (kflush_pmem_overlaps(d, s, n))
		kflush_memmove_flags(d, s, n, how);
	else
		kflush_memcpy_flags(d, s, n, how);
}

/* The caller's drain after those stores: one sfence unless NODRAIN or NOFLUSH. */
static inline void kflush_pmem_drain_unless(unsigned int flags)
{
	if (!(flags & (KFLUSH_F_MEM_NODRAIN | KFLUSH_F_MEM_NOFLUSH)))
		kflush_drain();
}

/* PMDK's "eadr" memset: nothing stored, and no barrier, for no bytes. */
static inline void kflush_pmem_eadr_set(void *d, int c, size_t n, unsigned int flags)
{
	if (n)
		kflush_memset_flags(d, c, n, kflush_pmem_eadr_store(flags));
}

#endif /* KFLUSH_PMEM_STORES_H */
