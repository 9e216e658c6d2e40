// SPDX-License-Identifier: MIT
/*
 * pmemtest copy-bench: every registry variant of the copy operations side by
 * side with PMDK, glibc and the machine's roof, in one run, interleaved.
 * The command: options, the mode table, the report. The modes live in
 * copy_struct_page.c, copy_bulk.c, copy_strings.c, copy_move.c and
 * copy_set.c; copy_run.c times them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "copy.h"
#include "../common/cli.h"
#include "../common/output.h"
#include "../common/rng.h"

/* The modes, in the order they run; --mode LIST picks by index. */
static const struct copy_mode *const modes[] = {
	&copy_mode_struct_page, &copy_mode_bulk, &copy_mode_sweep,
	&copy_mode_memcpy, &copy_mode_copy_safe, &copy_mode_copy_page, &copy_mode_move,
	&copy_mode_set,
};
#define NR_MODES (sizeof(modes) / sizeof(modes[0]))

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
"               NT|NODRAIN and default flags, roof = NT stores of the template\n"
"  bulk         1 MiB..256 MiB cold copies: memcpy_flushcache variants vs PMDK vs\n"
"               the NT-copy roof (every NT store width, unaligned loads)\n"
"  sweep        1 B..256 MiB log-spaced plus 4..96: memcpy_flushcache variants\n"
"               vs PMDK vs glibc memcpy + kflush_flush vs roof; hot and cold;\n"
"               fixed sizes, random sizes (+-25 %%) and offsets, a random mix\n"
"               of 1 B..4 KiB (sizes log-uniform, offsets 0..63), and up to\n"
"               4 KiB packed: calls back to back, each where the last ended\n"
"  memcpy       1 B..64 KiB: kflush_memcpy variants vs glibc memcpy and a plain\n"
"               rep movsb; reports where rep movsb starts to beat memcpy_orig\n"
"  copy-safe    8..256 B, hot: kflush_copy_safe variants (NO_BIND ones too) vs\n"
"               glibc memcpy; reports the 128 -> 129 B step of each variant\n"
"  copy-page    4 KiB pages, one call each, hot and cold: kflush_copy_page\n"
"               variants vs kflush_memcpy and glibc memcpy of 4096 B\n"
"  move         16 B..16 MiB moves whose ends overlap, down (source a quarter\n"
"               of the size above) and up (below), at offsets 0..63, hot\n"
"               and cold: kflush_memmove_flushcache variants vs PMDK\n"
"               memmove_fn and glibc memmove + kflush_flush\n"
"  set          1 B..16 MiB plus 4..96, the sweep's layouts, hot and cold:\n"
"               kflush_memset_flushcache variants vs PMDK memset_fn, glibc\n"
"               memset + kflush_flush and the fill roof\n"
"\n"
"Options:\n"
"  -m, --mode LIST         modes to run (see above), or all\n"
"  -r, --repeat N          interleaved rounds per cell (default 5); --rounds N\n"
"                          is an alias\n"
"  -b, --buffer SIZE       cold buffer, each of source and destination\n"
"                          (default 1G; struct-page writes all of it per sample)\n"
"  -s, --sizes LIST        sizes to run instead of each mode's ladder\n"
"      --max-size SIZE     drop sizes above SIZE\n"
"  -p, --struct-page LIST  struct page sizes for struct-page, multiples of 8\n"
"                          from 8 to 4096 (default 64,80,96)\n"
"      --cache WHICH       hot, cold or both (default both)\n"
"  -l, --layout LIST       fixed, random, mix, packed (sweep and set); down,\n"
"                          up for move (default all)\n"
"  -S, --seed N            seed of the random sizes and offsets, any 64-bit\n"
"                          integer, decimal or 0x hex (default 1)\n"
"      --span SIZE         struct-page bytes written per sample (default: the\n"
"                          whole buffer for 64 B, a quarter of it for other\n"
"                          sizes, where PMDK crawls at ~0.3 GB/s)\n"
"      --clock wall|cpu    wall clock (default, as init-bench) or this thread's\n"
"                          CPU time (time descheduled on a busy machine is\n"
"                          not counted)\n"
"  -o, --only LIST         run only contenders whose name contains one of\n"
"                          these comma-separated strings (roofs always run),\n"
"                          e.g. --only avx512,pmdk\n"
"      --list              what would run: each mode selected and its contenders\n"
"                          (after --only), then exit\n"
"  -h, --help              this text\n"
"\n"
"Sizes take K, M, G suffixes (powers of 1024). Global --csv prints a header,\n"
"one row per sample and one \"median\" row per cell (what tools/plot.gp\n"
"plots; a mix row's size is its upper bound); --json carries every sample\n"
"(the schema: pmemtest(1), OUTPUT SCHEMA). Targets are reported, never asserted: exit 0 unless\n"
"something failed (1) or the command line is wrong (2).\n");
}

