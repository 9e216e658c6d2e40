// SPDX-License-Identifier: MIT
/*
 * Which stores a vector memcpy_flushcache variant's call runs for a
 * struct page, watched instruction by instruction (tests/trace/): the
 * shapes lib/x86_64/flushcache.h chose by measurement (libkflush(7),
 * NOTES), stated here, not read from the library:
 *   - 64 bytes to a 64-byte aligned destination: the variant's own line
 *     store, four 16-byte movntdq in every vector variant (the header's
 *     constant-size path) and nothing else, not even a stack store: no
 *     frame;
 *   - 80 and 96 bytes to a 16-byte aligned destination: five or six
 *     16-byte NT stores and nothing else;
 *   - the same sizes 8 bytes off that alignment: 8-byte movnti.
 * (Under AddressSanitizer only the NT stores are checked: its frames and
 * stack redzones are ordinary stores.)
 * Below 1024 bytes the cached edge lines of a copy are prefetched before
 * its first store, and a copy or fill with a sub-word edge and no whole
 * line stores nothing NT; from 1024 bytes every byte of a copy or a fill
 * is NT. The "_short_cached" variants have no cached edge lines: a call
 * with a sub-word edge stores nothing NT below 768 bytes (a copy) or 384
 * (a fill), and from there every byte NT. avx512_x2's copies with a
 * sub-word edge store nothing NT below 256 bytes.
 * avx512_movdir64b's, avx512_x2's and avx512_ymm_short_cached's copies
 * of 1..64 bytes with a sub-word edge, and avx512_short_cached's fills of
 * 1..128, are one masked 64-byte store (a fill above 64 bytes: one whole
 * 64-byte store, then one masked) where those bytes stay in the
 * destination's page,
 * touching no vector register that needs vzeroupper (libkflush(7),
 * Variants).
 * test_flushcache.c checks the bytes and test_persistence.c the lines;
 * this catches a path that is correct but not the one measured (a
 * condition that can never be true still copies right, through movnti).
 * test_memmove_stores.c does the same for the moves.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "trace/harness.h"
#include "trace/stores.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * One traced call into the page-aligned ts_arena, from @soff into the
 * source's page-aligned half; checks the bytes.
 */
static void traced_from(const char *name, kflush_memcpy_flushcache_fn fn, size_t doff,
			size_t soff, size_t n, tt_sink fsink, void *ctx)
{
	unsigned char *dst = ts_arena + doff, *src = ts_arena + TS_SRC_OFF + soff;
	char err[256] = "";

	for (size_t i = 0; i < TS_ARENA; i++)
		ts_arena[i] = (unsigned char)(i * 131 + n);
	cr_assert_eq(tt_call(&ts_tracer, (const void *)fn, (uint64_t)(uintptr_t)dst,
			     (uint64_t)(uintptr_t)src, n, fsink, ctx, err, sizeof(err)), 0,
		     "%s n=%zu dst+%zu: %s", name, n, doff, err);
	cr_assert(memcmp(dst, src, n) == 0, "%s n=%zu dst+%zu: wrong bytes", name, n, doff);
}

/* The source 8 bytes into its page: never near its end. */
static void traced_with(const char *name, kflush_memcpy_flushcache_fn fn, size_t doff, size_t n,
			tt_sink fsink, void *ctx)
{
	traced_from(name, fn, doff, 8, n, fsink, ctx);
}

static struct ts_seen traced(const char *name, kflush_memcpy_flushcache_fn fn, size_t doff,
			     size_t n)
{
	struct ts_seen s;

	memset(&s, 0, sizeof(s));
	traced_with(name, fn, doff, n, ts_sink, &s);
	return s;
}

static void expect_only(const char *name, const struct ts_seen *s, size_t n, size_t doff,
			size_t width)
{
	size_t nt = ts_nt_stores(s);

	cr_expect_eq(s->nt[width], n / width, "%s n=%zu dst+%zu: %zu NT stores of %zu B, want %zu",
		     name, n, doff, s->nt[width], width, n / width);
	cr_expect_eq(nt, s->nt[width], "%s n=%zu dst+%zu: NT stores of other widths", name, n, doff);
#ifndef __SANITIZE_ADDRESS__
	cr_expect_eq(s->other, 0, "%s n=%zu dst+%zu: %zu other stores, first %s", name, n, doff,
		     s->other, s->first_other);
#else
	(void)s->other;	/* ASan gives every function a frame and redzones */
#endif
}

