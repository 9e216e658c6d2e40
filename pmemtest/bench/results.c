// SPDX-License-Identifier: MIT
/*
 * The benchmarks' result set: every timed sample, kept per cell (group x
 * contender x size), summarised into medians, spread and ratios, printed as
 * a table, CSV or JSON. Ratios compare medians of contenders measured in
 * the same run on the same call table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bench.h"
#include "../common/cli.h"
#include "../common/output.h"
#include "../common/progress.h"

struct summary {
	double med_ns, min_ns, max_ns, ns_call, gbps, spread, x_peer, x_roof;
};

struct cell {
	struct summary st;	/* of the samples so far, see finalise() */
	int g, c;
	size_t size;
	uint64_t calls, bytes;
	uint64_t *ns;
	unsigned int *round;
	size_t n, cap;
};

struct group {
	char *mode, *cache, *layout;
};

struct contender {
	char *name;
	enum bench_class cls;
};

struct bench_res {
	char *bench;
	json_object *options;	/* the command's, for --json; owned */
	unsigned int rounds;
	struct group *groups;
	struct contender *conts;
	struct cell *cells;
	char **notes;
	size_t ngroups, nconts, ncells, cellcap, nnotes;
};

static const char *class_name[] = {
	[BENCH_KFLUSH] = "kflush", [BENCH_PEER] = "peer",
	[BENCH_ROOF] = "roof", [BENCH_REF] = "ref",
};

static void *grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, n * size);

	if (!q) {
		fprintf(stderr, "pmemtest: out of memory\n");
		exit(PMEMTEST_EXIT_FAIL);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "pmemtest: out of memory\n");
		exit(PMEMTEST_EXIT_FAIL);
	}
	return d;
}

struct bench_res *bench_res_new(const char *bench, unsigned int rounds)
{
	struct bench_res *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->bench = xstrdup(bench);
	r->rounds = rounds;
	return r;
}

void bench_res_free(struct bench_res *r)
{
	if (!r)
		return;
	json_object_put(r->options);
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].mode);
		free(r->groups[i].cache);
		free(r->groups[i].layout);
	}
	for (size_t i = 0; i < r->nconts; i++)
		free(r->conts[i].name);
	for (size_t i = 0; i < r->ncells; i++) {
		free(r->cells[i].ns);
		free(r->cells[i].round);
	}
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->groups);
	free(r->conts);
	free(r->cells);
	free(r->notes);
	free(r->bench);
	free(r);
}

void bench_res_list(const struct bench_res *r, FILE *f)
{
	for (size_t i = 0; i < r->nconts; i++)
		fprintf(f, "    %-36s %s\n", r->conts[i].name, class_name[r->conts[i].cls]);
}

void bench_res_options(struct bench_res *r, json_object *options)
{
	json_object_put(r->options);
	r->options = options;
}

int bench_res_group(struct bench_res *r, const char *mode, const char *cache, const char *layout)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].mode, mode) && !strcmp(r->groups[i].cache, cache) &&
		    !strcmp(r->groups[i].layout, layout))
			return (int)i;
	r->groups = grow(r->groups, r->ngroups + 1, sizeof(*r->groups));
	r->groups[r->ngroups] = (struct group){ xstrdup(mode), xstrdup(cache), xstrdup(layout) };
	return (int)r->ngroups++;
}

int bench_res_contender(struct bench_res *r, const char *name, enum bench_class cls)
{
	for (size_t i = 0; i < r->nconts; i++)
		if (!strcmp(r->conts[i].name, name))
			return (int)i;
	r->conts = grow(r->conts, r->nconts + 1, sizeof(*r->conts));
	r->conts[r->nconts] = (struct contender){ xstrdup(name), cls };
	return (int)r->nconts++;
}

static struct cell *find_cell(struct bench_res *r, int g, int c, size_t size)
{
	for (size_t i = r->ncells; i-- > 0;)
		if (r->cells[i].g == g && r->cells[i].c == c && r->cells[i].size == size)
			return &r->cells[i];
	return NULL;
}

