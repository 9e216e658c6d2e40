// SPDX-License-Identifier: MIT
/*
 * copy-bench's timed batch for a roof (pmemtest/bench/copy_calls.c): each
 * call must store the whole destination lines inside it and nothing else.
 * A roof that stored fewer lines would read too fast and hide contenders
 * above it; one that stored more would read too slow. The roof's own
 * strategies are held to their bytes once per run (roof.c); this is the
 * range copy-bench hands them, call by call, for every copy and fill
 * strategy this CPU has. Which bytes belong to a whole line inside a call
 * is decided here, byte by byte, not by the code under test.
 *
 * Every other kind of contender is held to the operation its name says,
 * on the bench's own buffers (libpmem2's mapping for PMDK): the expected
 * buffer is the C library's memcpy(), memmove() or memset() applied here
 * to a snapshot, call by call, so a kind wired to the wrong function, the
 * wrong source or the wrong byte goes red.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../pmemtest/bench/copy.h"
#include "../pmemtest/bench/res.h"
#include "roofutil.h"

ParameterizedTestParameters(copy_calls, roof_lines)
{
	return roof_test_params();
}

/* dst offset, src offset, length: every start within a line, every edge. */
static const size_t calls[][3] = {
	{ 0, 0, 64 },		/* one whole line */
	{ 256, 300, 63 },	/* under a line: nothing */
	{ 512 + 1, 640 + 7, 127 },	/* one line inside, both edges partial */
	{ 1024 + 63, 1200, 130 },	/* 1 B before a line, 1 after two more */
	{ 2048, 2048 + 13, 128 },	/* two aligned lines, source unaligned */
	{ 3072 + 32, 3100, 64 },	/* a line's worth straddling two: nothing */
	{ 4096 + 5, 4096 + 9, 4096 + 200 },	/* long, both edges partial */
	{ 12288, 12288 + 40, 8 * 64 * 3 + 64 },	/* the 8-line blocks and one more */
	{ 16384 + 17, 16400, 1 },
	{ 20480 + 48, 20480 + 48, 16 + 64 * 9 + 40 },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))
#define AREA (32 << 10)
#define POISON 0x00	/* neither the source nor COPY_SET_BYTE has a zero byte */

/*
 * @nc calls of @cl through copy-bench's roof batch for strategy @s, the
 * areas @base bytes past a page boundary; every byte of the area and its
 * guard pages is held to this: written iff its line, in memory, lies
 * wholly inside a call's destination. @want_lines: whether the table's
 * calls are all whole lines (bench_calls_mark_lines()).
 */
static void run_roof(const struct roof_param *p, const struct roof_strategy *s,
		     const size_t (*cl)[3], size_t nc, size_t base, int want_lines)
{
	struct copy_run x;
	struct copy_contender k;
	size_t len[NCALLS], doff[NCALLS], soff[NCALLS];
	struct bench_calls t = { .n = nc, .len = len, .doff = doff, .soff = soff };
	unsigned char *dst = NULL, *src = NULL, *d, *sb;

	cr_assert_leq(nc, NCALLS);
	/* A guard page's worth on each side of the area the calls use. */
	cr_assert_eq(posix_memalign((void **)&dst, 4096, AREA + 2 * 4096), 0);
	cr_assert_eq(posix_memalign((void **)&src, 4096, AREA + 2 * 4096), 0);
	for (size_t i = 0; i < AREA + 2 * 4096; i++)
		src[i] = (unsigned char)(1 + i % 251);
	memset(dst, POISON, AREA + 2 * 4096);
	d = dst + 4096 + base;
	sb = src + 4096 + base;
	for (size_t i = 0; i < nc; i++) {
		doff[i] = cl[i][0];
		soff[i] = cl[i][1];
		len[i] = cl[i][2];
		t.bytes += len[i];
	}
	bench_calls_mark_lines(&t);
	cr_assert_eq(t.lines, want_lines, "the table's calls %s whole lines",
		     want_lines ? "are" : "are not all");
	memset(&x, 0, sizeof(x));
	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "roof:%s", s->name);
	k.cls = BENCH_ROOF;
	k.kind = p->use == ROOF_COPY ? CALL_ROOF_COPY : CALL_ROOF_FILL;
	k.roof = s;

	copy_run_calls(&x, &k, &t, (char *)d, (const char *)sb);

	for (size_t b = 0; b < AREA + 2 * 4096; b++) {
		uintptr_t a = (uintptr_t)(dst + b), line = a & ~(uintptr_t)63;
		int want = POISON;

		for (size_t i = 0; i < nc; i++) {
			uintptr_t c0 = (uintptr_t)(d + doff[i]), c1 = c0 + len[i];

			if (line >= c0 && line + 64 <= c1) {
				want = p->use == ROOF_COPY ? sb[soff[i] + (a - c0)] : COPY_SET_BYTE;
				break;
			}
		}
		cr_assert_eq(dst[b], want, "roof:%s(%s), base +%zu: byte %zd of the area is 0x%02x, "
			     "want 0x%02x", p->use == ROOF_COPY ? "copy" : "fill", s->name, base,
			     (ssize_t)b - 4096, dst[b], want);
	}
	free(dst);
	free(src);
}

