/* SPDX-License-Identifier: MIT */
/*
 * Private store, write-back and fence helpers (PMDK's flush.h, the kernel's
 * movnti/clwb wrappers). The proof that no variant leaves a dirty line
 * behind does not trust these: tests/test_persistence.c single-steps the
 * built library and decodes every instruction it actually runs.
 */
#ifndef KFLUSH_X86_FLUSH_H
#define KFLUSH_X86_FLUSH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define KFLUSH_INLINE static inline __attribute__((always_inline))

KFLUSH_INLINE uint64_t load8(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

KFLUSH_INLINE uint32_t load4(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

KFLUSH_INLINE void nt_store8(void *dst, uint64_t v)
{
	__asm__ __volatile__("movntiq %1, %0" : "=m"(*(uint64_t *)dst) : "r"(v) : "memory");
}

KFLUSH_INLINE void nt_store4(void *dst, uint32_t v)
{
	__asm__ __volatile__("movntil %1, %0" : "=m"(*(uint32_t *)dst) : "r"(v) : "memory");
}

/* Ordinary (cached) stores: the caller must write the lines back. */
KFLUSH_INLINE void cached_copy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

KFLUSH_INLINE void cached_set(void *dst, int c, size_t n)
{
	memset(dst, c, n);
}

/* The line holding p, for the write-back instructions' memory operand. */
#define LINE_OPERAND(p) (*(const volatile char *)(p))

KFLUSH_INLINE void wb_clwb(const void *p)
{
	__asm__ __volatile__("clwb %0" : : "m"(LINE_OPERAND(p)) : "memory");
}

KFLUSH_INLINE void wb_clflushopt(const void *p)
{
	__asm__ __volatile__("clflushopt %0" : : "m"(LINE_OPERAND(p)) : "memory");
}

KFLUSH_INLINE void wb_clflush(const void *p)
{
	__asm__ __volatile__("clflush %0" : : "m"(LINE_OPERAND(p)) : "memory");
}

/*
 * @wb (one of the three above) on every @line-byte line (the CPU's
 * kflush_clflush_size, which a caller may load early) holding [addr,
 * addr+len): kflush_flush()'s variants and the temporal small path's
 * inline write-backs. len must not be 0.
 */
KFLUSH_INLINE void wb_lines(const void *addr, size_t len, uintptr_t line,
			    void (*wb)(const void *p))
{
	uintptr_t p = (uintptr_t)addr & ~(line - 1), end = (uintptr_t)addr + len;

	for (; p < end; p += line)
		wb((const void *)p);
}

KFLUSH_INLINE void sfence(void)
{
	__asm__ __volatile__("sfence" : : : "memory");
}

/*
 * Between two vector NT stores, to keep them in program order. Intrinsic
 * stores are plain memory writes to the compiler, and gcc 12 scheduled
 * the avx2 block's sixteen 32-byte halves out of line order (the second
 * half of line 0 first, line 0's first half seventh), so lines stood
 * half written while others began. Intel family 6 model 0xcf, copy-bench
 * bulk, cold 1-256 MiB, three alternations, CPU time: 8.35-9.16 GB/s,
 * against 9.74-11.21 in order, the avx2 roof's loop (libkflush(7)).
 */
KFLUSH_INLINE void nt_in_order(void)
{
	__asm__ __volatile__("" : : : "memory");
}

/*
 * One store to a stack slot, for between stores and the write-backs of
 * their lines. On the Emerald Rapids host a clwb or clflushopt that
 * follows the stores to its line with no other store in between runs
 * 1.6-5x slower at 4..64 bytes (a loop over random destinations in 4 KiB
 * and 1 MiB, CPU time per call: clwb 4 B 36 -> 21 ns and 39 -> 12 ns,
 * clflushopt 4 B 110 -> 20 ns); the return address a call to
 * kflush_flush() pushes is such a store, which is all that made glibc
 * memcpy + kflush_flush() faster than the temporal call. An lfence there
 * does not help. Any store works (a local, a global, a push); this one is
 * to a slot the compiler set aside, in asm so it is not dropped.
 */
KFLUSH_INLINE void store_gap(void)
{
	unsigned char gap;

	__asm__ __volatile__("movb $0, %0" : "=m"(gap));
}

/*
 * Write back every line touching [p, p+n) with the bound flush variant.
 * At the end of a routine the call is a jump (no return address pushed),
 * so the gap is stored here.
 */
KFLUSH_INLINE void writeback_range(const void *p, size_t n)
{
	store_gap();
	KFLUSH_BOUND(KFLUSH_OP_FLUSH, kflush_flush_fn)(p, n);
}

/* Up to here the temporal calls copy inline and write back inline. */
#define TEMPORAL_SMALL_MAX 128

/*
 * kflush_memcpy_temporal(), kflush_memmove_temporal() and
 * kflush_memset_temporal() for the library's copies, moves and fills
 * whose every line goes through the cache (flushcache.h: split_edges()
 * leaves no non-temporal body; a flush-move's cached edges and short
 * moves, memmove_flushcache.h): the same resolvers under
 * hidden names, so the call is one jump through a slot filled at load and
 * a program's own kflush_memcpy_temporal cannot stand in for it. Up to 128
 * bytes they copy inline and write back inline with the instruction
 * kflush_flush() is bound to, where cached_copy_wb() calls memcpy() and
 * then the bound flush.
 */
void memcpy_temporal(void *dst, const void *src, size_t n) __attribute__((visibility("hidden")));
void memmove_temporal(void *dst, const void *src, size_t n) __attribute__((visibility("hidden")));
void memset_temporal(void *dst, int c, size_t n) __attribute__((visibility("hidden")));

#endif /* KFLUSH_X86_FLUSH_H */
