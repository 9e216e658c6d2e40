/* SPDX-License-Identifier: MIT */
/*
 * Shared by copy-bench and clear-bench: the buffers (one memfd mapped
 * through libpmem2, so PMDK and libkflush write the same memory), the
 * tables of calls a sample makes, and the result set with its three
 * outputs (human table, CSV, JSON).
 */
#ifndef PMEMTEST_BENCH_H
#define PMEMTEST_BENCH_H

#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <libpmem2.h>

#include "kflush.h"

#include "../pmemtest.h"
#include "../common/roof.h"
#include "../common/stats.h"

/* What a contender is, for the ratio columns. */
enum bench_class {
	BENCH_KFLUSH,	/* a libkflush variant or entry point */
	BENCH_PEER,	/* PMDK or glibc: what we compare against */
	BENCH_ROOF,	/* the machine's limit, same data, same run */
	BENCH_REF,	/* shown for reference, not a peer */
};

/* Destination: a memfd mapped by libpmem2; source: anonymous memory. */
struct bench_bufs {
	char *dst, *src;
	size_t len;			/* of each */
	int fd;
	struct pmem2_source *psrc;
	struct pmem2_map *map;		/* NULL if libpmem2 could not map */
	pmem2_memcpy_fn pmem_memcpy;
	pmem2_memmove_fn pmem_memmove;
	pmem2_memset_fn pmem_memset;
	pmem2_drain_fn pmem_drain;
	const char *granularity;	/* as libpmem2 reports it */
	size_t cold_cursor;		/* next cold offset, see bench_cold() */
};

int bench_bufs_open(struct bench_bufs *b, size_t len);
/* Before anything is mapped: 0, or -1 with one line when @len cannot fit in memory. */
int bench_check_buffer(const char *cmd, size_t len);
void bench_bufs_close(struct bench_bufs *b);

/* Bytes never zero, so no roof or contender is flattered by zero lines. */
void bench_fill(void *p, size_t n, uint64_t seed);

/*
 * Hand out the next cold window of @span bytes (same offset in dst and
 * src), walking the buffers so that a window is reused only after the whole
 * buffer was: nothing of it is still cached. The top BENCH_HOT_SPAN bytes
 * are kept for hot samples.
 */
#define BENCH_HOT_SPAN (4u << 20)
size_t bench_cold(struct bench_bufs *b, size_t span);

/*
 * The spans of a cold cell's second pass (copy_run.c, again_pool(), says
 * why): for the m contenders that run at the size, n = min(m, as many
 * spans as fit the buffer side by side) spans of the cold walk, and each
 * contender's slot; in round r the contender in slot k is on span
 * (k + r) mod n. With n = m that is a Latin square.
 */
#define BENCH_POOL_MAX 32
struct bench_pool {
	size_t m, n;
	size_t slot[BENCH_POOL_MAX];
	size_t off[BENCH_POOL_MAX];
};

/*
 * The rounds of a pooled second pass of @p's m contenders on spans of
 * @span bytes: sets @p's n and returns the least multiple of n that is at
 * least @again, so that every contender runs equally often on every span;
 * 0 when not even one span fits.
 */
unsigned int bench_pool_rounds(const struct bench_bufs *b, struct bench_pool *p, size_t span,
			       unsigned int again);
/* Takes @p's n spans of @span bytes from the cold walk, side by side. */
void bench_pool_take(struct bench_bufs *b, struct bench_pool *p, size_t span);

static inline unsigned int bench_pool_span(const struct bench_pool *p, size_t slot,
					   unsigned int r)
{
	return (unsigned int)((slot + r) % p->n);
}
size_t bench_hot_base(const struct bench_bufs *b);
/*
 * What takes a range out of the cache before a cold sample that reuses
 * memory: clflushopt (clwb may leave the line cached), else clflush, else
 * whatever kflush_flush() is bound to.
 */
kflush_flush_fn bench_evict_fn(void);

/*
 * The calls one sample makes: destination and source offsets from a base
 * and the size of each. The same table serves every contender and round.
 */
