// SPDX-License-Identifier: MIT
/*
 * init-bench --replay-out: the whole struct page array as the replayed
 * kernel leaves it after a bind, for a byte comparison with the memmap a
 * real kernel wrote (tools/vm/memmap-cmp.c). The altmap's own pfns are
 * initialised as memmap_init_range() does, the data pfns by the slow path;
 * pfns nobody initialises (the info block's) stay zero.
 *
 * File: struct init_dump_header, then npfns * sp bytes, struct page of pfn
 * base_pfn + i at offset i * sp. Pointers in it are pmemtest's: memmap_addr
 * is the address of the first struct page, pgmap the dev_pagemap stand-in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "init.h"
#include "../common/cli.h"

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

int init_dump_check(const struct init_ns *ns, const char *path, const char *output)
{
	if (!replay_method_fn(REPLAY_SLOW, ns->sp) || ns->vmemmap_opt)
		cli_die_usage("%s: --replay-out needs a memmap the kernel writes in full (map=dev)",
			      ns->name);
	/* The results would be written over the dump when the command ends. */
	if (output && cli_same_file(path, output))
		cli_die_usage("--replay-out %s is the --output file", path);
	return cli_check_output("--replay-out", path) ? PMEMTEST_EXIT_FAIL : PMEMTEST_EXIT_OK;
}

int init_dump_replay(const struct init_ns *ns, const char *path)
{
	const struct replay_ns *r = &ns->rp;
	struct init_dump_header h;
	replay_fn slow = replay_method_fn(REPLAY_SLOW, ns->sp);
	int fd, rc = PMEMTEST_EXIT_OK;

	/* init_dump_check() refused these before the runs. */
	if (!slow || ns->vmemmap_opt)
		return PMEMTEST_EXIT_FAIL;
	memset(r->memmap, 0, ns->memmap_bytes);
	memset(r->pageblock, 0, (size_t)(ns->npfns / REPLAY_PAGEBLOCK_NR / 2 + 1));
	if (ns->altmap)
		replay_init_altmap_pages(r, r->base_pfn + INIT_INFO_BYTES / 4096, r->start_pfn);
	slow(r, r->start_pfn, r->end_pfn);

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, INIT_DUMP_MAGIC, sizeof(INIT_DUMP_MAGIC));
	h.version = 1;
	h.sp = ns->sp;
	h.base_pfn = r->base_pfn;
	h.npfns = ns->npfns;
	h.start_pfn = r->start_pfn;
	h.end_pfn = r->end_pfn;
	h.memmap_addr = (uint64_t)(uintptr_t)r->memmap;
	h.pgmap = r->pgmap;
	snprintf(h.kernel, sizeof(h.kernel), "%s", r->k->name);
	fd = cli_open_output("--replay-out", path);
	if (fd < 0)
		return PMEMTEST_EXIT_FAIL;
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, r->memmap, ns->memmap_bytes)) {
		cli_err("--replay-out %s: %s", path, strerror(errno));
		rc = PMEMTEST_EXIT_FAIL;
	}
	if (close(fd) && !rc) {
		cli_err("--replay-out %s: %s", path, strerror(errno));
		rc = PMEMTEST_EXIT_FAIL;
	}
	return rc;
}
