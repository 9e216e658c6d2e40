// SPDX-License-Identifier: MIT
/*
 * libkflush-pmem with flushing off, and the decision to turn it off, under
 * the persistence tracer. This program links the drop-in, so it sees
 * PMEM_NO_FLUSH as any client does: in the environment it starts with
 * (tests/test_pmem_noflush.sh and tests/test_pmem_eadr.sh start it with
 * each setting). The expectations are PMDK 1.12's:
 * - libpmem's constructor (pmem_init()) reads PMEM_NO_FLUSH once: "1"
 *   never flushes, "0" always does, any other value, or none, flushes
 *   unless pmem_has_auto_flush() is 1 (libpmem(7), ENVIRONMENT). The
 *   mode tests trace the real libpmem in the same environment to confirm
 *   that rule (and the script's own reading of it, KFLUSH_TEST_PMEM_FLUSH),
 *   then the drop-in against it; its pmem_has_auto_flush() must be the
 *   real one's (and KFLUSH_TEST_AUTO_FLUSH, the fake sysfs's answer).
 * - Flushing off (pmem.c, libpmem2's x86_64/init.c "eadr" copies):
 *   pmem_flush() writes nothing back and does not fence, pmem_persist()
 *   and pmem_drain() are one fence, pmem_deep_flush() still writes every
 *   line back once; the copies store with ordinary stores at any size and
 *   write nothing back, then fence once, or not at all with NODRAIN,
 *   NOFLUSH and the _nodrain forms; with PMEM_F_MEM_NONTEMPORAL (not WC)
 *   they store whole lines non-temporally and fence twice (their own
 *   barrier, then the drain), once with NODRAIN, and a zero-length or
 *   in-place one only drains. The drop-in's non-temporal store is
 *   libkflush's flush-copy, which writes back what it stores through the
 *   cache (libkflush-pmem(7), DIFFERENCES): only whole-line copies are
 *   held to "no write-back" there. Lines left dirty are the point.
 * - Flushing on: no line left dirty, one fence unless NODRAIN or NOFLUSH
 *   (tests/test_pmem2_persistence has the details, with PMEM_NO_FLUSH=0).
 * - libkflush-pmem2 at byte granularity: its NONTEMPORAL copies are
 *   libpmem's with flushing off (libpmem2 uses the same functions).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <libpmem2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kflush.h"
#include "trace/harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* libpmem.h (PMDK 1.12), written out: building this needs no libpmem-dev. */
#define PMEM_F_MEM_NODRAIN	(1U << 0)
#define PMEM_F_MEM_NONTEMPORAL	(1U << 1)
#define PMEM_F_MEM_TEMPORAL	(1U << 2)
#define PMEM_F_MEM_WC		(1U << 3)
#define PMEM_F_MEM_WB		(1U << 4)
#define PMEM_F_MEM_NOFLUSH	(1U << 5)
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
int pmem_has_auto_flush(void);

/* The real libpmem, the oracle; filled before the tracee is forked. */
static struct {
	void (*flush)(const void *, size_t);
	void *(*memcpy_persist)(void *, const void *, size_t);
	int (*has_auto_flush)(void);
} real;
static char real_error[512];
static int flushing;	/* PMDK's decision in this environment */

#define REAL_SYM(h, field, name)						\
	do {									\
		void *p_ = dlsym((h), (name));					\
		if (!p_) {							\
			snprintf(real_error, sizeof(real_error), "%s", dlerror()); \
			return;							\
		}								\
		memcpy(&real.field, &p_, sizeof(p_));				\
	} while (0)

/* The drop-in opened it by this path, RTLD_LOCAL: this is that handle. */
static void get_real(void)
{
	void *h = dlopen(KFLUSH_LIBPMEM_PATH, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(real_error, sizeof(real_error), "%s", dlerror());
		return;
	}
	REAL_SYM(h, flush, "pmem_flush");
	REAL_SYM(h, memcpy_persist, "pmem_memcpy_persist");
	REAL_SYM(h, has_auto_flush, "pmem_has_auto_flush");
}

/* PMDK 1.12's pmem_init(), as libpmem(7) documents PMEM_NO_FLUSH. */
static int pmdk_flushes(void)
{
	const char *e = getenv("PMEM_NO_FLUSH");

	if (e && strcmp(e, "1") == 0)
		return 0;
	if (e && strcmp(e, "0") == 0)
		return 1;
	return real.has_auto_flush() != 1;
}

static void setup(void)
{
	get_real();
	if (!real_error[0])
		flushing = pmdk_flushes();
	tp_setup();
}

