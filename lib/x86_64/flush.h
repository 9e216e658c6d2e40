/* SPDX-License-Identifier: MIT */
/*
 * Private store, write-back and fence helpers (PMDK's flush.h, the kernel's
 * movnti/clwb wrappers). Every store a flush-copy or flush-memset makes to
 * its destination goes through one of these, so a recording build
 * (-DKFLUSH_RECORD, tests only) can see, per cache line, which bytes were
 * written non-temporally, which through the cache, and which lines were
 * written back: the proof that no variant leaves a dirty line behind.
 */
#ifndef KFLUSH_X86_FLUSH_H
#define KFLUSH_X86_FLUSH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

enum kflush_rec_kind {
	KFLUSH_REC_NT,		/* non-temporal store of [addr, addr+len) */
	KFLUSH_REC_CACHED,	/* ordinary store of [addr, addr+len) */
	KFLUSH_REC_WRITEBACK,	/* the line holding addr was written back */
	KFLUSH_REC_FENCE,	/* sfence */
};

#ifdef KFLUSH_RECORD
/* Provided by the test program that links the recording build. */
void kflush_rec(int kind, const void *addr, size_t len);
#define REC(kind, addr, len) kflush_rec((kind), (addr), (len))
#else
#define REC(kind, addr, len) do { } while (0)
#endif

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
	REC(KFLUSH_REC_NT, dst, 8);
}

KFLUSH_INLINE void nt_store4(void *dst, uint32_t v)
{
	__asm__ __volatile__("movntil %1, %0" : "=m"(*(uint32_t *)dst) : "r"(v) : "memory");
	REC(KFLUSH_REC_NT, dst, 4);
}

/* Ordinary (cached) stores: the caller must write the lines back. */
KFLUSH_INLINE void cached_copy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	REC(KFLUSH_REC_CACHED, dst, n);
}

KFLUSH_INLINE void cached_set(void *dst, int c, size_t n)
{
	memset(dst, c, n);
	REC(KFLUSH_REC_CACHED, dst, n);
}

/* The line holding p, for the write-back instructions' memory operand. */
#define LINE_OPERAND(p) (*(const volatile char *)(p))

KFLUSH_INLINE void wb_clwb(const void *p)
{
	__asm__ __volatile__("clwb %0" : : "m"(LINE_OPERAND(p)) : "memory");
	REC(KFLUSH_REC_WRITEBACK, p, 1);
}

KFLUSH_INLINE void wb_clflushopt(const void *p)
{
	__asm__ __volatile__("clflushopt %0" : : "m"(LINE_OPERAND(p)) : "memory");
	REC(KFLUSH_REC_WRITEBACK, p, 1);
}

KFLUSH_INLINE void wb_clflush(const void *p)
{
	__asm__ __volatile__("clflush %0" : : "m"(LINE_OPERAND(p)) : "memory");
	REC(KFLUSH_REC_WRITEBACK, p, 1);
}

KFLUSH_INLINE void sfence(void)
{
	__asm__ __volatile__("sfence" : : : "memory");
	REC(KFLUSH_REC_FENCE, NULL, 0);
}

/* Write back every line touching [p, p+n) with the bound flush variant. */
KFLUSH_INLINE void writeback_range(const void *p, size_t n)
{
	KFLUSH_BOUND(KFLUSH_OP_FLUSH, kflush_flush_fn)(p, n);
}

#endif /* KFLUSH_X86_FLUSH_H */
