// SPDX-License-Identifier: MIT
/*
 * clear-bench's engine: the contenders, the interleaved rounds that time
 * them over each extent (a new order each round), and the targets. Each
 * sample refills its pages with non-zero data first, outside the timed
 * region; "cold" then evicts them, "hot" leaves them in the cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clear.h"
#include "../common/rng.h"

void clear_add(struct clear_run *x, const char *name, enum bench_class cls, enum clear_kind kind,
	       kflush_fn fn, unsigned int flags)
{
	struct clear_contender *k;

	if (x->nv == CLEAR_MAX_CONTENDERS || (cls != BENCH_ROOF && !bench_selected(x->only, name)))
		return;
	k = &x->v[x->nv++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->cls = cls;
	k->kind = kind;
	k->fn = fn;
	k->flags = flags;
	k->roof = NULL;
	k->id = bench_res_contender(x->res, name, cls);
}

void clear_add_variants(struct clear_run *x, enum kflush_op op, enum clear_kind kind)
{
	for (int i = 0; i < kflush_variant_count(op); i++) {
		kflush_fn fn = kflush_variant_fn(op, (unsigned int)i);
		char name[64];

		if (!fn)
			continue;
		bench_variant_label(name, sizeof(name), (int)op, i);
		clear_add(x, name, BENCH_KFLUSH, kind, fn, 0);
		if (x->nv && !strcmp(x->v[x->nv - 1].name, name))
			bench_res_set_variant(x->res, x->v[x->nv - 1].id, (int)op, i);
	}
}

/*
 * The roof's strategies: "roof:rep_stosb", "roof:clzero", "roof:nt_zero(avx2)",
 * and "roof:zero(cached_clwb)" and "roof:zero(cached_clwb_512)" for cached
 * stores written back.
 */
void clear_add_roofs(struct clear_run *x)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
	size_t ns = roof_strategies(ROOF_ZERO, s, ROOF_MAX_STRATEGIES);

	for (size_t i = 0; i < ns && x->nv < CLEAR_MAX_CONTENDERS; i++) {
		char name[64];

		snprintf(name, sizeof(name), s[i]->zero ? "roof:%s" : s[i]->write_back ?
			 "roof:zero(%s)" : "roof:nt_zero(%s)", s[i]->name);
		clear_add(x, name, BENCH_ROOF, CLEAR_CALL_ROOF, NULL, 0);
		x->v[x->nv - 1].roof = s[i];
		bench_res_set_strategy(x->res, x->v[x->nv - 1].id, s[i]->name);
	}
}

/* Clear @count extents of @ext bytes from @d, one call per extent. */
static uint64_t run(const struct clear_run *x, const struct clear_contender *k, char *d, size_t ext,
		    size_t count)
{
	size_t pages = ext / KFLUSH_PAGE_SIZE;
	uint64_t t0 = bench_now();

	for (size_t e = 0; e < count; e++, d += ext) {
		switch (k->kind) {
		case CLEAR_CALL_PAGE: {
			kflush_clear_page_fn f = (kflush_clear_page_fn)k->fn;

			for (size_t p = 0; p < pages; p++)
				f(d + p * KFLUSH_PAGE_SIZE);
			break;
		}
		case CLEAR_CALL_PAGES:
		case CLEAR_CALL_PAGES_FC:
			((kflush_clear_pages_fn)k->fn)(d, pages);
			break;
		case CLEAR_CALL_MEMSET_FC:
			((kflush_memset_flushcache_fn)k->fn)(d, 0, ext);
			break;
		case CLEAR_CALL_PMEM:
			x->b.pmem_memset(d, 0, ext, k->flags);
			break;
		case CLEAR_CALL_GLIBC:
			memset(d, 0, ext);
			bench_barrier();
			break;
		case CLEAR_CALL_ROOF:
			roof_store(k->roof, ROOF_ZERO, d, NULL, ext);
			break;
		}
	}
	/* A weakly ordered roof fences once per sample, as the durable kinds drain. */
	if (k->kind == CLEAR_CALL_ROOF)
		roof_fence(k->roof);
	/* The durable kinds owe one drain, like a caller before it relies on it. */
	if (k->kind == CLEAR_CALL_PAGES_FC || k->kind == CLEAR_CALL_MEMSET_FC)
		kflush_drain();
	else if (k->kind == CLEAR_CALL_PMEM)
		x->b.pmem_drain();
	return bench_now() - t0;
}

static int check_zero(const char *d, size_t len)
{
	static const char zero[256];
	size_t probe[] = { 0, len / 3, len / 2, len - sizeof(zero) };

	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		if (memcmp(d + probe[i], zero, sizeof(zero)))
			return -1;
	return 0;
}

