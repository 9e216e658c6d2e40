/* SPDX-License-Identifier: MIT */
/* pmemtest: dax devices and pmem namespaces through libdaxctl / libndctl. */
#ifndef PMEMTEST_DEVICES_H
#define PMEMTEST_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

struct devices_info {
	char chardev[64];	/* devdax only: "dax0.0"; empty otherwise */
	char blockdev[64];	/* fsdax/sector/raw: "pmem1" (the pfn's or btt's disk) */
	char ns[64];		/* ndctl namespace "namespace1.0", empty without one */
	char region[64];	/* "region0" (ndctl) or "dax_region0" (daxctl only) */
	char mode[16];		/* "devdax", "fsdax", "sector", "raw" */
	char map[8];		/* "dev", "mem" or "?" (no ndctl namespace) */
	uint64_t size;		/* usable size, as "ndctl list" reports it */
	uint64_t align;
	int numa_node;
	bool ndctl;		/* described by an ndctl namespace */
};

/*
 * Describe the devdax character device devname ("dax0.0"). Tries the ndctl
 * namespace first and falls back to the daxctl region (CXL, hmem: no
 * namespace). Returns 0, or -ENOENT when no dax device has that name.
 */
int devices_dax_lookup(const char *devname, struct devices_info *out);

/* Every dax device and pmem namespace; calls fn for each. Returns the count. */
int devices_foreach(void (*fn)(const struct devices_info *d, void *arg), void *arg);

#endif /* PMEMTEST_DEVICES_H */
