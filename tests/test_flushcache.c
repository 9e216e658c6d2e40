// SPDX-License-Identifier: MIT
/*
 * memcpy_flushcache / memset_flushcache: every usable variant and the
 * exported entry points, byte for byte against memcpy/memset, every size
 * 0..1100 at every destination offset in a line, with guard bytes on both
 * sides. Whether the stores leave lines dirty is test_persistence's job.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kflush.h"
#include "testutil.h"

#define MAX_VARIANTS 16

/* Source offsets (mod 64) swept for every size and destination offset. */
static const size_t src_offs[] = { 0, 1, 7, 8, 31, 63 };
/* Beyond the dense sweep (mid and large sizes): fewer offsets. */
static const size_t large_dst_offs[] = { 0, 1, 7, 8, 31, 32, 63 };
static const size_t large_src_offs[] = { 0, 5, 63 };
/* memset values: int arguments beyond a byte must be truncated like memset's. */
static const int set_values[] = { 0x00, 0xff, 0x5a, 0x1c3, -2 };
#define NR_SET_VALUES (sizeof(set_values) / sizeof(set_values[0]))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The source pattern, and its complement: the destination is pre-filled
 * with the complement so every byte a variant forgets to store is wrong.
 */
static unsigned char *src, *inv;
static unsigned char *set_expect[NR_SET_VALUES];

static void setup(void)
{
	/* aligned_alloc wants a multiple of the alignment. */
	size_t len = (TU_MAX_SIZE + 64 + 63) & ~(size_t)63;

	src = aligned_alloc(64, len);
	inv = aligned_alloc(64, len);
	cr_assert(src && inv);
	tu_fill(src, len, 42);
	for (size_t i = 0; i < len; i++)
		inv[i] = (unsigned char)~src[i];
	for (size_t i = 0; i < NR_SET_VALUES; i++) {
		set_expect[i] = malloc(TU_MAX_SIZE);
		cr_assert(set_expect[i]);
		memset(set_expect[i], set_values[i], TU_MAX_SIZE);
	}
}

static void teardown(void)
{
	free(src);
	free(inv);
	for (size_t i = 0; i < NR_SET_VALUES; i++)
		free(set_expect[i]);
}

static void copy_one(const char *name, kflush_memcpy_flushcache_fn fn, struct tu_area *a,
		     size_t doff, size_t soff, size_t n)
{
	unsigned char *d = tu_at(a, doff);
	long bad;

	memcpy(d, inv + soff, n);
	fn(d, src + soff, n);
	bad = tu_check(a, doff, src + soff, n);
	if (bad >= 0)
		cr_assert_fail("memcpy_flushcache %s: n=%zu dst+%zu src+%zu: wrong byte at %+ld from dst",
			       name, n, doff, soff, bad - (long)(TU_GUARD + doff));
	tu_restore(a, doff, n);
}

static void set_one(const char *name, kflush_memset_flushcache_fn fn, struct tu_area *a,
		    size_t doff, size_t vi, size_t n)
{
	unsigned char *d = tu_at(a, doff);
	long bad;

	memset(d, ~set_values[vi], n);
	fn(d, set_values[vi], n);
	bad = tu_check(a, doff, set_expect[vi], n);
	if (bad >= 0)
		cr_assert_fail("memset_flushcache %s: n=%zu dst+%zu c=%#x: wrong byte at %+ld from dst",
			       name, n, doff, set_values[vi], bad - (long)(TU_GUARD + doff));
	tu_restore(a, doff, n);
}

struct sweep_ctx {
	const char *name;
	kflush_fn fn;
};

static void copy_case(const struct tu_case *c, void *p)
{
	const struct sweep_ctx *x = p;

	copy_one(x->name, (kflush_memcpy_flushcache_fn)x->fn, c->area, c->doff, c->soff, c->n);
}

static void set_case(const struct tu_case *c, void *p)
{
	const struct sweep_ctx *x = p;

	set_one(x->name, (kflush_memset_flushcache_fn)x->fn, c->area, c->doff,
		c->seq % NR_SET_VALUES, c->n);
}

static void sweep_copy(const char *name, kflush_memcpy_flushcache_fn fn,
		       const size_t *soffs, size_t nsoffs)
{
	const struct tu_sweep_plan plan = {
		soffs, nsoffs,
		large_dst_offs, ARRAY_SIZE(large_dst_offs),
		large_src_offs, ARRAY_SIZE(large_src_offs),
	};
	struct sweep_ctx x = { name, (kflush_fn)fn };

	tu_sweep(&plan, copy_case, &x);
}

static void sweep_set(const char *name, kflush_memset_flushcache_fn fn)
{
	static const size_t no_soff[] = { 0 };
	const struct tu_sweep_plan plan = {
		no_soff, 1, large_dst_offs, ARRAY_SIZE(large_dst_offs), no_soff, 1,
	};
	struct sweep_ctx x = { name, (kflush_fn)fn };
	struct tu_area a = tu_area_new(TU_SWEEP_MAX);

	tu_sweep(&plan, set_case, &x);
	/* Every value at every offset once, where the line code runs. */
	for (size_t doff = 0; doff < 64; doff++)
		for (size_t vi = 0; vi < NR_SET_VALUES; vi++)
			set_one(name, fn, &a, doff, vi, 777);
	tu_area_free(&a);
}

