// SPDX-License-Identifier: MIT
/*
 * The persistence proof for kflush_clear_pages_flushcache, by watching the
 * instructions (tests/trace/): each usable variant and the entry point,
 * single-stepped in a child, must zero every byte of the extent with
 * non-temporal stores only (movnti, vmovntdq, clzero), store nothing
 * outside it, write nothing back and not fence.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"
#include "trace/harness.h"

#define MAX_VARIANTS 8

static void clear_sweep(const char *name, const void *fn)
{
	static const size_t npages_list[] = { 0, 1, 2, 3, 5, 17 };

	/* KFLUSH_TEST_QUICK: 0 and 1 page. */
	size_t nr = tp_quick() ? 2 : sizeof(npages_list) / sizeof(npages_list[0]);

	for (size_t i = 0; i < nr; i++) {
		struct tp_call call = {
			.name = name, .fn = fn, .shape = TP_CLEAR,
			.n = npages_list[i] * KFLUSH_PAGE_SIZE, .wb = TD_NONE, .nt_only = 1,
		};
		char msg[1024];

		if (tp_run(&call, msg, sizeof(msg))) {
			cr_assert_fail("%s", msg);
			return;
		}
		cr_assert_eq(tp_last()->nt_bytes, call.n, "%s: %zu NT bytes for %zu pages", name,
			     tp_last()->nt_bytes, npages_list[i]);
	}
}

TestSuite(clear_pages_flushcache, .init = tp_setup, .fini = tp_teardown);

ParameterizedTestParameters(clear_pages_flushcache, proof)
{
	static struct tu_variant v[MAX_VARIANTS];

	return cr_make_param_array(struct tu_variant, v,
				   tu_usable_variants(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, v,
						      MAX_VARIANTS));
}

ParameterizedTest(struct tu_variant *v, clear_pages_flushcache, proof)
{
	kflush_fn fn = kflush_variant_fn(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert_not_null(fn);
	clear_sweep(v->name, (const void *)fn);
}

Test(clear_pages_flushcache, entry_point)
{
	clear_sweep("kflush_clear_pages_flushcache", (const void *)kflush_clear_pages_flushcache);
}
