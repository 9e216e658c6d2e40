// SPDX-License-Identifier: MIT
/*
 * kflush_memcpy: every usable variant against the source, byte for byte,
 * over sizes 0..1100 and a few large ones, destination offsets 0..63 and a
 * spread of source offsets, with guard bytes on both sides. Plus the two
 * things only memcpy_orig has: both directions of its signed low-byte rule,
 * and (white-box, through an overlapping copy) which loop the rule picked.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "testutil.h"

#define MAX_VARIANTS 8

static const size_t src_offs[] = { 0, 1, 7, 8, 33, 63 };
#define NR_SRC_OFFS (sizeof(src_offs) / sizeof(src_offs[0]))

/* Sizes around the 32 B and 2048 B decisions and the tu_large_sizes. */
static const size_t big_sizes[] = {
	1984, 2015, 2016, 2047, 2048, 2049, 2080, 4095, 4096, 4097,
	65536 + 13, (1u << 20) + 7,
};
#define NR_BIG_SIZES (sizeof(big_sizes) / sizeof(big_sizes[0]))

static const size_t big_dst_offs[] = { 0, 1, 7, 8, 31, 32, 33, 63 };
#define NR_BIG_DST_OFFS (sizeof(big_dst_offs) / sizeof(big_dst_offs[0]))

static kflush_memcpy_fn fn_of(const struct tu_variant *v)
{
	kflush_memcpy_fn fn = (kflush_memcpy_fn)kflush_variant_fn(KFLUSH_OP_MEMCPY, (unsigned int)v->idx);

	cr_assert_not_null(fn, "variant %s has no entry point", v->name);
	return fn;
}

/*
 * A guarded destination plus a pristine image of its guard pattern, so a
 * check is three memcmp()s and a reset is one memcpy() of the payload:
 * the full sweep makes ~400k copies per variant.
 */
struct guarded {
	struct tu_area a;
	unsigned char *pristine;
};

static struct guarded guarded_new(size_t payload)
{
	struct guarded g = { .a = tu_area_new(payload) };

	g.pristine = malloc(g.a.rawlen);
	cr_assert_not_null(g.pristine);
	memcpy(g.pristine, g.a.raw, g.a.rawlen);
	return g;
}

static void guarded_free(struct guarded *g)
{
	free(g->pristine);
	tu_area_free(&g->a);
}

/* Same verdict as tu_check(), which still names the first bad byte. */
static long guarded_check(const struct guarded *g, size_t off, const void *expect, size_t n)
{
	size_t start = TU_GUARD + off;

	if (memcmp(g->a.raw, g->pristine, start) == 0 &&
	    memcmp(g->a.raw + start, expect, n) == 0 &&
	    memcmp(g->a.raw + start + n, g->pristine + start + n, g->a.rawlen - start - n) == 0)
		return -1;
	return tu_check(&g->a, off, expect, n);
}

static void guarded_reset(struct guarded *g, size_t off, size_t n)
{
	memcpy(g->a.raw + TU_GUARD + off, g->pristine + TU_GUARD + off, n);
}

static void copy_and_check(kflush_memcpy_fn fn, const char *name, struct guarded *g,
			   size_t doff, const unsigned char *src, size_t soff, size_t n)
{
	unsigned char *dst = tu_at(&g->a, doff);
	void *ret = fn(dst, src, n);
	long bad = guarded_check(g, doff, src, n);

	cr_assert_eq(ret, dst, "%s: n=%zu dst+%zu src+%zu returned %p, not dst %p",
		     name, n, doff, soff, ret, (void *)dst);
	cr_assert_eq(bad, -1, "%s: n=%zu dst+%zu src+%zu: wrong byte at raw index %ld "
		     "(payload starts at %zu)", name, n, doff, soff, bad, (size_t)TU_GUARD + doff);
	guarded_reset(g, doff, n);
}

ParameterizedTestParameters(memcpy, sweep)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

/*
 * Sizes 0..1100 x dst offsets 0..63 x src offsets src_offs[]. Source and
 * destination sit at the same page offset plus their own offsets, so
 * (dst - src) % 4096 runs through 1..63 (and its negatives), and with
 * TU_GUARD = 256 the low address bytes are the offsets themselves: both
 * directions of memcpy_orig's rule come up for every size.
 */
ParameterizedTest(struct tu_variant *v, memcpy, sweep)
{
	kflush_memcpy_fn fn = fn_of(v);
	struct guarded g = guarded_new(TU_SWEEP_MAX);
	struct tu_area s = tu_area_new(TU_SWEEP_MAX);

	for (size_t si = 0; si < NR_SRC_OFFS; si++) {
		unsigned char *src = tu_at(&s, src_offs[si]);

		tu_fill(src, TU_SWEEP_MAX, (uint32_t)si + 1);
		for (size_t n = 0; n <= TU_SWEEP_MAX; n++)
			for (size_t doff = 0; doff < 64; doff++)
				copy_and_check(fn, v->name, &g, doff, src, src_offs[si], n);
	}
	guarded_free(&g);
	tu_area_free(&s);
}

