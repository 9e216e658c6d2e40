// SPDX-License-Identifier: MIT
/*
 * init-bench: replay memmap_init_zone_device() for a namespace with every
 * method, interleaved (A B C ... A B C ...), and verify each run.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "init_bench.h"
#include "kflush.h"
#include "util.h"

#define ALL_METHODS ((1u << RP_NR_METHODS) - 1)
#define MAX_THREADS 64

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
		"  -r, --repeat N           rebinds per method (default 30)\n"
		"  -T, --threads N          split the pfn range across N threads (default 1)\n"
		"  -C, --clock wall|cpu     time each rebind by the wall clock (default, as\n"
		"                           the kernel's jiffies) or by the CPU time of the\n"
		"                           slowest thread (ignores preemption on a busy host)\n"
		"  -V, --variant NAME       generic calls this memcpy_flushcache variant of the\n"
		"                           libkflush registry instead of the bound one\n"
		"  -S, --seed N             seed for the verification's random pfns\n"
		"      --replay-out FILE    after the runs, write the whole struct page array\n"
		"                           as the replayed kernel leaves it (needs --mode,\n"
		"                           no --dev; for tools/vm/memmap-cmp)\n"
		"  -f, --force              the global --force, also accepted here: allow\n"
		"                           --memmap dev to overwrite the target\n"
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
		for (m = 0; m < RP_NR_METHODS; m++)
			if (strcmp(t, ib_method_name((enum rp_method)m)) == 0)
				break;
		if (m == RP_NR_METHODS)
			pm_die_usage("%s: unknown method '%s' (slow, generic, fixed, wide, pmem2, memcpy, roof, all)",
				     what, t);
		if (!(allowed & (1u << m)))
			pm_die_usage("%s: method %s is not verified, so it cannot be corrupted", what, t);
		*out |= 1u << m;
	}
	return *out ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct ib_opts *o)
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
		{ "threads",     required_argument, NULL, 'T' },
		{ "seed",        required_argument, NULL, 'S' },
		{ "clock",       required_argument, NULL, 'C' },
		{ "variant",     required_argument, NULL, 'V' },
		{ "force",       no_argument,       NULL, 'f' },
		{ "replay-out",  required_argument, NULL, 'O' },
		{ "help",        no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *env;
	unsigned long v;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	o->sp = 64;
	o->kernel = rp_kernel_default();
	o->methods = ALL_METHODS;
	o->repeat = 30;
	o->threads = 1;
	o->seed = 0x5eed;
	while ((c = getopt_long(argc, argv, ":s:a:m:p:k:M:t:r:T:S:C:V:fh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			rc = pm_parse_size(optarg, &o->size);
			if (rc == -ERANGE || (!rc && o->size > IB_MAX_SIZE))
				pm_die_usage("--size %s: absurd, more than the 4 PiB x86-64 physical address space",
					     optarg);
			if (rc)
				pm_die_usage("--size '%s': expected a positive size such as 512M, 100G or 2T",
					     optarg);
			if (o->size < 4096)
				pm_die_usage("--size %s: smaller than one 4 KiB page", optarg);
			break;
		case 'a':
			if (strcmp(optarg, "4K") == 0 || strcmp(optarg, "4k") == 0)
				o->align = 4096;
			else if (strcmp(optarg, "2M") == 0 || strcmp(optarg, "2m") == 0)
				o->align = 2ULL << 20;
			else if (strcmp(optarg, "1G") == 0 || strcmp(optarg, "1g") == 0)
				o->align = 1ULL << 30;
			else
				pm_die_usage("--align '%s': expected 4K, 2M or 1G", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "fsdax") == 0)
				o->mode = 0;
			else if (strcmp(optarg, "devdax") == 0)
				o->mode = 1;
			else
				pm_die_usage("--mode '%s': expected fsdax or devdax", optarg);
			break;
		case 'p':
			if (pm_parse_uint(optarg, 256, &v) || v < 56 || v % 8)
				pm_die_usage("--struct-page '%s': expected 56, 64 or 80", optarg);
			o->sp = (unsigned int)v;
			break;
		case 'k':
			o->kernel = rp_kernel_find(optarg);
			if (!o->kernel)
				pm_die_usage("--kernel '%s': no model of that kernel (%s)", optarg,
					     rp_kernel_names());
			break;
		case 'M':
			if (strcmp(optarg, "dev") == 0)
				o->memmap = IB_MEMMAP_DEV;
			else if (strcmp(optarg, "mem") == 0)
				o->memmap = IB_MEMMAP_MEM;
			else
				pm_die_usage("--memmap '%s': expected dev or mem", optarg);
			break;
		case 't':
			if (parse_methods(optarg, "--methods", ALL_METHODS, &o->methods))
				pm_die_usage("--methods '%s': expected a comma list of methods", optarg);
			break;
		case 'r':
			if (pm_parse_uint(optarg, 100000, &v))
				pm_die_usage("--repeat '%s': expected 1..100000", optarg);
			o->repeat = (unsigned int)v;
			break;
		case 'T':
			if (pm_parse_uint(optarg, MAX_THREADS, &v))
				pm_die_usage("--threads '%s': expected 1..%d", optarg, MAX_THREADS);
			o->threads = (unsigned int)v;
			break;
		case 'S':
			if (pm_parse_uint(optarg, ULONG_MAX, &v))
				pm_die_usage("--seed '%s': expected a positive integer", optarg);
			o->seed = v;
			break;
		case 'C':
			if (strcmp(optarg, "wall") == 0)
				o->cpu_clock = false;
			else if (strcmp(optarg, "cpu") == 0)
				o->cpu_clock = true;
			else
				pm_die_usage("--clock '%s': expected wall or cpu", optarg);
			break;
		case 'V': {
			int idx = kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, optarg);

			if (idx < 0)
				pm_die_usage("--variant '%s': no such memcpy_flushcache variant (see pmemtest info)",
					     optarg);
			if (kflush_variant_usable(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)idx) != 1)
				pm_die("--variant %s: this CPU (after KFLUSH_HWCAPS) cannot run it", optarg);
			o->variant = optarg;
			break;
		}
		case 'f':
			o->force = true;
			break;
		case 'O':
			o->replay_out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			pm_die_usage("init-bench: option '%s' needs an argument", argv[optind - 1]);
		default:
			pm_die_usage("init-bench: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		pm_die_usage("init-bench: unexpected argument '%s'", argv[optind]);
	/* Test only: proves that a wrong struct page fails the run. */
	env = getenv("PMEMTEST_TEST_CORRUPT");
	if (env && *env && parse_methods(env, "PMEMTEST_TEST_CORRUPT",
					 ib_checked_methods(), &o->corrupt))
		pm_die_usage("PMEMTEST_TEST_CORRUPT '%s': expected a comma list of methods", env);
	if (o->replay_out && o->mode < 0)
		pm_die_usage("--replay-out: say which namespace with --mode fsdax|devdax");
	if (!rp_kernel_has_size(o->kernel, o->sp)) {
		char sizes[64];

		pm_die_usage("--struct-page %u: no x86-64 config of kernel %s gives it (%s)", o->sp,
			     o->kernel->name, rp_kernel_sizes(o->kernel, sizes, sizeof(sizes)));
	}
	return 0;
}

