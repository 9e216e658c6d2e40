// SPDX-License-Identifier: MIT
/*
 * Cache-line write-back (the algorithm of the kernel's clean_cache_range(),
 * arch/x86/lib/usercopy_64.c; implementation ours), drain, persist.
 */
#include "x86_64/flush.h"

/*
 * All three walk the same lines: from the line holding addr to the one
 * holding addr+len-1. clflush and clflushopt also evict; clwb may keep the
 * line cached (clean), which is why it is preferred.
 */
#define DEFINE_FLUSH(name, insn)						\
	void name(const void *addr, size_t len)				\
	{									\
		/* Unlike clean_cache_range(), len 0 touches no line. */	\
		if (len)							\
			wb_lines(addr, len, kflush_clflush_size, insn);		\
	}

void flush_clwb(const void *addr, size_t len);
void flush_clflushopt(const void *addr, size_t len);

DEFINE_FLUSH(flush_clwb, wb_clwb)
DEFINE_FLUSH(flush_clflushopt, wb_clflushopt)
DEFINE_FLUSH(flush_clflush, wb_clflush)

KFLUSH_IMPLS(kflush_flush,
	KFLUSH_IMPL("clwb", KFLUSH_CPU_CLWB, 0, flush_clwb),
	KFLUSH_IMPL("clflushopt", KFLUSH_CPU_CLFLUSHOPT, 0, flush_clflushopt),
	KFLUSH_IMPL("clflush", 0, 0, flush_clflush),
);

KFLUSH_RESOLVER(KFLUSH_OP_FLUSH, kflush_flush_fn, kflush_flush)

/**
 * kflush_flush() - write back every cache line touching a range
 * @addr: start of the range, any alignment
 * @len: length in bytes; 0 writes nothing back
 *
 * Uses clwb, else clflushopt, else clflush. Does not fence: the write-backs
 * are only ordered and complete after kflush_drain().
 */
KFLUSH_API void kflush_flush(const void *addr, size_t len)
	__attribute__((ifunc("kflush_flush_resolve")));

/**
 * kflush_drain() - wait for earlier non-temporal stores and write-backs
 *
 * An sfence: every movnt* store and clwb/clflushopt issued before it by
 * this thread is complete (globally visible, and on pmem with ADR or eADR,
 * persistent) before any store after it. clflush is ordered anyway.
 * <kflush.h> makes callers inline the same sfence; this symbol stays for
 * dlsym() and for programs built against older headers.
 */
KFLUSH_API void kflush_drain(void)
{
	sfence();
}

/**
 * kflush_persist() - write back a range and drain
 * @addr: start of the range
 * @len: length in bytes
 *
 * kflush_flush() followed by kflush_drain(), like pmem_persist(). Fences.
 */
KFLUSH_API void kflush_persist(const void *addr, size_t len)
{
	kflush_flush(addr, len);
	sfence();
}

/**
 * kflush_memcpy_persist() - flush-copy and drain
 * @dst: destination
 * @src: source, must not overlap @dst
 * @n: bytes to copy
 *
 * kflush_memcpy_flushcache() followed by kflush_drain(). Fences.
 */
KFLUSH_API void kflush_memcpy_persist(void *dst, const void *src, size_t n)
{
	kflush_memcpy_flushcache(dst, src, n);
	sfence();
}
