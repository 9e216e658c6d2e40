// SPDX-License-Identifier: MIT
/*
 * pmemtest clear-bench: every registry variant of clear_page, clear_pages,
 * clear_pages_flushcache and memset_flushcache over 4 KiB, 2 MiB and 1 GiB
 * extents of non-zero pages, beside glibc memset, PMDK's memset_fn and the
 * roof: the best of every way this CPU has to store zeros over the extent
 * (rep stosb, NT zero stores of each width, movdir64b of a zero line,
 * clzero), each interleaved like a contender. Each sample refills its pages
 * with non-zero data first, outside the timed region; "cold" then evicts
 * them, "hot" leaves them in the cache.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "bench.h"
#include "../common/cli.h"
#include "../common/output.h"
#include "../common/progress.h"

enum clear_kind { CLEAR_CALL_PAGE, CLEAR_CALL_PAGES, CLEAR_CALL_PAGES_FC, CLEAR_CALL_MEMSET_FC, CLEAR_CALL_PMEM, CLEAR_CALL_GLIBC, CLEAR_CALL_ROOF };

struct clear_contender {
	char name[64];
	enum bench_class cls;
	enum clear_kind kind;
	kflush_fn fn;
	unsigned int flags;
	const struct roof_strategy *roof;	/* for CLEAR_CALL_ROOF */
	int id;
};

#define CLEAR_MAX_CONTENDERS 32

struct clear_run {
	struct bench_bufs b;
	struct bench_res *res;
	struct clear_contender v[CLEAR_MAX_CONTENDERS];
	size_t nv;
	unsigned int rounds, cache;
	size_t *extents, nextents;
	kflush_flush_fn evict;
	const char *only;
	struct progress prog;
	bool list;	/* --list */
};

