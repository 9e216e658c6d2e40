// SPDX-License-Identifier: MIT
/*
 * kflush_memcpy's "tuned" and "tuned_prefetchw" under every switch-over
 * libkflush(7) documents (384, 768, 2048 and 4096 bytes), each with and
 * without the near-distance rule, whatever this host's own rule says. Only
 * AMD family 0x19 model 0x01 turns that rule on, so elsewhere
 * test_memcpy_tuned never runs the near path; this program is linked with
 * a test build of the library (tests/local.mk, -DKFLUSH_TEST_TUNING) and
 * sets the tuning itself through kflush_test_memcpy_tuning().
 *
 * Two proofs. The bytes: every size within 64 of the switch-over, every
 * distance (dst - src) mod 64, dst above and below src, against a
 * byte-by-byte copy made here, with guard bytes on both sides. The path,
 * single-stepped by the tracer (tests/trace/), against libkflush(7),
 * Variants, tuned, written out below: no rep movsb below the switch-over
 * (AVX loads and stores); from it rep movsb, except that with the rule
 * a distance of 1..31 takes memcpy_orig's passes (no vector register).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "trace/harness.h"

/* In the test build of the library only. */
void kflush_test_memcpy_tuning(size_t movsb_min, int avoid_near);

static const size_t mins[] = { 384, 768, 2048, 4096 };
#define NR_MINS (sizeof(mins) / sizeof(mins[0]))
#define AROUND 64	/* sizes min - AROUND .. min + AROUND: every residue mod 64 each side */
#define GUARD 64
/*
 * The arena: a destination region, the source's, another destination
 * region, FAR bytes each (a multiple of 256), so the source is written
 * once and dst - src is -FAR + d or FAR + d.
 */
#define FAR 8192u
#define ARENA (3 * FAR)
/*
 * Offsets from each region's start (256-aligned), after the guard: src's
 * low address byte is 64, 120 or 11. memcpy_orig's signed compare of the
 * low bytes copies a near distance forward from 120 (d >= 8), backward
 * from the others.
 */
static const size_t base_offs[] = { 0, 56, 203 };
#define NR_BASE_OFFS (sizeof(base_offs) / sizeof(base_offs[0]))

enum path { PATH_AVX, PATH_ORIG, PATH_MOVSB, PATH_OTHER };
static const char *const path_names[] = { "AVX", "memcpy_orig", "rep movsb", "mixed" };

/* libkflush(7), Variants, tuned; the same for tuned_prefetchw. */
static enum path documented(size_t n, size_t dist, size_t min, int avoid_near)
{
	if (n < min)
		return PATH_AVX;
	if (avoid_near && dist % 64 >= 1 && dist % 64 <= 31)
		return PATH_ORIG;
	return PATH_MOVSB;
}

static kflush_memcpy_fn variant(const char *name, const char *needs)
{
	int idx = kflush_variant_find(KFLUSH_OP_MEMCPY, name);
	kflush_memcpy_fn fn;

	cr_assert_geq(idx, 0, "no %s variant", name);
	fn = (kflush_memcpy_fn)kflush_variant_fn(KFLUSH_OP_MEMCPY, (unsigned int)idx);
	if (!fn)
		cr_skip_test("%s needs %s, which this CPU (after KFLUSH_HWCAPS) lacks", name,
			     needs);
	return fn;
}

/* Never 0, the guard byte: a store of source bytes to a guard always shows. */
static void fill_src(unsigned char *p, size_t n)
{
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)(x | 1);
	}
}

/* The reference: one byte at a time, nothing of the library's. */
static void ref_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

/*
 * Lay out one copy: zero guards around dst, and in dst the complement of
 * the source, so every byte the copy misses differs from the reference.
 * want gets the window [dst - GUARD, dst + n + GUARD) as it must end.
 */
static void prepare(unsigned char *dst, const unsigned char *src, size_t n, unsigned char *want)
{
	memset(dst - GUARD, 0, GUARD);
	memset(dst + n, 0, GUARD);
	for (size_t i = 0; i < n; i++)
		dst[i] = (unsigned char)~src[i];
	memset(want, 0, n + 2 * GUARD);
	ref_copy(want + GUARD, src, n);
}

