// SPDX-License-Identifier: MIT
/*
 * The temporal flush-copy: ordinary stores, then the lines written back
 * (PMDK's PMEM_F_MEM_TEMPORAL). For a destination that is read again soon
 * (a log head, an allocator's metadata) clwb leaves the line in the cache,
 * clean, where a non-temporal store would have evicted it; and below a few
 * hundred bytes ordinary stores plus a write-back are cheaper than filling
 * write-combining buffers. Same contract as the flush-copy: on return no
 * destination line is dirty; nothing fences.
 */
#include "x86_64/flush.h"

/**
 * kflush_memcpy_temporal() - copy through the cache, then write the lines back
 * @dst: destination, any alignment
 * @src: source, any alignment; must not overlap @dst
 * @n: bytes to copy; 0 touches nothing
 *
 * kflush_memcpy() followed by kflush_flush() over the destination. Does
 * not fence: kflush_drain() before relying on it.
 */
KFLUSH_API void kflush_memcpy_temporal(void *dst, const void *src, size_t n)
{
	if (!n)
		return;
	KFLUSH_BOUND(KFLUSH_OP_MEMCPY, kflush_memcpy_fn)(dst, src, n);
	writeback_range(dst, n);
}

/**
 * kflush_memmove_temporal() - move through the cache, then write the lines back
 * @dst: destination, any alignment
 * @src: source, any alignment; may overlap @dst
 * @n: bytes to move; 0 touches nothing
 *
 * memmove() followed by kflush_flush() over the destination. Does not fence.
 */
KFLUSH_API void kflush_memmove_temporal(void *dst, const void *src, size_t n)
{
	if (!n)
		return;
	memmove(dst, src, n);
	writeback_range(dst, n);
}

/**
 * kflush_memset_temporal() - fill through the cache, then write the lines back
 * @dst: destination, any alignment
 * @c: byte value
 * @n: bytes to fill; 0 touches nothing
 *
 * memset() followed by kflush_flush() over the destination. Does not fence.
 */
KFLUSH_API void kflush_memset_temporal(void *dst, int c, size_t n)
{
	if (!n)
		return;
	memset(dst, c, n);
	writeback_range(dst, n);
}
