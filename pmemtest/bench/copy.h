/* SPDX-License-Identifier: MIT */
/*
 * copy-bench's parts. Data flows one way: copy.c (options, the mode table,
 * the report) runs each mode; a mode (copy_struct_page.c, copy_bulk.c,
 * copy_strings.c, copy_move.c, copy_set.c) registers its contenders and
 * sizes and calls the engine
 * (copy_run.c), which times them into the result set. Nothing calls back up.
 */
#ifndef PMEMTEST_BENCH_COPY_H
#define PMEMTEST_BENCH_COPY_H

#include "kflush.h"
#include "bench.h"
#include "../common/progress.h"

#define BENCH_HOT	1u
#define BENCH_COLD	2u

/* How a contender is called; each kind has its own loop, no wrapper. */
enum copy_kind {
	CALL_FLUSHCACHE,	/* a kflush_memcpy_flushcache_fn, drain at the end */
	CALL_CONST,	/* inline memcpy_flushcache() with a constant size */
	CALL_GENERIC,	/* kflush_memcpy_flushcache() with a non-constant size */
	CALL_PMEM,	/* pmem2 memcpy_fn with flags, pmem2 drain at the end */
	CALL_PMEM_MOVE,	/* pmem2 memmove_fn with flags, pmem2 drain at the end */
	CALL_GLIBC_FLUSH,	/* memcpy + kflush_flush per call, drain at the end */
	CALL_GLIBC,	/* memcpy, nothing else: not durable */
	CALL_GLIBC_MOVE_FLUSH,	/* memmove + kflush_flush per call, drain at the end */
	CALL_FLUSHSET,	/* a kflush_memset_flushcache_fn of COPY_SET_BYTE, drain at the end */
	CALL_PMEM_SET,	/* pmem2 memset_fn of COPY_SET_BYTE with flags, pmem2 drain at the end */
	CALL_GLIBC_SET_FLUSH,	/* memset + kflush_flush per call, drain at the end */
	CALL_MEMCPY,	/* a kflush_memcpy_fn */
	CALL_COPY_SAFE,	/* a kflush_copy_safe_fn */
	CALL_COPY_PAGE,	/* a kflush_copy_page_fn, one page a call */
	CALL_REP_MOVSB,	/* plain rep movsb, for the seed 000 threshold */
	CALL_ROOF_COPY,	/* a roof strategy's streaming copy (roof.h) */
	CALL_ROOF_FILL,	/* a roof strategy's 64-byte pattern fill (COPY_SET_BYTE here) */
};

/* The byte the set mode stores: not zero, as the copies' data is not. */
#define COPY_SET_BYTE 0x5a

#define COPY_MAX_CONTENDERS 32

struct copy_contender {
	char name[64];
	enum bench_class cls;
	enum copy_kind kind;
	kflush_fn fn;
	unsigned int flags;	/* PMEM2_F_MEM_* for CALL_PMEM */
	const struct roof_strategy *roof;	/* for CALL_ROOF_* */
	int id;			/* in the result set */
};

struct copy_opts {
	unsigned int rounds, modes, cache, layouts;
	size_t buffer, max_size, max_calls, hot_max, sp_span;
	size_t *sizes, nsizes;
	bool *sizes_run;	/* per --sizes entry: some cell of the plan has it */
	size_t *sp, nsp;
	uint64_t seed;
	const char *only;	/* --only, or NULL */
	bool list;		/* --list */
};

/*
 * One run. With @plan set, the modes register and size everything but time
 * nothing: @planned sums the cost of every sample (copy_sample_cost()), and
 * @planned_measured counts the samples of contenders that are not roofs.
 */
struct copy_run {
	struct copy_opts o;
	struct bench_bufs b;
	struct bench_res *res;
	uint64_t rng;
	bool plan;
	uint64_t planned, planned_measured;
	unsigned int again;		/* cells measured again over the roof (copy_run.c) */
	struct progress prog;
	kflush_flush_fn evict;		/* before a cold sample on reused memory */
};

/*
 * Whether PMDK's contenders run: libpmem2 mapped the buffer. The plan runs
 * before anything is mapped and counts on it; a run without them then has
 * fewer samples than planned, nothing worse.
 */
static inline bool copy_has_pmdk(const struct copy_run *x)
{
	return x->plan || x->b.map;
}

/* What a sample costs, for the ETA: its bytes, and a line's worth per call. */
static inline uint64_t copy_sample_cost(uint64_t calls, uint64_t bytes)
{
	return bytes + 64 * calls;
}

/*
 * The bookkeeping of one sample of @k: planned, or progress once timed.
 * Returns false when the run is to stop (Ctrl-C).
 */
bool copy_account(struct copy_run *x, const struct copy_contender *k, uint64_t calls,
		  uint64_t bytes);

