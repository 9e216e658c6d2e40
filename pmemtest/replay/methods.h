/* SPDX-License-Identifier: MIT */
/*
 * The replay's inline core, compiled into methods.c and, with their own -m
 * flags, into the wide-store files. Every loop is instantiated once per
 * struct page size, so the size is a compile-time constant as sizeof(struct
 * page) is in the kernel, and only "generic" hides it on purpose. What
 * differs between kernel versions comes from the model (ns->k, kmodel.c).
 *
 * x86-64 struct page, words of 8 bytes (include/linux/mm_types.h):
 *   w0      flags: node, zone and last_cpupid fields at the top, PG_* below
 *   w1..w5  union: lru.next/pgmap/compound_head, lru.prev/zone_device_data,
 *           mapping, index, private
 *   w6      _mapcount (low 32 bits), _refcount (high 32 bits)
 *   w7      memcg_data                          (sp >= 64)
 *   w8, w9  kmsan_shadow, kmsan_origin          (sp 80; zero after init)
 * Nothing in it depends on the pfn: x86-64 has no WANT_PAGE_VIRTUAL, and
 * lru's self-pointers are overwritten by pgmap and zone_device_data, so a
 * template needs no refresh between copies.
 */
#ifndef PMEMTEST_REPLAY_IMPL_H
#define PMEMTEST_REPLAY_IMPL_H

#include <string.h>

#include "kflush.h"
#include "kmodel.h"
#include "replay.h"

#define REPLAY_INLINE static inline __attribute__((always_inline))

struct mm_page {
	uint64_t flags;
	uint64_t u[5];
	int32_t mapcount;
	int32_t refcount;
	uint64_t w7;
	uint64_t w8;
	uint64_t w9;
};

/* The kernel writes these fields with plain stores; so do we. */
#define W64(lv) (*(volatile uint64_t *)&(lv))
#define W32(lv) (*(volatile int32_t *)&(lv))
#define W8(lv) (*(volatile uint8_t *)&(lv))

REPLAY_INLINE bool pageblock_aligned(uint64_t pfn)
{
	return !(pfn & (REPLAY_PAGEBLOCK_NR - 1));
}

/* init_pageblock_migratetype(): the zone's bitmap, not the struct page. */
REPLAY_INLINE void set_pageblock(const struct replay_ns *ns, uint64_t pfn)
{
	uint64_t pb = (pfn - ns->base_pfn) / REPLAY_PAGEBLOCK_NR;
	uint8_t *b = &ns->pageblock[pb / 2];
	unsigned int sh = (pb & 1) * 4;

	*b = (uint8_t)((*b & ~(0xfu << sh)) | (REPLAY_MIGRATE_MOVABLE << sh));
}

/* 6.1's pageblock_migratetype_init_range(): every pageblock of [lo, hi). */
REPLAY_INLINE void set_pageblocks(const struct replay_ns *ns, uint64_t lo, uint64_t hi)
{
	for (uint64_t p = (lo + REPLAY_PAGEBLOCK_NR - 1) & ~(uint64_t)(REPLAY_PAGEBLOCK_NR - 1); p < hi;
	     p += REPLAY_PAGEBLOCK_NR)
		set_pageblock(ns, p);
}

/* mm_zero_struct_page(): last word first, one 8-byte store each. */
REPLAY_INLINE void zero_page(struct mm_page *p, const unsigned int sp)
{
	uint64_t *w = (uint64_t *)p;

	switch (sp) {
	case 80: W64(w[9]) = 0; W64(w[8]) = 0; /* fall through */
	case 64: W64(w[7]) = 0; /* fall through */
	default:
		W64(w[6]) = 0; W64(w[5]) = 0; W64(w[4]) = 0; W64(w[3]) = 0;
		W64(w[2]) = 0; W64(w[1]) = 0; W64(w[0]) = 0;
	}
}

REPLAY_INLINE uint64_t flags_rmw(struct mm_page *p, uint64_t clear, uint64_t set)
{
	uint64_t f = (W64(p->flags) & ~clear) | set;

	W64(p->flags) = f;
	return f;
}

/*
 * __init_single_page() for ZONE_DEVICE. self is the address the struct page
 * really has (p may be a template or a scratch copy).
 */