ParameterizedTestParameters(memcpy, large)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

/* Around seed 000's 2048 B switch, and page- to MiB-sized copies. */
ParameterizedTest(struct tu_variant *v, memcpy, large)
{
	kflush_memcpy_fn fn = fn_of(v);
	struct guarded g = guarded_new(TU_MAX_SIZE);
	struct tu_area s = tu_area_new(TU_MAX_SIZE);

	for (size_t si = 0; si < NR_SRC_OFFS; si++) {
		unsigned char *src = tu_at(&s, src_offs[si]);

		tu_fill(src, TU_MAX_SIZE, (uint32_t)si + 100);
		for (size_t bi = 0; bi < NR_BIG_SIZES; bi++)
			for (size_t di = 0; di < NR_BIG_DST_OFFS; di++)
				copy_and_check(fn, v->name, &g, big_dst_offs[di], src, src_offs[si],
					       big_sizes[bi]);
	}
	guarded_free(&g);
	tu_area_free(&s);
}

ParameterizedTestParameters(memcpy, low_byte_rule)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

/*
 * Low address bytes where a signed and an unsigned compare disagree:
 * src 0x90 / dst 0x10 is "src lower" (backward) only when signed, src
 * 0x10 / dst 0x90 is forward only when signed. Plus same-sign pairs.
 * Every size from 32 (where the rule starts) to 1100 and the big ones.
 */
ParameterizedTest(struct tu_variant *v, memcpy, low_byte_rule)
{
	static const struct { unsigned int src_low, dst_low; } pairs[] = {
		{ 0x90, 0x10 }, { 0x10, 0x90 }, { 0xf0, 0x10 }, { 0x70, 0x90 },
		{ 0x10, 0x30 }, { 0x30, 0x10 }, { 0x80, 0x7f }, { 0x7f, 0x80 },
	};
	kflush_memcpy_fn fn = fn_of(v);
	/* Destination offsets go up to 0x90 here, hence the extra 256. */
	struct guarded g = guarded_new(TU_SWEEP_MAX + 256);
	struct guarded big = guarded_new(TU_MAX_SIZE + 256);
	size_t srclen = TU_MAX_SIZE + 4096 + 256;
	unsigned char *sbuf = mmap(NULL, srclen, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(sbuf, MAP_FAILED);
	tu_fill(sbuf, srclen, 7);
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		/* tu_at(off) sits at page offset TU_GUARD + off = 256 + off. */
		size_t doff = pairs[p].dst_low;
		const unsigned char *src = sbuf + pairs[p].src_low;

		cr_assert_eq((uintptr_t)tu_at(&g.a, doff) & 0xff, pairs[p].dst_low);
		for (size_t n = 32; n <= TU_SWEEP_MAX; n++)
			copy_and_check(fn, v->name, &g, doff, src, pairs[p].src_low, n);
		for (size_t bi = 0; bi < NR_BIG_SIZES; bi++)
			copy_and_check(fn, v->name, &big, doff, src, pairs[p].src_low, big_sizes[bi]);
	}
	munmap(sbuf, srclen);
	guarded_free(&big);
	guarded_free(&g);
}

/*
 * Which loop ran, seen through an overlap (outside memcpy's contract, but
 * deterministic here): with dst = src + 32, a forward copy reads back what
 * it stored 32 bytes earlier and replicates the first 32 bytes (the 32-byte
 * loop does, and so does rep movsb, whose result is defined as byte by
 * byte); the backward loop reads only bytes not yet overwritten and gives
 * memmove's result. That makes the direction rule and seed 000's 2048 B
 * switch to rep movsb observable.
 */
static void check_direction(kflush_memcpy_fn fn, const char *name, unsigned int src_low,
			    size_t n, int backward)
{
	size_t len = 2 * 4096 + n + 256;	/* src at 4096 + src_low, n + 96 bytes used */
	unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *orig = malloc(n + 32 + 64), *want = malloc(n);
	unsigned char *src = buf + 4096 + src_low;

	cr_assert_neq(buf, MAP_FAILED);
	cr_assert(orig && want);
	tu_fill(buf, len, src_low);
	memcpy(orig, src, n + 32 + 64);
	for (size_t i = 0; i < n; i++)
		want[i] = backward ? orig[i] : orig[i % 32];

	fn(src + 32, src, n);
	cr_assert_arr_eq(src + 32, want, n, "%s: n=%zu, src low byte %#x, dst low byte %#x: "
			 "expected a %s copy", name, n, src_low, (src_low + 32) & 0xff,
			 backward ? "backward" : "forward");
	cr_assert_arr_eq(src, orig, 32, "%s: bytes before dst changed", name);
	cr_assert_arr_eq(src + 32 + n, orig + 32 + n, 64, "%s: bytes after dst changed", name);
	free(orig);
	free(want);
	munmap(buf, len);
}

static kflush_memcpy_fn fn_by_name(const char *name)
{
	int idx = kflush_variant_find(KFLUSH_OP_MEMCPY, name);

	cr_assert_geq(idx, 0, "no %s variant", name);
	return (kflush_memcpy_fn)kflush_variant_fn(KFLUSH_OP_MEMCPY, (unsigned int)idx);
}

