// SPDX-License-Identifier: MIT
/*
 * The replay held to bytes written out by hand from the kernel sources, not
 * computed by pmemtest: for each kernel model, a devdax compound head,
 * page[1], page[2], a later tail, an fsdax page and a pageblock start, word
 * by word, for every method. Pointers are named (the pgmap pmemtest passes
 * in, the head's or the page's own address in the array), everything else
 * is a literal.
 *
 * Where the literals come from (config of the rig's Debian 6.1 kernel, which
 * both models take: NODES_SHIFT 10, NR_CPUS 8192, NUMA_BALANCING,
 * SPARSEMEM_VMEMMAP, 5 zones; node 0):
 *   flags  node 0 in bits 63..54; zone 4 (ZONE_DEVICE after DMA, DMA32,
 *          NORMAL, MOVABLE) in 53..51 = 0x0020000000000000; last_cpupid
 *          all ones in 50..30 (8 + 13 bits) = 0x0007ffffc0000000;
 *          6.1: PG_reserved 12 (0x1000), PG_head 16 (0x10000): the rig's
 *          heads read 0x0027ffffc0011000 and its fsdax pages 0x0027ffffc0001000.
 *          2026: PG_head 6 (0x40), PG_reserved 13 (0x2000).
 *   w6     _mapcount -1 in the low half, _refcount in the high half: 1 for
 *          heads and 6.1 fsdax pages, 0 for tails and 2026 fsdax pages.
 *   6.1 page[1]  w2 = dtor 1 | order 9 << 8 | compound_mapcount -1 << 32
 *          = 0xffffffff00000901; w3 = pincount 0 | compound_nr 512 << 32 =
 *          0x0000020000000000 (both read from the rig's nvdimm0.img).
 *   tails  w1 = head | 1 (6.1, and 2026 with 80-byte pages); 2026 with
 *          64-byte pages GENMASK(63, 9 + 6) | 1 = 0xffffffffffff8001;
 *          w3 = TAIL_MAPPING 0xdead000000000400 (rig: the same).
 *   2026 page[1]  w0 |= order 9; w2 = _large_mapcount -1, _nr_pages_mapped 0;
 *          w3 = _entire_mapcount -1, _pincount 0; w4 = _mm_id_mapcount[0..1]
 *          -1; w5 = _mm_ids 0; w6 = _mapcount_1 -1, _refcount_1 0; w7 =
 *          _nr_pages 512.
 *   2026 page[2]  w2 = w3 = &page[2]._deferred_list (its own address + 16).
 *   pageblocks  MIGRATE_MOVABLE (1) in the 4-bit slot of each 512-pfn block.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../pmemtest/init/init.h"

enum kind { LIT, PGMAP, HEAD1, SELF16 };

struct word {
	enum kind kind;
	uint64_t v;
};

#define L(x) { LIT, x }
#define Z { LIT, 0 }
#define PG { PGMAP, 0 }
#define H1 { HEAD1, 0 }
#define S16 { SELF16, 0 }

/* Which page of the namespace: a compound's head + idx, or an fsdax pfn. */
enum where { HEAD, PAGE1, PAGE2, TAIL300, FSDAX5, FSDAX_PB };

struct page_exp {
	enum where at;
	struct word w[10];
};

struct model_exp {
	const char *kernel;
	unsigned int sp;
	struct page_exp p[6];
};

