// SPDX-License-Identifier: MIT
/*
 * copy-bench's engine: the contender table modes register into, and the
 * interleaved rounds that time them (A B C C A B ..., a new order each round)
 * into the result set. It knows contenders and layouts, never the modes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "copy.h"
#include "../common/rng.h"

const char *const copy_layout_names[COPY_NR_LAYOUTS] = {
	[BENCH_FIXED] = "fixed", [BENCH_RANDOM] = "random", [BENCH_MIX] = "mix",
	[BENCH_PACKED] = "packed", [BENCH_DOWN] = "down", [BENCH_UP] = "up",
};

void copy_add(struct copy_run *x, struct copy_contender *v, size_t *n, const char *name,
	    enum bench_class cls, enum copy_kind kind, kflush_fn fn, unsigned int flags)
{
	struct copy_contender *k;

	/* Roofs always run: every ratio needs them. */
	if (*n == COPY_MAX_CONTENDERS || (cls != BENCH_ROOF && !bench_selected(x->o.only, name)))
		return;
	k = &v[(*n)++];

	snprintf(k->name, sizeof(k->name), "%s", name);
	k->cls = cls;
	k->kind = kind;
	k->fn = fn;
	k->flags = flags;
	k->roof = NULL;
	k->id = bench_res_contender(x->res, k->name, cls);
}

void copy_add_roofs(struct copy_run *x, struct copy_contender *v, size_t *n, unsigned int use,
		    enum copy_kind kind, const char *prefix)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
	size_t ns = roof_strategies(use, s, ROOF_MAX_STRATEGIES);

	for (size_t i = 0; i < ns && *n < COPY_MAX_CONTENDERS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "roof:%s(%s)", prefix, s[i]->name);
		copy_add(x, v, n, name, BENCH_ROOF, kind, NULL, 0);
		v[*n - 1].roof = s[i];
		bench_res_set_strategy(x->res, v[*n - 1].id, s[i]->name);
	}
}

/* Every usable variant of @op, NO_BIND ones included. */
void copy_add_variants(struct copy_run *x, struct copy_contender *v, size_t *n, enum kflush_op op,
		     enum copy_kind kind)
{
	/* Room is kept for the peers and the roof strategies. */
	for (int i = 0; i < kflush_variant_count(op) && *n < COPY_MAX_CONTENDERS - 12; i++) {
		kflush_fn fn = kflush_variant_fn(op, (unsigned int)i);
		char name[64];

		if (!fn)
			continue;
		bench_variant_label(name, sizeof(name), (int)op, i);
		copy_add(x, v, n, name, BENCH_KFLUSH, kind, fn, 0);
		if (*n && v[*n - 1].fn == fn && !strcmp(v[*n - 1].name, name))
			bench_res_set_variant(x->res, v[*n - 1].id, (int)op, i);
	}
}

/* Read the hot window so both sides start in the cache, clean. */
static void warm(const char *p, size_t span)
{
	volatile char sink = 0;

	for (size_t i = 0; i < span; i += 64)
		sink ^= p[i];
	(void)sink;
}

#define ROOF_RANDOM_MIN 4096

static bool is_roof(const struct copy_contender *k)
{
	return k->kind == CALL_ROOF_COPY || k->kind == CALL_ROOF_FILL;
}

/*
 * The layout whose calls a roof runs at @size in @layout, or -1 for none.
 * The roof streams whole aligned lines: exactly the bytes of a fixed
 * layout of whole lines; in a random layout (sizes within 25 %, any
 * offsets) the lines inside each copy, from 4 KiB, where the edges it
 * leaves out are under 128 of at least 3072 bytes (4 %), and below, the
 * fixed layout's calls of the size, in the random layout's own rounds
 * (size_calls). A roof taken from the fixed layout's rounds instead was
 * beaten there: Intel Xeon family 6 model 0xcf, sweep, cold random 64
 * KiB-3 MiB, contenders 1.04-1.11x it (other calls, other memory); AMD
 * EPYC family 0x17 model 0x31, hot random 3072 B, five contenders
 * 1.05-1.10x it in a run of 21 rounds (another time). Packed calls of
 * whole lines store exactly the fixed layout's bytes, and the roof runs
 * them as they are, in their own rounds.
 */
