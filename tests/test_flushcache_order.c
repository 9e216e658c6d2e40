// SPDX-License-Identifier: MIT
/*
 * The order of a flush-copy's non-temporal stores, watched instruction by
 * instruction (tests/trace/): every variant of memcpy_flushcache,
 * memmove_flushcache and memset_flushcache the CPU can run writes its
 * destination line by line. Once a store has gone to another line, no
 * later store of the call goes back to one it left. A write-combining
 * buffer leaves when its line is full; lines begun and left half written
 * stand open together and stream slower (an avx2 block stored out of line
 * order ran at 0.76-0.80 of the same loop in order: libkflush(7),
 * lib/x86_64/flush.h). Which way the lines go (up for a copy, down for a
 * move onto a higher overlapping destination) is the variant's own.
 *
 * The destinations are whole aligned lines, so every byte is NT (the
 * edges' rules are test_flushcache_stores.c's), and long enough for
 * several of each variant's blocks and its single lines after them;
 * 512 KiB (64 KiB in the quick plan) for the movdir64b variants,
 * avx512_x2 and avx512_ymm_short_cached (two streams of lines from 8 KiB
 * in avx512_movdir64b, avx512_x2 and avx512_ymm_short_cached,
 * libkflush(7)).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "trace/harness.h"

#define ARENA (1088u << 10)
#define SRC_OFF (544u << 10)
#define LINE 64
#define MAX_LINES ((512u << 10) / LINE)

static struct tt_tracer tracer;
static unsigned char *arena;

struct order {
	uint64_t d0, d1;		/* the destination [d0, d1) */
	long cur;			/* the line the last NT store went to, -1 before */
	unsigned char left[MAX_LINES];	/* lines stored to and then left */
	size_t lines;			/* lines begun */
	unsigned int seq[MAX_LINES];	/* the first MAX_LINES of them, in order */
	size_t reopened;		/* stores into a line left before */
	size_t outside;			/* NT stores not in the destination */
	char first[384];
};

static void note(struct order *o, const struct td_insn *in, uint64_t addr)
{
	if (!o->first[0])
		snprintf(o->first, sizeof(o->first), "%s at dst%+ld", in->text, (long)(addr - o->d0));
}

static void order_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct order *o = ctx;

	if (e->kind != TD_STORE_NT)
		return;
	if (e->addr < o->d0 || e->addr + e->len > o->d1) {
		o->outside++;
		note(o, in, e->addr);
		return;
	}
	for (uint64_t a = e->addr; a < e->addr + e->len; a = (a | (LINE - 1)) + 1) {
		long l = (long)((a - o->d0) / LINE);

		if (l == o->cur)
			continue;
		if (o->cur >= 0)
			o->left[o->cur] = 1;
		if (o->left[l]) {
			o->reopened++;
			note(o, in, a);
		}
		o->cur = l;
		if (o->lines < MAX_LINES)
			o->seq[o->lines] = (unsigned int)l;
		o->lines++;
	}
}

static void setup(void)
{
	tp_arena_start(&tracer, &arena, ARENA, "the stores were not observed");
}

static void teardown(void)
{
	tt_stop_arena(&tracer, arena, ARENA);
}

static void fill_arena(size_t n)
{
	for (size_t i = 0; i < ARENA; i++)
		arena[i] = (unsigned char)(i * 131 + n);
}

/* The order of the last traced call's stores (expect_in_order()). */
static struct order o;