Test(flushcache_stores, vector_struct_pages, .init = ts_setup, .fini = ts_teardown)
{
	static const struct {
		const char *name;
		size_t line_width;
	} vec[] = { { "avx2", 16 }, { "avx512", 16 }, { "avx512_movdir64b", 16 },
		    { "avx512_x2", 16 }, { "avx512_ymm_short_cached", 16 } };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(vec) / sizeof(vec[0]); v++) {
		kflush_memcpy_flushcache_fn fn =
			(kflush_memcpy_flushcache_fn)ts_variant(KFLUSH_OP_MEMCPY_FLUSHCACHE, vec[v].name);
		struct ts_seen s;

		if (!fn) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", vec[v].name);
			continue;
		}
		ran++;
		s = traced(vec[v].name, fn, 64, 64);
		expect_only(vec[v].name, &s, 64, 64, vec[v].line_width);
		for (size_t n = 80; n <= 96; n += 16) {
			for (size_t doff = 16; doff <= 64; doff += 16) {
				s = traced(vec[v].name, fn, doff, n);
				expect_only(vec[v].name, &s, n, doff, 16);
			}
			s = traced(vec[v].name, fn, 8, n);
			cr_expect_eq(s.nt[8], n / 8, "%s n=%zu dst+8: %zu movnti, want %zu",
				     vec[v].name, n, s.nt[8], n / 8);
		}
	}
	if (!ran)
		cr_skip_test("no vector flush-copy variant usable here");
	cr_log_info("%zu instructions stepped", ts_tracer.steps);
}

/*
 * avx512_movdir64b and avx512_x2 (libkflush(7), Variants): an aligned
 * line is two 32-byte vmovntdq below 768 bytes (avx512_x2: 2048), one
 * 64-byte store from there; from 8 KiB a movdir64b in avx512_movdir64b, a 64-byte vmovntdq
 * in avx512_x2 (both in two streams: test_flushcache_order.c);
 * avx512_ymm_short_cached's are two 32-byte vmovntdq at every length (in two
 * streams from 8 KiB too). The lone
 * 64-byte line is four movntdq (vector_struct_pages). Line-aligned copies
 * on both sides of each size, so every store is part of a line.
 */
Test(flushcache_stores, avx512_stream_lines, .init = ts_setup, .fini = ts_teardown)
{
	static const size_t sizes[] = { 128, 192, 256, 704, 768, 1024, 1984, 2048,
					(8u << 10) - 64, 8u << 10, (8u << 10) + 64,
					(16u << 10) + 3 * 64 };
	static const struct {
		const char *name;
		int movdir64b;	/* its lines from 8 KiB are movdir64b */
		size_t ymm_below;	/* two 32-byte stores a line below this */
	} vs[] = { { "avx512_movdir64b", 1, 768 }, { "avx512_x2", 0, 2048 },
		   { "avx512_ymm_short_cached", 0, SIZE_MAX } };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++) {
		const char *name = vs[v].name;
		kflush_memcpy_flushcache_fn fn = (kflush_memcpy_flushcache_fn)
			ts_variant(KFLUSH_OP_MEMCPY_FLUSHCACHE, name);

		if (!fn) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", name);
			continue;
		}
		ran++;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i], width = n < vs[v].ymm_below ? 32 : 64;
			size_t want_md = n >= (8u << 10) && vs[v].movdir64b ? n / 64 : 0;
			struct ts_seen s = traced(name, fn, 0, n);
			size_t nt = ts_nt_stores(&s);

			/* The bulk path has a frame: stack stores are allowed here. */
			cr_expect_eq(s.nt[width], n / width, "%s n=%zu: %zu NT stores of %zu B, "
				     "want %zu", name, n, s.nt[width], width, n / width);
			cr_expect_eq(nt, s.nt[width], "%s n=%zu: NT stores of other widths", name, n);
			cr_expect_eq(s.movdir64b, want_md, "%s n=%zu: %zu of its %zu line stores "
				     "were movdir64b, documented %zu", name, n, s.movdir64b, s.nt[64],
				     want_md);
		}
	}
	if (!ran)
		cr_skip_test("none of avx512_movdir64b, avx512_x2, avx512_ymm_short_cached "
			     "usable here");
	cr_log_info("%zu instructions stepped", ts_tracer.steps);
}

/* Which destination bytes a copy stored non-temporally, and its other stores there. */
struct cover {
	uint64_t d0, d1;	/* the destination [d0, d1) */
	unsigned char nt[8192];	/* per byte: stored by an NT store */
	size_t cached;		/* ordinary stores into the destination */
	char first_cached[256];
};

