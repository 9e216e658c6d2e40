// SPDX-License-Identifier: MIT
/*
 * Benchmark plumbing: buffers, call tables, sizes. The destination is a
 * memfd mapped with libpmem2 (PMEM2_FORCE_GRANULARITY=CACHE_LINE, so PMDK
 * treats the DRAM as pmem and uses its flush path, not msync) and every
 * contender, PMDK's or ours, writes that same mapping.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kflush.h"
#include "bench.h"
#include "../common/cli.h"
#include "../common/output.h"
#include "../common/rng.h"

static bool wall_clock = true;

void bench_use_wall_clock(bool wall)
{
	wall_clock = wall;
}

const char *bench_clock_name(void)
{
	return wall_clock ? "wall clock (CLOCK_MONOTONIC)" :
			    "thread CPU time (CLOCK_THREAD_CPUTIME_ID; descheduled time excluded)";
}

const char *bench_clock_short(void)
{
	return wall_clock ? "wall" : "cpu";
}

uint64_t bench_now(void)
{
	struct timespec ts;

	if (wall_clock)
		return stats_now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_fill(void *p, size_t n, uint64_t seed)
{
	uint64_t st = rng_start(seed);
	char *c = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = rng_next(&st) | 0x0101010101010101ULL;

		memcpy(c + i, &v, 8);
	}
	for (; i < n; i++)
		c[i] = (char)((rng_next(&st) & 0x7f) | 1);
}

static const char *gran_name(enum pmem2_granularity g)
{
	switch (g) {
	case PMEM2_GRANULARITY_BYTE: return "byte";
	case PMEM2_GRANULARITY_CACHE_LINE: return "cache-line";
	case PMEM2_GRANULARITY_PAGE: return "page";
	}
	return "?";
}

static int map_pmem2(struct bench_bufs *b, size_t alloc)
{
	struct pmem2_config *cfg = NULL;
	int ret;

	/* Read by pmem2_map_new(): treat this DRAM-backed file as pmem. */
	setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1);
	ret = pmem2_config_new(&cfg);
	if (!ret)
		ret = pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE);
	if (!ret)
		ret = pmem2_source_from_fd(&b->psrc, b->fd);
	if (!ret)
		ret = pmem2_map_new(&b->map, cfg, b->psrc);
	if (cfg)
		pmem2_config_delete(&cfg);
	if (ret) {
		fprintf(stderr, "pmemtest: libpmem2 cannot map the buffer (%s); PMDK contenders skipped\n",
			pmem2_errormsg());
		b->map = NULL;
		return -1;
	}
	if (pmem2_map_get_size(b->map) < alloc) {
		fprintf(stderr, "pmemtest: libpmem2 mapped less than asked for\n");
		return -1;
	}
	b->dst = pmem2_map_get_address(b->map);
	b->pmem_memcpy = pmem2_get_memcpy_fn(b->map);
	b->pmem_memmove = pmem2_get_memmove_fn(b->map);
	b->pmem_memset = pmem2_get_memset_fn(b->map);
	b->pmem_drain = pmem2_get_drain_fn(b->map);
	b->granularity = gran_name(pmem2_map_get_store_granularity(b->map));
	return 0;
}

/*
 * The hot window follows the cold buffer from the next page boundary, so
 * that a sample of whole pages (copy-page, clear-bench) starts on one
 * whatever --buffer says; the cold spans start on one already.
 */