static int kernel_bound(void)
{
	return !(kflush_cpu_features() & (KFLUSH_CPU_AVX512F | KFLUSH_CPU_AVX2 |
					  KFLUSH_CPU_MOVDIR64B | KFLUSH_CPU_SSE2));
}

/* The flags forms with their flags bound, as the tracer calls them. */
#define WRAP(F, FL)								\
	static void *cpy_##F(void *d, const void *s, size_t n)			\
	{ return pmem_memcpy(d, s, n, FL); }					\
	static void *move_##F(void *d, const void *s, size_t n)		\
	{ return pmem_memmove(d, s, n, FL); }					\
	static void *set_##F(void *d, int c, size_t n)				\
	{ return pmem_memset(d, c, n, FL); }
WRAP(0, 0)
WRAP(ND, PMEM_F_MEM_NODRAIN)
WRAP(NT, PMEM_F_MEM_NONTEMPORAL)
WRAP(NTND, PMEM_F_MEM_NONTEMPORAL | PMEM_F_MEM_NODRAIN)
WRAP(T, PMEM_F_MEM_TEMPORAL)
WRAP(WB, PMEM_F_MEM_WB)
WRAP(WC, PMEM_F_MEM_WC)
WRAP(NF, PMEM_F_MEM_NOFLUSH)
WRAP(NFNT, PMEM_F_MEM_NOFLUSH | PMEM_F_MEM_NONTEMPORAL)
static void real_flush(const void *p, size_t n) { real.flush(p, n); }
static void *real_memcpy_persist(void *d, const void *s, size_t n)
{ return real.memcpy_persist(d, s, n); }

#define FNS(F) { (const void *)cpy_##F, (const void *)move_##F, (const void *)set_##F }
/* Each form with the flags pmem_memmove(3) gives it. */
static const struct form {
	const char *name;
	const void *fn[3];	/* memcpy, memmove, memset */
	unsigned flags;
} forms[] = {
	{ "(0)", FNS(0), 0 },
	{ "(NODRAIN)", FNS(ND), PMEM_F_MEM_NODRAIN },
	{ "(NONTEMPORAL)", FNS(NT), PMEM_F_MEM_NONTEMPORAL },
	{ "(NONTEMPORAL|NODRAIN)", FNS(NTND), PMEM_F_MEM_NONTEMPORAL | PMEM_F_MEM_NODRAIN },
	{ "(TEMPORAL)", FNS(T), PMEM_F_MEM_TEMPORAL },
	{ "(WB)", FNS(WB), PMEM_F_MEM_WB },
	{ "(WC)", FNS(WC), PMEM_F_MEM_WC },
	{ "(NOFLUSH)", FNS(NF), PMEM_F_MEM_NOFLUSH },
	{ "(NOFLUSH|NONTEMPORAL)", FNS(NFNT), PMEM_F_MEM_NOFLUSH | PMEM_F_MEM_NONTEMPORAL },
	{ "_persist", { (const void *)pmem_memcpy_persist, (const void *)pmem_memmove_persist,
			(const void *)pmem_memset_persist }, 0 },
	{ "_nodrain", { (const void *)pmem_memcpy_nodrain, (const void *)pmem_memmove_nodrain,
			(const void *)pmem_memset_nodrain }, PMEM_F_MEM_NODRAIN },
};
/* The copy twice: PMDK's memcpy is its memmove, so it must take overlapping buffers. */
#define NR_OPS 4
static const char *const op_names[NR_OPS] = { "pmem_memcpy", "pmem_memmove", "pmem_memset",
					      "pmem_memcpy overlapping" };
static const enum tp_shape op_shapes[NR_OPS] = { TP_COPY, TP_MOVE, TP_SET, TP_MOVE };
static const int op_fn[NR_OPS] = { 0, 1, 2, 0 };

static const struct {
	size_t n, doff;
} cases[] = { { 0, 0 }, { 5, 3 }, { 100, 8 }, { 256, 0 }, { 1001, 7 }, { 4096, 0 } };

/* PMDK's eADR copy stores non-temporally for NONTEMPORAL alone, NOFLUSH winning. */
static int nt_wanted(unsigned flags)
{
	return (flags & (PMEM_F_MEM_NOFLUSH | PMEM_F_MEM_NONTEMPORAL)) == PMEM_F_MEM_NONTEMPORAL;
}

/*
 * One copy with flushing off. in_place: source and destination the same
 * (a move by 0), which PMDK returns from before storing or fencing.
 */
