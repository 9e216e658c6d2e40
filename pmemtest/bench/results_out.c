// SPDX-License-Identifier: MIT
/*
 * The result set's outputs: the human table (with the roof each size got
 * and the roof errors), CSV rows and the JSON document, and the end of a
 * run. A contender above the roof is never printed as a ratio to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "res.h"
#include "../common/cli.h"
#include "../common/output.h"
#include "../common/progress.h"

const char *res_size_str(size_t n, char *buf, size_t len)
{
	static const char suf[] = "KMGT";

	for (int i = 3; i >= 0; i--) {
		size_t unit = (size_t)1 << (10 * (i + 1));

		if (n >= unit && n % unit == 0) {
			snprintf(buf, len, "%zu%c", n / unit, suf[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%zu", n);
	return buf;
}

const char *res_size_words(size_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };

	for (int i = 3; i >= 0; i--)
		if (n >= (size_t)1 << (10 * (i + 1)) && n % ((size_t)1 << (10 * (i + 1))) == 0) {
			snprintf(buf, len, "%zu %s", n >> (10 * (i + 1)), unit[i]);
			return buf;
		}
	snprintf(buf, len, "%zu B", n);
	return buf;
}

static void print_ratio(double v)
{
	if (v > 0)
		printf(" %7.2f", v);
	else
		printf(" %7s", "-");
}

/*
 * Which strategy the roof of each size was, as runs of sizes: "roof: avx2
 * at 64..4K, movnti at 8K..256M". Nothing for a group without roofs.
 */
static void print_roof_line(struct bench_res *r, size_t g)
{
	const char *run = NULL;
	size_t from = 0, to = 0, last = (size_t)-1;
	char a[32], b[32];
	bool any = false;

	for (size_t i = 0; i <= r->ncells; i++) {
		const struct cell *cl = i < r->ncells ? &r->cells[i] : NULL;
		struct summary s;

		if (cl && (cl->g != (int)g || cl->size == last))
			continue;
		if (cl) {
			last = cl->size;
			res_summarise(r, cl, &s);
		}
		if (run && (!cl || !s.roof_strategy || strcmp(s.roof_strategy, run))) {
			printf("%s %s at %s%s%s", any ? "," : "roof (best NT/store strategy per size):",
			       run, res_size_str(from, a, sizeof(a)), from == to ? "" : "..",
			       from == to ? "" : res_size_str(to, b, sizeof(b)));
			any = true;
			run = NULL;
		}
		if (!cl || !s.roof_strategy)
			continue;
		if (!run) {
			run = s.roof_strategy;
			from = cl->size;
		}
		to = cl->size;
	}
	if (any)
		printf("\n");
}

/*
 * One line per contender above the roof: the roof, not the contender, is
 * wrong. Then issue 10's target over the run: no contender more than 3 %
 * above the roof of its cell, of every contender cell that has a roof.
 */
static void print_roof_errors(struct bench_res *r)
{
	unsigned int errors = 0, judged = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct cell *cl = &r->cells[i];
		const struct group *gr = &r->groups[cl->g];
		struct summary s;
		char sb[32];

		res_summarise(r, cl, &s);
		judged += r->conts[cl->c].cls != BENCH_ROOF && s.roof_strategy;
		if (!s.roof_error)
			continue;
		errors++;
		printf("roof error: %s %.2fx the roof (%s) at %s %s (%s, %s): the roof is not the "
		       "maximum\n", r->conts[cl->c].name, s.over_roof,
		       s.roof_strategy ? s.roof_strategy : "?", res_size_words(cl->size, sb, sizeof(sb)),
		       gr->cache, gr->mode, gr->layout);
	}
	if (judged)
		printf("target roof >= every contender (within 3 %%): %u roof error%s in %u cells "
		       "with a roof (%s)\n", errors, errors == 1 ? "" : "s", judged,
		       errors ? "NOT met" : "met");
}

