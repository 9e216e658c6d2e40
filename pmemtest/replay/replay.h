/* SPDX-License-Identifier: MIT */
/*
 * The replay of mm/mm_init.c memmap_init_zone_device(): one namespace's
 * geometry, the methods that can initialise its memmap, and the expected
 * bytes of any struct page (for verification).
 */
#ifndef PMEMTEST_REPLAY_H
#define PMEMTEST_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_kernel;
struct roof_strategy;

#define REPLAY_PAGE_SHIFT		12
#define REPLAY_PAGEBLOCK_NR		512	/* pfns per pageblock (order 9) */
#define REPLAY_VMEMMAP_OPT_NR	128	/* 2 vmemmap pages of 64-byte struct pages */
#define REPLAY_MIGRATE_MOVABLE	1

enum replay_method {
	REPLAY_SLOW,	/* __init_zone_device_page() field by field */
	REPLAY_GENERIC,	/* template + out-of-line memcpy_nontemporal() */
	REPLAY_FIXED,	/* template + constant-size memcpy_flushcache() */
	REPLAY_WIDE,	/* template + 64/32-byte vector NT stores */
	REPLAY_PMEM2,	/* template + PMDK memcpy_fn(NONTEMPORAL|NODRAIN) */
	REPLAY_MEMCPY,	/* template + cached memcpy, nothing flushed */
	REPLAY_ROOF,	/* plain NT stores of the same bytes */
	REPLAY_NR_METHODS
};

/*
 * --pageblock-copy: how the template methods write the struct page of a
 * pageblock-aligned pfn (methods.h, tmpl_place()).
 */
enum replay_pageblock_copy {
	REPLAY_PB_CACHED,	/* an ordinary copy, as the kernel does (the default) */
	REPLAY_PB_STREAM,	/* the method's own streaming copy, the same bytes */
	REPLAY_PB_PREFETCH,	/* the kernel's copy, its line asked for a pageblock ahead */
	REPLAY_PB_NR
};

/* "cached", "stream", "prefetch"; and back (-1: none of them). */
const char *replay_pageblock_copy_name(enum replay_pageblock_copy c);
int replay_pageblock_copy_find(const char *name);

/*
 * --compound-head: how the template methods write page[1] and page[2] of
 * a compound page, which prep_compound_head() rewrites (methods.h,
 * tmpl_loop()).
 */
enum replay_compound_head {
	REPLAY_CH_DRAIN,	/* streamed with the tails, a drain, then rewritten: the kernel's */
	REPLAY_CH_CACHED,	/* an ordinary copy, rewritten with no drain per compound */
	REPLAY_CH_NR
};

/* "drain", "cached"; and back (-1: neither). */
const char *replay_compound_head_name(enum replay_compound_head c);
int replay_compound_head_find(const char *name);

typedef void *(*replay_pmem2_memcpy_fn)(void *dst, const void *src, size_t len, unsigned int flags);
typedef void (*replay_pmem2_drain_fn)(void);

/* Read-only during a run; threads share it. */
struct replay_ns {
	const struct replay_kernel *k;	/* the kernel version replayed (kmodel.h) */
	unsigned int sp;		/* sizeof(struct page): 56, 64 or 80 */
	size_t sp_rt;			/* the same, read through volatile by "generic" */
	uint64_t base_pfn;		/* first pfn of the namespace (1 GiB aligned) */
	uint64_t start_pfn, end_pfn;	/* the pfns this replay initialises */
	unsigned int ppc;		/* pfns per compound page, 1 = none */
	unsigned int compound_nr;	/* struct pages initialised per compound */
	unsigned int order;		/* log2(ppc) */
	bool devdax;			/* MEMORY_DEVICE_GENERIC, else MEMORY_DEVICE_FS_DAX */
	int nid;
	char *memmap;			/* struct page of pfn p: memmap + (p - base_pfn) * sp */
	uint8_t *pageblock;		/* 4 bits per pageblock, from base_pfn */
	uint64_t pgmap;			/* value stored in page->pgmap */
	replay_pmem2_memcpy_fn pmem2_memcpy;
	replay_pmem2_drain_fn pmem2_drain;
	unsigned int pmem2_flags;
	/* --variant: "generic" calls this registry variant instead of the bound one. */
	void (*generic_variant)(void *dst, const void *src, size_t n);
	/* How the template methods write a pageblock-aligned pfn's struct page. */
	enum replay_pageblock_copy pageblock_copy;
	/* How they write page[1] and page[2] of a compound page. */
	enum replay_compound_head compound_head;
};

typedef void (*replay_fn)(const struct replay_ns *ns, uint64_t lo, uint64_t hi);

/* The method's worker for this struct page size; NULL if not built/usable. */
replay_fn replay_method_fn(enum replay_method m, unsigned int sp);
replay_fn replay_wide_avx512_fn(unsigned int sp);
replay_fn replay_wide_avx2_fn(unsigned int sp);

/*
 * The roof over the bytes of pfns [lo, hi): strategy @s fills the
 * template's first line, unfenced (the caller fences once, roof_fence()).
 */
void replay_roof(const struct replay_ns *ns, uint64_t lo, uint64_t hi, const void *line64,
		 const struct roof_strategy *s);
/* The first 64 bytes the template path streams (the roof's data). */
void replay_template_line(const struct replay_ns *ns, void *line64);

/*
 * The bytes memmap_init_zone_device() leaves in pfn's struct page, into
 * out (sp bytes). Returns false when the replay does not initialise pfn
 * (outside the range, or a tail beyond compound_nr).
 */
bool replay_expect(const struct replay_ns *ns, uint64_t pfn, void *out);
/* memmap_init_range()'s init of the altmap's own pfns [lo, hi) (not timed). */
void replay_init_altmap_pages(const struct replay_ns *ns, uint64_t lo, uint64_t hi);
/* Expected pageblock migratetype nibble for pageblock-aligned pfn. */
unsigned int replay_pageblock_get(const struct replay_ns *ns, uint64_t pfn);

static inline char *replay_page(const struct replay_ns *ns, uint64_t pfn)
{
	return ns->memmap + (pfn - ns->base_pfn) * ns->sp;
}

#endif /* PMEMTEST_REPLAY_H */
