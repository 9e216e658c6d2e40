// SPDX-License-Identifier: MIT
/*
 * The memory init-bench writes a namespace's memmap to: the target itself
 * through libpmem2 (--memmap dev, reopened as target.c described it), or
 * a memfd through libpmem2 when DRAM stands in for pmem; faulted in
 * before the timed rounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libpmem2.h>

#include "init.h"
#include "../common/cli.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Map [0, len) of ns->src; force_cl: PMEM2_FORCE_GRANULARITY=CACHE_LINE. */
static int map_pmem2(struct init_ns *ns, uint64_t len, bool force_cl)
{
	struct pmem2_config *cfg = NULL;
	int rc;

	if (force_cl)
		setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1);
	else
		unsetenv("PMEM2_FORCE_GRANULARITY");
	rc = pmem2_config_new(&cfg);
	if (!rc)
		rc = pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE);
	if (!rc)
		rc = pmem2_config_set_length(cfg, len);
	if (!rc)
		rc = pmem2_map_new(&ns->map, cfg, ns->src);
	if (cfg)
		pmem2_config_delete(&cfg);
	if (rc) {
		cli_err("%s: libpmem2 cannot map it: %s", ns->name, pmem2_errormsg());
		return PMEMTEST_EXIT_FAIL;
	}
	ns->gran_forced = force_cl;
	return PMEMTEST_EXIT_OK;
}

static const char *gran_name(enum pmem2_granularity g)
{
	switch (g) {
	case PMEM2_GRANULARITY_BYTE: return "byte";
	case PMEM2_GRANULARITY_CACHE_LINE: return "cache line";
	case PMEM2_GRANULARITY_PAGE: return "page";
	}
	return "?";
}

/*
 * Did the kernel set VM_SYNC ("sf" in smaps' VmFlags, i.e. MAP_SYNC) on the
 * mapping at addr? Read back rather than inferred, so "MAP_SYNC" in the
 * output is a fact.
 */
static bool vma_map_sync(const void *addr)
{
	unsigned long a = (unsigned long)(uintptr_t)addr, lo, hi;
	bool in = false, sync = false;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's first line is "lo-hi perms ..."; no field line parses so. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8) == 0) {
			sync = strstr(line, " sf") != NULL;
			break;
		}
	}
	fclose(f);
	return sync;
}

/*
 * --memmap dev: map the target itself. First without forcing anything, so
 * libpmem2's own answer says whether this is real DAX (cache line or byte
 * granularity: a devdax device, or a DAX file it mapped with MAP_SYNC).
 * Page granularity means the page cache stands in for pmem: remap with
 * cache line granularity forced, or the durable methods would each
 * msync() and the replay would time that.
 *
 * libpmem2 maps whole units of the source's alignment (2 MiB or 1 GiB on
 * devdax): the length is the announced range rounded up to that, never past
 * the target's end. Only [write_lo, write_hi) is ever written.
 */
static int map_target(struct init_ns *ns)
{
	size_t align = 0, size = 0;
	enum pmem2_granularity gr;
	char b1[32], b2[32];
	int rc;

	if (pmem2_source_from_fd(&ns->src, ns->map_fd) || pmem2_source_alignment(ns->src, &align) ||
	    pmem2_source_size(ns->src, &size) || !align) {
		cli_err("%s: libpmem2 cannot use it: %s", ns->name, pmem2_errormsg());
		return PMEMTEST_EXIT_FAIL;
	}
	ns->map_len = init_round_up(ns->write_hi, align);
	if (ns->map_len > size)
		ns->map_len = size / align * align;
	if (ns->map_len < ns->write_hi) {
		cli_err("%s: the memmap ends at byte %" PRIu64 ", past the last whole %s unit libpmem2 can map (%s)",
		       ns->name, ns->write_hi, cli_fmt_bytes(align, b1, sizeof(b1)),
		       cli_fmt_bytes(size, b2, sizeof(b2)));
		return PMEMTEST_EXIT_FAIL;
	}
	rc = map_pmem2(ns, ns->map_len, false);
	if (rc)
		return rc;
	gr = pmem2_map_get_store_granularity(ns->map);
	if (gr == PMEM2_GRANULARITY_PAGE) {
		pmem2_map_delete(&ns->map);
		rc = map_pmem2(ns, ns->map_len, true);
		if (rc)
			return rc;
		ns->gran = gran_name(pmem2_map_get_store_granularity(ns->map));
		snprintf(ns->storage, sizeof(ns->storage),
			 "the page cache stands in for pmem (not DAX: libpmem2 gives page "
			 "granularity; %s granularity forced): %s", ns->gran, ns->path);
		return PMEMTEST_EXIT_OK;
	}
	ns->real_dax = true;
	ns->gran = gran_name(gr);
	ns->map_sync = vma_map_sync(pmem2_map_get_address(ns->map));
	snprintf(ns->storage, sizeof(ns->storage), "real DAX (%s, %s granularity): %s mapped by libpmem2",
		 ns->map_sync ? "MAP_SYNC" : ns->devdax ? "device DAX" : "DAX", ns->gran, ns->path);
	return PMEMTEST_EXIT_OK;
}

