// SPDX-License-Identifier: MIT
/*
 * pmemtest copy-bench: every registry variant of the copy operations side by
 * side with PMDK, glibc and the machine's roof, in one run, interleaved.
 * The struct-page replay (issue 2) lives in copy_bench_sp.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "copy_bench.h"

static const char *const mode_names[] = {
	[CBM_STRUCT_PAGE] = "struct-page", [CBM_BULK] = "bulk", [CBM_SWEEP] = "sweep",
	[CBM_MEMCPY] = "memcpy", [CBM_COPY_SAFE] = "copy-safe",
};

static const char *const layout_names[] = {
	[BENCH_FIXED] = "fixed", [BENCH_RANDOM] = "random", [BENCH_MIX] = "mix",
};

void cb_add(struct cb_ctx *x, struct cb_cont *v, size_t *n, const char *name,
	    enum bench_class cls, enum cb_kind kind, kflush_fn fn, unsigned int flags)
{
	struct cb_cont *k;

	/* Roofs always run: every ratio needs them. */
	if (*n == CB_MAX_CONT || (cls != BENCH_ROOF && !bench_selected(x->o.only, name)))
		return;
	k = &v[(*n)++];

	snprintf(k->name, sizeof(k->name), "%s", name);
	k->cls = cls;
	k->kind = kind;
	k->fn = fn;
	k->flags = flags;
	k->id = bench_res_contender(x->res, k->name, cls);
}

/* Every usable variant of @op, NO_BIND ones included. */
void cb_add_variants(struct cb_ctx *x, struct cb_cont *v, size_t *n, enum kflush_op op,
		     enum cb_kind kind)
{
	for (int i = 0; i < kflush_variant_count(op) && *n < CB_MAX_CONT - 4; i++) {
		kflush_fn fn = kflush_variant_fn(op, (unsigned int)i);
		char name[64];

		if (!fn)
			continue;
		snprintf(name, sizeof(name), "%s:%s%s", kflush_op_name(op),
			 kflush_variant_name(op, (unsigned int)i),
			 kflush_variant_bound(op) == i ? "(bound)" : "");
		cb_add(x, v, n, name, BENCH_KFLUSH, kind, fn, 0);
	}
}

static void rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* One timed batch: every call of the table, then the drain the kind owes. */
static uint64_t run_calls(const struct cb_ctx *x, const struct cb_cont *k,
			  const struct bench_calls *t, char *d, const char *s)
{
	const size_t *len = t->len, *doff = t->doff, *soff = t->soff;
	size_t n = t->n, left = 0;
	uint64_t t0 = bench_now(), t1;

	switch (k->kind) {
	case CB_FLUSHCACHE: {
		kflush_memcpy_flushcache_fn f = (kflush_memcpy_flushcache_fn)k->fn;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], s + soff[i], len[i]);
		kflush_drain();
		break;
	}
	case CB_PMEM: {
		pmem2_memcpy_fn f = x->b.pmem_memcpy;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], s + soff[i], len[i], k->flags);
		x->b.pmem_drain();
		break;
	}
	case CB_GLIBC_FLUSH:
		for (size_t i = 0; i < n; i++) {
			memcpy(d + doff[i], s + soff[i], len[i]);
			kflush_flush(d + doff[i], len[i]);
		}
		kflush_drain();
		break;
	case CB_GLIBC:
		for (size_t i = 0; i < n; i++) {
			memcpy(d + doff[i], s + soff[i], len[i]);
			bench_barrier();
		}
		break;
	case CB_MEMCPY: {
		kflush_memcpy_fn f = (kflush_memcpy_fn)k->fn;

		for (size_t i = 0; i < n; i++) {
			f(d + doff[i], s + soff[i], len[i]);
			bench_barrier();
		}
		break;
	}
	case CB_COPY_SAFE: {
		kflush_copy_safe_fn f = (kflush_copy_safe_fn)k->fn;

		for (size_t i = 0; i < n; i++)
			left += f(d + doff[i], s + soff[i], len[i]);
		break;
	}
	case CB_REP_MOVSB:
		for (size_t i = 0; i < n; i++)
			rep_movsb(d + doff[i], s + soff[i], len[i]);
		break;
	case CB_ROOF_COPY:
		for (size_t i = 0; i < n; i++)
			pm_nt_copy(d + doff[i], s + soff[i], len[i]);
		__asm__ __volatile__("sfence" : : : "memory");
		break;
	case CB_CONST:
	case CB_GENERIC:
	case CB_ROOF_FILL:
	case CB_WIDE_FILL:
		break;
	}
	t1 = bench_now();
	if (left)
		fprintf(stderr, "pmemtest: %s left %zu bytes uncopied without a fault\n",
			k->name, left);
	return t1 - t0;
}

