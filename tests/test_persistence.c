// SPDX-License-Identifier: MIT
/*
 * The coverage proof, our pmemcheck: linked against the recording build
 * (tests/libkflush_record.la), where every destination store, write-back
 * and fence of the flush family reports to tests/recorder.c. For every
 * variant this CPU runs, every size 0..1100 and the large ones, at every
 * destination offset in a line: after the call no line in the range is
 * dirty, every byte was stored, nothing outside was, no line outside was
 * written back, and nothing fenced (kflush_memcpy_persist fences once).
 *
 * The write-backs inside the variants go through the bound flush variant;
 * tests/masked-*.sh re-run this program with each one bound.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "kflush.h"
#include "recorder.h"
#include "testutil.h"

/* The recording build's hook (lib/x86_64/flush.h); kinds as there. */
void kflush_rec(int kind, const void *addr, size_t len);
enum { REC_NT, REC_CACHED, REC_WRITEBACK, REC_FENCE };

#define MAX_VARIANTS 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Which bytes get which store depends on dst only; a few src offsets suffice. */
static const size_t src_offs[] = { 0, 1, 63 };
static const size_t large_dst_offs[] = { 0, 1, 8, 31, 63 };

static unsigned char *src;

static void setup(void)
{
	src = aligned_alloc(64, TU_MAX_SIZE + 64);
	cr_assert(src);
	tu_fill(src, TU_MAX_SIZE + 64, 11);
	cr_log_info("bound flush variant: %s",
		    kflush_variant_name(KFLUSH_OP_FLUSH,
					(unsigned int)kflush_variant_bound(KFLUSH_OP_FLUSH)));
}

static void teardown(void)
{
	free(src);
}

static void fail_report(const char *what, const char *name, size_t n, size_t doff,
			const struct rec_report *r, const void *dst)
{
	cr_assert_fail("%s %s: n=%zu dst+%zu: %zu dirty lines, %zu bytes unwritten, %zu bytes "
		       "outside, %zu write-backs outside, %zu fences (first problem at %+ld)",
		       what, name, n, doff, r->dirty_lines, r->unwritten, r->outside,
		       r->wb_outside, r->fences, (long)(r->first_bad - (uintptr_t)dst));
}

/* Watch a line of margin on both sides: stores there count as outside. */
static void watch(struct tu_area *a, size_t doff, size_t n)
{
	rec_begin(tu_at(a, doff) - 64 - doff, n + doff + 128);
}

static void prove_copy(const char *name, kflush_memcpy_flushcache_fn fn, struct tu_area *a,
		       size_t doff, size_t soff, size_t n, size_t fences)
{
	unsigned char *d = tu_at(a, doff);
	struct rec_report r;

	watch(a, doff, n);
	fn(d, src + soff, n);
	rec_verify(d, n, &r);
	rec_end();
	if (r.dirty_lines || r.unwritten || r.outside || r.wb_outside || r.fences != fences)
		fail_report("memcpy_flushcache", name, n, doff, &r, d);
	/* The recording build still stores for real. */
	if (tu_check(a, doff, src + soff, n) >= 0)
		cr_assert_fail("memcpy_flushcache %s: n=%zu dst+%zu src+%zu: wrong data",
			       name, n, doff, soff);
	tu_restore(a, doff, n);
}

static void prove_set(const char *name, kflush_memset_flushcache_fn fn, struct tu_area *a,
		      size_t doff, size_t n, const unsigned char *expect)
{
	unsigned char *d = tu_at(a, doff);
	struct rec_report r;

	watch(a, doff, n);
	fn(d, expect[0], n);
	rec_verify(d, n, &r);
	rec_end();
	if (r.dirty_lines || r.unwritten || r.outside || r.wb_outside || r.fences)
		fail_report("memset_flushcache", name, n, doff, &r, d);
	if (tu_check(a, doff, expect, n) >= 0)
		cr_assert_fail("memset_flushcache %s: n=%zu dst+%zu: wrong data", name, n, doff);
	tu_restore(a, doff, n);
}

static void sweep_copy(const char *name, kflush_memcpy_flushcache_fn fn, size_t fences)
{
	struct tu_area a = tu_area_new(TU_SWEEP_MAX);
	struct tu_area big = tu_area_new(TU_MAX_SIZE);

	for (size_t n = 0; n <= TU_SWEEP_MAX; n++)
		for (size_t doff = 0; doff < 64; doff++)
			for (size_t i = 0; i < ARRAY_SIZE(src_offs); i++)
				prove_copy(name, fn, &a, doff, src_offs[i], n, fences);
	for (size_t l = 0; l < tu_nr_large_sizes; l++)
		for (size_t i = 0; i < ARRAY_SIZE(large_dst_offs); i++)
			prove_copy(name, fn, &big, large_dst_offs[i], 5, tu_large_sizes[l], fences);
	tu_area_free(&a);
	tu_area_free(&big);
}

static void sweep_set(const char *name, kflush_memset_flushcache_fn fn)
{
	struct tu_area a = tu_area_new(TU_SWEEP_MAX);
	struct tu_area big = tu_area_new(TU_MAX_SIZE);
	unsigned char *expect = malloc(TU_MAX_SIZE);

	cr_assert(expect);
	memset(expect, 0xc3, TU_MAX_SIZE);
	for (size_t n = 0; n <= TU_SWEEP_MAX; n++)
		for (size_t doff = 0; doff < 64; doff++)
			prove_set(name, fn, &a, doff, n, expect);
	for (size_t l = 0; l < tu_nr_large_sizes; l++)
		for (size_t i = 0; i < ARRAY_SIZE(large_dst_offs); i++)
			prove_set(name, fn, &big, large_dst_offs[i], tu_large_sizes[l], expect);
	free(expect);
	tu_area_free(&a);
	tu_area_free(&big);
}