struct bench_calls {
	size_t n;
	size_t *len, *doff, *soff;
	size_t bytes;	/* sum of len */
	size_t span;	/* bytes of buffer from the base that calls touch */
	bool lines;	/* every call whole 64-byte lines from a line of the base */
};

enum bench_layout {
	BENCH_FIXED,	/* every call exactly size bytes, line-aligned */
	BENCH_RANDOM,	/* sizes within +-25 % of size, offsets 0..63 */
	BENCH_MIX,	/* sizes log-uniform in [lo, size], offsets 0..63 */
	/*
	 * Every call exactly size bytes, back to back: each starts where the
	 * last ended, the first at a line boundary (records appended). A call
	 * that stores part of a line through the cache and writes it back
	 * leaves that line to the next call, which must wait for it.
	 */
	BENCH_PACKED,
	/*
	 * Moves within the destination buffer, size bytes each, at offsets
	 * 0..63, the source a quarter of the size above the destination
	 * (down: a forward move) or below it (up: a backward one).
	 */
	BENCH_DOWN,
	BENCH_UP,
};

/* @budget: bytes one sample aims to move; hot: stay within @hot_span. */
int bench_calls_make(struct bench_calls *c, enum bench_layout layout, size_t size,
		     size_t lo, size_t budget, size_t max_calls, bool hot, size_t hot_span,
		     uint64_t *rng);
void bench_calls_free(struct bench_calls *c);
/* Sets c->lines from the calls (bench_calls_make() does; a table made by hand must). */
void bench_calls_mark_lines(struct bench_calls *c);

/*
 * The benchmarks' clock: CLOCK_MONOTONIC by default, as init-bench's; with
 * --clock cpu this thread's CPU time, so time spent descheduled (a shared
 * machine) is not charged to whoever was running; memory stalls still count.
 */
uint64_t bench_now(void);
void bench_use_wall_clock(bool wall);
const char *bench_clock_name(void);
/* "wall" or "cpu", as --clock and the JSON say it. */
const char *bench_clock_short(void);

/*
 * The options copy-bench and clear-bench share: -r/--repeat (alias
 * --rounds), -b/--buffer, --cache (hot, cold or both; bit 1 hot, bit 2
 * cold; no short form: -c is the global --csv), --clock and
 * -o/--only. bench_common_opt() takes one getopt result: 1 when it was a
 * shared option (stored through o), 0 when it is the command's own, -1
 * after a one-line error naming cmd.
 */
struct bench_common {
	unsigned int *rounds;
	size_t *buffer;
	unsigned int *cache;
	const char **only;
};

#define BENCH_COMMON_SHORTOPTS "r:b:o:"
#define BENCH_COMMON_LONGOPTS						\
	{ "repeat", required_argument, NULL, 'r' },			\
	{ "rounds", required_argument, NULL, 'r' },			\
	{ "buffer", required_argument, NULL, 'b' },			\
	{ "cache", required_argument, NULL, 'c' },			\
	{ "clock", required_argument, NULL, 'C' },			\
	{ "only", required_argument, NULL, 'o' }

int bench_common_opt(const char *cmd, int c, const char *arg, const struct bench_common *o);
/* After getopt: 0, or -1 with an error when operands are left over. */
int bench_no_operands(const char *cmd, int argc, char **argv);

/* Sizes: "4K", "2M", "1G", plain bytes; and comma-separated lists. */
int bench_parse_size(const char *s, size_t *out);
int bench_parse_sizes(const char *s, size_t **out, size_t *n);
void bench_log_sizes(size_t lo, size_t hi, const size_t *extra, size_t nextra,
		     size_t **out, size_t *n);

/* The result set. */
struct bench_res;

struct bench_res *bench_res_new(const char *bench, unsigned int rounds);
void bench_res_free(struct bench_res *r);
int bench_res_group(struct bench_res *r, const char *mode, const char *cache,
		    const char *layout);
int bench_res_contender(struct bench_res *r, const char *name, enum bench_class cls);
/* A roof contender's store strategy (a static name from roof.h), for the reports. */
void bench_res_set_strategy(struct bench_res *r, int contender, const char *strategy);
/* A contender that is registry variant @variant of @op, for the bound report. */
void bench_res_set_variant(struct bench_res *r, int contender, int op, int variant);
/*
 * The contender name of registry variant @variant of @op, "op:variant",
 * with "(bound)" after the one libkflush binds (bound.c reads it back).
 */
