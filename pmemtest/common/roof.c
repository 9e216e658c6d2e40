// SPDX-License-Identifier: MIT
/*
 * The machine's roofs: every store strategy x86-64 offers for the
 * contenders' bytes. The benches time each one this CPU runs beside the
 * contenders and take the best median as the roof: a roof that one width
 * of store stands for is beaten on CPUs where another width is faster (Zen
 * 5 streams avx2 1.35x faster than avx512, issue 10).
 */
#include <stdlib.h>
#include <string.h>

#include <emmintrin.h>

#include "kflush.h"

#include "cli.h"
#include "roof.h"
#include "roof_isa.h"

/*
 * 8 B movnti: a line's 8 loads into general registers, then its 8 stores,
 * 4 lines a pass, as lib/'s movnti variant (a first version with a
 * memcpy() into an array and a rolled asm loop streamed at half its speed).
 */
static inline __attribute__((always_inline)) void movnti_line(char *d, const char *s)
{
	long long v[8];

	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		memcpy(&v[i], s + 8 * i, 8);
	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		_mm_stream_si64((long long *)(void *)(d + 8 * i), v[i]);
}

/*
 * Every copy strategy takes a single line first, as lib/'s variants do
 * (FLUSHCACHE_VARIANT): through the batch loop's test and the tail loop a
 * 64-byte copy ran 1.1-1.4x slower than a contender's one-line path (AMD
 * EPYC family 0x19 model 0x01, sweep 64 B hot and cold), and a roof the
 * contenders beat is no roof. Then four lines a pass and the rest one at
 * a time, for the strategies whose @line holds a whole line (its loads,
 * then its stores, or movdir64b memory to memory).
 */
static inline __attribute__((always_inline)) void
copy_by_lines(char *d, const char *s, size_t len, void (*line)(char *d, const char *s))
{
	if (len == 64) {
		line(d, s);
		return;
	}
	for (; len >= 4 * 64; d += 4 * 64, s += 4 * 64, len -= 4 * 64) {
		line(d, s);
		line(d + 64, s + 64);
		line(d + 128, s + 128);
		line(d + 192, s + 192);
	}
	for (; len >= 64; d += 64, s += 64, len -= 64)
		line(d, s);
}

static void movnti_copy(void *dst, const void *src, size_t len)
{
	copy_by_lines(dst, src, len, movnti_line);
}

/*
 * The pattern's words loaded one by one, as movnti_line() does: one
 * memcpy() of the whole pattern went through the stack (four 16-byte
 * stores, eight 8-byte loads back): the hot 64-byte fill ran 5.3 ns,
 * 4.2 after (lib/'s movnti fill 3.3-4.7 beside it; AMD EPYC family 0x17
 * model 0x31, set, hot fixed 64 B).
 */
static void movnti_fill(void *dst, size_t len, const void *pattern)
{
	long long v[8];
	char *d = dst;

	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		memcpy(&v[i], (const char *)pattern + 8 * i, 8);
	if (len == 64) {	/* a lone line first (sse2_fill()) */
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			_mm_stream_si64((long long *)(void *)(d + 8 * i), v[i]);
		return;
	}
	for (size_t off = 0; off + 64 <= len; off += 64) {
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			_mm_stream_si64((long long *)(void *)(d + off + 8 * i), v[i]);
	}
}

/* 16 B movntdq, baseline on x86-64: 16 xmm registers hold 4 lines of loads. */
#define LD(i) __m128i x##i = _mm_loadu_si128((const void *)(s + 16 * (i)));
#define ST(i) _mm_stream_si128((void *)(d + 16 * (i)), x##i); \
	__asm__ __volatile__("" : : : "memory");
#define X8(M, a, b, c, e, f, g, h, k) M(a) M(b) M(c) M(e) M(f) M(g) M(h) M(k)

