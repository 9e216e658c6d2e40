// SPDX-License-Identifier: MIT
/*
 * init-bench --replay-out: the whole struct page array as the replayed
 * kernel leaves it after a bind, for a byte comparison with the memmap a
 * real kernel wrote (tools/vm/memmap-cmp.c). The altmap's own pfns are
 * initialised as memmap_init_range() does, the data pfns by the slow path;
 * pfns nobody initialises (the info block's) stay zero.
 *
 * File: struct ib_dump_header, then npfns * sp bytes, struct page of pfn
 * base_pfn + i at offset i * sp. Pointers in it are pmemtest's: memmap_addr
 * is the address of the first struct page, pgmap the dev_pagemap stand-in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "init_bench.h"
#include "util.h"

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ib_dump_replay(const struct ib_ns *ns, const char *path)
{
	const struct rp_ns *r = &ns->rp;
	struct ib_dump_header h;
	rp_fn slow = rp_method_fn(RP_SLOW, ns->sp);
	int fd, rc = PM_EXIT_OK;

	if (!slow || ns->vmemmap_opt) {
		pm_err("%s: --replay-out needs a memmap the kernel writes in full (map=dev)", ns->name);
		return PM_EXIT_FAIL;
	}
	memset(r->memmap, 0, ns->memmap_bytes);
	memset(r->pageblock, 0, (size_t)(ns->npfns / RP_PAGEBLOCK_NR / 2 + 1));
	if (ns->altmap)
		rp_init_altmap_pages(r, r->base_pfn + IB_INFO_BYTES / 4096, r->start_pfn);
	slow(r, r->start_pfn, r->end_pfn);

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, IB_DUMP_MAGIC, sizeof(IB_DUMP_MAGIC));
	h.version = 1;
	h.sp = ns->sp;
	h.base_pfn = r->base_pfn;
	h.npfns = ns->npfns;
	h.start_pfn = r->start_pfn;
	h.end_pfn = r->end_pfn;
	h.memmap_addr = (uint64_t)(uintptr_t)r->memmap;
	h.pgmap = r->pgmap;
	snprintf(h.kernel, sizeof(h.kernel), "%s", r->k->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		pm_err("--replay-out %s: %s", path, strerror(errno));
		return PM_EXIT_FAIL;
	}
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, r->memmap, ns->memmap_bytes)) {
		pm_err("--replay-out %s: %s", path, strerror(errno));
		rc = PM_EXIT_FAIL;
	}
	if (close(fd) && !rc) {
		pm_err("--replay-out %s: %s", path, strerror(errno));
		rc = PM_EXIT_FAIL;
	}
	return rc;
}
