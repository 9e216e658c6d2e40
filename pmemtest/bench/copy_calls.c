// SPDX-License-Identifier: MIT
/*
 * copy-bench's timed batch: every call of a table, one loop per kind of
 * contender, and the drain that kind owes, between two clock reads.
 */
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "copy.h"

/*
 * A roof stores the whole destination lines inside each call (all of it
 * in a fixed layout): never more than the contenders store, so it can
 * only overstate the maximum (copy_run.c, applies()). Returns their bytes,
 * and in @in how far into the call they start.
 */
static inline size_t inside_lines(const char *d, size_t len, size_t *in)
{
	uintptr_t a = (uintptr_t)d, b = a + len;
	uintptr_t a64 = (a + 63) & ~(uintptr_t)63, b64 = b & ~(uintptr_t)63;

	*in = a64 - a;
	return b64 > a64 ? b64 - a64 : 0;
}

/*
 * Each kind's loop is a function of its own that starts a 64-byte line,
 * with the table's arrays in locals, so that its index stays in a
 * register and nothing else in the file moves it. At 64-128 B hot the
 * call is the work: with all the loops in one function, the compiler
 * kept their index on the stack across each call, and the movnti copy
 * roof took 5.0-5.3 ns per 64 B copy against 3.8-4.1 with the loops
 * inlined into copy_run.c's rounds, as they had been (AMD EPYC family
 * 0x17 model 0x31, four alternations). Even so, a callee's time at 64 B
 * hot moves 10-20 % between sets of runs of the same binary (load
 * addresses differ per run, and so does the host): the movnti
 * flush-fill's median read 3.63 ns over eight runs and 4.07 over six
 * others.
 *
 * @fn is the contender's function, cast back to its type here; @flags
 * its PMDK flags. The copy-safe loop returns the bytes left, the others 0.
 */
typedef size_t (*calls_fn)(const struct bench_calls *t, char *d, const char *s, kflush_fn fn,
			   unsigned int flags);

#define TIMED_CALLS(name, type, body)						\
	static __attribute__((noinline, aligned(64)))				\
	size_t name(const struct bench_calls *t, char *d, const char *s, kflush_fn fn,	\
		    unsigned int flags)						\
	{									\
		const size_t *len = t->len, *doff = t->doff, *soff = t->soff;	\
		size_t n = t->n, left = 0;					\
		type f = (type)fn;						\
										\
		(void)s; (void)soff; (void)len; (void)f; (void)flags;	\
		for (size_t i = 0; i < n; i++) {				\
			body;							\
		}								\
		return left;							\
	}

static void rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

typedef void (*roof_copy_fn)(void *dst, const void *src, size_t len);
typedef void (*roof_fill_fn)(void *dst, size_t len, const void *pattern);
/* The fill roof's pattern: a line of the set byte. */
static const unsigned char set_line[64] __attribute__((aligned(64))) = {
#define X8 COPY_SET_BYTE, COPY_SET_BYTE, COPY_SET_BYTE, COPY_SET_BYTE, \
	   COPY_SET_BYTE, COPY_SET_BYTE, COPY_SET_BYTE, COPY_SET_BYTE
	X8, X8, X8, X8, X8, X8, X8, X8
#undef X8
};

TIMED_CALLS(calls_flushcache, kflush_memcpy_flushcache_fn,
	    f(d + doff[i], s + soff[i], len[i]))
TIMED_CALLS(calls_pmem, pmem2_memcpy_fn,
	    f(d + doff[i], s + soff[i], len[i], flags))
TIMED_CALLS(calls_glibc_flush, kflush_fn,
	    memcpy(d + doff[i], s + soff[i], len[i]); kflush_flush(d + doff[i], len[i]))
TIMED_CALLS(calls_glibc, kflush_fn,
	    memcpy(d + doff[i], s + soff[i], len[i]); bench_barrier())
TIMED_CALLS(calls_memcpy, kflush_memcpy_fn,
	    f(d + doff[i], s + soff[i], len[i]); bench_barrier())
TIMED_CALLS(calls_copy_safe, kflush_copy_safe_fn,
	    left += f(d + doff[i], s + soff[i], len[i]))
TIMED_CALLS(calls_copy_page, kflush_copy_page_fn,
	    f(d + doff[i], s + soff[i]); bench_barrier())
TIMED_CALLS(calls_pmem_move, pmem2_memmove_fn,
	    f(d + doff[i], s + soff[i], len[i], flags))
TIMED_CALLS(calls_glibc_move_flush, kflush_fn,
	    memmove(d + doff[i], s + soff[i], len[i]); kflush_flush(d + doff[i], len[i]))
TIMED_CALLS(calls_rep_movsb, kflush_fn,
	    rep_movsb(d + doff[i], s + soff[i], len[i]))
TIMED_CALLS(calls_flushset, kflush_memset_flushcache_fn,
	    f(d + doff[i], COPY_SET_BYTE, len[i]))
TIMED_CALLS(calls_pmem_set, pmem2_memset_fn,
	    f(d + doff[i], COPY_SET_BYTE, len[i], flags))
TIMED_CALLS(calls_glibc_set_flush, kflush_fn,
	    memset(d + doff[i], COPY_SET_BYTE, len[i]); kflush_flush(d + doff[i], len[i]))
/*
 * The roofs call their strategy directly, as the loops above call a
 * contender: through roof_store() each call had paid a second call and
 * its tests, and the set's hot 64-byte cell had three contenders
 * 1.05-1.06x the roof (AMD EPYC family 0x17 model 0x31).
 */
TIMED_CALLS(calls_roof_copy, roof_copy_fn,
	    size_t in; size_t lines = inside_lines(d + doff[i], len[i], &in);
	    if (lines)
		    f(d + doff[i] + in, s + soff[i] + in, lines))