/*
 * A lone line as libkflush's vector variants store one (kflush.h,
 * kflush_movntdq_n(): 8-byte loads paired into four movntdq). With four
 * 16-byte loads instead, every flush-copy variant ran 1.04-1.19x this
 * roof, and every other strategy, at 64 B cold in copy-bench's packed
 * layout, four runs, where the fixed layout (the same calls) showed none
 * (Intel family 6 model 0xa7); with these, 0 roof errors there in three
 * runs of sweep and set, packed and fixed up to 4 KiB.
 */
static void sse2_copy(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (len == 64) {
		kflush_movntdq_n(d, s, 64);
		return;
	}
	for (; len >= 4 * 64; d += 4 * 64, s += 4 * 64, len -= 4 * 64) {
		X8(LD, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(LD, 8, 9, 10, 11, 12, 13, 14, 15)
		X8(ST, 0, 1, 2, 3, 4, 5, 6, 7)
		X8(ST, 8, 9, 10, 11, 12, 13, 14, 15)
	}
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		LD(0) LD(1) LD(2) LD(3)
		ST(0) ST(1) ST(2) ST(3)
	}
}

/*
 * Every fill strategy takes a lone line as straight stores first, as the
 * copies do (copy_by_lines()): lib/'s avx2 fill stores an aligned 64-byte
 * fill that way, and its 3.2-3.4 ns cold beat this loop's same four
 * stores (2.9-3.7) by 4 % in one of two default set runs (AMD EPYC family
 * 0x17 model 0x31). With the lone line, three runs of 41 rounds at 64 B:
 * that fill 0.93-1.02x the roof.
 */
#define SSE2_FILL_LINE(d)							\
	do {									\
		_mm_stream_si128((void *)(d), a);				\
		_mm_stream_si128((void *)((d) + 16), b);			\
		_mm_stream_si128((void *)((d) + 32), c);			\
		_mm_stream_si128((void *)((d) + 48), e);			\
	} while (0)

static void sse2_fill(void *dst, size_t len, const void *pattern)
{
	const char *p = pattern;
	__m128i a = _mm_loadu_si128((const void *)p), b = _mm_loadu_si128((const void *)(p + 16));
	__m128i c = _mm_loadu_si128((const void *)(p + 32)), e = _mm_loadu_si128((const void *)(p + 48));
	char *d = dst;

	if (len == 64) {
		SSE2_FILL_LINE(d);
		return;
	}
	for (size_t off = 0; off + 64 <= len; off += 64)
		SSE2_FILL_LINE(d + off);
}
#undef SSE2_FILL_LINE

/*
 * MOVDIR64B: one 64-byte direct store per line from memory (no register
 * holds the line), weakly ordered like NT stores. Sapphire Rapids has it.
 */
static inline __attribute__((always_inline)) void movdir64b(char *d, const char *s)
{
	__asm__ __volatile__("movdir64b (%1), %0" : : "r"(d), "r"(s) : "memory");
}

/*
 * Four lines a pass, as lib/'s movdir64b variant: the rolled loop ran
 * cold copies of 1 MiB and more 0.96-0.97x that variant's speed (Intel
 * family 6 model 0xa7, copy-bench bulk), a roof error in every run.
 */
static void movdir64b_copy(void *dst, const void *src, size_t len)
{
	copy_by_lines(dst, src, len, movdir64b);
}

/*
 * Two streams: the lines of the copy's two halves, one of each in turn
 * (the second half's last alone when their number is odd), as lib/'s
 * avx512_movdir64b copies from 8 KiB. On Intel family 6 model 0xa7
 * (KVM), 64 MiB NT copies in 256 KiB-64 MiB calls over each 64 MiB of 1
 * GiB buffers: movdir64b in one stream 9.2-12.7 GB/s by span, in two
 * 11.4-13.5, the avx512 copy 10.4-11.1 in one and 11.3-12.2 in two; the
 * fill, which loads nothing, 25.5-27.1 GB/s in one stream or two. In
 * copy-bench cold, the best of two streams 1.02-1.16x the best of one from
 * 8 KiB, at 4 KiB 0.90-0.98x. So two streams are roofs of their own for
 * copies of ROOF_TWO_STREAMS_MIN bytes and more, for each store that fills
 * a line in one or two instructions.
 */
