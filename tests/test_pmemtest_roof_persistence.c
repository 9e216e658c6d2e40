// SPDX-License-Identifier: MIT
/*
 * The persistence proof for pmemtest's roofs (pmemtest/common/roof.c), by
 * watching the instructions (tests/trace/): a roof is the fastest way the
 * machine has to store the bytes a flush-copy stores and leave them
 * durable, so it owes the flush-copy's contract. A roof that skipped its
 * write-backs, or stored a line through the cache without one, would read
 * fast and hide every contender under it; roof.c's own check holds it to
 * its bytes only.
 *
 * Each copy and fill strategy this CPU runs (the raw CPUID features, as
 * the benches take them), single-stepped in a child over whole lines at a
 * line-aligned destination, as copy-bench calls them: every byte right,
 * nothing stored outside, no line left dirty, no line mixing NT and
 * cached stores, no fence (a sample fences once, roof_fence()); the NT
 * strategies store nothing through the cache and write nothing back, the
 * cached ones write back with the instruction their name says.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "roofutil.h"
#include "trace/harness.h"

/* The write-back instruction a cached strategy's name says, from its name. */
static enum td_kind named_wb(const char *name)
{
	if (strstr(name, "clflushopt"))
		return TD_WB_CLFLUSHOPT;
	if (strstr(name, "clflush"))
		return TD_WB_CLFLUSH;
	if (strstr(name, "clwb"))
		return TD_WB_CLWB;
	return TD_NONE;
}

/*
 * Lines: the lone line, each strategy's tail loop, a batch and more (4
 * lines for movnti and sse2, 8 for avx2, 32 for avx512; 512-byte steps),
 * and from 8 KiB the two-stream copies' even and odd line counts.
 */
static const size_t lines_full[] = { 1, 2, 3, 4, 5, 7, 8, 9, 12, 33, 128, 129, 130 };
/* KFLUSH_TEST_QUICK (the TCG guest): one of each class. */
static const size_t lines_quick[] = { 1, 5, 9, 33, 129 };

/*
 * Each strategy's bytes checked (roof.c, check_bytes()) before the traced
 * child is forked: so every strategy has run once in this process, and
 * nothing the child traces is a first call (in the sanitizer build, the
 * runtime's memcpy set up its thread state, xsavec and a TLS store, in
 * the first traced call of each roof that calls it).
 */
static void setup(void)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];

	roof_strategies(ROOF_COPY, s, ROOF_MAX_STRATEGIES);
	roof_strategies(ROOF_FILL, s, ROOF_MAX_STRATEGIES);
	tp_setup();
}

TestSuite(roof_persistence, .init = setup, .fini = tp_teardown);

ParameterizedTestParameters(roof_persistence, proof)
{
	return roof_test_params();
}

ParameterizedTest(struct roof_param *p, roof_persistence, proof)
{
	const struct roof_strategy *s = roof_test_find(p);
	const size_t *lines = tp_quick() ? lines_quick : lines_full;
	size_t nl = tp_quick() ? sizeof(lines_quick) / sizeof(lines_quick[0]) :
				 sizeof(lines_full) / sizeof(lines_full[0]);
	enum td_kind wb = named_wb(s->name);

	cr_assert_eq(s->write_back, wb != TD_NONE,
		     "roof %s: its name and its write_back flag disagree", s->name);
	cr_assert(s->nt, "roof %s: copy and fill roofs are weakly ordered", s->name);
	for (size_t i = 0; i < nl; i++) {
		struct tp_call call = {
			.name = s->name, .shape = p->use == ROOF_COPY ? TP_COPY : TP_FILL,
			.fn = p->use == ROOF_COPY ? (const void *)s->copy : (const void *)s->fill,
			.n = lines[i] * 64, .wb = wb, .nt_only = !s->write_back,
		};
		char msg[1024];

		if (call.n < s->min_len)
			continue;
		if (tp_run(&call, msg, sizeof(msg)))
			cr_assert_fail("roof %s: %s", p->use == ROOF_COPY ? "copy" : "fill", msg);
		if (s->write_back)
			cr_assert_eq(tp_last()->writebacks, lines[i],
				     "roof %s: %zu write-backs for %zu lines", s->name,
				     tp_last()->writebacks, lines[i]);
		else
			cr_assert_eq(tp_last()->nt_bytes, call.n, "roof %s: %zu NT bytes of %zu",
				     s->name, tp_last()->nt_bytes, call.n);
	}
}