static int roof_calls_layout(enum bench_layout layout, size_t size)
{
	if (layout == BENCH_RANDOM && size >= ROOF_RANDOM_MIN)
		return BENCH_RANDOM;
	if ((layout == BENCH_FIXED || layout == BENCH_PACKED) && size >= 64 && size % 64 == 0)
		return layout;
	if (layout == BENCH_RANDOM && size >= 64 && size % 64 == 0)
		return BENCH_FIXED;
	return -1;
}

static bool applies(const struct copy_contender *k, enum bench_layout layout, size_t size)
{
	return !is_roof(k) || (roof_calls_layout(layout, size) >= 0 && size >= k->roof->min_len);
}

/*
 * The calls of one size: the contenders' (@calls), and where the roofs run
 * another layout's (roof_calls_layout()), theirs (@fixed, else empty: no
 * calls), timed in the same rounds as the contenders.
 */
struct size_calls {
	struct bench_calls calls, fixed;
};

static const struct bench_calls *calls_of(const struct size_calls *c, const struct copy_contender *k)
{
	return c->fixed.n && is_roof(k) ? &c->fixed : &c->calls;
}

/* What a pooled span holds: the larger span of the two tables. */
static size_t size_calls_span(const struct size_calls *c)
{
	return c->fixed.span > c->calls.span ? c->fixed.span : c->calls.span;
}

static void size_calls_free(struct size_calls *c)
{
	bench_calls_free(&c->calls);
	bench_calls_free(&c->fixed);
}

/* One group: for each size, rounds of every contender, a new order each round. */
bool copy_account(struct copy_run *x, const struct copy_contender *k, uint64_t calls,
		  uint64_t bytes)
{
	if (x->plan) {
		x->planned += copy_sample_cost(calls, bytes);
		x->planned_measured += k->cls != BENCH_ROOF;
	} else {
		progress_add(&x->prog, copy_sample_cost(calls, bytes));
	}
	return !progress_interrupted();
}

/*
 * Rounds @r0..@r1-1 of one size: every contender, in a new order each
 * round, on the warmed hot window or cold on the round's span: the next
 * of the walk, the same for every contender of the round, or with @pool
 * that of again_pool(). Returns false when the run is to stop.
 *
 * Every contender of a round on the same memory: a span ran at much the
 * same speed each time it came round, and the speeds of two copies can
 * rank differently on different spans. On Intel family 6 model 0xa7
 * (KVM), 64 MiB NT copies at each 64 MiB of the 1 GiB buffers: movdir64b
 * 9.2-10.1 GB/s on a quarter to a third of them, whichever of source and
 * destination lay there, 10.4-12.7 on the rest, avx2 8.4-10.6, while the
 * avx512 copy with 2 KiB of loads in flight (PMDK's) held 10.3-11.0 on
 * all but one of 64 (9.4). With a span of its own per sample, two default
 * bulk runs put the bound (then one stream of movdir64b lines) at
 * 0.90-1.19x PMDK by size, and wherever it lost by more than 3 % the avx2
 * copy, slow on the same memory, ran 1.04-1.09x PMDK: they had drawn
 * other spans. Four runs on the round's span: the bound 0.88-1.16x, and
 * wherever it lost by more than 3 % avx2 lost too (0.94-0.98x).
 */
static bool run_rounds(struct copy_run *x, int g, bool hot, enum bench_layout layout, size_t size,
		       const struct size_calls *c, const struct copy_contender *v, size_t nv,
		       unsigned int r0, unsigned int r1, const struct bench_pool *pool)
{
	/* A move's source is in the destination buffer, a copy's in its own. */
	const char *src = layout == BENCH_DOWN || layout == BENCH_UP ? x->b.dst : x->b.src;

	for (unsigned int r = r0; r < r1; r++) {
		size_t order[COPY_MAX_CONTENDERS];
		size_t round_off = hot || pool || x->plan ? 0 : bench_cold(&x->b, size_calls_span(c));

		rng_round_order(order, nv, r);
		for (size_t j = 0; j < nv; j++) {
			const struct copy_contender *k = &v[order[j]];
			const struct bench_calls *t = calls_of(c, k);
			size_t off;
			int span = -1;
			uint64_t ns;

			if (!applies(k, layout, size))
				continue;
			if (x->plan) {
				copy_account(x, k, t->n, t->bytes);
				continue;
			}
			if (hot) {
				off = bench_hot_base(&x->b);
				warm(x->b.dst + off, t->span);
				warm(src + off, t->span);
			} else {
				if (pool) {
					span = (int)bench_pool_span(pool, pool->slot[order[j]], r);
					off = pool->off[span];
				} else {
					off = round_off;
				}
				/* Untimed: the span out of the cache, both sides. */
				x->evict(x->b.dst + off, t->span);
				x->evict(src + off, t->span);
				kflush_drain();
			}
			ns = copy_run_calls(x, k, t, x->b.dst + off, src + off);
			bench_res_add(x->res, g, k->id, size, r, span, hot ? -1 : (int64_t)off, t->n,
				      t->bytes, ns);
			if (!copy_account(x, k, t->n, t->bytes))
				return false;
		}
	}
	return true;
}