void bench_res_add(struct bench_res *r, int g, int c, size_t size, unsigned int round,
		   uint64_t calls, uint64_t bytes, uint64_t ns)
{
	struct cell *cl = find_cell(r, g, c, size);

	if (!cl) {
		if (r->ncells == r->cellcap) {
			r->cellcap = r->cellcap ? 2 * r->cellcap : 256;
			r->cells = grow(r->cells, r->cellcap, sizeof(*r->cells));
		}
		cl = &r->cells[r->ncells++];
		memset(cl, 0, sizeof(*cl));
		cl->g = g;
		cl->c = c;
		cl->size = size;
		cl->calls = calls;
		cl->bytes = bytes;
	}
	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? 2 * cl->cap : 8;
		cl->ns = grow(cl->ns, cl->cap, sizeof(*cl->ns));
		cl->round = grow(cl->round, cl->cap, sizeof(*cl->round));
	}
	cl->ns[cl->n] = ns ? ns : 1;
	cl->round[cl->n++] = round;
}

void bench_res_note(struct bench_res *r, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	r->notes = grow(r->notes, r->nnotes + 1, sizeof(*r->notes));
	r->notes[r->nnotes++] = s;
}

static void cell_stats(const struct cell *cl, struct summary *s)
{
	double *v = calloc(cl->n ? cl->n : 1, sizeof(double));
	struct stats_summary ps;

	memset(s, 0, sizeof(*s));
	if (!v)
		return;
	for (size_t i = 0; i < cl->n; i++)
		v[i] = (double)cl->ns[i];
	stats_summarise(v, cl->n, &ps);
	free(v);
	s->med_ns = ps.median;
	s->min_ns = ps.min;
	s->max_ns = ps.max;
	s->ns_call = ps.median / (double)cl->calls;
	s->gbps = (double)cl->bytes / ps.median;
	s->spread = ps.median > 0 ? 100.0 * (ps.max - ps.min) / ps.median : 0;
}

double bench_res_median(struct bench_res *r, int g, int c, size_t size)
{
	struct cell *cl = find_cell(r, g, c, size);
	struct summary s;

	if (!cl)
		return 0;
	cell_stats(cl, &s);
	return s.ns_call;
}

double bench_res_median_gbps(struct bench_res *r, int g, int c, size_t size)
{
	struct cell *cl = find_cell(r, g, c, size);
	struct summary s;

	if (!cl)
		return 0;
	cell_stats(cl, &s);
	return s.gbps;
}

/* Best median GB/s of a class in (group, size); the roof of a random layout
 * comes from the fixed layout of the same mode and cache (a mix has none). */
static double best_of(struct bench_res *r, int g, size_t size, enum bench_class cls)
{
	double best = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		struct cell *cl = &r->cells[i];

		if (cl->g != g || cl->size != size || r->conts[cl->c].cls != cls)
			continue;
		if (cl->st.gbps > best)
			best = cl->st.gbps;
	}
	if (!best && cls == BENCH_ROOF && !strcmp(r->groups[g].layout, "random")) {
		int fg = -1;

		for (size_t i = 0; i < r->ngroups; i++)
			if (!strcmp(r->groups[i].mode, r->groups[g].mode) &&
			    !strcmp(r->groups[i].cache, r->groups[g].cache) &&
			    !strcmp(r->groups[i].layout, "fixed"))
				fg = (int)i;
		if (fg >= 0)
			best = best_of(r, fg, size, cls);
	}
	return best;
}

static void summarise(struct bench_res *r, const struct cell *cl, struct summary *s)
{
	double peer = best_of(r, cl->g, cl->size, BENCH_PEER);
	double roof = best_of(r, cl->g, cl->size, BENCH_ROOF);

	*s = cl->st;
	s->x_peer = peer > 0 ? s->gbps / peer : 0;
	s->x_roof = roof > 0 ? s->gbps / roof : 0;
}

static const char *size_str(size_t n, char *buf, size_t len)
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

static void print_ratio(double v)
{
	if (v > 0)
		printf(" %7.2f", v);
	else
		printf(" %7s", "-");
}

