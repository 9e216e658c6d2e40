// SPDX-License-Identifier: MIT
/*
 * kflush_memcpy's "tuned" variant, watched instruction by instruction: the
 * persistence tracer (tests/trace/) single-steps it in a child and this
 * test notes whether a rep movsb ran. libkflush(7) documents the rule:
 * rep movsb from the CPU's switch-over size, memcpy_orig below it, and on
 * a CPU whose rule says so also memcpy_orig whenever (dst - src) mod 64
 * is 1..31; without a rule the switch-over is 2048 bytes. The switch-over
 * and the distance rule for this host come from tests/doc_rules.c (the
 * documented table) and this host's CPUID, never from the library.
 * Its sibling "avx2", the same AVX copy, must run no rep movsb at all;
 * "tuned_prefetchw" runs tuned's paths and asks for the destination's
 * lines first (prefetchw), never for a byte outside it.
 *
 * tests/test_memcpy.c checks the bytes of every size and offset; this
 * checks the path, which the bytes cannot show for buffers apart.
 * tests/test_memcpy_tuned_forced.c checks both under every documented
 * switch-over, with and without the distance rule, on any host.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "doc_rules.h"
#include "trace/harness.h"

#define ARENA (96u << 10)
#define FAR (40u << 10)		/* the other buffer's distance, before the mod-64 part */
#define PAGE_OFF 256

static struct tt_tracer tracer;
static unsigned char *arena;
static kflush_memcpy_fn tuned;	/* the variant under trace: tuned, tuned_prefetchw or avx2 */
static const char *tuned_name;

#define MAX_LINES 128	/* of the destination, watched for hints and stores */

struct seen {
	size_t movsb_bytes;	/* bytes moved by rep movsb */
	size_t steps;
	size_t last_ymm, last_vzeroupper;	/* step numbers, 0: none */
	size_t legacy_sse;	/* xmm instructions without a VEX prefix */
	char first_legacy[64];
	/* The call's destination, and what asked for or stored its lines. */
	uint64_t dst, n, line0;
	size_t hints, hints_outside;
	char first_outside[96];
	size_t first_hint[MAX_LINES], first_store[MAX_LINES];	/* step numbers, 0: none */
};

static void note_line(size_t *first, const struct seen *s, uint64_t addr)
{
	uint64_t l = ((addr & ~63ULL) - s->line0) / 64;

	if (addr >= s->line0 && l < MAX_LINES && !first[l])
		first[l] = s->steps;
}

static void sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct seen *s = ctx;

	s->steps++;
	if (e->kind == TD_PREFETCH) {
		s->hints++;
		if ((e->addr < s->dst || e->addr >= s->dst + s->n) && !s->hints_outside++)
			snprintf(s->first_outside, sizeof(s->first_outside), "%.60s at dst%+lld",
				 in->text, (long long)(e->addr - s->dst));
		note_line(s->first_hint, s, e->addr);
	}
	if (e->kind == TD_STORE && e->len)
		for (uint64_t a = e->addr & ~63ULL; a < e->addr + e->len; a += 64)
			note_line(s->first_store, s, a < e->addr ? e->addr : a);
	if (in->string && in->rep && in->width == 1 && strstr(in->text, "movsb"))
		s->movsb_bytes += e->len;
	if (strstr(in->text, "ymm"))
		s->last_ymm = s->steps;
	if (strncmp(in->text, "vzeroupper", 10) == 0)
		s->last_vzeroupper = s->steps;
	if (strstr(in->text, "xmm") && in->text[0] != 'v' && !s->legacy_sse++)
		snprintf(s->first_legacy, sizeof(s->first_legacy), "%.60s", in->text);
}

static void setup_variant(const char *name, const char *needs)
{
	int idx = kflush_variant_find(KFLUSH_OP_MEMCPY, name);

	cr_assert_geq(idx, 0, "no %s variant", name);
	tuned_name = name;
	tuned = (kflush_memcpy_fn)kflush_variant_fn(KFLUSH_OP_MEMCPY, (unsigned int)idx);
	if (!tuned)
		cr_skip_test("%s needs %s, which this CPU (after KFLUSH_HWCAPS) lacks", name, needs);
	tp_arena_start(&tracer, &arena, ARENA, "the path of the variant was not observed");
}

static void setup(void)
{
	setup_variant("tuned", "erms and avx2");
}

static void setup_avx2(void)
{
	setup_variant("avx2", "avx2");
}

static void setup_prefetchw(void)
{
	setup_variant("tuned_prefetchw", "erms, avx2 and prefetchw");
}

static void teardown(void)
{
	tt_stop_arena(&tracer, arena, ARENA);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 7 + 1);
}

