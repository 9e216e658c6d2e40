// SPDX-License-Identifier: MIT
/*
 * The flags forms under the persistence tracer (tests/trace/): for each of
 * the 64 combinations of the six flags, copy, move (overlapping) and set
 * make the stores, write-backs and fences pmem_memmove(3) promises, with
 * the expectations written here from that page, not from the code:
 * - NOFLUSH: "don't flush anything; implies NODRAIN": no write-back, no
 *   fence, no non-temporal store; lines may stay dirty, nothing else may
 *   go wrong (every byte right, nothing outside);
 * - otherwise no line is left dirty, and exactly one fence, last, unless
 *   NODRAIN;
 * - NONTEMPORAL or WC: non-temporal stores, and only those for a
 *   4-aligned destination and a multiple of 4 bytes; TEMPORAL or WB (and
 *   neither of those): ordinary stores only; no hint: ordinary below 256
 *   bytes (PMEM_MOVNT_THRESHOLD's default), non-temporal from 256 on;
 * - but a move of fewer than 256 bytes whose two ends share a cache line
 *   is ordinary stores, written back, whatever the hint (the hints are
 *   "merely hints", pmem_memmove(3); kflush_memmove_flushcache(3) says
 *   why: its loads have just cached the lines it stores to);
 * - and a move of 256 bytes or more stores its partial first and last
 *   lines with ordinary stores and writes them back (as PMDK's movnt
 *   paths do; kflush_memmove_flushcache(3)): NT only if both ends fall
 *   on line boundaries.
 * Also the plain temporal calls: ordinary stores, all written back, no fence.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "testutil.h"
#include "trace/harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The bit values, from libpmem.h (PMDK 1.12), not from kflush.h. */
#define NODRAIN		(1U << 0)
#define NONTEMPORAL	(1U << 1)
#define TEMPORAL	(1U << 2)
#define WC		(1U << 3)
#define WB		(1U << 4)
#define NOFLUSH		(1U << 5)

enum call { COPY, MOVE, SET };
static const char *const call_names[] = { "memcpy", "memmove", "memset" };

static const struct {
	size_t n, doff;
} cases[] = { { 0, 0 }, { 5, 3 }, { 64, 0 }, { 100, 8 }, { 100, 4 }, { 255, 1 }, { 256, 0 },
	      { 1000, 0 }, { 1001, 7 } };

/* The flags calls with the flags bound, as the tracer's three-argument calls. */
#define WRAP(F)									\
	static void *copy_##F(void *d, const void *s, size_t n)			\
	{ return kflush_memcpy_flags(d, s, n, F); }				\
	static void *move_##F(void *d, const void *s, size_t n)			\
	{ return kflush_memmove_flags(d, s, n, F); }				\
	static void *set_##F(void *d, int c, size_t n)				\
	{ return kflush_memset_flags(d, c, n, F); }
#define W8(b) WRAP(b##0) WRAP(b##1) WRAP(b##2) WRAP(b##3) WRAP(b##4) WRAP(b##5) WRAP(b##6) WRAP(b##7)
W8(00) W8(01) W8(02) W8(03) W8(04) W8(05) W8(06) W8(07)
#define REF(F) { (const void *)copy_##F, (const void *)move_##F, (const void *)set_##F }
#define R8(b) REF(b##0), REF(b##1), REF(b##2), REF(b##3), REF(b##4), REF(b##5), REF(b##6), REF(b##7)
/* Two octal digits per name (copy_016 is flags 016 = 0xe): wrappers[f] has flags f. */
static const void *const wrappers[64][3] = { R8(00), R8(01), R8(02), R8(03), R8(04), R8(05), R8(06), R8(07) };

static int kernel_bound(void)
{
	return !(kflush_cpu_features() & (KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX2 |
					  KFLUSH_CPU_MOVDIR64B | KFLUSH_CPU_SSE2));
}

/* Whether a move of @n bytes to dst+@doff from @dist below it shares a line. */
static int move_in_its_lines(size_t n, size_t doff, long dist)
{
	/* Offsets from a line boundary far enough below both ends (harness.c's DST_BASE). */
	long d = 8192 + (long)doff, s = d - dist, last = (long)n - 1;

	return n && d / 64 <= (s + last) / 64 && s / 64 <= (d + last) / 64;
}