/* --- running ------------------------------------------------------------ */

struct worker {
	pthread_t tid;
	const struct rp_ns *rp;
	enum rp_method m;
	rp_fn fn;
	uint64_t lo, hi;
	const void *line;
	uint64_t cpu_ns;	/* this worker's CPU time for its share */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void run_range(const struct worker *w)
{
	if (w->m == RP_ROOF) {
		const struct rp_ns *r = w->rp;

		if (r->compound_nr == r->ppc) {
			rp_roof(r, w->lo, w->hi, w->line);
			return;
		}
		for (uint64_t h = w->lo; h < w->hi; h += r->ppc)
			rp_roof(r, h, h + r->compound_nr, w->line);
		return;
	}
	w->fn(w->rp, w->lo, w->hi);
}

static void run_range_timed(struct worker *w)
{
	uint64_t t0 = thread_cpu_ns();

	run_range(w);
	w->cpu_ns = thread_cpu_ns() - t0;
}

static void *worker_main(void *arg)
{
	run_range_timed(arg);
	return NULL;
}

/*
 * One timed rebind. Threads split at multiples of 1024 pfns (two pageblocks
 * share a byte of the bitmap) and of the compound size.
 */
static double run_once(const struct ib_ns *ns, enum rp_method m, rp_fn fn, unsigned int threads,
		       bool cpu_clock, const void *line)
{
	const struct rp_ns *r = &ns->rp;
	struct worker w[MAX_THREADS];
	uint64_t g = r->ppc > 1024 ? r->ppc : 1024, t0, t1, prev = r->start_pfn;
	unsigned int n = 0;

	for (unsigned int i = 0; i < threads; i++) {
		uint64_t cut = r->start_pfn + (r->end_pfn - r->start_pfn) * (i + 1) / threads;

		cut = r->base_pfn + (cut - r->base_pfn + g - 1) / g * g;
		if (i == threads - 1 || cut > r->end_pfn)
			cut = r->end_pfn;
		if (cut <= prev)
			continue;
		w[n] = (struct worker){ .rp = r, .m = m, .fn = fn, .lo = prev, .hi = cut, .line = line };
		prev = cut;
		n++;
	}
	t0 = pm_now_ns();
	if (n == 1) {
		run_range_timed(&w[0]);
	} else {
		unsigned int started = 0;

		for (unsigned int i = 1; i < n; i++, started++)
			if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
				break;
		run_range_timed(&w[0]);
		/* A thread that failed to start: do its share here. */
		for (unsigned int i = started + 1; i < n; i++)
			run_range_timed(&w[i]);
		for (unsigned int i = 1; i <= started; i++)
			pthread_join(w[i].tid, NULL);
	}
	t1 = pm_now_ns();
	if (cpu_clock) {
		uint64_t max = 0;

		/* The slowest worker's CPU time: wall time minus preemption. */
		for (unsigned int i = 0; i < n; i++)
			max = w[i].cpu_ns > max ? w[i].cpu_ns : max;
		return (double)max / 1e6;
	}
	return (double)(t1 - t0) / 1e6;
}

/* --- the command ---------------------------------------------------------- */

static void progress(const struct ib_ns *ns, unsigned int done, unsigned int total)
{
	int w = 30, fill = (int)((uint64_t)done * (unsigned int)w / total);

	fprintf(stderr, "\r  %-10s [%.*s%*s] %u/%u", ns->name, fill,
		"==============================", w - fill, "", done, total);
	if (done == total)
		fprintf(stderr, "\r%*s\r", w + 40, "");
}

/* Apply the options to a namespace; errors are usage errors (exit 2). */
static void configure(const struct pm_global *g, const struct ib_opts *o, struct ib_ns *ns)
{
	char b1[32], b2[32];

	if (o->size) {
		/* A namespace cannot outgrow its device; libpmem2 could not map it. */
		if (g->dev && o->size > ns->target_size)
			pm_die_usage("--size %s: larger than %s (%s, %" PRIu64 " bytes)",
				     pm_fmt_bytes(o->size, b1, sizeof(b1)), g->dev,
				     pm_fmt_bytes(ns->target_size, b2, sizeof(b2)), ns->target_size);
		ns->size = o->size;
	}
	if (o->align)
		ns->align = o->align;
	if (o->mode >= 0)
		ns->devdax = o->mode == 1;
	ns->sp = o->sp;
	ns->kernel = o->kernel;
	if (!g->dev) {
		ns->altmap = o->memmap != IB_MEMMAP_MEM;
		return;
	}
	ns->on_target = o->memmap == IB_MEMMAP_DEV || (o->memmap == IB_MEMMAP_UNSET && g->force);
	/*
	 * Whether the kernel uses an altmap (which pfns it initialises, and
	 * whether compound tails get the vmemmap optimisation): for a real
	 * devdax device its own map= says so, wherever pmemtest writes the
	 * array; a file models map=dev exactly when the array goes into it.
	 */
	ns->altmap = ns->data_only ? strcmp(ns->dev_map, "dev") == 0 : ns->on_target;
	if (o->memmap == IB_MEMMAP_DEV && !g->force) {
		if (ib_geometry(ns) == PM_EXIT_OK)
			pm_die_usage("--memmap dev would overwrite bytes %" PRIu64 "-%" PRIu64
				     " of %s; add --force to allow it", ns->write_lo, ns->write_hi - 1,
				     g->dev);
		exit(PM_EXIT_FAIL);
	}
	if (!ns->on_target && o->memmap == IB_MEMMAP_UNSET && !g->quiet)
		fprintf(stderr, "note: %s is only read: the memmap goes to DRAM (--memmap mem); "
			"--memmap dev --force writes it into the target\n", g->dev);
}

/*
 * Every method runs --repeat times, and every run of a checked method is
 * verified. A mismatch ends the run after the round it happened in, so
 * every method gets a verdict from its own runs; the report still comes
 * out, with the verdicts, and the exit status is a failure.
 */
static int bench_ns(const struct pm_global *g, const struct ib_opts *o, struct ib_ns *ns,
		    bool *mismatch)
{
	static uint64_t pfns[IB_NR_SAMPLES];
	struct ib_result res[RP_NR_METHODS];
	rp_fn fns[RP_NR_METHODS] = { 0 };
	unsigned char line[64] __attribute__((aligned(64)));
	unsigned int nm = 0, done = 0;
	uint64_t seed = o->seed ? o->seed : 1;
	bool tty = isatty(STDERR_FILENO) && !g->quiet;
	int rc = PM_EXIT_OK, bad = 0;
	char failed[128];

	memset(res, 0, sizeof(res));
	for (int m = 0; m < RP_NR_METHODS; m++) {
		if (!(o->methods & (1u << m)))
			continue;
		if (m != RP_ROOF) {
			fns[m] = rp_method_fn((enum rp_method)m, ns->sp);
			if (!fns[m]) {
				if (!g->quiet)
					fprintf(stderr, "note: method %s skipped: this CPU has neither AVX-512F nor AVX2\n",
						ib_method_name((enum rp_method)m));
				continue;
			}
		}
		res[m].m = (enum rp_method)m;
		res[m].run = true;
		res[m].verdict = ib_method_checked((enum rp_method)m) ? IB_PASSED : IB_NOT_CHECKED;
		res[m].samples = calloc(o->repeat, sizeof(double));
		if (!res[m].samples) {
			pm_err("out of memory");
			return PM_EXIT_FAIL;
		}
		nm++;
	}
	rc = ib_storage_open(ns, g->quiet);
	if (rc)
		goto out;
	if (o->variant)
		ns->rp.generic_variant = (kflush_memcpy_flushcache_fn)kflush_variant_fn(
			KFLUSH_OP_MEMCPY_FLUSHCACHE,
			(unsigned int)kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, o->variant));
	rp_template_line(&ns->rp, line);
	/* One untimed pass, so the first timed run does not pay for the TLB. */
	run_once(ns, RP_ROOF, NULL, o->threads, false, line);
	for (unsigned int rep = 0; rep < o->repeat && !bad; rep++) {
		for (int m = 0; m < RP_NR_METHODS; m++) {
			bool check = ib_method_checked((enum rp_method)m);
			size_t n = 0;
			int wrong;

			if (!res[m].run)
				continue;
			if (check) {
				n = ib_pick_samples(ns, &seed, pfns);
				ib_poison(ns, pfns, n);
			}
			res[m].samples[rep] = run_once(ns, (enum rp_method)m, fns[m], o->threads,
						      o->cpu_clock, line);
			res[m].runs++;
			if (check) {
				if (o->corrupt & (1u << m))
					ib_test_corrupt(ns, (enum rp_method)m, pfns, n);
				wrong = ib_verify(ns, (enum rp_method)m, pfns, n);
				if (wrong)
					res[m].verdict = IB_FAILED;
				bad += wrong;
			}
			if (tty)
				progress(ns, ++done, nm * o->repeat);
		}
	}
	if (tty && bad)
		progress(ns, nm * o->repeat, nm * o->repeat);
	for (int m = 0; m < RP_NR_METHODS; m++) {
		double *tmp;

		if (!res[m].run)
			continue;
		tmp = malloc(res[m].runs * sizeof(double));
		if (!tmp) {
			rc = PM_EXIT_FAIL;
			goto out;
		}
		memcpy(tmp, res[m].samples, res[m].runs * sizeof(double));
		pm_summarise(tmp, res[m].runs, &res[m].s);
		free(tmp);
	}
	if (g->json)
		ib_report_json_ns(ns, res);
	else if (g->csv)
		ib_report_csv(ns, o, res);
	else
		ib_report_table(ns, o, res);
	if (bad) {
		ib_failed_list(res, failed, sizeof(failed));
		pm_err("%s: verification failed for %s: %d sample or pageblock mismatches",
		       ns->name, failed, bad);
		rc = PM_EXIT_FAIL;
		*mismatch = true;
	}
	if (o->replay_out && !rc)
		rc = ib_dump_replay(ns, o->replay_out);
out:
	ib_storage_close(ns);
	for (int m = 0; m < RP_NR_METHODS; m++)
		free(res[m].samples);
	return rc;
}