/*
 * Whether @e writes the byte at @p: a masked AVX-512 store (glibc's
 * memset and memcpy use them for short sizes) writes only its mask's.
 */
static int writes(const struct td_effect *e, uint64_t p)
{
	return p >= e->addr && p < e->addr + e->len &&
	       (!e->masked || (e->bytemask >> (p - e->addr) & 1));
}

/* Whether @e is a store that writes a byte of [d0, d1). */
static int writes_in(const struct td_effect *e, uint64_t d0, uint64_t d1)
{
	if (e->kind != TD_STORE && e->kind != TD_STORE_NT)
		return 0;
	for (uint64_t p = e->addr > d0 ? e->addr : d0; p < e->addr + e->len && p < d1; p++)
		if (writes(e, p))
			return 1;
	return 0;
}

static void cover_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct cover *c = ctx;
	uint64_t a = e->addr, z = e->addr + e->len;

	if (!writes_in(e, c->d0, c->d1))
		return;
	if (e->kind == TD_STORE) {
		if (!c->cached++)
			snprintf(c->first_cached, sizeof(c->first_cached), "%s at dst%+ld", in->text,
				 (long)(a - c->d0));
		return;
	}
	for (uint64_t p = a < c->d0 ? c->d0 : a; p < z && p < c->d1; p++)
		if (writes(e, p))
			c->nt[p - c->d0] = 1;
}

/*
 * kflush_memcpy_flushcache(3) below 1024 bytes: a copy with a sub-word
 * edge (a destination or an end not 4-byte aligned)
 * that holds no whole aligned line goes all through the cache; in the
 * "_short_cached" variants (libkflush(7), Variants) every such copy below
 * 768 bytes (TS_SHORT_CACHED_BELOW) does, and every such fill below 384
 * bytes.
 *
 * From how many bytes a call of @variant stores every destination byte
 * NT, whatever its alignment: 1024, and in a "_short_cached" variant
 * where its all-cached calls end (kflush_memcpy_flushcache(3),
 * kflush_memset_flushcache(3)).
 */
static size_t all_nt_from(const char *variant, enum kflush_op op)
{
	if (!ts_short_cached(variant))
		return 1024;
	return op == KFLUSH_OP_MEMSET_FLUSHCACHE ? 384 : TS_SHORT_CACHED_BELOW;
}

/*
 * avx512_x2's copies with a sub-word edge go all through the cache below
 * 256 bytes, whole lines or not (libkflush(7), Variants).
 */
static int short_all_cached(const char *variant, enum kflush_op op, size_t n)
{
	return op == KFLUSH_OP_MEMCPY_FLUSHCACHE && strcmp(variant, "avx512_x2") == 0 && n < 256;
}

static int all_cached(const char *variant, enum kflush_op op, size_t doff, size_t n)
{
	size_t to_line = (64 - doff % 64) % 64;

	return (doff % 4 || (doff + n) % 4) && n < all_nt_from(variant, op) &&
	       (n < to_line + 64 || ts_short_cached(variant) || short_all_cached(variant, op, n));
}

/*
 * One traced call of @op's @fn (a copy from the ts_arena's source, or a fill
 * of 0xa5) to ts_arena+@doff; checks the bytes.
 */
static void traced_op_from(enum kflush_op op, const char *name, kflush_fn fn, size_t doff,
			   size_t soff, size_t n, tt_sink fsink, void *ctx)
{
	char err[256] = "";

	if (op == KFLUSH_OP_MEMCPY_FLUSHCACHE) {
		traced_from(name, (kflush_memcpy_flushcache_fn)fn, doff, soff, n, fsink, ctx);
		return;
	}
	memset(ts_arena, 0, doff + n + 64);
	cr_assert_eq(tt_call(&ts_tracer, (const void *)fn, (uint64_t)(uintptr_t)(ts_arena + doff), 0xa5, n,
			     fsink, ctx, err, sizeof(err)), 0, "%s n=%zu dst+%zu: %s", name, n, doff,
		     err);
	for (size_t b = 0; b < n; b++)
		cr_assert_eq(ts_arena[doff + b], 0xa5, "%s n=%zu dst+%zu: byte %zu wrong", name, n, doff,
			     b);
}

static void traced_op(enum kflush_op op, const char *name, kflush_fn fn, size_t doff, size_t n,
		      tt_sink fsink, void *ctx)
{
	traced_op_from(op, name, fn, doff, 8, n, fsink, ctx);
}