/* The bytes one sample of extent @ext clears: whole extents, about @budget. */
size_t clear_sample_area(size_t ext, bool hot)
{
	size_t budget = hot ? (1u << 20) : (8u << 20);

	return (ext >= budget ? 1 : budget / ext) * ext;
}

/*
 * How many times a sample refills and clears its area, timing the clears
 * alone: hot, one clear of 1-4 MiB takes 20-50 us at cached speed, and
 * the medians of single clears of 2 MiB put rep stosq as a roof and as
 * clear_pages 11-25 % apart (spreads of 14-313 %: Intel family 6 model
 * 0xa7, a default run and three of 11 rounds); with 32 MiB a sample
 * (16 clears of 2 MiB), 0-4 % (spreads of 12-37 %), three runs of 11
 * rounds. Cold samples are long already (8 MiB from memory).
 */
size_t clear_sample_reps(size_t ext, bool hot)
{
	size_t area = clear_sample_area(ext, hot);

	return hot && area < CLEAR_HOT_SAMPLE_BYTES ? CLEAR_HOT_SAMPLE_BYTES / area : 1;
}

/* The bytes the samples of the cache states asked for write, refills included. */
uint64_t clear_planned(const struct clear_run *x)
{
	uint64_t sum = 0;

	for (int h = 0; h < 2; h++) {
		if (!(x->cache & (h ? 1u : 2u)))
			continue;
		for (size_t i = 0; i < x->nextents; i++) {
			size_t area = clear_sample_area(x->extents[i], h);

			if (area <= (h ? BENCH_HOT_SPAN : x->b.len))
				sum += 2ull * area * clear_sample_reps(x->extents[i], h) * x->rounds *
				       x->nv;
		}
	}
	return sum;
}

bool clear_extent_fits(const struct clear_run *x, size_t ext, size_t buffer)
{
	return ((x->cache & 1u) && clear_sample_area(ext, true) <= BENCH_HOT_SPAN) ||
	       ((x->cache & 2u) && clear_sample_area(ext, false) <= buffer);
}

/* Whether some extent can run in a cache state asked for (else: an error). */
bool clear_fits(const struct clear_run *x, size_t buffer)
{
	for (size_t i = 0; i < x->nextents; i++)
		if (clear_extent_fits(x, x->extents[i], buffer))
			return true;
	return false;
}

/*
 * Rounds @r0..@r1-1 of extent @ext: every contender, in a new order each
 * round, cold on the round's area, the next of the walk, the same for
 * every contender of the round (copy_run.c, run_rounds(), says why), or on
 * the span @pool gives it, or hot on the hot window. 1 to go on, 0 to stop
 * (Ctrl-C), -1 when a contender left non-zero bytes.
 */
static int run_rounds(struct clear_run *x, int g, bool hot, size_t ext, unsigned int r0,
		      unsigned int r1, const struct bench_pool *pool)
{
	size_t area = clear_sample_area(ext, hot), count = area / ext;
	size_t reps = clear_sample_reps(ext, hot);

	for (unsigned int r = r0; r < r1; r++) {
		size_t order[CLEAR_MAX_CONTENDERS];
		size_t round_off = hot || pool ? 0 : bench_cold(&x->b, area);

		rng_round_order(order, x->nv, r);
		for (size_t j = 0; j < x->nv; j++) {
			const struct clear_contender *k = &x->v[order[j]];
			size_t off;
			int span = -1;
			char *d;
			uint64_t ns;

			if (pool) {
				span = (int)bench_pool_span(pool, pool->slot[order[j]], r);
				off = pool->off[span];
			} else {
				off = hot ? bench_hot_base(&x->b) : round_off;
			}
			d = x->b.dst + off;
			ns = 0;
			for (size_t i = 0; i < reps; i++) {
				/* Untimed: non-zero pages, then out of the cache if cold. */
				memset(d, 0xa5, area);
				if (!hot)
					x->evict(d, area);
				__asm__ __volatile__("mfence" : : : "memory");
				ns += run(x, k, d, ext, count);
				if (check_zero(d, area)) {
					fprintf(stderr, "pmemtest: %s left non-zero bytes\n", k->name);
					return -1;
				}
			}
			bench_res_add(x->res, g, k->id, ext, r, span, hot ? -1 : (int64_t)off,
				      reps * count * (ext / KFLUSH_PAGE_SIZE), reps * area, ns);
			/* The refill writes the area too: twice its bytes. */
			progress_add(&x->prog, 2 * (uint64_t)area * reps);
			if (progress_interrupted())
				return 0;
		}
	}
	return 1;
}

_Static_assert(CLEAR_MAX_CONTENDERS <= BENCH_POOL_MAX, "a pool slot per contender");

