// SPDX-License-Identifier: MIT
/*
 * The temporal flush-copy and the flags forms: every one of the 64
 * combinations of the six KFLUSH_F_MEM_* bits, for copy, move (overlap
 * sweep against memmove) and set, byte for byte with guard bytes. Which
 * stores, write-backs and fences each combination makes is checked by
 * test_flags_persistence under the persistence tracer.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "overlaputil.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NR_COMBOS 64

static const size_t doffs[] = { 0, 1, 7, 8, 63 };
/*
 * The buffers hold the largest of these, not TU_MAX_SIZE: each of the 196
 * cases sets them up, which dominated the QEMU rig's TCG guests.
 */
#define LARGE_MAX (65536 + 13)
static const size_t large[] = { 4097, LARGE_MAX };

static unsigned char *src, *inv, *set_want;

static void setup(void)
{
	src = malloc(LARGE_MAX + 64);
	inv = malloc(LARGE_MAX + 64);
	set_want = malloc(LARGE_MAX);
	cr_assert(src && inv && set_want);
	tu_fill(src, LARGE_MAX + 64, 91);
	for (size_t i = 0; i < LARGE_MAX + 64; i++)
		inv[i] = (unsigned char)~src[i];
	memset(set_want, 0x6b, LARGE_MAX);
}

static void teardown(void)
{
	free(src);
	free(inv);
	free(set_want);
}

/* The three calls under one shape: set ignores src and uses 0x6b. */
enum call { COPY, MOVE, SET };
static const char *const call_names[] = { "memcpy", "memmove", "memset" };

struct ctx {
	enum call call;
	unsigned int flags;	/* or ~0u: the plain temporal function */
};

static void *run(const struct ctx *x, void *d, const void *s, size_t n)
{
	if (x->flags == ~0u) {
		switch (x->call) {
		case COPY: kflush_memcpy_temporal(d, s, n); return d;
		case MOVE: kflush_memmove_temporal(d, s, n); return d;
		case SET: kflush_memset_temporal(d, 0x6b, n); return d;
		}
	}
	switch (x->call) {
	case COPY: return kflush_memcpy_flags(d, s, n, x->flags);
	case MOVE: return kflush_memmove_flags(d, s, n, x->flags);
	case SET: return kflush_memset_flags(d, 0x6b, n, x->flags);
	}
	return NULL;
}

static void one(const struct ctx *x, const char *name, struct tu_area *a, size_t doff,
		size_t soff, size_t n)
{
	unsigned char *d = tu_at(a, doff);
	const unsigned char *want = x->call == SET ? set_want : src + soff;
	long bad;

	memcpy(d, inv + soff, n);
	if (run(x, d, src + soff, n) != d && x->flags != ~0u)
		cr_assert_fail("%s: n=%zu: did not return dst", name, n);
	bad = tu_check(a, doff, want, n);
	if (bad >= 0)
		cr_assert_fail("%s: n=%zu dst+%zu src+%zu: wrong byte at %+ld from dst",
			       name, n, doff, soff, bad - (long)(TU_GUARD + doff));
	tu_restore(a, doff, n);
}

static void move(void *d, const void *s, size_t n, void *p)
{
	run(p, d, s, n);
}

/*
 * The next length: every one, or under KFLUSH_TEST_QUICK (the QEMU rig's
 * TCG guest, where the 192 combinations took 624 s of a 600 s budget on a
 * loaded host) every one to 160, past every head, body and tail split of
 * the flush-copy and the temporal path's inline range, then every 11th.
 */
static size_t next_len(size_t n)
{
	static int quick = -1;

	if (quick < 0)
		quick = getenv("KFLUSH_TEST_QUICK") != NULL;
	return quick && n >= 160 ? n + 11 : n + 1;
}

static void sweep(struct ctx *x, const char *name, int light)
{
	struct tu_area a = tu_area_new(2048);
	struct tu_area big = tu_area_new(LARGE_MAX);

	for (size_t n = 0; n <= 600; n = next_len(n))
		for (size_t i = 0; i < ARRAY_SIZE(doffs); i++)
			one(x, name, &a, doffs[i], (n + i) % 5, n);
	for (size_t i = 0; i < ARRAY_SIZE(large); i++)
		for (size_t j = 0; j < 2; j++)
			one(x, name, &big, doffs[j * 3], 3 * j, large[i]);
	tu_area_free(&a);
	tu_area_free(&big);
	if (x->call == MOVE) {
		if (light)
			ou_sweep_light(name, move, x);
		else
			ou_sweep(name, move, x);
	}
}

struct param {
	int call;
	unsigned int flags;	/* the four bits that choose the stores */
};

/*
 * One case per call and combination of NONTEMPORAL, TEMPORAL, WC and WB;
 * each runs its combination with and without NODRAIN and NOFLUSH. A case
 * is a process of its own, and under the QEMU rig's TCG guests starting
 * one cost about 0.17 s: 192 cases took 56-69 s there.
 */
#define STORE_BITS (KFLUSH_F_MEM_NONTEMPORAL | KFLUSH_F_MEM_TEMPORAL | KFLUSH_F_MEM_WC | \
		    KFLUSH_F_MEM_WB)
#define OTHER_BITS (KFLUSH_F_MEM_NODRAIN | KFLUSH_F_MEM_NOFLUSH)

ParameterizedTestParameters(flags, combination)
{
	static struct param p[3 * 16];	/* 16: the combinations of STORE_BITS */
	size_t n = 0;

	for (int c = 0; c < 3; c++)
		for (unsigned int f = 0; f < NR_COMBOS; f++)
			if ((f & ~STORE_BITS) == 0)
				p[n++] = (struct param){ c, f };
	return cr_make_param_array(struct param, p, n);
}

ParameterizedTest(struct param *p, flags, combination, .init = setup, .fini = teardown)
{
	for (unsigned int f = 0; f < NR_COMBOS; f++) {
		struct ctx x = { (enum call)p->call, p->flags | f };
		char name[64];

		if ((f & ~OTHER_BITS) != 0)
			continue;
		snprintf(name, sizeof(name), "kflush_%s_flags(%#x)", call_names[p->call], x.flags);
		sweep(&x, name, 1);
	}
}

/* Bits beyond the six are ignored, as the page says. */
Test(flags, unknown_bits_ignored, .init = setup, .fini = teardown)
{
	for (int c = 0; c < 3; c++) {
		struct ctx x = { (enum call)c, 0xffffffc0u | KFLUSH_F_MEM_NODRAIN };

		sweep(&x, call_names[c], 1);
	}
}

ParameterizedTestParameters(flags, temporal)
{
	static int calls[] = { COPY, MOVE, SET };

	return cr_make_param_array(int, calls, ARRAY_SIZE(calls));
}

ParameterizedTest(int *call, flags, temporal, .init = setup, .fini = teardown)
{
	struct ctx x = { (enum call)*call, ~0u };
	char name[64];

	snprintf(name, sizeof(name), "kflush_%s_temporal", call_names[*call]);
	sweep(&x, name, 0);
}