static void check_nf_copy(const char *name, const void *fn, enum tp_shape shape, unsigned flags,
			  size_t n, size_t doff, int in_place)
{
	int nt = nt_wanted(flags), stored = n && !in_place;
	int whole = doff % 64 == 0 && n % 64 == 0;
	char msg[1024];
	struct tp_call call = {
		.name = name, .fn = fn, .shape = shape, .doff = doff, .soff = doff + 3,
		.n = n, .c = 0x3c, .dist = in_place ? 0 : n & 1 ? 3 : -70,
		.wb = tp_expected_wb(), .allow_mixed = nt && kernel_bound(),
		.fences = !(flags & (PMEM_F_MEM_NODRAIN | PMEM_F_MEM_NOFLUSH)) + (nt && stored),
	};
	size_t bad = tp_run(&call, msg, sizeof(msg));
	const struct tl_state *s = tp_last();

	/* Onto itself PMDK stores nothing: every byte unwritten, the fences as above. */
	if (in_place) {
		if (s->nt_bytes || s->cached_bytes || s->writebacks ||
		    bad != s->count[TL_DIRTY] + s->count[TL_UNWRITTEN])
			cr_assert_fail("flushing off: %s n=%zu dst+%zu in place: %zu bytes "
				       "non-temporal, %zu through the cache, %zu write-backs (want "
				       "no store, as PMDK): %s", name, n, doff, s->nt_bytes,
				       s->cached_bytes, s->writebacks, msg);
		return;
	}
	/* Left dirty is allowed (the caches are persistent, or not flushed by request). */
	if (bad != s->count[TL_DIRTY])
		cr_assert_fail("flushing off: %s", msg);
	if (!nt && (s->nt_bytes || s->writebacks))
		cr_assert_fail("flushing off: %s n=%zu dst+%zu: %zu bytes non-temporal, %zu "
			       "write-backs (want ordinary stores only, no write-back)",
			       name, n, doff, s->nt_bytes, s->writebacks);
	if (nt && stored && whole && (s->cached_bytes || s->writebacks))
		cr_assert_fail("flushing off: %s n=%zu dst+%zu: %zu bytes through the cache, %zu "
			       "write-backs (want whole lines non-temporal, no write-back)",
			       name, n, doff, s->cached_bytes, s->writebacks);
}

/* One copy with flushing on: nothing left dirty unless NOFLUSH. */
static void check_wb_copy(const char *name, const void *fn, enum tp_shape shape, unsigned flags,
			  size_t n, size_t doff)
{
	char msg[1024];
	struct tp_call call = {
		.name = name, .fn = fn, .shape = shape, .doff = doff, .soff = doff + 3,
		.n = n, .c = 0x3c, .dist = n & 1 ? 3 : -70, .wb = tp_expected_wb(),
		.allow_mixed = kernel_bound(),
		.fences = !(flags & (PMEM_F_MEM_NODRAIN | PMEM_F_MEM_NOFLUSH)),
	};
	size_t bad = tp_run(&call, msg, sizeof(msg));
	const struct tl_state *s = tp_last();

	if (flags & PMEM_F_MEM_NOFLUSH) {
		if (bad != s->count[TL_DIRTY] || s->writebacks)
			cr_assert_fail("flushing on: %s (want no write-back, no fence): %s", name,
				       msg);
	} else if (bad) {
		cr_assert_fail("flushing on: %s", msg);
	}
}

static void check_env(void)
{
	cr_assert(!real_error[0], "the real libpmem (%s): %s", KFLUSH_LIBPMEM_PATH, real_error);
}

TestSuite(libpmem, .init = setup, .fini = tp_teardown);

Test(libpmem, copies)
{
	check_env();
	cr_log_info("PMDK %s here", flushing ? "flushes" : "does not flush");
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++)
		for (int c = 0; c < NR_OPS; c++)
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
				const void *fn = forms[f].fn[op_fn[c]];
				char name[64];

				if (tp_quick() && i % 2)
					continue;
				snprintf(name, sizeof(name), "%s%s", op_names[c], forms[f].name);
				if (flushing)
					check_wb_copy(name, fn, op_shapes[c], forms[f].flags,
						      cases[i].n, cases[i].doff);
				else
					check_nf_copy(name, fn, op_shapes[c], forms[f].flags,
						      cases[i].n, cases[i].doff, 0);
			}
}

/* PMDK's eADR memmove, its memcpy too, returns before its barrier onto itself. */
Test(libpmem, in_place_moves)
{
	check_env();
	if (flushing)
		cr_skip_test("PMDK flushes here: the in-place rule is the flushing-off copies'");
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++) {
		check_nf_copy("pmem_memcpy in place", forms[f].fn[0], TP_MOVE, forms[f].flags,
			      256, 0, 1);
		check_nf_copy("pmem_memmove in place", forms[f].fn[1], TP_MOVE, forms[f].flags,
			      256, 0, 1);
	}
}