/* One traced call, fn(dst, a1, n), then the order it stored in. */
static void expect_in_order(enum kflush_op op, unsigned int v, unsigned char *dst, uint64_t a1,
			    size_t n, const char *layout)
{
	const char *name = kflush_variant_name(op, v);
	char err[256] = "";

	memset(&o, 0, sizeof(o));
	o.cur = -1;
	o.d0 = (uint64_t)(uintptr_t)dst;
	o.d1 = o.d0 + n;
	cr_assert_eq(tt_call(&tracer, (const void *)kflush_variant_fn(op, v), o.d0, a1, n, order_sink,
			     &o, err, sizeof(err)), 0, "%s %s n=%zu %s: %s", kflush_op_name(op), name, n,
		     layout, err);
	cr_expect_eq(o.reopened, 0, "%s %s n=%zu %s: %zu stores went back to a line left half "
		     "written, first %s", kflush_op_name(op), name, n, layout, o.reopened, o.first);
	cr_expect_eq(o.outside, 0, "%s %s n=%zu %s: %zu NT stores outside the destination, first %s",
		     kflush_op_name(op), name, n, layout, o.outside, o.first);
	cr_expect_eq(o.lines, n / LINE, "%s %s n=%zu %s: NT stores began %zu lines, want %zu",
		     kflush_op_name(op), name, n, layout, o.lines, n / LINE);
}

/*
 * avx512_movdir64b, avx512_x2 and avx512_ymm_short_cached (libkflush(7),
 * Variants): below 8 KiB a block, its lines in order; from there two
 * streams over the halves of h = lines / 2 lines each: avx512_movdir64b
 * one line of each in turn (0, h, 1, h + 1, ...), avx512_x2 batches of 16
 * of each (0..15, h..h + 15, 16..31, ...), avx512_ymm_short_cached
 * batches of 4 (0..3, h..h + 3, 4..7, ...), and then the lines left over
 * one of each in turn; the last line alone when their number is odd.
 * The @i-th line a copy of @n bytes to an aligned destination stores, by
 * that rule, for batches of @batch lines.
 */
static size_t two_streams_line(size_t n, size_t i, size_t batch)
{
	size_t lines = n / LINE, half = lines / 2, batched = half / batch * batch;

	if (n < (8u << 10) || i >= 2 * half)
		return i;
	if (i < 2 * batched) {
		size_t first = i / (2 * batch) * batch, r = i % (2 * batch);

		return r < batch ? first + r : half + first + r - batch;
	}
	i -= 2 * batched;
	return batched + i / 2 + (i % 2 ? half : 0);
}

Test(flushcache_order, two_streams, .init = setup, .fini = teardown)
{
	static const size_t sizes[] = { (8u << 10) - LINE, 8u << 10, (8u << 10) + LINE,
					(8u << 10) + 6 * LINE, (64u << 10) + 3 * LINE };
	static const struct {
		const char *name;
		size_t batch;
	} v[] = { { "avx512_movdir64b", 1 }, { "avx512_x2", 16 },
		  { "avx512_ymm_short_cached", 4 } };
	size_t ran = 0;

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		int idx = kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, v[k].name);

		cr_assert_geq(idx, 0, "no %s variant", v[k].name);
		if (!kflush_variant_fn(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)idx)) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", v[k].name);
			continue;
		}
		ran++;
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z], i = 0;

			fill_arena(n);
			expect_in_order(KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)idx, arena,
					(uint64_t)(uintptr_t)(arena + SRC_OFF), n, "src+0");
			while (i < n / LINE && o.seq[i] == two_streams_line(n, i, v[k].batch))
				i++;
			cr_expect_eq(i, n / LINE, "%s n=%zu: line %zu stored was line %u, want %zu",
				     v[k].name, n, i, o.seq[i < n / LINE ? i : 0],
				     two_streams_line(n, i, v[k].batch));
			cr_expect(memcmp(arena, arena + SRC_OFF, n) == 0, "%s n=%zu: wrong bytes",
				  v[k].name, n);
		}
	}
	if (!ran)
		cr_skip_test("none of avx512_movdir64b, avx512_x2, avx512_ymm_short_cached "
			     "usable here");
}

