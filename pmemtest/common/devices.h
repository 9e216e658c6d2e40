/* SPDX-License-Identifier: MIT */
/* pmemtest: dax devices and pmem namespaces through libdaxctl / libndctl. */
#ifndef PMEMTEST_DEVICES_H
#define PMEMTEST_DEVICES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct devices_info {
	char chardev[64];	/* devdax only: "dax0.0"; empty otherwise */
	char blockdev[64];	/* fsdax/sector/raw: "pmem1" (the pfn's or btt's disk) */
	char ns[64];		/* ndctl namespace "namespace1.0", empty without one */
	char region[64];	/* "region0" (ndctl) or "dax_region0" (daxctl only) */
	char mode[16];		/* "devdax", "fsdax", "sector", "raw" */
	char map[8];		/* "dev", "mem" or "?" (no ndctl namespace) */
	uint64_t size;		/* usable size, as "ndctl list" reports it */
	uint64_t align;
	int numa_node;		/* the namespace's (ndctl); -1 without one */
	int target_node;	/* devdax only: the memory's node (daxctl); -1 otherwise */
	bool ndctl;		/* described by an ndctl namespace */
};

/*
 * Describe the devdax character device whose number is rdev, whatever the
 * node that was opened is called: the kernel names dax devices by number,
 * udev rules and containers may not. Tries the ndctl namespace first and
 * falls back to the daxctl region (CXL, hmem: no namespace). Returns 0, or
 * -ENOENT when no dax device has that number.
 */
int devices_dax_lookup(dev_t rdev, struct devices_info *out);

/* Every dax device and pmem namespace; calls fn for each. Returns the count. */
int devices_foreach(void (*fn)(const struct devices_info *d, void *arg), void *arg);

#endif /* PMEMTEST_DEVICES_H */