/* Read the hot window so both sides start in the cache, clean. */
static void warm(const char *p, size_t span)
{
	volatile char sink = 0;

	for (size_t i = 0; i < span; i += 64)
		sink ^= p[i];
	(void)sink;
}

static bool applies(const struct cb_cont *k, enum bench_layout layout, size_t size)
{
	/* The roof streams whole aligned lines: it is defined for those only. */
	if (k->kind == CB_ROOF_COPY)
		return layout == BENCH_FIXED && size >= 64 && size % 64 == 0;
	return true;
}

/* One group: for each size, rounds of A B C ..., the start rotating. */
static int run_group(struct cb_ctx *x, enum cb_mode mode, bool hot, enum bench_layout layout,
		     const size_t *sizes, size_t nsizes, size_t lo, size_t budget,
		     const struct cb_cont *v, size_t nv)
{
	int g = bench_res_group(x->res, mode_names[mode], hot ? "hot" : "cold",
				layout_names[layout]);

	if (budget > x->b.len)
		budget = x->b.len;

	for (size_t si = 0; si < nsizes; si++) {
		size_t size = sizes[si], hot_span = size * 2 > (256u << 10) ? size * 2 : (256u << 10);
		struct bench_calls t;

		if (hot && (hot_span > BENCH_HOT_SPAN || size > x->o.hot_max))
			continue;
		if (bench_calls_make(&t, layout, size, lo, budget, x->o.max_calls, hot,
				     hot_span, &x->rng) < 0)
			return -1;
		if (!hot && t.span > x->b.len) {
			bench_calls_free(&t);
			continue;
		}
		for (unsigned int r = 0; r < x->o.rounds; r++) {
			for (size_t j = 0; j < nv; j++) {
				const struct cb_cont *k = &v[(j + r) % nv];
				size_t off;
				uint64_t ns;

				if (!applies(k, layout, size))
					continue;
				if (hot) {
					off = bench_hot_base(&x->b);
					warm(x->b.dst + off, t.span);
					warm(x->b.src + off, t.span);
				} else {
					off = bench_cold(&x->b, t.span);
				}
				ns = run_calls(x, k, &t, x->b.dst + off, x->b.src + off);
				bench_res_add(x->res, g, k->id, size, r, t.n, t.bytes, ns);
			}
		}
		bench_calls_free(&t);
	}
	return g;
}

int cb_run_layouts(struct cb_ctx *x, enum cb_mode mode, const size_t *sizes, size_t nsizes,
		       size_t mix_lo, size_t mix_hi, size_t budget, const struct cb_cont *v,
		       size_t nv, int *hot_fixed)
{
	for (int h = 0; h < 2; h++) {
		bool hot = h == 0;

		if (!(x->o.cache & (hot ? CB_HOT : CB_COLD)))
			continue;
		for (int l = BENCH_FIXED; l <= BENCH_MIX; l++) {
			int g;

			if (!(x->o.layouts & (1u << l)))
				continue;
			if (l == BENCH_MIX)
				g = mix_hi ? run_group(x, mode, hot, BENCH_MIX, &mix_hi, 1, mix_lo,
						       budget, v, nv) : 0;
			else
				g = run_group(x, mode, hot, (enum bench_layout)l, sizes, nsizes, 0,
					      budget, v, nv);
			if (g < 0)
				return -1;
			if (hot && l == BENCH_FIXED && hot_fixed)
				*hot_fixed = g;
		}
	}
	return 0;
}

