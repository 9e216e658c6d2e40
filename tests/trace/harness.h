/* SPDX-License-Identifier: MIT */
/*
 * What the Criterion drivers share: one traced child per test process, a
 * MAP_SHARED arena it writes into, and tp_run(), which lays out one call
 * (guard lines around the destination, the reference bytes it must leave),
 * traces it and has tests/trace/lines.c judge it.
 */
#ifndef KFLUSH_TRACE_HARNESS_H
#define KFLUSH_TRACE_HARNESS_H

#include <stddef.h>

#include "lines.h"
#include "tracer.h"

/* Guard lines watched on each side of the destination's lines. */
#define TP_GUARD_LINES 2
/* Room for test_persistence's streamed copy of 512 KiB and more. */
#define TP_SRC_SIZE (600u * 1024)
#define TP_DST_SIZE (616u * 1024)

enum tp_shape {
	TP_COPY,	/* fn(dst, src, n) */
	TP_SET,		/* fn(dst, c, n) */
	TP_FLUSH,	/* fn(dst, n): dst already holds its data, which must not change */
	TP_CLEAR,	/* fn(dst, n / 4096): dst page-aligned, zeroed */
	TP_DRAIN,	/* fn(): nothing in the window may change */
	TP_MOVE,	/* fn(dst, dst - dist, n): source and destination may overlap */
	TP_FILL,	/* fn(dst, n, pattern): the source's first 64 bytes over every line */
};

struct tp_call {
	const char *name;
	const void *fn;
	enum tp_shape shape;
	size_t doff, soff, n;
	int c;
	long dist;	/* TP_MOVE: dst - src, either sign */
	/* The rules: wb, fences, allow_mixed, nt_only, flush (tl_expect's). */
	enum td_kind wb;
	int fences, allow_mixed, nt_only;
};

/*
 * Map the arena (on DAX, MAP_SYNC, when KFLUSH_TEST_DAX_DIR names a DAX
 * mount, as tests/testutil.c does) and fork the tracee; on a host where tracing cannot work
 * the calling Criterion test fails, or is skipped, as tt_no_tracer() says.
 */
void tp_setup(void);
void tp_teardown(void);

/*
 * For a test that traces its own calls into an arena (tt_start_arena()):
 * starts it, or hands what went @unobserved to tt_no_tracer().
 */
void tp_arena_start(struct tt_tracer *t, unsigned char **arena, size_t len, const char *unobserved);

/*
 * Trace one call. Returns the number of violations (0: the contract held);
 * msg gets "name n=.. dst+.. src+..: <report>". A driver failure (fault,
 * runaway) counts as a violation.
 */
size_t tp_run(const struct tp_call *c, char *msg, size_t len);
/* The judged state of the last tp_run(), for tests of the checker itself. */
const struct tl_state *tp_last(void);

/*
 * The write-back instruction dispatch must bind, from the documented
 * precedence (clwb, else clflushopt, else clflush) over the features left
 * after KFLUSH_HWCAPS: never from the registry under test.
 */
enum td_kind tp_expected_wb(void);
/*
 * KFLUSH_TEST_QUICK=1 (the TCG guest of make check-vm, where a step costs a
 * hundred times more): the drivers trace one case per size/offset class
 * instead of the full plan, and say so.
 */
int tp_quick(void);
/* Instructions single-stepped so far by this process's tracer. */
size_t tp_steps(void);

#endif /* KFLUSH_TRACE_HARNESS_H */
