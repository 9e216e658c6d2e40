// SPDX-License-Identifier: MIT
/*
 * The functions libkflush-pmem2's pmem2_get_*_fn() hand out, under the
 * persistence tracer (tests/trace/), at the two granularities where the
 * instructions are the difference: the expectations are PMDK's, from
 * pmem2_get_persist_fn(3), pmem2_get_memcpy_fn(3) and libpmem2's persist.c,
 * not from the code:
 * - CACHE_LINE: the copies, move and fill leave no line dirty and end
 *   with one fence (none with NODRAIN); from 256 bytes they store
 *   non-temporally, and for an 8-aligned destination and a multiple of 4
 *   bytes only so (the kernel's contract, kflush_memcpy_flushcache(3)),
 *   but a move stores its partial first and last lines with ordinary
 *   stores and writes them back, as PMDK's movnt paths do
 *   (kflush_memmove_flushcache(3)); persist writes back
 *   every line once, then fences; flush writes back every line once, no
 *   fence; drain is one fence;
 * - BYTE (eADR): nothing is ever written back; the copies end with one
 *   fence (none with NODRAIN), persist and drain are one fence, flush does
 *   nothing at all; every byte is still right and nothing is stored
 *   outside the destination.
 * - NOFLUSH, at either granularity: "don't flush anything; implies
 *   NODRAIN" (pmem2_get_memcpy_fn(3)): no write-back and no fence; lines
 *   may stay dirty, nothing else may go wrong. libpmem2's own synchronous
 *   data mover (pmem2_memcpy_async(3)) copies with NOFLUSH and persists
 *   after, so an extra fence or write-back there is not PMDK's.
 * The map each set comes from is a file with PMEM2_FORCE_GRANULARITY set,
 * and the granularity the real libpmem2 reports for it is checked first.
 * This program links the drop-in, not PMDK's libpmem2.
 *
 * And libkflush-pmem's libpmem calls, from the drop-in beside this one
 * (dlopen, after PMEM_NO_FLUSH=0: flushing, eADR or not; flushing off is
 * test_pmem_noflush's), with the expectations of pmem_memmove(3) and
 * pmem_flush(3):
 * the _persist forms and flags 0 leave no line dirty and end with one
 * fence; the _nodrain forms and PMEM_F_MEM_NODRAIN do not fence;
 * PMEM_F_MEM_NOFLUSH writes nothing back and does not fence;
 * pmem_persist() writes back every line once, then fences; pmem_flush()
 * and pmem_deep_flush() write back every line once and do not fence;
 * pmem_drain() is one fence.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <libpmem2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kflush.h"
#include "testutil.h"
#include "trace/harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { LINE, BYTE, NGRAN };
static const char *const gran_env[NGRAN] = { "CACHE_LINE", "BYTE" };
static const enum pmem2_granularity gran_want[NGRAN] = { PMEM2_GRANULARITY_CACHE_LINE,
							 PMEM2_GRANULARITY_BYTE };

/* Filled before the tracee is forked, so it has them too. */
static struct fns {
	pmem2_memcpy_fn cpy;
	pmem2_memmove_fn move;
	pmem2_memset_fn set;
	pmem2_persist_fn persist;
	pmem2_flush_fn flush;
	pmem2_drain_fn drain;
	int granularity;
} fns[NGRAN];
static char setup_error[256];