REPLAY_INLINE void init_single_page(const struct replay_ns *ns, struct mm_page *p, uint64_t self,
				const unsigned int sp)
{
	const struct replay_kernel *k = ns->k;

	zero_page(p, sp);
	/* set_page_links() */
	flags_rmw(p, k->zones_mask << k->zones_pgshift, (uint64_t)k->zone_device << k->zones_pgshift);
	flags_rmw(p, k->nodes_mask << k->nodes_pgshift,
		  ((uint64_t)ns->nid & k->nodes_mask) << k->nodes_pgshift);
	W32(p->refcount) = 1;		/* init_page_count() */
	W32(p->mapcount) = -1;		/* page_mapcount_reset() */
	flags_rmw(p, 0, k->cpupid_mask << k->cpupid_pgshift);	/* page_cpupid_reset_last() */
	W64(p->u[0]) = self + 8;	/* INIT_LIST_HEAD(&page->lru) */
	W64(p->u[1]) = self + 8;
}

/* __init_single_page() + __init_zone_device_page(). */
REPLAY_INLINE void init_zdev_page(const struct replay_ns *ns, struct mm_page *p, uint64_t self,
			      uint64_t pfn, const unsigned int sp, bool pageblock)
{
	const struct replay_kernel *k = ns->k;

	init_single_page(ns, p, self, sp);
	flags_rmw(p, 0, 1ULL << k->pg_reserved);	/* __SetPageReserved() */
	W64(p->u[0]) = ns->pgmap;	/* pgmap overlays lru.next */
	W64(p->u[1]) = 0;		/* zone_device_data */
	if (pageblock && !k->pageblocks_after && pageblock_aligned(pfn))
		set_pageblock(ns, pfn);
	if (!ns->devdax && k->fsdax_refcount == 0)	/* MEMORY_DEVICE_FS_DAX */
		W32(p->refcount) = 0;
}

/* set_compound_head(): what a tail's first word says about its head. */
REPLAY_INLINE uint64_t tail_info(const struct replay_ns *ns, uint64_t head, const unsigned int sp)
{
	if (ns->k->tail_mask && !(sp & (sp - 1)))
		return (~0ULL << (ns->order + (unsigned int)__builtin_ctz(sp))) | 1;
	return head | 1;
}

/* prep_compound_tail() + set_page_count(page, 0). */
REPLAY_INLINE void prep_tail(const struct replay_ns *ns, struct mm_page *p, uint64_t head,
			 const unsigned int sp)
{
	W64(p->u[2]) = ns->k->tail_mapping;
	W64(p->u[0]) = tail_info(ns, head, sp);
	W64(p->u[4]) = 0;		/* set_page_private(p, 0); 2026 only checks it */
	W32(p->refcount) = 0;
}

/* prep_compound_head(): page[1]'s compound or folio fields. */
REPLAY_INLINE void prep_page1(const struct replay_ns *ns, struct mm_page *p, const unsigned int sp)
{
	uint8_t *b = (uint8_t *)&p->u[1];
	int32_t *i = (int32_t *)&p->u[1], *nr = (int32_t *)&p->w7;
	unsigned int order = ns->order;

	if (ns->k->folio == REPLAY_FOLIO_COMPOUND_61) {
		W8(b[0]) = ns->k->compound_dtor;	/* set_compound_page_dtor() */
		W8(b[1]) = (uint8_t)order;		/* set_compound_order() */
		W32(i[3]) = 1 << order;			/* compound_nr */
		W32(i[1]) = -1;				/* compound_mapcount */
		W32(i[2]) = 0;				/* compound_pincount */
		return;
	}
	flags_rmw(p, 0xff, order);	/* folio_set_order(): _flags_1 */
	if (sp >= 64)			/* NR_PAGES_IN_LARGE_FOLIO: memcg_data's word */
		W32(nr[0]) = 1 << order;	/* _nr_pages */
	W32(i[0]) = -1;			/* _large_mapcount */
	W32(i[1]) = 0;			/* _nr_pages_mapped */
	W64(p->u[4]) = 0;		/* _mm_ids */
	W32(i[4]) = -1;			/* _mm_id_mapcount[0] */
	W32(i[5]) = -1;			/* _mm_id_mapcount[1] */
	W32(i[3]) = 0;			/* _pincount */
	W32(i[2]) = -1;			/* _entire_mapcount */
}

/* prep_compound_head(): page[2]'s _deferred_list (2026, order > 1). */
REPLAY_INLINE void prep_page2(const struct replay_ns *ns, struct mm_page *p, uint64_t self)
{
	if (ns->k->folio == REPLAY_FOLIO_2026 && ns->order > 1) {
		W64(p->u[1]) = self + 16;
		W64(p->u[2]) = self + 16;
	}
}

