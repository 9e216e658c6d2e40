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

#include "init.h"
#include "kflush.h"
#include "../common/cli.h"
#include "../common/progress.h"
#include "../common/rng.h"

#define MAX_THREADS INIT_MAX_THREADS

struct worker {
	pthread_t tid;
	const struct replay_ns *rp;
	enum replay_method m;
	replay_fn fn;
	uint64_t lo, hi;
	const void *line;
	const struct roof_strategy *roof;	/* for REPLAY_ROOF */
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
	if (w->m == REPLAY_ROOF) {
		const struct replay_ns *r = w->rp;

		if (r->compound_nr == r->ppc) {
			replay_roof(r, w->lo, w->hi, w->line, w->roof);
		} else {
			for (uint64_t h = w->lo; h < w->hi; h += r->ppc)
				replay_roof(r, h, h + r->compound_nr, w->line, w->roof);
		}
		/* One fence per share, as the methods drain once. */
		roof_fence(w->roof);
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
static double run_once(const struct init_ns *ns, enum replay_method m, replay_fn fn, unsigned int threads,
		       bool cpu_clock, const void *line, const struct roof_strategy *roof)
{
	const struct replay_ns *r = &ns->rp;
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
		w[n] = (struct worker){ .rp = r, .m = m, .fn = fn, .lo = prev, .hi = cut, .line = line,
				       .roof = roof };
		prev = cut;
		n++;
	}
	t0 = stats_now_ns();
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
	t1 = stats_now_ns();
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

/* Apply the options to a namespace; errors are usage errors (exit 2). */
static void configure(const struct pmemtest_global *g, const struct init_opts *o, struct init_ns *ns)
{
	char b1[32], b2[32], b3[32];

	if (o->size) {
		/* A namespace cannot outgrow its device; libpmem2 could not map it. */
		if (g->dev && o->size > ns->target_size)
			cli_die_usage("--size %s: %s larger than %s (%s, %" PRIu64 " bytes)",
				     cli_fmt_bytes(o->size, b1, sizeof(b1)),
				     cli_fmt_bytes(o->size - ns->target_size, b3, sizeof(b3)), g->dev,
				     cli_fmt_bytes(ns->target_size, b2, sizeof(b2)), ns->target_size);
		ns->size = o->size;
	}
	if (o->align)
		ns->align = o->align;
	if (o->mode >= 0)
		ns->devdax = o->mode == 1;
	ns->sp = o->sp;
	ns->kernel = o->kernel;
	if (!g->dev) {
		ns->altmap = o->memmap != INIT_MEMMAP_MEM;
		return;
	}
	ns->on_target = o->memmap == INIT_MEMMAP_DEV || (o->memmap == INIT_MEMMAP_UNSET && g->force);
	/*
	 * Whether the kernel uses an altmap (which pfns it initialises, and
	 * whether compound tails get the vmemmap optimisation): for a real
	 * devdax device its own map= says so, wherever pmemtest writes the
	 * array; a file models map=dev exactly when the array goes into it.
	 */
	ns->altmap = ns->data_only ? strcmp(ns->dev_map, "dev") == 0 : ns->on_target;
	if (o->memmap == INIT_MEMMAP_DEV && !g->force) {
		if (init_geometry(ns) == PMEMTEST_EXIT_OK)
			cli_die_usage("--memmap dev would overwrite bytes %" PRIu64 "-%" PRIu64
				     " of %s; add --force to allow it", ns->write_lo, ns->write_hi - 1,
				     g->dev);
		exit(PMEMTEST_EXIT_FAIL);
	}
	if (!ns->on_target && o->memmap == INIT_MEMMAP_UNSET && !g->quiet)
		fprintf(stderr, "note: %s is only read: the memmap goes to DRAM (--memmap mem); "
			"--memmap dev --force writes it into the target\n", g->dev);
}

/*
 * The roof: every fill strategy this CPU has, one sample of each per round
 * (their order rotating) where the roof method's turn is; the strategy with
 * the best median becomes the roof's row, its samples the row's samples.
 */
static void roof_round(const struct init_ns *ns, const struct init_opts *o, struct init_roof *rf,
		       size_t nrf, unsigned int rep, const void *line)
{
	for (size_t j = 0; j < nrf; j++) {
		struct init_roof *x = &rf[(j + rep) % nrf];

		x->samples[x->runs++] = run_once(ns, REPLAY_ROOF, NULL, o->threads, o->cpu_clock,
						 line, x->s) * roof_test_scale();
	}
}

static void roof_pick(struct init_result *res, struct init_roof *rf, size_t nrf)
{
	struct init_roof *best = NULL;

	for (size_t j = 0; j < nrf; j++) {
		double *tmp = malloc(rf[j].runs * sizeof(double) + 1);

		if (!tmp)
			continue;
		memcpy(tmp, rf[j].samples, rf[j].runs * sizeof(double));
		stats_summarise(tmp, rf[j].runs, &rf[j].st);
		free(tmp);
		if (rf[j].runs && (!best || rf[j].st.median < best->st.median))
			best = &rf[j];
	}
	res->roofs = rf;
	res->nroofs = nrf;
	if (!best)
		return;
	res->strategy = best->s->name;
	memcpy(res->samples, best->samples, best->runs * sizeof(double));
}

/*
 * Every method runs --repeat times, in a new order each round, and every
 * run of a checked method is verified. A mismatch ends the run after the round it happened in, so
 * every method gets a verdict from its own runs; the report still comes
 * out, with the verdicts, and the exit status is a failure.
 */
static int bench_ns(const struct pmemtest_global *g, const struct init_opts *o, struct init_ns *ns,
		    bool *mismatch)
{
	static uint64_t pfns[INIT_NR_SAMPLES];
	struct init_result res[REPLAY_NR_METHODS];
	replay_fn fns[REPLAY_NR_METHODS] = { 0 };
	unsigned char line[64] __attribute__((aligned(64)));
	unsigned int nm = 0;
	uint64_t seed = rng_start(o->seed);
	struct progress prog;
	int rc = PMEMTEST_EXIT_OK, bad = 0;
	char failed[128];
	const struct roof_strategy *rs[ROOF_MAX_STRATEGIES];
	struct init_roof rf[ROOF_MAX_STRATEGIES];
	size_t nrf = roof_strategies(ROOF_FILL, rs, ROOF_MAX_STRATEGIES);

	memset(res, 0, sizeof(res));
	memset(rf, 0, sizeof(rf));
	for (size_t j = 0; j < nrf; j++) {
		rf[j].s = rs[j];
		rf[j].samples = calloc(o->repeat, sizeof(double));
		if (!rf[j].samples) {
			cli_err("out of memory");
			while (j-- > 0)
				free(rf[j].samples);
			return PMEMTEST_EXIT_FAIL;
		}
	}
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		if (!(o->methods & (1u << m)))
			continue;
		if (m != REPLAY_ROOF) {
			fns[m] = replay_method_fn((enum replay_method)m, ns->sp);
			if (!fns[m]) {
				if (!g->quiet)
					fprintf(stderr, "note: method %s skipped: this CPU has neither AVX-512F nor AVX2\n",
						init_method_name((enum replay_method)m));
				continue;
			}
		}
		res[m].m = (enum replay_method)m;
		res[m].run = true;
		res[m].verdict = init_method_checked((enum replay_method)m) ? INIT_PASSED : INIT_NOT_CHECKED;
		res[m].samples = calloc(o->repeat, sizeof(double));
		res[m].turns = calloc(o->repeat, 1);
		if (!res[m].samples || !res[m].turns) {
			cli_err("out of memory");
			return PMEMTEST_EXIT_FAIL;
		}
		nm++;
	}
	rc = init_storage_open(ns, g->quiet);
	if (rc)
		goto out;
	ns->rp.pageblock_copy = o->pageblock_copy;
	ns->rp.compound_head = o->compound_head;
	if (o->variant)
		ns->rp.generic_variant = (kflush_memcpy_flushcache_fn)kflush_variant_fn(
			KFLUSH_OP_MEMCPY_FLUSHCACHE,
			(unsigned int)kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, o->variant));
	replay_template_line(&ns->rp, line);
	if (res[REPLAY_ROOF].run && roof_test_scale() != 1 && !g->quiet)
		fprintf(stderr, "note: every roof sample's time is multiplied by %g "
			"(PMEMTEST_TEST_ROOF_SCALE): the roofs are not measurements\n", roof_test_scale());
	/* One untimed pass, so the first timed run does not pay for the TLB. */
	run_once(ns, REPLAY_ROOF, NULL, o->threads, false, line, rs[0]);
	if (res[REPLAY_ROOF].run)
		nm += (unsigned int)nrf - 1;
	progress_begin(&prog, ns->name, (uint64_t)nm * o->repeat, g->quiet);
	for (unsigned int rep = 0; rep < o->repeat && !bad && !progress_interrupted(); rep++) {
		size_t order[REPLAY_NR_METHODS];
		unsigned char turn = 0;

		/* A new order each round: never always after the same method. */
		rng_round_order(order, REPLAY_NR_METHODS, rep);
		for (size_t i = 0; i < REPLAY_NR_METHODS; i++) {
			int m = (int)order[i];
			bool check = init_method_checked((enum replay_method)m);
			size_t n = 0;
			int wrong;

			if (!res[m].run)
				continue;
			res[m].turns[rep] = turn++;
			if (m == REPLAY_ROOF) {
				roof_round(ns, o, rf, nrf, rep, line);
				res[m].runs++;
				progress_add(&prog, nrf);
				continue;
			}
			if (check) {
				n = init_pick_samples(ns, &seed, pfns);
				init_poison(ns, pfns, n);
			}
			res[m].samples[rep] = run_once(ns, (enum replay_method)m, fns[m], o->threads,
						      o->cpu_clock, line, NULL);
			res[m].runs++;
			if (check) {
				if (o->corrupt & (1u << m))
					init_test_corrupt(ns, (enum replay_method)m, pfns, n);
				wrong = init_verify(ns, (enum replay_method)m, pfns, n);
				if (wrong)
					res[m].verdict = INIT_FAILED;
				bad += wrong;
			}
			progress_add(&prog, 1);
		}
	}
	progress_end(&prog);
	if (res[REPLAY_ROOF].run)
		roof_pick(&res[REPLAY_ROOF], rf, nrf);
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		double *tmp;

