/* SPDX-License-Identifier: MIT */
/*
 * The "wide" method: what the kernel cannot do (no vector registers in
 * memmap init, one struct page per copy). Struct pages are packed back to
 * back, so G consecutive ones tile L whole cache lines (64 B: 1 and 1, 80 B:
 * 4 and 5, 56 B: 8 and 7). wide builds such a group from the template once
 * (nothing in it depends on the pfn) and streams it as whole-line
 * non-temporal stores: one 64-byte AVX-512 store, or two 32-byte AVX2 ones,
 * per line. Storing a line in pieces of different widths, or partly through
 * the cache (PMDK's edges), is what makes packed 80-byte struct pages slow.
 *
 * Unlike the kernel's template path, pageblock-aligned struct pages go out
 * in the same stream instead of through a cached copy, and page[1]/page[2]
 * of a compound page are streamed already holding prep_compound_head()'s
 * fields: the bytes are the same, and no streamed line is read back.
 *
 * Include after methods.h, in a file built with -mavx2 or -mavx512f.
 */
#ifndef PMEMTEST_REPLAY_WIDE_H
#define PMEMTEST_REPLAY_WIDE_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define WIDE_MAX_GROUP 8

REPLAY_INLINE void nt8(char *d, const char *s)
{
	long long v;

	__builtin_memcpy(&v, s, 8);
	_mm_stream_si64((long long *)d, v);
}

REPLAY_INLINE void line_store(char *d, const char *s, const int has512)
{
	(void)has512;
#ifdef __AVX512F__
	if (has512) {
		_mm512_stream_si512((void *)d, _mm512_load_si512((const void *)s));
		return;
	}
#endif
	_mm256_stream_si256((__m256i *)d, _mm256_load_si256((const __m256i *)s));
	_mm256_stream_si256((__m256i *)(d + 32), _mm256_load_si256((const __m256i *)(s + 32)));
}

/* Struct pages per group of whole lines, and the lines they fill. */
REPLAY_INLINE unsigned int wide_group(const unsigned int sp)
{
	return !(sp & 63) ? 1 : !(sp & 31) ? 2 : !(sp & 15) ? 4 : 8;
}

/* One struct page outside a whole-line group: whole lines wide, edges movnti. */
REPLAY_INLINE void wide_page(char *d, const struct mm_page *t, const unsigned int sp, const int has512)
{
	struct mm_page c __attribute__((aligned(64)));
	const char *s = (const char *)&c;
	unsigned int n = sp;

	memcpy(&c, t, sp);
	for (; n >= 8 && ((uintptr_t)d & 63); d += 8, s += 8, n -= 8)
		nt8(d, s);
	for (; n >= 64; d += 64, s += 64, n -= 64) {
		char line[64] __attribute__((aligned(64)));

		memcpy(line, s, 64);
		line_store(d, line, has512);
	}
	for (; n >= 8; d += 8, s += 8, n -= 8)
		nt8(d, s);
}

/* Struct pages [pfn, end) from template t (slot 0 of a group may differ: first). */
REPLAY_INLINE void wide_emit(const struct replay_ns *ns, uint64_t pfn, uint64_t end, const struct mm_page *t,
			 const unsigned int sp, const int has512)
{
	const unsigned int g = wide_group(sp), lines = sp * g / 64;
	char blk[WIDE_MAX_GROUP * 80] __attribute__((aligned(64)));
	char *d = replay_page(ns, pfn);

	for (; pfn < end && (pfn - ns->base_pfn) % g; pfn++, d += sp)
		wide_page(d, t, sp, has512);
	if (end - pfn >= g) {
		for (unsigned int j = 0; j < g; j++)
			memcpy(blk + j * sp, t, sp);
		for (; pfn + g <= end; pfn += g, d += 64 * lines)
			for (unsigned int l = 0; l < lines; l++)
				line_store(d + 64 * l, blk + 64 * l, has512);
	}
	for (; pfn < end; pfn++, d += sp)
		wide_page(d, t, sp, has512);
}

REPLAY_INLINE void wide_run(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp,
			const int has512)
{
	/* Enough whole groups to hold page[0..2] of a compound page. */
	const unsigned int g = wide_group(sp), fg = (3 + g - 1) / g * g, flines = sp * fg / 64;
	struct mm_page t __attribute__((aligned(64)));
	struct mm_page tt __attribute__((aligned(64)));
	char blk[WIDE_MAX_GROUP * 80] __attribute__((aligned(64)));

	init_zdev_page(ns, &t, (uintptr_t)&t, lo, sp, false);
	if (ns->ppc == 1) {
		wide_emit(ns, lo, hi, &t, sp, has512);
		set_pageblocks(ns, lo, hi);
		kflush_drain();
		return;
	}
	t.flags |= 1ULL << ns->k->pg_head;
	init_zdev_page(ns, &tt, (uintptr_t)&tt, lo + 1, sp, false);
	prep_tail(ns, &tt, 0, sp);
	for (uint64_t head = lo; head < hi; head += ns->ppc) {
		char *h = replay_page(ns, head);

		/*
		 * The head and the first tails, page[1] and page[2] included,
		 * are built in the block with their final folio fields, so no
		 * line is rewritten through the cache after being streamed:
		 * no drain and no re-read per compound page, unlike the kernel.
		 */
		tt.u[0] = tail_info(ns, (uintptr_t)h, sp);
		memcpy(blk, &t, sp);
		for (unsigned int j = 1; j < fg; j++)
			memcpy(blk + j * sp, &tt, sp);
		prep_page1(ns, (struct mm_page *)(blk + sp), sp);
		prep_page2(ns, (struct mm_page *)(blk + 2 * sp), (uintptr_t)(h + 2 * sp));
		for (unsigned int l = 0; l < flines; l++)
			line_store(h + 64 * l, blk + 64 * l, has512);
		wide_emit(ns, head + fg, head + ns->compound_nr, &tt, sp, has512);
		if (!ns->k->pageblocks_after)
			set_pageblocks(ns, head, head + ns->compound_nr);
	}
	if (ns->k->pageblocks_after)
		set_pageblocks(ns, lo, hi);
	kflush_drain();
}

#define REPLAY_DEFINE_WIDE(has512, name, sp)						\
	static void name##_##sp(const struct replay_ns *ns, uint64_t lo, uint64_t hi)	\
	{ wide_run(ns, lo, hi, sp, has512); }

#endif /* PMEMTEST_REPLAY_WIDE_H */