static void print_human(struct bench_res *r)
{
	for (size_t g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];
		size_t last = (size_t)-1;

		printf("\n== %s: %s, %s %s ==\n", r->bench, gr->mode, gr->cache, gr->layout);
		printf("%8s  %-34s %7s %11s %9s %7s %7s %7s\n", "size", "contender", "calls",
		       "ns/call", "GB/s", "spread", "x peer", "x roof");
		for (size_t i = 0; i < r->ncells; i++) {
			const struct cell *cl = &r->cells[i];
			struct summary s;
			char sb[32];

			if (cl->g != (int)g)
				continue;
			summarise(r, cl, &s);
			if (last != (size_t)-1 && last != cl->size)
				printf("\n");
			last = cl->size;
			size_str(cl->size, sb + 2, sizeof(sb) - 2);
			if (!strcmp(gr->layout, "mix"))
				memcpy(sb, "<=", 2);
			printf("%8s  %-34s %7llu %11.1f %9.3f %6.1f%%",
			       strcmp(gr->layout, "mix") ? sb + 2 : sb, r->conts[cl->c].name,
			       (unsigned long long)cl->calls, s.ns_call, s.gbps, s.spread);
			print_ratio(s.x_peer);
			print_ratio(s.x_roof);
			printf("\n");
		}
	}
	if (r->nnotes)
		printf("\n");
	for (size_t i = 0; i < r->nnotes; i++)
		printf("%s\n", r->notes[i]);
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
 */
static void print_csv(struct bench_res *r)
{
	printf("row,bench,mode,cache,layout,size,contender,class,round,calls,bytes,ns,"
	       "ns_per_call,gbps,spread_pct,x_peer,x_roof\n");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct cell *cl = &r->cells[i];
		const struct group *gr = &r->groups[cl->g];
		const struct contender *ct = &r->conts[cl->c];
		struct summary s;

		for (size_t k = 0; k < cl->n; k++)
			printf("sample,%s,%s,%s,%s,%zu,%s,%s,%u,%llu,%llu,%llu,%.3f,%.4f,,,\n",
			       r->bench, gr->mode, gr->cache, gr->layout, cl->size, ct->name,
			       class_name[ct->cls], cl->round[k], (unsigned long long)cl->calls,
			       (unsigned long long)cl->bytes, (unsigned long long)cl->ns[k],
			       (double)cl->ns[k] / (double)cl->calls,
			       (double)cl->bytes / (double)cl->ns[k]);
		summarise(r, cl, &s);
		printf("median,%s,%s,%s,%s,%zu,%s,%s,%zu,%llu,%llu,%.0f,%.3f,%.4f,%.2f",
		       r->bench, gr->mode, gr->cache, gr->layout, cl->size, ct->name,
		       class_name[ct->cls], cl->n, (unsigned long long)cl->calls,
		       (unsigned long long)cl->bytes, s.med_ns, s.ns_call, s.gbps, s.spread);
		csv_ratio(s.x_peer);
		csv_ratio(s.x_roof);
		printf("\n");
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

	summarise(r, cl, &s);
	jset(o, "mode", json_object_new_string(gr->mode));
	jset(o, "cache", json_object_new_string(gr->cache));
	jset(o, "layout", json_object_new_string(gr->layout));
	jset(o, "size", json_object_new_int64((int64_t)cl->size));
	jset(o, "contender", json_object_new_string(ct->name));
	jset(o, "class", json_object_new_string(class_name[ct->cls]));
	jset(o, "calls", json_object_new_int64((int64_t)cl->calls));
	jset(o, "bytes", json_object_new_int64((int64_t)cl->bytes));
	jset(o, "median_ns", json_object_new_double(s.med_ns));
	jset(o, "min_ns", json_object_new_double(s.min_ns));
	jset(o, "max_ns", json_object_new_double(s.max_ns));
	jset(o, "ns_per_call", json_object_new_double(s.ns_call));
	jset(o, "gbps", json_object_new_double(s.gbps));
	jset(o, "spread_pct", json_object_new_double(s.spread));
	jset(o, "x_peer", s.x_peer > 0 ? json_object_new_double(s.x_peer) : NULL);
	jset(o, "x_roof", s.x_roof > 0 ? json_object_new_double(s.x_roof) : NULL);
	for (size_t k = 0; k < cl->n; k++) {
		json_object *smp = json_object_new_object();

		jset(smp, "round", json_object_new_int((int)cl->round[k]));
		jset(smp, "ns", json_object_new_int64((int64_t)cl->ns[k]));
		json_object_array_add(samples, smp);
	}
	jset(o, "samples", samples);
	return o;
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
	for (size_t i = 0; i < r->ncells; i++)
		cell_stats(&r->cells[i], &r->cells[i].st);
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
