/* SPDX-License-Identifier: MIT */
/*
 * Kernel models for the memmap replay: the facts of one kernel version
 * that decide the bytes memmap_init_zone_device() leaves in a struct page.
 * The tables (kmodel.c) say where each fact comes from.
 */
#ifndef PMEMTEST_KMODEL_H
#define PMEMTEST_KMODEL_H

#include <stdbool.h>
#include <stdint.h>

/* What prep_compound_head() writes into page[1] and page[2]. */
enum replay_folio_layout {
	REPLAY_FOLIO_COMPOUND_61,	/* 6.1: compound_dtor/order/mapcount/pincount/nr in page[1] */
	REPLAY_FOLIO_2026,		/* struct folio: _flags_1 order, mapcounts, _mm_ids, _nr_pages */
};

struct replay_kernel {
	const char *name;		/* --kernel VERSION */
	const char *desc;
	unsigned int sizes;		/* sizeof(struct page) it can have: bit sp / 8 */
	unsigned int pg_head, pg_reserved;	/* enum pageflags */
	unsigned int nodes_pgshift, zones_pgshift, cpupid_pgshift;
	uint64_t nodes_mask, zones_mask, cpupid_mask;
	unsigned int zone_device;	/* zone index of ZONE_DEVICE */
	int fsdax_refcount;		/* what __init_zone_device_page() leaves */
	/* Tails hold GENMASK(63, order + log2(sp)) | 1 for power-of-two sizes. */
	bool tail_mask;
	enum replay_folio_layout folio;
	uint8_t compound_dtor;		/* 6.1: COMPOUND_PAGE_DTOR */
	/* Pageblocks of the whole range set after the loop, not per pfn. */
	bool pageblocks_after;
	uint64_t tail_mapping;		/* TAIL_MAPPING */
};

#define REPLAY_KERNEL_SIZE(sp)	(1u << ((sp) / 8))

extern const struct replay_kernel replay_kernel_6_1;
extern const struct replay_kernel replay_kernel_2026;

/* The model named name ("6.1", "2026"), or NULL. */
const struct replay_kernel *replay_kernel_find(const char *name);
/* The default: the 2026 tree the seed's patches apply to. */
const struct replay_kernel *replay_kernel_default(void);
/* Comma list of the models' names, for messages. */
const char *replay_kernel_names(void);
/* Whether model k has struct pages of sp bytes on x86-64. */
bool replay_kernel_has_size(const struct replay_kernel *k, unsigned int sp);
/* "56, 64 or 80": the sizes of k, for messages. */
const char *replay_kernel_sizes(const struct replay_kernel *k, char *buf, unsigned int len);

#endif /* PMEMTEST_KMODEL_H */
