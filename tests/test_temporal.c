// SPDX-License-Identifier: MIT
/*
 * kflush_memcpy_temporal(), watched instruction by instruction: the
 * persistence tracer (tests/trace/) single-steps it in a child. The bytes
 * and the contract (no dirty line, no fence) are test_flags.c's and
 * test_flags_persistence.c's; this checks the order libkflush(7) documents
 * for the temporal call: no write-back directly follows a store to the
 * line it writes back. Another store comes in between (the small path's
 * stack store, a call's return address), which is what made the call as
 * fast as glibc memcpy + kflush_flush() on the Emerald Rapids host; the
 * bytes cannot show the order, the tracer can.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "trace/tracer.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ARENA (16u << 10)
#define DST_OFF 4096
#define LINE 64

static struct tt_tracer tracer;
static unsigned char *arena;

struct seen {
	int have_store;
	uint64_t store_line;	/* line of the latest store, any kind */
	size_t writebacks;
	size_t adjacent;	/* write-backs whose line the latest store was in */
	char first[224];
};

static int is_writeback(enum td_kind k)
{
	return k == TD_WB_CLWB || k == TD_WB_CLFLUSHOPT || k == TD_WB_CLFLUSH;
}

static int is_store(enum td_kind k)
{
	return k == TD_STORE || k == TD_STORE_NT || k == TD_STACK;
}

static void sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct seen *s = ctx;

	if (is_writeback(e->kind)) {
		uint64_t line = e->addr & ~(uint64_t)(LINE - 1);

		s->writebacks++;
		if (s->have_store && s->store_line == line && !s->adjacent++)
			snprintf(s->first, sizeof(s->first), "%.160s at %#llx after a store to its line",
				 in->text, (unsigned long long)line);
	} else if (is_store(e->kind) && e->len) {
		/* The line of the store's last byte: the one a write-back after it could hit. */
		s->have_store = 1;
		s->store_line = (e->addr + e->len - 1) & ~(uint64_t)(LINE - 1);
	}
}

static void setup(void)
{
	char why[160] = "";
	int r = tt_start_arena(&tracer, &arena, ARENA, why, sizeof(why));

	if (r == 1)
		cr_skip_test("tracer: %s; the order of the temporal call was not observed", why);
	cr_assert_eq(r, 0, "tracer: %s", why);
}

static void teardown(void)
{
	tt_stop_arena(&tracer, arena, ARENA);
}

/*
 * Every size class of the inline path (1..128) at both ends, across one,
 * two and three lines, and the stepped path past it (129, across a
 * 512-byte step boundary).
 */
Test(temporal, no_writeback_right_after_its_store, .init = setup, .fini = teardown)
{
	static const size_t sizes[] = { 1, 3, 4, 7, 8, 15, 16, 31, 32, 48, 63, 64, 65, 96, 127, 128,
					129, 700 };
	static const size_t doffs[] = { 0, 1, 32, 63 };
	size_t writebacks = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = 0; j < ARRAY_SIZE(doffs); j++) {
			size_t n = sizes[i];
			unsigned char *dst = arena + DST_OFF + 448 + doffs[j], *src = arena + 64 + 5;
			struct seen s;
			char err[256] = "";

			memset(&s, 0, sizeof(s));
			for (size_t k = 0; k < n; k++)
				src[k] = (unsigned char)(k * 13 + n);
			memset(dst, 0, n);
			cr_assert_eq(tt_call(&tracer, (const void *)kflush_memcpy_temporal,
					     (uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, n, sink,
					     &s, err, sizeof(err)), 0, "n=%zu dst+%zu: %s", n, doffs[j], err);
			cr_assert(memcmp(dst, src, n) == 0, "n=%zu dst+%zu: wrong bytes", n, doffs[j]);
			cr_expect_eq(s.adjacent, 0, "n=%zu dst+%zu: %zu of %zu write-backs right after a "
				     "store to their line, first: %s", n, doffs[j], s.adjacent,
				     s.writebacks, s.first);
			cr_expect_gt(s.writebacks, 0, "n=%zu dst+%zu: no write-back seen", n, doffs[j]);
			writebacks += s.writebacks;
		}
	cr_log_info("%zu write-backs checked (%s), %zu instructions stepped", writebacks,
		    kflush_variant_name(KFLUSH_OP_FLUSH, (unsigned int)kflush_variant_bound(KFLUSH_OP_FLUSH)),
		    tracer.steps);
}
