// SPDX-License-Identifier: MIT
/*
 * kflush_copy_safe() on a CPU whose rep movsb reports a fault before the
 * last byte it could have copied. This host's CPU stops exactly, so the
 * byte retry that makes the count exact would go unexercised; this
 * program is linked with a test build of the library (tests/local.mk,
 * -DKFLUSH_TEST_EARLY_STOP) whose handler moves rep movsb's registers
 * back to the start of the destination's cache line before the fixup runs.
 * The expected counts are the fault's position, as in test_copy_safe.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "faultutil.h"
#include "testutil.h"

#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
#endif

/* Counted by the test build's handler, once per register rewind. */
extern unsigned long kflush_test_early_stops;

#define SMALL_MAX 300

static void early_sweep(const char *name)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	static const size_t large[] = { 4096 + 5, 65536 + 13 };
	int idx = kflush_variant_find(KFLUSH_OP_COPY_SAFE, name);
	kflush_copy_safe_fn fn;
	struct fault_area sfa = fa_segv(65536 + 13), dfa = fa_segv(65536 + 13);
	struct tu_area dst = tu_area_new(65536 + 13);
	unsigned char *src = malloc(65536 + 13 + 64);
	unsigned long before = kflush_test_early_stops;
	int ok = 1;

	cr_assert(idx >= 0 && src != NULL);
	fn = (kflush_copy_safe_fn)kflush_variant_fn(KFLUSH_OP_COPY_SAFE, (unsigned int)idx);
	if (!fn)
		cr_skip_test("%s is not usable on this CPU: its early stop cannot be simulated", name);
	tu_fill(src, 65536 + 13 + 64, 4);
	fa_fill(&sfa, 5);
	fa_fill_guard(&dfa);
	for (size_t n = 0; n <= SMALL_MAX && ok; n++)
		for (size_t f = 0; f <= n && ok; f++)
			ok = src_fault_case(fn, &sfa, &dst, n, f, (n + 3 * f) & 63) &&
			     dst_fault_case(fn, &dfa, src + ((n + f) & 63), n, f);
	for (size_t i = 0; i < sizeof(large) / sizeof(large[0]) && ok; i++)
		for (size_t f = large[i] - 200; f <= large[i] && ok; f++)
			ok = src_fault_case(fn, &sfa, &dst, large[i], f, f & 63) &&
			     dst_fault_case(fn, &dfa, src + (f & 63), large[i], f);
	cr_assert(ok, "%s: wrong count or bytes when rep movsb stops early (see the log)", name);
	cr_assert_gt(kflush_test_early_stops, before,
		     "%s: the test build never moved rep movsb back: nothing was simulated", name);
	free(src);
	tu_area_free(&dst);
	fa_free(&sfa);
	fa_free(&dfa);
}

Test(copy_safe_early, rep_movsb) { early_sweep("rep_movsb"); }
Test(copy_safe_early, erms) { early_sweep("erms"); }
