/* SPDX-License-Identifier: MIT */
/* init-bench: shared between its option, target, run and report files. */
#ifndef PMEMTEST_INIT_BENCH_H
#define PMEMTEST_INIT_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kmodel.h"
#include "pmemtest.h"
#include "replay.h"
#include "stats.h"

#define IB_DEFAULT_SIZE		(100ULL << 30)
#define IB_DEFAULT_ALIGN	(2ULL << 20)
#define IB_BASE_PFN		(1ULL << 26)	/* namespaces start at 256 GiB */
#define IB_MAX_SIZE		(1ULL << 52)	/* x86-64's physical address space */
#define IB_INFO_BYTES		8192		/* nd_pfn's info block: SZ_8K, the altmap's reserve */

enum ib_memmap { IB_MEMMAP_UNSET, IB_MEMMAP_DEV, IB_MEMMAP_MEM };

struct ib_opts {
	uint64_t size;		/* 0: from the target / default */
	uint64_t align;		/* 0: from the target / default */
	int mode;		/* -1 unset, 0 fsdax, 1 devdax */
	unsigned int sp;
	const struct rp_kernel *kernel;	/* --kernel */
	enum ib_memmap memmap;
	unsigned int methods;	/* 1 << enum rp_method */
	unsigned int repeat;
	unsigned int threads;
	uint64_t seed;
	bool cpu_clock;
	bool force;		/* --force after the command: same as the global one */
	const char *variant;	/* --variant: memcpy_flushcache variant for generic */
	const char *replay_out;	/* --replay-out: write the replayed memmap there */
	unsigned int corrupt;	/* PMEMTEST_TEST_CORRUPT (test only): 1 << enum rp_method */
};

/* One namespace to replay. */
struct ib_ns {
	char name[64];
	bool devdax;
	bool altmap;		/* map=dev: the kernel keeps the memmap in the namespace */
	/*
	 * A real devdax device: its size is already the data area the kernel
	 * initialises (memmap_init_zone_device() covers exactly dax size /
	 * 4096 pfns); with map=dev the altmap's memmap lies before it, outside
	 * the device, so no pfns are skipped.
	 */
	bool data_only;
	bool vmemmap_opt;	/* map=mem compound pages: 128 struct pages each */
	uint64_t size, align;
	unsigned int sp;
	const struct rp_kernel *kernel;	/* NULL: rp_kernel_default() */
	uint64_t npfns;
	uint64_t memmap_bytes;	/* the whole struct page array */
	uint64_t write_lo, write_hi;	/* bytes of the array the replay writes */
	uint64_t written;	/* bytes of struct pages written per run */
	uint64_t backed;	/* memory the replay touches */
	uint64_t pfns_init;	/* struct pages initialised per run */

	/* The target: NULL path means the embedded namespace. */
	const char *path;
	int fd;
	uint64_t target_size;	/* the device's or file's own size */
	bool real_dax;		/* libpmem2 gave cache line/byte granularity unforced */
	bool map_sync;		/* ... and the kernel marked the mapping MAP_SYNC */
	bool gran_forced;	/* PMEM2_FORCE_GRANULARITY: DRAM/page cache stands in */
	const char *gran;	/* "byte", "cache line", "page" */
	bool on_target;		/* --memmap dev on a real target */
	char dev_map[8];	/* the device's own map= when known */
	char storage[200];	/* what memory holds the memmap, said first; then the path */
	struct pmem2_map *map;
	struct pmem2_source *src;
	int map_fd;		/* what is mapped: the memfd, or the target opened RW */
	uint64_t map_len;

	struct rp_ns rp;
};

/* init_target.c */
int ib_describe_target(const struct pm_global *g, const struct ib_opts *o, struct ib_ns *ns);
int ib_embedded(const struct ib_opts *o, struct ib_ns *ns, int nr);
int ib_geometry(struct ib_ns *ns);
int ib_check_writable(const struct ib_ns *ns);
int ib_storage_open(struct ib_ns *ns, bool quiet);
void ib_storage_close(struct ib_ns *ns);

/* init_verify.c: sample pfns (IB_NR_SAMPLES), poison them, check them. */
#define IB_NR_SAMPLES 4096
bool ib_method_checked(enum rp_method m);
unsigned int ib_checked_methods(void);
size_t ib_pick_samples(const struct ib_ns *ns, uint64_t *seed, uint64_t *pfn);
void ib_poison(const struct ib_ns *ns, const uint64_t *pfn, size_t n);
void ib_test_corrupt(const struct ib_ns *ns, enum rp_method m, const uint64_t *pfn, size_t n);
int ib_verify(const struct ib_ns *ns, enum rp_method m, const uint64_t *pfn, size_t n);

/* init_dump.c: the replayed memmap to a file, for tools/vm/memmap-cmp.c. */
#define IB_DUMP_MAGIC "pmemtest-memmap"
struct ib_dump_header {
	char magic[16];
	uint64_t version, sp, base_pfn, npfns, start_pfn, end_pfn;
	uint64_t memmap_addr;	/* where pfn base_pfn's struct page was */
	uint64_t pgmap;		/* the value replayed into page->pgmap */
	char kernel[16];	/* the model's name */
};
int ib_dump_replay(const struct ib_ns *ns, const char *path);

/* What a method's runs gave: verified by init_verify.c, reported by init_report.c. */
enum ib_verdict {
	IB_NOT_CHECKED,		/* roof: writes no struct pages */
	IB_PASSED,		/* every run's samples and pageblocks matched */
	IB_FAILED,		/* some run's did not */
};

struct ib_result {
	enum rp_method m;
	double *samples;	/* ms, in run order */
	unsigned int runs;	/* samples taken: --repeat, or fewer after a mismatch */
	struct pm_summary s;
	enum ib_verdict verdict;	/* what ib_verify() found, never assumed */
	bool run;
};

/* init_verify.c: the failed methods, comma separated, for the summary line. */
void ib_failed_list(const struct ib_result *res, char *buf, size_t len);

/* init_report.c */
const char *ib_method_name(enum rp_method m);
bool ib_method_durable(enum rp_method m);
void ib_report_table(const struct ib_ns *ns, const struct ib_opts *o, struct ib_result *r);
void ib_report_csv_header(void);
void ib_report_csv(const struct ib_ns *ns, const struct ib_opts *o, struct ib_result *r);
/* json: collects namespaces into one document printed by ib_report_json_end(). */
void ib_report_json_ns(const struct ib_ns *ns, struct ib_result *r);
void ib_report_json_end(const struct ib_opts *o);

#endif /* PMEMTEST_INIT_BENCH_H */
