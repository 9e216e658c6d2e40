/* SPDX-License-Identifier: MIT */
/*
 * clear-bench's engine (clear_run.c): the contenders, the interleaved
 * rounds over each extent, and the targets; clear.c is the command line.
 */
#ifndef PMEMTEST_BENCH_CLEAR_H
#define PMEMTEST_BENCH_CLEAR_H

#include "kflush.h"
#include "bench.h"
#include "../common/progress.h"

enum clear_kind {
	CLEAR_CALL_PAGE, CLEAR_CALL_PAGES, CLEAR_CALL_PAGES_FC, CLEAR_CALL_MEMSET_FC,
	CLEAR_CALL_PMEM, CLEAR_CALL_GLIBC, CLEAR_CALL_ROOF
};

struct clear_contender {
	char name[64];
	enum bench_class cls;
	enum clear_kind kind;
	kflush_fn fn;
	unsigned int flags;
	const struct roof_strategy *roof;	/* for CLEAR_CALL_ROOF */
	int id;
};

#define CLEAR_MAX_CONTENDERS 32

struct clear_run {
	struct bench_bufs b;
	struct bench_res *res;
	struct clear_contender v[CLEAR_MAX_CONTENDERS];
	size_t nv;
	unsigned int rounds, cache;
	size_t *extents, nextents;
	kflush_flush_fn evict;
	const char *only;
	struct progress prog;
	unsigned int again;	/* cells measured again over the roof */
	bool list;	/* --list */
};

/* One contender, skipped when --only leaves it out (roofs always run). */
void clear_add(struct clear_run *x, const char *name, enum bench_class cls, enum clear_kind kind,
	       kflush_fn fn, unsigned int flags);
/* Every usable registry variant of @op; the roof's strategies. */
void clear_add_variants(struct clear_run *x, enum kflush_op op, enum clear_kind kind);
void clear_add_roofs(struct clear_run *x);
/* The bytes one clear of a sample of extent @ext clears. */
size_t clear_sample_area(size_t ext, bool hot);
/* A hot sample clears at least this many bytes, its area again and again. */
#define CLEAR_HOT_SAMPLE_BYTES (32u << 20)
/* How many times a sample refills and clears its area (clear_run.c). */
size_t clear_sample_reps(size_t ext, bool hot);
/* The bytes the samples asked for write, refills included: the progress total. */
uint64_t clear_planned(const struct clear_run *x);
/* Whether extent @ext can run in a cache state asked for. */
bool clear_extent_fits(const struct clear_run *x, size_t ext, size_t buffer);
/* Whether some extent can run in a cache state asked for. */
bool clear_fits(const struct clear_run *x, size_t buffer);
/* Every extent, hot or cold: the result group, or -1 on a failure. */
int clear_run_extents(struct clear_run *x, bool hot);
/* The targets of group @g as notes. */
void clear_targets(struct clear_run *x, int g, const char *cache);

#endif /* PMEMTEST_BENCH_CLEAR_H */