ParameterizedTest(struct roof_param *p, copy_calls, roof_lines)
{
	run_roof(p, roof_test_find(p), calls, NCALLS, 0, 0);
}

/*
 * A table of whole lines (the fixed and packed layouts at multiples of
 * 64) runs the roof's loop without inside_lines(): from a line-aligned
 * base every call is stored whole; from any other base, or in a table
 * where one call ends inside a line, the batch must still store only the
 * lines inside each call.
 */
static const size_t line_calls[][3] = {
	{ 0, 0, 64 }, { 64, 64, 64 }, { 256, 320, 128 }, { 1024, 1024, 64 * 9 },
	{ 4096, 4096 + 64, 4096 }, { 12288, 12288, 8 * 64 * 3 + 64 },
};
/* Every call from a line, but one ends inside a line: not a table of whole lines. */
static const size_t ragged_calls[][3] = {
	{ 0, 0, 64 }, { 256, 256, 100 }, { 1024, 1024, 64 * 3 },
};

ParameterizedTestParameters(copy_calls, roof_whole_lines)
{
	return roof_test_params();
}

ParameterizedTest(struct roof_param *p, copy_calls, roof_whole_lines)
{
	const size_t nc = sizeof(line_calls) / sizeof(line_calls[0]);

	run_roof(p, roof_test_find(p), line_calls, nc, 0, 1);
	run_roof(p, roof_test_find(p), line_calls, nc, 8, 1);
	run_roof(p, roof_test_find(p), line_calls, nc, 63, 1);
	run_roof(p, roof_test_find(p), ragged_calls, sizeof(ragged_calls) / sizeof(ragged_calls[0]),
		 0, 0);
}

/* The contender kinds and the reference each must match. */
enum ref_op { REF_COPY, REF_MOVE, REF_SET, REF_PAGE };

struct kind_param {
	int kind;	/* enum copy_kind */
	int ref;	/* enum ref_op */
	char name[32];
};

ParameterizedTestParameters(copy_calls, every_kind)
{
	static struct kind_param p[] = {
		{ CALL_FLUSHCACHE, REF_COPY, "kflush_memcpy_flushcache" },
		{ CALL_PMEM, REF_COPY, "pmem2 memcpy_fn" },
		{ CALL_GLIBC_FLUSH, REF_COPY, "memcpy+flush" },
		{ CALL_GLIBC, REF_COPY, "memcpy" },
		{ CALL_MEMCPY, REF_COPY, "kflush_memcpy" },
		{ CALL_COPY_SAFE, REF_COPY, "kflush_copy_safe" },
		{ CALL_COPY_PAGE, REF_PAGE, "kflush_copy_page" },
		{ CALL_REP_MOVSB, REF_COPY, "rep movsb" },
		{ CALL_PMEM_MOVE, REF_MOVE, "pmem2 memmove_fn" },
		{ CALL_GLIBC_MOVE_FLUSH, REF_MOVE, "memmove+flush" },
		{ CALL_FLUSHSET, REF_SET, "kflush_memset_flushcache" },
		{ CALL_PMEM_SET, REF_SET, "pmem2 memset_fn" },
		{ CALL_GLIBC_SET_FLUSH, REF_SET, "memset+flush" },
	};

	return cr_make_param_array(struct kind_param, p, sizeof(p) / sizeof(p[0]));
}