#define ROOF_TWO_STREAMS_MIN (8u << 10)

/* A line of each half: movdir64b has no registers to batch in. */
static inline __attribute__((always_inline)) void movdir64b_x2_pass(char *d, const char *s,
								    size_t h)
{
	movdir64b(d, s);
	movdir64b(d + h, s + h);
}

static void movdir64b_x2_copy(void *dst, const void *src, size_t len)
{
	roof_two_streams(dst, src, len, 1, movdir64b_x2_pass, movdir64b);
}

static void movdir64b_fill(void *dst, size_t len, const void *pattern)
{
	char *d = dst;

	if (len == 64) {	/* a lone line first (sse2_fill()) */
		movdir64b(d, (const char *)pattern);
		return;
	}
	for (size_t off = 0; off + 64 <= len; off += 64)
		movdir64b(d + off, (const char *)pattern);
}

/*
 * Cached stores, each line written back as soon as it is whole: what a
 * temporal flush-copy does (PMDK's PMEM_F_MEM_TEMPORAL). Into hot lines it
 * beats every NT store (issue 10: glibc memcpy + flush 1.6x the NT copy at
 * 16 B hot), so a roof without it is beaten by kflush_memcpy_temporal and
 * by glibc + kflush_flush there. Two entries per write-back instruction:
 * this one, and with AVX2 512-byte steps (roof_avx2.c); roof_strategies()
 * keeps only the best instruction the CPU has.
 */
#define WB_STRATEGY(insn)							\
static void cached_##insn##_copy(void *dst, const void *src, size_t len)	\
{										\
	char *d = dst;								\
	const char *s = src;							\
										\
	for (size_t off = 0; off + 64 <= len; off += 64) {			\
		memcpy(d + off, s + off, 64);					\
		ROOF_WRITE_BACK(insn, d + off, 64);				\
	}									\
}										\
										\
static void cached_##insn##_fill(void *dst, size_t len, const void *pattern) \
{										\
	char *d = dst;								\
										\
	for (size_t off = 0; off + 64 <= len; off += 64) {			\
		memcpy(d + off, pattern, 64);					\
		ROOF_WRITE_BACK(insn, d + off, 64);				\
	}									\
}

WB_STRATEGY(clwb)
WB_STRATEGY(clflushopt)
WB_STRATEGY(clflush)