Test(memcpy, direction)
{
	static const char *const scalar[] = { "orig", "erms" };
	kflush_memcpy_fn fn;

	for (size_t i = 0; i < 2; i++) {
		fn = fn_by_name(scalar[i]);
		if (!fn)
			continue;	/* erms on a CPU without ERMS */
		/* Signed: 0xf0 (-16) < 0x10 backward; 0x70 > 0x90 (-112) forward. */
		check_direction(fn, scalar[i], 0xf0, 256, 1);
		check_direction(fn, scalar[i], 0x70, 256, 0);
		/* Same sign on both sides. */
		check_direction(fn, scalar[i], 0x10, 256, 1);
		check_direction(fn, scalar[i], 0xa0, 256, 1);
		/* src 0x60 (96) > dst 0x80 (-128): forward; 0xe0 < 0x00 backward. */
		check_direction(fn, scalar[i], 0x60, 256, 0);
		check_direction(fn, scalar[i], 0xe0, 256, 1);
		/* Not a multiple of 32: the backward loop's head goes through the tail. */
		check_direction(fn, scalar[i], 0x10, 2047, 1);
	}

	/* orig never switches to rep movsb ... */
	check_direction(fn_by_name("orig"), "orig", 0x10, 4096, 1);
	/* ... erms does, from exactly 2048 bytes (seed 000) ... */
	fn = fn_by_name("erms");
	if (fn) {
		check_direction(fn, "erms", 0x10, 2048, 0);
		check_direction(fn, "erms", 0x10, 4097, 0);
	}
	/* ... and fsrm is rep movsb from the first byte. */
	fn = fn_by_name("fsrm");
	if (fn) {
		check_direction(fn, "fsrm", 0x10, 32, 0);
		check_direction(fn, "fsrm", 0x10, 256, 0);
	}
	/*
	 * tuned switches at this CPU's documented size, 384..4096 B on every
	 * CPU libkflush(7) lists (2048 without a rule; test_memcpy_tuned
	 * checks the exact size): below it, at 256 its vector path (every
	 * load before the first store: memmove's result, as the backward
	 * loop gives; its loop above 256 B gives neither); rep movsb at 4096
	 * and 8192. dst - src is 32, outside the distances it keeps away
	 * from rep movsb. tuned_prefetchw runs the same paths.
	 */
	for (int t = 0; t < 2; t++) {
		const char *name = t ? "tuned_prefetchw" : "tuned";

		fn = fn_by_name(name);
		if (fn) {
			check_direction(fn, name, 0x10, 256, 1);
			check_direction(fn, name, 0x10, 4096, 0);
			check_direction(fn, name, 0x10, 8192, 0);
		}
	}
}

/*
 * The exported entry point calls the variant the precedence picks, or
 * "tuned", "tuned_prefetchw" or "avx2" where a per-CPU rule says so
 * (tests/test_dispatch.c pins which CPUs those are, from libkflush(7)).
 */
Test(memcpy, bound)
{
	uint64_t f = kflush_cpu_features();
	const char *want = (f & KFLUSH_CPU_FSRM) ? "fsrm" : (f & KFLUSH_CPU_ERMS) ? "erms" : "orig";
	int bound = kflush_variant_bound(KFLUSH_OP_MEMCPY);
	const char *got = kflush_variant_name(KFLUSH_OP_MEMCPY, (unsigned int)bound);
	unsigned char src[3000], dst[3000];

	cr_log_info("memcpy: bound %s", got);
	if (got && strcmp(got, "tuned") == 0)
		cr_assert((f & (KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2)) ==
			  (KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2),
			  "tuned bound without erms and avx2 (features %#llx)", (unsigned long long)f);
	else if (got && strcmp(got, "tuned_prefetchw") == 0)
		cr_assert((f & (KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2 | KFLUSH_CPU_PREFETCHW)) ==
			  (KFLUSH_CPU_ERMS | KFLUSH_CPU_AVX2 | KFLUSH_CPU_PREFETCHW),
			  "tuned_prefetchw bound without erms, avx2 and prefetchw (features %#llx)",
			  (unsigned long long)f);
	else if (got && strcmp(got, "avx2") == 0)
		cr_assert(f & KFLUSH_CPU_AVX2, "avx2 bound without avx2 (features %#llx)",
			  (unsigned long long)f);
	else
		cr_assert_str_eq(got, want, "bound %s with features %#llx", got,
				 (unsigned long long)f);
	tu_fill(src, sizeof(src), 3);
	for (size_t n = 0; n <= sizeof(src); n += 97) {
		memset(dst, 0, sizeof(dst));
		cr_assert_eq(kflush_memcpy(dst, src, n), dst);
		cr_assert_arr_eq(dst, src, n);
		for (size_t i = n; i < sizeof(dst); i++)
			cr_assert_eq(dst[i], 0, "n=%zu: byte %zu written", n, i);
	}
}