static size_t page_up(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

static size_t hot_base(size_t len)
{
	return page_up(len);
}

static size_t alloc_len(size_t len)
{
	return hot_base(len) + BENCH_HOT_SPAN;
}

int bench_check_buffer(const char *cmd, size_t len)
{
	uint64_t avail = cli_mem_available();
	uint64_t need = 2 * (uint64_t)alloc_len(len);
	char b1[32], b2[32], b3[32];

	/* Both buffers are prefaulted: more than memory fails late, or swaps. */
	if (!avail || need <= avail)
		return 0;
	cli_err("%s: buffer %s: source and destination need %s, %s of memory is available",
		cmd, cli_fmt_bytes(len, b1, sizeof(b1)), cli_fmt_bytes(need, b2, sizeof(b2)),
		cli_fmt_bytes(avail, b3, sizeof(b3)));
	return -1;
}

int bench_bufs_open(struct bench_bufs *b, size_t len)
{
	size_t alloc = alloc_len(len);

	memset(b, 0, sizeof(*b));
	b->len = len;
	b->fd = memfd_create("pmemtest-bench", MFD_CLOEXEC);
	if (b->fd < 0 || ftruncate(b->fd, (off_t)alloc) < 0) {
		perror("pmemtest: memfd");
		return -1;
	}
	if (map_pmem2(b, alloc) < 0) {
		void *p = mmap(NULL, alloc, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);

		if (p == MAP_FAILED) {
			perror("pmemtest: mmap");
			return -1;
		}
		b->dst = p;
		b->granularity = "none (plain mmap)";
	}
	b->src = mmap(NULL, alloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->src == MAP_FAILED) {
		perror("pmemtest: mmap");
		b->src = NULL;
		return -1;
	}
	/* Prefault both, with data that has no zero byte. */
	bench_fill(b->dst, alloc, 0x1234);
	bench_fill(b->src, alloc, 0x5678);
	return 0;
}

void bench_bufs_close(struct bench_bufs *b)
{
	size_t alloc = alloc_len(b->len);

	if (b->map)
		pmem2_map_delete(&b->map);
	else if (b->dst)
		munmap(b->dst, alloc);
	if (b->psrc)
		pmem2_source_delete(&b->psrc);
	if (b->src)
		munmap(b->src, alloc);
	if (b->fd >= 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

size_t bench_cold(struct bench_bufs *b, size_t span)
{
	size_t off;

	span = page_up(span);
	if (b->cold_cursor + span > b->len)
		b->cold_cursor = 0;
	off = b->cold_cursor;
	b->cold_cursor += span;
	return off;
}

unsigned int bench_pool_rounds(const struct bench_bufs *b, struct bench_pool *p, size_t span,
			       unsigned int again)
{
	span = page_up(span);
	p->n = 0;
	if (!p->m || p->m > BENCH_POOL_MAX || span > b->len)
		return 0;
	p->n = b->len / span < p->m ? b->len / span : p->m;
	return (again + (unsigned int)p->n - 1) / (unsigned int)p->n * (unsigned int)p->n;
}

void bench_pool_take(struct bench_bufs *b, struct bench_pool *p, size_t span)
{
	/* From the start when the walk would wrap among them: no two overlap. */
	if (b->cold_cursor + p->n * page_up(span) > b->len)
		b->cold_cursor = 0;
	for (size_t j = 0; j < p->n; j++)
		p->off[j] = bench_cold(b, span);
}

kflush_flush_fn bench_evict_fn(void)
{
	int idx = kflush_variant_find(KFLUSH_OP_FLUSH, "clflushopt");

	if (idx < 0 || !kflush_variant_fn(KFLUSH_OP_FLUSH, (unsigned int)idx))
		idx = kflush_variant_find(KFLUSH_OP_FLUSH, "clflush");
	return idx >= 0 ? (kflush_flush_fn)kflush_variant_fn(KFLUSH_OP_FLUSH, (unsigned int)idx)
			: kflush_flush;
}

size_t bench_hot_base(const struct bench_bufs *b)
{
	return hot_base(b->len);
}

static size_t line_up(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static size_t pick_len(enum bench_layout layout, size_t size, size_t lo, uint64_t *rng)
{
	size_t a, z;

	switch (layout) {
	case BENCH_FIXED:
	case BENCH_PACKED:
	case BENCH_DOWN:
	case BENCH_UP:
		return size;
	case BENCH_RANDOM:
		a = size - size / 4;
		z = size + size / 4;
		return a + (size_t)(rng_next(rng) % (z - a + 1));
	case BENCH_MIX:
		if (lo >= size)
			return size;
		/* Log-uniform: as many 1..2 B copies as 32..64 KiB ones. */
		a = (size_t)exp(log((double)lo) + (double)(rng_next(rng) >> 11) / 9007199254740992.0 *
				(log((double)size + 1) - log((double)lo)));
		return a < lo ? lo : a > size ? size : a;
	}
	return size;
}

int bench_calls_make(struct bench_calls *c, enum bench_layout layout, size_t size,
		     size_t lo, size_t budget, size_t max_calls, bool hot, size_t hot_span,
		     uint64_t *rng)
{
	bool move = layout == BENCH_DOWN || layout == BENCH_UP;
	size_t delta = move ? size / 4 : 0;
	size_t maxlen = layout == BENCH_RANDOM ? size + size / 4 : size + delta;
	size_t stride = layout == BENCH_PACKED ? size :
			line_up(maxlen) + (layout == BENCH_FIXED ? 0 : 64);
	size_t n, pos = 0;

	memset(c, 0, sizeof(*c));
	if (!size || (hot && stride > hot_span))
		return -1;
	if (hot && layout != BENCH_MIX)
		n = hot_span / stride;
	else if (layout == BENCH_MIX)
		n = max_calls;
	else
		n = budget / stride;
	if (n > max_calls)
		n = max_calls;
	if (!n)
		n = 1;
	c->n = n;
	c->len = calloc(n, sizeof(size_t));
	c->doff = calloc(n, sizeof(size_t));
	c->soff = calloc(n, sizeof(size_t));
	if (!c->len || !c->doff || !c->soff) {
		bench_calls_free(c);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = pick_len(layout, size, lo, rng);
		size_t od = 0, os = 0;

		if (len < 1)
			len = 1;
		if (move) {
			/*
			 * The two ends of one move overlap unless the size is
			 * under 4; the move starts anywhere in its first line,
			 * so its edge lines are partial as a caller's are.
			 */
			size_t o = (size_t)(rng_next(rng) % 64);

			od = o + (layout == BENCH_UP ? delta : 0);
			os = o + (layout == BENCH_DOWN ? delta : 0);
		} else if (layout != BENCH_FIXED && layout != BENCH_PACKED) {
			od = (size_t)(rng_next(rng) % 64);
			os = (size_t)(rng_next(rng) % 64);
		}
		if (hot && layout == BENCH_MIX) {
			/* Anywhere in the warm window: no pattern to learn. */
			size_t room = hot_span - line_up(len) - 64;

			pos = (size_t)(rng_next(rng) % (room / 64 + 1)) * 64;
			c->doff[i] = pos + od;
			c->soff[i] = pos + os;
		} else {
			/* A cold mix walks forward; stop once it has used its budget. */
			if (layout == BENCH_MIX && i && pos + len + 128 > budget) {
				c->n = i;
				break;
			}
			c->doff[i] = pos + od;
			c->soff[i] = pos + os;
			pos += layout == BENCH_MIX ? line_up(len) + 64 : stride;
		}
		c->len[i] = len;
		c->bytes += len;
		if (c->doff[i] + len > c->span)
			c->span = c->doff[i] + len;
		if (c->soff[i] + len > c->span)
			c->span = c->soff[i] + len;
	}
	bench_calls_mark_lines(c);
	return 0;
}

void bench_calls_mark_lines(struct bench_calls *c)
{
	c->lines = c->n > 0;
	for (size_t i = 0; i < c->n && c->lines; i++)
		c->lines = c->len[i] && !((c->doff[i] | c->len[i]) & 63);
}

void bench_calls_free(struct bench_calls *c)
{
	free(c->len);
	free(c->doff);
	free(c->soff);
	memset(c, 0, sizeof(*c));
}

void bench_header(struct bench_res *r, const struct bench_bufs *b, unsigned int rounds)
{
	char cpu[256], feat[256] = "";
	uint64_t f = kflush_cpu_features();
	size_t k = 0;

	output_cpu_text(cpu, sizeof(cpu));
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES && k < sizeof(feat); i++)
		if (f & (1ULL << i))
			k += (size_t)snprintf(feat + k, sizeof(feat) - k, " %s",
					      kflush_cpu_feature_name(1ULL << i));
	bench_res_note(r, "DRAM stands in for pmem: the destination is a memfd mapped through "
		       "libpmem2 (PMEM2_FORCE_GRANULARITY=CACHE_LINE, granularity %s); "
		       "flushes and drains cost what they cost on DRAM",
		       b ? b->granularity : "n/a");
	bench_res_note(r, "cpu: %s; features:%s%s", cpu, feat,
		       output_cpu_rules_off() ? "; per-CPU rules off (KFLUSH_CPU_RULES=0): bound by "
		       "precedence alone" : "");
	bench_res_note(r, "medians over %u interleaved rounds; spread = (max-min)/median; "
		       "x peer = GB/s / best PMDK-or-glibc GB/s; x roof = GB/s / roof GB/s, the roof being the "
		       "best roof strategy of the size (ERROR: more than 3 %% above it)", rounds);
	bench_res_note(r, "clock: %s", bench_clock_name());
	if (roof_test_scale() != 1)
		bench_res_note(r, "test: every roof sample's time is multiplied by %g "
			       "(PMEMTEST_TEST_ROOF_SCALE): the roofs are not measurements",
			       roof_test_scale());
}
