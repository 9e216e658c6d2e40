/* SPDX-License-Identifier: MIT */
/*
 * The result set's insides, shared by its parts: results.c (cells and
 * summaries), results_out.c (table, CSV, JSON, roof errors) and bound.c
 * (the bound variant beside the fastest). The benches see only bench.h.
 */
#ifndef PMEMTEST_BENCH_RES_H
#define PMEMTEST_BENCH_RES_H

#include "bench.h"

/* A contender is a roof error when it runs this much faster than the roof. */
#define RES_ROOF_TOLERANCE 1.03

struct summary {
	size_t n;		/* the samples counted (struct cell's from_round) */
	double med_ns, min_ns, max_ns, ns_call, gbps, spread, x_peer, x_roof;
	const char *roof_strategy;	/* of the best roof of the cell's size, or NULL */
	bool roof_error;		/* gbps above RES_ROOF_TOLERANCE x the roof */
	double over_roof;		/* gbps / roof when roof_error, else 0 */
};

struct cell {
	struct summary st;	/* of the samples so far, see finalise() */
	int g, c;
	size_t size;
	uint64_t calls, bytes;
	uint64_t *ns;
	unsigned int *round;
	int *span;		/* the pool index of each sample's span, or -1 */
	int64_t *offset;	/* where its cold span starts, or -1 */
	size_t n, cap;
	/* The first round its numbers count: the second pass's, once measured again. */
	unsigned int from_round;
};

struct group {
	char *mode, *cache, *layout;
};

struct contender {
	char *name;
	enum bench_class cls;
	const char *strategy;	/* a roof's store strategy (roof.h), or NULL */
	int op, variant;	/* a registry variant's operation and index, or -1 */
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

extern const char *const res_class_name[4];

/* Every cell's summary from all its samples: before res_summarise(). */
void res_finalise(struct bench_res *r);
/* The cell's summary with its ratios and roof verdict (after cell_stats). */
void res_summarise(struct bench_res *r, const struct cell *cl, struct summary *s);
/* "4K" style (CSV-like tables), and "4 KiB" style (sentences). */
const char *res_size_str(size_t n, char *buf, size_t len);
const char *res_size_words(size_t n, char *buf, size_t len);

/* bound.c: the bound-vs-fastest lines, and the same as a JSON array. */
void res_bound_print(struct bench_res *r);
json_object *res_bound_json(struct bench_res *r);

#endif /* PMEMTEST_BENCH_RES_H */