/*
 * A contender more than the tolerance above the roof of its size after the
 * rounds asked for is measured again before it is called a roof error:
 * every contender of the size runs BENCH_AGAIN_ROUNDS(rounds) more rounds,
 * interleaved, and the size's numbers and verdict are of those rounds
 * alone (bench_res_screen() says why). Five rounds were too
 * few to tell two copies of the same loop apart: on Intel family 6 model
 * 0xa7 the movdir64b variant against the movdir64b roof was over 1.03x in
 * 21 of the 131 cells of a default run, and under 0.97x in 28. Each cold
 * sample takes a span of memory of its own, and a span ran at much the
 * same speed each time it came round (a correlation of 0.62-0.66 between
 * two passes), so the spans a contender drew decided a five-round median.
 * Every contender, not only those over the roof and the roofs: new roof
 * samples taken beside one contender moved the roof under the others,
 * measured at another time (one default run: avx2 alone over at 128 B
 * cold, then five others over the roof it left). A contender that really
 * beats the roof stays above it however many rounds it runs. The notes
 * count the cells that were over.
 *
 * A cold cell is measured again on a pool of spans that every contender
 * runs on alike (again_pool()), so that the spans a contender draws
 * cannot decide the verdict either.
 */
unsigned int copy_over_roof(struct copy_run *x, int g, size_t size, size_t nv, uint64_t cost,
			    unsigned int rounds)
{
	unsigned int over = bench_res_screen(x->res, g, size, x->o.rounds);

	if (!over)
		return 0;
	x->again += over;
	progress_more(&x->prog, nv * rounds * cost);
	return over;
}

/*
 * The second pass of a cold cell on a pool of spans: one span per
 * contender that runs at the size (m of them), or as many as fit the
 * buffer side by side when that is fewer (n), taken from the cold walk,
 * and in round r the contender in slot k on span (k + r) mod n, for the
 * least multiple of n rounds that is at least BENCH_AGAIN_ROUNDS, so that
 * every contender runs equally often on every span and all of them on
 * the same memory (with n = m a Latin square). A span comes round again,
 * so it is evicted before each sample. Returns the rounds and fills @p's
 * slots, or returns 0 for a hot cell (no spans); confirm_roof() takes
 * the spans. AMD EPYC family 0x17 model 0x31 (Zen 2), five alternating
 * runs of copy-bench --mode sweep,set,bulk --cache cold: 7, 1, 0, 1 and 8
 * roof errors (1.03-1.08x) with new spans, 1, 2, 0, 2 and 0
 * (1.031-1.037x) on the pool. Spans of the same size run at different
 * speeds: an avx2 NT copy of 256 MiB at three offsets of a 1 GiB buffer,
 * four runs of 21 interleaved rounds, had its slowest offset 3-10 %
 * behind its fastest; before n < m was pooled, the 256 MiB
 * cells, with new spans, had the avx2 copies over their own loop's roof
 * (1.03-1.06x) in two of four default runs.
 */
_Static_assert(COPY_MAX_CONTENDERS <= BENCH_POOL_MAX, "a pool slot per contender");

static unsigned int again_pool(const struct copy_run *x, bool hot, enum bench_layout layout,
			       size_t size, const struct size_calls *c,
			       const struct copy_contender *v, size_t nv, struct bench_pool *p)
{
	p->m = 0;
	for (size_t k = 0; k < nv; k++)
		p->slot[k] = applies(&v[k], layout, size) ? p->m++ : 0;
	if (hot)
		return 0;
	return bench_pool_rounds(&x->b, p, size_calls_span(c), BENCH_AGAIN_ROUNDS(x->o.rounds));
}