static void get_fns(int g)
{
	char path[] = "/tmp/kflush-pmem2-trace.XXXXXX";
	struct pmem2_config *cfg = NULL;
	struct pmem2_source *src = NULL;
	struct pmem2_map *map = NULL;
	int fd = mkstemp(path);

	if (fd < 0 || ftruncate(fd, 1 << 20) != 0) {
		snprintf(setup_error, sizeof(setup_error), "temporary file: %m");
		return;
	}
	unlink(path);
	setenv("PMEM2_FORCE_GRANULARITY", gran_env[g], 1);
	if (pmem2_config_new(&cfg) || pmem2_source_from_fd(&src, fd) ||
	    pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
	    pmem2_map_new(&map, cfg, src)) {
		snprintf(setup_error, sizeof(setup_error), "pmem2_map_new: %s", pmem2_errormsg());
		return;
	}
	unsetenv("PMEM2_FORCE_GRANULARITY");
	/* The map stays: the functions are tied to it for the test's life. */
	fns[g] = (struct fns){
		.cpy = pmem2_get_memcpy_fn(map), .move = pmem2_get_memmove_fn(map),
		.set = pmem2_get_memset_fn(map), .persist = pmem2_get_persist_fn(map),
		.flush = pmem2_get_flush_fn(map), .drain = pmem2_get_drain_fn(map),
		.granularity = (int)pmem2_map_get_store_granularity(map),
	};
}

/*
 * libpmem's flag bits, from libpmem.h (PMDK 1.12), written out so that
 * building this needs no libpmem-dev; not from kflush.h.
 */
#define PMEM_F_MEM_NODRAIN	(1U << 0)
#define PMEM_F_MEM_NOFLUSH	(1U << 5)

/* libkflush-pmem's calls, as libpmem.h declares them. */
static struct {
	void *(*memcpy)(void *, const void *, size_t, unsigned);
	void *(*memmove)(void *, const void *, size_t, unsigned);
	void *(*memset)(void *, int, size_t, unsigned);
	void *(*memcpy_persist)(void *, const void *, size_t);
	void *(*memmove_persist)(void *, const void *, size_t);
	void *(*memset_persist)(void *, int, size_t);
	void *(*memcpy_nodrain)(void *, const void *, size_t);
	void *(*memmove_nodrain)(void *, const void *, size_t);
	void *(*memset_nodrain)(void *, int, size_t);
	void (*flush)(const void *, size_t);
	void (*drain)(void);
	void (*persist)(const void *, size_t);
	void (*deep_flush)(const void *, size_t);
} pm;
static char pm_error[PATH_MAX + 256];