static void print_human(struct bench_res *r)
{
	int w = 34;	/* the contender column: as wide as its longest name */

	for (size_t c = 0; c < r->nconts; c++)
		if ((int)strlen(r->conts[c].name) > w)
			w = (int)strlen(r->conts[c].name);
	for (size_t g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];
		size_t last = (size_t)-1;

		printf("\n== %s: %s, %s %s ==\n", r->bench, gr->mode, gr->cache, gr->layout);
		printf("%8s  %-*s %7s %11s %9s %7s %7s %7s\n", "size", w, "contender", "calls",
		       "ns/call", "GB/s", "spread", "x peer", "x roof");
		for (size_t i = 0; i < r->ncells; i++) {
			const struct cell *cl = &r->cells[i];
			struct summary s;
			char sb[32];

			if (cl->g != (int)g)
				continue;
			res_summarise(r, cl, &s);
			if (last != (size_t)-1 && last != cl->size)
				printf("\n");
			last = cl->size;
			res_size_str(cl->size, sb + 2, sizeof(sb) - 2);
			if (!strcmp(gr->layout, "mix"))
				memcpy(sb, "<=", 2);
			printf("%8s  %-*s %7llu %11.1f %9.3f %6.1f%%",
			       strcmp(gr->layout, "mix") ? sb + 2 : sb, w, r->conts[cl->c].name,
			       (unsigned long long)cl->calls, s.ns_call, s.gbps, s.spread);
			print_ratio(s.x_peer);
			if (s.roof_error)
				printf(" %7s", "ERROR");
			else
				print_ratio(s.x_roof);
			printf("\n");
		}
		print_roof_line(r, g);
	}
	if (r->nnotes)
		printf("\n");
	for (size_t i = 0; i < r->nnotes; i++)
		printf("%s\n", r->notes[i]);
	print_roof_errors(r);
	res_bound_print(r);
}

static void csv_ratio(double v)
{
	if (v > 0)
		printf(",%.4f", v);
	else
		printf(",");
}

/*
 * One header, then "sample" rows (one per timed batch) and "median" rows
 * (one per cell, gbps = bytes / median ns): tools/plot.gp plots the latter.
 * A CSV carries no notes, so each row says what every measurement must:
 * the clock, the CPU, and that DRAM stood in for pmem.
 */
static void print_csv(struct bench_res *r)
{
	char cpu[256], tail[300];

	output_cpu_csv(cpu, sizeof(cpu));
	snprintf(tail, sizeof(tail), ",%s,%s,1", bench_clock_short(), cpu);
	printf("row,bench,mode,cache,layout,size,contender,class,round,calls,bytes,ns,"
	       "ns_per_call,gbps,spread_pct,x_peer,x_roof,roof_strategy,over_roof,"
	       "clock,cpu,dram_stands_in_for_pmem\n");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct cell *cl = &r->cells[i];
		const struct group *gr = &r->groups[cl->g];
		const struct contender *ct = &r->conts[cl->c];
		struct summary s;

		for (size_t k = 0; k < cl->n; k++)
			printf("sample,%s,%s,%s,%s,%zu,%s,%s,%u,%llu,%llu,%llu,%.3f,%.4f,,,,,%s\n",
			       r->bench, gr->mode, gr->cache, gr->layout, cl->size, ct->name,
			       res_class_name[ct->cls], cl->round[k], (unsigned long long)cl->calls,
			       (unsigned long long)cl->bytes, (unsigned long long)cl->ns[k],
			       (double)cl->ns[k] / (double)cl->calls,
			       (double)cl->bytes / (double)cl->ns[k], tail);
		res_summarise(r, cl, &s);
		printf("median,%s,%s,%s,%s,%zu,%s,%s,%zu,%llu,%llu,%.0f,%.3f,%.4f,%.2f",
		       r->bench, gr->mode, gr->cache, gr->layout, cl->size, ct->name,
		       res_class_name[ct->cls], s.n, (unsigned long long)cl->calls,
		       (unsigned long long)cl->bytes, s.med_ns, s.ns_call, s.gbps, s.spread);
		csv_ratio(s.x_peer);
		csv_ratio(s.x_roof);
		printf(",%s", s.roof_strategy ? s.roof_strategy : "");
		csv_ratio(s.over_roof);
		printf("%s\n", tail);
	}
}

