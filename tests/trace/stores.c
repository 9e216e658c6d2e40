// SPDX-License-Identifier: MIT
/* The store-shape tests' arena, sink and variant lookup (stores.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "stores.h"

struct tt_tracer ts_tracer;
unsigned char *ts_arena;

void ts_setup(void)
{
	tp_arena_start(&ts_tracer, &ts_arena, TS_ARENA, "the stores were not observed");
}

void ts_teardown(void)
{
	tt_stop_arena(&ts_tracer, ts_arena, TS_ARENA);
}

void ts_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct ts_seen *s = ctx;

	if (e->kind == TD_NONE || e->kind == TD_PREFETCH)
		return;
	if (e->kind == TD_STORE_NT && e->len <= 64) {
		s->nt[e->len]++;
		s->movdir64b += strncmp(in->text, "movdir64b", 9) == 0;
		return;
	}
	if (!s->other++)
		snprintf(s->first_other, sizeof(s->first_other), "%s (%s)", in->text,
			 td_kind_name(e->kind));
}

size_t ts_nt_stores(const struct ts_seen *s)
{
	size_t nt = 0;

	for (size_t w = 0; w <= 64; w++)
		nt += s->nt[w];
	return nt;
}

kflush_fn ts_variant(enum kflush_op op, const char *name)
{
	int idx = kflush_variant_find(op, name);

	cr_assert_geq(idx, 0, "no %s variant %s", kflush_op_name(op), name);
	return kflush_variant_fn(op, (unsigned int)idx);
}

int ts_short_cached(const char *variant)
{
	return strstr(variant, "_short_cached") != NULL;
}
