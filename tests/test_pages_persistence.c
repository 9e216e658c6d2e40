// SPDX-License-Identifier: MIT
/*
 * The persistence proof for kflush_clear_pages_flushcache, by watching the
 * instructions (tests/trace/): each usable variant and the entry point,
 * single-stepped in a child, must zero every byte of the extent with
 * non-temporal stores only (movnti, vmovntdq, clzero), store nothing
 * outside it, write nothing back and not fence.
 *
 * And the page routines that go through the cache (clear_page, clear_pages,
 * copy_page), traced for what test_pages.c's byte checks cannot see.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Each usable variant of clear_page, clear_pages and copy_page, and the
 * three entry points, single-stepped: the call returns with the caller's
 * callee-saved registers (tt_call() checks them; copy_page_mov holds two
 * words of each line in rbx and r12), stores nothing but its destination
 * pages and its stack, and asks for no line outside its pages: copy_page.S
 * stops copy_page_mov's prefetch before the line after the source page,
 * which the caller did not ask for, and a prefetch does not fault, so
 * test_pages.c's PROT_NONE neighbour cannot show it.
 */
#define PG KFLUSH_PAGE_SIZE
/* Arena pages: a neighbour, the source, a neighbour, the destination pages, a neighbour. */
#define SRC_PAGE 1
#define DST_PAGE 3
#define MAX_NPAGES 3
#define ARENA_PAGES (DST_PAGE + MAX_NPAGES + 1)

struct page_seen {
	uint64_t dst_lo, dst_hi, src_lo, src_hi, stack_lo, stack_hi;
	size_t outside, unknown;
	char first[320];
};

static void note(struct page_seen *s, const char *what, const struct td_insn *in,
		 const struct td_effect *e)
{
	if (!s->outside++)
		snprintf(s->first, sizeof(s->first), "%s %#llx (%s)", what,
			 (unsigned long long)e->addr, in->text);
}

static int inside(uint64_t lo, uint64_t hi, const struct td_effect *e, uint64_t len)
{
	return e->addr >= lo && e->addr + len <= hi;
}

static void page_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct page_seen *s = ctx;

	if (e->kind == TD_UNKNOWN)
		s->unknown++;
	else if ((e->kind == TD_STORE || e->kind == TD_STORE_NT || e->kind == TD_STACK) &&
		 !inside(s->dst_lo, s->dst_hi, e, e->len) &&
		 !inside(s->stack_lo, s->stack_hi, e, e->len))
		note(s, "a store to", in, e);
	else if (e->kind == TD_PREFETCH && !inside(s->src_lo, s->src_hi, e, 1) &&
		 !inside(s->dst_lo, s->dst_hi, e, 1))
		note(s, "a prefetch of", in, e);
}

static struct tt_tracer page_tracer;
static unsigned char *page_arena;

static void pages_trace_setup(void)
{
	tp_arena_start(&page_tracer, &page_arena, ARENA_PAGES * PG,
		       "the page routines' registers, stores and prefetches went unchecked");
}

static void pages_trace_teardown(void)
{
	tt_stop_arena(&page_tracer, page_arena, ARENA_PAGES * PG);
}

/* One traced call of @fn (op @op) over @npages destination pages. */
static void trace_page_call(enum kflush_op op, const char *name, const void *fn, size_t npages)
{
	unsigned char *src = page_arena + SRC_PAGE * PG, *dst = page_arena + DST_PAGE * PG;
	unsigned char *want = malloc(ARENA_PAGES * PG);
	struct page_seen s = { 0 };
	char err[256] = "";
	int r;

	cr_assert_not_null(want);
	tu_fill(page_arena, ARENA_PAGES * PG, (uint32_t)(op * 16 + npages + 1));
	memcpy(want, page_arena, ARENA_PAGES * PG);
	if (op == KFLUSH_OP_COPY_PAGE)
		memcpy(want + DST_PAGE * PG, src, PG);
	else
		memset(want + DST_PAGE * PG, 0, npages * PG);
	s.src_lo = (uint64_t)(uintptr_t)src;
	s.src_hi = s.src_lo + PG;
	s.dst_lo = (uint64_t)(uintptr_t)dst;
	s.dst_hi = s.dst_lo + npages * PG;
	tt_stack(&page_tracer, &s.stack_lo, &s.stack_hi);
	r = tt_call(&page_tracer, fn, (uint64_t)(uintptr_t)dst,
		    op == KFLUSH_OP_COPY_PAGE ? (uint64_t)(uintptr_t)src : npages, 0, page_sink, &s,
		    err, sizeof(err));
	cr_assert_eq(r, 0, "%s %s (%zu pages): %s", kflush_op_name(op), name, npages, err);
	cr_assert_eq(s.unknown, 0, "%s %s: %zu instructions the tracer cannot classify",
		     kflush_op_name(op), name, s.unknown);
	cr_assert_eq(s.outside, 0, "%s %s (%zu pages): %zu accesses outside its pages, first %s",
		     kflush_op_name(op), name, npages, s.outside, s.first);
	cr_assert(memcmp(page_arena, want, ARENA_PAGES * PG) == 0,
		  "%s %s (%zu pages): wrong bytes in or around its pages", kflush_op_name(op), name,
		  npages);
	free(want);
}

static void trace_op(enum kflush_op op, const char *name, const void *fn)
{
	if (op != KFLUSH_OP_CLEAR_PAGES) {
		trace_page_call(op, name, fn, 1);
		return;
	}
	for (size_t npages = 0; npages <= MAX_NPAGES; npages++)
		trace_page_call(op, name, fn, npages);
}

ParameterizedTestParameters(page_routines, traced)
{
	static const enum kflush_op ops[] = { KFLUSH_OP_CLEAR_PAGE, KFLUSH_OP_CLEAR_PAGES,
					      KFLUSH_OP_COPY_PAGE };
	static struct tu_variant v[3 * MAX_VARIANTS];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		n += tu_usable_variants(ops[i], v + n, MAX_VARIANTS);
	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, page_routines, traced, .init = pages_trace_setup,
		  .fini = pages_trace_teardown)
{
	kflush_fn fn = kflush_variant_fn((enum kflush_op)v->op, (unsigned int)v->idx);

	cr_assert_not_null(fn);
	trace_op((enum kflush_op)v->op, v->name, (const void *)fn);
}

Test(page_routines, entry_points, .init = pages_trace_setup, .fini = pages_trace_teardown)
{
	trace_op(KFLUSH_OP_CLEAR_PAGE, "kflush_clear_page", (const void *)kflush_clear_page);
	trace_op(KFLUSH_OP_CLEAR_PAGES, "kflush_clear_pages", (const void *)kflush_clear_pages);
	trace_op(KFLUSH_OP_COPY_PAGE, "kflush_copy_page", (const void *)kflush_copy_page);
}