/*
 * n == 0 must touch nothing, not even a write-back of the line holding
 * dst: both pointers point into a page where any access (clwb and clflush
 * included) faults.
 */
struct zero_ctx {
	kflush_memcpy_flushcache_fn copy;
	kflush_memset_flushcache_fn set;
};

static void copy_nothing(unsigned char *page, size_t doff, void *ctx)
{
	((struct zero_ctx *)ctx)->copy(page + 1024 + doff, page + 2048 + (doff * 7) % 64, 0);
}

static void set_nothing(unsigned char *page, size_t doff, void *ctx)
{
	((struct zero_ctx *)ctx)->set(page + 1024 + doff, 0x5a, 0);
}

static void zero_copy(const char *name, kflush_memcpy_flushcache_fn fn)
{
	struct zero_ctx c = { .copy = fn };
	long at = tu_first_access(copy_nothing, &c, 64);

	cr_assert_eq(at, -1, "memcpy_flushcache %s: n=0 at dst+%ld accessed memory", name, at);
}

static void zero_set(const char *name, kflush_memset_flushcache_fn fn)
{
	struct zero_ctx c = { .set = fn };
	long at = tu_first_access(set_nothing, &c, 64);

	cr_assert_eq(at, -1, "memset_flushcache %s: n=0 at dst+%ld accessed memory", name, at);
}

/* The source-bounds check below catches faults itself: it must check bytes between them. */
static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static void catch_faults(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGSEGV, &sa, NULL) == 0);
	cr_assert(sigaction(SIGBUS, &sa, NULL) == 0);
}

/*
 * The sizes the bounds checks take: every one up to TU_SWEEP_MAX, then
 * those of the block and two-stream paths (2 KiB AVX-512 blocks, the two
 * streams from 8 KiB, their odd tails). Larger copies only repeat them.
 */
static const size_t bounds_big_sizes[] = { 1536 + 3, 2047, 2048, 2049, 3000, 4097,
					   (8u << 10) - 1, (8u << 10) + 65, (8u << 10) + 389,
					   (16u << 10) + 130, 65536 + 13 };
#define BOUNDS_NR_SIZES (TU_SWEEP_MAX + 1 + ARRAY_SIZE(bounds_big_sizes))
#define BOUNDS_MAX_SIZE (65536 + 13)

static size_t bounds_size(size_t i)
{
	return i <= TU_SWEEP_MAX ? i : bounds_big_sizes[i - TU_SWEEP_MAX - 1];
}

/* Room for every bounds size, page-rounded, between two PROT_NONE pages. */
struct guarded {
	unsigned char *m, *lo, *hi;
	size_t span;
};

static struct guarded guarded_map(void)
{
	struct guarded g;