static const struct model_exp models[] = {
	{ "6.1", 64, {
		{ HEAD, { L(0x0027ffffc0011000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z } },
		{ PAGE1, { L(0x0027ffffc0001000), H1, L(0xffffffff00000901), L(0x0000020000000000),
			   Z, Z, L(0x00000000ffffffff), Z } },
		{ PAGE2, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			   L(0x00000000ffffffff), Z } },
		{ TAIL300, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			     L(0x00000000ffffffff), Z } },
		{ FSDAX5, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z } },
		{ FSDAX_PB, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z } },
	} },
	/*
	 * 6.1's other sizes: 56 (SLAB/SLOB, no memcg: no word 7) and 80
	 * (KMSAN, words 8 and 9 zero); the same words before them.
	 */
	{ "6.1", 56, {
		{ HEAD, { L(0x0027ffffc0011000), PG, Z, Z, Z, Z, L(0x00000001ffffffff) } },
		{ PAGE1, { L(0x0027ffffc0001000), H1, L(0xffffffff00000901), L(0x0000020000000000),
			   Z, Z, L(0x00000000ffffffff) } },
		{ PAGE2, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			   L(0x00000000ffffffff) } },
		{ TAIL300, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			     L(0x00000000ffffffff) } },
		{ FSDAX5, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff) } },
		{ FSDAX_PB, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff) } },
	} },
	{ "6.1", 80, {
		{ HEAD, { L(0x0027ffffc0011000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z, Z, Z } },
		{ PAGE1, { L(0x0027ffffc0001000), H1, L(0xffffffff00000901), L(0x0000020000000000),
			   Z, Z, L(0x00000000ffffffff), Z, Z, Z } },
		{ PAGE2, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			   L(0x00000000ffffffff), Z, Z, Z } },
		{ TAIL300, { L(0x0027ffffc0001000), H1, Z, L(0xdead000000000400), Z, Z,
			     L(0x00000000ffffffff), Z, Z, Z } },
		{ FSDAX5, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z, Z, Z } },
		{ FSDAX_PB, { L(0x0027ffffc0001000), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z, Z,
			      Z } },
	} },
	{ "2026", 64, {
		{ HEAD, { L(0x0027ffffc0002040), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z } },
		{ PAGE1, { L(0x0027ffffc0002009), L(0xffffffffffff8001), L(0x00000000ffffffff),
			   L(0x00000000ffffffff), L(0xffffffffffffffff), Z, L(0x00000000ffffffff),
			   L(0x0000000000000200) } },
		{ PAGE2, { L(0x0027ffffc0002000), L(0xffffffffffff8001), S16, S16, Z, Z,
			   L(0x00000000ffffffff), Z } },
		{ TAIL300, { L(0x0027ffffc0002000), L(0xffffffffffff8001), Z, L(0xdead000000000400),
			     Z, Z, L(0x00000000ffffffff), Z } },
		{ FSDAX5, { L(0x0027ffffc0002000), PG, Z, Z, Z, Z, L(0x00000000ffffffff), Z } },
		{ FSDAX_PB, { L(0x0027ffffc0002000), PG, Z, Z, Z, Z, L(0x00000000ffffffff), Z } },
	} },
	/* 80 bytes (KMSAN + memcg): not a power of two, so tails point at the head. */
	{ "2026", 80, {
		{ HEAD, { L(0x0027ffffc0002040), PG, Z, Z, Z, Z, L(0x00000001ffffffff), Z, Z, Z } },
		{ PAGE1, { L(0x0027ffffc0002009), H1, L(0x00000000ffffffff), L(0x00000000ffffffff),
			   L(0xffffffffffffffff), Z, L(0x00000000ffffffff), L(0x0000000000000200),
			   Z, Z } },
		{ PAGE2, { L(0x0027ffffc0002000), H1, S16, S16, Z, Z, L(0x00000000ffffffff), Z, Z,
			   Z } },
		{ TAIL300, { L(0x0027ffffc0002000), H1, Z, L(0xdead000000000400), Z, Z,
			     L(0x00000000ffffffff), Z, Z, Z } },
		{ FSDAX5, { L(0x0027ffffc0002000), PG, Z, Z, Z, Z, L(0x00000000ffffffff), Z, Z, Z } },
		{ FSDAX_PB, { L(0x0027ffffc0002000), PG, Z, Z, Z, Z, L(0x00000000ffffffff), Z, Z,
			      Z } },
	} },
};

static const int methods[] = { REPLAY_SLOW, REPLAY_GENERIC, REPLAY_FIXED, REPLAY_WIDE, REPLAY_PMEM2, REPLAY_MEMCPY };

#define NR_MODELS (sizeof(models) / sizeof(models[0]))
#define NR_METHODS (sizeof(methods) / sizeof(methods[0]))

struct oparam {
	int model, method;
};

ParameterizedTestParameters(oracle, by_hand)
{
	static struct oparam p[NR_MODELS * NR_METHODS];
	size_t n = 0;

	for (size_t i = 0; i < NR_MODELS; i++)
		for (size_t m = 0; m < NR_METHODS; m++)
			p[n++] = (struct oparam){ (int)i, methods[m] };
	return cr_make_param_array(struct oparam, p, n);
}

static void open_ns(struct init_ns *ns, const struct model_exp *me, bool devdax)
{
	memset(ns, 0, sizeof(*ns));
	ns->fd = ns->map_fd = -1;
	snprintf(ns->name, sizeof(ns->name), "oracle");
	ns->devdax = devdax;
	ns->altmap = true;
	ns->size = 12ULL << 20;
	ns->align = 2ULL << 20;
	ns->sp = me->sp;
	ns->kernel = replay_kernel_find(me->kernel);
	cr_assert_not_null(ns->kernel);
	cr_assert_eq(init_geometry(ns), 0);
	cr_assert_eq(init_storage_open(ns, true), 0);
	memset(ns->rp.memmap, 0xa7, ns->memmap_bytes);
}

/* Its own address, by the test's arithmetic: memmap + (pfn - base) * sp. */
static uint64_t addr_of(const struct init_ns *ns, uint64_t pfn)
{
	return (uint64_t)(uintptr_t)ns->rp.memmap + (pfn - ns->rp.base_pfn) * ns->sp;
}

