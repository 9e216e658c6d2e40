// SPDX-License-Identifier: MIT
/*
 * memcpy_flushcache / memset_flushcache: the kernel's algorithm
 * (arch/x86/lib/usercopy_64.c, implementation ours), a MOVDIR64B
 * variant, and the registry entries for the per-ISA ones; and the movnti
 * flush-move, which shares the movnti line.
 */
#include "x86_64/memmove_flushcache.h"

void memcpy_flushcache_movnti(void *dst, const void *src, size_t n);
void memcpy_flushcache_movdir64b(void *dst, const void *src, size_t n);

void memcpy_flushcache_kernel(void *dst, const void *src, size_t n)
{
	flushcache_core(dst, src, n);
}

static inline __attribute__((always_inline)) void movnti_line(char *d, const char *s)
{
	uint64_t v[8];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < 8; i++)
		v[i] = load8(s + 8 * i);
	_Pragma("GCC unroll 64")
	for (int i = 0; i < 8; i++)
		nt_store8(d + 8 * i, v[i]);
}

/* The kernel's algorithm, but a whole line per pass once aligned. */
/* Eight GPR loads per line is all the registers allow: a block is lines. */
#define MOVNTI_BLOCK 4

static inline __attribute__((always_inline)) void movnti_block(char *d, const char *s)
{
	_Pragma("GCC unroll 64")
	for (int i = 0; i < MOVNTI_BLOCK; i++)
		movnti_line(d + i * LINE, s + i * LINE);
}

/* The movnti copy at any length, and every variant's below 256 bytes. */
void flushcache_short(char *d, const char *s, size_t n)
{
	flushcache_lines(d, s, n, FLUSHCACHE_NT_EDGES_MIN, MOVNTI_BLOCK, movnti_block, movnti_line);
}

FLUSHCACHE_ENTRY(memcpy_flushcache_movnti, flushcache_short, movnti_line, movnti_line, nt_copy_small)

/*
 * A block of movnti lines stores its first line before loading its
 * second, which a backward move must not do: the move's block is one line.
 */
__attribute__((noinline)) void movnti_move_lines(char *d, const char *s, size_t n)
{
	flushmove_lines(d, s, n, 0, 1, movnti_line, movnti_line);
}

/* The movnti move: one driver whatever the length. */
void memmove_flushcache_movnti(void *dst, const void *src, size_t n)
{
	flushmove_entry(dst, src, n, movnti_move_lines, movnti_move_lines);
}

FLUSHCACHE_VARIANT(memcpy_flushcache_movdir64b, MOVDIR64B_BLOCK, movdir64b_block, movdir64b_line, movdir64b_line,
		   nt_copy_small)

KFLUSH_IMPLS(kflush_memcpy_flushcache,
	KFLUSH_IMPL("avx512_movdir64b", KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX512BW | KFLUSH_CPU_MOVDIR64B,
		    KFLUSH_IMPL_RULE_ONLY,
		    memcpy_flushcache_avx512_movdir64b),
	KFLUSH_IMPL("avx512_x2", KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX512BW, KFLUSH_IMPL_RULE_ONLY,
		    memcpy_flushcache_avx512_x2),
	KFLUSH_IMPL("avx512_ymm_short_cached",
		    KFLUSH_CPU_AVX2 | KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX512BW,
		    KFLUSH_IMPL_RULE_ONLY, memcpy_flushcache_avx512_ymm_short_cached),
	KFLUSH_IMPL("avx512", KFLUSH_CPU_AVX512F, 0, memcpy_flushcache_avx512),
	KFLUSH_IMPL("avx2", KFLUSH_CPU_AVX2, 0, memcpy_flushcache_avx2),
	KFLUSH_IMPL("avx2_short_cached", KFLUSH_CPU_AVX2, KFLUSH_IMPL_RULE_ONLY,
		    memcpy_flushcache_avx2_short_cached),
	KFLUSH_IMPL("movdir64b", KFLUSH_CPU_MOVDIR64B, 0, memcpy_flushcache_movdir64b),
	KFLUSH_IMPL("movnti", KFLUSH_CPU_SSE2, 0, memcpy_flushcache_movnti),
	KFLUSH_IMPL("kernel", 0, 0, memcpy_flushcache_kernel),
);

KFLUSH_RESOLVER(KFLUSH_OP_MEMCPY_FLUSHCACHE, kflush_memcpy_flushcache_fn, kflush_memcpy_flushcache)

/**
 * kflush_memcpy_flushcache() - copy, leaving no destination line dirty
 * @dst: destination, any alignment
 * @src: source, any alignment; must not overlap @dst
 * @n: bytes to copy; 0 touches nothing
 *
 * The out-of-line half of memcpy_flushcache(). Each destination byte is
 * written by a non-temporal store, or by an ordinary store whose line is
 * then written back. Does not fence: kflush_drain() before relying on it.
 */
KFLUSH_API void kflush_memcpy_flushcache(void *dst, const void *src, size_t n)
	__attribute__((ifunc("kflush_memcpy_flushcache_resolve")));

void memset_flushcache_movnti(void *dst, int c, size_t n);

void memset_flushcache_kernel(void *dst, int c, size_t n)
{
	flushset_core(dst, c, byte_pattern(c), n);
}

static inline __attribute__((always_inline)) void movnti_set_line(char *d, const void *p)
{
	uint64_t v = load8(p);

	_Pragma("GCC unroll 64")
	for (int i = 0; i < 8; i++)
		nt_store8(d + 8 * i, v);
}

/* The movnti fill at any length, and every variant's short fill with an edge. */
void flushset_short(char *d, int c, size_t n)
{
	uint64_t v = byte_pattern(c);

	flushset_lines(d, c, n, FLUSHCACHE_NT_EDGES_MIN, &v, movnti_set_line);
}

FLUSHSET_ENTRY(memset_flushcache_movnti, flushset_short, nt_set_words)

KFLUSH_IMPLS(kflush_memset_flushcache,
	KFLUSH_IMPL("avx512", KFLUSH_CPU_AVX512F, 0, memset_flushcache_avx512),
	KFLUSH_IMPL("avx512_short_cached", KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX512BW,
		    KFLUSH_IMPL_RULE_ONLY,
		    memset_flushcache_avx512_short_cached),
	KFLUSH_IMPL("avx2", KFLUSH_CPU_AVX2, 0, memset_flushcache_avx2),
	KFLUSH_IMPL("avx2_short_cached", KFLUSH_CPU_AVX2, KFLUSH_IMPL_RULE_ONLY,
		    memset_flushcache_avx2_short_cached),
	KFLUSH_IMPL("movnti", KFLUSH_CPU_SSE2, 0, memset_flushcache_movnti),
	KFLUSH_IMPL("kernel", 0, 0, memset_flushcache_kernel),
);

KFLUSH_RESOLVER(KFLUSH_OP_MEMSET_FLUSHCACHE, kflush_memset_flushcache_fn, kflush_memset_flushcache)

/**
 * kflush_memset_flushcache() - fill, leaving no destination line dirty
 * @dst: destination, any alignment
 * @c: byte value
 * @n: bytes to fill; 0 touches nothing
 *
 * Same contract as kflush_memcpy_flushcache(). Does not fence.
 */
KFLUSH_API void kflush_memset_flushcache(void *dst, int c, size_t n)
	__attribute__((ifunc("kflush_memset_flushcache_resolve")));