/* A variant's call stores the destination's lines; @n as the kind of variant needs. */
static size_t long_enough(enum kflush_op op, unsigned int v)
{
	const char *name = kflush_variant_name(op, v);

	/*
	 * Two streams of lines from 8 KiB; below, a block. The quick plan
	 * (the sanitizer and distcheck runs) stops at 64 KiB and 3 lines,
	 * where two_streams above has checked the order line by line: under
	 * ASan every vector load and store is instrumented and single-stepped,
	 * and the two 512 KiB copies of avx512_x2 took 1.5 minutes there,
	 * avx512_ymm_short_cached's 3 (AMD family 0x19 model 0x11). The plain
	 * suite runs them whole (8 s for every variant).
	 */
	if (op == KFLUSH_OP_MEMCPY_FLUSHCACHE &&
	    (strstr(name, "movdir64b") || strcmp(name, "avx512_x2") == 0 ||
	     strcmp(name, "avx512_ymm_short_cached") == 0))
		return tp_quick() ? (64u << 10) + 3 * LINE : 512u << 10;
	/* Several 32-line blocks, then seven single lines. */
	return 4096 + 7 * LINE;
}

static size_t each_usable(enum kflush_op op, void (*run)(enum kflush_op, unsigned int))
{
	size_t ran = 0;

	for (unsigned int v = 0; v < (unsigned int)kflush_variant_count(op); v++) {
		if (!kflush_variant_fn(op, v)) {
			cr_log_info("%s %s: not usable on this CPU (after KFLUSH_HWCAPS)",
				    kflush_op_name(op), kflush_variant_name(op, v));
			continue;
		}
		run(op, v);
		ran++;
	}
	return ran;
}

static void copy_one(enum kflush_op op, unsigned int v)
{
	size_t n = long_enough(op, v);

	/* The source on the same line offset, and 8 bytes off it. */
	for (size_t soff = 0; soff <= 8; soff += 8) {
		fill_arena(n);
		expect_in_order(op, v, arena, (uint64_t)(uintptr_t)(arena + SRC_OFF + soff), n,
				soff ? "src+8" : "src+0");
		cr_expect(memcmp(arena, arena + SRC_OFF + soff, n) == 0, "%s %s: wrong bytes",
			  kflush_op_name(op), kflush_variant_name(op, v));
	}
}

static void move_one(enum kflush_op op, unsigned int v)
{
	static unsigned char want[4096 + 7 * LINE];
	const size_t n = sizeof(want);
	unsigned char *dst = arena + 8192;

	/* Ends overlapping by three quarters, the source above and then below. */
	for (int sign = -1; sign <= 1; sign += 2) {
		const unsigned char *src = dst - sign * (long)(n / 4);

		fill_arena(n);
		memcpy(want, src, n);
		expect_in_order(op, v, dst, (uint64_t)(uintptr_t)src, n,
				sign > 0 ? "src below" : "src above");
		cr_expect(memcmp(dst, want, n) == 0, "%s %s: wrong bytes", kflush_op_name(op),
			  kflush_variant_name(op, v));
	}
}

static void set_one(enum kflush_op op, unsigned int v)
{
	const size_t n = long_enough(op, v);

	fill_arena(n);
	expect_in_order(op, v, arena, 0xa5, n, "fill");
	for (size_t b = 0; b < n; b++)
		cr_assert_eq(arena[b], 0xa5, "%s %s: byte %zu wrong", kflush_op_name(op),
			     kflush_variant_name(op, v), b);
}

Test(flushcache_order, copies_line_by_line, .init = setup, .fini = teardown)
{
	if (!each_usable(KFLUSH_OP_MEMCPY_FLUSHCACHE, copy_one))
		cr_skip_test("no memcpy_flushcache variant usable here");
}

Test(flushcache_order, moves_line_by_line, .init = setup, .fini = teardown)
{
	if (!each_usable(KFLUSH_OP_MEMMOVE_FLUSHCACHE, move_one))
		cr_skip_test("no memmove_flushcache variant usable here");
}

Test(flushcache_order, fills_line_by_line, .init = setup, .fini = teardown)
{
	if (!each_usable(KFLUSH_OP_MEMSET_FLUSHCACHE, set_one))
		cr_skip_test("no memset_flushcache variant usable here");
}