static void prove(enum call c, const void *fn, unsigned int f, size_t n, size_t doff,
		  const char *label)
{
	int noflush = f & NOFLUSH;
	long dist = n & 1 ? 3 : -70;
	int cached_move = c == MOVE && n < 256 && move_in_its_lines(n, doff, dist);
	int nt = !noflush && !cached_move &&
		 ((f & (NONTEMPORAL | WC)) || (!(f & (TEMPORAL | WB)) && n >= 256));
	struct tp_call call = {
		.name = label, .fn = fn, .shape = c == SET ? TP_SET : c == MOVE ? TP_MOVE : TP_COPY,
		.doff = doff, .soff = doff + 3, .n = n, .c = 0x3c, .dist = dist,
		.wb = tp_expected_wb(), .fences = (f & (NODRAIN | NOFLUSH)) ? 0 : 1,
		.allow_mixed = nt && kernel_bound(),
		.nt_only = nt && doff % 4 == 0 && n % 4 == 0 &&
			   (c != MOVE || (doff % 64 == 0 && (doff + n) % 64 == 0)),
	};
	const struct tl_state *s;
	char msg[1024];
	size_t bad = tp_run(&call, msg, sizeof(msg));

	s = tp_last();
	if (noflush) {
		/* Dirty lines are the point of NOFLUSH; every other rule still holds. */
		if (bad != s->count[TL_DIRTY])
			cr_assert_fail("%s", msg);
		if (s->writebacks || s->fences || s->nt_bytes)
			cr_assert_fail("%s n=%zu: NOFLUSH made %zu write-backs, %zu fences, %zu NT bytes",
				       label, n, s->writebacks, s->fences, s->nt_bytes);
		return;
	}
	if (bad)
		cr_assert_fail("%s", msg);
	if (n && nt && n >= 256 && !s->nt_bytes)
		cr_assert_fail("%s n=%zu dst+%zu: no non-temporal store on the NT path", label, n, doff);
	if (n && !nt && (s->nt_bytes || !s->cached_bytes))
		cr_assert_fail("%s n=%zu dst+%zu: %zu NT bytes on the temporal path", label, n, doff,
			       s->nt_bytes);
}

TestSuite(flags_persistence, .init = tp_setup, .fini = tp_teardown);

ParameterizedTestParameters(flags_persistence, combinations)
{
	static int calls[] = { COPY, MOVE, SET };

	return cr_make_param_array(int, calls, ARRAY_SIZE(calls));
}

/* One traced child per call, all 64 combinations in it. */
ParameterizedTest(int *call, flags_persistence, combinations)
{
	char label[64];

	for (unsigned int f = 0; f < 64; f++) {
		snprintf(label, sizeof(label), "kflush_%s_flags(%#x)", call_names[*call], f);
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
			if (!tp_quick() || i % 3 == 0)
				prove((enum call)*call, wrappers[f][*call], f, cases[i].n,
				      cases[i].doff, label);
	}
}

Test(flags_persistence, temporal)
{
	static const void *const fns[] = { (const void *)kflush_memcpy_temporal,
					   (const void *)kflush_memmove_temporal,
					   (const void *)kflush_memset_temporal };
	static const char *const names[] = { "kflush_memcpy_temporal", "kflush_memmove_temporal",
					     "kflush_memset_temporal" };

	/* TEMPORAL | NODRAIN is what the plain calls are. */
	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
			prove((enum call)c, fns[c], TEMPORAL | NODRAIN, cases[i].n, cases[i].doff,
			      names[c]);
}

/*
 * The inline paths of kflush_memcpy_temporal and kflush_memset_temporal
 * (1..128 bytes, libkflush(7)): each size class at both of its ends and
 * just past the last, at offsets that put it in one line, across two, and
 * (from 66 bytes) across three.
 */
Test(flags_persistence, temporal_small)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 65, 96, 127,
					128, 129 };
	static const size_t doffs[] = { 0, 1, 32, 63 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(doffs); j++)
			if (!tp_quick() || j == 1) {
				prove(COPY, (const void *)kflush_memcpy_temporal, TEMPORAL | NODRAIN,
				      sizes[i], doffs[j], "kflush_memcpy_temporal");
				prove(SET, (const void *)kflush_memset_temporal, TEMPORAL | NODRAIN,
				      sizes[i], doffs[j], "kflush_memset_temporal");
			}
}
