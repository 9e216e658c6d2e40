// SPDX-License-Identifier: MIT
/*
 * The inline memcpy_flushcache() / memcpy_nontemporal() of include/kflush.h:
 * each fixed-size fast path (4, 8, 16, 32, 48, 64, 80, 96) called with the
 * size as a literal, so __builtin_constant_p sees a true constant, and the
 * same sizes through a volatile variable, which must take the out-of-line
 * call. Every destination offset in a line, several source offsets, guard
 * bytes both sides (offsets 0, 16, 32 and 48 take the movntdq path, the
 * rest movnti). tests/inline-nocall.sh proves the constant calls compile to
 * NT stores and no call.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "kflush.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t src_offs[] = { 0, 1, 3, 4, 7, 8, 33, 63 };

typedef void (*copy_fn)(void *d, const void *s);

/* One function per size and entry point, the size a literal in the call. */
#define FIXED(n)								\
	static void fc_##n(void *d, const void *s) { memcpy_flushcache(d, s, n); }	\
	static void nt_##n(void *d, const void *s) { memcpy_nontemporal(d, s, n); }	\
	static void fcv_##n(void *d, const void *s)				\
	{									\
		volatile size_t len = n;					\
		memcpy_flushcache(d, s, len);					\
	}									\
	static void ntv_##n(void *d, const void *s)				\
	{									\
		volatile size_t len = n;					\
		memcpy_nontemporal(d, s, len);					\
	}

FIXED(4) FIXED(8) FIXED(16) FIXED(32) FIXED(48) FIXED(64) FIXED(80) FIXED(96)

/* Sizes next to the fast paths take the out-of-line call even when constant. */
FIXED(3) FIXED(12) FIXED(24) FIXED(97)

static const struct {
	size_t n;
	copy_fn fc, nt, fcv, ntv;
} cases[] = {
#define CASE(n) { n, fc_##n, nt_##n, fcv_##n, ntv_##n }
	CASE(4), CASE(8), CASE(16), CASE(32), CASE(48), CASE(64), CASE(80), CASE(96),
	CASE(3), CASE(12), CASE(24), CASE(97),
#undef CASE
};

static void run(const char *what, copy_fn fn, size_t n)
{
	struct tu_area a = tu_area_new(128);
	unsigned char src[256], inv[256];

	tu_fill(src, sizeof(src), (uint32_t)n);
	for (size_t i = 0; i < sizeof(src); i++)
		inv[i] = (unsigned char)~src[i];
	for (size_t doff = 0; doff < 64; doff++) {
		for (size_t i = 0; i < ARRAY_SIZE(src_offs); i++) {
			size_t soff = src_offs[i];
			long bad;

			memcpy(tu_at(&a, doff), inv + soff, n);
			fn(tu_at(&a, doff), src + soff);
			bad = tu_check(&a, doff, src + soff, n);
			cr_assert(bad < 0, "%s n=%zu dst+%zu src+%zu: wrong byte at %+ld from dst",
				  what, n, doff, soff, bad - (long)(TU_GUARD + doff));
			tu_restore(&a, doff, n);
		}
	}
	tu_area_free(&a);
}

Test(inline, memcpy_flushcache_constant)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run("memcpy_flushcache", cases[i].fc, cases[i].n);
}

Test(inline, memcpy_nontemporal_constant)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run("memcpy_nontemporal", cases[i].nt, cases[i].n);
}

Test(inline, memcpy_flushcache_variable)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run("memcpy_flushcache (volatile size)", cases[i].fcv, cases[i].n);
}

Test(inline, memcpy_nontemporal_variable)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run("memcpy_nontemporal (volatile size)", cases[i].ntv, cases[i].n);
}

/* A source that overlaps nothing but is itself unaligned inside a struct. */
Test(inline, struct_page_sized_copy)
{
	struct page64 { uint64_t w[8]; } __attribute__((aligned(64)));
	struct page64 tmpl = { { 1, 2, 3, 4, 5, 6, 7, 8 } }, pages[4];

	memset(pages, 0, sizeof(pages));
	for (int i = 0; i < 4; i++) {
		tmpl.w[0] = (uint64_t)i;
		memcpy_nontemporal(&pages[i], &tmpl, sizeof(tmpl));
	}
	kflush_drain();
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(pages[i].w[0], (uint64_t)i);
		cr_assert_eq(pages[i].w[7], 8);
	}
}