static bool confirm_roof(struct copy_run *x, int g, bool hot, enum bench_layout layout, size_t size,
			 const struct size_calls *c, const struct copy_contender *v, size_t nv)
{
	struct bench_pool pool;
	unsigned int pooled = again_pool(x, hot, layout, size, c, v, nv, &pool);
	unsigned int again = pooled ? pooled : BENCH_AGAIN_ROUNDS(x->o.rounds);
	const struct bench_calls *t = &c->calls;

	if (x->plan || !copy_over_roof(x, g, size, nv, copy_sample_cost(t->n, t->bytes), again))
		return true;
	if (pooled)
		bench_pool_take(&x->b, &pool, size_calls_span(c));
	return run_rounds(x, g, hot, layout, size, c, v, nv, x->o.rounds, x->o.rounds + again,
			  pooled ? &pool : NULL);
}

/* copy_verify_call() on the first and the last call of each contender's table. */
static int verify_size(const struct copy_run *x, const char *mode, bool hot,
		       enum bench_layout layout, size_t size, const struct size_calls *c,
		       const struct copy_contender *v, size_t nv)
{
	bool move = layout == BENCH_DOWN || layout == BENCH_UP;
	char cell[96];

	snprintf(cell, sizeof(cell), "%s %s %s, size %zu B", mode, hot ? "hot" : "cold",
		 copy_layout_names[layout], size);
	for (size_t j = 0; j < nv; j++) {
		const struct bench_calls *t = calls_of(c, &v[j]);

		if (!applies(&v[j], layout, size) || !t->n)
			continue;
		if (copy_verify_call(x, &v[j], t, 0, move, cell) ||
		    (t->n > 1 && copy_verify_call(x, &v[j], t, t->n - 1, move, cell)))
			return -1;
	}
	return 0;
}

int copy_run_group(struct copy_run *x, const char *mode, bool hot, enum bench_layout layout,
		     const size_t *sizes, size_t nsizes, size_t lo, size_t budget,
		     const struct copy_contender *v, size_t nv)
{
	int g = bench_res_group(x->res, mode, hot ? "hot" : "cold",
				copy_layout_names[layout]);

	if (budget > x->b.len)
		budget = x->b.len;

	for (size_t si = 0; si < nsizes; si++) {
		size_t size = sizes[si], hot_span = size * 2 > (256u << 10) ? size * 2 : (256u << 10);
		struct size_calls c = { 0 };
		bool fixed_roofs = layout != BENCH_FIXED && roof_calls_layout(layout, size) == BENCH_FIXED;
		bool go;

		if (hot && (hot_span > BENCH_HOT_SPAN || size > x->o.hot_max))
			continue;
		if (bench_calls_make(&c.calls, layout, size, lo, budget, x->o.max_calls, hot,
				     hot_span, &x->rng) < 0 ||
		    (fixed_roofs && bench_calls_make(&c.fixed, BENCH_FIXED, size, 0, budget,
						     x->o.max_calls, hot, hot_span, &x->rng) < 0)) {
			size_calls_free(&c);
			return -1;
		}
		if (!hot && size_calls_span(&c) > x->b.len) {
			size_calls_free(&c);
			continue;
		}
		for (size_t i = 0; x->plan && layout != BENCH_MIX && i < x->o.nsizes; i++)
			if (x->o.sizes[i] == size)
				x->o.sizes_run[i] = true;
		go = run_rounds(x, g, hot, layout, size, &c, v, nv, 0, x->o.rounds, NULL) &&
		     confirm_roof(x, g, hot, layout, size, &c, v, nv);
		if (go && !x->plan && verify_size(x, mode, hot, layout, size, &c, v, nv) < 0) {
			size_calls_free(&c);
			return -1;
		}
		size_calls_free(&c);
		if (!go)
			return g;
	}
	return g;
}

