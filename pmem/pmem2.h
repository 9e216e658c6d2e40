/* SPDX-License-Identifier: MIT */
/*
 * Private to libkflush-pmem2: the part of libpmem2's interface (PMDK 1.12,
 * <libpmem2/base.h>) the getters need, declared here so building the
 * drop-in needs no libpmem2-dev; and the glue between the forwarders
 * (pmem2_forward.S, pmem2_load.c) and the getters (pmem2_fns.c).
 */
#ifndef KFLUSH_PMEM2_H
#define KFLUSH_PMEM2_H

#include <stddef.h>

#define PMEM2_API __attribute__((visibility("default")))

struct pmem2_map;

/* The values of enum pmem2_granularity: part of libpmem2's ABI. */
enum { GRAN_BYTE = 0, GRAN_CACHE_LINE = 1, GRAN_PAGE = 2, NR_GRAN };

typedef void *(*pmem2_memmove_fn)(void *pmemdest, const void *src, size_t len, unsigned flags);
typedef void *(*pmem2_memcpy_fn)(void *pmemdest, const void *src, size_t len, unsigned flags);
typedef void *(*pmem2_memset_fn)(void *pmemdest, int c, size_t len, unsigned flags);
typedef void (*pmem2_persist_fn)(const void *ptr, size_t size);
typedef void (*pmem2_flush_fn)(const void *ptr, size_t size);
typedef void (*pmem2_drain_fn)(void);

pmem2_memmove_fn pmem2_get_memmove_fn(struct pmem2_map *map);
pmem2_memcpy_fn pmem2_get_memcpy_fn(struct pmem2_map *map);
pmem2_memset_fn pmem2_get_memset_fn(struct pmem2_map *map);
pmem2_persist_fn pmem2_get_persist_fn(struct pmem2_map *map);
pmem2_flush_fn pmem2_get_flush_fn(struct pmem2_map *map);
pmem2_drain_fn pmem2_get_drain_fn(struct pmem2_map *map);
const char *pmem2_errormsg(void);

/*
 * The real libpmem2's pmem2_map_get_store_granularity(), or -1 with a
 * message on stderr when the real library could not be loaded.
 */
int kflush_pmem2_real_granularity(const struct pmem2_map *map);

#endif /* KFLUSH_PMEM2_H */