REPLAY_INLINE void prep_compound_head(const struct replay_ns *ns, char *head, const unsigned int sp)
{
	prep_page1(ns, (struct mm_page *)(head + sp), sp);
	prep_page2(ns, (struct mm_page *)(head + 2 * sp), (uint64_t)(uintptr_t)(head + 2 * sp));
}

/* memmap_init_zone_device(), the slow path, over [lo, hi). */
REPLAY_INLINE void slow_run(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp)
{
	if (ns->ppc == 1) {
		char *p = replay_page(ns, lo);

		for (uint64_t pfn = lo; pfn < hi; pfn++, p += sp)
			init_zdev_page(ns, (struct mm_page *)p, (uintptr_t)p, pfn, sp, true);
		if (ns->k->pageblocks_after)
			set_pageblocks(ns, lo, hi);
		return;
	}
	for (uint64_t head = lo; head < hi; head += ns->ppc) {
		char *h = replay_page(ns, head), *p = h;

		init_zdev_page(ns, (struct mm_page *)h, (uintptr_t)h, head, sp, true);
		flags_rmw((struct mm_page *)h, 0, 1ULL << ns->k->pg_head);	/* __SetPageHead() */
		for (unsigned int i = 1; i < ns->compound_nr; i++) {
			p += sp;
			init_zdev_page(ns, (struct mm_page *)p, (uintptr_t)p, head + i, sp, true);
			prep_tail(ns, (struct mm_page *)p, (uintptr_t)h, sp);
		}
		prep_compound_head(ns, h, sp);
	}
	if (ns->k->pageblocks_after)
		set_pageblocks(ns, lo, hi);
}

/* "generic" with --variant: the registry variant, called through its pointer. */
#define TMPL_GENERIC_VARIANT (-1)

/*
 * One template copy. "generic" gets its size through a volatile, so the
 * inline memcpy_nontemporal() cannot see a constant and calls the library.
 */
REPLAY_INLINE void tmpl_copy(const struct replay_ns *ns, const int m, char *dst, const struct mm_page *t,
			 const unsigned int sp, size_t n_rt)
{
	switch (m) {
	case REPLAY_GENERIC:
		memcpy_nontemporal(dst, t, n_rt);
		break;
	case TMPL_GENERIC_VARIANT:
		ns->generic_variant(dst, t, n_rt);
		break;
	case REPLAY_FIXED:
		memcpy_flushcache(dst, t, sp);
		break;
	case REPLAY_PMEM2:
		ns->pmem2_memcpy(dst, t, sp, ns->pmem2_flags);
		break;
	case REPLAY_MEMCPY:
		memcpy(dst, t, sp);
		break;
	default:
		__builtin_unreachable();
	}
}

REPLAY_INLINE void tmpl_drain(const struct replay_ns *ns, const int m)
{
	if (m == REPLAY_PMEM2)
		ns->pmem2_drain();
	else if (m != REPLAY_MEMCPY)
		kflush_drain();
}

/* A write hint: the line of p, for ownership (PRFCHW; --pageblock-copy prefetch checks it). */
REPLAY_INLINE void prefetchw(const void *p)
{
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
}

/* Whether the template path writes pfn's struct page before hi (no vmemmap-optimised tail). */
REPLAY_INLINE bool pfn_written(const struct replay_ns *ns, uint64_t pfn, uint64_t hi)
{
	return pfn < hi && (ns->ppc == 1 || (pfn - ns->start_pfn) % ns->ppc < ns->compound_nr);
}

/*
 * Pageblock-aligned pfns take an ordinary copy, as in the kernel, and the
 * bitmap update. That one cached copy in 512 struct pages costs the
 * streaming methods 10-14 % on Intel family 6 model 0xa7 (nd_pmem fixed
 * 0.81-0.84x the roof at 100 GiB and 0.88x at 16 GiB; 0.94-0.97x and
 * 0.98x with the same bytes streamed: libkflush(7), NOTES): its line is
 * not in the cache, and the NT stores after it wait behind its read for
 * ownership. --pageblock-copy stream measures the methods without it;
 * --pageblock-copy prefetch keeps the kernel's copy and asks here for the
 * next pageblock's struct page (each of its lines, if this run writes it),
 * 512 struct pages before it is written. Both are tested inside the
 * pageblock branch only: the other 511 pfns pay nothing for them.
 */
