// SPDX-License-Identifier: MIT
/*
 * init-bench's command line: the help text and the options, parsed and
 * checked into struct init_opts before anything runs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init.h"
#include "kflush.h"
#include "../common/cli.h"

#define ALL_METHODS ((1u << REPLAY_NR_METHODS) - 1)
#define MAX_THREADS INIT_MAX_THREADS

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pmemtest [--dev PATH] [--json|--csv] [--quiet] [--force] init-bench [options]\n"
		"\n"
		"Replay the kernel's memmap_init_zone_device() for a namespace and time it.\n"
		"Without --dev: two emulated 100 GiB namespaces, nd_pmem (fsdax, map=dev)\n"
		"and dax_pmem (devdax, align 2M, map=dev), memmap in DRAM.\n"
		"\n"
		"  -s, --size SIZE          namespace size (K/M/G/T suffixes)\n"
		"  -a, --align 4K|2M|1G     alignment; for devdax the compound page size\n"
		"  -m, --mode fsdax|devdax  namespace mode (without --dev: run only that one)\n"
		"  -k, --kernel VERSION     the kernel replayed: 2026 (default, the tree the\n"
		"                           seed's patches apply to) or 6.1 (Debian 12)\n"
		"  -p, --struct-page N      sizeof(struct page): 64 (default) or 80; 56 with\n"
		"                           --kernel 6.1\n"
		"  -M, --memmap dev|mem     memmap in the target (altmap; needs --force with\n"
		"                           --dev) or in anonymous memory (vmemmap)\n"
		"  -t, --methods LIST       comma list of slow,generic,fixed,wide,pmem2,memcpy,\n"
		"                           roof or all (default all)\n"
		"  -r, --repeat N           rebinds per method (default 30); --rounds N is an\n"
		"                           alias (the name copy-bench and clear-bench had)\n"
		"  -T, --threads N          split the pfn range across N threads (default 1)\n"
		"  -C, --clock wall|cpu     time each rebind by the wall clock (default, as\n"
		"                           the kernel's jiffies) or by the CPU time of the\n"
		"                           slowest thread (ignores preemption on a busy host)\n"
		"      --variant NAME       generic calls this memcpy_flushcache variant of the\n"
		"                           libkflush registry instead of the bound one\n"
		"      --pageblock-copy cached|stream|prefetch\n"
		"                           how the template methods write the struct page of\n"
		"                           a pageblock-aligned pfn: cached (default, as the\n"
		"                           kernel does), stream (their own copy, the same\n"
		"                           bytes: what that one cached copy costs them) or\n"
		"                           prefetch (cached, its lines asked for with\n"
		"                           prefetchw a pageblock ahead; the kernel does not)\n"
		"      --compound-head drain|cached\n"
		"                           how the template methods write page[1] and page[2]\n"
		"                           of a compound page (devdax): drain (default, as\n"
		"                           the kernel does: streamed, a drain, rewritten) or\n"
		"                           cached (copied through the cache, rewritten with\n"
		"                           no drain per compound: what that drain costs)\n"
		"  -S, --seed N             seed for the verification's random pfns, any\n"
		"                           64-bit integer, decimal or 0x hex (default 0x5eed)\n"
		"      --replay-out FILE    after the runs, write the whole struct page array\n"
		"                           as the replayed kernel leaves it (needs --mode,\n"
		"                           no --dev; for tools/vm/memmap-cmp)\n"
		"  -f, --force              the global --force, also accepted here: allow\n"
		"                           --memmap dev to overwrite the target\n"
		"      --list               the methods (and whether this CPU runs them) and\n"
		"                           the kernel models, then exit\n"
		"  -h, --help               this help\n");
}

/*
 * A comma list of methods into *out. "all" means every method in allowed;
 * a method outside it is a usage error naming what (the option or variable).
 */