int copy_run_layouts(struct copy_run *x, const char *mode, const size_t *sizes, size_t nsizes,
		     size_t mix_lo, size_t mix_hi, size_t packed_hi, size_t budget,
		     const struct copy_contender *v, size_t nv, int groups[2][BENCH_PACKED + 1])
{
	size_t *packed = malloc((nsizes ? nsizes : 1) * sizeof(*packed)), npacked = 0;
	int ret = 0;

	if (!packed)
		return -1;
	for (size_t i = 0; i < nsizes; i++)	/* --sizes may give any order */
		if (sizes[i] <= packed_hi)
			packed[npacked++] = sizes[i];
	for (int h = 0; groups && h < 2; h++)
		for (int l = BENCH_FIXED; l <= BENCH_PACKED; l++)
			groups[h][l] = -1;
	for (int h = 0; h < 2; h++) {
		bool hot = h == 0;

		if (!(x->o.cache & (hot ? BENCH_HOT : BENCH_COLD)))
			continue;
		for (int l = BENCH_FIXED; l <= BENCH_PACKED; l++) {
			int g;

			if (!(x->o.layouts & (1u << l)) || (l == BENCH_MIX && !mix_hi) ||
			    (l == BENCH_PACKED && !npacked))
				continue;
			if (l == BENCH_MIX)
				g = copy_run_group(x, mode, hot, BENCH_MIX, &mix_hi, 1, mix_lo, budget,
						   v, nv);
			else if (l == BENCH_PACKED)
				g = copy_run_group(x, mode, hot, BENCH_PACKED, packed, npacked, 0,
						   budget, v, nv);
			else
				g = copy_run_group(x, mode, hot, (enum bench_layout)l, sizes, nsizes, 0,
					      budget, v, nv);
			if (g < 0) {
				ret = -1;
				goto out;
			}
			if (groups)
				groups[h][l] = g;
		}
	}
out:
	free(packed);
	return ret;
}

void copy_small_targets(struct copy_run *x, int groups[2][BENCH_PACKED + 1],
			const struct copy_contender *v, size_t nv, const size_t *sizes,
			size_t nsizes, const char *temporal, const char *peer)
{
	static const char *const cache[2] = { "hot", "cold" };
	const struct copy_contender *who[2] = { NULL, NULL }, *p = NULL;

	for (size_t i = 0; i < nv; i++) {
		if (!strcmp(v[i].name, temporal))
			who[0] = &v[i];
		else if (!strcmp(v[i].name, peer))
			p = &v[i];
		else if (v[i].cls == BENCH_KFLUSH && strstr(v[i].name, "(bound)") && !who[1])
			who[1] = &v[i];
	}
	for (int h = 0; p && h < 2; h++) {
		for (int l = BENCH_FIXED; who[h] && l <= BENCH_RANDOM; l++) {
			double logs = 0, worst = 0, mean;
			size_t n = 0, at = 0;

			if (groups[h][l] < 0)
				continue;
			for (size_t k = 0; k < nsizes; k++) {
				double a, b;

				if (sizes[k] < 4 || sizes[k] > 96)
					continue;
				a = bench_res_median_gbps(x->res, groups[h][l], who[h]->id, sizes[k]);
				b = bench_res_median_gbps(x->res, groups[h][l], p->id, sizes[k]);
				if (a <= 0 || b <= 0)
					continue;
				logs += log(a / b);
				if (!n++ || a / b < worst) {
					worst = a / b;
					at = sizes[k];
				}
			}
			if (!n)
				continue;
			/* The verdict of the ratio as printed: "1.00x ... NOT met" reads wrong. */
			mean = round(100 * exp(logs / (double)n)) / 100;
			bench_res_note(x->res, "target small 4..96 B %s %s: %s %.2fx %s (geometric "
				       "mean of %zu sizes, worst %.2fx at %zu B; want >= 1: %s)",
				       cache[h], l == BENCH_FIXED ? "fixed" : "random", who[h]->name,
				       mean, p->name, n, worst, at, mean >= 1 ? "met" : "NOT met");
		}
	}
}

const size_t copy_small_sizes[COPY_NR_SMALL_SIZES] = { 4, 8, 16, 32, 48, 64, 80, 96 };

/* The sizes a mode sweeps: --sizes, else log-spaced within its range. */
void copy_mode_sizes(const struct copy_run *x, size_t lo, size_t hi, const size_t *extra,
		       size_t nextra, size_t **out, size_t *n)
{
	size_t *v, k = 0;

	if (x->o.max_size && hi > x->o.max_size)
		hi = x->o.max_size;
	if (!x->o.sizes) {
		bench_log_sizes(lo, hi, extra, nextra, out, n);
		return;
	}
	v = calloc(x->o.nsizes, sizeof(*v));
	for (size_t i = 0; v && i < x->o.nsizes; i++)
		if (x->o.sizes[i] >= lo && x->o.sizes[i] <= hi)
			v[k++] = x->o.sizes[i];
	*out = v;
	*n = k;
}