/* Where dst and src go for a distance d mod 64, dst above src (up) or below. */
static void place(unsigned char *arena, size_t off, size_t d, int up, unsigned char **dst,
		  unsigned char **src)
{
	*src = arena + FAR + GUARD + off;
	*dst = arena + (up ? 2 * FAR : 0) + GUARD + off + d;
}

static int window_ok(const unsigned char *dst, size_t n, const unsigned char *want, char *why,
		     size_t len)
{
	const unsigned char *w = dst - GUARD;

	for (size_t i = 0; i < n + 2 * GUARD; i++)
		if (w[i] != want[i]) {
			long at = (long)i - GUARD;

			snprintf(why, len, "dst[%ld]%s is %#x, want %#x", at,
				 at < 0 || at >= (long)n ? " (a guard byte)" : "", w[i], want[i]);
			return 0;
		}
	return 1;
}

/* One variant under one tuning, and the buffers its copies use. */
struct run {
	const char *name;
	kflush_memcpy_fn fn;
	size_t min;
	int avoid_near;
	unsigned char *arena, *want;
};

static void set_tuning(struct run *r, size_t min, int avoid_near)
{
	r->min = min;
	r->avoid_near = avoid_near;
	kflush_test_memcpy_tuning(min, avoid_near);
}

static void direct_copy(const struct run *r, size_t n, size_t d, int up)
{
	size_t off = base_offs[(n + d) % NR_BASE_OFFS];
	unsigned char *dst, *src;
	char why[128];

	place(r->arena, off, d, up, &dst, &src);
	prepare(dst, src, n, r->want);
	r->fn(dst, src, n);
	if (!window_ok(dst, n, r->want, why, sizeof(why)))
		cr_assert_fail("%s, rep movsb from %zu%s: n=%zu, dst = src %c %u + %zu "
			       "(src+%zu): %s", r->name, r->min,
			       r->avoid_near ? ", not at 1..31" : "", n, up ? '+' : '-', FAR, d,
			       off, why);
}

/* Direct calls: all sizes around each switch-over, all distances, both rules. */
static void bytes(const char *name, const char *needs)
{
	struct run r = { .name = name, .fn = variant(name, needs) };
	size_t copies = 0;

	r.arena = aligned_alloc(256, ARENA);
	r.want = malloc(4096 + AROUND + 2 * GUARD);
	cr_assert(r.arena && r.want);
	fill_src(r.arena + FAR, FAR);
	for (size_t m = 0; m < NR_MINS; m++)
		for (int avoid = 0; avoid <= 1; avoid++) {
			set_tuning(&r, mins[m], avoid);
			for (size_t n = r.min - AROUND; n <= r.min + AROUND; n++)
				for (size_t d = 0; d < 64; d++, copies += 2) {
					direct_copy(&r, n, d, 1);
					direct_copy(&r, n, d, 0);
				}
		}
	cr_log_info("%s: %zu copies checked", name, copies);
	free(r.want);
	free(r.arena);
}

/* What one traced copy ran. */
struct seen {
	size_t movsb_bytes;	/* moved by rep movsb */
	size_t vector;		/* instructions naming an xmm or ymm register */
	size_t other_stores;	/* stores by anything but rep movsb */
};

static void sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct seen *s = ctx;
	int movsb = in->string && in->rep && in->width == 1 && strstr(in->text, "movsb");

	if (movsb)
		s->movsb_bytes += e->len;
	else if (e->kind == TD_STORE && e->len)
		s->other_stores++;
	if (strstr(in->text, "xmm") || strstr(in->text, "ymm"))
		s->vector++;
}

static enum path path_of(const struct seen *s, size_t n)
{
	if (s->movsb_bytes == n && !s->other_stores && !s->vector)
		return PATH_MOVSB;
	if (s->movsb_bytes)
		return PATH_OTHER;
	return s->vector ? PATH_AVX : PATH_ORIG;
}

