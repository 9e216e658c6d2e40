// SPDX-License-Identifier: MIT
/*
 * The persistence proof (tests/trace/, as in test_persistence.c) for
 * memmove_flushcache: every usable variant and the entry point, traced
 * instruction by instruction, with source and destination overlapping at
 * distances both ways (TP_MOVE: the expected bytes are the C library's
 * memmove of the same span) and disjoint. After each call no line is
 * dirty, every destination byte holds the right value, nothing outside
 * was written, no fence ran, no line mixed NT and cached stores (all
 * variants but the kernel one), and the write-backs used the documented
 * instruction.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "kflush.h"
#include "testutil.h"
#include "trace/harness.h"

#define MAX_VARIANTS 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t sizes[] = { 0, 1, 3, 5, 8, 13, 31, 64, 65, 129, 257, 300, 589, 2119, 4099 };
static const long dists[] = { 1, -1, 3, -3, 8, -8, 63, -63, 64, -64, 65, -65, 200, -200,
			      2048, -2048 };
static const size_t doffs[] = { 0, 1, 7, 8, 63 };

static void one(const char *name, const void *fn, size_t n, size_t doff, long dist,
		int allow_mixed)
{
	struct tp_call call = {
		.name = name, .fn = fn, .shape = TP_MOVE, .doff = doff, .n = n, .dist = dist,
		.wb = tp_expected_wb(), .fences = 0, .allow_mixed = allow_mixed,
	};
	char msg[1024];

	if (tp_run(&call, msg, sizeof(msg)))
		cr_assert_fail("dst-src=%+ld: %s", dist, msg);
}

static void sweep(const char *name, const void *fn, int allow_mixed)
{
	size_t k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		long n = (long)sizes[i];
		/* The overlaps, then disjoint a line beyond each end. */
		for (size_t j = 0; j < ARRAY_SIZE(dists) + 2; j++, k++) {
			long d = j < ARRAY_SIZE(dists) ? dists[j] : (j & 1 ? -(n + 64) : n + 64);

			if (tp_quick() && k % 7)
				continue;
			one(name, fn, (size_t)n, doffs[k % ARRAY_SIZE(doffs)], d, allow_mixed);
		}
	}
	cr_log_info("%s: %zu moves traced, %zu instructions so far", name, k, tp_steps());
}

TestSuite(move_persistence, .init = tp_setup, .fini = tp_teardown);

ParameterizedTestParameters(move_persistence, variant)
{
	static struct tu_variant v[MAX_VARIANTS];

	return cr_make_param_array(struct tu_variant, v,
				   tu_usable_variants(KFLUSH_OP_MEMMOVE_FLUSHCACHE, v, MAX_VARIANTS));
}

ParameterizedTest(struct tu_variant *v, move_persistence, variant)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_MEMMOVE_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert(fn, "%s: usable but no function", v->name);
	sweep(v->name, (const void *)fn, strcmp(v->name, "kernel") == 0);
}

Test(move_persistence, entry_point)
{
	/* Documented precedence: kernel only with nothing better (libkflush(7)). */
	int kernel = !(kflush_cpu_features() &
		       (KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX2 | KFLUSH_CPU_SSE2));

	sweep("kflush_memmove_flushcache", (const void *)kflush_memmove_flushcache, kernel);
}