/*
 * A contender over the roof after the rounds asked for: every contender of
 * the extent runs BENCH_AGAIN_ROUNDS more, as in copy-bench (copy_run.c
 * says why), or cold the least multiple of n from there on a pool of n
 * areas, one per contender or as many as fit the buffer side by side,
 * each contender equally often on each (bench_pool_rounds()); the extent's
 * numbers and verdict are of those rounds alone (bench_res_screen()).
 * Every sample refills its area and, cold, evicts
 * it before it is timed, so a pooled area is as cold as a new one.
 */
static int confirm_roof(struct clear_run *x, int g, bool hot, size_t ext)
{
	size_t area = clear_sample_area(ext, hot);
	unsigned int over = bench_res_screen(x->res, g, ext, x->rounds), pooled, again;
	struct bench_pool pool = { .m = x->nv };

	if (!over)
		return 1;
	for (size_t j = 0; j < x->nv; j++)
		pool.slot[j] = j;
	pooled = hot ? 0 : bench_pool_rounds(&x->b, &pool, area, BENCH_AGAIN_ROUNDS(x->rounds));
	again = pooled ? pooled : BENCH_AGAIN_ROUNDS(x->rounds);
	if (pooled)
		bench_pool_take(&x->b, &pool, area);
	x->again += over;
	progress_more(&x->prog, 2ull * area * clear_sample_reps(ext, hot) * x->nv * again);
	return run_rounds(x, g, hot, ext, x->rounds, x->rounds + again, pooled ? &pool : NULL);
}

int clear_run_extents(struct clear_run *x, bool hot)
{
	int g = bench_res_group(x->res, "clear", hot ? "hot" : "cold", "extent");

	for (size_t ei = 0; ei < x->nextents; ei++) {
		size_t ext = x->extents[ei], area = clear_sample_area(ext, hot);
		int go;

		if (hot && area > BENCH_HOT_SPAN)
			continue;
		if (!hot && area > x->b.len) {
			bench_res_note(x->res, "extent %zu B skipped: larger than --buffer", ext);
			continue;
		}
		go = run_rounds(x, g, hot, ext, 0, x->rounds, NULL);
		if (go > 0)
			go = confirm_roof(x, g, hot, ext);
		if (go <= 0)
			return go < 0 ? -1 : g;
	}
	return g;
}

/*
 * The best roof of one kind at @ext: cached (rep stos, the lines left in
 * the cache, what clear_pages promises) or durable (NT zero stores, clzero,
 * or cached stores written back: what clear_pages_flushcache promises).
 */
static double kind_roof(const struct clear_run *x, int g, size_t ext, bool durable,
			const char **how)
{
	double best = 0;

	*how = NULL;
	for (size_t i = 0; i < x->nv; i++) {
		const struct clear_contender *k = &x->v[i];
		double gb;

		if (k->kind != CLEAR_CALL_ROOF || (k->roof->nt || k->roof->write_back) != durable)
			continue;
		gb = bench_res_median_gbps(x->res, g, k->id, ext);
		if (gb > best) {
			best = gb;
			*how = k->roof->name;
		}
	}
	return best;
}

/*
 * Each bound page clear against the roof of its own kind: a cached clear
 * is held to the fastest cached zeroing, not to NT stores, which leave
 * nothing in the cache and so are not the same job (cold, NT zeroing runs
 * 2-2.5x rep stosb: issue 4, and libkflush(7)).
 */
void clear_targets(struct clear_run *x, int g, const char *cache)
{
	static const struct {
		enum clear_kind kind;
		bool durable;
		const char *roof;
	} want[] = {
		{ CLEAR_CALL_PAGES, false, "cached roof" },
		{ CLEAR_CALL_PAGES_FC, true, "durable roof" },
	};

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		const struct clear_contender *bound = NULL;

		for (size_t i = 0; i < x->nv; i++)
			if (x->v[i].kind == want[w].kind && strstr(x->v[i].name, "(bound)"))
				bound = &x->v[i];
		if (!bound)
			continue;
		for (size_t ei = 0; ei < x->nextents; ei++) {
			size_t ext = x->extents[ei];
			double me = bench_res_median_gbps(x->res, g, bound->id, ext);
			const char *how;
			double rf = kind_roof(x, g, ext, want[w].durable, &how);

			if (!me || !rf || ext < (2u << 20))
				continue;
			bench_res_note(x->res, "target %s %zu MiB: %s %.2f GB/s = %.3fx the %s (%s) "
				       "(want >= 0.95: %s)", cache, ext >> 20, bound->name, me,
				       me / rf, want[w].roof, how, me / rf >= 0.95 ? "met" : "NOT met");
		}
	}
}