/*
 * The rule of kflush_memcpy_flushcache(3) and kflush_memset_flushcache(3):
 * from all_nt_from() bytes a call stores every destination byte
 * non-temporally, whatever its alignment (its unaligned edges too); one
 * byte fewer, a destination one byte into a line has its first line's
 * bytes stored through the cache.
 */
static void expect_all_nt_from(enum kflush_op op, const char *const *names, size_t nnames)
{
	static const size_t doffs[] = { 0, 1, 3, 8, 13, 63 };
	static struct cover c;
	size_t ran = 0;

	for (size_t v = 0; v < nnames; v++) {
		kflush_fn fn = ts_variant(op, names[v]);
		size_t from = all_nt_from(names[v], op);
		const size_t sizes[] = { from, from + 3, from + 5, 1500, 4099 };

		if (!fn)
			continue;
		ran++;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t o = 0; o < sizeof(doffs) / sizeof(doffs[0]); o++) {
				size_t n = sizes[i], doff = doffs[o], missed = 0, first = 0;

				memset(&c, 0, sizeof(c));
				c.d0 = (uint64_t)(uintptr_t)(ts_arena + doff);
				c.d1 = c.d0 + n;
				traced_op(op, names[v], fn, doff, n, cover_sink, &c);
				for (size_t b = n; b-- > 0;)
					if (!c.nt[b]) {
						missed++;
						first = b;
					}
				cr_expect_eq(c.cached, 0, "%s %s n=%zu dst+%zu: %zu cached stores into "
					     "the destination, first %s", kflush_op_name(op), names[v], n,
					     doff, c.cached, c.first_cached);
				cr_expect_eq(missed, 0, "%s %s n=%zu dst+%zu: %zu bytes not stored NT, "
					     "first dst+%zu", kflush_op_name(op), names[v], n, doff, missed,
					     first);
			}
		memset(&c, 0, sizeof(c));
		c.d0 = (uint64_t)(uintptr_t)(ts_arena + 1);
		c.d1 = c.d0 + from - 1;
		traced_op(op, names[v], fn, 1, from - 1, cover_sink, &c);
		cr_expect_gt(c.cached, 0, "%s %s n=%zu dst+1: no cached store (its edge line, one "
			     "byte below %zu)", kflush_op_name(op), names[v], from - 1, from);
	}
	if (!ran)
		cr_skip_test("no %s variant of these usable here", kflush_op_name(op));
}

Test(flushcache_stores, long_copies_all_nt, .init = ts_setup, .fini = ts_teardown)
{
	static const char *const names[] = { "avx512", "avx512_movdir64b", "avx512_x2",
					     "avx512_ymm_short_cached", "avx2", "avx2_short_cached",
					     "movdir64b", "movnti" };

	expect_all_nt_from(KFLUSH_OP_MEMCPY_FLUSHCACHE, names, sizeof(names) / sizeof(names[0]));
}

Test(flushcache_stores, long_sets_all_nt, .init = ts_setup, .fini = ts_teardown)
{
	static const char *const names[] = { "avx512", "avx512_short_cached", "avx2",
					     "avx2_short_cached", "movnti" };

	expect_all_nt_from(KFLUSH_OP_MEMSET_FLUSHCACHE, names, sizeof(names) / sizeof(names[0]));
}

/*
 * kflush_memset_flushcache(3): an 8-byte aligned fill of a multiple of 4
 * from 48 bytes (below FLUSHCACHE_BULK_MIN, 256), in the vector variants,
 * is 16-byte movntdq from the first 16-byte boundary, with a movnti word
 * at either end where needed; below 48 bytes, 8-byte words and a 4-byte
 * one. A 4-byte aligned one is movnti words in every variant: a 4-byte
 * one first, then 8-byte ones and a 4-byte one where needed (made in a
 * driver with a stack frame, so only the destination's stores are
 * counted for it). Counted here from the rule, per width.
 */