		if (!res[m].run)
			continue;
		tmp = malloc(res[m].runs * sizeof(double));
		if (!tmp) {
			rc = PMEMTEST_EXIT_FAIL;
			goto out;
		}
		memcpy(tmp, res[m].samples, res[m].runs * sizeof(double));
		stats_summarise(tmp, res[m].runs, &res[m].s);
		free(tmp);
	}
	if (g->json)
		init_report_json_ns(ns, res);
	else if (g->csv)
		init_report_csv(ns, o, res);
	else
		init_report_table(ns, o, res);
	if (bad) {
		init_failed_list(res, failed, sizeof(failed));
		cli_err("%s: verification failed for %s: %d sample or pageblock mismatches",
		       ns->name, failed, bad);
		rc = PMEMTEST_EXIT_FAIL;
		*mismatch = true;
	}
	if (progress_interrupted() && !rc) {
		cli_err("%s: interrupted: reported what was measured so far", ns->name);
		rc = PROGRESS_EXIT_INTERRUPTED;
	}
	if (o->replay_out && !rc)
		rc = init_dump_replay(ns, o->replay_out);
out:
	init_storage_close(ns);
	for (int m = 0; m < REPLAY_NR_METHODS; m++) {
		free(res[m].samples);
		free(res[m].turns);
	}
	for (size_t j = 0; j < nrf; j++)
		free(rf[j].samples);
	return rc;
}