/* One traced copy; returns what it saw, after checking the copy. */
static struct seen traced(unsigned char *dst, const unsigned char *src, size_t n)
{
	struct seen s;
	char err[256] = "";

	memset(&s, 0, sizeof(s));
	s.dst = (uint64_t)(uintptr_t)dst;
	s.n = n;
	s.line0 = s.dst & ~63ULL;
	fill(arena, ARENA, (unsigned int)n);
	memset(dst, 0, n);
	cr_assert_eq(tt_call(&tracer, (const void *)tuned, (uint64_t)(uintptr_t)dst,
			     (uint64_t)(uintptr_t)src, n, sink, &s, err, sizeof(err)), 0,
		     "%s n=%zu dst-src=%td: %s", tuned_name, n, dst - src, err);
	cr_assert(memcmp(dst, src, n) == 0, "%s n=%zu dst-src=%td: wrong bytes", tuned_name, n,
		  dst - src);
	return s;
}

/* The bytes rep movsb moved in one traced copy. */
static size_t traced_copy(unsigned char *dst, const unsigned char *src, size_t n)
{
	return traced(dst, src, n).movsb_bytes;
}

/*
 * Both tuned variants run with the switch-over of this CPU's first rule
 * that names either of them (libkflush(7), Per-CPU rules), else the
 * default.
 */
static void path_follows_documented_rule(void)
{
	static const size_t dists[] = { 0, 1, 8, 16, 31, 32, 33, 48, 63 };
	const struct doc_rule *r;
	size_t min = DOC_TUNED_DEFAULT_MIN;
	int avoid_near = 0;

	doc_read_host();
	for (unsigned int nth = 0;
	     doc_rules_on() && (r = doc_rule_for(doc_host.vendor, doc_host.family, doc_host.model,
						 KFLUSH_OP_MEMCPY, nth)); nth++)
		if (strcmp(r->variant, "tuned") == 0 || strcmp(r->variant, "tuned_prefetchw") == 0) {
			min = r->movsb_min;
			avoid_near = r->avoid_near;
			break;
		}
	cr_log_info("%s family %#x model %#x: documented rep movsb from %zu B%s", doc_host.vendor,
		    doc_host.family, doc_host.model, min,
		    avoid_near ? ", not at distances 1..31 mod 64" : ", at every distance");
	if (!avoid_near)
		cr_log_info("no distance rule on this CPU: checked that none is applied");

	for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
		size_t d = dists[i];
		int near = d >= 1 && d <= 31;
		const size_t sizes[] = { min - 1, min, min + 100 };

		for (size_t k = 0; k < 3; k++) {
			size_t n = sizes[k];
			int want = n >= min && !(avoid_near && near);
			/* Destination above the source, then below it: same distance mod 64. */
			unsigned char *hi = arena + PAGE_OFF + FAR + d, *lo = arena + PAGE_OFF;
			size_t up = traced_copy(hi, lo, n);
			size_t down = traced_copy(arena + PAGE_OFF + d, arena + PAGE_OFF + FAR, n);

			cr_expect_eq(up != 0, want, "n=%zu, dst = src + %u + %zu: rep movsb %s "
				     "(moved %zu B), documented %s", n, FAR, d, up ? "ran" : "did not run",
				     up, want ? "rep movsb" : "memcpy_orig");
			cr_expect_eq(down != 0, want, "n=%zu, dst = src - %u + %zu: rep movsb %s "
				     "(moved %zu B), documented %s", n, FAR, d,
				     down ? "ran" : "did not run", down, want ? "rep movsb" : "memcpy_orig");
			if (want)
				cr_expect_eq(up, n, "n=%zu dist %zu: rep movsb moved %zu of %zu B",
					     n, d, up, n);
		}
	}
	cr_log_info("%s: %zu instructions stepped", tuned_name, tracer.steps);
}

Test(memcpy_tuned, path_follows_documented_rule, .init = setup, .fini = teardown)
{
	path_follows_documented_rule();
}

Test(memcpy_tuned_prefetchw, path_follows_documented_rule, .init = setup_prefetchw,
     .fini = teardown)
{
	path_follows_documented_rule();
}

/*
 * avx2 (libkflush(7), Variants) is tuned's AVX copy without rep movsb at
 * any size or distance: both directions, at the distances tuned decides
 * on, from the 32-byte path to a 32 KiB copy.
 */
