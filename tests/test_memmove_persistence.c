// SPDX-License-Identifier: MIT
/*
 * The coverage proof (see test_persistence.c) for memmove_flushcache:
 * linked against the recording build, every variant this CPU runs, the
 * disjoint sweep and overlapping moves both ways at many distances. After
 * each call no destination line is dirty, every destination byte was
 * stored, nothing else was, no other line was written back, no fence.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "kflush.h"
#include "recorder.h"
#include "testutil.h"

#define MAX_VARIANTS 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t src_offs[] = { 0, 1, 63 };
static const size_t large_dst_offs[] = { 0, 1, 8, 31, 63 };
static const size_t large_src_offs[] = { 5 };

static unsigned char *src;

static void setup(void)
{
	size_t len = (TU_MAX_SIZE + 64 + 63) & ~(size_t)63;

	src = aligned_alloc(64, len);
	cr_assert(src);
	tu_fill(src, len, 12);
}

static void teardown(void)
{
	free(src);
}

static void prove(const char *name, kflush_memmove_flushcache_fn fn, unsigned char *d,
		  const unsigned char *s, size_t n, long dist)
{
	struct rec_report r;

	/* A line of margin on both sides; the source side of an overlap included. */
	rec_begin(d - 128, n + 256);
	fn(d, s, n);
	rec_verify(d, n, &r);
	rec_end();
	if (r.dirty_lines || r.unwritten || r.outside || r.wb_outside || r.fences)
		cr_assert_fail("memmove_flushcache %s: n=%zu dst-src=%+ld dst%%64=%zu: %zu dirty "
			       "lines, %zu bytes unwritten, %zu bytes outside, %zu write-backs "
			       "outside, %zu fences (first problem at %+ld)",
			       name, n, dist, (size_t)((uintptr_t)d & 63), r.dirty_lines,
			       r.unwritten, r.outside, r.wb_outside, r.fences,
			       (long)(r.first_bad - (uintptr_t)d));
}

struct ctx {
	const char *name;
	kflush_memmove_flushcache_fn fn;
};

static void disjoint_case(const struct tu_case *c, void *p)
{
	const struct ctx *x = p;
	unsigned char *d = tu_at(c->area, c->doff);

	prove(x->name, x->fn, d, src + c->soff, c->n, (long)((uintptr_t)d - (uintptr_t)(src + c->soff)));
	tu_restore(c->area, c->doff, c->n);
}

static void overlap_sweep(const char *name, kflush_memmove_flushcache_fn fn)
{
	static const size_t sizes[] = { 1, 3, 5, 8, 13, 63, 64, 65, 127, 200, 255, 256, 257,
					300, 513, 1100, 2049, 3 * 2048 + 77, 65536 + 13 };
	static const long dists[] = { 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100,
				      255, 256, 257, 2047, 2048, 2049 };
	struct tu_area a = tu_area_new(2 * (65536 + 13) + 4096);

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(dists); j++)
			for (int sign = -1; sign <= 1; sign += 2)
				for (size_t base = 0; base < 64; base += 9) {
					long dist = sign * dists[j];
					unsigned char *lo = tu_at(&a, base) + 128;
					unsigned char *d = dist < 0 ? lo : lo + dist;
					unsigned char *s = dist < 0 ? lo - dist : lo;

					prove(name, fn, d, s, sizes[i], dist);
				}
	tu_area_free(&a);
}

static void sweep(const char *name, kflush_memmove_flushcache_fn fn)
{
	const struct tu_sweep_plan plan = {
		src_offs, ARRAY_SIZE(src_offs),
		large_dst_offs, ARRAY_SIZE(large_dst_offs),
		large_src_offs, ARRAY_SIZE(large_src_offs),
	};
	struct ctx x = { name, fn };

	tu_sweep(&plan, disjoint_case, &x);
	overlap_sweep(name, fn);
}

ParameterizedTestParameters(memmove_persistence, variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMMOVE_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, memmove_persistence, variant,
		  .init = setup, .fini = teardown)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert(fn);
	sweep(v->name, (kflush_memmove_flushcache_fn)fn);
}

Test(memmove_persistence, entry_point, .init = setup, .fini = teardown)
{
	sweep("kflush_memmove_flushcache", kflush_memmove_flushcache);
}
