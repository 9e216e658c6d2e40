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
 * The roofs' loops, each calling its strategy directly, as a contender's
 * loop calls the contender (through roof_store() each call had paid a
 * second call and its tests, and the set's hot 64-byte cell had three
 * contenders 1.05-1.06x the roof). At 64-128 B hot the call is the work,
 * and where the loop sits moves the roof: inside copy_run_calls() the
 * copy roof's loop kept its index on the stack across each call, and the
 * movnti roof took 5.0-5.3 ns per 64 B copy against 3.8-4.1 when the
 * loop was inlined into copy_run.c's rounds, as it had been (AMD EPYC
 * family 0x17 model 0x31, four alternations). Here, with the arrays in
 * locals and each function starting a 64-byte line so that nothing
 * before it in the file moves its loop, the fastest roof's time over the
 * avx2 contender's at 64 and 128 B hot is what it was there within 3 %
 * for copies (sse2 0.93 and 0.83 against 0.92 and 0.80) and better for
 * fills (sse2 0.75 and 0.99 against 0.86 and 0.98), eight alternations.
 */
static __attribute__((noinline, aligned(64)))
void roof_copy_calls(void (*f)(void *, const void *, size_t), const struct bench_calls *t,
		     char *d, const char *s)
{
	const size_t *len = t->len, *doff = t->doff, *soff = t->soff;
	size_t n = t->n;

	for (size_t i = 0; i < n; i++) {
		size_t in, lines = inside_lines(d + doff[i], len[i], &in);

		if (lines)
			f(d + doff[i] + in, s + soff[i] + in, lines);
	}
}

static __attribute__((noinline, aligned(64)))
void roof_fill_calls(void (*f)(void *, size_t, const void *), const struct bench_calls *t,
		     char *d)
{
	const size_t *len = t->len, *doff = t->doff;
	size_t n = t->n;
	unsigned char pattern[64];

	memset(pattern, COPY_SET_BYTE, sizeof(pattern));
	for (size_t i = 0; i < n; i++) {
		size_t in, lines = inside_lines(d + doff[i], len[i], &in);

		if (lines)
			f(d + doff[i] + in, lines, pattern);
	}
}

static void rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

uint64_t copy_run_calls(const struct copy_run *x, const struct copy_contender *k,
			const struct bench_calls *t, char *d, const char *s)
{
	const size_t *len = t->len, *doff = t->doff, *soff = t->soff;
	size_t n = t->n, left = 0;
	uint64_t t0 = bench_now(), t1;

	switch (k->kind) {
	case CALL_FLUSHCACHE: {
		kflush_memcpy_flushcache_fn f = (kflush_memcpy_flushcache_fn)k->fn;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], s + soff[i], len[i]);
		kflush_drain();
		break;
	}
	case CALL_PMEM: {
		pmem2_memcpy_fn f = x->b.pmem_memcpy;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], s + soff[i], len[i], k->flags);
		x->b.pmem_drain();
		break;
	}
	case CALL_GLIBC_FLUSH:
		for (size_t i = 0; i < n; i++) {
			memcpy(d + doff[i], s + soff[i], len[i]);
			kflush_flush(d + doff[i], len[i]);
		}
		kflush_drain();
		break;
	case CALL_GLIBC:
		for (size_t i = 0; i < n; i++) {
			memcpy(d + doff[i], s + soff[i], len[i]);
			bench_barrier();
		}
		break;
	case CALL_MEMCPY: {
		kflush_memcpy_fn f = (kflush_memcpy_fn)k->fn;

		for (size_t i = 0; i < n; i++) {
			f(d + doff[i], s + soff[i], len[i]);
			bench_barrier();
		}
		break;
	}
	case CALL_COPY_SAFE: {
		kflush_copy_safe_fn f = (kflush_copy_safe_fn)k->fn;

		for (size_t i = 0; i < n; i++)
			left += f(d + doff[i], s + soff[i], len[i]);
		break;
	}
	case CALL_COPY_PAGE: {
		kflush_copy_page_fn f = (kflush_copy_page_fn)k->fn;

		for (size_t i = 0; i < n; i++) {
			f(d + doff[i], s + soff[i]);
			bench_barrier();
		}
		break;
	}
	case CALL_PMEM_MOVE: {
		pmem2_memmove_fn f = x->b.pmem_memmove;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], s + soff[i], len[i], k->flags);
		x->b.pmem_drain();
		break;
	}
	case CALL_GLIBC_MOVE_FLUSH:
		for (size_t i = 0; i < n; i++) {
			memmove(d + doff[i], s + soff[i], len[i]);
			kflush_flush(d + doff[i], len[i]);
		}
		kflush_drain();
		break;
	case CALL_REP_MOVSB:
		for (size_t i = 0; i < n; i++)
			rep_movsb(d + doff[i], s + soff[i], len[i]);
		break;
	case CALL_ROOF_COPY:
		roof_copy_calls(k->roof->copy, t, d, s);
		roof_fence(k->roof);
		break;
	case CALL_FLUSHSET: {
		kflush_memset_flushcache_fn f = (kflush_memset_flushcache_fn)k->fn;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], COPY_SET_BYTE, len[i]);
		kflush_drain();
		break;
	}
	case CALL_PMEM_SET: {
		pmem2_memset_fn f = x->b.pmem_memset;

		for (size_t i = 0; i < n; i++)
			f(d + doff[i], COPY_SET_BYTE, len[i], k->flags);
		x->b.pmem_drain();
		break;
	}
	case CALL_GLIBC_SET_FLUSH:
		for (size_t i = 0; i < n; i++) {
			memset(d + doff[i], COPY_SET_BYTE, len[i]);
			kflush_flush(d + doff[i], len[i]);
		}
		kflush_drain();
		break;
	case CALL_ROOF_FILL:
		roof_fill_calls(k->roof->fill, t, d);
		roof_fence(k->roof);
		break;
	case CALL_CONST:
	case CALL_GENERIC:
		break;
	}
	t1 = bench_now();
	if (left)
		fprintf(stderr, "pmemtest: %s left %zu bytes uncopied without a fault\n",
			k->name, left);
	return t1 - t0;
}