Test(libpmem, flush_persist_drain)
{
	static const size_t lens[] = { 1, 64, 100, 4096 + 13 };
	static const struct {
		const char *name;
		const void *fn;
		int fences, always;	/* always: writes back, flushing or not */
	} calls[] = {
		{ "pmem_flush", (const void *)pmem_flush, 0, 0 },
		{ "pmem_persist", (const void *)pmem_persist, 1, 0 },
		{ "pmem_deep_flush", (const void *)pmem_deep_flush, 0, 1 },
	};
	char msg[1024];

	check_env();
	for (size_t k = 0; k < ARRAY_SIZE(calls); k++)
		for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
			struct tp_call call = {
				.name = calls[k].name, .fn = calls[k].fn, .shape = TP_FLUSH,
				.doff = 5, .n = lens[i], .wb = tp_expected_wb(),
				.fences = calls[k].fences,
			};
			size_t bad = tp_run(&call, msg, sizeof(msg));
			const struct tl_state *s = tp_last();

			if (flushing || calls[k].always) {
				if (bad)
					cr_assert_fail("%s", msg);
				continue;
			}
			/* Judged as a flush, the one broken rule is "each line written back". */
			if (bad != s->count[TL_WB_COUNT] || s->writebacks ||
			    s->fences != (size_t)calls[k].fences)
				cr_assert_fail("flushing off: %s n=%zu: %zu write-backs, %zu fences "
					       "(want 0 and %d): %s", calls[k].name, lens[i],
					       s->writebacks, s->fences, calls[k].fences, msg);
		}
	struct tp_call drain = { .name = "pmem_drain", .fn = (const void *)pmem_drain,
				 .shape = TP_DRAIN, .fences = 1 };
	if (tp_run(&drain, msg, sizeof(msg)))
		cr_assert_fail("%s", msg);
}

/* Whether a call wrote anything back: the tell of a flushing libpmem. */
static size_t writebacks(const char *name, const void *fn, enum tp_shape shape, size_t n,
			 size_t doff)
{
	char msg[1024];
	struct tp_call call = {
		.name = name, .fn = fn, .shape = shape, .doff = doff, .soff = doff + 3, .n = n,
		.wb = tp_expected_wb(), .allow_mixed = 1, .fences = 1,
	};

	tp_run(&call, msg, sizeof(msg));
	return tp_last()->writebacks;
}

TestSuite(mode, .init = setup, .fini = tp_teardown);

/* The rule above, confirmed on PMDK's own libpmem in this environment. */
Test(mode, pmdk)
{
	const char *want = getenv("KFLUSH_TEST_PMEM_FLUSH");
	size_t f, c;

	check_env();
	if (want && *want)
		cr_assert_eq(flushing, atoi(want), "PMDK's rule says %s, the test script %s",
			     flushing ? "flush" : "no flush", want);
	f = writebacks("real pmem_flush", (const void *)real_flush, TP_FLUSH, 100, 5);
	c = writebacks("real pmem_memcpy_persist", (const void *)real_memcpy_persist, TP_COPY,
		       1001, 7);
	cr_assert(flushing ? f && c : !f && !c,
		  "the real libpmem wrote back %zu and %zu lines, where PMDK's rule says it %s",
		  f, c, flushing ? "flushes" : "does not flush");
}

/*
 * The drop-in's copy: 701 bytes with a sub-word edge, so that whichever
 * flush-copy variant is bound writes some line back when flushing (its
 * cached edge lines, or in a "_short_cached" variant the whole call
 * through the cache). From 768 bytes those variants store every byte NT
 * and write nothing back (libkflush(7), Variants), so PMDK's 1001 above
 * would not tell the modes apart where a rule binds one (AMD family 0x19
 * model 0x11).
 */
Test(mode, dropin)
{
	const char *e = getenv("PMEM_NO_FLUSH");
	size_t f, c;

	check_env();
	f = writebacks("pmem_flush", (const void *)pmem_flush, TP_FLUSH, 100, 5);
	c = writebacks("pmem_memcpy_persist", (const void *)pmem_memcpy_persist, TP_COPY, 701, 7);
	cr_assert(flushing ? f && c : !f && !c,
		  "the drop-in wrote back %zu and %zu lines, where PMDK %s (PMEM_NO_FLUSH=%s)",
		  f, c, flushing ? "flushes" : "does not flush", e ? e : "(unset)");
}

