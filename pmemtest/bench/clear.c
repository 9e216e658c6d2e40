// SPDX-License-Identifier: MIT
/*
 * pmemtest clear-bench: every registry variant of clear_page, clear_pages,
 * clear_pages_flushcache and memset_flushcache over 4 KiB, 2 MiB and 1 GiB
 * extents of non-zero pages, beside glibc memset, PMDK's memset_fn and the
 * roof: the best of every way this CPU has to store zeros over the extent
 * (rep stosb, NT zero stores of each width, movdir64b of a zero line,
 * clzero), each interleaved like a contender. This file is its command line;
 * clear_run.c runs it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clear.h"
#include "../common/cli.h"
#include "../common/output.h"

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

	while ((c = getopt_long(argc, argv, ":e:" BENCH_COMMON_SHORTOPTS "h", lo, NULL)) != -1) {
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
			cli_die_getopt("clear-bench", c, argv);
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
		bool hot = (x->cache & 1u) && clear_sample_area(x->extents[i], true) <= BENCH_HOT_SPAN;
		bool cold = (x->cache & 2u) && clear_sample_area(x->extents[i], false) <= buffer;

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
	int ret, exit_code = PMEMTEST_EXIT_FAIL;
	bool given;

	x.b.fd = -1;
	ret = parse(&x, &buffer, argc, argv);
	if (ret) {
		free(x.extents);
		return ret > 0 ? PMEMTEST_EXIT_OK : PMEMTEST_EXIT_USAGE;
	}
	given = x.extents != NULL;
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
	if (!clear_fits(&x, buffer)) {
		cli_err("clear-bench: nothing to measure: no extent fits %s (hot: 4 MiB of "
			"extents per sample; cold: --buffer)",
			x.cache == 1 ? "the hot window" : x.cache == 2 ? "the buffer" :
			"the hot window or the buffer");
		free(x.extents);
		return PMEMTEST_EXIT_USAGE;
	}
	/*
	 * An extent asked for that runs in no cache state asked for is an
	 * error, not a table without it (--list shows it as "none"); of the
	 * defaults, 1G runs cold only.
	 */
	for (size_t i = 0; given && !x.list && i < x.nextents; i++) {
		char ext[32], hot[32], buf[32];

		if (!clear_extent_fits(&x, x.extents[i], buffer)) {
			cli_fmt_bytes(x.extents[i], ext, sizeof(ext));
			cli_fmt_bytes(BENCH_HOT_SPAN, hot, sizeof(hot));
			cli_fmt_bytes(buffer, buf, sizeof(buf));
			if (x.cache == 1u)
				cli_err("clear-bench: --extents %s: fits no cache state asked for "
					"(hot: %s of extents per sample)", ext, hot);
			else if (x.cache == 2u)
				cli_err("clear-bench: --extents %s: fits no cache state asked for "
					"(cold: the buffer, %s)", ext, buf);
			else
				cli_err("clear-bench: --extents %s: fits no cache state asked for "
					"(hot: %s of extents per sample; cold: the buffer, %s)", ext,
					hot, buf);
			free(x.extents);
			return PMEMTEST_EXIT_USAGE;
		}
	}
	/* Listing maps a small buffer: contenders do not depend on its size. */
	list_buffer = buffer;
	if (x.list)
		buffer = 8u << 20;
	if (bench_check_buffer("clear-bench", buffer)) {
		free(x.extents);
		return PMEMTEST_EXIT_USAGE;
	}
	x.evict = bench_evict_fn();
	progress_catch_interrupt();
	x.res = bench_res_new("clear-bench", x.rounds);
	if (!x.res || bench_bufs_open(&x.b, buffer) < 0)
		goto out;
	bench_res_options(x.res, options_json(&x, buffer));
	bench_header(x.res, &x.b, x.rounds);
	clear_add_variants(&x, KFLUSH_OP_CLEAR_PAGE, CLEAR_CALL_PAGE);
	clear_add_variants(&x, KFLUSH_OP_CLEAR_PAGES, CLEAR_CALL_PAGES);
	clear_add_variants(&x, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, CLEAR_CALL_PAGES_FC);
	clear_add_variants(&x, KFLUSH_OP_MEMSET_FLUSHCACHE, CLEAR_CALL_MEMSET_FC);
	if (x.b.map) {
		clear_add(&x, "pmdk:memset_nt", BENCH_PEER, CLEAR_CALL_PMEM, NULL,
		    PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
		clear_add(&x, "pmdk:memset", BENCH_PEER, CLEAR_CALL_PMEM, NULL, PMEM2_F_MEM_NODRAIN);
	}
	clear_add(&x, "glibc:memset", BENCH_PEER, CLEAR_CALL_GLIBC, NULL, 0);
	clear_add_roofs(&x);
	if (x.list) {
		list(&x, list_buffer);
		exit_code = PMEMTEST_EXIT_OK;
		goto out;
	}
	bench_res_note(x.res, "clear_page runs once per 4 KiB page; every other contender once per "
		       "extent; glibc memset and the roof leave dirty lines (not durable)");
	progress_begin(&x.prog, "clear-bench", clear_planned(&x), g->quiet);
	for (int h = 1; h >= 0 && !progress_interrupted(); h--) {
		int grp;

		if (!(x.cache & (h ? 1u : 2u)))
			continue;
		grp = clear_run_extents(&x, h);
		if (grp < 0) {
			progress_end(&x.prog);
			goto out;
		}
		if (!progress_interrupted())
			clear_targets(&x, grp, h ? "hot" : "cold");
	}
	progress_end(&x.prog);
	bench_res_note_again(x.res, x.again, x.rounds);
	exit_code = bench_finish(x.res, g, "clear-bench");
out:
	bench_bufs_close(&x.b);
	bench_res_free(x.res);
	free(x.extents);
	return exit_code;
}
