// SPDX-License-Identifier: MIT
/*
 * copy-bench, set mode: kflush_memset_flushcache's variants against PMDK's
 * memset_fn, glibc memset + kflush_flush and the fill roofs, 1 B..16 MiB,
 * in the sweep's layouts (fixed, random sizes and offsets, the 1 B..4 KiB
 * mix, packed up to 4 KiB), hot and cold. Every call stores COPY_SET_BYTE;
 * the source buffer is not read.
 */
#include <stdlib.h>

#include "copy.h"

static int set_run(struct copy_run *x)
{
	struct copy_contender v[COPY_MAX_CONTENDERS];
	size_t nv = 0, *sizes, nsizes;
	int groups[2][BENCH_PACKED + 1], ret;

	copy_add_variants(x, v, &nv, KFLUSH_OP_MEMSET_FLUSHCACHE, CALL_FLUSHSET);
	if (copy_has_pmdk(x)) {
		copy_add(x, v, &nv, "pmdk:memset_nt", BENCH_PEER, CALL_PMEM_SET, NULL,
			 PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
		copy_add(x, v, &nv, "pmdk:memset", BENCH_PEER, CALL_PMEM_SET, NULL, PMEM2_F_MEM_NODRAIN);
	}
	copy_add(x, v, &nv, "glibc:memset+flush", BENCH_PEER, CALL_GLIBC_SET_FLUSH, NULL, 0);
	copy_add(x, v, &nv, "ref:kflush_memset_temporal", BENCH_REF, CALL_FLUSHSET,
		 (kflush_fn)kflush_memset_temporal, 0);
	copy_add_roofs(x, v, &nv, ROOF_FILL, CALL_ROOF_FILL, "fill");
	copy_mode_sizes(x, 1, 16u << 20, copy_small_sizes, COPY_NR_SMALL_SIZES, &sizes, &nsizes);
	if (!sizes)
		return -1;
	ret = copy_run_layouts(x, "set", sizes, nsizes, 1, 4096, 4096, 8u << 20, v, nv, groups);
	if (!ret)
		copy_small_targets(x, groups, v, nv, sizes, nsizes, "ref:kflush_memset_temporal",
				   "glibc:memset+flush");
	free(sizes);
	return ret < 0 ? -1 : 0;
}

const struct copy_mode copy_mode_set = {
	"set", "1 B..16 MiB memsets, hot and cold, fixed, random, mix and packed: "
	"kflush_memset_flushcache variants vs PMDK and glibc memset + flush vs the fill roof",
	set_run,
};
