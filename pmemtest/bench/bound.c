// SPDX-License-Identifier: MIT
/*
 * Bound vs fastest: per operation, size class and cache state, the variant
 * libkflush binds (kflush_variant_bound()) next to the fastest of its
 * bindable variants measured in the same run, so a CPU where dispatch picks
 * the wrong one shows at a glance. A variant's standing in a class is the
 * geometric mean over the class's sizes (every layout but the mix, whose
 * size is only an upper bound) of its median GB/s over the bound one's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "res.h"
#include "../common/output.h"

static const struct {
	const char *name;
	size_t lo, hi;
} classes[] = {
	{ "<= 96 B", 1, 96 },
	{ "97 B..2 KiB-1", 97, 2047 },
	{ ">= 2 KiB", 2048, SIZE_MAX },
};

#define NR_CLASSES (sizeof(classes) / sizeof(classes[0]))

static const char *const caches[] = { "hot", "cold" };

/* One (operation, class, cache): each variant's standing against the bound one. */
struct standing {
	int op, bound, fastest;	/* contender ids; -1 when missing */
	double x_fastest;	/* fastest / bound, geometric mean */
	size_t points;		/* (layout, size) pairs where both ran */
	double worst;		/* the largest fastest/bound at one point */
	size_t worst_size;
	const char *worst_layout;
};

/* Issue 10: every bound variant at least this fraction of its class's fastest. */
#define BOUND_TARGET 0.97

static bool bound_target_met(const struct standing *st)
{
	return st->fastest == st->bound || 1 / st->x_fastest >= BOUND_TARGET;
}

static const struct cell *cell_of(const struct bench_res *r, int g, int c, size_t size)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].g == g && r->cells[i].c == c && r->cells[i].size == size)
			return &r->cells[i];
	return NULL;
}

/* The contender that is the bound variant of @op, or -1 if it did not run. */
static int bound_id(const struct bench_res *r, int op)
{
	int b = kflush_variant_bound((enum kflush_op)op);

	for (size_t i = 0; i < r->nconts; i++)
		if (r->conts[i].op == op && r->conts[i].variant == b)
			return (int)i;
	return -1;
}

static bool in_scope(const struct bench_res *r, const struct cell *cl, const char *cache, size_t k)
{
	const struct group *gr = &r->groups[cl->g];

	return !strcmp(gr->cache, cache) && strcmp(gr->layout, "mix") &&
	       cl->size >= classes[k].lo && cl->size <= classes[k].hi && cl->st.gbps > 0;
}

/* Returns false when nothing of @op ran in this class and cache state. */
static bool stand(const struct bench_res *r, int op, const char *cache, size_t k,
		  struct standing *st)
{
	double *logsum = calloc(r->nconts, sizeof(double));
	size_t *cnt = calloc(r->nconts, sizeof(size_t));
	bool any = false;

	memset(st, 0, sizeof(*st));
	st->op = op;
	st->bound = bound_id(r, op);
	st->fastest = -1;
	if (!logsum || !cnt) {
		free(logsum);
		free(cnt);
		return false;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const struct cell *cl = &r->cells[i], *b;
		const struct contender *ct = &r->conts[cl->c];

		if (ct->op != op || !in_scope(r, cl, cache, k))
			continue;
		any = true;
		if (st->bound < 0 || !(b = cell_of(r, cl->g, st->bound, cl->size)) || !(b->st.gbps > 0))
			continue;
		if (kflush_variant_bindable((enum kflush_op)op, (unsigned int)ct->variant) != 1)
			continue;
		logsum[cl->c] += log(cl->st.gbps / b->st.gbps);
		cnt[cl->c]++;
	}
	for (size_t c = 0; c < r->nconts; c++)
		if (cnt[c] && (st->fastest < 0 || logsum[c] / (double)cnt[c] >
			       logsum[st->fastest] / (double)cnt[st->fastest]))
			st->fastest = (int)c;
	if (st->fastest >= 0) {
		st->x_fastest = exp(logsum[st->fastest] / (double)cnt[st->fastest]);
		st->points = cnt[st->fastest];
		for (size_t i = 0; i < r->ncells; i++) {
			const struct cell *cl = &r->cells[i], *b;
			double x;

			if (cl->c != st->fastest || !in_scope(r, cl, cache, k) ||
			    !(b = cell_of(r, cl->g, st->bound, cl->size)) || !(b->st.gbps > 0))
				continue;
			x = cl->st.gbps / b->st.gbps;
			if (x > st->worst) {
				st->worst = x;
				st->worst_size = cl->size;
				st->worst_layout = r->groups[cl->g].layout;
			}
		}
	}
	free(logsum);
	free(cnt);
	return any;
}