/* The sizes a mode sweeps: --sizes, else log-spaced within its range. */
void cb_mode_sizes(const struct cb_ctx *x, size_t lo, size_t hi, const size_t *extra,
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

static const size_t small_extra[] = { 4, 8, 16, 32, 48, 64, 80, 96 };

static int do_bulk(struct cb_ctx *x, bool sweep)
{
	struct cb_cont v[CB_MAX_CONT];
	size_t nv = 0, *sizes, nsizes;
	char roof[64];
	int ret;

	cb_add_variants(x, v, &nv, KFLUSH_OP_MEMCPY_FLUSHCACHE, CB_FLUSHCACHE);
	if (x->b.map) {
		cb_add(x, v, &nv, "pmdk:memcpy_nt", BENCH_PEER, CB_PMEM, NULL,
		       PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
		cb_add(x, v, &nv, "pmdk:memcpy", BENCH_PEER, CB_PMEM, NULL, PMEM2_F_MEM_NODRAIN);
	}
	if (sweep)
		cb_add(x, v, &nv, "glibc:memcpy+flush", BENCH_PEER, CB_GLIBC_FLUSH, NULL, 0);
	snprintf(roof, sizeof(roof), "roof:nt_copy(%s)", pm_roof_nt_copy_name());
	cb_add(x, v, &nv, roof, BENCH_ROOF, CB_ROOF_COPY, NULL, 0);
	if (sweep) {
		cb_mode_sizes(x, 1, 256u << 20, small_extra, 8, &sizes, &nsizes);
		ret = cb_run_layouts(x, CBM_SWEEP, sizes, nsizes, 1, 4096, 8u << 20, v, nv, NULL);
	} else {
		unsigned int save = x->o.layouts, cache = x->o.cache;
		int g;

		cb_mode_sizes(x, 1u << 20, 256u << 20, NULL, 0, &sizes, &nsizes);
		/* Powers of two only: the 1 MiB .. 256 MiB ladder. */
		if (!x->o.sizes) {
			size_t k = 0;

			for (size_t i = 0; i < nsizes; i++)
				if (!(sizes[i] & (sizes[i] - 1)))
					sizes[k++] = sizes[i];
			nsizes = k;
		}
		x->o.layouts = 1u << BENCH_FIXED;
		x->o.cache = CB_COLD;
		g = run_group(x, CBM_BULK, false, BENCH_FIXED, sizes, nsizes, 0, 64u << 20, v, nv);
		x->o.layouts = save;
		x->o.cache = cache;
		ret = g < 0 ? -1 : 0;
		if (!ret)
			cb_bulk_targets(x, g, v, nv, sizes, nsizes);
	}
	free(sizes);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pmemtest [--json|--csv] copy-bench [options]\n"
"\n"
"Side by side, in one run, interleaved (A B C A B C ...): every usable registry\n"
"variant of libkflush's copy operations, PMDK libpmem2 (memcpy_fn, flushed, one\n"
"drain), glibc, and the machine's roof measured with the same non-zero data.\n"
"DRAM stands in for pmem: the destination is a memfd mapped through libpmem2\n"
"with PMEM2_FORCE_GRANULARITY=CACHE_LINE.\n"
"\n"
"Modes (--mode, comma-separated, default all):\n"
"  struct-page  packed struct-page copies over the whole buffer: constant-size\n"
"               memcpy_flushcache(), the non-constant call, every variant, PMDK\n"
"               NT|NODRAIN and default flags, roof = 64 B NT stores (nt_fill)\n"
"  bulk         1 MiB..256 MiB cold copies: memcpy_flushcache variants vs PMDK vs\n"
"               the NT-copy roof (widest NT store loop, unaligned loads)\n"
"  sweep        1 B..256 MiB log-spaced plus 4..96: memcpy_flushcache variants\n"
"               vs PMDK vs glibc memcpy + kflush_flush vs roof; hot and cold;\n"
"               fixed sizes, random sizes (+-25 %%) and offsets, and a random mix\n"
"               of 1 B..4 KiB (sizes log-uniform, offsets 0..63)\n"
"  memcpy       1 B..64 KiB: kflush_memcpy variants vs glibc memcpy and a plain\n"
"               rep movsb; reports where rep movsb starts to beat memcpy_orig\n"
"  copy-safe    8..256 B, hot: kflush_copy_safe variants (NO_BIND ones too) vs\n"
"               glibc memcpy; reports the 128 -> 129 B step of each variant\n"
"\n"
"Options:\n"
"  -m, --mode LIST         modes to run (see above), or all\n"
"  -r, --rounds N          interleaved rounds per cell (default 5)\n"
"  -b, --buffer SIZE       cold buffer, each of source and destination\n"
"                          (default 1G; struct-page writes all of it per sample)\n"
"  -s, --sizes LIST        sizes to run instead of each mode's ladder\n"
"      --max-size SIZE     drop sizes above SIZE\n"
"  -p, --struct-page LIST  struct page sizes for struct-page (default 64,80,96)\n"
"  -c, --cache WHICH       hot, cold or both (default both)\n"
"  -l, --layout LIST       fixed, random, mix (default all three)\n"
"      --seed N            seed of the random sizes and offsets (default 1)\n"
"      --span SIZE         struct-page bytes written per sample (default: the\n"
"                          whole buffer for 64 B, a quarter of it for other\n"
"                          sizes, where PMDK crawls at ~0.3 GB/s)\n"
"      --clock cpu|wall    thread CPU time (default; time descheduled on a busy\n"
"                          machine is not counted) or wall-clock time\n"
"  -o, --only LIST         run only contenders whose name contains one of\n"
"                          these comma-separated strings (roofs always run),\n"
"                          e.g. --only avx512,pmdk\n"
"  -h, --help              this text\n"
"\n"
"Sizes take K, M, G suffixes (powers of 1024). Global --csv prints '#' note\n"
"lines, a header, one row per sample and one \"median\" row per cell (what\n"
"tools/plot.gp plots; a mix row's size is its upper bound); --json carries\n"
"every sample. Targets are reported, never asserted: exit 0 unless\n"
"something failed (1) or the command line is wrong (2).\n");
}

static int parse_list(const char *arg, const char *const *names, size_t nnames, unsigned int *out)
{
	char *dup = strdup(arg), *save = NULL, *tok;
	unsigned int v = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strcmp(tok, "all")) {
			v |= (1u << nnames) - 1;
			continue;
		}
		for (i = 0; i < nnames; i++)
			if (names[i] && !strcmp(tok, names[i]))
				break;
		if (i == nnames) {
			fprintf(stderr, "pmemtest: copy-bench: unknown name '%s'\n", tok);
			free(dup);
			return -1;
		}
		v |= 1u << i;
	}
	free(dup);
	if (!v)
		return -1;
	*out = v;
	return 0;
}