/* The library function a kind of contender is registered with (copy.c). */
static kflush_fn kind_fn(int kind)
{
	switch (kind) {
	case CALL_FLUSHCACHE: return (kflush_fn)kflush_memcpy_flushcache;
	case CALL_MEMCPY: return (kflush_fn)kflush_memcpy;
	case CALL_COPY_SAFE: return (kflush_fn)kflush_copy_safe;
	case CALL_COPY_PAGE: return (kflush_fn)kflush_copy_page;
	case CALL_FLUSHSET: return (kflush_fn)kflush_memset_flushcache;
	default: return NULL;
	}
}

#define KIND_BUF (1 << 20)
#define KIND_AREA (64 << 10)

ParameterizedTest(struct kind_param *p, copy_calls, every_kind)
{
	static const size_t pages[][2] = { { 8192, 4096 }, { 20480, 40960 }, { 4096, 12288 } };
	struct copy_run x;
	struct copy_contender k;
	size_t nc = p->ref == REF_PAGE ? 3 : NCALLS;
	size_t len[NCALLS], doff[NCALLS], soff[NCALLS];
	struct bench_calls t = { .n = nc, .len = len, .doff = doff, .soff = soff };
	unsigned char *want = malloc(KIND_AREA);
	const char *s;

	cr_assert_not_null(want);
	memset(&x, 0, sizeof(x));
	cr_assert_eq(bench_bufs_open(&x.b, KIND_BUF), 0);
	if (p->kind == CALL_PMEM || p->kind == CALL_PMEM_MOVE || p->kind == CALL_PMEM_SET)
		cr_assert_not_null(x.b.map, "libpmem2 did not map the bench buffer");
	for (size_t i = 0; i < nc; i++) {
		if (p->ref == REF_PAGE) {
			doff[i] = pages[i][0];
			soff[i] = pages[i][1];
			len[i] = 4096;
		} else {
			doff[i] = calls[i][0];
			len[i] = calls[i][2];
			/* A move's source a quarter of it above or below, in the destination. */
			soff[i] = p->ref != REF_MOVE ? calls[i][1]
				  : i & 1 ? doff[i] + len[i] / 4 + 1 : doff[i] + 8192 - len[i] / 4;
			if (p->ref == REF_MOVE && !(i & 1))
				doff[i] += 8192;
		}
		cr_assert_leq((p->ref == REF_MOVE ? doff[i] > soff[i] ? doff[i] : soff[i]
			       : doff[i]) + len[i], KIND_AREA);
		t.bytes += len[i];
	}
	s = p->ref == REF_MOVE ? x.b.dst : x.b.src;

	/* The reference, call by call, on a snapshot of the area. */
	memcpy(want, x.b.dst, KIND_AREA);
	for (size_t i = 0; i < nc; i++) {
		if (p->ref == REF_SET)
			memset(want + doff[i], COPY_SET_BYTE, len[i]);
		else if (p->ref == REF_MOVE)
			memmove(want + doff[i], want + soff[i], len[i]);
		else
			memcpy(want + doff[i], s + soff[i], len[i]);
	}

	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "%s", p->name);
	k.cls = BENCH_KFLUSH;
	k.kind = (enum copy_kind)p->kind;
	k.fn = kind_fn(p->kind);
	copy_run_calls(&x, &k, &t, x.b.dst, s);

	for (size_t b = 0; b < KIND_AREA; b++)
		cr_assert_eq((unsigned char)x.b.dst[b], want[b], "%s: byte %zu is 0x%02x, want 0x%02x",
			     p->name, b, (unsigned char)x.b.dst[b], want[b]);
	free(want);
	bench_bufs_close(&x.b);
}

/*
 * The call tables behind the layouts (bench.h, enum bench_layout), from
 * their definitions: fixed calls are the size, each at a line boundary,
 * apart; packed ones the size, back to back from offset 0, each where the
 * last ended; random ones within +-25 % of the size, at offsets 0..63 of
 * lines apart. Hot and cold.
 */