Test(flushcache_stores, edge_free_fills_in_16_byte_pieces, .init = ts_setup, .fini = ts_teardown)
{
	static const char *const names[] = { "avx512", "avx512_short_cached", "avx2",
					     "avx2_short_cached" };
	static const size_t sizes[] = { 12, 40, 44, 48, 52, 56, 64, 100, 128, 200, 252 };
	static const size_t doffs[] = { 0, 8, 16, 24, 40, 56, 4, 12, 20, 60 };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
		kflush_fn fn = ts_variant(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v]);

		if (!fn)
			continue;
		ran++;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t o = 0; o < sizeof(doffs) / sizeof(doffs[0]); o++) {
				size_t n = sizes[i], doff = doffs[o], want[17] = { 0 }, nt;
				struct ts_seen s;

				if (doff % 8) {
					want[4] = 1 + (n - 4) % 8 / 4;
					want[8] = (n - 4) / 8;
				} else if (n < 48) {
					want[8] = n / 8;
					want[4] = n % 8 / 4;
				} else {
					size_t head = (16 - doff % 16) % 16, body = n - head;

					want[8] = (head != 0) + (body % 16 >= 8);
					want[16] = body / 16;
					want[4] = body % 8 / 4;
				}
				memset(&s, 0, sizeof(s));
				traced_op(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v], fn, doff, n, ts_sink, &s);
				nt = ts_nt_stores(&s);
				for (size_t w = 4; w <= 16; w *= 2)
					cr_expect_eq(s.nt[w], want[w], "memset %s n=%zu dst+%zu: %zu NT "
						     "stores of %zu B, want %zu", names[v], n, doff,
						     s.nt[w], w, want[w]);
				cr_expect_eq(nt, want[4] + want[8] + want[16], "memset %s n=%zu dst+%zu: "
					     "NT stores of other widths", names[v], n, doff);
#ifndef __SANITIZE_ADDRESS__
				if (doff % 8 == 0)
					cr_expect_eq(s.other, 0, "memset %s n=%zu dst+%zu: %zu other "
						     "stores, first %s", names[v], n, doff, s.other,
						     s.first_other);
#endif
			}
	}
	if (!ran)
		cr_skip_test("no vector flush-fill variant usable here");
}

/*
 * Prefetches the flush-copy runs before the first store into the
 * destination; not those of the kflush_memcpy variant a temporal copy
 * calls, which asks for lines of its own on some CPUs (libkflush(7),
 * tuned_prefetchw): from its entry to its return, which is its only one.
 */
#define MAX_ASKED 4

struct asked {
	uint64_t d0, d1;
	int stored;
	size_t prefetches;
	uint64_t line[MAX_ASKED];	/* the lines the first prefetches named */
	uint64_t memcpy_entry;
	int in_memcpy;
};

static void asked_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct asked *a = ctx;

	if (in->rip == a->memcpy_entry)
		a->in_memcpy = 1;
	if (writes_in(e, a->d0, a->d1))
		a->stored = 1;
	else if (!a->stored && !a->in_memcpy && e->kind == TD_PREFETCH &&
		 a->prefetches++ < MAX_ASKED)
		a->line[a->prefetches - 1] = e->addr & ~63ULL;
	if (a->in_memcpy && !strncmp(in->text, "ret", 3))
		a->in_memcpy = 0;
}

/*
 * flushcache_lines() below all_nt_from() (lib/x86_64/flushcache.h says why):
 * each edge line the copy writes through the cache, and no other line, is
 * prefetched before the copy's first store, and a copy without cached
 * edges, or with nothing but (the temporal copy's), prefetches nothing.
 */