Test(memcpy_avx2, never_rep_movsb, .init = setup_avx2, .fini = teardown)
{
	static const size_t dists[] = { 0, 1, 8, 16, 31, 32, 33, 48, 63 };
	static const size_t sizes[] = { 32, 256, 257, 2047, 2048, 4096, 8192, 32u << 10 };

	for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t d = dists[i], n = sizes[k];
			size_t up = traced_copy(arena + PAGE_OFF + FAR + d, arena + PAGE_OFF, n);
			size_t down = traced_copy(arena + PAGE_OFF + d, arena + PAGE_OFF + FAR, n);

			cr_expect_eq(up + down, 0, "avx2 n=%zu dist %zu: rep movsb moved %zu B up, "
				     "%zu B down", n, d, up, down);
		}
	cr_log_info("%zu instructions stepped", tracer.steps);
}

/*
 * tuned and avx2 use ymm registers (libkflush(7)): every path that
 * touched one runs vzeroupper after it, before returning, so an SSE
 * caller pays no transition; and no legacy-encoded SSE instruction runs
 * (slow next to a caller's dirty upper state on Intel). Sizes on both
 * sides of each size decision, and tuned's near-distance passes beyond
 * its switch-over.
 */
static void upper_state_clean(void)
{
	const size_t sizes[] = { 31, 32, 64, 65, 128, 129, 256, 257, 384, 1000, 2047, 2048, 5000 };
	size_t ymm_calls = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t d = 0; d <= 8; d += 8) {
			size_t n = sizes[i];
			struct seen s = traced(arena + PAGE_OFF + FAR + d, arena + PAGE_OFF, n);

			cr_expect(!s.last_ymm || s.last_vzeroupper > s.last_ymm,
				  "n=%zu dist %zu: ymm used at step %zu, %s", n, d, s.last_ymm,
				  s.last_vzeroupper ? "vzeroupper only before it" : "no vzeroupper");
			cr_expect_eq(s.legacy_sse, 0, "n=%zu dist %zu: %zu legacy SSE instructions, "
				     "first %s", n, d, s.legacy_sse, s.first_legacy);
			ymm_calls += !!s.last_ymm;
		}
	cr_expect_gt(ymm_calls, 0, "no call used a ymm register: the check saw nothing");
}

Test(memcpy_tuned, upper_state_clean, .init = setup, .fini = teardown)
{
	upper_state_clean();
}

Test(memcpy_avx2, upper_state_clean, .init = setup_avx2, .fini = teardown)
{
	upper_state_clean();
}

Test(memcpy_tuned_prefetchw, upper_state_clean, .init = setup_prefetchw, .fini = teardown)
{
	upper_state_clean();
}

/*
 * libkflush(7), Variants, tuned_prefetchw: every call of at least one byte
 * asks for its first and last destination line before any store to them,
 * and up to 256 B for every line between; no hint names a byte outside
 * the destination. Each size around the copy's size decisions, at the
 * start, the middle and the end of a line.
 */
Test(memcpy_tuned_prefetchw, hints_cover_dst_only, .init = setup_prefetchw, .fini = teardown)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100,
					127, 128, 129, 191, 192, 200, 255, 256, 257, 1000, 5000 };
	static const size_t offs[] = { 0, 1, 31, 63 };
	size_t hints = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
			size_t n = sizes[i];
			unsigned char *dst = arena + PAGE_OFF + FAR + offs[o];
			struct seen s = traced(dst, arena + PAGE_OFF + 5, n);
			size_t lines = (size_t)(((s.dst + n - 1) & ~63ULL) - s.line0) / 64 + 1;

			hints += s.hints;
			cr_expect_eq(s.hints_outside, 0, "n=%zu dst+%zu: %zu of %zu hints outside "
				     "the destination, first %s", n, offs[o], s.hints_outside,
				     s.hints, s.first_outside);
			for (size_t l = 0; l < lines && l < MAX_LINES; l++) {
				int want = l == 0 || l == lines - 1 || n <= 256;

				if (!want)
					continue;
				cr_expect(s.first_hint[l] && (!s.first_store[l] ||
							      s.first_hint[l] < s.first_store[l]),
					  "n=%zu dst+%zu: line %zu of %zu %s", n, offs[o], l, lines,
					  !s.first_hint[l] ? "never asked for" :
					  "asked for after a store to it");
			}
		}
	cr_expect_gt(hints, 0, "no hint seen at all");
}

/* tuned itself asks for nothing: the rule, not tuned, decides on the hints. */
Test(memcpy_tuned, no_hints, .init = setup, .fini = teardown)
{
	static const size_t sizes[] = { 1, 32, 100, 200, 1000, 5000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct seen s = traced(arena + PAGE_OFF + FAR + 3, arena + PAGE_OFF, sizes[i]);

		cr_expect_eq(s.hints, 0, "n=%zu: %zu prefetch hints", sizes[i], s.hints);
	}
}