/* dlsym() into a function pointer of any type, without casting void *. */
#define PM_SYM(h, field)							\
	do {									\
		void *p_ = dlsym((h), "pmem_" #field);				\
		if (!p_) {							\
			snprintf(pm_error, sizeof(pm_error), "%s", dlerror());	\
			return;							\
		}								\
		memcpy(&pm.field, &p_, sizeof(p_));				\
	} while (0)

/*
 * The libpmem drop-in is built beside libkflush-pmem2, whose functions
 * fns[LINE] holds: opened from there, by full path, RTLD_LOCAL.
 */
static void get_libpmem(void)
{
	union { pmem2_drain_fn f; void *p; } in_dropin = { .f = fns[LINE].drain };
	Dl_info info;
	const char *slash;
	char path[PATH_MAX];
	void *h;

	if (!in_dropin.p || !dladdr(in_dropin.p, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/'))) {
		snprintf(pm_error, sizeof(pm_error), "cannot tell where libkflush-pmem2 is");
		return;
	}
	snprintf(path, sizeof(path), "%.*s/libkflush-pmem.so.1", (int)(slash - info.dli_fname),
		 info.dli_fname);
	/* Its constructor reads it, as PMDK's does. */
	setenv("PMEM_NO_FLUSH", "0", 1);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(pm_error, sizeof(pm_error), "%s", dlerror());
		return;
	}
	PM_SYM(h, memcpy);
	PM_SYM(h, memmove);
	PM_SYM(h, memset);
	PM_SYM(h, memcpy_persist);
	PM_SYM(h, memmove_persist);
	PM_SYM(h, memset_persist);
	PM_SYM(h, memcpy_nodrain);
	PM_SYM(h, memmove_nodrain);
	PM_SYM(h, memset_nodrain);
	PM_SYM(h, flush);
	PM_SYM(h, drain);
	PM_SYM(h, persist);
	PM_SYM(h, deep_flush);
}

static void setup(void)
{
	get_fns(LINE);
	get_fns(BYTE);
	get_libpmem();
	tp_setup();
}

/* The four-argument functions with the flags bound, as the tracer's calls. */
#define WRAP(G, F, FL)								\
	static void *cpy_##G##_##F(void *d, const void *s, size_t n)		\
	{ return fns[G].cpy(d, s, n, FL); }					\
	static void *move_##G##_##F(void *d, const void *s, size_t n)		\
	{ return fns[G].move(d, s, n, FL); }					\
	static void *set_##G##_##F(void *d, int c, size_t n)			\
	{ return fns[G].set(d, c, n, FL); }
WRAP(LINE, 0, 0)
WRAP(LINE, ND, PMEM2_F_MEM_NODRAIN)
WRAP(LINE, NF, PMEM2_F_MEM_NOFLUSH)
WRAP(BYTE, 0, 0)
WRAP(BYTE, ND, PMEM2_F_MEM_NODRAIN)
WRAP(BYTE, NF, PMEM2_F_MEM_NOFLUSH)
/* The same for libpmem's flags calls. */
#define PM_WRAP(F, FL)								\
	static void *pm_cpy_##F(void *d, const void *s, size_t n)		\
	{ return pm.memcpy(d, s, n, FL); }					\
	static void *pm_move_##F(void *d, const void *s, size_t n)		\
	{ return pm.memmove(d, s, n, FL); }					\
	static void *pm_set_##F(void *d, int c, size_t n)			\
	{ return pm.memset(d, c, n, FL); }
PM_WRAP(0, 0)
PM_WRAP(ND, PMEM_F_MEM_NODRAIN)
PM_WRAP(NF, PMEM_F_MEM_NOFLUSH)
/* The static tables below hold these wrappers: pm is only filled in at run time. */
#define PM_FORM(F)								\
	static void *pm_cpy_##F(void *d, const void *s, size_t n)		\
	{ return pm.memcpy_##F(d, s, n); }					\
	static void *pm_move_##F(void *d, const void *s, size_t n)		\
	{ return pm.memmove_##F(d, s, n); }					\
	static void *pm_set_##F(void *d, int c, size_t n)			\
	{ return pm.memset_##F(d, c, n); }
PM_FORM(persist)
PM_FORM(nodrain)
static void pm_persist(const void *p, size_t n) { pm.persist(p, n); }
static void pm_flush(const void *p, size_t n) { pm.flush(p, n); }
static void pm_deep_flush(const void *p, size_t n) { pm.deep_flush(p, n); }
static void pm_drain(void) { pm.drain(); }
static void persist_line(const void *p, size_t n) { fns[LINE].persist(p, n); }
static void flush_line(const void *p, size_t n) { fns[LINE].flush(p, n); }
static void drain_line(void) { fns[LINE].drain(); }
static void persist_byte(const void *p, size_t n) { fns[BYTE].persist(p, n); }
static void flush_byte(const void *p, size_t n) { fns[BYTE].flush(p, n); }
static void drain_byte(void) { fns[BYTE].drain(); }

static const void *const copies[NGRAN][2][3] = {
	[LINE] = { { (const void *)cpy_LINE_0, (const void *)move_LINE_0, (const void *)set_LINE_0 },
		   { (const void *)cpy_LINE_ND, (const void *)move_LINE_ND,
		     (const void *)set_LINE_ND } },
	[BYTE] = { { (const void *)cpy_BYTE_0, (const void *)move_BYTE_0, (const void *)set_BYTE_0 },
		   { (const void *)cpy_BYTE_ND, (const void *)move_BYTE_ND,
		     (const void *)set_BYTE_ND } },
};
static const char *const copy_names[3] = { "memcpy_fn", "memmove_fn", "memset_fn" };
static const enum tp_shape copy_shapes[3] = { TP_COPY, TP_MOVE, TP_SET };

static const struct {
	size_t n, doff;
} cases[] = { { 5, 3 }, { 64, 0 }, { 100, 8 }, { 256, 0 }, { 1000, 0 }, { 1001, 7 }, { 8192, 0 } };

static void check_setup(int g)
{
	cr_assert(!setup_error[0], "%s", setup_error);
	cr_assert_eq(fns[g].granularity, (int)gran_want[g],
		     "PMEM2_FORCE_GRANULARITY=%s gave granularity %d, want %d", gran_env[g],
		     fns[g].granularity, (int)gran_want[g]);
}

static int kernel_bound(void)
{
	return !(kflush_cpu_features() & (KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX2 |
					  KFLUSH_CPU_MOVDIR64B | KFLUSH_CPU_SSE2));
}

TestSuite(pmem2_persistence, .init = setup, .fini = tp_teardown);

/* One copy (c: 0 memcpy, 1 memmove, 2 memset) of cases[i] to cache-line pmem. */
static void line_copy(const char *label, const void *fn, int c, size_t i, int fences)
{
	size_t n = cases[i].n, doff = cases[i].doff;
	int nt = n >= 256;	/* no hint: PMDK's threshold */
	char msg[1024];
	struct tp_call call = {
		.name = label, .fn = fn,
		.shape = copy_shapes[c], .doff = doff, .soff = doff + 3,
		.n = n, .c = 0x3c, .dist = n & 1 ? 3 : -70,
		.wb = tp_expected_wb(), .fences = fences,
		.allow_mixed = nt && kernel_bound(),
		.nt_only = nt && doff % 8 == 0 && n % 4 == 0 &&
			   (copy_shapes[c] != TP_MOVE ||
			    (doff % 64 == 0 && (doff + n) % 64 == 0)),
	};

	if (tp_run(&call, msg, sizeof(msg)))
		cr_assert_fail("%s", msg);
}

Test(pmem2_persistence, cache_line_copies)
{
	check_setup(LINE);
	for (int nd = 0; nd < 2; nd++)
		for (int c = 0; c < 3; c++)
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
				char label[64];

				snprintf(label, sizeof(label), "%s/cache_line%s", copy_names[c],
					 nd ? " NODRAIN" : "");
				line_copy(label, copies[LINE][nd][c], c, i, nd ? 0 : 1);
			}
}

/* pmem_memmove(3): the _persist forms are flags 0, the _nodrain forms NODRAIN. */
Test(pmem2_persistence, libpmem_copies)
{
	static const struct {
		const char *name[3];
		const void *fn[3];
		int fences;
	} forms[] = {
		{ { "pmem_memcpy_persist", "pmem_memmove_persist", "pmem_memset_persist" },
		  { (const void *)pm_cpy_persist, (const void *)pm_move_persist,
		    (const void *)pm_set_persist }, 1 },
		{ { "pmem_memcpy(0)", "pmem_memmove(0)", "pmem_memset(0)" },
		  { (const void *)pm_cpy_0, (const void *)pm_move_0, (const void *)pm_set_0 }, 1 },
		{ { "pmem_memcpy_nodrain", "pmem_memmove_nodrain", "pmem_memset_nodrain" },
		  { (const void *)pm_cpy_nodrain, (const void *)pm_move_nodrain,
		    (const void *)pm_set_nodrain }, 0 },
		{ { "pmem_memcpy(NODRAIN)", "pmem_memmove(NODRAIN)", "pmem_memset(NODRAIN)" },
		  { (const void *)pm_cpy_ND, (const void *)pm_move_ND, (const void *)pm_set_ND }, 0 },
	};

	cr_assert(!pm_error[0], "libkflush-pmem: %s", pm_error);
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++)
		for (int c = 0; c < 3; c++)
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
				line_copy(forms[f].name[c], forms[f].fn[c], c, i, forms[f].fences);
}

/*
 * NOFLUSH: no write-back, no fence, no other broken rule; what the call
 * stored may stay dirty, it is the caller's to flush.
 */
Test(pmem2_persistence, noflush_copies)
{
	static const struct {
		const char *name;
		const void *fn;
		int c, gran;	/* gran -1: libpmem's */
	} calls[] = {
		{ "memcpy_fn/cache_line NOFLUSH", (const void *)cpy_LINE_NF, 0, LINE },
		{ "memmove_fn/cache_line NOFLUSH", (const void *)move_LINE_NF, 1, LINE },
		{ "memset_fn/cache_line NOFLUSH", (const void *)set_LINE_NF, 2, LINE },
		{ "memcpy_fn/byte NOFLUSH", (const void *)cpy_BYTE_NF, 0, BYTE },
		{ "memmove_fn/byte NOFLUSH", (const void *)move_BYTE_NF, 1, BYTE },
		{ "memset_fn/byte NOFLUSH", (const void *)set_BYTE_NF, 2, BYTE },
		{ "pmem_memcpy(NOFLUSH)", (const void *)pm_cpy_NF, 0, -1 },
		{ "pmem_memmove(NOFLUSH)", (const void *)pm_move_NF, 1, -1 },
		{ "pmem_memset(NOFLUSH)", (const void *)pm_set_NF, 2, -1 },
	};

	for (size_t k = 0; k < ARRAY_SIZE(calls); k++) {
		int c = calls[k].c;

		if (calls[k].gran < 0)
			cr_assert(!pm_error[0], "libkflush-pmem: %s", pm_error);
		else
			check_setup(calls[k].gran);
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			size_t n = cases[i].n, doff = cases[i].doff;
			char msg[1024];
			struct tp_call call = {
				.name = calls[k].name, .fn = calls[k].fn,
				.shape = copy_shapes[c], .doff = doff, .soff = doff + 3,
				.n = n, .c = 0x3c, .dist = n & 1 ? 3 : -70,
				.wb = tp_expected_wb(), .fences = 0,
			};
			const struct tl_state *s;
			size_t bad = tp_run(&call, msg, sizeof(msg));

			s = tp_last();
			if (bad != s->count[TL_DIRTY] || s->writebacks || s->fences)
				cr_assert_fail("%s n=%zu: %zu write-backs, %zu fences (want none): %s",
					       calls[k].name, n, s->writebacks, s->fences, msg);
		}
	}
}

Test(pmem2_persistence, cache_line_persist_flush_drain)
{
	static const size_t lens[] = { 1, 64, 100, 4096 + 13 };
	char msg[1024];

	check_setup(LINE);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		struct tp_call persist = {
			.name = "persist_fn/cache_line", .fn = (const void *)persist_line,
			.shape = TP_FLUSH, .doff = 5, .n = lens[i], .wb = tp_expected_wb(),
			.fences = 1,
		};
		struct tp_call flush = {
			.name = "flush_fn/cache_line", .fn = (const void *)flush_line,
			.shape = TP_FLUSH, .doff = 5, .n = lens[i], .wb = tp_expected_wb(),
			.fences = 0,
		};

		if (tp_run(&persist, msg, sizeof(msg)))
			cr_assert_fail("%s", msg);
		if (tp_run(&flush, msg, sizeof(msg)))
			cr_assert_fail("%s", msg);
	}
	struct tp_call drain = { .name = "drain_fn/cache_line", .fn = (const void *)drain_line,
				 .shape = TP_DRAIN, .fences = 1 };
	if (tp_run(&drain, msg, sizeof(msg)))
		cr_assert_fail("%s", msg);
}