void bench_variant_label(char *buf, size_t n, int op, int variant);
/*
 * One sample of a cell; @span is the index of the pooled span it ran on
 * (copy-bench's second pass, copy_run.c), -1 when its memory was not one;
 * @offset where its cold span starts in the buffers, -1 for a sample
 * that has none (hot, struct-page).
 */
void bench_res_add(struct bench_res *r, int group, int contender, size_t size,
		   unsigned int round, int span, int64_t offset, uint64_t calls, uint64_t bytes,
		   uint64_t ns);
/* Median ns per call of one cell, or 0 if it has no samples. */
double bench_res_median(struct bench_res *r, int group, int contender, size_t size);
double bench_res_median_gbps(struct bench_res *r, int group, int contender, size_t size);
/*
 * Such a cell is measured again before it is called a roof error: every
 * contender of its size runs this many more rounds, for --repeat @r, or in
 * a cold cell whose spans fit the buffer one per contender the next
 * multiple of the contenders, on a span pool (copy_run.c says why).
 * bench_res_note_again() notes how many cells did, and that rule.
 *
 * Never fewer than BENCH_AGAIN_MIN: the second pass alone decides
 * (bench_res_screen()), and 16 rounds (3 x 5 + 1) of two contenders that
 * run the same loop still put one more than 3 % above the other often.
 * AMD EPYC family 0x17 model 0x31, two default copy-bench runs with 41,
 * both verdicts from the same samples: 1 and 8 roof errors on the second
 * pass's first 16 rounds, 0 and 1 on all 41 (in 112 and 92 s, against
 * 75-91 s with 16).
 */
#define BENCH_AGAIN_MIN 41
#define BENCH_AGAIN_ROUNDS(r) (3 * (r) + 1 > BENCH_AGAIN_MIN ? 3 * (r) + 1 : BENCH_AGAIN_MIN)
/*
 * The first pass of (group, size) as a screen: returns how many of its
 * contenders are over the roof (by more than the tolerance, on their
 * samples so far: what the results print as a roof error), and when any are,
 * every cell of the size counts only its samples from round @again_from
 * on, the second pass's. The first pass chose those cells for samples
 * that ran high; counted again they pulled the verdict their way. AMD EPYC
 * family 0x17 model 0x31, seven default copy-bench runs, both verdicts
 * taken from the same samples: 61 roof errors on all of them (2, 4, 4, 6,
 * 20, 20, 5), 30 on the second pass alone (4, 0, 0, 3, 11, 7, 5), nearly
 * all cold avx2 contenders at 1.03-1.08x the avx2 roof.
 */
unsigned int bench_res_screen(struct bench_res *r, int group, size_t size, unsigned int again_from);
void bench_res_note_again(struct bench_res *r, unsigned int cells, unsigned int rounds);
void bench_res_note(struct bench_res *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* --list: the contenders registered so far, one per line with their class. */
void bench_res_list(const struct bench_res *r, FILE *f);
/* The command's options for --json's "options" (taken over). */
void bench_res_options(struct bench_res *r, json_object *options);
/* Print per the global options; returns an exit code. */
int bench_res_print(struct bench_res *r, const struct pmemtest_global *g);
/*
 * The end of a run: bench_res_print(), or after Ctrl-C what was measured so
 * far, noted as such, and PROGRESS_EXIT_INTERRUPTED (130).
 */
int bench_finish(struct bench_res *r, const struct pmemtest_global *g, const char *cmd);

/* --only: whether @name contains one of the comma-separated tokens. */
bool bench_selected(const char *only, const char *name);
/* The notes every run starts with: DRAM stands in for pmem, the CPU. */
void bench_header(struct bench_res *r, const struct bench_bufs *b, unsigned int rounds);

/* Keep the compiler from merging or dropping stores across calls. */
#define bench_barrier() __asm__ __volatile__("" : : : "memory")

#endif /* PMEMTEST_BENCH_H */
