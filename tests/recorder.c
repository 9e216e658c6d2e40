// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "recorder.h"

/* Must match enum kflush_rec_kind in lib/x86_64/flush.h. */
enum { REC_NT, REC_CACHED, REC_WRITEBACK, REC_FENCE };

#define REC_LINE 64

static struct {
	uintptr_t base;
	size_t len;
	unsigned char *written;		/* per byte */
	unsigned char *dirty;		/* per line */
	size_t outside, nt_bytes, cached_bytes, writebacks, fences;
	uintptr_t first_outside;
} st;

void kflush_rec(int kind, const void *addr, size_t len);

void rec_begin(void *win, size_t len)
{
	rec_end();
	st.base = (uintptr_t)win & ~(uintptr_t)(REC_LINE - 1);
	st.len = ((uintptr_t)win + len - st.base + REC_LINE - 1) & ~(size_t)(REC_LINE - 1);
	st.written = calloc(st.len, 1);
	st.dirty = calloc(st.len / REC_LINE, 1);
	if (!st.written || !st.dirty)
		abort();
}

void rec_end(void)
{
	free(st.written);
	free(st.dirty);
	memset(&st, 0, sizeof(st));
}

void kflush_rec(int kind, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	if (!st.written)
		return;
	switch (kind) {
	case REC_FENCE:
		st.fences++;
		return;
	case REC_WRITEBACK:
		st.writebacks++;
		if (a >= st.base && a < st.base + st.len)
			st.dirty[(a - st.base) / REC_LINE] = 0;
		return;
	case REC_NT:
	case REC_CACHED:
		if (kind == REC_NT)
			st.nt_bytes += len;
		else
			st.cached_bytes += len;
		for (size_t i = 0; i < len; i++) {
			uintptr_t b = a + i;

			if (b < st.base || b >= st.base + st.len) {
				if (!st.outside++)
					st.first_outside = b;
				continue;
			}
			st.written[b - st.base] = 1;
			/*
			 * A non-temporal store does not clean a line an earlier
			 * cached store dirtied: count only write-backs.
			 */
			if (kind == REC_CACHED)
				st.dirty[(b - st.base) / REC_LINE] = 1;
		}
		return;
	default:
		abort();
	}
}

int rec_verify(const void *dst, size_t n, struct rec_report *r)
{
	uintptr_t d = (uintptr_t)dst;

	memset(r, 0, sizeof(*r));
	r->outside = st.outside;
	r->first_bad = st.outside ? st.first_outside : 0;
	r->nt_bytes = st.nt_bytes;
	r->cached_bytes = st.cached_bytes;
	r->writebacks = st.writebacks;
	r->fences = st.fences;
	for (size_t i = 0; i < st.len; i++) {
		uintptr_t b = st.base + i;
		int inside = b >= d && b < d + n;

		if (inside && !st.written[i]) {
			if (!r->first_bad)
				r->first_bad = b;
			r->unwritten++;
		} else if (!inside && st.written[i]) {
			if (!r->first_bad)
				r->first_bad = b;
			r->outside++;
		}
	}
	for (size_t l = 0; l < st.len / REC_LINE; l++) {
		if (st.dirty[l]) {
			if (!r->first_bad)
				r->first_bad = st.base + l * REC_LINE;
			r->dirty_lines++;
		}
	}
	return (r->dirty_lines || r->unwritten || r->outside || r->fences) ? -1 : 0;
}
