// SPDX-License-Identifier: MIT
/*
 * The flags forms of copy, move and set, with the meaning PMDK gives
 * PMEM_F_MEM_* in pmem_memmove(3): the drop-in libpmem passes its callers'
 * flags straight through, so the bit values are PMDK's too.
 */
#include "x86_64/flush.h"

/* PMDK's PMEM_MOVNT_THRESHOLD default: below it, no hint means temporal. */
#define MOVNT_THRESHOLD 256

enum how { NOFLUSH, NONTEMPORAL, TEMPORAL };

/*
 * NOFLUSH wins over any hint (PMDK calls NOFLUSH with NONTEMPORAL or WC
 * undefined on x86-64; plain stores are the one reading that honours
 * "don't flush anything"), then NONTEMPORAL/WC over TEMPORAL/WB; with no
 * hint the size decides, as in PMDK.
 */
static enum how choose(size_t n, unsigned int flags)
{
	if (flags & KFLUSH_F_MEM_NOFLUSH)
		return NOFLUSH;
	if (flags & (KFLUSH_F_MEM_NONTEMPORAL | KFLUSH_F_MEM_WC))
		return NONTEMPORAL;
	if (flags & (KFLUSH_F_MEM_TEMPORAL | KFLUSH_F_MEM_WB))
		return TEMPORAL;
	return n < MOVNT_THRESHOLD ? TEMPORAL : NONTEMPORAL;
}

/* NOFLUSH never comes here: its calls return before anything is owed. */
static void drain_unless(unsigned int flags)
{
	if (!(flags & KFLUSH_F_MEM_NODRAIN))
		sfence();
}

/**
 * kflush_memcpy_flags() - copy with PMDK's PMEM_F_MEM_* flags
 * @dst: destination, any alignment
 * @src: source; must not overlap @dst
 * @n: bytes to copy
 * @flags: KFLUSH_F_MEM_* bits; unknown bits are ignored
 *
 * Without NOFLUSH no destination line is left dirty, and unless NODRAIN
 * or NOFLUSH the call ends with one sfence, like pmem_memcpy().
 *
 * Return: @dst.
 */
KFLUSH_API void *kflush_memcpy_flags(void *dst, const void *src, size_t n, unsigned int flags)
{
	switch (choose(n, flags)) {
	case NOFLUSH:
		if (n)
			memcpy(dst, src, n);
		return dst;
	case NONTEMPORAL:
		kflush_memcpy_flushcache(dst, src, n);
		break;
	case TEMPORAL:
		kflush_memcpy_temporal(dst, src, n);
		break;
	}
	drain_unless(flags);
	return dst;
}

/**
 * kflush_memmove_flags() - move with PMDK's PMEM_F_MEM_* flags
 * @dst: destination, any alignment
 * @src: source; may overlap @dst
 * @n: bytes to move
 * @flags: KFLUSH_F_MEM_* bits; unknown bits are ignored
 *
 * As kflush_memcpy_flags(), for overlapping buffers (pmem_memmove()).
 *
 * Return: @dst.
 */
KFLUSH_API void *kflush_memmove_flags(void *dst, const void *src, size_t n, unsigned int flags)
{
	switch (choose(n, flags)) {
	case NOFLUSH:
		memmove(dst, src, n);
		return dst;
	case NONTEMPORAL:
		kflush_memmove_flushcache(dst, src, n);
		break;
	case TEMPORAL:
		kflush_memmove_temporal(dst, src, n);
		break;
	}
	drain_unless(flags);
	return dst;
}

/**
 * kflush_memset_flags() - fill with PMDK's PMEM_F_MEM_* flags
 * @dst: destination, any alignment
 * @c: byte value
 * @n: bytes to fill
 * @flags: KFLUSH_F_MEM_* bits; unknown bits are ignored
 *
 * As kflush_memcpy_flags(), for a fill (pmem_memset()).
 *
 * Return: @dst.
 */
KFLUSH_API void *kflush_memset_flags(void *dst, int c, size_t n, unsigned int flags)
{
	switch (choose(n, flags)) {
	case NOFLUSH:
		if (n)
			memset(dst, c, n);
		return dst;
	case NONTEMPORAL:
		kflush_memset_flushcache(dst, c, n);
		break;
	case TEMPORAL:
		kflush_memset_temporal(dst, c, n);
		break;
	}
	drain_unless(flags);
	return dst;
}