static void check_page(const struct init_ns *ns, const struct model_exp *me, const struct page_exp *pe,
		       uint64_t pfn, uint64_t head, const char *mn)
{
	const uint64_t *got = (const uint64_t *)(uintptr_t)addr_of(ns, pfn);

	for (unsigned int i = 0; i < me->sp / 8; i++) {
		const struct word *w = &pe->w[i];
		uint64_t want = w->kind == LIT ? w->v : w->kind == PGMAP ? ns->rp.pgmap :
				w->kind == HEAD1 ? addr_of(ns, head) | 1 : addr_of(ns, pfn) + 16;

		cr_expect_eq(got[i], want, "kernel %s sp %u %s, page %d (pfn %#lx): word %u is 0x%016lx, "
			     "the kernel writes 0x%016lx", me->kernel, me->sp, mn, (int)pe->at,
			     (unsigned long)pfn, i, (unsigned long)got[i], (unsigned long)want);
	}
}

static unsigned int pageblock_nibble(const struct init_ns *ns, uint64_t pfn)
{
	uint64_t pb = (pfn - ns->rp.base_pfn) / 512;

	return (ns->rp.pageblock[pb / 2] >> ((pb & 1) * 4)) & 0xf;
}

ParameterizedTest(struct oparam *p, oracle, by_hand)
{
	const struct model_exp *me = &models[p->model];
	const char *mn = init_method_name((enum replay_method)p->method);
	struct init_ns dd, fs;
	replay_fn fn = replay_method_fn((enum replay_method)p->method, me->sp);
	uint64_t head, pb;

	if (!fn) {
		cr_log_info("method %s not usable on this CPU (no AVX2 or AVX-512F)", mn);
		return;
	}
	open_ns(&dd, me, true);
	fn(&dd.rp, dd.rp.start_pfn, dd.rp.end_pfn);
	/* The second compound page, so head and tails sit mid-array. */
	head = dd.rp.start_pfn + 512;
	for (int i = 0; i < 4; i++) {
		static const uint64_t idx[] = { 0, 1, 2, 300 };

		check_page(&dd, me, &me->p[i], head + idx[i], head, mn);
	}
	cr_expect_eq(pageblock_nibble(&dd, head), 1, "kernel %s %s: head's pageblock not MOVABLE",
		     me->kernel, mn);
	init_storage_close(&dd);

	open_ns(&fs, me, false);
	fn(&fs.rp, fs.rp.start_pfn, fs.rp.end_pfn);
	pb = (fs.rp.start_pfn + 511) / 512 * 512 + 512;
	check_page(&fs, me, &me->p[4], fs.rp.start_pfn + 5, 0, mn);
	check_page(&fs, me, &me->p[5], pb, 0, mn);
	cr_expect_eq(pageblock_nibble(&fs, pb), 1, "kernel %s %s: pageblock of pfn %#lx not MOVABLE",
		     me->kernel, mn, (unsigned long)pb);
	init_storage_close(&fs);
}

/*
 * The pageblocks a vmemmap-optimised 1 GiB devdax namespace (map=mem)
 * leaves MOVABLE. Both kernels mark them in one
 * pageblock_migratetype_init_range(start_pfn, nr_pages, MIGRATE_MOVABLE)
 * after memmap_init_zone_device()'s loop (mm/mm_init.c; Muchun Song's
 * "mm/mm_init: fix pageblock migratetype for ZONE_DEVICE compound pages",
 * mm-stable 2026-05-29, in Debian's 6.1 as a stable backport), not as each
 * pageblock-aligned pfn is initialised: compound_nr_pages() initialises 128
 * struct pages of each 262144, whose only pageblock-aligned pfn is the
 * head, yet all 1024 pageblocks of 2 GiB are marked.
 */
Test(oracle, pageblocks_whole_range)
{
	static const char *const kernels[] = { "6.1", "2026" };

	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
		for (size_t m = 0; m < NR_METHODS; m++) {
			const char *mn = init_method_name((enum replay_method)methods[m]);
			replay_fn fn = replay_method_fn((enum replay_method)methods[m], 64);
			struct init_ns ns;
			unsigned int marked = 0;

			if (!fn)
				continue;
			memset(&ns, 0, sizeof(ns));
			ns.fd = ns.map_fd = -1;
			snprintf(ns.name, sizeof(ns.name), "oracle");
			ns.devdax = true;
			ns.altmap = false;
			ns.size = 2ULL << 30;
			ns.align = 1ULL << 30;
			ns.sp = 64;
			ns.kernel = replay_kernel_find(kernels[k]);
			cr_assert_not_null(ns.kernel);
			cr_assert_eq(init_geometry(&ns), 0);
			cr_assert_eq(init_storage_open(&ns, true), 0);
			cr_assert_eq(ns.rp.compound_nr, 128, "kernel %s: compound_nr %u", kernels[k],
				     ns.rp.compound_nr);
			cr_assert_eq(ns.rp.end_pfn - ns.rp.start_pfn, 524288);
			fn(&ns.rp, ns.rp.start_pfn, ns.rp.end_pfn);
			for (uint64_t p = ns.rp.start_pfn; p < ns.rp.end_pfn; p += 512)
				marked += pageblock_nibble(&ns, p) == 1;
			cr_expect_eq(marked, 1024, "kernel %s %s: %u of the 1024 pageblocks MOVABLE",
				     kernels[k], mn, marked);
			init_storage_close(&ns);
		}
}
