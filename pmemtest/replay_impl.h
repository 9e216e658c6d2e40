/* SPDX-License-Identifier: MIT */
/*
 * The replay's inline core, compiled into replay.c and, with their own -m
 * flags, into the wide-store files. Every loop is instantiated once per
 * struct page size, so the size is a compile-time constant as sizeof(struct
 * page) is in the kernel, and only "generic" hides it on purpose.
 *
 * pmemtest's struct page model (x86-64, words of 8 bytes):
 *   w0      flags: node 63..54, zone 53..51, last_cpupid 50..30 (when it
 *           fits in flags, i.e. sp < 80), PG_head 6, PG_reserved 13
 *   w1..w5  union: lru.next/pgmap/compound_head, lru.prev/zone_device_data,
 *           mapping, index, private
 *   w6      _mapcount (low 32 bits), _refcount (high 32 bits)
 *   w7      memcg_data                          (sp >= 64)
 *   w8      virtual, WANT_PAGE_VIRTUAL's __va(pfn) (sp >= 72; pfn-dependent)
 *   w9      _last_cpupid (low 32 bits)          (sp >= 80)
 *   w10     kmsan_shadow                        (sp >= 88)
 *   w11     kmsan_origin                        (sp >= 96)
 * Larger configs add fields at the end, so smaller sizes are truncations.
 * page[1] and page[2] of a compound page take the folio fields below
 * (prep_compound_head()), modelled on the 6.15 folio layout.
 */
#ifndef PMEMTEST_REPLAY_IMPL_H
#define PMEMTEST_REPLAY_IMPL_H

#include <string.h>

#include "kflush.h"
#include "replay.h"

#define RP_INLINE static inline __attribute__((always_inline))

#define PG_HEAD			6
#define PG_RESERVED		13
#define ZONES_PGSHIFT		51
#define ZONES_MASK		7ULL
#define NODES_PGSHIFT		54
#define NODES_MASK		0x3ffULL
#define LAST_CPUPID_PGSHIFT	30
#define LAST_CPUPID_MASK	0x1fffffULL
#define ZONE_DEVICE_IDX		4	/* DMA, DMA32, NORMAL, MOVABLE, DEVICE */
#define TAIL_MAPPING		0xdead000000000400ULL
#define PAGE_OFFSET		0xffff888000000000ULL

struct mm_page {
	uint64_t flags;
	uint64_t u[5];
	int32_t mapcount;
	int32_t refcount;
	uint64_t memcg_data;
	uint64_t virt;
	int32_t last_cpupid;
	int32_t pad;
	uint64_t kmsan_shadow;
	uint64_t kmsan_origin;
};

/* The kernel writes these fields with plain word stores; so do we. */
#define W64(lv) (*(volatile uint64_t *)&(lv))
#define W32(lv) (*(volatile int32_t *)&(lv))

RP_INLINE bool pageblock_aligned(uint64_t pfn)
{
	return !(pfn & (RP_PAGEBLOCK_NR - 1));
}

/* init_pageblock_migratetype(): the zone's bitmap, not the struct page. */
RP_INLINE void set_pageblock(const struct rp_ns *ns, uint64_t pfn)
{
	uint64_t pb = (pfn - ns->base_pfn) / RP_PAGEBLOCK_NR;
	uint8_t *b = &ns->pageblock[pb / 2];
	unsigned int sh = (pb & 1) * 4;

	*b = (uint8_t)((*b & ~(0xfu << sh)) | (RP_MIGRATE_MOVABLE << sh));
}

/* mm_zero_struct_page(): last word first, one 8-byte store each. */
RP_INLINE void zero_page(struct mm_page *p, const unsigned int sp)
{
	uint64_t *w = (uint64_t *)p;

	switch (sp) {
	case 96: W64(w[11]) = 0; /* fall through */
	case 88: W64(w[10]) = 0; /* fall through */
	case 80: W64(w[9]) = 0; /* fall through */
	case 72: W64(w[8]) = 0; /* fall through */
	case 64: W64(w[7]) = 0; /* fall through */
	default:
		W64(w[6]) = 0; W64(w[5]) = 0; W64(w[4]) = 0; W64(w[3]) = 0;
		W64(w[2]) = 0; W64(w[1]) = 0; W64(w[0]) = 0;
	}
}

RP_INLINE uint64_t flags_rmw(struct mm_page *p, uint64_t clear, uint64_t set)
{
	uint64_t f = (W64(p->flags) & ~clear) | set;

	W64(p->flags) = f;
	return f;
}

