// SPDX-License-Identifier: MIT
/* The replay's methods built without ISA flags, the roof and the expected bytes. */
#include "methods.h"
#include "../common/roof.h"
#include "../common/stats.h"

#define REPLAY_DEFINE_SLOW(m, name, sp)							\
	static void name##_##sp(const struct replay_ns *ns, uint64_t lo, uint64_t hi)	\
	{ slow_run(ns, lo, hi, sp); }

REPLAY_FOR_SIZES(REPLAY_DEFINE_SLOW, REPLAY_SLOW, slow)
REPLAY_FOR_SIZES(REPLAY_DEFINE_TMPL, REPLAY_GENERIC, generic)
REPLAY_FOR_SIZES(REPLAY_DEFINE_TMPL, REPLAY_FIXED, fixed)
REPLAY_FOR_SIZES(REPLAY_DEFINE_TMPL, REPLAY_PMEM2, pmem2)
REPLAY_FOR_SIZES(REPLAY_DEFINE_TMPL, REPLAY_MEMCPY, memcpy)

replay_fn replay_method_fn(enum replay_method m, unsigned int sp)
{
	switch (m) {
	case REPLAY_SLOW:
		switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, REPLAY_SLOW, slow) default: return NULL; }
	case REPLAY_GENERIC:
		switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, REPLAY_GENERIC, generic) default: return NULL; }
	case REPLAY_FIXED:
		switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, REPLAY_FIXED, fixed) default: return NULL; }
	case REPLAY_PMEM2:
		switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, REPLAY_PMEM2, pmem2) default: return NULL; }
	case REPLAY_MEMCPY:
		switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, REPLAY_MEMCPY, memcpy) default: return NULL; }
	case REPLAY_WIDE:
		if (kflush_cpu_features() & KFLUSH_CPU_AVX512F)
			return replay_wide_avx512_fn(sp);
		if (kflush_cpu_features() & KFLUSH_CPU_AVX2)
			return replay_wide_avx2_fn(sp);
		return NULL;
	case REPLAY_ROOF:
	case REPLAY_NR_METHODS:
		break;
	}
	return NULL;
}

static const char *const pageblock_copy_names[REPLAY_PB_NR] = {
	[REPLAY_PB_CACHED] = "cached", [REPLAY_PB_STREAM] = "stream", [REPLAY_PB_PREFETCH] = "prefetch",
};

static const char *const compound_head_names[REPLAY_CH_NR] = {
	[REPLAY_CH_DRAIN] = "drain", [REPLAY_CH_CACHED] = "cached",
};

static int find_name(const char *const *names, int n, const char *name)
{
	for (int c = 0; c < n; c++)
		if (strcmp(name, names[c]) == 0)
			return c;
	return -1;
}

const char *replay_pageblock_copy_name(enum replay_pageblock_copy c)
{
	return c < REPLAY_PB_NR ? pageblock_copy_names[c] : "?";
}

int replay_pageblock_copy_find(const char *name)
{
	return find_name(pageblock_copy_names, REPLAY_PB_NR, name);
}

const char *replay_compound_head_name(enum replay_compound_head c)
{
	return c < REPLAY_CH_NR ? compound_head_names[c] : "?";
}

int replay_compound_head_find(const char *name)
{
	return find_name(compound_head_names, REPLAY_CH_NR, name);
}

void replay_template_line(const struct replay_ns *ns, void *line64)
{
	struct mm_page t;

	memset(&t, 0, sizeof(t));
	switch (ns->sp) {
#define TPL(a, b, sp) case sp: init_zdev_page(ns, &t, (uintptr_t)&t, ns->start_pfn + 1, sp, false); break;
	REPLAY_FOR_SIZES(TPL, 0, 0)
#undef TPL
	default: break;
	}
	if (ns->ppc > 1)
		prep_tail(ns, &t, (uintptr_t)replay_page(ns, ns->start_pfn), ns->sp);
	memcpy(line64, &t, 64);
}

void replay_roof(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const void *line64,
		 const struct roof_strategy *s)
{
	uintptr_t a = (uintptr_t)replay_page(ns, lo), b = (uintptr_t)replay_page(ns, hi);

	a = (a + 63) & ~(uintptr_t)63;
	b &= ~(uintptr_t)63;
	if (b > a)
		roof_store(s, ROOF_FILL, (void *)a, line64, b - a);
}

bool replay_expect(const struct replay_ns *ns, uint64_t pfn, void *out)
{
	struct mm_page s;
	uint64_t head = pfn, idx = 0;
	uintptr_t self = (uintptr_t)replay_page(ns, pfn);

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
	REPLAY_FOR_SIZES(EXP, 0, 0)
#undef EXP
	default: return false;
	}
	if (ns->ppc > 1) {
		if (idx == 0) {
			s.flags |= 1ULL << ns->k->pg_head;
		} else {
			prep_tail(ns, &s, (uintptr_t)replay_page(ns, head), ns->sp);
			if (idx == 1)
				prep_page1(ns, &s, ns->sp);
			else if (idx == 2)
				prep_page2(ns, &s, self);
		}
	}
	memcpy(out, &s, ns->sp);
	return true;
}

unsigned int replay_pageblock_get(const struct replay_ns *ns, uint64_t pfn)
{
	uint64_t pb = (pfn - ns->base_pfn) / REPLAY_PAGEBLOCK_NR;

	return (ns->pageblock[pb / 2] >> ((pb & 1) * 4)) & 0xf;
}

/*
 * memmap_init_range() for ZONE_DEVICE with an altmap (MEMINIT_HOTPLUG): the
 * pfns holding the memmap itself, after the altmap's reserve, get
 * __init_single_page() and PG_reserved, and keep their lru self-pointers.
 * Not timed: the kernel does this outside memmap_init_zone_device().
 */
void replay_init_altmap_pages(const struct replay_ns *ns, uint64_t lo, uint64_t hi)
{
	for (uint64_t pfn = lo; pfn < hi; pfn++) {
		struct mm_page *p = (struct mm_page *)replay_page(ns, pfn);

		switch (ns->sp) {
#define ALT(a, b, sp) case sp: init_single_page(ns, p, (uintptr_t)p, sp); break;
		REPLAY_FOR_SIZES(ALT, 0, 0)
#undef ALT
		default: return;
		}
		flags_rmw(p, 0, 1ULL << ns->k->pg_reserved);
		if (pageblock_aligned(pfn))
			set_pageblock(ns, pfn);
	}
}
