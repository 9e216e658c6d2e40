/* SPDX-License-Identifier: MIT */
/*
 * The flush-copy and flush-memset algorithms, shared by the per-ISA files:
 * the kernel's __memcpy_flushcache() as an inline core, and a driver that
 * streams whole 64-byte-aligned lines with a variant's own line store and
 * leaves the unaligned edges to the core.
 */
#ifndef KFLUSH_X86_FLUSHCACHE_H
#define KFLUSH_X86_FLUSHCACHE_H

#include "x86_64/flush.h"

/* Below this the edges dominate and 8-byte movnti is as fast as anything. */
#define FLUSHCACHE_BULK_MIN 256
#define LINE 64

/*
 * arch/x86/lib/usercopy_64.c __memcpy_flushcache(): cached head up to
 * 8-byte alignment and write it back, 32 bytes of movnti per pass, then 8,
 * then 4, then a cached 1..3-byte tail written back. Only the destination
 * is aligned; the source never is. Unlike the kernel, n == 0 with an
 * unaligned destination writes no line back.
 */
KFLUSH_INLINE void flushcache_core(char *d, const char *s, size_t n)
{
	if (!n)
		return;
	if ((uintptr_t)d & 7) {
		size_t len = 8 - ((uintptr_t)d & 7);

		if (len > n)
			len = n;
		cached_copy(d, s, len);
		writeback_range(d, len);
		d += len;
		s += len;
		n -= len;
		if (!n)
			return;
	}

	while (n >= 32) {
		uint64_t a = load8(s), b = load8(s + 8), c = load8(s + 16), e = load8(s + 24);

		nt_store8(d, a);
		nt_store8(d + 8, b);
		nt_store8(d + 16, c);
		nt_store8(d + 24, e);
		d += 32;
		s += 32;
		n -= 32;
	}
	while (n >= 8) {
		nt_store8(d, load8(s));
		d += 8;
		s += 8;
		n -= 8;
	}
	if (n >= 4) {
		nt_store4(d, load4(s));
		d += 4;
		s += 4;
		n -= 4;
	}
	if (n) {
		cached_copy(d, s, n);
		writeback_range(d, n);
	}
}

/* The same shape for memset; v is c repeated in all eight bytes. */
KFLUSH_INLINE void flushset_core(char *d, int c, uint64_t v, size_t n)
{
	if (!n)
		return;
	if ((uintptr_t)d & 7) {
		size_t len = 8 - ((uintptr_t)d & 7);

		if (len > n)
			len = n;
		cached_set(d, c, len);
		writeback_range(d, len);
		d += len;
		n -= len;
		if (!n)
			return;
	}
	for (; n >= 32; d += 32, n -= 32) {
		nt_store8(d, v);
		nt_store8(d + 8, v);
		nt_store8(d + 16, v);
		nt_store8(d + 24, v);
	}
	for (; n >= 8; d += 8, n -= 8)
		nt_store8(d, v);
	if (n >= 4) {
		nt_store4(d, (uint32_t)v);
		d += 4;
		n -= 4;
	}
	if (n) {
		cached_set(d, c, n);
		writeback_range(d, n);
	}
}

KFLUSH_INLINE uint64_t byte_pattern(int c)
{
	return 0x0101010101010101ULL * (uint8_t)c;
}

/*
 * Bulk driver: the core takes the destination up to a line boundary, then
 * @block stores @block_lines whole aligned lines per pass and @line single
 * lines, and the core finishes the tail. A block issues all its loads
 * before its first store: the compiler may not hoist a load above an NT
 * store through a char pointer, and with a cold source the loads in flight
 * are what sets the bandwidth. @block and @line must be inlinable: callers
 * pass static always_inline functions.
 */
KFLUSH_INLINE void flushcache_lines(char *d, const char *s, size_t n, size_t block_lines,
				    void (*block)(char *d, const char *s),
				    void (*line)(char *d, const char *s))
{
	size_t head = (size_t)(-(uintptr_t)d & (LINE - 1));

	if (n < FLUSHCACHE_BULK_MIN) {
		flushcache_core(d, s, n);
		return;
	}
	if (head) {
		flushcache_core(d, s, head);
		d += head;
		s += head;
		n -= head;
	}
	for (; n >= block_lines * LINE; d += block_lines * LINE, s += block_lines * LINE,
	     n -= block_lines * LINE)
		block(d, s);
	for (; n >= LINE; d += LINE, s += LINE, n -= LINE)
		line(d, s);
	flushcache_core(d, s, n);
}

/* The memset driver; @line stores one aligned line of the pattern in @p. */
KFLUSH_INLINE void flushset_lines(char *d, int c, size_t n, const void *p,
				  void (*line)(char *d, const void *p))
{
	size_t head = (size_t)(-(uintptr_t)d & (LINE - 1));
	uint64_t v = byte_pattern(c);

	if (n < FLUSHCACHE_BULK_MIN) {
		flushset_core(d, c, v, n);
		return;
	}
	if (head) {
		flushset_core(d, c, v, head);
		d += head;
		n -= head;
	}
	for (; n >= LINE; d += LINE, n -= LINE)
		line(d, p);
	flushset_core(d, c, v, n);
}

/* Per-ISA variants, each in a file built with its own -m flags. */
void memcpy_flushcache_avx2(void *dst, const void *src, size_t n);
void memcpy_flushcache_avx512(void *dst, const void *src, size_t n);
void memset_flushcache_avx2(void *dst, int c, size_t n);
void memset_flushcache_avx512(void *dst, int c, size_t n);

#endif /* KFLUSH_X86_FLUSHCACHE_H */