Test(mode, auto_flush)
{
	const char *want = getenv("KFLUSH_TEST_AUTO_FLUSH");
	int r;

	check_env();
	r = real.has_auto_flush();
	cr_assert_eq(pmem_has_auto_flush(), r, "pmem_has_auto_flush(): drop-in %d, real %d",
		     pmem_has_auto_flush(), r);
	if (want && *want)
		cr_assert_eq(r, atoi(want), "pmem_has_auto_flush() is %d, the fake sysfs says %s",
			     r, want);
}

/* libkflush-pmem2's byte-granularity functions, from a map forced to it. */
static pmem2_memcpy_fn byte_cpy;
static pmem2_memmove_fn byte_move;
static pmem2_memset_fn byte_set;
static int byte_gran = -1;
static char byte_error[256];
static struct pmem2_map *byte_map;	/* the functions are tied to it */

static void setup_byte(void)
{
	char path[] = "/tmp/kflush-pmem2-byte.XXXXXX";
	struct pmem2_config *cfg = NULL;
	struct pmem2_source *src = NULL;
	int fd = mkstemp(path);

	if (fd < 0 || unlink(path) || ftruncate(fd, 1 << 20)) {
		snprintf(byte_error, sizeof(byte_error), "temporary file: %m");
	} else {
		setenv("PMEM2_FORCE_GRANULARITY", "BYTE", 1);
		if (pmem2_config_new(&cfg) || pmem2_source_from_fd(&src, fd) ||
		    pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
		    pmem2_map_new(&byte_map, cfg, src)) {
			snprintf(byte_error, sizeof(byte_error), "pmem2_map_new: %s",
				 pmem2_errormsg());
		} else {
			byte_cpy = pmem2_get_memcpy_fn(byte_map);
			byte_move = pmem2_get_memmove_fn(byte_map);
			byte_set = pmem2_get_memset_fn(byte_map);
			byte_gran = (int)pmem2_map_get_store_granularity(byte_map);
		}
		unsetenv("PMEM2_FORCE_GRANULARITY");
	}
	/* The map holds what it needs of them (pmem2_map_new(3)). */
	pmem2_source_delete(&src);
	pmem2_config_delete(&cfg);
	if (fd >= 0)
		close(fd);
	tp_setup();
}

static void teardown_byte(void)
{
	tp_teardown();
	if (byte_map)
		pmem2_map_delete(&byte_map);
}

#define BYTE_WRAP(F, FL)							\
	static void *bcpy_##F(void *d, const void *s, size_t n)		\
	{ return byte_cpy(d, s, n, FL); }					\
	static void *bmove_##F(void *d, const void *s, size_t n)		\
	{ return byte_move(d, s, n, FL); }					\
	static void *bset_##F(void *d, int c, size_t n)			\
	{ return byte_set(d, c, n, FL); }
BYTE_WRAP(NT, PMEM2_F_MEM_NONTEMPORAL)
BYTE_WRAP(NTND, PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN)

TestSuite(pmem2_byte, .init = setup_byte, .fini = teardown_byte);

Test(pmem2_byte, nontemporal)
{
	static const struct form byte_forms[] = {
		{ "(NONTEMPORAL)", { (const void *)bcpy_NT, (const void *)bmove_NT,
				     (const void *)bset_NT }, PMEM2_F_MEM_NONTEMPORAL },
		{ "(NONTEMPORAL|NODRAIN)", { (const void *)bcpy_NTND, (const void *)bmove_NTND,
					     (const void *)bset_NTND },
		  PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN },
	};
	static const char *const names[NR_OPS] = { "memcpy_fn/byte", "memmove_fn/byte",
						   "memset_fn/byte", "memcpy_fn/byte overlapping" };

	cr_assert(!byte_error[0], "%s", byte_error);
	cr_assert_eq(byte_gran, PMEM2_GRANULARITY_BYTE, "PMEM2_FORCE_GRANULARITY=BYTE gave %d",
		     byte_gran);
	for (size_t f = 0; f < ARRAY_SIZE(byte_forms); f++)
		for (int c = 0; c < NR_OPS; c++) {
			const void *fn = byte_forms[f].fn[op_fn[c]];
			char name[64];

			snprintf(name, sizeof(name), "%s%s", names[c], byte_forms[f].name);
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
				check_nf_copy(name, fn, op_shapes[c], byte_forms[f].flags,
					      cases[i].n, cases[i].doff, 0);
			if (op_shapes[c] == TP_MOVE)
				check_nf_copy(name, fn, TP_MOVE, byte_forms[f].flags, 256, 0, 1);
		}
}
