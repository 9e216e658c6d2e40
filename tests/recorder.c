// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "recorder.h"

/* Must match enum kflush_rec_kind in lib/x86_64/flush.h. */
enum { REC_NT, REC_CACHED, REC_WRITEBACK, REC_FENCE };

#define REC_LINE 64

/*
 * The buffers only grow: sweeps call rec_begin() hundreds of thousands of
 * times, and a calloc/free pair per call would dominate their run time.
 */
static struct {
	int active;
	uintptr_t base;
	size_t len, nlines, cap;
	unsigned char *written;		/* per byte */
	unsigned char *dirty;		/* per line */
	unsigned int *wb;		/* per line: write-backs seen */
	size_t outside, wb_outside, nt_bytes, cached_bytes, writebacks, fences;
	uintptr_t first_outside, first_wb_outside;
} st;

void kflush_rec(int kind, const void *addr, size_t len);

void rec_begin(void *win, size_t len)
{
	uintptr_t base = (uintptr_t)win & ~(uintptr_t)(REC_LINE - 1);
	size_t wlen = ((uintptr_t)win + len - base + REC_LINE - 1) & ~(size_t)(REC_LINE - 1);
	size_t nlines = wlen / REC_LINE;

	if (wlen > st.cap) {
		free(st.written);
		free(st.dirty);
		free(st.wb);
		st.written = malloc(wlen);
		st.dirty = malloc(nlines);
		st.wb = malloc(nlines * sizeof(*st.wb));
		if (!st.written || !st.dirty || !st.wb)
			abort();
		st.cap = wlen;
	}
	st.base = base;
	st.len = wlen;
	st.nlines = nlines;
	memset(st.written, 0, wlen);
	memset(st.dirty, 0, nlines);
	memset(st.wb, 0, nlines * sizeof(*st.wb));
	st.outside = st.wb_outside = st.nt_bytes = st.cached_bytes = 0;
	st.writebacks = st.fences = 0;
	st.first_outside = st.first_wb_outside = 0;
	st.active = 1;
}

void rec_end(void)
{
	st.active = 0;
}

static void rec_store(int kind, uintptr_t a, size_t len)
{
	uintptr_t end = a + len, wend = st.base + st.len;
	uintptr_t lo = a < st.base ? st.base : a;
	uintptr_t hi = end > wend ? wend : end;

	if (kind == REC_NT)
		st.nt_bytes += len;
	else
		st.cached_bytes += len;
	if (lo >= hi) {
		lo = hi = a;	/* entirely outside the window */
	}
	if (lo > a || hi < end) {
		if (!st.outside)
			st.first_outside = lo > a ? a : hi;
		st.outside += len - (hi - lo);
	}
	if (lo == hi)
		return;
	memset(st.written + (lo - st.base), 1, hi - lo);
	/*
	 * A non-temporal store does not clean a line an earlier cached store
	 * dirtied: only write-backs do.
	 */
	if (kind == REC_CACHED)
		for (uintptr_t l = (lo - st.base) / REC_LINE; l <= (hi - 1 - st.base) / REC_LINE; l++)
			st.dirty[l] = 1;
}

void kflush_rec(int kind, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	if (!st.active)
		return;
	switch (kind) {
	case REC_FENCE:
		st.fences++;
		return;
	case REC_WRITEBACK:
		st.writebacks++;
		if (a >= st.base && a < st.base + st.len) {
			st.dirty[(a - st.base) / REC_LINE] = 0;
			st.wb[(a - st.base) / REC_LINE]++;
		} else if (!st.wb_outside++) {
			st.first_wb_outside = a;
		}
		return;
	case REC_NT:
	case REC_CACHED:
		rec_store(kind, a, len);
		return;
	default:
		abort();
	}
}

static void bad(struct rec_report *r, uintptr_t addr)
{
	if (!r->first_bad)
		r->first_bad = addr;
}