static int parse_list(const char *opt, const char *arg, const char *const *names, size_t nnames,
		      unsigned int *out)
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
			fprintf(stderr, "pmemtest: copy-bench: %s: unknown name '%s' (see 'pmemtest "
				"copy-bench --help')\n", opt, tok);
			free(dup);
			return -1;
		}
		v |= 1u << i;
	}
	free(dup);
	if (!v) {
		fprintf(stderr, "pmemtest: copy-bench: %s '%s': no name in it\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_opts(struct copy_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "sizes", required_argument, NULL, 's' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "struct-page", required_argument, NULL, 'p' },
		{ "layout", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "span", required_argument, NULL, 'P' },
		{ "list", no_argument, NULL, 'L' },
		BENCH_COMMON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bench_common com = { &o->rounds, &o->buffer, &o->cache, &o->only };
	const char *mode_names[NR_MODES];
	int c, r;

	for (size_t i = 0; i < NR_MODES; i++)
		mode_names[i] = modes[i]->name;
	while ((c = getopt_long(argc, argv, ":m:s:p:l:S:" BENCH_COMMON_SHORTOPTS "h", lo, NULL)) != -1) {
		r = bench_common_opt("copy-bench", c, optarg, &com);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case 'm':
			if (parse_list("--mode", optarg, mode_names, NR_MODES, &o->modes))
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
			if (bench_parse_sizes(optarg, &o->sp, &o->nsp) || copy_check_struct_page(o)) {
				fprintf(stderr, "pmemtest: copy-bench: bad --struct-page '%s' "
					"(multiples of 8 from 8 to 4096)\n", optarg);
				return -1;
			}
			break;
		case 'l':
			if (parse_list("--layout", optarg, copy_layout_names, COPY_NR_LAYOUTS, &o->layouts))
				return -1;
			break;
		case 'S':
			if (cli_parse_u64(optarg, &o->seed)) {
				fprintf(stderr, "pmemtest: copy-bench: bad --seed '%s' (an integer "
					"from 0 to 2^64 - 1, decimal or 0x hex)\n", optarg);
				return -1;
			}
			break;
		case 'P':
			if (bench_parse_size(optarg, &o->sp_span) || o->sp_span < 4096) {
				fprintf(stderr, "pmemtest: copy-bench: bad --span '%s'\n", optarg);
				return -1;
			}
			break;
		case 'L':
			o->list = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli_die_getopt("copy-bench", c, argv);
		}
	}
	return bench_no_operands("copy-bench", argc, argv);
}

static json_object *sizes_json(const size_t *v, size_t n)
{
	json_object *a;

	if (!v)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)v[i]));
	return a;
}

