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

/*
 * One call's check: the window [lo, hi) around the call's destination
 * [doff, doff + n), the part [from, to) it stores (all of it but a roof's
 * partial lines), and what the rest read before the call: a move's whole
 * window in @before, since its source lies in it; else only the guards,
 * the call's own bytes having been seeded with the complement of what it
 * must store.
 */
struct check {
	const unsigned char *d, *want;	/* destination buffer; source at doff, NULL: a fill */
	size_t doff, n, from, to, lo, hi;
	const unsigned char *before;	/* a move's window, or NULL */
	unsigned char guard_lo[GUARD], guard_hi[GUARD];
};

static unsigned char should_hold(const struct check *c, size_t at)
{
	if (at >= c->from && at < c->to)
		return c->want ? c->want[at - c->doff] : COPY_SET_BYTE;
	if (c->before)
		return c->before[at - c->lo];
	if (at < c->doff)
		return c->guard_lo[at - c->lo];
	if (at >= c->doff + c->n)
		return c->guard_hi[at - c->doff - c->n];
	return (unsigned char)~(c->want ? c->want[at - c->doff] : COPY_SET_BYTE);
}

/* The same as should_hold() at every byte, in a few passes over memory. */
static bool holds(const struct check *c)
{
	const unsigned char *d = c->d;
	size_t end = c->doff + c->n;

	if (c->want ? memcmp(d + c->from, c->want + (c->from - c->doff), c->to - c->from)
		    : !all_bytes(d + c->from, c->to - c->from, COPY_SET_BYTE))
		return false;
	if (c->before)
		return !memcmp(d + c->lo, c->before, c->from - c->lo) &&
		       !memcmp(d + c->to, c->before + (c->to - c->lo), c->hi - c->to);
	if (memcmp(d + c->lo, c->guard_lo, c->doff - c->lo) ||
	    memcmp(d + end, c->guard_hi, c->hi - end))
		return false;
	for (size_t at = c->doff; at < c->from; at++)
		if (d[at] != should_hold(c, at))
			return false;
	for (size_t at = c->to; at < end; at++)
		if (d[at] != should_hold(c, at))
			return false;
	return true;
}

/*
 * @n bytes at @d unlike what the call must store: the complement of
 * @src's, or of COPY_SET_BYTE when @src is NULL. A word at a time, and
 * only a move's window is kept: byte by byte, with every window random and
 * kept, the checks of one bulk and sweep run took 41 s, now 23 (the call
 * and the comparison included; Intel family 6 model 0xcf).
 */
static void complement(unsigned char *d, const unsigned char *src, size_t n)
{
	const uint64_t not_set = ~(COPY_SET_BYTE * 0x0101010101010101ULL);
	size_t j = 0;

	for (; j + 8 <= n; j += 8) {
		uint64_t w = not_set;

		if (src) {
			memcpy(&w, src + j, 8);
			w = ~w;
		}
		memcpy(d + j, &w, 8);
	}
	for (; j < n; j++)
		d[j] = (unsigned char)~(src ? src[j] : COPY_SET_BYTE);
}

int copy_verify_call(const struct copy_run *x, const struct copy_contender *k,
		     const struct bench_calls *t, size_t i, bool move, const char *cell)
{
	enum meaning m = meaning_of(k->kind);
	unsigned char *d = (unsigned char *)x->b.dst;
	const unsigned char *s = (const unsigned char *)(move ? x->b.dst : x->b.src);
	size_t doff = t->doff[i], soff = t->soff[i];
	size_t n = m == COPIES_PAGE ? KFLUSH_PAGE_SIZE : t->len[i];
	struct check c = { .d = d, .doff = doff, .n = n, .from = doff, .to = doff + n };
	struct bench_calls one = {
		.n = 1, .len = t->len + i, .doff = t->doff + i, .soff = t->soff + i,
		.bytes = t->len[i], .span = t->span, .lines = t->lines,
	};
	uint64_t seed = x->o.seed ^ (doff * 31 + n);
	bool fill = m == FILLS || m == FILLS_LINES;
	unsigned char *before = NULL;
	size_t lo = doff, hi = doff + n;

	if (m == UNKNOWN)
		return 0;
	if (move) {
		lo = min_sz(lo, soff);
		hi = max_sz(hi, soff + n);
	}
	c.lo = lo > GUARD ? lo - GUARD : 0;
	c.hi = min_sz(hi + GUARD, x->b.len);
	/* A roof stores the whole lines inside the call: [from, to). */
	if (m == COPIES_LINES || m == FILLS_LINES) {
		size_t a = ((uintptr_t)(d + doff) + 63) & ~(uintptr_t)63;
		size_t b = ((uintptr_t)(d + doff) + n) & ~(uintptr_t)63;

		c.from = a - (uintptr_t)d;
		c.to = b > a ? b - (uintptr_t)d : c.from;
	}
	/*
	 * Random bytes around the call, and in it the complement of what it
	 * must store; a move's window all random, kept in a snapshot, since
	 * its source is there. The expectation is the source and these: no
	 * libc call of the call's own length, so a broken libc copy (the
	 * test's interposer) cannot break the check with it.
	 */
	if (move) {
		before = malloc(c.hi - c.lo);
		if (!before) {
			fprintf(stderr, "pmemtest: copy-bench: out of memory checking %s\n", k->name);
			return -1;
		}
		bench_fill(d + c.lo, c.hi - c.lo, seed);
		memcpy(before, d + c.lo, c.hi - c.lo);
		c.before = before;
		c.want = before + (soff - c.lo);
	} else {
		bench_fill(c.guard_lo, doff - c.lo, seed);
		bench_fill(c.guard_hi, c.hi - doff - n, seed + 1);
		memcpy(d + c.lo, c.guard_lo, doff - c.lo);
		memcpy(d + doff + n, c.guard_hi, c.hi - doff - n);
		c.want = fill ? NULL : s + soff;
		complement(d + doff, c.want, n);
	}

	copy_run_calls(x, k, &one, (char *)d, (const char *)s);

	if (holds(&c)) {
		free(before);
		return 0;
	}
	for (size_t at = c.lo; at < c.hi; at++) {
		unsigned char w = should_hold(&c, at);
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
	return -1;
}