int cmd_init_bench(const struct pmemtest_global *g, int argc, char **argv)
{
	struct init_ns ns[2];
	struct init_opts o;
	int nr, rc = PMEMTEST_EXIT_OK;
	struct pmemtest_global gl;
	bool mismatch = false;
	char b1[32];

	if (init_parse_opts(argc, argv, &o))
		return PMEMTEST_EXIT_OK;
	if (o.list) {
		init_report_list();
		return PMEMTEST_EXIT_OK;
	}
	/*
	 * "init-bench --memmap dev --force" reads naturally, so --force after
	 * the command means exactly the global one: everything below sees
	 * only the merged copy.
	 */
	gl = *g;
	gl.force = g->force || o.force;
	g = &gl;
	if (g->dev && o.replay_out)
		cli_die_usage("--replay-out: only the embedded namespaces (no --dev)");
	if (g->dev) {
		rc = init_describe_target(g, &o, &ns[0]);
		if (rc) {
			if (ns[0].fd >= 0)
				close(ns[0].fd);
			return rc;
		}
		nr = 1;
	} else {
		nr = init_embedded(&o, ns, 2);
	}
	for (int i = 0; i < nr; i++) {
		configure(g, &o, &ns[i]);
		rc = init_geometry(&ns[i]);
		if (rc)
			goto out;
		if (o.replay_out && (rc = init_dump_check(&ns[i], o.replay_out, g->output)))
			goto out;
		if (ns[i].on_target && (rc = init_check_writable(&ns[i])))
			goto out;
		if (ns[i].on_target)
			fprintf(stderr, "%s: --force: overwriting bytes %" PRIu64 "-%" PRIu64
				" (%s of struct pages) of %s; nothing else in it is written\n",
				cli_progname, ns[i].write_lo, ns[i].write_hi - 1,
				cli_fmt_bytes(ns[i].write_hi - ns[i].write_lo, b1, sizeof(b1)), g->dev);
	}
	if (g->csv)
		init_report_csv_header();
	/* From here Ctrl-C ends the runs and reports what was measured. */
	progress_catch_interrupt();
	for (int i = 0; i < nr && !rc; i++)
		rc = bench_ns(g, &o, &ns[i], &mismatch);
	/* A namespace that failed verification or was interrupted is in the document too. */
	if ((!rc || mismatch || rc == PROGRESS_EXIT_INTERRUPTED) && g->json)
		init_report_json_end(&o);
out:
	for (int i = 0; i < nr; i++)
		if (ns[i].fd >= 0)
			close(ns[i].fd);
	return rc;
}