/*
 * __init_single_page() + __init_zone_device_page(). self is the address the
 * struct page really has (p may be a template or a scratch copy).
 */
RP_INLINE void init_zdev_page(const struct rp_ns *ns, struct mm_page *p, uint64_t self,
			      uint64_t pfn, const unsigned int sp, bool pageblock)
{
	zero_page(p, sp);
	/* set_page_links() */
	flags_rmw(p, ZONES_MASK << ZONES_PGSHIFT, (uint64_t)ZONE_DEVICE_IDX << ZONES_PGSHIFT);
	flags_rmw(p, NODES_MASK << NODES_PGSHIFT, ((uint64_t)ns->nid & NODES_MASK) << NODES_PGSHIFT);
	W32(p->refcount) = 1;		/* init_page_count() */
	W32(p->mapcount) = -1;
	if (sp >= 80)			/* page_cpupid_reset_last() */
		W32(p->last_cpupid) = (int32_t)LAST_CPUPID_MASK;
	else
		flags_rmw(p, 0, LAST_CPUPID_MASK << LAST_CPUPID_PGSHIFT);
	W64(p->u[0]) = self + 8;	/* INIT_LIST_HEAD(&page->lru) */
	W64(p->u[1]) = self + 8;
	if (sp >= 72)
		W64(p->virt) = PAGE_OFFSET + (pfn << RP_PAGE_SHIFT);
	flags_rmw(p, 0, 1ULL << PG_RESERVED);
	W64(p->u[0]) = ns->pgmap;	/* pgmap overlays lru.next */
	W64(p->u[1]) = 0;		/* zone_device_data */
	if (pageblock && pageblock_aligned(pfn))
		set_pageblock(ns, pfn);
	if (!ns->devdax)		/* MEMORY_DEVICE_FS_DAX: set_page_count(0) */
		W32(p->refcount) = 0;
}

/* prep_compound_tail() + set_page_count(page, 0). */
RP_INLINE void prep_tail(struct mm_page *p, uint64_t head)
{
	W64(p->u[2]) = TAIL_MAPPING;
	W64(p->u[0]) = head | 1;
	W64(p->u[4]) = 0;
	W32(p->refcount) = 0;
}

/* prep_compound_head(): page[1]'s folio fields (order, mapcounts, pincount). */
RP_INLINE void prep_page1(struct mm_page *p, unsigned int order)
{
	int32_t *i = (int32_t *)&p->u[1];

	flags_rmw(p, 0xff, order);	/* folio_set_order(): _flags_1 */
	W32(p->mapcount) = 1 << order;	/* _folio_nr_pages */
	W32(i[0]) = -1;			/* _large_mapcount */
	W32(i[1]) = 0;			/* _nr_pages_mapped */
	W64(p->u[3]) = 0;		/* _mm_ids */
	W32(i[4]) = -1;			/* _mm_id_mapcount[0] */
	W32(i[5]) = -1;			/* _mm_id_mapcount[1] */
	W32(i[3]) = 0;			/* _pincount */
	W32(i[2]) = -1;			/* _entire_mapcount */
}

/* prep_compound_head(): page[2]'s _deferred_list, order > 1 only. */
RP_INLINE void prep_page2(struct mm_page *p, uint64_t self, unsigned int order)
{
	if (order > 1) {
		W64(p->u[1]) = self + 16;
		W64(p->u[2]) = self + 16;
	}
}

RP_INLINE void prep_compound_head(char *head, const unsigned int sp, unsigned int order)
{
	prep_page1((struct mm_page *)(head + sp), order);
	prep_page2((struct mm_page *)(head + 2 * sp), (uint64_t)(uintptr_t)(head + 2 * sp), order);
}

/* The template's pfn-dependent fields. */
RP_INLINE void refresh(struct mm_page *t, uint64_t pfn, const unsigned int sp)
{
	if (sp >= 72)
		t->virt = PAGE_OFFSET + (pfn << RP_PAGE_SHIFT);
}

