// SPDX-License-Identifier: MIT
/*
 * The persistence proof for kflush_clear_pages_flushcache: each usable
 * variant of the recording build (every store reported to tests/recorder.c)
 * must write every byte of the extent, nothing outside it, leave no line
 * dirty and not fence; and every byte it writes must be non-temporal.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sys/mman.h>

#include "recorder.h"
#include "testutil.h"

#define PAGE KFLUSH_PAGE_SIZE
#define MAX_VARIANTS 8

ParameterizedTestParameters(clear_pages_flushcache, proof)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, clear_pages_flushcache, proof)
{
	static const size_t npages_list[] = { 0, 1, 2, 3, 5, 17, 64 };
	kflush_clear_pages_fn fn = (kflush_clear_pages_fn)kflush_variant_fn(
		KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, (unsigned int)v->idx);

	cr_assert_not_null(fn);
	for (size_t i = 0; i < sizeof(npages_list) / sizeof(npages_list[0]); i++) {
		size_t npages = npages_list[i], len = (npages + 2) * PAGE;
		unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned char *first = map + PAGE;
		struct rec_report r;

		cr_assert_neq(map, MAP_FAILED);
		tu_fill(map, len, (uint32_t)npages + 1);

		/* Watch the neighbours too, so a stray store counts as outside. */
		rec_begin(map, len);
		fn(first, npages);
		cr_assert_eq(rec_verify(first, npages * PAGE, &r), 0,
			     "%s, %zu pages: %zu dirty lines, %zu unwritten, %zu outside, "
			     "%zu fences; first problem at offset %td", v->name, npages,
			     r.dirty_lines, r.unwritten, r.outside, r.fences,
			     r.first_bad ? (unsigned char *)r.first_bad - first : 0);
		cr_assert_eq(r.nt_bytes, npages * PAGE, "%s: %zu NT bytes for %zu pages",
			     v->name, r.nt_bytes, npages);
		cr_assert_eq(r.cached_bytes, 0, "%s: cached stores", v->name);
		cr_assert_eq(r.writebacks, 0, "%s: write-backs with nothing to write back",
			     v->name);
		rec_end();

		for (size_t b = 0; b < npages * PAGE; b++)
			if (first[b])
				cr_assert_fail("%s, %zu pages: byte %zu not zero", v->name, npages, b);
		munmap(map, len);
	}
}