/* The operations some contender of the run is a variant of, in registry order. */
static bool op_ran(const struct bench_res *r, int op)
{
	for (size_t i = 0; i < r->nconts; i++)
		if (r->conts[i].op == op)
			return true;
	return false;
}

static const char *vname(const struct bench_res *r, int c)
{
	return kflush_variant_name((enum kflush_op)r->conts[c].op, (unsigned int)r->conts[c].variant);
}

#define FOR_EACH_STANDING(r, st)						\
	for (int op = 0; op < KFLUSH_NR_OPS; op++)				\
		for (size_t h = 0; op_ran(r, op) && h < 2; h++)			\
			for (size_t k = 0; k < NR_CLASSES; k++)			\
				if (stand(r, op, caches[h], k, &st))

void bench_variant_label(char *buf, size_t n, int op, int variant)
{
	enum kflush_op o = (enum kflush_op)op;

	snprintf(buf, n, "%s:%s%s", kflush_op_name(o), kflush_variant_name(o, (unsigned int)variant),
		 kflush_variant_bound(o) == variant ? "(bound)" : "");
}

void res_bound_print(struct bench_res *r)
{
	struct standing st;
	bool header = false;
	char sb[32];

	FOR_EACH_STANDING(r, st) {
		const char *opn = kflush_op_name((enum kflush_op)op);
		int b = kflush_variant_bound((enum kflush_op)op);

		if (!header)
			printf("\nbound vs fastest (geometric mean over each class's sizes):\n");
		header = true;
		printf("  %s %s %s: ", opn, classes[k].name, caches[h]);
		if (st.bound < 0)
			printf("%s bound, not measured (--only?)\n",
			       b >= 0 ? kflush_variant_name((enum kflush_op)op, (unsigned int)b) : "none");
		else if (st.fastest == st.bound)
			printf("%s bound is the fastest (%zu size%s)\n", vname(r, st.bound), st.points,
			       st.points == 1 ? "" : "s");
		else
			printf("%s bound, %s %.2fx faster (%zu size%s; up to %.2fx at %s %s): "
			       "target bound >= %.2fx fastest %s\n",
			       vname(r, st.bound), vname(r, st.fastest), st.x_fastest, st.points,
			       st.points == 1 ? "" : "s", st.worst,
			       res_size_words(st.worst_size, sb, sizeof(sb)), st.worst_layout,
			       BOUND_TARGET, bound_target_met(&st) ? "met" : "NOT met");
	}
}

json_object *res_bound_json(struct bench_res *r)
{
	json_object *a = json_object_new_array();
	struct standing st;

	FOR_EACH_STANDING(r, st) {
		json_object *e = json_object_new_object();
		int b = kflush_variant_bound((enum kflush_op)op);
		bool measured = st.bound >= 0 && st.fastest >= 0;

		output_set(e, "operation", output_str(kflush_op_name((enum kflush_op)op)));
		output_set(e, "size_class", output_str(classes[k].name));
		output_set(e, "size_min", json_object_new_int64((int64_t)classes[k].lo));
		output_set(e, "size_max", classes[k].hi == SIZE_MAX ? NULL :
			   json_object_new_int64((int64_t)classes[k].hi));
		output_set(e, "cache", output_str(caches[h]));
		output_set(e, "bound", output_str(b >= 0 ? kflush_variant_name((enum kflush_op)op,
									(unsigned int)b) : NULL));
		output_set(e, "measured", json_object_new_boolean(measured));
		output_set(e, "fastest", measured ? output_str(vname(r, st.fastest)) : NULL);
		output_set(e, "x_fastest", measured ? json_object_new_double(st.x_fastest) : NULL);
		output_set(e, "bound_is_fastest",
			   measured ? json_object_new_boolean(st.fastest == st.bound) : NULL);
		output_set(e, "target_met", measured ? json_object_new_boolean(bound_target_met(&st)) : NULL);
		output_set(e, "sizes", json_object_new_int64((int64_t)st.points));
		output_set(e, "worst_x", measured && st.worst > 0 ? json_object_new_double(st.worst) : NULL);
		output_set(e, "worst_size", measured && st.worst > 0 ?
			   json_object_new_int64((int64_t)st.worst_size) : NULL);
		json_object_array_add(a, e);
	}
	return a;
}
