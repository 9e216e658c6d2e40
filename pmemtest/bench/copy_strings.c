// SPDX-License-Identifier: MIT
/*
 * copy-bench, memcpy and copy-safe modes (issue 3): kflush_memcpy variants
 * against glibc memcpy and a bare rep movsb, where seed 000's 2048 B
 * threshold falls on this CPU, and kflush_copy_safe variants with seed
 * 001's 128 -> 129 B step; and the copy-page mode: seed 004's copy_page
 * variants, a call a page.
 */
#include <stdlib.h>
#include <string.h>

#include "copy.h"

static int find_cont(const struct copy_contender *v, size_t nv, const char *prefix)
{
	for (size_t i = 0; i < nv; i++)
		if (!strncmp(v[i].name, prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

/*
 * Seed 000: the smallest size from which a plain rep movsb is never slower
 * than the scalar loop again, cache-hot, fixed sizes.
 */
static void memcpy_threshold(struct copy_run *x, int g, const struct copy_contender *v, size_t nv,
			 const size_t *sizes, size_t nsizes)
{
	int rep = find_cont(v, nv, "ref:rep_movsb");
	const char *against[] = { "memcpy:orig", "glibc:memcpy" };

	if (rep < 0)
		return;
	for (size_t a = 0; a < 2; a++) {
		int o = find_cont(v, nv, against[a]);
		size_t from = 0;

		if (o < 0)
			continue;
		for (size_t s = nsizes; s-- > 0;) {
			double r = bench_res_median(x->res, g, v[rep].id, sizes[s]);
			double q = bench_res_median(x->res, g, v[o].id, sizes[s]);

			if (!r || !q)
				continue;
			/* Within 2 % is a tie: the medians are not finer than that. */
			if (r > q * 1.02)
				break;
			from = sizes[s];
		}
		if (from)
			bench_res_note(x->res, "memcpy threshold: rep movsb is as fast as %s (within 2 %%) "
				       "from %zu B up (hot, fixed sizes; seed 000 switches at 2048 B)",
				       v[o].name, from);
		else
			bench_res_note(x->res, "memcpy threshold: rep movsb is slower than %s at the "
				       "largest size measured (seed 000 switches at 2048 B)", v[o].name);
	}
}

/* Seed 001: what the 129th byte costs after a 128-byte copy, per variant. */
static void copy_safe_pair(struct copy_run *x, int g, const struct copy_contender *v, size_t nv)
{
	for (size_t i = 0; i < nv; i++) {
		double a = bench_res_median(x->res, g, v[i].id, 128);
		double b = bench_res_median(x->res, g, v[i].id, 129);

		if (a && b)
			bench_res_note(x->res, "copy-safe 128 -> 129 B: %s %.2f -> %.2f ns/call (%+.1f%%)",
				       v[i].name, a, b, 100.0 * (b / a - 1));
	}
}

static int memcpy_run(struct copy_run *x)
{
	static const size_t extra[] = { 4, 8, 16, 32, 48, 64, 80, 96, 1536, 2047, 2048, 2049, 2560 };
	struct copy_contender v[COPY_MAX_CONTENDERS];
	size_t nv = 0, *sizes, nsizes;
	int groups[2][BENCH_PACKED + 1], ret;

	copy_add_variants(x, v, &nv, KFLUSH_OP_MEMCPY, CALL_MEMCPY);
	copy_add(x, v, &nv, "glibc:memcpy", BENCH_PEER, CALL_GLIBC, NULL, 0);
	copy_add(x, v, &nv, "ref:rep_movsb", BENCH_REF, CALL_REP_MOVSB, NULL, 0);
	copy_mode_sizes(x, 1, 64u << 10, extra, sizeof(extra) / sizeof(extra[0]), &sizes, &nsizes);
	ret = copy_run_layouts(x, "memcpy", sizes, nsizes, 1, 64u << 10, 0, 1u << 20, v, nv, groups);
	if (!ret && groups[0][BENCH_FIXED] >= 0)
		memcpy_threshold(x, groups[0][BENCH_FIXED], v, nv, sizes, nsizes);
	free(sizes);
	return ret;
}

static int copy_safe_run(struct copy_run *x)
{
	static const size_t def[] = { 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65,
				      96, 127, 128, 129, 136, 160, 192, 255, 256 };
	struct copy_contender v[COPY_MAX_CONTENDERS];
	size_t nv = 0, *sizes = NULL, nsizes = 0;
	int groups[2][BENCH_PACKED + 1], ret;
	unsigned int cache = x->o.cache;

	copy_add_variants(x, v, &nv, KFLUSH_OP_COPY_SAFE, CALL_COPY_SAFE);
	copy_add(x, v, &nv, "glibc:memcpy", BENCH_PEER, CALL_GLIBC, NULL, 0);
	if (x->o.sizes) {
		copy_mode_sizes(x, 1, 1u << 20, NULL, 0, &sizes, &nsizes);
	} else {
		sizes = malloc(sizeof(def));
		if (sizes)
			memcpy(sizes, def, sizeof(def));
		nsizes = sizeof(def) / sizeof(def[0]);
	}
	if (!sizes)
		return -1;
	/* Seed 001 measured cache-hot copies; cold ones only when asked. */
	if (x->o.cache == (BENCH_HOT | BENCH_COLD))
		x->o.cache = BENCH_HOT;
	ret = copy_run_layouts(x, "copy-safe", sizes, nsizes, 8, 256, 0, 1u << 20, v, nv, groups);
	x->o.cache = cache;
	if (!ret && groups[0][BENCH_FIXED] >= 0)
		copy_safe_pair(x, groups[0][BENCH_FIXED], v, nv);
	free(sizes);
	return ret;
}

/*
 * Whole aligned pages, back to back, as the kernel copies them (copy-on-
 * write, migration): only the fixed layout, since a page has one size and
 * one alignment. The hot window and the cold spans start on page
 * boundaries (buffers.c). kflush_memcpy and glibc run the same 4096 bytes
 * for reference; every copy_page variant is in the bound report.
 */
static int copy_page_run(struct copy_run *x)
{
	struct copy_contender v[COPY_MAX_CONTENDERS];
	size_t nv = 0, *sizes, nsizes;
	int ret = 0;

	copy_add_variants(x, v, &nv, KFLUSH_OP_COPY_PAGE, CALL_COPY_PAGE);
	copy_add(x, v, &nv, "kflush_memcpy", BENCH_REF, CALL_MEMCPY, (kflush_fn)kflush_memcpy, 0);
	copy_add(x, v, &nv, "glibc:memcpy", BENCH_PEER, CALL_GLIBC, NULL, 0);
	copy_mode_sizes(x, KFLUSH_PAGE_SIZE, KFLUSH_PAGE_SIZE, NULL, 0, &sizes, &nsizes);
	if (!sizes)
		return -1;
	for (int h = 0; h < 2 && !ret && (x->o.layouts & (1u << BENCH_FIXED)); h++) {
		bool hot = h == 0;

		if (x->o.cache & (hot ? BENCH_HOT : BENCH_COLD))
			ret = copy_run_group(x, "copy-page", hot, BENCH_FIXED, sizes, nsizes, 0,
					     8u << 20, v, nv) < 0 ? -1 : 0;
	}
	free(sizes);
	return ret;
}

const struct copy_mode copy_mode_memcpy = {
	"memcpy", "1 B..64 KiB: kflush_memcpy variants vs glibc memcpy and rep movsb",
	memcpy_run,
};

const struct copy_mode copy_mode_copy_safe = {
	"copy-safe", "8..256 B, hot: kflush_copy_safe variants vs glibc memcpy",
	copy_safe_run,
};

const struct copy_mode copy_mode_copy_page = {
	"copy-page", "4 KiB pages, hot and cold: kflush_copy_page variants vs kflush_memcpy and glibc",
	copy_page_run,
};