/*
 * Fault in [lo, hi) for writing. A kernel without MADV_POPULATE_WRITE
 * (before 5.14) says EINVAL, and the pages are touched instead; any other
 * failure is a page that cannot be had (a sparse file on a full
 * filesystem, tmpfs over its size, no memory), where a store would die
 * of SIGBUS: reported instead.
 */
static int populate(const struct init_ns *ns, uintptr_t lo, uintptr_t hi)
{
	char b1[32];

	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno != EINVAL) {
		cli_err("%s: cannot fault in %s of memmap%s%s: %s", ns->name,
			cli_fmt_bytes(hi - lo, b1, sizeof(b1)), ns->on_target ? " in " : "",
			ns->on_target ? ns->path : "",
			errno == EFAULT ? "no room for its pages (a sparse file on a full filesystem?)"
					: strerror(errno));
		return -1;
	}
	for (volatile char *p = (volatile char *)lo; (uintptr_t)p < hi; p += 4096)
		*p = *p;
	return 0;
}

/* Fault the pages the replay writes in before timing anything. */
static int prefault(struct init_ns *ns)
{
	struct replay_ns *r = &ns->rp;
	uintptr_t lo, hi;

	if (!ns->vmemmap_opt) {
		lo = (uintptr_t)r->memmap + ns->write_lo;
		hi = (uintptr_t)r->memmap + ns->write_hi;
		return populate(ns, lo & ~(uintptr_t)4095, hi);
	}
	for (uint64_t h = r->start_pfn; h < r->end_pfn; h += r->ppc) {
		lo = (uintptr_t)replay_page(r, h) & ~(uintptr_t)4095;
		hi = (uintptr_t)replay_page(r, h + r->compound_nr);
		if (populate(ns, lo, hi))
			return -1;
	}
	return 0;
}

static uint64_t dev_pagemap_stand_in[16];

int init_storage_open(struct init_ns *ns, bool quiet)
{
	struct replay_ns *r = &ns->rp;
	uint64_t avail = cli_mem_available(), need;
	size_t pb_bytes = (size_t)(ns->npfns / REPLAY_PAGEBLOCK_NR / 2 + 1);
	char b1[32], b2[32];
	int rc;

	need = ns->backed + pb_bytes;
	if (!ns->on_target && avail && need > avail / 10 * 8) {
		cli_err("%s: the memmap needs %s but only %s of memory is available; refusing before allocating",
		       ns->name, cli_fmt_bytes(need, b1, sizeof(b1)), cli_fmt_bytes(avail, b2, sizeof(b2)));
		return PMEMTEST_EXIT_FAIL;
	}
	if (ns->on_target) {
		int fd = init_target_open_rw(ns);

		if (fd < 0)
			return PMEMTEST_EXIT_FAIL;
		ns->map_fd = fd;
		rc = map_target(ns);
		if (rc)
			return rc;
	} else {
		ns->map_fd = memfd_create("pmemtest-memmap", MFD_CLOEXEC);
		ns->map_len = init_round_up(ns->memmap_bytes, 2 << 20);
		if (ns->map_fd < 0 || ftruncate(ns->map_fd, (off_t)ns->map_len) < 0) {
			cli_err_errno("%s: memfd for the memmap", ns->name);
			return PMEMTEST_EXIT_FAIL;
		}
		if (pmem2_source_from_fd(&ns->src, ns->map_fd)) {
			cli_err("%s: libpmem2 cannot use the memfd: %s", ns->name, pmem2_errormsg());
			return PMEMTEST_EXIT_FAIL;
		}
		rc = map_pmem2(ns, ns->map_len, true);
		if (rc)
			return rc;
		ns->gran = gran_name(pmem2_map_get_store_granularity(ns->map));
		snprintf(ns->storage, sizeof(ns->storage),
			 "DRAM stands in for pmem: memfd mapped by libpmem2, %s granularity forced",
			 ns->gran);
	}
	r->memmap = pmem2_map_get_address(ns->map);
	r->pageblock = calloc(1, pb_bytes);
	if (!r->pageblock) {
		cli_err("%s: out of memory for the pageblock bitmap", ns->name);
		return PMEMTEST_EXIT_FAIL;
	}
	r->pgmap = (uintptr_t)dev_pagemap_stand_in;
	r->pmem2_memcpy = (replay_pmem2_memcpy_fn)pmem2_get_memcpy_fn(ns->map);
	r->pmem2_drain = pmem2_get_drain_fn(ns->map);
	r->pmem2_flags = PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN;
	if (!quiet)
		fprintf(stderr, "%s: faulting in %s of memmap...\n", ns->name,
			cli_fmt_bytes(ns->backed, b1, sizeof(b1)));
	return prefault(ns) ? PMEMTEST_EXIT_FAIL : PMEMTEST_EXIT_OK;
}

void init_storage_close(struct init_ns *ns)
{
	if (ns->map) {
		/* A real file keeps what was written; make it reach the file. */
		if (ns->on_target)
			msync(pmem2_map_get_address(ns->map), ns->map_len, MS_SYNC);
		pmem2_map_delete(&ns->map);
	}
	if (ns->src)
		pmem2_source_delete(&ns->src);
	if (ns->map_fd >= 0)
		close(ns->map_fd);
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns->rp.pageblock);
	ns->map_fd = ns->fd = -1;
	ns->rp.pageblock = NULL;
}
