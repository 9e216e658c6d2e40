// SPDX-License-Identifier: MIT
/*
 * The page routines: every usable variant of clear_page, clear_pages,
 * clear_pages_flushcache and copy_page on pages full of non-zero data,
 * with the pages on either side filled too and checked untouched, and the
 * exported entry points bound by the documented precedence. The
 * no-dirty-line proof for clear_pages_flushcache is in
 * test_pages_persistence.c (it single-steps the variants under ptrace).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "doc_rules.h"
#include "testutil.h"

#define PAGE KFLUSH_PAGE_SIZE
#define MAX_VARIANTS 8

static const size_t npages_list[] = { 0, 1, 2, 3, 17, 512 };
#define NR_NPAGES (sizeof(npages_list) / sizeof(npages_list[0]))

/*
 * npages pages with one neighbour page on each side, all filled with a
 * non-zero pattern, and two PROT_NONE pages around the lot: a variant
 * that strays further than a neighbour faults instead of passing.
 */
struct pages {
	unsigned char *map;
	size_t maplen;
	unsigned char *first;	/* the first page under test */
	size_t npages;
};

static struct pages pages_new(size_t npages, uint32_t seed)
{
	struct pages p = { .maplen = (npages + 4) * PAGE, .npages = npages };

	p.map = mmap(NULL, p.maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p.map, MAP_FAILED);
	cr_assert_eq(mprotect(p.map, PAGE, PROT_NONE), 0);
	cr_assert_eq(mprotect(p.map + p.maplen - PAGE, PAGE, PROT_NONE), 0);
	p.first = p.map + 2 * PAGE;
	tu_fill(p.first - PAGE, (npages + 2) * PAGE, seed);
	return p;
}

static void pages_free(struct pages *p)
{
	munmap(p->map, p->maplen);
}

/* The pages under test are zero; the neighbours still hold the pattern. */
static void assert_cleared(const struct pages *p, uint32_t seed, const char *what)
{
	unsigned char *before = malloc(PAGE), *after = malloc(PAGE), *ref;

	cr_assert(before && after);
	ref = malloc((p->npages + 2) * PAGE);
	cr_assert_not_null(ref);
	tu_fill(ref, (p->npages + 2) * PAGE, seed);
	memcpy(before, ref, PAGE);
	memcpy(after, ref + (p->npages + 1) * PAGE, PAGE);
	cr_assert_arr_eq(p->first - PAGE, before, PAGE, "%s: page before was written", what);
	cr_assert_arr_eq(p->first + p->npages * PAGE, after, PAGE, "%s: page after was written", what);
	for (size_t i = 0; i < p->npages * PAGE; i++)
		if (p->first[i])
			cr_assert_fail("%s (%zu pages): byte %zu is %#x, not zero", what, p->npages,
				       i, p->first[i]);
	free(ref);
	free(before);
	free(after);
}

static kflush_fn fn_of(const struct tu_variant *v)
{
	kflush_fn fn = kflush_variant_fn((enum kflush_op)v->op, (unsigned int)v->idx);

	cr_assert_not_null(fn, "%s/%s has no entry point", kflush_op_name((enum kflush_op)v->op),
			   v->name);
	return fn;
}

#define VARIANT_PARAMS(suite, name, op)						\
	ParameterizedTestParameters(suite, name)				\
	{									\
		static struct tu_variant v[MAX_VARIANTS];			\
		size_t n = tu_usable_variants(op, v, MAX_VARIANTS);		\
										\
		return cr_make_param_array(struct tu_variant, v, n);		\
	}

VARIANT_PARAMS(clear_page, variants, KFLUSH_OP_CLEAR_PAGE)

ParameterizedTest(struct tu_variant *v, clear_page, variants)
{
	kflush_clear_page_fn fn = (kflush_clear_page_fn)fn_of(v);

	for (uint32_t seed = 1; seed <= 4; seed++) {
		struct pages p = pages_new(1, seed);

		fn(p.first);
		assert_cleared(&p, seed, v->name);
		pages_free(&p);
	}
}

