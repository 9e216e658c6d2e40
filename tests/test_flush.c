// SPDX-License-Identifier: MIT
/*
 * kflush_flush and its variants, kflush_drain, kflush_persist: write-back
 * must not change data, for any range, and len 0 must touch nothing.
 * *Which* lines each variant writes back, with which instruction, and the
 * fences of drain and persist, are proven by watching the instructions in
 * test_persistence.c.
 */
#include <cpuid.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "kflush.h"
#include "testutil.h"

#define MAX_VARIANTS 8
#define SWEEP_MAX 300
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t large[] = { 4095, 4096, 4097, 65536 + 13 };

static kflush_flush_fn flush_fn(const struct tu_variant *v)
{
	kflush_flush_fn fn = (kflush_flush_fn)kflush_variant_fn(KFLUSH_OP_FLUSH,
								 (unsigned int)v->idx);

	cr_assert(fn, "flush variant %s reported usable but has no function", v->name);
	return fn;
}


/* Write back [off, off+len) of a payload of plen pattern bytes: all of the data is unchanged. */
static void flush_one(const char *name, kflush_flush_fn fn, struct tu_area *a,
		      const unsigned char *pattern, size_t plen, size_t off, size_t len)
{
	unsigned char *p = tu_at(a, off);
	long bad;

	fn(p, len);
	bad = tu_check(a, off, pattern, plen);
	if (bad >= 0)
		cr_assert_fail("flush %s: len=%zu at +%zu changed the byte at %+ld", name, len, off,
			       bad - (long)(TU_GUARD + off));
}

static void sweep(const char *name, kflush_flush_fn fn)
{
	struct tu_area a = tu_area_new(65536 + 13);
	unsigned char *pattern = malloc(65536 + 13);

	cr_assert(pattern);
	tu_fill(pattern, 65536 + 13, 3);
	for (size_t off = 0; off < 64; off++) {
		/* The payload itself is non-guard data: flushing must keep it. */
		memcpy(tu_at(&a, off), pattern, SWEEP_MAX);
		for (size_t len = 0; len <= SWEEP_MAX; len++)
			flush_one(name, fn, &a, pattern, SWEEP_MAX, off, len);
		tu_restore(&a, off, SWEEP_MAX);
	}
	for (size_t i = 0; i < ARRAY_SIZE(large); i++) {
		for (size_t off = 0; off < 64; off += 21) {
			memcpy(tu_at(&a, off), pattern, large[i]);
			flush_one(name, fn, &a, pattern, large[i], off, large[i]);
			tu_restore(&a, off, large[i]);
		}
	}
	free(pattern);
	tu_area_free(&a);
}

/* len 0 must touch nothing: not even the line holding addr. */
struct flush_ctx {
	kflush_flush_fn fn;
};

static void flush_nothing(unsigned char *page, size_t off, void *ctx)
{
	((struct flush_ctx *)ctx)->fn(page + 1024 + off, 0);
}

static void zero_len(const char *name, kflush_flush_fn fn)
{
	struct flush_ctx c = { fn };
	long at = tu_first_access(flush_nothing, &c, 64);

	cr_assert_eq(at, -1, "flush %s: len=0 at line offset %ld accessed the line", name, at);
}

ParameterizedTestParameters(flush, variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_FLUSH, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flush, variant)
{
	sweep(v->name, flush_fn(v));
}

ParameterizedTestParameters(flush, variant_len0)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_FLUSH, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flush, variant_len0)
{
	zero_len(v->name, flush_fn(v));
}

Test(flush, kflush_flush)
{
	sweep("kflush_flush", kflush_flush);
	zero_len("kflush_flush", kflush_flush);
}

/* Every baseline x86-64 CPU has clflush, so the fallback always exists. */
Test(flush, registry)
{
	int n = kflush_variant_count(KFLUSH_OP_FLUSH), bound = kflush_variant_bound(KFLUSH_OP_FLUSH);

	cr_assert_geq(n, 3);
	cr_assert_geq(kflush_variant_find(KFLUSH_OP_FLUSH, "clwb"), 0);
	cr_assert_geq(kflush_variant_find(KFLUSH_OP_FLUSH, "clflushopt"), 0);
	cr_assert_eq(kflush_variant_usable(KFLUSH_OP_FLUSH,
					   (unsigned int)kflush_variant_find(KFLUSH_OP_FLUSH, "clflush")), 1);
	cr_assert(bound >= 0 && bound < n);
	cr_assert_eq(kflush_variant_usable(KFLUSH_OP_FLUSH, (unsigned int)bound), 1);
}

/*
 * The line size is the CPU's, read here the SDM's way (vol. 2A, CPUID
 * leaf 01H): EBX bits 15:8 times 8 bytes, valid when EDX.CLFSH (bit 19) is
 * set. Every CPU seen so far says 64, which is also the library's default,
 * so on those a library that stopped asking would pass too.
 */
Test(flush, cache_line_size_is_the_cpus)
{
	unsigned int a, b, c, d;

	cr_assert(__get_cpuid(1, &a, &b, &c, &d));
	cr_assert(d & (1u << 19), "CPUID.01H:EDX.CLFSH clear on x86-64");
	cr_assert_neq((b >> 8) & 0xff, 0);
	cr_assert_eq(kflush_cache_line_size(), ((b >> 8) & 0xff) * 8);
	/* Every routine steps by 64-byte lines: a CPU saying otherwise is news. */
	cr_assert_eq(kflush_cache_line_size(), 64);
}

Test(flush, drain_persist)
{
	struct tu_area a = tu_area_new(4096);
	unsigned char pattern[4096];

	tu_fill(pattern, sizeof(pattern), 9);
	kflush_drain();
	for (size_t off = 0; off < 64; off += 9) {
		memcpy(tu_at(&a, off), pattern, sizeof(pattern));
		for (size_t len = 0; len <= sizeof(pattern); len += 97) {
			kflush_persist(tu_at(&a, off), len);
			cr_assert(tu_check(&a, off, pattern, sizeof(pattern)) < 0, "persist len=%zu +%zu",
				  len, off);
		}
		tu_restore(&a, off, sizeof(pattern));
	}
	kflush_drain();
	tu_area_free(&a);
}
