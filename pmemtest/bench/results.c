// SPDX-License-Identifier: MIT
/*
 * The benchmarks' result set: every timed sample, kept per cell (group x
 * contender x size), summarised into medians, spread and ratios, printed as
 * a table, CSV or JSON (results_out.c). Ratios compare medians of
 * contenders measured in the same rounds on the same call table (a roof
 * in a random layout below 4 KiB runs the fixed layout's calls of the
 * size, copy_run.c); the roof of a cell is the best of the roof
 * strategies measured beside it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "res.h"

const char *const res_class_name[4] = {
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
		free(r->cells[i].span);
		free(r->cells[i].offset);
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
		fprintf(f, "    %-36s %s\n", r->conts[i].name, res_class_name[r->conts[i].cls]);
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
	r->conts[r->nconts] = (struct contender){ xstrdup(name), cls, NULL, -1, -1 };
	return (int)r->nconts++;
}

void bench_res_set_strategy(struct bench_res *r, int c, const char *strategy)
{
	r->conts[c].strategy = strategy;
}

void bench_res_set_variant(struct bench_res *r, int c, int op, int variant)
{
	r->conts[c].op = op;
	r->conts[c].variant = variant;
}

static struct cell *find_cell(struct bench_res *r, int g, int c, size_t size)
{
	for (size_t i = r->ncells; i-- > 0;)
		if (r->cells[i].g == g && r->cells[i].c == c && r->cells[i].size == size)
			return &r->cells[i];
	return NULL;
}

void bench_res_add(struct bench_res *r, int g, int c, size_t size, unsigned int round, int span,
		   int64_t offset, uint64_t calls, uint64_t bytes, uint64_t ns)
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
		cl->span = grow(cl->span, cl->cap, sizeof(*cl->span));
		cl->offset = grow(cl->offset, cl->cap, sizeof(*cl->offset));
	}
	/* The test hook slows the roofs down, never the contenders. */
	if (r->conts[c].cls == BENCH_ROOF && roof_test_scale() != 1)
		ns = (uint64_t)((double)ns * roof_test_scale());
	cl->ns[cl->n] = ns ? ns : 1;
	cl->span[cl->n] = span;
	cl->offset[cl->n] = offset;
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
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	if (!v)
		return;
	for (size_t i = 0; i < cl->n; i++)
		if (cl->round[i] >= cl->from_round)
			v[n++] = (double)cl->ns[i];
	stats_summarise(v, n, &ps);
	free(v);
	s->n = n;
	s->med_ns = ps.median;
	s->min_ns = ps.min;
	s->max_ns = ps.max;
	s->ns_call = ps.median / (double)cl->calls;
	s->gbps = (double)cl->bytes / ps.median;
	s->spread = ps.median > 0 ? 100.0 * (ps.max - ps.min) / ps.median : 0;
}

/* Registration order within a size: the rounds ran in a shuffled one. */
static int cell_cmp(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c;
}

void res_finalise(struct bench_res *r)
{
	if (r->ncells)
		qsort(r->cells, r->ncells, sizeof(*r->cells), cell_cmp);
	for (size_t i = 0; i < r->ncells; i++)
		cell_stats(&r->cells[i], &r->cells[i].st);
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

/*
 * Best median GB/s of a class in (group, size), and in *who the contender
 * that ran it: of the samples counted so far, so that the screen during
 * the run (bench_res_screen()) and the printed verdict take one roof.
 */
static double best_of(struct bench_res *r, int g, size_t size, enum bench_class cls, int *who)
{
	double best = 0;

	*who = -1;
	for (size_t i = 0; i < r->ncells; i++) {
		struct cell *cl = &r->cells[i];
		struct summary s;

		if (cl->g != g || cl->size != size || r->conts[cl->c].cls != cls)
			continue;
		cell_stats(cl, &s);
		if (s.gbps > best) {
			best = s.gbps;
			*who = cl->c;
		}
	}
	return best;
}

/* Whether a contender's counted samples put it over its roof: a roof error. */
static bool over_roof(struct bench_res *r, int g, int c, size_t size)
{
	int who;
	double roof = best_of(r, g, size, BENCH_ROOF, &who);

	return roof > 0 && r->conts[c].cls != BENCH_ROOF &&
	       bench_res_median_gbps(r, g, c, size) > RES_ROOF_TOLERANCE * roof;
}

unsigned int bench_res_screen(struct bench_res *r, int g, size_t size, unsigned int again_from)
{
	unsigned int over = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].g == g && r->cells[i].size == size)
			over += over_roof(r, g, r->cells[i].c, size);
	for (size_t i = 0; over && i < r->ncells; i++)
		if (r->cells[i].g == g && r->cells[i].size == size)
			r->cells[i].from_round = again_from;
	return over;
}

void bench_res_note_again(struct bench_res *r, unsigned int cells, unsigned int rounds)
{
	if (cells)
		bench_res_note(r, "roof check: %u cell%s more than 3 %% above the roof after %u "
			       "round%s: every contender of their size ran %u more, "
			       "interleaved (cold, where a span per contender fits the buffer: the "
			       "least multiple of the contenders from there, each once on each of "
			       "the same spans); every number of those sizes below, and the roof "
			       "errors, are of those rounds alone",
			       cells, cells == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s",
			       BENCH_AGAIN_ROUNDS(rounds));
}

/*
 * Over the roof by more than the tolerance is no ratio to print: the roof
 * is then not the maximum, and the cell says so instead (roof_error).
 */
void res_summarise(struct bench_res *r, const struct cell *cl, struct summary *s)
{
	int pw, rw;
	double peer = best_of(r, cl->g, cl->size, BENCH_PEER, &pw);
	double roof = best_of(r, cl->g, cl->size, BENCH_ROOF, &rw);

	*s = cl->st;
	s->x_peer = peer > 0 ? s->gbps / peer : 0;
	s->x_roof = roof > 0 ? s->gbps / roof : 0;
	s->roof_strategy = rw >= 0 ? r->conts[rw].strategy : NULL;
	if (r->conts[cl->c].cls != BENCH_ROOF && s->x_roof > RES_ROOF_TOLERANCE) {
		s->roof_error = true;
		s->over_roof = s->x_roof;
		s->x_roof = 0;
	}
}