Test(flushcache_stores, cached_edges_prefetched, .init = ts_setup, .fini = ts_teardown)
{
	static const struct {
		size_t n, doff;
	} cases[] = { { 100, 1 }, { 300, 3 }, { 1000, 13 }, { 301, 8 }, { 263, 1 }, { 1000, 0 },
		      { 1023, 0 }, { 40, 9 }, { 127, 1 }, { 126, 1 }, { 71, 0 }, { 767, 5 },
		      { 768, 5 }, { 767, 8 }, { 770, 8 } };
	static const char *const names[] = { "avx512", "avx512_x2", "avx512_ymm_short_cached",
					     "avx2", "avx2_short_cached", "movnti" };
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
		kflush_memcpy_flushcache_fn fn =
			(kflush_memcpy_flushcache_fn)ts_variant(KFLUSH_OP_MEMCPY_FLUSHCACHE, names[v]);

		if (!fn)
			continue;
		ran++;
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			/*
			 * kflush_memcpy_flushcache(3): a destination not 4-byte
			 * aligned has its first line's part cached; so has its last
			 * line's when the rest leaves 1..3 bytes after the last
			 * 4-byte store (unless the first line's part is all of it).
			 */
			size_t n = cases[i].n, doff = cases[i].doff;
			size_t head = doff % 4 ? 64 - doff % 64 : 0;
			int edges = !all_cached(names[v], KFLUSH_OP_MEMCPY_FLUSHCACHE, doff, n) &&
				    n < all_nt_from(names[v], KFLUSH_OP_MEMCPY_FLUSHCACHE);
			int first = edges && head > 0, last = edges && (n - head) % 4 != 0;
			size_t want = (size_t)first + (size_t)last;
			struct asked a = { 0 };
			uint64_t first_line, last_line;

			a.memcpy_entry = (uint64_t)(uintptr_t)kflush_variant_fn(
				KFLUSH_OP_MEMCPY, (unsigned int)kflush_variant_bound(KFLUSH_OP_MEMCPY));
			a.d0 = (uint64_t)(uintptr_t)(ts_arena + cases[i].doff);
			a.d1 = a.d0 + cases[i].n;
			traced_with(names[v], fn, cases[i].doff, cases[i].n, asked_sink, &a);
			cr_expect_eq(a.prefetches, want, "%s n=%zu dst+%zu: %zu prefetches before the "
				     "first store, want %zu (its cached edge lines)", names[v], n, doff,
				     a.prefetches, want);
			first_line = a.d0 & ~63ULL;
			last_line = (a.d1 - 1) & ~63ULL;
			for (size_t k = 0; k < a.prefetches && k < MAX_ASKED; k++)
				cr_expect((first && a.line[k] == first_line) ||
					  (last && a.line[k] == last_line),
					  "%s n=%zu dst+%zu: prefetch of the line at dst%+lld, not a "
					  "cached edge line", names[v], n, doff,
					  (long long)(a.line[k] - a.d0));
			for (size_t k = 0; k < 2; k++) {
				uint64_t l = k ? last_line : first_line;
				int asked = 0;

				if (!(k ? last : first))
					continue;
				for (size_t j = 0; j < a.prefetches && j < MAX_ASKED; j++)
					asked |= a.line[j] == l;
				cr_expect(asked, "%s n=%zu dst+%zu: its %s line, cached, not prefetched",
					  names[v], n, doff, k ? "last" : "first");
			}
		}
	}
	if (!ran)
		cr_skip_test("no memcpy_flushcache variant of these usable here");
}

/* Per destination byte of a short call: stored NT, stored through the cache. */
struct bylines {
	uint64_t d0, d1;
	unsigned char nt[1024], cached[1024];
};

static void bylines_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct bylines *b = ctx;
	uint64_t a = e->addr, z = e->addr + e->len;

	(void)in;
	if (!writes_in(e, b->d0, b->d1))
		return;
	for (uint64_t p = a < b->d0 ? b->d0 : a; p < z && p < b->d1; p++)
		if (writes(e, p))
			(e->kind == TD_STORE_NT ? b->nt : b->cached)[p - b->d0] = 1;
}

/*
 * The rule of kflush_memcpy_flushcache(3) and kflush_memset_flushcache(3)
 * for short calls, line by line of the destination: a 4-aligned call
 * whose end is 4-aligned stores every byte NT and none through the cache
 * (struct pages, packed), and so does any call from all_nt_from() bytes;
 * one with a sub-word edge and no whole line stores nothing NT, and so
 * does any with a sub-word edge below all_nt_from() in a "_short_cached"
 * variant; any other with a sub-word edge stores each whole line NT only,
 * and each partial line one way only.
 */
static void expect_by_line(const char *what, const char *variant, enum kflush_op op,
			   const struct bylines *b, size_t doff, size_t n)
{
	int regular = (doff % 4 == 0 && (doff + n) % 4 == 0) || n >= all_nt_from(variant, op);

	for (size_t l0 = 0; l0 < n; l0 = (doff + l0) / 64 * 64 + 64 - doff) {
		size_t l1 = (doff + l0) / 64 * 64 + 64 - doff, nt = 0, cached = 0;
		int whole = (doff + l0) % 64 == 0 && l1 <= n;

		if (l1 > n)
			l1 = n;
		for (size_t i = l0; i < l1; i++) {
			nt += b->nt[i];
			cached += b->cached[i];
		}
		if (regular)
			cr_expect(nt == l1 - l0 && !cached, "%s n=%zu dst+%zu, bytes %zu..%zu: %zu NT, "
				  "%zu cached, want all NT", what, n, doff, l0, l1, nt, cached);
		else if (all_cached(variant, op, doff, n))
			cr_expect(!nt, "%s n=%zu dst+%zu, bytes %zu..%zu: %zu NT, want none (all "
				  "cached)", what, n, doff, l0, l1, nt);
		else if (whole)
			cr_expect(nt == 64 && !cached, "%s n=%zu dst+%zu, whole line at %zu: %zu NT, "
				  "%zu cached", what, n, doff, l0, nt, cached);
		else
			cr_expect(!nt || !cached, "%s n=%zu dst+%zu, bytes %zu..%zu: %zu NT and %zu "
				  "cached in one line", what, n, doff, l0, l1, nt, cached);
	}
}