ParameterizedTestParameters(persistence, memcpy_flushcache)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, persistence, memcpy_flushcache,
		  .init = setup, .fini = teardown)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert(fn);
	sweep_copy(v->name, (kflush_memcpy_flushcache_fn)fn, 0);
}

ParameterizedTestParameters(persistence, memset_flushcache)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMSET_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, persistence, memset_flushcache,
		  .init = setup, .fini = teardown)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_MEMSET_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert(fn);
	sweep_set(v->name, (kflush_memset_flushcache_fn)fn);
}

Test(persistence, entry_points, .init = setup, .fini = teardown)
{
	sweep_copy("kflush_memcpy_flushcache", kflush_memcpy_flushcache, 0);
	sweep_set("kflush_memset_flushcache", kflush_memset_flushcache);
}

/* The one call in the family that fences, exactly once, after the copy. */
Test(persistence, memcpy_persist_fences_once, .init = setup, .fini = teardown)
{
	sweep_copy("kflush_memcpy_persist", kflush_memcpy_persist, 1);
}

/*
 * Negative self-tests: the proof must be able to fail. Each feeds the
 * recorder the events of a broken flush-copy and expects rec_verify() to
 * reject it, for the reason it was broken.
 */
Test(persistence, recorder_catches_dirty_line)
{
	unsigned char buf[512] __attribute__((aligned(64)));
	struct rec_report r;

	/* cached_copy() with no write-back: what a forgotten writeback_range() does. */
	rec_begin(buf, sizeof(buf));
	kflush_rec(REC_NT, buf + 64, 64);
	kflush_rec(REC_CACHED, buf + 128, 3);
	cr_assert_eq(rec_verify(buf + 64, 67, &r), -1);
	cr_assert_eq(r.dirty_lines, 1);
	cr_assert_eq(r.first_bad, (uintptr_t)(buf + 128));
	/* Writing back the line makes the same events pass. */
	kflush_rec(REC_WRITEBACK, buf + 128, 1);
	cr_assert_eq(rec_verify(buf + 64, 67, &r), 0);
	/* A later cached store dirties it again; a non-temporal one does not clean it. */
	kflush_rec(REC_CACHED, buf + 129, 1);
	kflush_rec(REC_NT, buf + 128, 8);
	cr_assert_eq(rec_verify(buf + 64, 67, &r), -1);
	cr_assert_eq(r.dirty_lines, 1);
	rec_end();
}

Test(persistence, recorder_catches_unwritten_outside_fence)
{
	unsigned char buf[512] __attribute__((aligned(64)));
	struct rec_report r;

	rec_begin(buf, sizeof(buf));
	kflush_rec(REC_NT, buf + 64, 63);
	cr_assert_eq(rec_verify(buf + 64, 64, &r), -1);
	cr_assert_eq(r.unwritten, 1);
	rec_end();

	rec_begin(buf, sizeof(buf));
	kflush_rec(REC_NT, buf + 64, 65);
	cr_assert_eq(rec_verify(buf + 64, 64, &r), -1);
	cr_assert_eq(r.outside, 1);
	rec_end();

	/* Outside the watched window altogether. */
	rec_begin(buf + 64, 64);
	kflush_rec(REC_NT, buf + 64, 64);
	kflush_rec(REC_NT, buf + 256, 8);
	cr_assert_eq(rec_verify(buf + 64, 64, &r), -1);
	cr_assert_eq(r.outside, 8);
	rec_end();

	rec_begin(buf, sizeof(buf));
	kflush_rec(REC_NT, buf + 64, 64);
	kflush_rec(REC_FENCE, NULL, 0);
	cr_assert_eq(rec_verify(buf + 64, 64, &r), -1);
	cr_assert_eq(r.fences, 1);
	rec_end();
}

/* The real library code, made wrong on purpose: a cached store nobody writes back. */
Test(persistence, recorder_catches_real_cached_store)
{
	unsigned char buf[256] __attribute__((aligned(64)));
	unsigned char s[64];
	struct rec_report r;

	tu_fill(s, sizeof(s), 1);
	rec_begin(buf, sizeof(buf));
	kflush_memcpy_flushcache(buf + 64, s, 61);
	cr_assert_eq(rec_verify(buf + 64, 61, &r), 0);
	memcpy(buf + 64, s, 61);
	kflush_rec(REC_CACHED, buf + 64, 61);
	cr_assert_eq(rec_verify(buf + 64, 61, &r), -1);
	cr_assert_eq(r.dirty_lines, 1);
	/* kflush_flush over the range is exactly what clears it. */
	kflush_flush(buf + 64, 61);
	cr_assert_eq(rec_verify(buf + 64, 61, &r), 0);
	rec_end();
}

/* The record build is this test's whole basis: make sure it is the one linked. */
Test(persistence, recording_build_is_linked)
{
	unsigned char buf[128] __attribute__((aligned(64)));
	unsigned char s[64] = { 1 };
	struct rec_report r;

	rec_begin(buf, sizeof(buf));
	kflush_memcpy_flushcache(buf, s, 64);
	rec_verify(buf, 64, &r);
	rec_end();
	cr_assert_eq(r.nt_bytes + r.cached_bytes, 64, "no stores recorded: not the recording build?");
}