static void add(struct clear_run *x, const char *name, enum bench_class cls, enum clear_kind kind,
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

static void add_variants(struct clear_run *x, enum kflush_op op, enum clear_kind kind)
{
	for (int i = 0; i < kflush_variant_count(op); i++) {
		kflush_fn fn = kflush_variant_fn(op, (unsigned int)i);
		char name[64];

		if (!fn)
			continue;
		snprintf(name, sizeof(name), "%s:%s%s", kflush_op_name(op),
			 kflush_variant_name(op, (unsigned int)i),
			 kflush_variant_bound(op) == i ? "(bound)" : "");
		add(x, name, BENCH_KFLUSH, kind, fn, 0);
		if (x->nv && !strcmp(x->v[x->nv - 1].name, name))
			bench_res_set_variant(x->res, x->v[x->nv - 1].id, (int)op, i);
	}
}

/*
 * The roof's strategies: "roof:rep_stosb", "roof:clzero", "roof:nt_zero(avx2)",
 * and "roof:zero(cached_clwb)" for cached stores written back.
 */
static void add_roofs(struct clear_run *x)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
	size_t ns = roof_strategies(ROOF_ZERO, s, ROOF_MAX_STRATEGIES);

	for (size_t i = 0; i < ns && x->nv < CLEAR_MAX_CONTENDERS; i++) {
		char name[64];

		snprintf(name, sizeof(name), s[i]->zero ? "roof:%s" : s[i]->write_back ?
			 "roof:zero(%s)" : "roof:nt_zero(%s)", s[i]->name);
		add(x, name, BENCH_ROOF, CLEAR_CALL_ROOF, NULL, 0);
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
static size_t sample_area(size_t ext, bool hot)
{
	size_t budget = hot ? (1u << 20) : (8u << 20);

	return (ext >= budget ? 1 : budget / ext) * ext;
}

/* The bytes the samples of the cache states asked for write, refills included. */
static uint64_t planned(const struct clear_run *x)
{
	uint64_t sum = 0;

	for (int h = 0; h < 2; h++) {
		if (!(x->cache & (h ? 1u : 2u)))
			continue;
		for (size_t i = 0; i < x->nextents; i++) {
			size_t area = sample_area(x->extents[i], h);

			if (area <= (h ? BENCH_HOT_SPAN : x->b.len))
				sum += 2ull * area * x->rounds * x->nv;
		}
	}
	return sum;
}

/* Whether some extent can run in a cache state asked for (else: an error). */
static bool fits(const struct clear_run *x, size_t buffer)
{
	for (size_t i = 0; i < x->nextents; i++) {
		if ((x->cache & 1u) && sample_area(x->extents[i], true) <= BENCH_HOT_SPAN)
			return true;
		if ((x->cache & 2u) && sample_area(x->extents[i], false) <= buffer)
			return true;
	}
	return false;
}

static int run_extents(struct clear_run *x, bool hot)
{
	int g = bench_res_group(x->res, "clear", hot ? "hot" : "cold", "extent");

	for (size_t ei = 0; ei < x->nextents; ei++) {
		size_t ext = x->extents[ei];
		size_t area = sample_area(ext, hot), count = area / ext;

		if (hot && area > BENCH_HOT_SPAN)
			continue;
		if (!hot && area > x->b.len) {
			bench_res_note(x->res, "extent %zu B skipped: larger than --buffer", ext);
			continue;
		}
		for (unsigned int r = 0; r < x->rounds; r++) {
			size_t order[CLEAR_MAX_CONTENDERS];

			bench_round_order(order, x->nv, r);
			for (size_t j = 0; j < x->nv; j++) {
				const struct clear_contender *k = &x->v[order[j]];
				size_t off = hot ? bench_hot_base(&x->b) : bench_cold(&x->b, area);
				char *d = x->b.dst + off;
				uint64_t ns;

				/* Untimed: non-zero pages, then out of the cache if cold. */
				memset(d, 0xa5, area);
				if (!hot)
					x->evict(d, area);
				__asm__ __volatile__("mfence" : : : "memory");
				ns = run(x, k, d, ext, count);
				if (check_zero(d, area)) {
					fprintf(stderr, "pmemtest: %s left non-zero bytes\n", k->name);
					return -1;
				}
				bench_res_add(x->res, g, k->id, ext, r, count * (ext / KFLUSH_PAGE_SIZE),
					      area, ns);
				/* The refill writes the area too: twice its bytes. */
				progress_add(&x->prog, 2 * (uint64_t)area);
				if (progress_interrupted())
					return g;
			}
		}
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
static void targets(struct clear_run *x, int g, const char *cache)
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

static void usage(FILE *f)
{
	fprintf(f,
"usage: pmemtest [--json|--csv] clear-bench [options]\n"
"\n"
"Side by side, in one run, interleaved: every usable registry variant of\n"
"clear_page (one call per 4 KiB page), clear_pages (one call per extent),\n"
"clear_pages_flushcache and memset_flushcache (+ one drain), PMDK memset_fn\n"
"(NT|NODRAIN and NODRAIN, + drain), glibc memset (not durable), and the roof:\n"
"the best of every way this CPU has to store zeros over the extent (rep stosb;\n"
"NT zero stores of 8, 16, 32, 64 B; movdir64b; clzero; one sfence per extent\n"
"for the weakly ordered ones). Pages hold non-zero\n"
"data before every sample (refilled outside the timed region). DRAM stands in for\n"
"pmem: the destination is a memfd mapped through libpmem2 (forced cache-line\n"
"granularity).\n"
"\n"
"Options:\n"
"  -e, --extents LIST  extent sizes, multiples of 4K (default 4K,2M,1G)\n"
"  -r, --repeat N      interleaved rounds per cell (default 5); --rounds N is\n"
"                      an alias\n"
"  -b, --buffer SIZE   cold buffer (default: the largest extent, at least 8M)\n"
"      --cache WHICH   hot, cold or both (default both; hot needs the extents\n"
"                      of a sample to fit in 1 MiB..4 MiB, so not 1G)\n"
"      --clock wall|cpu wall clock (default, as init-bench) or this thread's\n"
"                      CPU time (descheduled time is not counted)\n"
"  -o, --only LIST     only contenders whose name contains one of these\n"
"                      comma-separated strings (the roofs always run)\n"
"      --list          what would run: the contenders (after --only), extents\n"
"                      and cache states, then exit\n"
"  -h, --help          this text\n"
"\n"
"Cold: the pages are written back and evicted (clflushopt) after the refill.\n"
"Targets are reported, not asserted. Exit 0 ok, 1 failure, 2 usage.\n");
}

static int parse(struct clear_run *x, size_t *buffer, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "extents", required_argument, NULL, 'e' },
		{ "list", no_argument, NULL, 'L' },
		BENCH_COMMON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bench_common com = { &x->rounds, buffer, &x->cache, &x->only };
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:" BENCH_COMMON_SHORTOPTS "h", lo, NULL)) != -1) {
		r = bench_common_opt("clear-bench", c, optarg, &com);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case 'e':
			free(x->extents);
			x->extents = NULL;
			if (bench_parse_sizes(optarg, &x->extents, &x->nextents))
				goto bad;
			for (size_t i = 0; i < x->nextents; i++)
				if (x->extents[i] % KFLUSH_PAGE_SIZE)
					goto bad;
			break;
		case 'L':
			x->list = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	return bench_no_operands("clear-bench", argc, argv);
bad:
	fprintf(stderr, "pmemtest: clear-bench: bad --extents '%s' (multiples of 4K)\n", optarg);
	return -1;
}

/* --list: the contenders, then the extents and the cache states each can run in. */
static void list(const struct clear_run *x, size_t buffer)
{
	printf("clear: every page-clearing variant against PMDK, glibc and the roof\n");
	bench_res_list(x->res, stdout);
	printf("extents:\n");
	for (size_t i = 0; i < x->nextents; i++) {
		bool hot = (x->cache & 1u) && sample_area(x->extents[i], true) <= BENCH_HOT_SPAN;
		bool cold = (x->cache & 2u) && sample_area(x->extents[i], false) <= buffer;

		printf("    %-36zu %s\n", x->extents[i], hot && cold ? "hot, cold" : hot ? "hot" :
		       cold ? "cold" : "none (does not fit)");
	}
}

/* The options as they ran, defaults filled in: the JSON's "options". */
static json_object *options_json(const struct clear_run *x, size_t buffer)
{
	json_object *j = json_object_new_object(), *e = json_object_new_array();
	json_object *c = json_object_new_array();

	for (size_t i = 0; i < x->nextents; i++)
		json_object_array_add(e, json_object_new_int64((int64_t)x->extents[i]));
	if (x->cache & 1u)
		json_object_array_add(c, json_object_new_string("hot"));
	if (x->cache & 2u)
		json_object_array_add(c, json_object_new_string("cold"));
	output_set(j, "extents", e);
	output_set(j, "repeat", json_object_new_int((int)x->rounds));
	output_set(j, "buffer", json_object_new_int64((int64_t)buffer));
	output_set(j, "cache", c);
	output_set(j, "clock", output_str(bench_clock_short()));
	output_set(j, "only", output_str(x->only));
	return j;
}

int cmd_clear_bench(const struct pmemtest_global *g, int argc, char **argv)
{
	static const size_t def[] = { 4096, 2u << 20, 1u << 30 };
	struct clear_run x = { .rounds = 5, .cache = 3 };
	size_t buffer = 0, list_buffer;
	int ret, exit_code = PMEMTEST_EXIT_FAIL, idx;

	x.b.fd = -1;
	ret = parse(&x, &buffer, argc, argv);
	if (ret) {
		free(x.extents);
		return ret > 0 ? PMEMTEST_EXIT_OK : PMEMTEST_EXIT_USAGE;
	}
	if (!x.extents) {
		x.extents = malloc(sizeof(def));
		if (!x.extents)
			return PMEMTEST_EXIT_FAIL;
		memcpy(x.extents, def, sizeof(def));
		x.nextents = 3;
	}
	if (!buffer)
		for (size_t i = 0; i < x.nextents; i++)
			if (x.extents[i] > buffer)
				buffer = x.extents[i];
	if (buffer < (8u << 20))
		buffer = 8u << 20;
	if (!fits(&x, buffer)) {
		cli_err("clear-bench: nothing to measure: no extent fits %s (hot: 4 MiB of "
			"extents per sample; cold: --buffer)",
			x.cache == 1 ? "the hot window" : x.cache == 2 ? "the buffer" :
			"the hot window or the buffer");
		free(x.extents);
		return PMEMTEST_EXIT_USAGE;
	}
	/* Listing maps a small buffer: contenders do not depend on its size. */
	list_buffer = buffer;
	if (x.list)
		buffer = 8u << 20;
	if (bench_check_buffer("clear-bench", buffer)) {
		free(x.extents);
		return PMEMTEST_EXIT_USAGE;
	}
		idx = kflush_variant_find(KFLUSH_OP_FLUSH, "clflushopt");
	if (idx < 0 || !kflush_variant_fn(KFLUSH_OP_FLUSH, (unsigned int)idx))
		idx = kflush_variant_find(KFLUSH_OP_FLUSH, "clflush");
	x.evict = idx >= 0 ? (kflush_flush_fn)kflush_variant_fn(KFLUSH_OP_FLUSH, (unsigned int)idx)
			   : kflush_flush;
	progress_catch_interrupt();
	x.res = bench_res_new("clear-bench", x.rounds);
	if (!x.res || bench_bufs_open(&x.b, buffer) < 0)
		goto out;
	bench_res_options(x.res, options_json(&x, buffer));
	bench_header(x.res, &x.b, x.rounds);
	add_variants(&x, KFLUSH_OP_CLEAR_PAGE, CLEAR_CALL_PAGE);
	add_variants(&x, KFLUSH_OP_CLEAR_PAGES, CLEAR_CALL_PAGES);
	add_variants(&x, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, CLEAR_CALL_PAGES_FC);
	add_variants(&x, KFLUSH_OP_MEMSET_FLUSHCACHE, CLEAR_CALL_MEMSET_FC);
	if (x.b.map) {
		add(&x, "pmdk:memset_nt", BENCH_PEER, CLEAR_CALL_PMEM, NULL,
		    PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
		add(&x, "pmdk:memset", BENCH_PEER, CLEAR_CALL_PMEM, NULL, PMEM2_F_MEM_NODRAIN);
	}
	add(&x, "glibc:memset", BENCH_PEER, CLEAR_CALL_GLIBC, NULL, 0);
	add_roofs(&x);
	if (x.list) {
		list(&x, list_buffer);
		exit_code = PMEMTEST_EXIT_OK;
		goto out;
	}
	bench_res_note(x.res, "clear_page runs once per 4 KiB page; every other contender once per "
		       "extent; glibc memset and the roof leave dirty lines (not durable)");
	progress_begin(&x.prog, "clear-bench", planned(&x), g->quiet);
	for (int h = 1; h >= 0 && !progress_interrupted(); h--) {
		int grp;

		if (!(x.cache & (h ? 1u : 2u)))
			continue;
		grp = run_extents(&x, h);
		if (grp < 0) {
			progress_end(&x.prog);
			goto out;
		}
		if (!progress_interrupted())
			targets(&x, grp, h ? "hot" : "cold");
	}
	progress_end(&x.prog);
	exit_code = bench_finish(x.res, g, "clear-bench");
out:
	bench_bufs_close(&x.b);
	bench_res_free(x.res);
	free(x.extents);
	return exit_code;
}