	g.span = (BOUNDS_MAX_SIZE + 4095) & ~(size_t)4095;
	g.m = mmap(NULL, g.span + 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	cr_assert(g.m != MAP_FAILED);
	g.lo = g.m + 4096;
	g.hi = g.lo + g.span;
	cr_assert(mprotect(g.m, 4096, PROT_NONE) == 0);
	cr_assert(mprotect(g.hi, 4096, PROT_NONE) == 0);
	catch_faults();
	return g;
}

static void guarded_unmap(struct guarded *g)
{
	munmap(g->m, g->span + 2 * 4096);
}

/*
 * No read outside the source: put it flush against a PROT_NONE page, after
 * it and then before it, for every size and destination offset (fewer
 * offsets beyond the dense sweep).
 */
static void src_bounds(const char *name, kflush_memcpy_flushcache_fn fn)
{
	struct guarded g = guarded_map();
	struct tu_area a = tu_area_new(BOUNDS_MAX_SIZE);
	size_t step = tu_offset_step();

	tu_fill(g.lo, g.span, 7);
	for (volatile size_t i = 0; i < BOUNDS_NR_SIZES; i++) {
		volatile size_t n = bounds_size(i);

		for (volatile size_t doff = 0; doff < 64; doff += i > TU_SWEEP_MAX ? 21 : step) {
			for (volatile int at_end = 0; at_end < 2; at_end++) {
				const unsigned char *s;

				if (sigsetjmp(fault_jmp, 1))
					cr_assert_fail("memcpy_flushcache %s: n=%zu dst+%zu: read %s the source",
						       name, (size_t)n, (size_t)doff,
						       at_end ? "past the end of" : "before");
				s = at_end ? g.hi - n : g.lo;
				fn(tu_at(&a, doff), s, n);
				if (tu_check(&a, doff, s, n) >= 0)
					cr_assert_fail("memcpy_flushcache %s: n=%zu dst+%zu: wrong copy",
						       name, (size_t)n, (size_t)doff);
				tu_restore(&a, doff, n);
			}
		}
	}
	tu_area_free(&a);
	guarded_unmap(&g);
}

/*
 * No access outside the destination: put it flush against a PROT_NONE
 * page, after it (every size, so every alignment of its start) and then
 * before it, for a copy and for a fill. A variant that reaches past its
 * bytes with a wide store, a wide load of its own destination, or a
 * write-back of a line it did not store to faults here (the masked
 * 64-byte stores of avx512_movdir64b, avx512_x2 and avx512_short_cached
 * stay inside the page of their first byte; flushcache_avx512.c). One of
 * @cp and @set: the copy or the fill of variant @name.
 */
static void check_dst_bounds(const char *name, kflush_memcpy_flushcache_fn cp,
			     kflush_memset_flushcache_fn set)
{
	const char *op = cp ? "memcpy_flushcache" : "memset_flushcache";
	struct guarded g = guarded_map();

	for (volatile size_t i = 1; i < BOUNDS_NR_SIZES; i++) {
		volatile size_t n = bounds_size(i);

		for (volatile int at_end = 0; at_end < 2; at_end++) {
			unsigned char *d = at_end ? g.hi - n : g.lo;
			const unsigned char *want = cp ? src + (n * 7) % 64 : set_expect[2];

			if (sigsetjmp(fault_jmp, 1))
				cr_assert_fail("%s %s: n=%zu, destination %s a page: access %s it", op,
					       name, (size_t)n, at_end ? "ending" : "starting",
					       at_end ? "past the end of" : "before");
			memset(d, 0xa5, n);
			if (cp)
				cp(d, want, n);
			else
				set(d, set_values[2], n);
			cr_assert(memcmp(d, want, n) == 0, "%s %s: n=%zu, destination %s a page: "
				  "wrong bytes", op, name, (size_t)n, at_end ? "ending" : "starting");
		}
	}
	guarded_unmap(&g);
}

static kflush_memcpy_flushcache_fn copy_fn(const struct tu_variant *v)
{
	kflush_memcpy_flushcache_fn fn =
		(kflush_memcpy_flushcache_fn)kflush_variant_fn(KFLUSH_OP_MEMCPY_FLUSHCACHE,
							       (unsigned int)v->idx);

	cr_assert(fn, "variant %s reported usable but has no function", v->name);
	return fn;
}

static kflush_memset_flushcache_fn set_fn(const struct tu_variant *v)
{
	kflush_memset_flushcache_fn fn =
		(kflush_memset_flushcache_fn)kflush_variant_fn(KFLUSH_OP_MEMSET_FLUSHCACHE,
							       (unsigned int)v->idx);

	cr_assert(fn, "variant %s reported usable but has no function", v->name);
	return fn;
}

ParameterizedTestParameters(flushcache, memcpy_variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flushcache, memcpy_variant,
		  .init = setup, .fini = teardown)
{
	sweep_copy(v->name, copy_fn(v), src_offs, ARRAY_SIZE(src_offs));
}

ParameterizedTestParameters(flushcache, memcpy_variant_edges)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMCPY_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flushcache, memcpy_variant_edges, .init = setup,
		  .fini = teardown)
{
	zero_copy(v->name, copy_fn(v));
	src_bounds(v->name, copy_fn(v));
	check_dst_bounds(v->name, copy_fn(v), NULL);
}

ParameterizedTestParameters(flushcache, memset_variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_MEMSET_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flushcache, memset_variant,
		  .init = setup, .fini = teardown)
{
	sweep_set(v->name, set_fn(v));
	zero_set(v->name, set_fn(v));
	check_dst_bounds(v->name, NULL, set_fn(v));
}

/* The exported entry points, whatever is bound (run-masked.sh varies it). */
static const size_t entry_src_offs[] = { 0, 1, 63 };

Test(flushcache, kflush_memcpy_flushcache, .init = setup, .fini = teardown)
{
	sweep_copy("kflush_memcpy_flushcache", kflush_memcpy_flushcache,
		   entry_src_offs, ARRAY_SIZE(entry_src_offs));
	zero_copy("kflush_memcpy_flushcache", kflush_memcpy_flushcache);
}

Test(flushcache, kflush_memcpy_persist, .init = setup, .fini = teardown)
{
	sweep_copy("kflush_memcpy_persist", kflush_memcpy_persist,
		   entry_src_offs, ARRAY_SIZE(entry_src_offs));
}

Test(flushcache, kflush_memset_flushcache, .init = setup, .fini = teardown)
{
	sweep_set("kflush_memset_flushcache", kflush_memset_flushcache);
	zero_set("kflush_memset_flushcache", kflush_memset_flushcache);
}

/* The inline wrapper with a run-time size is the out-of-line call. */
Test(flushcache, memcpy_flushcache_runtime_size, .init = setup, .fini = teardown)
{
	struct tu_area a = tu_area_new(TU_SWEEP_MAX);

	for (volatile size_t n = 0; n <= 200; n++) {
		for (size_t doff = 0; doff < 64; doff++) {
			memcpy(tu_at(&a, doff), inv + 3, n);
			memcpy_flushcache(tu_at(&a, doff), src + 3, n);
			cr_assert(tu_check(&a, doff, src + 3, n) < 0, "n=%zu dst+%zu", (size_t)n, doff);
			tu_restore(&a, doff, n);
		}
	}
	tu_area_free(&a);
}