static void jset(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *cell_json(struct bench_res *r, const struct cell *cl)
{
	const struct group *gr = &r->groups[cl->g];
	const struct contender *ct = &r->conts[cl->c];
	json_object *o = json_object_new_object(), *samples = json_object_new_array();
	struct summary s;

	res_summarise(r, cl, &s);
	jset(o, "mode", json_object_new_string(gr->mode));
	jset(o, "cache", json_object_new_string(gr->cache));
	jset(o, "layout", json_object_new_string(gr->layout));
	jset(o, "size", json_object_new_int64((int64_t)cl->size));
	jset(o, "contender", json_object_new_string(ct->name));
	jset(o, "class", json_object_new_string(res_class_name[ct->cls]));
	jset(o, "calls", json_object_new_int64((int64_t)cl->calls));
	jset(o, "bytes", json_object_new_int64((int64_t)cl->bytes));
	/* Measured again (bench_res_screen()): the numbers count from here. */
	jset(o, "counted_from_round", json_object_new_int((int)cl->from_round));
	jset(o, "median_ns", json_object_new_double(s.med_ns));
	jset(o, "min_ns", json_object_new_double(s.min_ns));
	jset(o, "max_ns", json_object_new_double(s.max_ns));
	jset(o, "ns_per_call", json_object_new_double(s.ns_call));
	jset(o, "gbps", json_object_new_double(s.gbps));
	jset(o, "spread_pct", json_object_new_double(s.spread));
	jset(o, "x_peer", s.x_peer > 0 ? json_object_new_double(s.x_peer) : NULL);
	jset(o, "x_roof", s.x_roof > 0 ? json_object_new_double(s.x_roof) : NULL);
	jset(o, "roof_strategy", output_str(s.roof_strategy));
	jset(o, "roof_error", json_object_new_boolean(s.roof_error));
	jset(o, "over_roof", s.roof_error ? json_object_new_double(s.over_roof) : NULL);
	for (size_t k = 0; k < cl->n; k++) {
		json_object *smp = json_object_new_object();

		jset(smp, "round", json_object_new_int((int)cl->round[k]));
		if (cl->span[k] >= 0)
			jset(smp, "span", json_object_new_int(cl->span[k]));
		if (cl->offset[k] >= 0)
			jset(smp, "offset", json_object_new_int64(cl->offset[k]));
		jset(smp, "ns", json_object_new_int64((int64_t)cl->ns[k]));
		json_object_array_add(samples, smp);
	}
	jset(o, "samples", samples);
	return o;
}

static json_object *roof_errors_json(struct bench_res *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->ncells; i++) {
		const struct cell *cl = &r->cells[i];
		const struct group *gr = &r->groups[cl->g];
		json_object *e;
		struct summary s;

		res_summarise(r, cl, &s);
		if (!s.roof_error)
			continue;
		e = json_object_new_object();
		jset(e, "mode", json_object_new_string(gr->mode));
		jset(e, "cache", json_object_new_string(gr->cache));
		jset(e, "layout", json_object_new_string(gr->layout));
		jset(e, "size", json_object_new_int64((int64_t)cl->size));
		jset(e, "contender", json_object_new_string(r->conts[cl->c].name));
		jset(e, "over_roof", json_object_new_double(s.over_roof));
		jset(e, "roof_strategy", output_str(s.roof_strategy));
		json_object_array_add(a, e);
	}
	return a;
}

static void print_json(struct bench_res *r)
{
	json_object *top = output_doc_new(r->bench, bench_clock_short(), true, r->options);
	json_object *notes = json_object_new_array(), *cells = json_object_new_array();

	r->options = NULL;
	for (size_t i = 0; i < r->nnotes; i++)
		json_object_array_add(notes, json_object_new_string(r->notes[i]));
	jset(top, "notes", notes);
	for (size_t i = 0; i < r->ncells; i++)
		json_object_array_add(cells, cell_json(r, &r->cells[i]));
	jset(top, "results", cells);
	jset(top, "roof_errors", roof_errors_json(r));
	jset(top, "bound", res_bound_json(r));
	output_doc_print(top);
}

/* Whether anything but a roof was measured: a table of roofs answers nothing. */
static bool measured(const struct bench_res *r)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].n && r->conts[r->cells[i].c].cls != BENCH_ROOF)
			return true;
	return false;
}

int bench_res_print(struct bench_res *r, const struct pmemtest_global *g)
{
	if (!measured(r)) {
		cli_err("%s: nothing to measure: no contender, size and cache state of these "
			"options can run (see --list)", r->bench);
		return PMEMTEST_EXIT_USAGE;
	}
	res_finalise(r);
	if (g->json) {
		print_json(r);
	} else if (g->csv) {
		/* A header and rows only, for any CSV reader: the notes are the table's and JSON's. */
		print_csv(r);
	} else {
		print_human(r);
	}
	/* A write error is main()'s to report, once, with its real errno. */
	cli_flush_stdout();
	return PMEMTEST_EXIT_OK;
}

int bench_finish(struct bench_res *r, const struct pmemtest_global *g, const char *cmd)
{
	if (!progress_interrupted())
		return bench_res_print(r, g);
	if (!measured(r)) {
		cli_err("%s: interrupted before any sample", cmd);
		return PROGRESS_EXIT_INTERRUPTED;
	}
	bench_res_note(r, "interrupted (Ctrl-C): what was measured so far");
	fprintf(stderr, "pmemtest: %s: interrupted: printing what was measured so far\n", cmd);
	bench_res_print(r, g);
	return PROGRESS_EXIT_INTERRUPTED;
}
