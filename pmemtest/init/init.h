/* SPDX-License-Identifier: MIT */
/* init-bench: shared between its option, target, run and report files. */
#ifndef PMEMTEST_INIT_BENCH_H
#define PMEMTEST_INIT_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../replay/kmodel.h"
#include "../pmemtest.h"
#include "../replay/replay.h"
#include "../common/roof.h"
#include "../common/stats.h"

#define INIT_DEFAULT_SIZE		(100ULL << 30)
#define INIT_DEFAULT_ALIGN	(2ULL << 20)
#define INIT_BASE_PFN		(1ULL << 26)	/* namespaces start at 256 GiB */
#define INIT_MAX_SIZE		(1ULL << 52)	/* x86-64's physical address space */
#define INIT_INFO_BYTES		8192		/* nd_pfn's info block: SZ_8K, the altmap's reserve */

enum init_memmap { INIT_MEMMAP_UNSET, INIT_MEMMAP_DEV, INIT_MEMMAP_MEM };

struct init_opts {
	uint64_t size;		/* 0: from the target / default */
	uint64_t align;		/* 0: from the target / default */
	int mode;		/* -1 unset, 0 fsdax, 1 devdax */
	unsigned int sp;
	const struct replay_kernel *kernel;	/* --kernel */
	enum init_memmap memmap;
	unsigned int methods;	/* 1 << enum replay_method */
	unsigned int repeat;
	unsigned int threads;
	uint64_t seed;
	bool cpu_clock;
	bool force;		/* --force after the command: same as the global one */
	bool list;		/* --list: what can run, then exit */
	const char *variant;	/* --variant: memcpy_flushcache variant for generic */
	enum replay_pageblock_copy pageblock_copy;	/* --pageblock-copy (the kernel's: cached) */
	enum replay_compound_head compound_head;	/* --compound-head (the kernel's: drain) */
	const char *replay_out;	/* --replay-out: write the replayed memmap there */
	unsigned int corrupt;	/* PMEMTEST_TEST_CORRUPT (test only): 1 << enum replay_method */
};

/* One namespace to replay. */
struct init_ns {
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
	const struct replay_kernel *kernel;	/* NULL: replay_kernel_default() */
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

	struct replay_ns rp;
};

/*
 * options.c: parse init-bench's options into @o: 0, or 1 after --help
 * (exit 0); a bad option exits 2 with one line.
 */
int init_parse_opts(int argc, char **argv, struct init_opts *o);
#define INIT_MAX_THREADS 64

/* @v rounded up to a multiple of @a: a memmap's length to whole units. */
static inline uint64_t init_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* target.c: the namespace from --dev or the embedded default, its geometry. */
int init_describe_target(const struct pmemtest_global *g, const struct init_opts *o, struct init_ns *ns);
int init_embedded(const struct init_opts *o, struct init_ns *ns, int nr);
int init_geometry(struct init_ns *ns);
int init_target_open_rw(const struct init_ns *ns);
int init_check_writable(const struct init_ns *ns);

/* storage.c: the memory the memmap is written to, mapped and faulted in. */
int init_storage_open(struct init_ns *ns, bool quiet);
void init_storage_close(struct init_ns *ns);

/* verify.c: sample pfns (INIT_NR_SAMPLES), poison them, check them. */
#define INIT_NR_SAMPLES 4096
bool init_method_checked(enum replay_method m);
unsigned int init_checked_methods(void);
size_t init_pick_samples(const struct init_ns *ns, uint64_t *seed, uint64_t *pfn);
void init_poison(const struct init_ns *ns, const uint64_t *pfn, size_t n);
void init_test_corrupt(const struct init_ns *ns, enum replay_method m, const uint64_t *pfn, size_t n);
int init_verify(const struct init_ns *ns, enum replay_method m, const uint64_t *pfn, size_t n);

/* dump.c: the replayed memmap to a file, for tools/vm/memmap-cmp.c. */
#define INIT_DUMP_MAGIC "pmemtest-memmap"
struct init_dump_header {
	char magic[16];
	uint64_t version, sp, base_pfn, npfns, start_pfn, end_pfn;
	uint64_t memmap_addr;	/* where pfn base_pfn's struct page was */
	uint64_t pgmap;		/* the value replayed into page->pgmap */
	char kernel[16];	/* the model's name */
};
/*
 * --replay-out, before the runs: exit 2 when @ns cannot be dumped or @path
 * is the --output file @output (NULL: none); PMEMTEST_EXIT_FAIL after one
 * line when @path cannot be written; else 0.
 */
int init_dump_check(const struct init_ns *ns, const char *path, const char *output);
int init_dump_replay(const struct init_ns *ns, const char *path);

/* What a method's runs gave: verified by verify.c, reported by report.c. */
enum init_verdict {
	INIT_NOT_CHECKED,		/* roof: writes no struct pages */
	INIT_PASSED,		/* every run's samples and pageblocks matched */
	INIT_FAILED,		/* some run's did not */
};

/* One of the roof's store strategies, timed like a method (command.c). */
struct init_roof {
	const struct roof_strategy *s;
	double *samples;	/* ms, in run order, PMEMTEST_TEST_ROOF_SCALE applied */
	unsigned int runs;
	struct stats_summary st;
};

struct init_result {
	enum replay_method m;
	/* The roof's row: the strategy with the best median, and all it was chosen from. */
	const char *strategy;
	const struct init_roof *roofs;
	size_t nroofs;
	double *samples;	/* ms, in run order */
	unsigned char *turns;	/* each sample's place in its round (0: ran first) */
	unsigned int runs;	/* samples taken: --repeat, or fewer after a mismatch */
	struct stats_summary s;
	enum init_verdict verdict;	/* what init_verify() found, never assumed */
	bool run;
};

/* verify.c: the failed methods, comma separated, for the summary line. */
void init_failed_list(const struct init_result *res, char *buf, size_t len);

/* report.c */
const char *init_method_name(enum replay_method m);
bool init_method_durable(enum replay_method m);
/* --list: the methods (usable here or not) and the kernel models. */
void init_report_list(void);
void init_report_table(const struct init_ns *ns, const struct init_opts *o, struct init_result *r);
void init_report_csv_header(void);
void init_report_csv(const struct init_ns *ns, const struct init_opts *o, struct init_result *r);
/* json: collects namespaces into one document printed by init_report_json_end(). */
void init_report_json_ns(const struct init_ns *ns, struct init_result *r);
void init_report_json_end(const struct init_opts *o);

#endif /* PMEMTEST_INIT_BENCH_H */
