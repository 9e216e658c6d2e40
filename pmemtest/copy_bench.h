/* SPDX-License-Identifier: MIT */
/* copy-bench internals, shared by copy_bench.c and copy_bench_sp.c. */
#ifndef PMEMTEST_COPY_BENCH_H
#define PMEMTEST_COPY_BENCH_H

#include "kflush.h"
#include "bench.h"

enum cb_mode { CBM_STRUCT_PAGE, CBM_BULK, CBM_SWEEP, CBM_MEMCPY, CBM_COPY_SAFE, CBM_NR_MODES };

#define CB_HOT	1u
#define CB_COLD	2u

/* How a contender is called; each kind has its own loop, no wrapper. */
enum cb_kind {
	CB_FLUSHCACHE,	/* a kflush_memcpy_flushcache_fn, drain at the end */
	CB_CONST,	/* inline memcpy_flushcache() with a constant size */
	CB_GENERIC,	/* kflush_memcpy_flushcache() with a non-constant size */
	CB_PMEM,	/* pmem2 memcpy_fn with flags, pmem2 drain at the end */
	CB_GLIBC_FLUSH,	/* memcpy + kflush_flush per call, drain at the end */
	CB_GLIBC,	/* memcpy, nothing else: not durable */
	CB_MEMCPY,	/* a kflush_memcpy_fn */
	CB_COPY_SAFE,	/* a kflush_copy_safe_fn */
	CB_REP_MOVSB,	/* plain rep movsb, for the seed 000 threshold */
	CB_ROOF_COPY,	/* pm_nt_copy() */
	CB_ROOF_FILL,	/* pm_roof_nt_fill() */
	CB_WIDE_FILL,	/* pm_nt_fill_wide(), for reference */
};

#define CB_MAX_CONT 24

struct cb_cont {
	char name[64];
	enum bench_class cls;
	enum cb_kind kind;
	kflush_fn fn;
	unsigned int flags;	/* PMEM2_F_MEM_* for CB_PMEM */
	int id;			/* in the result set */
};

struct cb_opts {
	unsigned int rounds, modes, cache, layouts;
	size_t buffer, max_size, max_calls, hot_max, sp_span;
	size_t *sizes, nsizes;
	size_t *sp, nsp;
	uint64_t seed;
	const char *only;	/* --only, or NULL */
};

struct cb_ctx {
	struct cb_opts o;
	struct bench_bufs b;
	struct bench_res *res;
	uint64_t rng;
};

void cb_add(struct cb_ctx *x, struct cb_cont *v, size_t *n, const char *name,
	    enum bench_class cls, enum cb_kind kind, kflush_fn fn, unsigned int flags);
void cb_add_variants(struct cb_ctx *x, struct cb_cont *v, size_t *n, enum kflush_op op,
		     enum cb_kind kind);

int cb_check_sp(const struct cb_opts *o);
int cb_struct_page(struct cb_ctx *x);

/* Notes on the issues' targets, computed from the medians. */
void cb_bulk_targets(struct cb_ctx *x, int g, const struct cb_cont *v, size_t nv,
		     const size_t *sizes, size_t nsizes);

/* Modes in copy_bench_str.c; helpers they share with copy_bench.c. */
int cb_memcpy(struct cb_ctx *x);
int cb_copy_safe(struct cb_ctx *x);
int cb_run_layouts(struct cb_ctx *x, enum cb_mode mode, const size_t *sizes, size_t nsizes,
		   size_t mix_lo, size_t mix_hi, size_t budget, const struct cb_cont *v,
		   size_t nv, int *hot_fixed);
void cb_mode_sizes(const struct cb_ctx *x, size_t lo, size_t hi, const size_t *extra,
		   size_t nextra, size_t **out, size_t *n);

#endif /* PMEMTEST_COPY_BENCH_H */