int cmd_init_bench(const struct pm_global *g, int argc, char **argv)
{
	struct ib_ns ns[2];
	struct ib_opts o;
	int nr, rc = PM_EXIT_OK;
	struct pm_global gl;
	bool mismatch = false;
	char b1[32];

	if (parse_opts(argc, argv, &o))
		return PM_EXIT_OK;
	/*
	 * "init-bench --memmap dev --force" reads naturally, so --force after
	 * the command means exactly the global one: everything below sees
	 * only the merged copy.
	 */
	gl = *g;
	gl.force = g->force || o.force;
	g = &gl;
	if (g->dev && o.replay_out)
		pm_die_usage("--replay-out: only the embedded namespaces (no --dev)");
	if (g->dev) {
		rc = ib_describe_target(g, &o, &ns[0]);
		if (rc) {
			if (ns[0].fd >= 0)
				close(ns[0].fd);
			return rc;
		}
		nr = 1;
	} else {
		nr = ib_embedded(&o, ns, 2);
	}
	for (int i = 0; i < nr; i++) {
		configure(g, &o, &ns[i]);
		rc = ib_geometry(&ns[i]);
		if (rc)
			goto out;
		if (ns[i].on_target && (rc = ib_check_writable(&ns[i])))
			goto out;
		if (ns[i].on_target)
			fprintf(stderr, "%s: --force: overwriting bytes %" PRIu64 "-%" PRIu64
				" (%s of struct pages) of %s; nothing else in it is written\n",
				pm_progname, ns[i].write_lo, ns[i].write_hi - 1,
				pm_fmt_bytes(ns[i].write_hi - ns[i].write_lo, b1, sizeof(b1)), g->dev);
	}
	if (g->csv)
		ib_report_csv_header();
	for (int i = 0; i < nr && !rc; i++)
		rc = bench_ns(g, &o, &ns[i], &mismatch);
	/* A namespace that failed verification is in the document too. */
	if ((!rc || mismatch) && g->json)
		ib_report_json_end(&o);
out:
	for (int i = 0; i < nr; i++)
		if (ns[i].fd >= 0)
			close(ns[i].fd);
	return rc;
}
