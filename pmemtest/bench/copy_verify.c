// SPDX-License-Identifier: MIT
/*
 * copy-bench's check that a contender stores what its call means, and no
 * other byte: a fast contender must not win by storing the wrong thing
 * (the struct-page mode checks its pages, clear-bench its zeroes,
 * init-bench its struct pages). After a size's rounds, untimed, a call of
 * each contender's table runs once more, through the same timed loop, on
 * a window seeded so that every byte the call must store changes, with
 * GUARD bytes either side; the window must then read what the call means.
 * That meaning is written here from the kinds' definitions, not taken
 * from the loops that time them: memmove() of the call's bytes for the
 * copies and moves, memset() of COPY_SET_BYTE for the fills, one page for
 * copy_page, and for a roof the whole 64-byte lines inside the call
 * (copy.h: a roof stores no other byte).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "copy.h"
#include "../common/rng.h"

/* Bytes checked on either side of what a call may store. */
#define GUARD 64

enum meaning { COPIES, FILLS, COPIES_PAGE, COPIES_LINES, FILLS_LINES, UNKNOWN };

static enum meaning meaning_of(enum copy_kind kind)
{
	switch (kind) {
	case CALL_FLUSHCACHE:
	case CALL_PMEM:
	case CALL_PMEM_MOVE:
	case CALL_GLIBC_FLUSH:
	case CALL_GLIBC:
	case CALL_GLIBC_MOVE_FLUSH:
	case CALL_MEMCPY:
	case CALL_COPY_SAFE:
	case CALL_REP_MOVSB:
		return COPIES;
	case CALL_COPY_PAGE:
		return COPIES_PAGE;
	case CALL_FLUSHSET:
	case CALL_PMEM_SET:
	case CALL_GLIBC_SET_FLUSH:
		return FILLS;
	case CALL_ROOF_COPY:
		return COPIES_LINES;
	case CALL_ROOF_FILL:
		return FILLS_LINES;
	case CALL_CONST:
	case CALL_GENERIC:
		break;
	}
	return UNKNOWN;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Whether @n bytes at @p all read @c. */
static bool all_bytes(const unsigned char *p, size_t n, unsigned char c)
{
	unsigned char diff = 0;

	for (size_t j = 0; j < n; j++)
		diff |= (unsigned char)(p[j] ^ c);
	return !diff;
}

int copy_verify_call(const struct copy_run *x, const struct copy_contender *k,
		     const struct bench_calls *t, size_t i, bool move, const char *cell)
{
	enum meaning m = meaning_of(k->kind);
	unsigned char *d = (unsigned char *)x->b.dst;
	const unsigned char *s = (const unsigned char *)(move ? x->b.dst : x->b.src);
	size_t doff = t->doff[i], soff = t->soff[i];
	size_t n = m == COPIES_PAGE ? KFLUSH_PAGE_SIZE : t->len[i];
	size_t lo = doff, hi = doff + n, from = doff, to = doff + n;
	struct bench_calls one = {
		.n = 1, .len = t->len + i, .doff = t->doff + i, .soff = t->soff + i,
		.bytes = t->len[i], .span = t->span, .lines = t->lines,
	};
	uint64_t st = rng_start(x->o.seed ^ (doff * 31 + n));
	const unsigned char *want;
	unsigned char *before;
	bool fill = m == FILLS || m == FILLS_LINES, ok;
	size_t at;

	if (m == UNKNOWN)
		return 0;
	if (move) {
		lo = min_sz(lo, soff);
		hi = max_sz(hi, soff + n);
	}
	lo = lo > GUARD ? lo - GUARD : 0;
	hi = min_sz(hi + GUARD, x->b.len);
	/* A roof stores the whole lines inside the call: [from, to). */
	if (m == COPIES_LINES || m == FILLS_LINES) {
		size_t a = ((uintptr_t)(d + doff) + 63) & ~(uintptr_t)63;
		size_t b = ((uintptr_t)(d + doff) + n) & ~(uintptr_t)63;

		from = a - (uintptr_t)d;
		to = b > a ? b - (uintptr_t)d : from;
	}
	before = malloc(hi - lo);
	if (!before) {
		fprintf(stderr, "pmemtest: copy-bench: out of memory checking %s\n", k->name);
		return -1;
	}
	/* Random bytes, then the call's destination unlike what it must hold. */
	for (size_t j = lo; j < hi; j += 8) {
		uint64_t r = rng_next(&st);

		memcpy(d + j, &r, min_sz(8, hi - j));
	}
	if (!move)
		for (size_t j = 0; j < n; j++)
			d[doff + j] = (unsigned char)~(fill ? COPY_SET_BYTE : s[soff + j]);
	/*
	 * The expectation is this snapshot and the source: no libc call of
	 * the call's own length, so a broken libc copy (the test's
	 * interposer) cannot break the check with it.
	 */
	memcpy(before, d + lo, hi - lo);

	copy_run_calls(x, k, &one, (char *)d, (const char *)s);

	/* A move's source is as it was before the call, in the snapshot. */
	want = move ? before + (soff - lo) : s + soff;
	ok = !memcmp(d + lo, before, from - lo) && !memcmp(d + to, before + (to - lo), hi - to) &&
	     (fill ? all_bytes(d + from, to - from, COPY_SET_BYTE)
		   : !memcmp(d + from, want + (from - doff), to - from));
	for (at = lo; !ok && at < hi; at++) {
		unsigned char w = at < from || at >= to ? before[at - lo]
			       : fill ? COPY_SET_BYTE : want[at - doff];
		char from_src[40] = "";

		if (d[at] == w)
			continue;
		if (!fill)
			snprintf(from_src, sizeof(from_src), ", source %zu", soff);
		fprintf(stderr, "pmemtest: copy-bench: %s stored the wrong bytes (%s; its %zu B "
			"call at destination offset %zu%s): byte %+lld of the call is %#04x, "
			"want %#04x%s\n", k->name, cell, t->len[i], doff, from_src,
			(long long)at - (long long)doff, d[at], w,
			at < doff || at >= doff + n ? " (outside the call)" : "");
		break;
	}
	free(before);
	return ok ? 0 : -1;
}
