/* SPDX-License-Identifier: MIT */
/*
 * How PMDK 1.12 copies, moves and fills when it does not flush: libpmem
 * with flushing off (PMEM_NO_FLUSH=1, or eADR) and libpmem2 at byte
 * granularity both use libpmem2's x86_64/init.c "eadr" memmove/memset:
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
 * where PMDK leaves it in the cache. Shared by both drop-ins.
 */
#ifndef KFLUSH_PMEM_EADR_H
#define KFLUSH_PMEM_EADR_H

#include "kflush.h"

/*
 * The flags of the libkflush call that stores as PMDK does, for a call that
 * stores: the callers return first, as PMDK does, from a zero-length call
 * and from a move or copy onto itself.
 */
static inline unsigned int kflush_pmem_eadr_store(unsigned int flags)
{
	if ((flags & (KFLUSH_F_MEM_NOFLUSH | KFLUSH_F_MEM_NONTEMPORAL)) ==
	    KFLUSH_F_MEM_NONTEMPORAL)
		return KFLUSH_F_MEM_NONTEMPORAL;
	return KFLUSH_F_MEM_NOFLUSH;
}

#endif /* KFLUSH_PMEM_EADR_H */