/*
 * One timed sample (copy_calls.c): every call of @t from @d and @s (the
 * bases its offsets are from) as @k makes them, then the drain @k owes;
 * returns the nanoseconds between. A roof stores the whole destination
 * lines inside each call and no other byte.
 */
uint64_t copy_run_calls(const struct copy_run *x, const struct copy_contender *k,
			const struct bench_calls *t, char *d, const char *s);

/*
 * The check (copy_verify.c): call @i of @t made once more by @k, untimed,
 * from the buffers' bases (@move: the source in the destination buffer),
 * on a window seeded so that every byte it must store changes, and the
 * window compared with what the call means, GUARD bytes either side
 * included. 0 when right; -1, with a message naming @k, @cell and the
 * first wrong byte, when not.
 */
int copy_verify_call(const struct copy_run *x, const struct copy_contender *k,
		     const struct bench_calls *t, size_t i, bool move, const char *cell);

/*
 * The engine (copy_run.c). copy_add() registers one contender into @v
 * (skipped when --only leaves it out; roofs always run), copy_add_variants()
 * every usable registry variant of @op.
 */
void copy_add(struct copy_run *x, struct copy_contender *v, size_t *n, const char *name,
	      enum bench_class cls, enum copy_kind kind, kflush_fn fn, unsigned int flags);
void copy_add_variants(struct copy_run *x, struct copy_contender *v, size_t *n, enum kflush_op op,
		       enum copy_kind kind);
/*
 * The roof: one contender "roof:@prefix(strategy)" per store strategy this
 * CPU has for @use (ROOF_COPY or ROOF_FILL), interleaved with the others
 * like any contender; the result set takes the best median as the roof.
 */
void copy_add_roofs(struct copy_run *x, struct copy_contender *v, size_t *n, unsigned int use,
		    enum copy_kind kind, const char *prefix);
/*
 * How many contenders of (@g, @size) are over the roof after the rounds
 * asked for; when any are, every one of the @nv contenders of the size is
 * to run @rounds more (copy_run.c says why), the size's numbers count those
 * rounds alone (bench_res_screen()), and the progress total grows by them,
 * each sample costing @cost.
 */
unsigned int copy_over_roof(struct copy_run *x, int g, size_t size, size_t nv, uint64_t cost,
			    unsigned int rounds);
/* One group (@mode, hot or cold, @layout) over @sizes: its index, or -1. */
int copy_run_group(struct copy_run *x, const char *mode, bool hot, enum bench_layout layout,
		   const size_t *sizes, size_t nsizes, size_t lo, size_t budget,
		   const struct copy_contender *v, size_t nv);
/*
 * Every cache state and layout the options ask for, the packed layout at
 * the @sizes up to @packed_hi (0: not at all); @groups (or NULL) gets each
 * one's group index, [0] hot and [1] cold, by layout, -1 where none ran.
 */
int copy_run_layouts(struct copy_run *x, const char *mode, const size_t *sizes, size_t nsizes,
		     size_t mix_lo, size_t mix_hi, size_t packed_hi, size_t budget,
		     const struct copy_contender *v, size_t nv, int groups[2][BENCH_PACKED + 1]);
/*
 * The small-copy target notes (issue 10), from the medians of @groups: at
 * 4..96 B the contender named @temporal against the one named @peer hot,
 * the bound variant against @peer cold, per fixed and random layout.
 */
void copy_small_targets(struct copy_run *x, int groups[2][BENCH_PACKED + 1],
			const struct copy_contender *v, size_t nv, const size_t *sizes,
			size_t nsizes, const char *temporal, const char *peer);
/* The small sizes the sweep and set modes add to their ladders: 4..96 B. */
#define COPY_NR_SMALL_SIZES 8
extern const size_t copy_small_sizes[COPY_NR_SMALL_SIZES];
/* The sizes a mode sweeps: --sizes within [lo, hi], else log-spaced. */
void copy_mode_sizes(const struct copy_run *x, size_t lo, size_t hi, const size_t *extra,
		     size_t nextra, size_t **out, size_t *n);
#define COPY_NR_LAYOUTS 6
extern const char *const copy_layout_names[COPY_NR_LAYOUTS];

/* A mode: what --mode names, one line for the help, and its run. */
struct copy_mode {
	const char *name;
	const char *summary;
	int (*run)(struct copy_run *x);
};

extern const struct copy_mode copy_mode_struct_page, copy_mode_bulk, copy_mode_sweep,
	copy_mode_memcpy, copy_mode_copy_safe, copy_mode_copy_page, copy_mode_move, copy_mode_set;

/* --struct-page sizes the struct-page mode can run: 0, or -1. */
int copy_check_struct_page(const struct copy_opts *o);

#endif /* PMEMTEST_BENCH_COPY_H */
