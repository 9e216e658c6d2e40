// SPDX-License-Identifier: MIT
/*
 * memmove_flushcache: every usable variant and the exported entry point,
 * byte for byte against the C library's memmove. Overlapping source and
 * destination at every distance both ways (tests/overlaputil.c), and the
 * disjoint sweep of test_flushcache with guard bytes on both sides.
 * Whether lines are left dirty is test_move_persistence's job.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "overlaputil.h"
#include "testutil.h"

#define MAX_VARIANTS 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t src_offs[] = { 0, 1, 7, 8, 63 };
static const size_t large_dst_offs[] = { 0, 1, 8, 31, 63 };
static const size_t large_src_offs[] = { 0, 5 };

static unsigned char *src, *inv;

static void setup(void)
{
	size_t len = (TU_MAX_SIZE + 64 + 63) & ~(size_t)63;

	src = aligned_alloc(64, len);
	inv = aligned_alloc(64, len);
	cr_assert(src && inv);
	tu_fill(src, len, 43);
	for (size_t i = 0; i < len; i++)
		inv[i] = (unsigned char)~src[i];
}

static void teardown(void)
{
	free(src);
	free(inv);
}

struct ctx {
	const char *name;
	kflush_memmove_flushcache_fn fn;
};

static void move(void *d, const void *s, size_t n, void *p)
{
	((struct ctx *)p)->fn(d, s, n);
}

static void disjoint_case(const struct tu_case *c, void *p)
{
	const struct ctx *x = p;
	unsigned char *d = tu_at(c->area, c->doff);
	long bad;

	memcpy(d, inv + c->soff, c->n);
	x->fn(d, src + c->soff, c->n);
	bad = tu_check(c->area, c->doff, src + c->soff, c->n);
	if (bad >= 0)
		cr_assert_fail("memmove_flushcache %s: disjoint n=%zu dst+%zu src+%zu: wrong byte at %+ld",
			       x->name, c->n, c->doff, c->soff, bad - (long)(TU_GUARD + c->doff));
	tu_restore(c->area, c->doff, c->n);
}

static void sweep(const char *name, kflush_memmove_flushcache_fn fn)
{
	const struct tu_sweep_plan plan = {
		src_offs, ARRAY_SIZE(src_offs),
		large_dst_offs, ARRAY_SIZE(large_dst_offs),
		large_src_offs, ARRAY_SIZE(large_src_offs),
	};
	struct ctx x = { name, fn };

	ou_sweep(name, move, &x);
	tu_sweep(&plan, disjoint_case, &x);
}

/* n == 0 touches nothing, not even the line holding dst. */
struct move_ctx {
	kflush_memmove_flushcache_fn fn;
};

static void move_nothing(unsigned char *page, size_t doff, void *ctx)
{
	((struct move_ctx *)ctx)->fn(page + 1024 + doff, page + 1024 + (doff * 7) % 64, 0);
}

static void zero_move(const char *name, kflush_memmove_flushcache_fn fn)
{
	struct move_ctx c = { fn };
	long at = tu_first_access(move_nothing, &c, 64);

	cr_assert_eq(at, -1, "memmove_flushcache %s: n=0 at dst+%ld accessed memory", name, at);
}

ParameterizedTestParameters(memmove, variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMMOVE_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, memmove, variant, .init = setup, .fini = teardown)
{
	kflush_memmove_flushcache_fn fn = (kflush_memmove_flushcache_fn)
		kflush_variant_fn(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert(fn, "variant %s reported usable but has no function", v->name);
	sweep(v->name, fn);
	zero_move(v->name, fn);
}

/*
 * Variants this CPU cannot run are named, so a run says what it did not
 * check, with the features it lacks: a variant left out has a reason.
 */
Test(memmove, unusable_variants_named)
{
	for (int i = 0; i < kflush_variant_count(KFLUSH_OP_MEMMOVE_FLUSHCACHE); i++) {
		uint64_t lacks = kflush_variant_requires(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)i) &
				 ~kflush_cpu_features();
		char names[256] = "";

		if (kflush_variant_usable(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)i) == 1)
			continue;
		cr_expect_neq(lacks, 0, "memmove_flushcache %s: unusable, yet needs nothing missing",
			      kflush_variant_name(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)i));
		for (int bit = 0; bit < 64; bit++)
			if (lacks >> bit & 1)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s",
					 kflush_cpu_feature_name(1ULL << bit));
		cr_log_info("memmove_flushcache %s: not run, this CPU (after KFLUSH_HWCAPS) lacks%s",
			    kflush_variant_name(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)i), names);
	}
}

Test(memmove, kflush_memmove_flushcache, .init = setup, .fini = teardown)
{
	sweep("kflush_memmove_flushcache", kflush_memmove_flushcache);
	zero_move("kflush_memmove_flushcache", kflush_memmove_flushcache);
}

/* The sweep's truth must be able to say no: a forward-only copy fails it. */
static void forward_only(void *d, const void *s, size_t n, void *p)
{
	(void)p;
	for (size_t i = 0; i < n; i++)
		((volatile unsigned char *)d)[i] = ((const volatile unsigned char *)s)[i];
}

Test(memmove, sweep_catches_forward_copy)
{
	long where;

	cr_assert_eq(ou_one(forward_only, NULL, 0, -3, 40, &where), 0, "dst below src is safe forward");
	cr_assert_eq(ou_one(forward_only, NULL, 0, 3, 40, &where), 1);
	cr_assert_eq(where, 3, "first wrong byte: %ld", where);
}
