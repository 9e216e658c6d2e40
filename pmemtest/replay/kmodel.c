// SPDX-License-Identifier: MIT
/*
 * The kernel models. Each entry names the source it comes from: for 6.1 the
 * Debian 12 kernel the QEMU rig boots (linux-source-6.1 6.1.192-3, whose
 * stable backports moved memmap_init_zone_device() to mm/mm_init.c; its
 * /boot/config-6.1.0-57-amd64), for "2026" the tree the seed's patches apply
 * to (mainline + the mm and linux-next series of 2025-2026). Paths are inside
 * those trees.
 *
 * Both models take the config options of the rig's Debian kernel, which the
 * flags layout depends on: CONFIG_NUMA with NODES_SHIFT=10, NR_CPUS=8192
 * (13 bits), NUMA_BALANCING, SPARSEMEM_VMEMMAP (ZONE_DEVICE needs it:
 * mm/Kconfig "config ZONE_DEVICE ... depends on SPARSEMEM_VMEMMAP", so no
 * section bits), ZONE_DMA + ZONE_DMA32 (5 zones with NORMAL, MOVABLE,
 * DEVICE: ZONES_SHIFT 3), MEMCG, TRANSPARENT_HUGEPAGE,
 * HUGETLB_PAGE_OPTIMIZE_VMEMMAP=y, SLUB.
 *
 * struct page sizes on x86-64 (WANT_PAGE_VIRTUAL is never defined there,
 * arch/x86/include/asm/page*.h, so no "virtual" word and nothing per pfn):
 *   56  flags + 5-word union + _mapcount/_refcount (include/linux/mm_types.h
 *       struct page), no CONFIG_MEMCG, and no HAVE_ALIGNED_STRUCT_PAGE: x86
 *       selects that "if SLUB" (6.1 arch/x86/Kconfig:167), so 56 needs
 *       CONFIG_SLAB or CONFIG_SLOB, which exist in 6.1 only (SLAB went in 6.8).
 *   64  CONFIG_MEMCG adds memcg_data (word 7); or 56 padded to the 16-byte
 *       alignment of HAVE_ALIGNED_STRUCT_PAGE (_struct_page_alignment).
 *   80  CONFIG_KMSAN (x86-64 only; lib/Kconfig.kmsan "depends on SLUB")
 *       adds kmsan_shadow and kmsan_origin: 64 + 16 with MEMCG, or 56 + 16
 *       padded to 80 without. Both are NULL after init (mm_zero_struct_page).
 *   72, 88, 96 would need LAST_CPUPID_NOT_IN_PAGE_FLAGS (an int _last_cpupid),
 *       but with ZONE_DEVICE's vmemmap the flags word has room: zones 3 +
 *       LRU gen 3 + nodes 10 + last_cpupid 21 bits beside the page flags
 *       (include/linux/page-flags-layout.h), and 72 or 88 would be padded to
 *       80 or 96 by the SLUB alignment anyway. No x86-64 config gives them.
 * The models write no memcg, KMSAN or padding word: all stay zero.
 */
#include <stdio.h>
#include <string.h>

#include "kmodel.h"

const struct replay_kernel replay_kernel_6_1 = {
	.name = "6.1",
	.desc = "Linux 6.1 (Debian 12, the QEMU rig's kernel)",
	.sizes = REPLAY_KERNEL_SIZE(56) | REPLAY_KERNEL_SIZE(64) | REPLAY_KERNEL_SIZE(80),
	/* include/linux/page-flags.h:100 enum pageflags: PG_reserved at :113, PG_head at :117 */
	.pg_head = 16,
	.pg_reserved = 12,
	/*
	 * include/linux/mmzone.h:933-936: NODES_PGOFF = 64 - NODES_WIDTH (10),
	 * ZONES_PGOFF = NODES_PGOFF - ZONES_WIDTH (3), LAST_CPUPID_PGOFF =
	 * ZONES_PGOFF - LAST_CPUPID_WIDTH; page-flags-layout.h:82-95:
	 * LAST_CPUPID_SHIFT = LAST__PID_SHIFT 8 + NR_CPUS_BITS 13, in flags.
	 */
	.nodes_pgshift = 54, .nodes_mask = 0x3ff,
	.zones_pgshift = 51, .zones_mask = 0x7,
	.cpupid_pgshift = 30, .cpupid_mask = 0x1fffff,
	/* include/linux/mmzone.h enum zone_type: DMA, DMA32, NORMAL, MOVABLE, DEVICE */
	.zone_device = 4,
	/*
	 * mm/mm_init.c:239-241 __init_zone_device_page(): only DEVICE_PRIVATE
	 * and DEVICE_COHERENT get set_page_count(page, 0); FS_DAX keeps the 1
	 * of init_page_count() (the rig's fsdax pages: refcount 1).
	 */
	.fsdax_refcount = 1,
	/* include/linux/page-flags.h:812 set_compound_head(): head + 1 */
	.tail_mask = false,
	/*
	 * include/linux/mm_types.h:137-148 "Tail pages of compound page":
	 * compound_dtor, compound_order, compound_mapcount, compound_pincount,
	 * compound_nr in page[1]; mm/page_alloc.c:807 prep_compound_head().
	 */
	.folio = REPLAY_FOLIO_COMPOUND_61,
	.compound_dtor = 1,	/* include/linux/mm.h:935 enum compound_dtor_id: COMPOUND_PAGE_DTOR */
	/*
	 * mm/mm_init.c:351 memmap_init_zone_device(): one
	 * pageblock_migratetype_init_range() over the whole range after the loop.
	 */
	.pageblocks_after = true,
	/* include/linux/poison.h:34 0x400 + CONFIG_ILLEGAL_POINTER_VALUE 0xdead000000000000 */
	.tail_mapping = 0xdead000000000400ULL,
};