static json_object *names_json(unsigned int mask, const char *const *names, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		if (mask & (1u << i))
			json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

/* The options as they ran, defaults filled in: the JSON's "options". */
static json_object *options_json(const struct copy_opts *o)
{
	json_object *j = json_object_new_object();
	const char *mode_names[NR_MODES];
	static const char *const cache_names[] = { "hot", "cold" };

	for (size_t i = 0; i < NR_MODES; i++)
		mode_names[i] = modes[i]->name;
	output_set(j, "mode", names_json(o->modes, mode_names, NR_MODES));
	output_set(j, "repeat", json_object_new_int((int)o->rounds));
	output_set(j, "buffer", json_object_new_int64((int64_t)o->buffer));
	output_set(j, "sizes", sizes_json(o->sizes, o->nsizes));
	output_set(j, "max_size", o->max_size ? json_object_new_int64((int64_t)o->max_size) : NULL);
	output_set(j, "struct_page", sizes_json(o->sp, o->nsp));
	output_set(j, "span", o->sp_span ? json_object_new_int64((int64_t)o->sp_span) : NULL);
	output_set(j, "cache", names_json(o->cache, cache_names, 2));
	output_set(j, "layout", names_json(o->layouts, copy_layout_names, COPY_NR_LAYOUTS));
	output_set(j, "seed", json_object_new_uint64(o->seed));
	output_set(j, "clock", output_str(bench_clock_short()));
	output_set(j, "only", output_str(o->only));
	return j;
}

/*
 * The plan: every selected mode registers its contenders and sizes its
 * samples, nothing timed, into a result set thrown away; the random sizes
 * start again from the seed for the run.
 */
static int plan(struct copy_run *x)
{
	struct bench_res *res = x->res;
	uint64_t rng = x->rng;
	int ret = 0;

	x->res = bench_res_new("copy-bench", x->o.rounds);
	if (!x->res) {
		x->res = res;
		return -1;
	}
	x->plan = true;
	for (size_t i = 0; i < NR_MODES && !ret; i++)
		if ((x->o.modes >> i) & 1)
			ret = modes[i]->run(x);
	x->plan = false;
	bench_res_free(x->res);
	x->res = res;
	x->rng = rng;
	return ret;
}

/*
 * A size asked for that no cell of the plan runs (outside every selected
 * mode's range, above the hot limit with --cache hot, a cold span larger
 * than the buffer): a usage error naming it, not a table without it.
 */
static int check_sizes_run(const struct copy_run *x)
{
	char size[32], hot[32];

	for (size_t i = 0; i < x->o.nsizes; i++)
		if (!x->o.sizes_run[i]) {
			cli_err("copy-bench: --sizes %s: no selected mode, cache state and layout "
				"runs it (each mode's sizes: --help; hot: up to %s; cold: what fits "
				"--buffer)", cli_fmt_bytes(x->o.sizes[i], size, sizeof(size)),
				cli_fmt_bytes(x->o.hot_max, hot, sizeof(hot)));
			return -1;
		}
	return 0;
}

/* --list: each selected mode and the contenders it would run, nothing timed. */
static int list(struct copy_run *x)
{
	struct bench_res *res = x->res;
	int ret = 0;

	x->plan = true;
	for (size_t i = 0; i < NR_MODES && !ret; i++) {
		if (!((x->o.modes >> i) & 1))
			continue;
		x->res = bench_res_new("copy-bench", x->o.rounds);
		if (!x->res)
			ret = -1;
		else
			ret = modes[i]->run(x);
		if (!ret) {
			printf("%s: %s\n", modes[i]->name, modes[i]->summary);
			bench_res_list(x->res, stdout);
		}
		bench_res_free(x->res);
	}
	x->plan = false;
	x->res = res;
	return ret;
}

int cmd_copy_bench(const struct pmemtest_global *g, int argc, char **argv)
{
	struct copy_run x = { 0 };
	int ret, exit_code = PMEMTEST_EXIT_FAIL;

	x.b.fd = -1;
	x.o.rounds = 5;
	x.o.buffer = 1u << 30;
	x.o.modes = (1u << NR_MODES) - 1;
	x.o.cache = BENCH_HOT | BENCH_COLD;
	x.o.layouts = (1u << COPY_NR_LAYOUTS) - 1;
	x.o.seed = 1;
	x.o.max_calls = 16384;
	x.o.hot_max = 1u << 20;
	ret = parse_opts(&x.o, argc, argv);
	if (ret) {
		free(x.o.sizes);
		free(x.o.sp);
		return ret > 0 ? PMEMTEST_EXIT_OK : PMEMTEST_EXIT_USAGE;
	}
	if (bench_check_buffer("copy-bench", x.o.buffer)) {
		free(x.o.sizes);
		free(x.o.sp);
		return PMEMTEST_EXIT_USAGE;
	}
	x.o.sizes_run = calloc(x.o.nsizes ? x.o.nsizes : 1, sizeof(*x.o.sizes_run));
	if (!x.o.sizes_run)
		cli_die("out of memory");
	x.rng = rng_start(x.o.seed);
	/* From here Ctrl-C stops after the sample and prints what was measured. */
	progress_catch_interrupt();
	x.res = bench_res_new("copy-bench", x.o.rounds);
	if (!x.res)
		goto out;
	x.evict = bench_evict_fn();
	/* The plan and --list need no memory: only the buffer's size. */
	x.b.len = x.o.buffer;
	if (x.o.list) {
		exit_code = list(&x) < 0 ? PMEMTEST_EXIT_FAIL : PMEMTEST_EXIT_OK;
		goto out;
	}
	if (plan(&x) < 0)
		goto out;
	if (check_sizes_run(&x)) {
		exit_code = PMEMTEST_EXIT_USAGE;
		goto out;
	}
	if (!x.planned_measured) {
		fprintf(stderr, "pmemtest: copy-bench: nothing to measure: no contender, size and "
			"cache state of these options can run (see --list)\n");
		exit_code = PMEMTEST_EXIT_USAGE;
		goto out;
	}
	if (bench_bufs_open(&x.b, x.o.buffer) < 0)
		goto out;
	bench_res_options(x.res, options_json(&x.o));
	bench_header(x.res, &x.b, x.o.rounds);
	bench_res_note(x.res, "roof for bulk/sweep: the best median of streaming copies with each NT "
		       "store this CPU has (roof:copy(...): 8 B movnti, 16 B sse2, 32 B avx2, 64 B "
		       "avx512, movdir64b; from 8 KiB a copy also avx2, avx512 and movdir64b "
		       "in two streams, the halves' lines in turn: ..._x2) and of cached stores "
		       "written back, each line as it is whole (cached_clwb) or 512 B steps "
		       "(cached_clwb_512), loads batched as the "
		       "registers allow, one sfence; "
		       "struct-page roof: the same stores of the template's first line "
		       "(roof:fill(...)); set roof: those fills of the byte over the whole lines "
		       "of each memset; memcpy, copy-safe and copy-page copy through the cache, "
		       "and a move that does not overlap is a copy: they have no roof");
	bench_res_note(x.res, "checked: after each size's rounds, untimed, the first and last "
		       "call of every contender stored exactly the bytes it means and none "
		       "around them (a run that finds one wrong stops with exit status 1)");
	progress_begin(&x.prog, "copy-bench", x.planned, g->quiet);
	for (size_t i = 0; i < NR_MODES && !progress_interrupted(); i++)
		if (((x.o.modes >> i) & 1) && modes[i]->run(&x) < 0) {
			progress_end(&x.prog);
			goto out;
		}
	progress_end(&x.prog);
	bench_res_note_again(x.res, x.again, x.o.rounds);
	exit_code = bench_finish(x.res, g, "copy-bench");
out:
	if (exit_code == PMEMTEST_EXIT_FAIL && x.res)
		fprintf(stderr, "pmemtest: copy-bench failed\n");
	bench_bufs_close(&x.b);
	bench_res_free(x.res);
	free(x.o.sizes);
	free(x.o.sizes_run);
	free(x.o.sp);
	return exit_code;
}