Test(flushcache_stores, short_calls_by_line, .init = ts_setup, .fini = ts_teardown)
{
	/* Each name is a variant of the flush-copy, the flush-fill or both. */
	static const char *const names[] = { "avx512", "avx512_movdir64b", "avx512_x2",
					     "avx512_ymm_short_cached", "avx512_short_cached",
					     "avx2", "avx2_short_cached", "movdir64b", "movnti" };
	static const size_t sizes[] = { 1, 3, 4, 8, 12, 40, 63, 64, 65, 100, 126, 127, 128, 200,
					 255, 300, 383, 384, 700, 767, 768, 1000 };
	static const size_t doffs[] = { 0, 1, 3, 4, 8, 13, 56, 60, 63 };
	static struct bylines b;
	/* KFLUSH_TEST_QUICK: a third of the pairs, every size and offset still met. */
	const size_t every = tp_quick() ? 3 : 1;
	size_t ran = 0;

	for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
		kflush_fn cp = kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, names[v]) < 0 ? NULL :
			ts_variant(KFLUSH_OP_MEMCPY_FLUSHCACHE, names[v]);
		kflush_fn set = kflush_variant_find(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v]) < 0 ? NULL :
			ts_variant(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v]);

		cr_assert(kflush_variant_find(KFLUSH_OP_MEMCPY_FLUSHCACHE, names[v]) >= 0 ||
			  kflush_variant_find(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v]) >= 0,
			  "no flush-copy or flush-fill variant %s", names[v]);
		if (!cp && !set)
			continue;
		ran++;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t o = 0; o < sizeof(doffs) / sizeof(doffs[0]); o++) {
				size_t n = sizes[i], doff = doffs[o];
				char what[64];

				if ((i + o) % every)
					continue;
				if (cp) {
					memset(&b, 0, sizeof(b));
					b.d0 = (uint64_t)(uintptr_t)(ts_arena + doff);
					b.d1 = b.d0 + n;
					traced_with(names[v], (kflush_memcpy_flushcache_fn)cp, doff, n,
						    bylines_sink, &b);
					snprintf(what, sizeof(what), "memcpy %s", names[v]);
					expect_by_line(what, names[v], KFLUSH_OP_MEMCPY_FLUSHCACHE, &b,
						       doff, n);
				}
				if (!set)
					continue;
				memset(&b, 0, sizeof(b));
				b.d0 = (uint64_t)(uintptr_t)(ts_arena + doff);
				b.d1 = b.d0 + n;
				traced_op(KFLUSH_OP_MEMSET_FLUSHCACHE, names[v], set, doff, n, bylines_sink,
					  &b);
				snprintf(what, sizeof(what), "memset %s", names[v]);
				expect_by_line(what, names[v], KFLUSH_OP_MEMSET_FLUSHCACHE, &b, doff, n);
			}
	}
	if (!ran)
		cr_skip_test("no flush-copy or flush-fill variant of these usable here");
}

/* The stores of a call into [d0, d1), and whether it touched ymm0-15/zmm0-15 after vzeroupper. */
struct masked {
	uint64_t d0, d1;
	size_t stores, masked, whole, other, steps, last_low_vec, last_vzeroupper;
	uint64_t mask_at, mask;
	char first_other[128];
};

/* Whether @text names ymm0..15 or zmm0..15 (the registers whose upper halves SSE code pays for). */
static int low_vector_reg(const char *text)
{
	for (const char *p = text; (p = strstr(p, "mm")) != NULL; p += 2)
		if (p > text && (p[-1] == 'y' || p[-1] == 'z') && p[2] >= '0' && p[2] <= '9' &&
		    (p[3] < '0' || p[3] > '9' || (p[2] == '1' && p[3] <= '5')))
			return 1;
	return 0;
}

