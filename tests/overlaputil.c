// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "overlaputil.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SMALL_MAX 160
#define MID_DIST 130
#define LARGE_MAX (65536 + 13)

static struct tu_area small_area, big_area;
static unsigned char *pat, *expect;

static void init(void)
{
	if (pat)
		return;
	small_area = tu_area_new(4 * 1024);
	big_area = tu_area_new(2 * LARGE_MAX + 64);
	pat = malloc(2 * LARGE_MAX + 64);
	expect = malloc(2 * LARGE_MAX + 64);
	cr_assert(pat && expect);
	tu_fill(pat, 2 * LARGE_MAX + 64, 77);
}

int ou_one(ou_move_fn fn, void *ctx, size_t base, long dist, size_t n, long *where)
{
	size_t ad = (size_t)(dist < 0 ? -dist : dist), span = n + ad;
	struct tu_area *a;
	unsigned char *r;
	size_t so = dist < 0 ? ad : 0, dof = dist < 0 ? 0 : ad;
	long bad;

	init();
	a = span + base <= 4 * 1024 ? &small_area : &big_area;
	r = tu_at(a, base);
	memcpy(r, pat, span);
	/* The outside truth: the C library's memmove on a copy of the same bytes. */
	memcpy(expect, pat, span);
	memmove(expect + dof, expect + so, n);
	fn(r + dof, r + so, n, ctx);
	bad = tu_check(a, base, expect, span);
	tu_restore(a, base, span);
	if (bad < 0)
		return 0;
	*where = bad - (long)(TU_GUARD + base + dof);
	return 1;
}

static void one(const char *name, ou_move_fn fn, void *ctx, size_t base, long dist, size_t n)
{
	long bad;

	if (ou_one(fn, ctx, base, dist, n, &bad))
		cr_assert_fail("%s: n=%zu dst-src=%+ld at +%zu: wrong byte at %+ld from dst",
			       name, n, dist, base, bad);
}

void ou_sweep(const char *name, ou_move_fn fn, void *ctx)
{
	static const size_t bases[] = { 0, 1, 7, 8, 31, 36, 57, 63 };
	static const size_t mid_bases[] = { 0, 36, 63 };
	static const size_t mid[] = { 200, 255, 256, 257, 300, 319, 320, 511, 512, 513, 777,
				      1100, 2047, 2048, 2049, 3 * 2048 + 77 };
	static const size_t large[] = { 4095, 4097, 3 * 2048 + 77, LARGE_MAX };
	static const long far[] = { 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047,
				    2048, 2049, 4096 };
	size_t step = tu_offset_step();

	for (size_t n = 0; n <= SMALL_MAX; n++)
		for (long d = -(long)n - 9; d <= (long)n + 9; d++)
			for (size_t b = 0; b < ARRAY_SIZE(bases); b += step)
				one(name, fn, ctx, bases[b], d, n);

	for (size_t i = 0; i < ARRAY_SIZE(mid); i++) {
		for (long d = -MID_DIST; d <= MID_DIST; d++)
			for (size_t b = 0; b < ARRAY_SIZE(mid_bases); b++)
				one(name, fn, ctx, mid_bases[b], d, mid[i]);
		for (size_t f = 0; f < ARRAY_SIZE(far); f++)
			for (int sign = -1; sign <= 1; sign += 2)
				one(name, fn, ctx, 5, sign * far[f], mid[i]);
	}

	for (size_t i = 0; i < ARRAY_SIZE(large); i++) {
		long n = (long)large[i];
		const long near_n[] = { n / 2, n - 1, n, n + 1 };

		for (int sign = -1; sign <= 1; sign += 2) {
			for (long d = 1; d <= 70; d++)
				one(name, fn, ctx, 3, sign * d, (size_t)n);
			for (size_t f = 0; f < ARRAY_SIZE(far); f++)
				one(name, fn, ctx, 0, sign * far[f], (size_t)n);
			for (size_t f = 0; f < ARRAY_SIZE(near_n); f++)
				one(name, fn, ctx, 61, sign * near_n[f], (size_t)n);
		}
	}
}

void ou_sweep_light(const char *name, ou_move_fn fn, void *ctx)
{
	static const size_t sizes[] = { 127, 128, 129, 255, 256, 257, 1100, 4097, 3 * 2048 + 77 };
	static const long dists[] = { 1, 7, 8, 9, 63, 64, 65, 255, 256, 2048 };

	for (size_t n = 0; n <= 72; n++)
		for (long d = -(long)n - 2; d <= (long)n + 2; d++)
			one(name, fn, ctx, (n * 7) % 64, d, n);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(dists); j++)
			for (int sign = -1; sign <= 1; sign += 2)
				for (size_t base = 0; base < 64; base += 21)
					one(name, fn, ctx, base, sign * dists[j], sizes[i]);
}
