// SPDX-License-Identifier: MIT
/*
 * AVX-512 flush-copy, flush-move and flush-memset: one 64-byte vmovntdq per
 * aligned line. A block loads all its lines before its first store, so the
 * same block serves a move in either direction.
 */
#include <immintrin.h>

#include "x86_64/flushcache_avx2.h"
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
 * The short calls of the two rule-bound variants below (avx512_movdir64b,
 * avx512_short_cached) that go all through the cache, 1..64 bytes with a
 * sub-word edge (split_edges(): no whole line, so every line is cached):
 * one masked 64-byte store (AVX-512BW) instead of the temporal path's two
 * overlapping ones (three for 1..3 bytes), then the store gap and the
 * write-back. Into lines the core does not hold, every store of a call
 * waits in the store buffer for its line, and the fewer stores a call
 * leaves there, the more calls' lines are asked for at once: on Intel
 * family 6 model 0xa7, a direct timing of 16384 calls 128 B apart, sizes
 * +-25 % and offsets 0..63 at random, a fresh 2 MiB each round (the
 * bench's cold random layout), median of 21 rounds, each stack store
 * added to a call cost 0.5-0.7 ns; glibc's memset, one masked store below
 * 64 bytes, plus kflush_flush() ran fills of 4-48 B 1.02-1.13x as fast as
 * the temporal fill, and with this path the two tie (0.97-1.04). Copies
 * (a masked load, then the store): 1.01-1.12x glibc memcpy + kflush_flush
 * at 2-16 B, 0.98-0.99 at 32-48 B, where the temporal copy ran 0.92-1.00.
 * Into lines in L1 the masked store costs: a 4 KiB window, 14.4-15.1 ns
 * per fill against the temporal path's 13.1-13.6. These variants are
 * bound for cold destinations; kflush_memset_temporal() and
 * kflush_memcpy_temporal() keep their stores for hot ones.
 *
 * Only where the bytes the vector stores span (64 from the address, 128
 * for a fill of two lines) stay in its page, as glibc's AVX-512 memset
 * does: the masked-off bytes of a store or load that crosses into the
 * next page still need that page's translation, and a call that ends a
 * mapping must not depend on how the CPU suppresses a fault there.
 * Elsewhere, the temporal path. The vector is zmm16, which only EVEX code
 * can name: no vzeroupper is owed to the caller's SSE code (glibc's evex
 * and avx512 string functions use zmm16 and up for the same reason).
 */
/* Whether @len bytes from @p stay in @p's page. */
static inline __attribute__((always_inline)) int in_page(const void *p, size_t len)
{
	return ((uintptr_t)p & (KFLUSH_PAGE_SIZE - 1)) <= KFLUSH_PAGE_SIZE - len;
}

/* The mask of the first @n bytes of a line, 1 <= n <= 64. */
static inline __attribute__((always_inline)) uint64_t first_bytes(size_t n)
{
	return ~0ULL >> (LINE - n);
}

/* The masked copy where it may run: whether it did. */
static inline __attribute__((always_inline)) int short_copy_masked(void *dst, const void *src,
								  size_t n)
{
	if (n - 1 >= LINE || !in_page(dst, LINE) || !in_page(src, LINE))
		return 0;
	__asm__ __volatile__("kmovq %[m], %%k1\n\t"
			     "vmovdqu8 (%[s]), %%zmm16%{%%k1%}%{z%}\n\t"
			     "vmovdqu8 %%zmm16, (%[d])%{%%k1%}"
			     : : [d] "r"(dst), [s] "r"(src), [m] "r"(first_bytes(n))
			     : "k1", "xmm16", "memory");
	writeback_range(dst, n);
	return 1;
}

/* Out of line: inlined, it cost the entry's other short paths a frame. */
static __attribute__((noinline)) void avx512_short_copy_masked(void *dst, const void *src, size_t n)
{
	if (!short_copy_masked(dst, src, n))
		flushcache_short(dst, src, n);
}

/*
 * avx512_x2's: every short copy with a sub-word edge goes through the
 * cache, not only those of 1..64 bytes, the others as the temporal copy
 * (as avx2_short_cached's do below FLUSHCACHE_BULK_MIN, not its longer
 * ones). On the Intel Xeon family 6 model 0xcf (Emerald Rapids),
 * copy-bench sweep, random sizes (+-25 %) and offsets, three runs of 21
 * rounds, CPU time, avx2_short_cached over avx512_x2 beside it, which
 * stored cached edge lines and NT words there: hot 1.29-1.48x in the 128
 * and 192 B cells and 1.12-1.26x at 256 B, cold 1.15-1.33x; in the 384-768
 * B cells, where its all-cached calls go on to 768 bytes, 0.79-1.05x cold
 * and 0.89-1.01x hot, so the longer calls keep the lines. Three
 * alternations with the build before (11 rounds, CPU time), avx512_x2's
 * time over avx2's beside it: 128 B random 1.03-1.06 hot before, 0.69-0.82
 * after; 192 B cold 0.99-1.03 before, 0.75-0.83 after (libkflush(7),
 * Per-CPU rules).
 */
