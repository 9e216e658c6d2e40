// SPDX-License-Identifier: MIT
/*
 * Which stores a memmove_flushcache variant's move runs, watched
 * instruction by instruction (tests/trace/), against the rules of
 * kflush_memmove_flushcache(3) and libkflush(7), stated here, not read
 * from the library: a move of fewer than 256 bytes whose two ends share
 * a cache line makes no NT store at all (ordinary stores, written back);
 * from 256 bytes, or with the ends in lines of their own, NT stores
 * again, and from 256 bytes those only in whole destination lines, the
 * partial edge lines cached. test_memmove.c checks the bytes and
 * test_move_persistence.c the lines.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "trace/stores.h"

/* A move to ts_arena+8192+@doff from @dist below it; checks the bytes. */
static void traced_move_to(const char *name, kflush_memmove_flushcache_fn fn, size_t doff, size_t n,
			   long dist, tt_sink fsink, void *ctx)
{
	static unsigned char want[4096];
	unsigned char *dst = ts_arena + 8192 + doff, *src = dst - dist;
	char err[256] = "";

	for (size_t i = 0; i < 16384; i++)
		ts_arena[i] = (unsigned char)(i * 131 + n);
	memcpy(want, src, n);
	cr_assert_eq(tt_call(&ts_tracer, (const void *)fn, (uint64_t)(uintptr_t)dst,
			     (uint64_t)(uintptr_t)src, n, fsink, ctx, err, sizeof(err)), 0,
		     "%s n=%zu dst+%zu dist=%ld: %s", name, n, doff, dist, err);
	cr_assert(memcmp(dst, want, n) == 0, "%s n=%zu dst+%zu dist=%ld: wrong bytes", name, n, doff,
		  dist);
}

static struct ts_seen traced_move(const char *name, kflush_memmove_flushcache_fn fn, size_t n,
				  long dist)
{
	struct ts_seen s;

	memset(&s, 0, sizeof(s));
	traced_move_to(name, fn, 0, n, dist, ts_sink, &s);
	return s;
}

Test(memmove_stores, short_moves_in_their_lines, .init = ts_setup, .fini = ts_teardown)
{
	static const char *const names[] = { "avx512", "avx2", "avx2_short_cached", "movnti" };
	static const size_t cached[] = { 16, 24, 48, 64, 96, 128, 192, 255 };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
		kflush_memmove_flushcache_fn fn =
			(kflush_memmove_flushcache_fn)ts_variant(KFLUSH_OP_MEMMOVE_FLUSHCACHE, names[v]);
		struct ts_seen s;

		if (!fn) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", names[v]);
			continue;
		}
		ran++;
		/* A quarter of the size apart, both ways: copy-bench's move layouts. */
		for (size_t i = 0; i < sizeof(cached) / sizeof(cached[0]); i++)
			for (int sign = -1; sign <= 1; sign += 2) {
				long dist = sign * (long)(cached[i] / 4);

				s = traced_move(names[v], fn, cached[i], dist);
				cr_expect_eq(ts_nt_stores(&s), 0, "%s n=%zu dist=%ld: %zu NT stores in a move "
					     "within its lines", names[v], cached[i], dist, ts_nt_stores(&s));
				cr_expect_gt(s.other, 0, "%s n=%zu dist=%ld: no ordinary store",
					     names[v], cached[i], dist);
			}
		s = traced_move(names[v], fn, 256, 64);
		cr_expect_gt(ts_nt_stores(&s), 0, "%s n=256 dist=64: no NT store", names[v]);
		s = traced_move(names[v], fn, 256, -64);
		cr_expect_gt(ts_nt_stores(&s), 0, "%s n=256 dist=-64: no NT store", names[v]);
		s = traced_move(names[v], fn, 64, 192);
		cr_expect_gt(ts_nt_stores(&s), 0, "%s n=64 dist=192 (lines of their own): no NT store",
			     names[v]);
	}
	if (!ran)
		cr_skip_test("no memmove_flushcache variant of these usable here");
	cr_log_info("%zu instructions stepped", ts_tracer.steps);
}

/* Where a move's NT stores land, against the destination's whole lines. */
struct edges {
	uint64_t d0, d1;	/* the destination [d0, d1) */
	size_t nt_bytes;	/* NT bytes stored in whole destination lines */
	size_t nt_elsewhere;	/* NT stores not inside one */
	char first_elsewhere[256];
};

static void edges_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct edges *g = ctx;
	uint64_t l0 = (g->d0 + 63) & ~(uint64_t)63, l1 = g->d1 & ~(uint64_t)63;

	if (e->kind != TD_STORE_NT)
		return;
	if (e->addr >= l0 && e->addr + e->len <= l1) {
		g->nt_bytes += e->len;
		return;
	}
	if (!g->nt_elsewhere++)
		snprintf(g->first_elsewhere, sizeof(g->first_elsewhere), "%s at dst%+ld", in->text,
			 (long)(e->addr - g->d0));
}

/*
 * The rule of kflush_memmove_flushcache(3): from 256 bytes, a move stores
 * its whole destination lines non-temporally and its partial edge lines
 * with ordinary stores, written back, whichever way it runs and whatever
 * the destination's alignment (the 8-aligned ones too, where a copy
 * stores words non-temporally). In a "_short_cached" variant
 * (libkflush(7), Variants) a backward move below 768 bytes with a partial
 * edge line stores nothing non-temporally.
 */
Test(memmove_stores, long_moves_cache_their_edges, .init = ts_setup, .fini = ts_teardown)
{
	static const char *const names[] = { "avx512", "avx2", "avx2_short_cached", "movnti" };
	static const size_t sizes[] = { 256, 257, 301, 318, 320, 448, 700, 767, 768, 1000, 2600 };
	static const size_t doffs[] = { 0, 8, 16, 40, 63 };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
		kflush_memmove_flushcache_fn fn =
			(kflush_memmove_flushcache_fn)ts_variant(KFLUSH_OP_MEMMOVE_FLUSHCACHE, names[v]);

		if (!fn)
			continue;
		ran++;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t o = 0; o < sizeof(doffs) / sizeof(doffs[0]); o++)
				for (int sign = -1; sign <= 1; sign += 2) {
					size_t n = sizes[i], doff = doffs[o];
					long dist = sign * (long)(n / 4);
					uint64_t d0 = (uint64_t)(uintptr_t)(ts_arena + 8192 + doff);
					struct edges g = { .d0 = d0, .d1 = d0 + n };
					size_t whole = (size_t)((g.d1 & ~(uint64_t)63) -
								((d0 + 63) & ~(uint64_t)63));
					/* dist > 0: above its source, overlapping, so backward. */
					int cached = ts_short_cached(names[v]) && sign > 0 &&
						     n < TS_SHORT_CACHED_BELOW && ((doff + n) % 64 || doff);

					if (cached)
						whole = 0;

					traced_move_to(names[v], fn, doff, n, dist, edges_sink, &g);
					cr_expect_eq(g.nt_elsewhere, 0, "%s n=%zu dst+%zu dist=%ld: %zu NT "
						     "stores outside the whole lines, first %s", names[v], n,
						     doff, dist, g.nt_elsewhere, g.first_elsewhere);
					cr_expect_eq(g.nt_bytes, whole, "%s n=%zu dst+%zu dist=%ld: %zu NT "
						     "bytes in the %zu bytes of whole lines", names[v], n,
						     doff, dist, g.nt_bytes, whole);
				}
	}
	if (!ran)
		cr_skip_test("no memmove_flushcache variant of these usable here");
}