Test(copy_calls, layouts)
{
	static const size_t sizes[] = { 1, 4, 23, 64, 100, 4096 };
	uint64_t rng = 1;

	for (int hot = 0; hot < 2; hot++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t size = sizes[i];
			struct bench_calls c;

			cr_assert_eq(bench_calls_make(&c, BENCH_PACKED, size, 0, 1u << 20, 4096, hot,
						      256u << 10, &rng), 0);
			cr_assert_gt(c.n, 1, "packed %zu B: %zu calls", size, c.n);
			for (size_t k = 0; k < c.n; k++) {
				cr_assert_eq(c.len[k], size, "packed %zu B: call %zu is %zu B", size, k,
					     c.len[k]);
				cr_assert_eq(c.doff[k], k * size, "packed %zu B: call %zu at %zu", size,
					     k, c.doff[k]);
				cr_assert_eq(c.soff[k], k * size, "packed %zu B: call %zu from %zu", size,
					     k, c.soff[k]);
			}
			cr_assert_eq(c.bytes, c.n * size);
			cr_assert_eq(c.span, c.n * size);
			bench_calls_free(&c);

			cr_assert_eq(bench_calls_make(&c, BENCH_FIXED, size, 0, 1u << 20, 4096, hot,
						      256u << 10, &rng), 0);
			for (size_t k = 0; k < c.n; k++) {
				cr_assert_eq(c.len[k], size);
				cr_assert_eq(c.doff[k] % 64, 0, "fixed %zu B: call %zu at %zu", size, k,
					     c.doff[k]);
				cr_assert(k == 0 || c.doff[k] >= c.doff[k - 1] + size,
					  "fixed %zu B: call %zu overlaps the last", size, k);
			}
			bench_calls_free(&c);

			cr_assert_eq(bench_calls_make(&c, BENCH_RANDOM, size, 0, 1u << 20, 4096, hot,
						      256u << 10, &rng), 0);
			for (size_t k = 0; k < c.n; k++) {
				size_t len = c.len[k];

				size_t lo = size - size / 4 ? size - size / 4 : 1;

				cr_assert(len >= lo && len <= size + size / 4,
					  "random %zu B: call %zu is %zu B", size, k, len);
				cr_assert(k == 0 || c.doff[k] / 64 > (c.doff[k - 1] + c.len[k - 1] - 1) / 64,
					  "random %zu B: call %zu shares a line with the last", size, k);
			}
			bench_calls_free(&c);
		}
}

/*
 * struct-page runs in the cold group over the same span every sample: each
 * sample must find that span evicted first, as every other cold sample
 * does (copy_run.c), or a span that fits the LLC (256 MiB of the default
 * buffer, a 300 MiB L3) starts warm from the contender before. The eviction
 * is copy_run's hook, counted here: once per sample, over the whole span.
 */
static struct copy_run *sp_run;
static size_t sp_evictions, sp_short;
static size_t sp_span;

static void sp_count_evict(const void *addr, size_t len)
{
	const char *a = addr;

	sp_evictions++;
	if (a > sp_run->b.dst || a + len < sp_run->b.dst + sp_span)
		sp_short++;
}

Test(copy_calls, struct_page_evicts)
{
	static size_t sps[] = { 32, 64 };	/* each divides the span */
	struct copy_run x;
	size_t samples = 0;

	memset(&x, 0, sizeof(x));
	cr_assert_eq(bench_bufs_open(&x.b, 1u << 20), 0);
	x.o.rounds = 1;
	x.o.sp = sps;
	x.o.nsp = 2;
	x.o.sp_span = 64u << 10;
	x.res = bench_res_new("copy-bench", 1);
	cr_assert_not_null(x.res);
	x.evict = sp_count_evict;
	sp_run = &x;
	sp_span = 64u << 10;
	cr_assert_eq(copy_mode_struct_page.run(&x), 0);
	for (size_t i = 0; i < x.res->ncells; i++)
		samples += x.res->cells[i].n;
	cr_assert_gt(samples, 0);
	cr_assert_eq(sp_evictions, samples, "%zu evictions for %zu struct-page samples",
		     sp_evictions, samples);
	cr_assert_eq(sp_short, 0, "%zu evictions short of the sample's span", sp_short);
	bench_res_free(x.res);
	bench_bufs_close(&x.b);
}