static int parse_methods(const char *s, const char *what, unsigned int allowed, unsigned int *out)
{
	char buf[256], *save = NULL;

	*out = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int m;

		if (strcmp(t, "all") == 0) {
			*out = allowed;
			continue;
		}
		for (m = 0; m < REPLAY_NR_METHODS; m++)
			if (strcmp(t, init_method_name((enum replay_method)m)) == 0)
				break;
		if (m == REPLAY_NR_METHODS)
			cli_die_usage("%s: unknown method '%s' (slow, generic, fixed, wide, pmem2, memcpy, roof, all)",
				     what, t);
		if (!(allowed & (1u << m)))
			cli_die_usage("%s: method %s is not verified, so it cannot be corrupted", what, t);
		*out |= 1u << m;
	}
	return *out ? 0 : -1;
}

int init_parse_opts(int argc, char **argv, struct init_opts *o)
{
	static const struct option opts[] = {
		{ "size",        required_argument, NULL, 's' },
		{ "align",       required_argument, NULL, 'a' },
		{ "mode",        required_argument, NULL, 'm' },
		{ "struct-page", required_argument, NULL, 'p' },
		{ "kernel",      required_argument, NULL, 'k' },
		{ "memmap",      required_argument, NULL, 'M' },
		{ "methods",     required_argument, NULL, 't' },
		{ "repeat",      required_argument, NULL, 'r' },
		{ "rounds",      required_argument, NULL, 'r' },
		{ "threads",     required_argument, NULL, 'T' },
		{ "seed",        required_argument, NULL, 'S' },
		{ "clock",       required_argument, NULL, 'C' },
		{ "variant",     required_argument, NULL, 'v' },
		{ "pageblock-copy", required_argument, NULL, 'B' },
		{ "compound-head", required_argument, NULL, 'H' },
		{ "force",       no_argument,       NULL, 'f' },
		{ "replay-out",  required_argument, NULL, 'O' },
		{ "list",        no_argument,       NULL, 'L' },
		{ "help",        no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *env;
	unsigned long v;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	o->sp = 64;
	o->kernel = replay_kernel_default();
	o->methods = ALL_METHODS;
	o->repeat = 30;
	o->threads = 1;
	o->seed = 0x5eed;
	while ((c = getopt_long(argc, argv, ":s:a:m:p:k:M:t:r:T:S:C:fh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			rc = cli_parse_size(optarg, &o->size);
			if (rc == -ERANGE || (!rc && o->size > INIT_MAX_SIZE))
				cli_die_usage("--size %s: absurd, more than the 4 PiB x86-64 physical address space",
					     optarg);
			if (rc)
				cli_die_usage("--size '%s': expected a positive size such as 512M, 100G or 2T",
					     optarg);
			if (o->size < 4096)
				cli_die_usage("--size %s: smaller than one 4 KiB page", optarg);
			break;
		case 'a':
			if (strcmp(optarg, "4K") == 0 || strcmp(optarg, "4k") == 0)
				o->align = 4096;
			else if (strcmp(optarg, "2M") == 0 || strcmp(optarg, "2m") == 0)
				o->align = 2ULL << 20;
			else if (strcmp(optarg, "1G") == 0 || strcmp(optarg, "1g") == 0)
				o->align = 1ULL << 30;
			else
				cli_die_usage("--align '%s': expected 4K, 2M or 1G", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "fsdax") == 0)
				o->mode = 0;
			else if (strcmp(optarg, "devdax") == 0)
				o->mode = 1;
			else
				cli_die_usage("--mode '%s': expected fsdax or devdax", optarg);
			break;
		case 'p':
			if (cli_parse_uint(optarg, 256, &v) || v < 56 || v % 8)
				cli_die_usage("--struct-page '%s': expected 56, 64 or 80", optarg);
			o->sp = (unsigned int)v;
			break;
		case 'k':
			o->kernel = replay_kernel_find(optarg);
			if (!o->kernel)
				cli_die_usage("--kernel '%s': no model of that kernel (%s)", optarg,
					     replay_kernel_names());
			break;
		case 'M':
			if (strcmp(optarg, "dev") == 0)
				o->memmap = INIT_MEMMAP_DEV;
			else if (strcmp(optarg, "mem") == 0)
				o->memmap = INIT_MEMMAP_MEM;
			else
				cli_die_usage("--memmap '%s': expected dev or mem", optarg);
			break;
		case 't':
			if (parse_methods(optarg, "--methods", ALL_METHODS, &o->methods))
				cli_die_usage("--methods '%s': expected a comma list of methods", optarg);
			break;
		case 'r':
			if (cli_parse_uint(optarg, 100000, &v))
				cli_die_usage("--repeat '%s': expected 1..100000", optarg);
			o->repeat = (unsigned int)v;
			break;
		case 'T':
			if (cli_parse_uint(optarg, MAX_THREADS, &v))
				cli_die_usage("--threads '%s': expected 1..%d", optarg, MAX_THREADS);
			o->threads = (unsigned int)v;
			break;
		case 'S':
			if (cli_parse_u64(optarg, &o->seed))
				cli_die_usage("--seed '%s': expected an integer from 0 to 2^64 - 1, "
					      "decimal or 0x hex", optarg);
			break;
		case 'C':
			if (strcmp(optarg, "wall") == 0)
				o->cpu_clock = false;
			else if (strcmp(optarg, "cpu") == 0)
				o->cpu_clock = true;
			else
				cli_die_usage("--clock '%s': expected wall or cpu", optarg);
			break;
		case 'v': {
			int idx = kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, optarg);

			if (idx < 0)
				cli_die_usage("--variant '%s': no such memcpy_flushcache variant (see pmemtest info)",
					     optarg);
			if (kflush_variant_usable(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)idx) != 1)
				cli_die("--variant %s: this CPU (after KFLUSH_HWCAPS) cannot run it", optarg);
			o->variant = optarg;
			break;
		}
		case 'B': {
			int pb = replay_pageblock_copy_find(optarg);

			if (pb < 0)
				cli_die_usage("--pageblock-copy '%s': expected cached, stream or prefetch",
					     optarg);
			if (pb == REPLAY_PB_PREFETCH && !(kflush_cpu_features() & KFLUSH_CPU_PREFETCHW))
				cli_die("--pageblock-copy prefetch: this CPU (after KFLUSH_HWCAPS) has no "
					"prefetchw");
			o->pageblock_copy = (enum replay_pageblock_copy)pb;
			break;
		}
		case 'H': {
			int ch = replay_compound_head_find(optarg);

			if (ch < 0)
				cli_die_usage("--compound-head '%s': expected drain or cached", optarg);
			o->compound_head = (enum replay_compound_head)ch;
			break;
		}
		case 'f':
			o->force = true;
			break;
		case 'O':
			o->replay_out = optarg;
			break;
		case 'L':
			o->list = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli_die_getopt("init-bench", c, argv);
		}
	}
	if (optind < argc)
		cli_die_usage("init-bench: unexpected argument '%s'", argv[optind]);
	/* Test only: proves that a wrong struct page fails the run. */
	env = getenv("PMEMTEST_TEST_CORRUPT");
	if (env && *env && parse_methods(env, "PMEMTEST_TEST_CORRUPT",
					 init_checked_methods(), &o->corrupt))
		cli_die_usage("PMEMTEST_TEST_CORRUPT '%s': expected a comma list of methods", env);
	if (o->replay_out && o->mode < 0)
		cli_die_usage("--replay-out: say which namespace with --mode fsdax|devdax");
	if (!replay_kernel_has_size(o->kernel, o->sp)) {
		char sizes[64];

		cli_die_usage("--struct-page %u: no x86-64 config of kernel %s gives it (%s)", o->sp,
			     o->kernel->name, replay_kernel_sizes(o->kernel, sizes, sizeof(sizes)));
	}
	return 0;
}