TIMED_CALLS(calls_roof_fill, roof_fill_fn,
	    size_t in; size_t lines = inside_lines(d + doff[i], len[i], &in);
	    if (lines)
		    f(d + doff[i] + in, lines, set_line))

/*
 * The same over a table whose every call is whole lines from a line of
 * a line-aligned base (the fixed and packed layouts at multiples of 64,
 * where the roofs of the small sizes run): each call is its own lines, so
 * the loop is a contender's, three loads and the call. With
 * inside_lines() in it, the roof's loop ran some fifteen more
 * instructions a call, two of them reloads of spilled arguments, and at
 * 64 B cold every library variant ran 1.03-1.09x the best roof, movnti
 * and movdir64b 1.03-1.10x the roof of their own stores (5.5-5.8 ns a
 * call against 5.9-6.3; Intel family 6 model 0xa7, three default runs
 * of five).
 */
TIMED_CALLS(calls_roof_copy_lines, roof_copy_fn,
	    f(d + doff[i], s + soff[i], len[i]))
TIMED_CALLS(calls_roof_fill_lines, roof_fill_fn,
	    f(d + doff[i], len[i], set_line))

/* Where each kind's function comes from, and what it owes after its calls. */
enum calls_from { FROM_CONTENDER, FROM_PMEM_MEMCPY, FROM_PMEM_MEMMOVE, FROM_PMEM_MEMSET,
		  FROM_ROOF_COPY, FROM_ROOF_FILL };
enum calls_drain { DRAIN_NONE, DRAIN_KFLUSH, DRAIN_PMEM, DRAIN_ROOF };

static const struct {
	calls_fn loop;
	enum calls_from from;
	enum calls_drain drain;
	calls_fn lines;	/* a roof's loop over a table of whole lines (struct bench_calls) */
} kinds[] = {
	[CALL_FLUSHCACHE] = { calls_flushcache, FROM_CONTENDER, DRAIN_KFLUSH },
	[CALL_PMEM] = { calls_pmem, FROM_PMEM_MEMCPY, DRAIN_PMEM },
	[CALL_GLIBC_FLUSH] = { calls_glibc_flush, FROM_CONTENDER, DRAIN_KFLUSH },
	[CALL_GLIBC] = { calls_glibc, FROM_CONTENDER, DRAIN_NONE },
	[CALL_MEMCPY] = { calls_memcpy, FROM_CONTENDER, DRAIN_NONE },
	[CALL_COPY_SAFE] = { calls_copy_safe, FROM_CONTENDER, DRAIN_NONE },
	[CALL_COPY_PAGE] = { calls_copy_page, FROM_CONTENDER, DRAIN_NONE },
	[CALL_PMEM_MOVE] = { calls_pmem_move, FROM_PMEM_MEMMOVE, DRAIN_PMEM },
	[CALL_GLIBC_MOVE_FLUSH] = { calls_glibc_move_flush, FROM_CONTENDER, DRAIN_KFLUSH },
	[CALL_REP_MOVSB] = { calls_rep_movsb, FROM_CONTENDER, DRAIN_NONE },
	[CALL_ROOF_COPY] = { calls_roof_copy, FROM_ROOF_COPY, DRAIN_ROOF, calls_roof_copy_lines },
	[CALL_FLUSHSET] = { calls_flushset, FROM_CONTENDER, DRAIN_KFLUSH },
	[CALL_PMEM_SET] = { calls_pmem_set, FROM_PMEM_MEMSET, DRAIN_PMEM },
	[CALL_GLIBC_SET_FLUSH] = { calls_glibc_set_flush, FROM_CONTENDER, DRAIN_KFLUSH },
	[CALL_ROOF_FILL] = { calls_roof_fill, FROM_ROOF_FILL, DRAIN_ROOF, calls_roof_fill_lines },
	/* CALL_CONST and CALL_GENERIC are timed by copy_struct_page.c. */
};

uint64_t copy_run_calls(const struct copy_run *x, const struct copy_contender *k,
			const struct bench_calls *t, char *d, const char *s)
{
	kflush_fn fn = NULL;
	calls_fn loop;
	uint64_t t0, t1;
	size_t left;

	if ((size_t)k->kind >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[k->kind].loop)
		return 0;
	loop = kinds[k->kind].loop;
	if (kinds[k->kind].lines && t->lines && !((uintptr_t)d & 63))
		loop = kinds[k->kind].lines;
	switch (kinds[k->kind].from) {
	case FROM_CONTENDER: fn = k->fn; break;
	case FROM_PMEM_MEMCPY: fn = (kflush_fn)x->b.pmem_memcpy; break;
	case FROM_PMEM_MEMMOVE: fn = (kflush_fn)x->b.pmem_memmove; break;
	case FROM_PMEM_MEMSET: fn = (kflush_fn)x->b.pmem_memset; break;
	case FROM_ROOF_COPY: fn = (kflush_fn)k->roof->copy; break;
	case FROM_ROOF_FILL: fn = (kflush_fn)k->roof->fill; break;
	}
	t0 = bench_now();
	left = loop(t, d, s, fn, k->flags);
	switch (kinds[k->kind].drain) {
	case DRAIN_KFLUSH: kflush_drain(); break;
	case DRAIN_PMEM: x->b.pmem_drain(); break;
	case DRAIN_ROOF: roof_fence(k->roof); break;
	case DRAIN_NONE: break;
	}
	t1 = bench_now();
	if (left)
		fprintf(stderr, "pmemtest: %s left %zu bytes uncopied without a fault\n",
			k->name, left);
	return t1 - t0;
}