/* How many of the n bytes at p equal v (memchr first: usually none do). */
static size_t count_byte(const unsigned char *p, size_t n, unsigned char v, uintptr_t at,
			 struct rec_report *r)
{
	const unsigned char *q = n ? memchr(p, v, n) : NULL;
	size_t c = 0;

	if (!q)
		return 0;
	bad(r, at + (uintptr_t)(q - p));
	for (; q < p + n; q++)
		c += *q == v;
	return c;
}

/* Clip [addr, addr+n) to the window, as offsets into it. */
static void clip(uintptr_t addr, size_t n, size_t *lo, size_t *hi)
{
	uintptr_t end = addr + n, wend = st.base + st.len;

	*lo = addr < st.base ? 0 : addr > wend ? st.len : addr - st.base;
	*hi = end < st.base ? 0 : end > wend ? st.len : end - st.base;
	if (*hi < *lo)
		*hi = *lo;
}

static void common_report(struct rec_report *r)
{
	memset(r, 0, sizeof(*r));
	r->outside = st.outside;
	r->first_bad = st.outside ? st.first_outside : 0;
	r->nt_bytes = st.nt_bytes;
	r->cached_bytes = st.cached_bytes;
	r->writebacks = st.writebacks;
	r->fences = st.fences;
	r->wb_outside = st.wb_outside;
	if (st.wb_outside)
		bad(r, st.first_wb_outside);
}

/* Line range [*l0, *l1) of the window touching [lo, hi). */
static void lines_of(size_t lo, size_t hi, size_t *l0, size_t *l1)
{
	*l0 = lo / REC_LINE;
	*l1 = hi > lo ? (hi + REC_LINE - 1) / REC_LINE : *l0;
}

int rec_verify(const void *dst, size_t n, struct rec_report *r)
{
	size_t lo, hi, l0, l1;

	common_report(r);
	clip((uintptr_t)dst, n, &lo, &hi);
	/* Bytes of the range outside the window were never watched: unwritten. */
	r->unwritten = n - (hi - lo);
	if (r->unwritten)
		bad(r, (uintptr_t)dst);
	r->outside += count_byte(st.written, lo, 1, st.base, r);
	r->unwritten += count_byte(st.written + lo, hi - lo, 0, st.base + lo, r);
	r->outside += count_byte(st.written + hi, st.len - hi, 1, st.base + hi, r);
	lines_of(lo, hi, &l0, &l1);
	for (size_t l = 0; l < st.nlines; l++) {
		if (st.dirty[l]) {
			bad(r, st.base + l * REC_LINE);
			r->dirty_lines++;
		}
		if (st.wb[l] && (l < l0 || l >= l1)) {
			bad(r, st.base + l * REC_LINE);
			r->wb_outside += st.wb[l];
		}
	}
	return (r->dirty_lines || r->unwritten || r->outside || r->fences) ? -1 : 0;
}

int rec_verify_flush(const void *addr, size_t len, struct rec_report *r)
{
	size_t lo, hi, l0, l1;

	common_report(r);
	clip((uintptr_t)addr, len, &lo, &hi);
	lines_of(lo, hi, &l0, &l1);
	if (hi - lo != len) {
		/* Part of the range is outside the window: its lines were not watched. */
		r->wb_missing++;
		bad(r, (uintptr_t)addr);
	}
	for (size_t l = 0; l < st.nlines; l++) {
		int inside = l >= l0 && l < l1;

		if (inside && st.wb[l] != 1) {
			bad(r, st.base + l * REC_LINE);
			if (st.wb[l])
				r->wb_repeated++;
			else
				r->wb_missing++;
		} else if (!inside && st.wb[l]) {
			bad(r, st.base + l * REC_LINE);
			r->wb_outside += st.wb[l];
		}
	}
	if (r->nt_bytes || r->cached_bytes)
		bad(r, (uintptr_t)addr);
	return (r->wb_outside || r->wb_missing || r->wb_repeated || r->nt_bytes ||
		r->cached_bytes || r->fences) ? -1 : 0;
}