static __attribute__((noinline)) void avx512_x2_short_copy(void *dst, const void *src, size_t n)
{
	if (!short_copy_masked(dst, src, n))
		memcpy_temporal(dst, src, n);
}

/*
 * A fill goes the same way up to two lines (avx512_short_cached sends every
 * fill below FLUSHCACHE_BULK_MIN with a sub-word edge through the cache):
 * 65..128 bytes as one whole 64-byte store and one masked, where the
 * temporal fill makes eight 16-byte stores. The same timing, fills of
 * 80 and 96 B +-25 %, three runs: over glibc memset + kflush_flush (two
 * 64-byte stores) 0.99-1.04 and 0.97-1.02 this way, 0.94-1.00 and
 * 0.90-0.95 with the temporal fill above 64 bytes.
 */
static __attribute__((noinline)) void avx512_short_set_masked(void *dst, int c, size_t n)
{
	if (n - 1 < LINE && in_page(dst, LINE)) {
		__asm__ __volatile__("vpbroadcastb %k[c], %%zmm16\n\t"
				     "kmovq %[m], %%k1\n\t"
				     "vmovdqu8 %%zmm16, (%[d])%{%%k1%}"
				     : : [d] "r"(dst), [c] "r"(c), [m] "r"(first_bytes(n))
				     : "k1", "xmm16", "memory");
	} else if (n - 1 < 2 * LINE && in_page(dst, 2 * LINE)) {
		__asm__ __volatile__("vpbroadcastb %k[c], %%zmm16\n\t"
				     "kmovq %[m], %%k1\n\t"
				     "vmovdqu64 %%zmm16, (%[d])\n\t"
				     "vmovdqu8 %%zmm16, 64(%[d])%{%%k1%}"
				     : : [d] "r"(dst), [c] "r"(c), [m] "r"(first_bytes(n - LINE))
				     : "k1", "xmm16", "memory");
	} else {
		memset_temporal(dst, c, n);
		return;
	}
	writeback_range(dst, n);
}

/*
 * From TWO_STREAMS_MIN, the NT edges, and between them the whole lines of
 * the copy's two halves in turn (the second half a line longer when their
 * number is odd): @pass stores @batch lines of the first half, then as
 * many of the second (@h bytes on); the lines left over one of each half
 * in turn, with @line. Each store a whole line, so no line is left half
 * written (test_flushcache_order.c).
 */
static inline __attribute__((always_inline)) void
two_streams(char *d, const char *s, size_t n, size_t batch,
	    void (*pass)(char *d, const char *s, size_t h), void (*line)(char *d, const char *s))
{
	char *last = d + n - 8;
	const char *slast = s + n - 8;
	size_t lines, half, i = 0;

	nt_edge_head(&d, &s, &n);
	n = nt_words_to_line(&d, &s, n);
	lines = n / LINE;
	half = lines / 2;
	for (; i + batch <= half; i += batch)
		pass(d + i * LINE, s + i * LINE, half * LINE);
	for (; i < half; i++) {
		line(d + i * LINE, s + i * LINE);
		line(d + (half + i) * LINE, s + (half + i) * LINE);
	}
	if (lines & 1)
		line(d + (lines - 1) * LINE, s + (lines - 1) * LINE);
	d += lines * LINE;
	s += lines * LINE;
	nt_edge_tail(d, s, n - lines * LINE, last, slast);
}

/* movdir64b loads nothing into registers: one line of each half in turn. */
static inline __attribute__((always_inline)) void movdir64b_pair(char *d, const char *s, size_t h)
{
	movdir64b_line(d, s);
	movdir64b_line(d + h, s + h);
}

/*
 * 16 lines of each half, all 32 zmm loaded before the first store (the
 * avx512 block's loads, from two places), stored one half's lines after
 * the other's, in order.
 */
#define AVX512_X2_BATCH 16

static inline __attribute__((always_inline)) void avx512_x2_pass(char *d, const char *s, size_t h)
{
	__m512i v[2 * AVX512_X2_BATCH];

	_Pragma("GCC unroll 16")
	for (int i = 0; i < AVX512_X2_BATCH; i++) {
		v[i] = _mm512_loadu_si512(s + i * LINE);
		v[AVX512_X2_BATCH + i] = _mm512_loadu_si512(s + h + i * LINE);
	}
	_Pragma("GCC unroll 32")
	for (int i = 0; i < 2 * AVX512_X2_BATCH; i++) {
		_mm512_stream_si512((void *)(d + (i < AVX512_X2_BATCH ? 0 : h) +
					     (i % AVX512_X2_BATCH) * LINE), v[i]);
		nt_in_order();
	}
}

