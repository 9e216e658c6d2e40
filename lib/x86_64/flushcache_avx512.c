// SPDX-License-Identifier: MIT
/*
 * AVX-512 flush-copy, flush-move and flush-memset: one 64-byte vmovntdq per
 * aligned line. A block loads all its lines before its first store, so the
 * same block serves a move in either direction.
 */
#include <immintrin.h>

#include "x86_64/memmove_flushcache.h"

static inline __attribute__((always_inline)) void avx512_line(char *d, const char *s)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(s));
}

/* 32 lines: all 32 zmm registers loaded before the first store, stored in order. */
#define AVX512_BLOCK 32

static inline __attribute__((always_inline)) void avx512_block(char *d, const char *s)
{
	__m512i v[AVX512_BLOCK];

	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++)
		v[i] = _mm512_loadu_si512(s + i * LINE);
	_Pragma("GCC unroll 64")
	for (int i = 0; i < AVX512_BLOCK; i++) {
		_mm512_stream_si512((void *)(d + i * LINE), v[i]);
		nt_in_order();
	}
}

FLUSHCACHE_VARIANT(memcpy_flushcache_avx512, AVX512_BLOCK, avx512_block, avx512_line,
		   vec_one_line, vec_copy_small)

/*
 * avx512 below MOVDIR64B_STREAM_MIN bytes, movdir64b lines from there,
 * bound only by a per-CPU rule. On the Intel Xeon that KVM presents as
 * family 6 model 0xa7, copy-bench cold sweep, two runs of 11 rounds,
 * movdir64b's time over avx512's: 0.86-0.92 from 384 KiB at fixed sizes,
 * 0.95-1.03 at random sizes and offsets; below, 0.86-0.99 fixed but
 * 1.04-1.13 random at 8-256 KiB. A direct timing shows why: back to
 * back, movdir64b streams 11.8-12.0 GB/s, the 32-line zmm block
 * 10.5-10.7; with a gap after each copy (what random offsets make),
 * where the prefetchers do not run ahead, movdir64b falls to 9.0-9.1
 * and the block, with 32 loads in flight, holds 9.9-10.7.
 */
#define MOVDIR64B_STREAM_MIN (512u << 10)

static __attribute__((noinline)) void avx512_movdir64b_lines(char *d, const char *s, size_t n)
{
	if (n >= MOVDIR64B_STREAM_MIN)
		flushcache_lines(d, s, n, FLUSHCACHE_NT_EDGES_MIN, MOVDIR64B_BLOCK, movdir64b_block,
				 movdir64b_line);
	else
		flushcache_lines(d, s, n, FLUSHCACHE_NT_EDGES_MIN, AVX512_BLOCK, avx512_block,
				 avx512_line);
}

FLUSHCACHE_ENTRY(memcpy_flushcache_avx512_movdir64b, avx512_movdir64b_lines, avx512_line,
		 vec_one_line, vec_copy_small)

FLUSHMOVE_VARIANT(memmove_flushcache_avx512, AVX512_BLOCK, avx512_block, avx512_line)

static inline __attribute__((always_inline)) void avx512_set_line(char *d, const void *p)
{
	_mm512_stream_si512((void *)d, _mm512_loadu_si512(p));
}

/*
 * The edge-free short fills as the avx2 fills store them (vec_set_words()):
 * the 8-byte words they had before ran cold aligned 48 and 64 B fills
 * 1.03-1.05x and 1.08-1.14x the time of avx2's 16-byte stores beside them,
 * 1.00 and 0.99-1.06x with these (Intel family 6 model 0xa7, copy-bench
 * set, three alternations of 11 rounds).
 *
 * avx512_short_cached is avx2_short_cached's rule with avx512's lines,
 * bound by a per-CPU rule: on Intel family 6 model 0xa7, copy-bench set,
 * two runs of 11 rounds, avx2_short_cached ran cold fills 1.08x (96 B and
 * under) and 1.20x (97 B-2 KiB; 2.0-2.3x at 512 B-1 KiB random) as fast
 * as avx512 by the class means, but its 32-byte lines took 1.00-1.03x
 * avx512's time from 2 KiB cold (libkflush(7), Per-CPU rules).
 */
FLUSHSET_VEC_VARIANTS(avx512, __m512i, _mm512_set1_epi8, avx512_set_line, vec_set_words)