/* rep stosb: the string store, cached, what clear_page_erms does. */
static void rep_stosb_zero(void *dst, size_t len)
{
	void *d = dst;
	size_t n = len;

	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

/* rep stosq: the kernel's clear_page_rep; faster than stosb for some sizes on some CPUs. */
static void rep_stosq_zero(void *dst, size_t len)
{
	void *d = dst;
	size_t n = len / 8;

	__asm__ __volatile__("rep stosq" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

/*
 * The same string stores a page at a time, as a loop of clear_page()
 * calls makes them. One long rep stos is not always the faster: AMD EPYC
 * family 0x17 model 0x31 (Zen 2, no erms), clear-bench hot 2 MiB, three
 * runs: clear_page's rep stosq a page per call and glibc's memset (an
 * AVX2 store loop there) ran 1.06-1.08x one rep stosb or stosq over the
 * extent in two of them, a roof error each.
 */
#define ROOF_PAGE 4096

static inline void by_page(void (*zero)(void *dst, size_t len), char *dst, size_t len)
{
	for (size_t off = 0; off < len; off += ROOF_PAGE)
		zero(dst + off, len - off < ROOF_PAGE ? len - off : ROOF_PAGE);
}

static void rep_stosb_page_zero(void *dst, size_t len)
{
	by_page(rep_stosb_zero, dst, len);
}

static void rep_stosq_page_zero(void *dst, size_t len)
{
	by_page(rep_stosq_zero, dst, len);
}

/* CLZERO (AMD): zero a whole line without reading it; weakly ordered. */
static void clzero_zero(void *dst, size_t len)
{
	char *d = dst;

	for (size_t off = 0; off + 64 <= len; off += 64)
		__asm__ __volatile__("clzero" : : "a"(d + off) : "memory");
}

static const struct roof_strategy table[] = {
	{ "movnti", KFLUSH_CPU_SSE2, true, movnti_copy, movnti_fill, NULL, false, 0 },
	{ "sse2", KFLUSH_CPU_SSE2, true, sse2_copy, sse2_fill, NULL, false, 0 },
	{ "avx2", KFLUSH_CPU_AVX2, true, roof_avx2_copy, roof_avx2_fill, NULL, false, 0 },
	{ "avx512", KFLUSH_CPU_AVX512F, true, roof_avx512_copy, roof_avx512_fill, NULL, false, 0 },
	{ "movdir64b", KFLUSH_CPU_MOVDIR64B, true, movdir64b_copy, movdir64b_fill, NULL, false, 0 },
	{ "avx2_x2", KFLUSH_CPU_AVX2, true, roof_avx2_x2_copy, NULL, NULL, false,
	  ROOF_TWO_STREAMS_MIN },
	{ "avx512_x2", KFLUSH_CPU_AVX512F, true, roof_avx512_x2_copy, NULL, NULL, false,
	  ROOF_TWO_STREAMS_MIN },
	{ "movdir64b_x2", KFLUSH_CPU_MOVDIR64B, true, movdir64b_x2_copy, NULL, NULL, false,
	  ROOF_TWO_STREAMS_MIN },
	{ "cached_clwb", KFLUSH_CPU_CLWB, true, cached_clwb_copy, cached_clwb_fill, NULL, true, 0 },
	{ "cached_clwb_512", KFLUSH_CPU_CLWB | KFLUSH_CPU_AVX2, true, roof_avx2_cached_clwb_copy,
	  roof_avx2_cached_clwb_fill, NULL, true, 0 },
	{ "cached_clflushopt", KFLUSH_CPU_CLFLUSHOPT, true, cached_clflushopt_copy,
	  cached_clflushopt_fill, NULL, true, 0 },
	{ "cached_clflushopt_512", KFLUSH_CPU_CLFLUSHOPT | KFLUSH_CPU_AVX2, true,
	  roof_avx2_cached_clflushopt_copy, roof_avx2_cached_clflushopt_fill, NULL, true, 0 },
	{ "cached_clflush", KFLUSH_CPU_CLFLUSH, true, cached_clflush_copy, cached_clflush_fill,
	  NULL, true, 0 },
	{ "cached_clflush_512", KFLUSH_CPU_CLFLUSH | KFLUSH_CPU_AVX2, true,
	  roof_avx2_cached_clflush_copy, roof_avx2_cached_clflush_fill, NULL, true, 0 },
	{ "rep_stosb", 0, false, NULL, NULL, rep_stosb_zero, false, 0 },
	{ "rep_stosq", 0, false, NULL, NULL, rep_stosq_zero, false, 0 },
	{ "rep_stosb_page", 0, false, NULL, NULL, rep_stosb_page_zero, false, 0 },
	{ "rep_stosq_page", 0, false, NULL, NULL, rep_stosq_page_zero, false, 0 },
	{ "clzero", KFLUSH_CPU_CLZERO, true, NULL, NULL, clzero_zero, false, 0 },
};

/*
 * A roof that stores the wrong bytes, or fewer of them, is fast for nothing:
 * each strategy's bytes are held to memcmp() against its source, pattern
 * or zeros, with guard lines on both sides, once per process and use,
 * before any of its samples. The lengths cover the single-line path, the
 * tail loops and more than one of each batch (32 lines for avx512).
 */
#define CHECK_GUARD 64
#define CHECK_MAX (70 * 64)

static void check_bytes(const struct roof_strategy *s, unsigned int use)
{
	static const size_t lens[] = { 64, 128, 192, 256, 320, 512, 9 * 64, 33 * 64, CHECK_MAX };
	unsigned char *src = aligned_alloc(64, CHECK_MAX), *want = malloc(CHECK_MAX);
	unsigned char *buf = aligned_alloc(64, CHECK_MAX + 2 * CHECK_GUARD);

	if (!src || !buf || !want)
		cli_die("out of memory checking the roofs");
	for (size_t i = 0; i < CHECK_MAX; i++)
		src[i] = (unsigned char)(i * 7 + 1);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t len = lens[k];
		unsigned char *dst = buf + CHECK_GUARD;
		bool bad = false;

		memset(buf, 0xa5, CHECK_MAX + 2 * CHECK_GUARD);
		for (size_t i = 0; i < len; i++)
			want[i] = use == ROOF_COPY ? src[i] : use == ROOF_FILL ? src[i % 64] : 0;
		roof_run(s, use, dst, src, len);
		for (size_t i = 0; i < CHECK_GUARD; i++)
			bad |= buf[i] != 0xa5 || dst[len + i] != 0xa5;
		if (bad || memcmp(dst, want, len))
			cli_die("roof %s: its %s of %zu bytes stored the wrong bytes%s", s->name,
				use == ROOF_COPY ? "copy" : use == ROOF_FILL ? "fill" : "zeroing", len,
				bad ? " outside its range" : "");
	}
	free(want);
	free(buf);
	free(src);
}

size_t roof_strategies(unsigned int use, const struct roof_strategy **out, size_t max)
{
	static unsigned int checked[sizeof(table) / sizeof(table[0])];
	uint64_t f = kflush_cpu_features_raw();
	const uint64_t wb_insns = KFLUSH_CPU_CLWB | KFLUSH_CPU_CLFLUSHOPT | KFLUSH_CPU_CLFLUSH;
	uint64_t wb = 0;	/* the write-back instruction kept */
	size_t n = 0;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && n < max; i++) {
		const struct roof_strategy *s = &table[i];
		bool fits = use == ROOF_COPY ? s->copy != NULL :
			    use == ROOF_FILL ? s->fill != NULL : s->fill || s->zero;

		if (!fits || (f & s->requires) != s->requires ||
		    (s->write_back && wb && (s->requires & wb_insns) != wb))
			continue;
		/*
		 * The best write-back instruction only, in each shape: clflush
		 * loses to clwb wherever both run.
		 */
		if (s->write_back && !wb)
			wb = s->requires & wb_insns;
		if (!(checked[i] & use)) {
			check_bytes(s, use);
			checked[i] |= use;
		}
		out[n++] = s;
	}
	return n;
}

void roof_store(const struct roof_strategy *s, unsigned int use, void *dst, const void *src,
		size_t len)
{
	static const char zero_line[64] __attribute__((aligned(64)));

	if (use == ROOF_COPY)
		s->copy(dst, src, len);
	else if (use == ROOF_FILL)
		s->fill(dst, len, src);
	else if (s->zero)
		s->zero(dst, len);
	else
		s->fill(dst, len, zero_line);
}

void roof_fence(const struct roof_strategy *s)
{
	if (s->nt)
		__asm__ __volatile__("sfence" : : : "memory");
}

void roof_run(const struct roof_strategy *s, unsigned int use, void *dst, const void *src,
	      size_t len)
{
	roof_store(s, use, dst, src, len);
	roof_fence(s);
}

double roof_test_scale(void)
{
	static double scale;
	const char *e;
	char *end;

	if (scale > 0)
		return scale;
	e = getenv("PMEMTEST_TEST_ROOF_SCALE");
	scale = 1;
	if (e && *e) {
		double v = strtod(e, &end);

		if (*end || !(v >= 1 && v <= 1e9))
			cli_die_usage("PMEMTEST_TEST_ROOF_SCALE=%s: not a number from 1 to 1e9", e);
		scale = v;
	}
	return scale;
}