/*
 * The two rule-bound variants below store the lines of copies from
 * TWO_STREAMS_MIN in two streams: avx512_movdir64b with movdir64b,
 * avx512_x2 with the avx512 block's loads and zmm stores. Below, both are
 * avx512 with avx2's lines under YMM_LINES_BELOW, and their short calls
 * are the same (avx512_short_copy_masked()).
 *
 * avx512_movdir64b: on the Intel Xeon that KVM
 * presents as family 6 model 0xa7, one stream of movdir64b lines ran
 * 0.86-0.92 of the avx512 block's time from 384 KiB at fixed sizes but
 * 0.95-1.03 at random ones (with a gap after each copy the prefetchers do
 * not run ahead, and movdir64b fell to 9.0-9.1 GB/s where the block, 32
 * loads in flight, held 9.9-10.7), and it ran 9.2-10.1 GB/s on some
 * memory where the block held 10.3-11.0 (pmemtest(1), ROOFS). Two
 * streams, a line of each half in turn, ran 11.4-13.5 GB/s on all of it,
 * 64 MiB in calls of 256 KiB-64 MiB. In copy-bench, roofs of one and two
 * streams side by side, cold: from 8 KiB the best two-stream roof
 * 1.07-1.23x PMDK, where this variant (the avx512 block there) ran
 * 0.97-1.07x, at fixed and random sizes; at 4 KiB two streams 1.05-1.21x
 * against one stream's 1.16-1.25x; hot, two streams 0.93-1.02 of one,
 * most 0.97-1.00 (three runs of 7-9 rounds); bulk 1-256 MiB, the bound
 * 1.12-1.18x PMDK where one stream had run 0.88-1.16x.
 *
 * avx512_x2: on the Intel Xeon family 6 model 0xcf (Emerald Rapids, a
 * guest with movdir64b), the roofs from 8 KiB, cold, over the bound
 * avx512 in the same runs (geometric means, three sweep runs of 11
 * rounds, CPU time, and a default run): the avx512 two-stream roof
 * 1.06-1.10x, the movdir64b one 0.86-1.09x, bulk 1-256 MiB 1.09x and
 * 0.99x; hot, every roof 1.00-1.03x the bound avx512.
 */
#define TWO_STREAMS_MIN (8u << 10)

/*
 * Below this many bytes its lines are avx2's, two 32-byte vmovntdq each,
 * from here avx512's one 64-byte store. On the Intel Xeon family 6 model
 * 0xa7 (KVM), two default copy-bench runs, cold, whole aligned lines
 * (fixed and packed layouts): the avx2 variant ran 1.03-1.24x this
 * variant's speed at 128-512 B in 19 of 20 cells (0.99 in the other),
 * 0.94-1.06x at 768 B-1.5 KiB; the 16- and 32-byte roofs beat the
 * 64-byte one at 128-256 B (10.7-13.7 GB/s against 9.6-10.2); hot, the
 * two within 1 %. With these lines, two
 * alternations with the build before (sweep, 11 rounds): this variant
 * over avx2 cold at 128-512 B fixed and packed 0.81-1.02 before,
 * 0.89-1.09 after; the class 97 B-2 KiB cold 1.04x behind its fastest
 * variant before (NOT met), 1.01x after; hot 1.00-1.01x both. The one
 * 64-byte line (vec_one_line()) is 16-byte stores in every vector variant.
 */
#define YMM_LINES_BELOW 768

/*
 * avx512_x2's ymm lines go on to 2 KiB. On the Intel Xeon family 6 model
 * 0xcf, copy-bench sweep, two runs of 15 rounds, CPU time, the avx2
 * variant's speed over avx512_x2's (its zmm lines from 768 B): random
 * sizes (+-25 %) and offsets, hot 1.09-1.18x in the 768 B-2 KiB cells and
 * 1.05-1.07x at 3-6 KiB, cold 1.01-1.15x at 768 B-2 KiB but 0.93-1.01x at
 * 3-6 KiB; fixed sizes, aligned, 0.98-1.04x cold and 0.99-1.01x hot to 2
 * KiB, 0.90-1.05x cold at 3-6 KiB; from 8 KiB the two streams 1.06-1.22x
 * avx2's speed cold. Cold, which a flush-copy is for, sets the bound. Three
 * alternations of the build (11 rounds each), avx512_x2's time over its
 * fastest other variant by the class means at 97 B-2 KiB: with the lines
 * from 768 B (and the short copies before avx512_x2_short_copy()) 1.02-1.08
 * hot and 1.01-1.04 cold; from 2 KiB 0.98-0.99 and 0.98-0.99; from 3 KiB
 * 0.99-1.03 and 0.97-0.99 (libkflush(7), Per-CPU rules).
 */