static void traced_copy(const struct run *r, struct tt_tracer *t, size_t n, size_t d, int up)
{
	enum path got, want = documented(n, d, r->min, r->avoid_near);
	unsigned char *dst, *src;
	struct seen s = { 0 };
	char err[256] = "", why[128];

	/* The base offset turns with d: both of orig's directions. */
	place(r->arena, base_offs[d % NR_BASE_OFFS], d, up, &dst, &src);
	prepare(dst, src, n, r->want);
	cr_assert_eq(tt_call(t, (const void *)r->fn, (uint64_t)(uintptr_t)dst,
			     (uint64_t)(uintptr_t)src, n, sink, &s, err, sizeof(err)), 0,
		     "%s n=%zu dist %zu: %s", r->name, n, d, err);
	cr_assert(window_ok(dst, n, r->want, why, sizeof(why)),
		  "%s, traced, rep movsb from %zu%s: n=%zu dist %zu: %s", r->name, r->min,
		  r->avoid_near ? ", not at 1..31" : "", n, d, why);
	got = path_of(&s, n);
	cr_expect_eq(got, want, "%s, rep movsb from %zu%s: n=%zu, dst = src %c %u + %zu: ran %s "
		     "(rep movsb %zu B, %zu vector instructions), documented %s", r->name, r->min,
		     r->avoid_near ? ", not at 1..31" : "", n, up ? '+' : '-', FAR, d,
		     path_names[got], s.movsb_bytes, s.vector, path_names[want]);
}

static int edge(size_t d)
{
	return d == 0 || d == 1 || d == 31 || d == 32 || d == 63;
}

/*
 * Each tuning gets its own tracee: the child is a fork, and sees the
 * tuning set before it. Every byte rep movsb moves is a step (15-30 us
 * here), so all 64 distances only at the two smaller switch-overs, dst
 * above src at 384 and below it at 768, and a size past the switch-over
 * only there, at the rule's edges; at the larger ones those edges, both
 * ways. KFLUSH_TEST_QUICK (the TCG guest) keeps only the edges.
 */
static void paths(const char *name, const char *needs)
{
	struct run r = { .name = name, .fn = variant(name, needs) };
	struct tt_tracer tracer;
	size_t steps = 0, calls = 0;

	r.want = malloc(4096 + 65 + 2 * GUARD);
	cr_assert(r.want);
	for (size_t m = 0; m < NR_MINS; m++)
		for (int avoid = 0; avoid <= 1; avoid++) {
			int small = mins[m] <= 768, all = small && !tp_quick();
			/* Bit 1: dst above src; bit 0: below it. */
			unsigned int ways = !all ? 3 : mins[m] == 384 ? 2 : 1;

			set_tuning(&r, mins[m], avoid);
			tp_arena_start(&tracer, &r.arena, ARENA,
				       "the path of the forced tuning was not observed");
			fill_src(r.arena + FAR, FAR);
			for (size_t d = 0; d < 64; d++) {
				const size_t sizes[] = { r.min - 1, r.min, r.min + 65 };
				size_t nsizes = small && edge(d) ? 3 : 2;

				for (size_t k = 0; k < nsizes && (all || edge(d)); k++)
					for (int up = 0; up <= 1; up++)
						if (ways >> up & 1) {
							traced_copy(&r, &tracer, sizes[k], d, up);
							calls++;
						}
			}
			steps += tracer.steps;
			tt_stop_arena(&tracer, r.arena, ARENA);
		}
	cr_log_info("%s: %zu traced copies, %zu instructions stepped", name, calls, steps);
	free(r.want);
}

Test(memcpy_tuned_forced, tuned_bytes)
{
	bytes("tuned", "erms and avx2");
}

Test(memcpy_tuned_forced, tuned_prefetchw_bytes)
{
	bytes("tuned_prefetchw", "erms, avx2 and prefetchw");
}

Test(memcpy_tuned_forced, tuned_path)
{
	paths("tuned", "erms and avx2");
}

Test(memcpy_tuned_forced, tuned_prefetchw_path)
{
	paths("tuned_prefetchw", "erms, avx2 and prefetchw");
}