/* memmap_init_zone_device(), the slow path, over [lo, hi). */
RP_INLINE void slow_run(const struct rp_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp)
{
	if (ns->ppc == 1) {
		char *p = rp_page(ns, lo);

		for (uint64_t pfn = lo; pfn < hi; pfn++, p += sp)
			init_zdev_page(ns, (struct mm_page *)p, (uintptr_t)p, pfn, sp, true);
		return;
	}
	for (uint64_t head = lo; head < hi; head += ns->ppc) {
		char *h = rp_page(ns, head), *p = h;

		init_zdev_page(ns, (struct mm_page *)h, (uintptr_t)h, head, sp, true);
		flags_rmw((struct mm_page *)h, 0, 1ULL << PG_HEAD);	/* __SetPageHead() */
		for (unsigned int i = 1; i < ns->compound_nr; i++) {
			p += sp;
			init_zdev_page(ns, (struct mm_page *)p, (uintptr_t)p, head + i, sp, true);
			prep_tail((struct mm_page *)p, (uintptr_t)h);
		}
		prep_compound_head(h, sp, ns->order);
	}
}

/*
 * One template copy. "generic" gets its size through a volatile, so the
 * inline memcpy_nontemporal() cannot see a constant and calls the library.
 */
RP_INLINE void tmpl_copy(const struct rp_ns *ns, const int m, char *dst, const struct mm_page *t,
			 const unsigned int sp, size_t n_rt)
{
	switch (m) {
	case RP_GENERIC:
		if (ns->generic_variant)
			ns->generic_variant(dst, t, n_rt);
		else
			memcpy_nontemporal(dst, t, n_rt);
		break;
	case RP_FIXED:
		memcpy_flushcache(dst, t, sp);
		break;
	case RP_PMEM2:
		ns->pmem2_memcpy(dst, t, sp, ns->pmem2_flags);
		break;
	case RP_MEMCPY:
		memcpy(dst, t, sp);
		break;
	default:
		__builtin_unreachable();
	}
}

RP_INLINE void tmpl_drain(const struct rp_ns *ns, const int m)
{
	if (m == RP_PMEM2)
		ns->pmem2_drain();
	else if (m != RP_MEMCPY)
		kflush_drain();
}

/* Pageblock-aligned pfns take an ordinary copy and the bitmap update. */
RP_INLINE void tmpl_place(const struct rp_ns *ns, const int m, char *dst, const struct mm_page *t,
			  uint64_t pfn, const unsigned int sp, size_t n_rt)
{
	if (pageblock_aligned(pfn)) {
		memcpy(dst, t, sp);
		set_pageblock(ns, pfn);
	} else {
		tmpl_copy(ns, m, dst, t, sp, n_rt);
	}
}

/* The template path over [lo, hi). */
RP_INLINE void tmpl_run(const struct rp_ns *ns, uint64_t lo, uint64_t hi, const unsigned int sp,
			const int m)
{
	struct mm_page t __attribute__((aligned(64)));
	struct mm_page tt __attribute__((aligned(64)));
	size_t n_rt = *(const volatile size_t *)&ns->sp_rt;
	char *p = rp_page(ns, lo);

	init_zdev_page(ns, &t, (uintptr_t)&t, lo, sp, false);
	if (ns->ppc == 1) {
		for (uint64_t pfn = lo; pfn < hi; pfn++, p += sp) {
			refresh(&t, pfn, sp);
			tmpl_place(ns, m, p, &t, pfn, sp, n_rt);
		}
		tmpl_drain(ns, m);
		return;
	}
	t.flags |= 1ULL << PG_HEAD;
	init_zdev_page(ns, &tt, (uintptr_t)&tt, lo + 1, sp, false);
	prep_tail(&tt, 0);
	for (uint64_t head = lo; head < hi; head += ns->ppc) {
		char *h = rp_page(ns, head);

		p = h;
		refresh(&t, head, sp);
		tmpl_place(ns, m, p, &t, head, sp, n_rt);
		tt.u[0] = (uintptr_t)h | 1;
		for (unsigned int i = 1; i < ns->compound_nr; i++) {
			p += sp;
			refresh(&tt, head + i, sp);
			tmpl_place(ns, m, p, &tt, head + i, sp, n_rt);
		}
		/* The tails' streaming stores must land before page[1]/[2] are rewritten. */
		tmpl_drain(ns, m);
		prep_compound_head(h, sp, ns->order);
	}
	tmpl_drain(ns, m);
}

#define RP_FOR_SIZES(X, a, b) X(a, b, 56) X(a, b, 64) X(a, b, 72) X(a, b, 80) X(a, b, 88) X(a, b, 96)

#define RP_DEFINE_TMPL(m, name, sp)							\
	static void name##_##sp(const struct rp_ns *ns, uint64_t lo, uint64_t hi)	\
	{ tmpl_run(ns, lo, hi, sp, m); }

#define RP_CASE(m, name, sp) case sp: return name##_##sp;

#endif /* PMEMTEST_REPLAY_IMPL_H */
