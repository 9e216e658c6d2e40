// SPDX-License-Identifier: MIT
/*
 * For test_pmem2.sh: a library that calls libpmem2 from its constructor,
 * as a library loaded after libkflush-pmem2 may, so the call reaches the
 * drop-in before the drop-in's own constructor has filled its forwarding
 * slots. Preloaded after the drop-in, its constructor runs first (the
 * script checks that order with LD_DEBUG=libs), and the first forwarded
 * call takes pmem2_forward.S's slow path, which has to keep every
 * argument register across the C resolver that loads the real libpmem2.
 *
 * KFLUSH_TEST_PMEM2_EARLY picks the first call:
 *   perror  pmem2_perror() with arguments in every integer and vector
 *           argument register, the vector count in al, and two on the
 *           stack; PMDK prints them, so a clobbered one shows on stderr.
 *   source  pmem2_source_from_anon(), then pmem2_source_size(): prints
 *           "early source: RET ERRNO SIZE" (ENOSYS and no size when the
 *           real library could not be loaded).
 */
#include <errno.h>
#include <libpmem2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EARLY_SIZE ((size_t)3 << 20)

__attribute__((constructor)) static void pmem2_early(void)
{
	const char *mode = getenv("KFLUSH_TEST_PMEM2_EARLY");

	if (!mode)
		return;
	if (!strcmp(mode, "perror")) {
		pmem2_perror("early perror: %d %d %d %d %d %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %d %.1f",
			     1, 2, 3, 4, 5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 6, 8.5);
	} else if (!strcmp(mode, "source")) {
		struct pmem2_source *src = NULL;
		size_t size = 0;
		int ret, err;

		errno = 0;
		ret = pmem2_source_from_anon(&src, EARLY_SIZE);
		err = errno;
		if (ret == 0 && pmem2_source_size(src, &size) != 0)
			size = 0;
		printf("early source: %d %d %zu\n", ret, ret ? err : 0, size);
		fflush(stdout);
		if (ret == 0)
			pmem2_source_delete(&src);
	} else {
		fprintf(stderr, "pmem2_early: unknown KFLUSH_TEST_PMEM2_EARLY '%s'\n", mode);
		abort();
	}
}
