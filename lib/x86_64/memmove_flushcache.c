// SPDX-License-Identifier: MIT
/*
 * memmove_flushcache: the flush-copy for overlapping buffers (PMDK's
 * pmem_memmove; the kernel has none). The kernel-shaped baseline and the
 * registry; the movnti and vector variants sit beside the flush-copy
 * variants whose line stores they share (flushcache*.c).
 */
#include "x86_64/memmove_flushcache.h"

void memmove_flushcache_kernel(void *dst, const void *src, size_t n)
{
	flushmove_core(dst, src, n);
}

KFLUSH_IMPLS(kflush_memmove_flushcache,
	KFLUSH_IMPL("avx512", KFLUSH_CPU_AVX512F, 0, memmove_flushcache_avx512),
	KFLUSH_IMPL("avx2", KFLUSH_CPU_AVX2, 0, memmove_flushcache_avx2),
	KFLUSH_IMPL("avx2_short_cached", KFLUSH_CPU_AVX2, KFLUSH_IMPL_RULE_ONLY,
		    memmove_flushcache_avx2_short_cached),
	KFLUSH_IMPL("movnti", KFLUSH_CPU_SSE2, 0, memmove_flushcache_movnti),
	KFLUSH_IMPL("kernel", 0, 0, memmove_flushcache_kernel),
);

KFLUSH_RESOLVER(KFLUSH_OP_MEMMOVE_FLUSHCACHE, kflush_memmove_flushcache_fn, kflush_memmove_flushcache)

/**
 * kflush_memmove_flushcache() - move, leaving no destination line dirty
 * @dst: destination, any alignment
 * @src: source, any alignment; may overlap @dst
 * @n: bytes to move; 0 touches nothing
 *
 * memmove() with the contract of kflush_memcpy_flushcache(): the result is
 * as if @src were first copied to a temporary buffer, and each destination
 * byte is written by a non-temporal store, or by an ordinary store whose
 * line is then written back. Does not fence.
 */
KFLUSH_API void kflush_memmove_flushcache(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memmove_flushcache_resolve")));