REPLAY_INLINE void tmpl_place(const struct replay_ns *ns, const int m, char *dst, const struct mm_page *t,
			  uint64_t pfn, uint64_t hi, const unsigned int sp, size_t n_rt)
{
	if (pageblock_aligned(pfn)) {
		if (ns->pageblock_copy == REPLAY_PB_STREAM) {
			tmpl_copy(ns, m, dst, t, sp, n_rt);
		} else {
			if (ns->pageblock_copy == REPLAY_PB_PREFETCH &&
			    pfn_written(ns, pfn + REPLAY_PAGEBLOCK_NR, hi)) {
				const char *next = dst + (size_t)REPLAY_PAGEBLOCK_NR * sp;

				prefetchw(next);
				if (((uintptr_t)next & 63) + sp > 64)
					prefetchw(next + sp - 1);
			}
			memcpy(dst, t, sp);
		}
		if (!ns->k->pageblocks_after)
			set_pageblock(ns, pfn);
	} else {
		tmpl_copy(ns, m, dst, t, sp, n_rt);
	}
}

/* The template path over [lo, hi). */
REPLAY_INLINE void tmpl_loop(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp,
			 const int m)
{
	struct mm_page t __attribute__((aligned(64)));
	struct mm_page tt __attribute__((aligned(64)));
	size_t n_rt = *(const volatile size_t *)&ns->sp_rt;
	char *p = replay_page(ns, lo);

	init_zdev_page(ns, &t, (uintptr_t)&t, lo, sp, false);
	if (ns->ppc == 1) {
		for (uint64_t pfn = lo; pfn < hi; pfn++, p += sp)
			tmpl_place(ns, m, p, &t, pfn, hi, sp, n_rt);
		tmpl_drain(ns, m);
		if (ns->k->pageblocks_after)
			set_pageblocks(ns, lo, hi);
		return;
	}
	t.flags |= 1ULL << ns->k->pg_head;
	init_zdev_page(ns, &tt, (uintptr_t)&tt, lo + 1, sp, false);
	prep_tail(ns, &tt, 0, sp);
	for (uint64_t head = lo; head < hi; head += ns->ppc) {
		char *h = replay_page(ns, head);
		unsigned int i = 1;

		p = h;
		tmpl_place(ns, m, p, &t, head, hi, sp, n_rt);
		tt.u[0] = tail_info(ns, (uintptr_t)h, sp);
		if (ns->compound_head == REPLAY_CH_CACHED)	/* peeled: no test per tail */
			for (; i < 3 && i < ns->compound_nr; i++) {
				p += sp;
				memcpy(p, &tt, sp);
			}
		for (; i < ns->compound_nr; i++) {
			p += sp;
			tmpl_place(ns, m, p, &tt, head + i, hi, sp, n_rt);
		}
		/*
		 * The tails' streaming stores must land before page[1]/[2] are
		 * rewritten. On Intel model 0xa7 that drain, one per compound
		 * page, held dax_pmem's fixed to 0.78-0.81 of the roof against
		 * 0.84-0.86 without it, and to 0.84-0.85 against 0.92-0.93 with
		 * the pageblocks prefetched (libkflush(7), NOTES);
		 * --compound-head cached copies page[1]/[2] through the cache
		 * instead, so nothing of theirs is in flight.
		 */
		if (ns->compound_head == REPLAY_CH_DRAIN)
			tmpl_drain(ns, m);
		prep_compound_head(ns, h, sp);
	}
	tmpl_drain(ns, m);
	if (ns->k->pageblocks_after)
		set_pageblocks(ns, lo, hi);
}

/*
 * Whether "generic" calls a --variant is decided here, once, not per page:
 * its loop is then the library call and nothing else a program's would
 * not have (a test and a load per page showed up next to a 64-byte call).
 */
REPLAY_INLINE void tmpl_run(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp,
			const int m)
{
	if (m == REPLAY_GENERIC && ns->generic_variant)
		tmpl_loop(ns, lo, hi, sp, TMPL_GENERIC_VARIANT);
	else
		tmpl_loop(ns, lo, hi, sp, m);
}

/* The x86-64 struct page sizes (kmodel.c says which configs give them). */
#define REPLAY_FOR_SIZES(X, a, b) X(a, b, 56) X(a, b, 64) X(a, b, 80)

#define REPLAY_DEFINE_TMPL(m, name, sp)							\
	static void name##_##sp(const struct replay_ns *ns, uint64_t lo, uint64_t hi)	\
	{ tmpl_run(ns, lo, hi, sp, m); }

#define REPLAY_CASE(m, name, sp) case sp: return name##_##sp;

#endif /* PMEMTEST_REPLAY_IMPL_H */
