// SPDX-License-Identifier: MIT
/*
 * The flags forms against the recording build: for each of the 64 flag
 * combinations, copy, move (disjoint and overlapping) and set make the
 * stores, write-backs and fences that pmem_memmove(3)'s flags promise,
 * with the expectations written out here from that page:
 * - NOFLUSH: no write-back and no fence ("don't flush anything; implies
 *   NODRAIN"); the hints do not matter.
 * - otherwise no destination line is left dirty, and one fence at the end
 *   unless NODRAIN;
 * - NONTEMPORAL or WC: non-temporal stores (all of them for an 8-aligned
 *   destination and a multiple of 4 bytes, some from 256 bytes on; a few
 *   unaligned bytes are the flush-copy's cached edges); TEMPORAL or WB alone: ordinary
 *   stores only; no hint: ordinary below 256 bytes (PMEM_MOVNT_THRESHOLD's
 *   default), non-temporal from there on.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "recorder.h"
#include "testutil.h"

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

static const size_t sizes[] = { 0, 1, 3, 8, 13, 64, 100, 252, 255, 256, 257, 1000, 4096, 4097 };
static const size_t doffs[] = { 0, 1, 8, 63 };
static const long dists[] = { 0, 1, -1, 64, -64, 300, -300 };	/* 0: disjoint */

static void check(const char *name, unsigned int f, size_t n, size_t doff, long dist,
		  const unsigned char *d, const struct rec_report *r)
{
	int aligned = ((uintptr_t)d & 7) == 0 && n % 4 == 0;
	int nt = !(f & NOFLUSH) && ((f & (NONTEMPORAL | WC)) ||
				    (!(f & (TEMPORAL | WB)) && n >= 256));
	const char *why = NULL;

	if (r->unwritten || r->outside)
		why = "bytes unwritten or stored outside";
	else if (f & NOFLUSH) {
		if (r->writebacks || r->fences)
			why = "NOFLUSH wrote back or fenced";
		else if (r->nt_bytes)
			why = "NOFLUSH used non-temporal stores";
	} else if (r->dirty_lines || r->wb_outside)
		why = "a dirty line left, or a line outside written back";
	else if (r->fences != ((f & NODRAIN) ? 0u : 1u))
		why = "wrong number of fences";
	else if (n && nt && ((aligned && r->nt_bytes != n) || (n >= 256 && r->nt_bytes == 0)))
		why = "non-temporal path expected";
	else if (n && !nt && (r->nt_bytes || r->cached_bytes != n))
		why = "temporal path expected";
	if (why)
		cr_assert_fail("%s(%#x): n=%zu dst+%zu dst-src=%+ld: %s (%zu dirty lines, %zu "
			       "unwritten, %zu outside, %zu nt, %zu cached, %zu write-backs, %zu "
			       "fences)", name, f, n, doff, dist, why, r->dirty_lines,
			       r->unwritten, r->outside, r->nt_bytes, r->cached_bytes,
			       r->writebacks, r->fences);
}

static void prove(enum call c, unsigned int f, struct tu_area *a, const unsigned char *src,
		  size_t n, size_t doff, long dist)
{
	unsigned char *d = tu_at(a, doff) + 512;
	const unsigned char *s = dist == 0 ? src : d - dist;
	struct rec_report r;

	rec_begin(d - 128, n + 256);
	switch (c) {
	case COPY: kflush_memcpy_flags(d, s, n, f); break;
	case MOVE: kflush_memmove_flags(d, s, n, f); break;
	case SET: kflush_memset_flags(d, 0x3c, n, f); break;
	}
	rec_verify(d, n, &r);
	rec_end();
	check(call_names[c], f, n, doff, dist, d, &r);
}

struct param {
	int call;
	unsigned int flags;
};

ParameterizedTestParameters(flags_persistence, combination)
{
	static struct param p[3 * 64];

	for (int c = 0; c < 3; c++)
		for (unsigned int f = 0; f < 64; f++)
			p[c * 64 + f] = (struct param){ c, f };
	return cr_make_param_array(struct param, p, ARRAY_SIZE(p));
}

ParameterizedTest(struct param *p, flags_persistence, combination)
{
	struct tu_area a = tu_area_new(8192);
	unsigned char *src = malloc(8192);

	cr_assert(src);
	tu_fill(src, 8192, 5);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(doffs); j++)
			for (size_t k = 0; k < (p->call == MOVE ? ARRAY_SIZE(dists) : 1); k++) {
				prove((enum call)p->call, p->flags, &a, src, sizes[i], doffs[j],
				      dists[k]);
				tu_area_reset(&a);
			}
	free(src);
	tu_area_free(&a);
}

/* The temporal calls alone: ordinary stores, every line written back, no fence. */
Test(flags_persistence, temporal)
{
	struct tu_area a = tu_area_new(8192);
	unsigned char *src = malloc(8192);

	cr_assert(src);
	tu_fill(src, 8192, 6);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(doffs); j++)
			for (int c = 0; c < 3; c++) {
				unsigned char *d = tu_at(&a, doffs[j]) + 512;
				struct rec_report r;

				rec_begin(d - 128, sizes[i] + 256);
				if (c == COPY)
					kflush_memcpy_temporal(d, src, sizes[i]);
				else if (c == MOVE)
					kflush_memmove_temporal(d, d + 1, sizes[i]);
				else
					kflush_memset_temporal(d, 0x11, sizes[i]);
				rec_verify(d, sizes[i], &r);
				rec_end();
				/* TEMPORAL|NODRAIN is what the plain call is. */
				check(call_names[c], TEMPORAL | NODRAIN, sizes[i], doffs[j], 0, d, &r);
			}
	free(src);
	tu_area_free(&a);
}
