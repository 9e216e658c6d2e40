// SPDX-License-Identifier: MIT
/* The replay's methods built without ISA flags, the roof and the expected bytes. */
#include "replay_impl.h"
#include "stats.h"

#define RP_DEFINE_SLOW(m, name, sp)							\
	static void name##_##sp(const struct rp_ns *ns, uint64_t lo, uint64_t hi)	\
	{ slow_run(ns, lo, hi, sp); }

RP_FOR_SIZES(RP_DEFINE_SLOW, RP_SLOW, slow)
RP_FOR_SIZES(RP_DEFINE_TMPL, RP_GENERIC, generic)
RP_FOR_SIZES(RP_DEFINE_TMPL, RP_FIXED, fixed)
RP_FOR_SIZES(RP_DEFINE_TMPL, RP_PMEM2, pmem2)
RP_FOR_SIZES(RP_DEFINE_TMPL, RP_MEMCPY, memcpy)

rp_fn rp_method_fn(enum rp_method m, unsigned int sp)
{
	switch (m) {
	case RP_SLOW:
		switch (sp) { RP_FOR_SIZES(RP_CASE, RP_SLOW, slow) default: return NULL; }
	case RP_GENERIC:
		switch (sp) { RP_FOR_SIZES(RP_CASE, RP_GENERIC, generic) default: return NULL; }
	case RP_FIXED:
		switch (sp) { RP_FOR_SIZES(RP_CASE, RP_FIXED, fixed) default: return NULL; }
	case RP_PMEM2:
		switch (sp) { RP_FOR_SIZES(RP_CASE, RP_PMEM2, pmem2) default: return NULL; }
	case RP_MEMCPY:
		switch (sp) { RP_FOR_SIZES(RP_CASE, RP_MEMCPY, memcpy) default: return NULL; }
	case RP_WIDE:
		if (kflush_cpu_features() & KFLUSH_CPU_AVX512F)
			return rp_wide_avx512_fn(sp);
		if (kflush_cpu_features() & KFLUSH_CPU_AVX2)
			return rp_wide_avx2_fn(sp);
		return NULL;
	case RP_ROOF:
	case RP_NR_METHODS:
		break;
	}
	return NULL;
}

void rp_template_line(const struct rp_ns *ns, void *line64)
{
	struct mm_page t;

	memset(&t, 0, sizeof(t));
	switch (ns->sp) {
#define TPL(a, b, sp) case sp: init_zdev_page(ns, &t, (uintptr_t)&t, ns->start_pfn + 1, sp, false); break;
	RP_FOR_SIZES(TPL, 0, 0)
#undef TPL
	default: break;
	}
	if (ns->ppc > 1)
		prep_tail(ns, &t, (uintptr_t)rp_page(ns, ns->start_pfn), ns->sp);
	memcpy(line64, &t, 64);
}

void rp_roof(const struct rp_ns *ns, uint64_t lo, uint64_t hi, const void *line64)
{
	uintptr_t a = (uintptr_t)rp_page(ns, lo), b = (uintptr_t)rp_page(ns, hi);

	a = (a + 63) & ~(uintptr_t)63;
	b &= ~(uintptr_t)63;
	if (b > a)
		pm_roof_nt_fill((void *)a, b - a, line64);
}

bool rp_expect(const struct rp_ns *ns, uint64_t pfn, void *out)
{
	struct mm_page s;
	uint64_t head = pfn, idx = 0;
	uintptr_t self = (uintptr_t)rp_page(ns, pfn);

	if (pfn < ns->start_pfn || pfn >= ns->end_pfn)
		return false;
	if (ns->ppc > 1) {
		idx = (pfn - ns->start_pfn) % ns->ppc;
		head = pfn - idx;
		if (idx >= ns->compound_nr)
			return false;
	}
	memset(&s, 0, sizeof(s));
	switch (ns->sp) {
#define EXP(a, b, sp) case sp: init_zdev_page(ns, &s, self, pfn, sp, false); break;
	RP_FOR_SIZES(EXP, 0, 0)
#undef EXP
	default: return false;
	}
	if (ns->ppc > 1) {
		if (idx == 0) {
			s.flags |= 1ULL << ns->k->pg_head;
		} else {
			prep_tail(ns, &s, (uintptr_t)rp_page(ns, head), ns->sp);
			if (idx == 1)
				prep_page1(ns, &s, ns->sp);
			else if (idx == 2)
				prep_page2(ns, &s, self);
		}
	}
	memcpy(out, &s, ns->sp);
	return true;
}

unsigned int rp_pageblock_get(const struct rp_ns *ns, uint64_t pfn)
{
	uint64_t pb = (pfn - ns->base_pfn) / RP_PAGEBLOCK_NR;

	return (ns->pageblock[pb / 2] >> ((pb & 1) * 4)) & 0xf;
}

/*
 * memmap_init_range() for ZONE_DEVICE with an altmap (MEMINIT_HOTPLUG): the
 * pfns holding the memmap itself, after the altmap's reserve, get
 * __init_single_page() and PG_reserved, and keep their lru self-pointers.
 * Not timed: the kernel does this outside memmap_init_zone_device().
 */
void rp_init_altmap_pages(const struct rp_ns *ns, uint64_t lo, uint64_t hi)
{
	for (uint64_t pfn = lo; pfn < hi; pfn++) {
		struct mm_page *p = (struct mm_page *)rp_page(ns, pfn);

		switch (ns->sp) {
#define ALT(a, b, sp) case sp: init_single_page(ns, p, (uintptr_t)p, sp); break;
		RP_FOR_SIZES(ALT, 0, 0)
#undef ALT
		default: return;
		}
		flags_rmw(p, 0, 1ULL << ns->k->pg_reserved);
		if (pageblock_aligned(pfn))
			set_pageblock(ns, pfn);
	}
}