/* pmem_flush(3): persist is flush then drain; the deep flush writes back whatever eADR says. */
Test(pmem2_persistence, libpmem_persist_flush_drain)
{
	static const size_t lens[] = { 1, 64, 100, 4096 + 13 };
	static const struct {
		const char *name;
		const void *fn;
		int fences;
	} calls[] = {
		{ "pmem_persist", (const void *)pm_persist, 1 },
		{ "pmem_flush", (const void *)pm_flush, 0 },
		{ "pmem_deep_flush", (const void *)pm_deep_flush, 0 },
	};
	char msg[1024];

	cr_assert(!pm_error[0], "libkflush-pmem: %s", pm_error);
	for (size_t k = 0; k < ARRAY_SIZE(calls); k++)
		for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
			struct tp_call call = {
				.name = calls[k].name, .fn = calls[k].fn, .shape = TP_FLUSH,
				.doff = 5, .n = lens[i], .wb = tp_expected_wb(),
				.fences = calls[k].fences,
			};

			if (tp_run(&call, msg, sizeof(msg)))
				cr_assert_fail("%s", msg);
		}
	struct tp_call drain = { .name = "pmem_drain", .fn = (const void *)pm_drain,
				 .shape = TP_DRAIN, .fences = 1 };
	if (tp_run(&drain, msg, sizeof(msg)))
		cr_assert_fail("%s", msg);
}