static int parse_opts(struct cb_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "sizes", required_argument, NULL, 's' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "struct-page", required_argument, NULL, 'p' },
		{ "layout", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "span", required_argument, NULL, 'P' },
		BENCH_COMMON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bench_common com = { &o->rounds, &o->buffer, &o->cache, &o->only };
	int c, r;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:s:p:l:" BENCH_COMMON_SHORTOPTS "h", lo, NULL)) != -1) {
		r = bench_common_opt("copy-bench", c, optarg, &com);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case 'm':
			if (parse_list(optarg, mode_names, CBM_NR_MODES, &o->modes))
				return -1;
			break;
		case 's':
			free(o->sizes);
			o->sizes = NULL;
			if (bench_parse_sizes(optarg, &o->sizes, &o->nsizes)) {
				fprintf(stderr, "pmemtest: copy-bench: bad --sizes '%s'\n", optarg);
				return -1;
			}
			break;
		case 'M':
			if (bench_parse_size(optarg, &o->max_size) || !o->max_size) {
				fprintf(stderr, "pmemtest: copy-bench: bad --max-size '%s'\n", optarg);
				return -1;
			}
			break;
		case 'p':
			free(o->sp);
			o->sp = NULL;
			if (bench_parse_sizes(optarg, &o->sp, &o->nsp) || cb_check_sp(o)) {
				fprintf(stderr, "pmemtest: copy-bench: bad --struct-page '%s' "
					"(any of 64,80,96 or another size >= 8)\n", optarg);
				return -1;
			}
			break;
		case 'l':
			if (parse_list(optarg, layout_names, 3, &o->layouts))
				return -1;
			break;
		case 'S':
			o->seed = strtoull(optarg, &end, 0);
			if (*end) {
				fprintf(stderr, "pmemtest: copy-bench: bad --seed '%s'\n", optarg);
				return -1;
			}
			break;
		case 'P':
			if (bench_parse_size(optarg, &o->sp_span) || o->sp_span < 4096) {
				fprintf(stderr, "pmemtest: copy-bench: bad --span '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	return bench_no_operands("copy-bench", argc, argv);
}

int cmd_copy_bench(const struct pm_global *g, int argc, char **argv)
{
	struct cb_ctx x = { 0 };
	int ret, exit_code = PM_EXIT_FAIL;

	x.b.fd = -1;
	x.o.rounds = 5;
	x.o.buffer = 1u << 30;
	x.o.modes = (1u << CBM_NR_MODES) - 1;
	x.o.cache = CB_HOT | CB_COLD;
	x.o.layouts = 7;
	x.o.seed = 1;
	x.o.max_calls = 16384;
	x.o.hot_max = 1u << 20;
	ret = parse_opts(&x.o, argc, argv);
	if (ret) {
		free(x.o.sizes);
		free(x.o.sp);
		return ret > 0 ? PM_EXIT_OK : PM_EXIT_USAGE;
	}
	x.rng = x.o.seed * 0x9E3779B97F4A7C15ULL + 1;
	x.res = bench_res_new("copy-bench", x.o.rounds);
	if (!x.res || bench_bufs_open(&x.b, x.o.buffer) < 0)
		goto out;
	bench_header(x.res, &x.b, x.o.rounds);
	bench_res_note(x.res, "roof for bulk/sweep: streaming copy with %s NT stores, unaligned loads "
		       "batched 32 (zmm) or 8 (ymm) lines ahead, one sfence; struct-page roof: 64 B "
		       "movnti stores of the template",
		       pm_roof_nt_copy_name());
	if (((x.o.modes >> CBM_STRUCT_PAGE) & 1) && cb_struct_page(&x) < 0)
		goto out;
	if (((x.o.modes >> CBM_BULK) & 1) && do_bulk(&x, false) < 0)
		goto out;
	if (((x.o.modes >> CBM_SWEEP) & 1) && do_bulk(&x, true) < 0)
		goto out;
	if (((x.o.modes >> CBM_MEMCPY) & 1) && cb_memcpy(&x) < 0)
		goto out;
	if (((x.o.modes >> CBM_COPY_SAFE) & 1) && cb_copy_safe(&x) < 0)
		goto out;
	exit_code = bench_res_print(x.res, g);
out:
	if (exit_code == PM_EXIT_FAIL && x.res)
		fprintf(stderr, "pmemtest: copy-bench failed\n");
	bench_bufs_close(&x.b);
	bench_res_free(x.res);
	free(x.o.sizes);
	free(x.o.sp);
	return exit_code;
}