VARIANT_PARAMS(clear_pages, variants, KFLUSH_OP_CLEAR_PAGES)

ParameterizedTest(struct tu_variant *v, clear_pages, variants)
{
	kflush_clear_pages_fn fn = (kflush_clear_pages_fn)fn_of(v);

	for (size_t i = 0; i < NR_NPAGES; i++) {
		struct pages p = pages_new(npages_list[i], (uint32_t)i + 10);

		fn(p.first, p.npages);
		assert_cleared(&p, (uint32_t)i + 10, v->name);
		pages_free(&p);
	}
}

VARIANT_PARAMS(clear_pages_flushcache, variants, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE)

ParameterizedTest(struct tu_variant *v, clear_pages_flushcache, variants)
{
	kflush_clear_pages_fn fn = (kflush_clear_pages_fn)fn_of(v);

	for (size_t i = 0; i < NR_NPAGES; i++) {
		struct pages p = pages_new(npages_list[i], (uint32_t)i + 20);

		fn(p.first, p.npages);
		kflush_drain();
		assert_cleared(&p, (uint32_t)i + 20, v->name);
		pages_free(&p);
	}
}

VARIANT_PARAMS(copy_page, variants, KFLUSH_OP_COPY_PAGE)

/*
 * The source page sits between two PROT_NONE pages (so a read past either
 * end faults: copy_page_mov's prefetch must stop at the page end, though a
 * prefetch would not fault anyway), the destination between two filled
 * neighbours.
 */
ParameterizedTest(struct tu_variant *v, copy_page, variants)
{
	kflush_copy_page_fn fn = (kflush_copy_page_fn)fn_of(v);

	for (uint32_t seed = 1; seed <= 4; seed++) {
		unsigned char *smap = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned char *ref = malloc(PAGE);
		struct pages dst = pages_new(1, seed + 100);
		unsigned char *src;

		cr_assert_neq(smap, MAP_FAILED);
		cr_assert_not_null(ref);
		src = smap + PAGE;
		cr_assert_eq(mprotect(smap, PAGE, PROT_NONE), 0);
		cr_assert_eq(mprotect(smap + 2 * PAGE, PAGE, PROT_NONE), 0);
		tu_fill(src, PAGE, seed);
		memcpy(ref, src, PAGE);
		cr_assert_eq(mprotect(src, PAGE, PROT_READ), 0);

		fn(dst.first, src);

		cr_assert_arr_eq(dst.first, ref, PAGE, "%s: copy differs", v->name);
		/* assert_cleared's neighbour check, minus the page itself. */
		memset(dst.first, 0, PAGE);
		assert_cleared(&dst, seed + 100, v->name);
		pages_free(&dst);
		free(ref);
		munmap(smap, 3 * PAGE);
	}
}

/*
 * Which variant an op should bind, first match wins; NULL ends the list.
 * This host's documented per-CPU rules (tests/doc_rules.c) come first, in
 * their order, each naming any variant of the list; a rule-only variant
 * matches nowhere else.
 */
struct rule {
	uint64_t needs;
	const char *name;
	int rule_only;
};