Test(pmem2_persistence, byte_copies_fence_only)
{
	check_setup(BYTE);
	for (int nd = 0; nd < 2; nd++)
		for (int c = 0; c < 3; c++)
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
				size_t n = cases[i].n, doff = cases[i].doff;
				char label[64], msg[1024];
				struct tp_call call = {
					.name = label, .fn = copies[BYTE][nd][c],
					.shape = copy_shapes[c], .doff = doff, .soff = doff + 3,
					.n = n, .c = 0x3c, .dist = n & 1 ? 3 : -70,
					.wb = tp_expected_wb(), .fences = nd ? 0 : 1,
				};
				const struct tl_state *s;
				size_t bad;

				snprintf(label, sizeof(label), "%s/byte%s", copy_names[c],
					 nd ? " NODRAIN" : "");
				bad = tp_run(&call, msg, sizeof(msg));
				s = tp_last();
				/* Lines left in the (persistent) cache are the point. */
				if (bad != s->count[TL_DIRTY])
					cr_assert_fail("%s", msg);
				if (s->writebacks)
					cr_assert_fail("%s n=%zu: %zu write-backs at byte granularity",
						       label, n, s->writebacks);
			}
}

Test(pmem2_persistence, byte_persist_flush_drain)
{
	static const size_t lens[] = { 1, 64, 4096 + 13 };
	const struct tl_state *s;
	char msg[1024];
	size_t bad;

	check_setup(BYTE);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		struct tp_call persist = {
			.name = "persist_fn/byte", .fn = (const void *)persist_byte,
			.shape = TP_FLUSH, .doff = 5, .n = lens[i], .wb = tp_expected_wb(),
			.fences = 1,
		};
		struct tp_call flush = {
			.name = "flush_fn/byte", .fn = (const void *)flush_byte,
			.shape = TP_FLUSH, .doff = 5, .n = lens[i], .wb = tp_expected_wb(),
			.fences = 0,
		};

		/* Judged as a flush, the only broken rule must be "each line written back". */
		bad = tp_run(&persist, msg, sizeof(msg));
		s = tp_last();
		if (bad != s->count[TL_WB_COUNT] || s->writebacks || s->fences != 1)
			cr_assert_fail("persist_fn/byte n=%zu: %zu write-backs, %zu fences "
				       "(want 0 and 1): %s", lens[i], s->writebacks, s->fences, msg);
		bad = tp_run(&flush, msg, sizeof(msg));
		s = tp_last();
		if (bad != s->count[TL_WB_COUNT] || s->writebacks || s->fences)
			cr_assert_fail("flush_fn/byte n=%zu: %zu write-backs, %zu fences "
				       "(want none): %s", lens[i], s->writebacks, s->fences, msg);
	}
	struct tp_call drain = { .name = "drain_fn/byte", .fn = (const void *)drain_byte,
				 .shape = TP_DRAIN, .fences = 1 };
	if (tp_run(&drain, msg, sizeof(msg)))
		cr_assert_fail("%s", msg);
}
