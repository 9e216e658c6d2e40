/* SPDX-License-Identifier: MIT */
/*
 * Private to libkflush-pmem: libpmem's interface as libpmem.h (PMDK 1.12)
 * declares it, without needing libpmem-dev to build, and the call counters
 * behind KFLUSH_PMEM_STATS.
 */
#ifndef KFLUSH_PMEM_H
#define KFLUSH_PMEM_H

#include <stddef.h>
#include <sys/types.h>

#define PMEM_API __attribute__((visibility("default")))

/* Memory calls: implemented on libkflush (memory.c). */
void *pmem_memmove(void *pmemdest, const void *src, size_t len, unsigned flags);
void *pmem_memcpy(void *pmemdest, const void *src, size_t len, unsigned flags);
void *pmem_memset(void *pmemdest, int c, size_t len, unsigned flags);
void *pmem_memmove_persist(void *pmemdest, const void *src, size_t len);
void *pmem_memcpy_persist(void *pmemdest, const void *src, size_t len);
void *pmem_memset_persist(void *pmemdest, int c, size_t len);
void *pmem_memmove_nodrain(void *pmemdest, const void *src, size_t len);
void *pmem_memcpy_nodrain(void *pmemdest, const void *src, size_t len);
void *pmem_memset_nodrain(void *pmemdest, int c, size_t len);
void pmem_flush(const void *addr, size_t len);
void pmem_drain(void);
void pmem_persist(const void *addr, size_t len);
void pmem_deep_flush(const void *addr, size_t len);
int pmem_deep_drain(const void *addr, size_t len);
int pmem_deep_persist(const void *addr, size_t len);
int pmem_has_hw_drain(void);

/* Mapping and information calls: forwarded to the real libpmem (forward.c). */
void *pmem_map_file(const char *path, size_t len, int flags, mode_t mode,
		    size_t *mapped_lenp, int *is_pmemp);
int pmem_unmap(void *addr, size_t len);
int pmem_is_pmem(const void *addr, size_t len);
int pmem_msync(const void *addr, size_t len);
const char *pmem_errormsg(void);
const char *pmem_check_version(unsigned major_required, unsigned minor_required);
int pmem_has_auto_flush(void);

/* The part of pmem_deep_drain() that needs libpmem's map of its mappings. */
int kflush_pmem_real_deep_drain(const void *addr, size_t len);
/* The real pmem_has_auto_flush(), uncounted: -1 if the real libpmem is missing. */
int kflush_pmem_real_auto_flush(void);

/*
 * The memory calls whose work depends on whether libpmem flushes, chosen
 * once at load (memory.c): the flushing set there, the other one in
 * noflush.c. Each counts its own call.
 */
struct pmem_ops {
	void *(*memmove)(void *pmemdest, const void *src, size_t len, unsigned flags);
	void *(*memcpy)(void *pmemdest, const void *src, size_t len, unsigned flags);
	void *(*memset)(void *pmemdest, int c, size_t len, unsigned flags);
	void *(*memmove_persist)(void *pmemdest, const void *src, size_t len);
	void *(*memcpy_persist)(void *pmemdest, const void *src, size_t len);
	void *(*memset_persist)(void *pmemdest, int c, size_t len);
	void *(*memmove_nodrain)(void *pmemdest, const void *src, size_t len);
	void *(*memcpy_nodrain)(void *pmemdest, const void *src, size_t len);
	void *(*memset_nodrain)(void *pmemdest, int c, size_t len);
	void (*flush)(const void *addr, size_t len);
	void (*persist)(const void *addr, size_t len);
};

extern const struct pmem_ops kflush_pmem_noflush_ops;

/* One counter per exported function, in the order of kflush_pmem_names[]. */
enum pmem_fn {
	F_MEMMOVE, F_MEMCPY, F_MEMSET,
	F_MEMMOVE_PERSIST, F_MEMCPY_PERSIST, F_MEMSET_PERSIST,
	F_MEMMOVE_NODRAIN, F_MEMCPY_NODRAIN, F_MEMSET_NODRAIN,
	F_FLUSH, F_DRAIN, F_PERSIST, F_DEEP_FLUSH, F_DEEP_DRAIN, F_DEEP_PERSIST,
	F_HAS_HW_DRAIN, F_HAS_AUTO_FLUSH,
	F_MAP_FILE, F_UNMAP, F_IS_PMEM, F_MSYNC, F_ERRORMSG, F_CHECK_VERSION,
	NR_PMEM_FN
};

extern int kflush_pmem_stats;
void kflush_pmem_count(enum pmem_fn f, size_t bytes);

/* Counting costs an atomic add per call: only when KFLUSH_PMEM_STATS asks. */
#define COUNT(f, bytes)							\
	do {								\
		if (__builtin_expect(kflush_pmem_stats, 0))		\
			kflush_pmem_count((f), (bytes));		\
	} while (0)

#endif /* KFLUSH_PMEM_H */