#define X2_YMM_LINES_BELOW 2048

static inline __attribute__((always_inline)) void
avx512_stream_lines(char *d, const char *s, size_t n, int movdir64b, size_t ymm_below)
{
	_Static_assert(TWO_STREAMS_MIN >= FLUSHCACHE_NT_EDGES_MIN, "NT edges from there");
	_Static_assert(TWO_STREAMS_MIN >= X2_YMM_LINES_BELOW, "ymm lines in one stream");
	if (n >= TWO_STREAMS_MIN && movdir64b)
		two_streams(d, s, n, 1, movdir64b_pair, movdir64b_line);
	else if (n >= TWO_STREAMS_MIN)
		two_streams(d, s, n, AVX512_X2_BATCH, avx512_x2_pass, avx512_line);
	else if (n < ymm_below)
		flushcache_lines(d, s, n, FLUSHCACHE_NT_EDGES_MIN, AVX2_BLOCK, avx2_block,
				 avx2_line);
	else
		flushcache_lines(d, s, n, FLUSHCACHE_NT_EDGES_MIN, AVX512_BLOCK, avx512_block,
				 avx512_line);
}

static __attribute__((noinline)) void avx512_movdir64b_lines(char *d, const char *s, size_t n)
{
	avx512_stream_lines(d, s, n, 1, YMM_LINES_BELOW);
}

static __attribute__((noinline)) void avx512_x2_lines(char *d, const char *s, size_t n)
{
	avx512_stream_lines(d, s, n, 0, X2_YMM_LINES_BELOW);
}

/*
 * avx512_ymm_short_cached: avx2_short_cached (flushcache_entry.h) with
 * avx512_x2's short copies (masked below a line) and, from
 * TWO_STREAMS_MIN, avx2's lines in two streams, YMM_X2_BATCH lines of each
 * half at a time (the roof's avx2_x2, the 16 ymm registers). For CPUs that
 * carry out a 64-byte store as two 32-byte halves (AMD Zen 4), where no
 * variant without all three kept up everywhere: libkflush(7), Per-CPU
 * rules, has the numbers.
 */
#define YMM_X2_BATCH 4

static inline __attribute__((always_inline)) void ymm_x2_pass(char *d, const char *s, size_t h)
{
	__m256i v[4 * YMM_X2_BATCH];

	_Pragma("GCC unroll 16")
	for (int i = 0; i < 2 * YMM_X2_BATCH; i++) {
		v[i] = _mm256_loadu_si256((const __m256i *)(s + 32 * i));
		v[2 * YMM_X2_BATCH + i] = _mm256_loadu_si256((const __m256i *)(s + h + 32 * i));
	}
	_Pragma("GCC unroll 32")
	for (int i = 0; i < 4 * YMM_X2_BATCH; i++) {
		_mm256_stream_si256((__m256i *)(d + (i < 2 * YMM_X2_BATCH ? 0 : h) +
						32 * (i % (2 * YMM_X2_BATCH))), v[i]);
		nt_in_order();
	}
}

static __attribute__((noinline)) void avx512_ymm_short_cached_lines(char *d, const char *s,
								     size_t n)
{
	_Static_assert(TWO_STREAMS_MIN >= SHORT_CACHED_BELOW, "NT edges from there");
	if (n >= TWO_STREAMS_MIN)
		two_streams(d, s, n, YMM_X2_BATCH, ymm_x2_pass, avx2_line);
	else
		flushcache_lines(d, s, n, nt_edges_from(SHORT_CACHED_BELOW), AVX2_BLOCK,
				 avx2_block, avx2_line);
}

/* Their short calls' lines (below FLUSHCACHE_BULK_MIN) are avx2's too. */
FLUSHCACHE_ENTRY_AT(memcpy_flushcache_avx512_movdir64b, 0, avx512_movdir64b_lines, avx2_line,
		    vec_one_line, vec_copy_small, avx512_short_copy_masked)
FLUSHCACHE_ENTRY_AT(memcpy_flushcache_avx512_x2, 0, avx512_x2_lines, avx2_line,
		    vec_one_line, vec_copy_small, avx512_x2_short_copy)
FLUSHCACHE_ENTRY_AT(memcpy_flushcache_avx512_ymm_short_cached, SHORT_CACHED_BELOW,
		    avx512_ymm_short_cached_lines, avx2_line, vec_one_line, vec_copy_small_pieces,
		    avx512_x2_short_copy)

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
FLUSHSET_VEC_VARIANTS(avx512, __m512i, _mm512_set1_epi8, avx512_set_line, vec_set_words,
		      avx512_short_set_masked)