const struct replay_kernel replay_kernel_2026 = {
	.name = "2026",
	.desc = "the 2026 tree the seed's patches apply to (mm + linux-next)",
	/* 56 needs SLAB or SLOB, both gone (SLUB aligns struct page to 16 bytes). */
	.sizes = REPLAY_KERNEL_SIZE(64) | REPLAY_KERNEL_SIZE(80),
	/*
	 * include/linux/page-flags.h enum pageflags: locked, writeback,
	 * referenced, uptodate, dirty, lru, head ("Must be in bit 6"), waiters,
	 * active, workingset, owner_priv_1, owner_2, arch_1, reserved (13).
	 */
	.pg_head = 6,
	.pg_reserved = 13,
	/* Same rules and config as 6.1 (include/linux/mmzone.h *_PGOFF). */
	.nodes_pgshift = 54, .nodes_mask = 0x3ff,
	.zones_pgshift = 51, .zones_mask = 0x7,
	.cpupid_pgshift = 30, .cpupid_mask = 0x1fffff,
	.zone_device = 4,
	/*
	 * mm/mm_init.c __init_zone_device_page(): "case MEMORY_DEVICE_FS_DAX:
	 * ... set_page_count(page, 0)"; MEMORY_DEVICE_GENERIC keeps 1.
	 */
	.fsdax_refcount = 0,
	/*
	 * include/linux/page-flags.h set_compound_head() and
	 * compound_info_has_mask(): IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP)
	 * && is_power_of_2(sizeof(struct page)) stores
	 * GENMASK(BITS_PER_LONG - 1, order + order_base_2(sizeof(struct page))) | 1
	 * (Kiryl Shutsemau, "mm: Rework compound_head() for power-of-2
	 * sizeof(struct page)", PATCHv7 07/18, 2026-02-27); head | 1 otherwise.
	 */
	.tail_mask = true,
	/*
	 * include/linux/mm_types.h struct folio, page[1]: _flags_1, _head_1,
	 * _large_mapcount, _nr_pages_mapped, _entire_mapcount, _pincount,
	 * _mm_id_mapcount[2], _mm_ids, _mapcount_1, _refcount_1, _nr_pages
	 * (NR_PAGES_IN_LARGE_FOLIO: CONFIG_MEMCG or CONFIG_SLAB_OBJ_EXT);
	 * page[2]: _flags_2, _head_2, _deferred_list. mm/internal.h
	 * prep_compound_head() and folio_set_order().
	 */
	.folio = REPLAY_FOLIO_2026,
	/*
	 * mm/mm_init.c memmap_init_zone_device(): one
	 * pageblock_migratetype_init_range(start_pfn, nr_pages) over the whole
	 * range after the loop, no longer per initialised pfn in
	 * __init_zone_device_page() (Muchun Song, "mm/mm_init: fix pageblock
	 * migratetype for ZONE_DEVICE compound pages", mm-stable 2026-05-29,
	 * Cc stable): a vmemmap-optimised 1 GiB compound page marks all 512 of
	 * its pageblocks, not only its head's.
	 */
	.pageblocks_after = true,
	.tail_mapping = 0xdead000000000400ULL,
};

static const struct replay_kernel *const models[] = { &replay_kernel_2026, &replay_kernel_6_1 };

const struct replay_kernel *replay_kernel_find(const char *name)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (strcmp(models[i]->name, name) == 0)
			return models[i];
	return NULL;
}

const struct replay_kernel *replay_kernel_default(void)
{
	return &replay_kernel_2026;
}

const char *replay_kernel_names(void)
{
	return "2026, 6.1";
}

bool replay_kernel_has_size(const struct replay_kernel *k, unsigned int sp)
{
	return sp % 8 == 0 && sp / 8 < 32 && (k->sizes & REPLAY_KERNEL_SIZE(sp));
}

const char *replay_kernel_sizes(const struct replay_kernel *k, char *buf, unsigned int len)
{
	unsigned int n = 0, left = (unsigned int)__builtin_popcount(k->sizes);

	buf[0] = 0;
	for (unsigned int sp = 8; sp < 256 && n < len; sp += 8) {
		if (!replay_kernel_has_size(k, sp))
			continue;
		left--;
		n += (unsigned int)snprintf(buf + n, len - n, "%u%s", sp,
					    left > 1 ? ", " : left == 1 ? " or " : "");
	}
	return buf;
}