static void masked_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct masked *m = ctx;

	m->steps++;
	if (low_vector_reg(in->text))
		m->last_low_vec = m->steps;
	if (strncmp(in->text, "vzeroupper", 10) == 0)
		m->last_vzeroupper = m->steps;
	if (!writes_in(e, m->d0, m->d1))
		return;
	m->stores++;
	if (e->kind == TD_STORE && e->masked) {
		m->masked++;
		m->mask_at = e->addr;
		m->mask = e->bytemask;
	} else if (e->kind == TD_STORE && e->len == 64 && e->addr == m->d0) {
		m->whole++;
	} else if (!m->other++) {
		snprintf(m->first_other, sizeof(m->first_other), "%.60s (%s) at dst%+ld", in->text,
			 td_kind_name(e->kind), (long)(e->addr - m->d0));
	}
}

/* The first @n bytes of a mask (n <= 64). */
static uint64_t low_bytes(size_t n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

Test(flushcache_stores, masked_short_calls, .init = ts_setup, .fini = ts_teardown)
{
	static const struct {
		enum kflush_op op;
		const char *name;
		size_t max;	/* masked up to here */
	} v[] = { { KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_movdir64b", 64 },
		  { KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_x2", 64 },
		  { KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_ymm_short_cached", 64 },
		  { KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached", 128 } };
	/* Every one with a sub-word edge at each of these offsets. */
	static const size_t sizes[] = { 1, 2, 3, 5, 17, 33, 62, 63, 64, 65, 66, 97, 127, 128, 129 };
	static const size_t doffs[] = { 1, 3, 6, 61, 4096 - 70, 4096 - 61, 4096 - 64, 4096 - 63,
					4096 - 128, 4096 - 127 };
	/* A copy's source offset in its page: its load spans 64 bytes too. */
	static const size_t soffs[] = { 8, 4096 - 64, 4096 - 63, 4096 - 1 };
	size_t ran = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		kflush_fn fn = ts_variant(v[i].op, v[i].name);

		if (!fn) {
			cr_log_info("%s: not usable on this CPU (after KFLUSH_HWCAPS)", v[i].name);
			continue;
		}
		ran++;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			for (size_t o = 0; o < ARRAY_SIZE(doffs) * ARRAY_SIZE(soffs); o++) {
				size_t n = sizes[k], doff = doffs[o % ARRAY_SIZE(doffs)];
				size_t soff = soffs[o / ARRAY_SIZE(doffs)];
				int two = n > 64;
				int fits = doff % 4096 + (two ? 128 : 64) <= 4096 &&
					   (v[i].op != KFLUSH_OP_MEMCPY_FLUSHCACHE || soff % 4096 + 64 <= 4096);
				struct masked m;

				/* A fill has no source: one pass over the offsets. */
				if (soff != soffs[0] && v[i].op != KFLUSH_OP_MEMCPY_FLUSHCACHE)
					continue;

				if (n > v[i].max || (n % 4 == 0 && doff % 4 == 0))
					fits = 0;
				memset(&m, 0, sizeof(m));
				m.d0 = (uint64_t)(uintptr_t)(ts_arena + doff);
				m.d1 = m.d0 + n;
				traced_op_from(v[i].op, v[i].name, fn, doff, soff, n, masked_sink, &m);
				cr_expect(!m.last_low_vec || m.last_vzeroupper > m.last_low_vec,
					  "%s n=%zu dst+%zu src+%zu: ymm0-15/zmm0-15 at step %zu and no "
					  "vzeroupper after it", v[i].name, n, doff, soff, m.last_low_vec);
				if (!fits) {
					/* Above 128 bytes the temporal fill is glibc's memset, masks and all. */
					cr_expect(n > 128 ? !(m.stores == 2 && m.whole == 1) : !m.masked,
						  "%s n=%zu dst+%zu src+%zu: the masked path, want the "
						  "temporal one", v[i].name, n, doff, soff);
					continue;
				}
				cr_expect(m.stores == 1u + two && m.masked == 1 && m.whole == (size_t)two,
					  "%s n=%zu dst+%zu: %zu stores (%zu masked, %zu whole lines; "
					  "first other %s), want %s", v[i].name, n, doff, m.stores,
					  m.masked, m.whole, m.other ? m.first_other : "none",
					  two ? "one whole line, one masked" : "one masked");
				cr_expect(m.mask_at == m.d0 + (two ? 64 : 0) &&
					  m.mask == low_bytes(two ? n - 64 : n),
					  "%s n=%zu dst+%zu: masked store at dst%+ld, mask %#llx",
					  v[i].name, n, doff, (long)(m.mask_at - m.d0),
					  (unsigned long long)m.mask);
			}
	}
	if (!ran)
		cr_skip_test("none of avx512_movdir64b, avx512_x2, avx512_ymm_short_cached, "
			     "avx512_short_cached usable here");
}
