// SPDX-License-Identifier: MIT
/*
 * copy-bench, move mode: kflush_memmove_flushcache's variants against
 * PMDK's memmove_fn and glibc memmove + kflush_flush, on moves within the
 * destination buffer whose two ends overlap, in both directions: "down"
 * (the source a quarter of the size above the destination, which the
 * variants copy forward) and "up" (below it: they copy backward), each
 * at a random offset in its line, as the sweep's random layout places
 * its copies. A move that does not overlap is a copy, which the sweep
 * measures.
 */
#include <stdlib.h>

#include "copy.h"

static int move_run(struct copy_run *x)
{
	struct copy_contender v[COPY_MAX_CONTENDERS];
	size_t nv = 0, *sizes, nsizes;
	int ret = 0;

	copy_add_variants(x, v, &nv, KFLUSH_OP_MEMMOVE_FLUSHCACHE, CALL_FLUSHCACHE);
	if (copy_has_pmdk(x)) {
		copy_add(x, v, &nv, "pmdk:memmove_nt", BENCH_PEER, CALL_PMEM_MOVE, NULL,
			 PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
		copy_add(x, v, &nv, "pmdk:memmove", BENCH_PEER, CALL_PMEM_MOVE, NULL, PMEM2_F_MEM_NODRAIN);
	}
	copy_add(x, v, &nv, "glibc:memmove+flush", BENCH_PEER, CALL_GLIBC_MOVE_FLUSH, NULL, 0);
	copy_add(x, v, &nv, "ref:kflush_memmove_temporal", BENCH_REF, CALL_FLUSHCACHE,
		 (kflush_fn)kflush_memmove_temporal, 0);
	copy_mode_sizes(x, 16, 16u << 20, NULL, 0, &sizes, &nsizes);
	if (!sizes)
		return -1;
	for (int h = 0; h < 2 && !ret; h++) {
		bool hot = h == 0;

		if (!(x->o.cache & (hot ? BENCH_HOT : BENCH_COLD)))
			continue;
		for (int l = BENCH_DOWN; l <= BENCH_UP && !ret; l++)
			if (x->o.layouts & (1u << l))
				ret = copy_run_group(x, "move", hot, (enum bench_layout)l, sizes, nsizes, 0,
						     8u << 20, v, nv) < 0 ? -1 : 0;
	}
	free(sizes);
	return ret;
}

const struct copy_mode copy_mode_move = {
	"move", "16 B..16 MiB overlapping moves, down and up, hot and cold: "
	"kflush_memmove_flushcache variants vs PMDK and glibc memmove + flush",
	move_run,
};