static void assert_bound(enum kflush_op op, const struct rule *rules)
{
	uint64_t f = kflush_cpu_features();
	int bound = kflush_variant_bound(op);
	const char *got = kflush_variant_name(op, (unsigned int)bound);
	const struct doc_rule *r;

	if (!doc_host.vendor[0])
		doc_read_host();
	cr_log_info("%s: bound %s", kflush_op_name(op), got);
	for (unsigned int nth = 0;
	     doc_rules_on() &&
	     (r = doc_rule_for(doc_host.vendor, doc_host.family, doc_host.model, op, nth));
	     nth++)
		for (const struct rule *k = rules; k->name; k++)
			if (strcmp(k->name, r->variant) == 0 && (k->needs & f) == k->needs) {
				cr_assert_str_eq(got, k->name, "%s: bound %s, this CPU's rule says %s",
						 kflush_op_name(op), got, k->name);
				return;
			}
	for (; rules->name; rules++) {
		if (rules->rule_only || (rules->needs & f) != rules->needs)
			continue;
		cr_assert_str_eq(got, rules->name, "%s: bound %s, precedence says %s (features %#llx)",
				 kflush_op_name(op), got, rules->name, (unsigned long long)f);
		return;
	}
	cr_assert_fail("%s: no rule matched", kflush_op_name(op));
}

/* The precedence, and KFLUSH_HWCAPS really masking what it names. */
Test(pages, bound)
{
	static const struct rule clear[] = {
		{ KFLUSH_CPU_ERMS, "rep_stosb", 0 }, { KFLUSH_CPU_REP_GOOD, "rep_stosq", 0 },
		{ 0, "mov", 0 }, { 0, NULL, 0 },
	};
	static const struct rule clear_pages[] = {
		{ KFLUSH_CPU_REP_GOOD, "rep_stosq_page", 1 }, { KFLUSH_CPU_ERMS, "rep_stosb", 0 },
		{ KFLUSH_CPU_REP_GOOD, "rep_stosq", 0 }, { 0, "mov", 0 }, { 0, NULL, 0 },
	};
	static const struct rule copy[] = {
		{ KFLUSH_CPU_ERMS, "rep_movsb", 0 }, { KFLUSH_CPU_REP_GOOD, "rep_movsq", 0 },
		{ 0, "mov", 0 }, { 0, NULL, 0 },
	};
	static const struct rule flushcache[] = {
		{ KFLUSH_CPU_CLZERO, "clzero", 0 }, { KFLUSH_CPU_AVX512F, "avx512", 0 },
		{ KFLUSH_CPU_AVX2, "avx2", 0 }, { 0, "movnti", 0 }, { 0, NULL, 0 },
	};
	const char *env = getenv("KFLUSH_HWCAPS");

	assert_bound(KFLUSH_OP_CLEAR_PAGE, clear);
	assert_bound(KFLUSH_OP_CLEAR_PAGES, clear_pages);
	assert_bound(KFLUSH_OP_COPY_PAGE, copy);
	assert_bound(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, flushcache);

	for (unsigned int i = 0; env && i < KFLUSH_CPU_NR_FEATURES; i++) {
		const char *name = kflush_cpu_feature_name(1ULL << i);
		char needle[32];

		snprintf(needle, sizeof(needle), "-%s", name);
		if (strstr(env, needle))
			cr_assert_eq(kflush_cpu_features() & (1ULL << i), 0,
				     "KFLUSH_HWCAPS=%s did not mask %s", env, name);
	}
}

/* The exported entry points, through whatever was bound. */
Test(pages, entry_points)
{
	struct pages p = pages_new(1, 41);
	unsigned char *src = malloc(PAGE);

	kflush_clear_page(p.first);
	assert_cleared(&p, 41, "kflush_clear_page");
	pages_free(&p);

	p = pages_new(3, 42);
	kflush_clear_pages(p.first, 3);
	assert_cleared(&p, 42, "kflush_clear_pages");
	pages_free(&p);

	p = pages_new(3, 43);
	kflush_clear_pages_flushcache(p.first, 3);
	kflush_drain();
	assert_cleared(&p, 43, "kflush_clear_pages_flushcache");
	pages_free(&p);

	cr_assert_not_null(src);
	p = pages_new(1, 44);
	tu_fill(src, PAGE, 45);
	kflush_copy_page(p.first, src);
	cr_assert_arr_eq(p.first, src, PAGE, "kflush_copy_page");
	pages_free(&p);
	free(src);
}
