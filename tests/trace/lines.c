// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

#define LINE 64
#define TL_L_NT 1
#define TL_L_CACHED 2
#define TL_L_DIRTY 4

const char *tl_violation_name(enum tl_violation v)
{
	static const char *const names[TL_NR] = {
		[TL_DIRTY] = "dirty line", [TL_UNWRITTEN] = "unwritten byte",
		[TL_OUTSIDE] = "store outside the destination", [TL_STRAY] = "stray store",
		[TL_DATA] = "wrong data", [TL_FENCE] = "fence", [TL_LFENCE] = "lfence",
		[TL_MIXED] = "mixed line", [TL_WRONG_WB] = "wrong write-back instruction",
		[TL_WB_OUTSIDE] = "write-back outside", [TL_WB_COUNT] = "write-back count",
		[TL_CACHED] = "cached store", [TL_WB_UNEXPECTED] = "unexpected write-back",
		[TL_UNKNOWN] = "unknown instruction",
		[TL_WB_AFTER_STORE] = "write-back right after a store to its line",
	};

	return (unsigned int)v < TL_NR ? names[v] : "?";
}

static void flag(struct tl_state *s, enum tl_violation v, const char *fmt, ...)
{
	va_list ap;

	if (s->count[v]++)
		return;
	va_start(ap, fmt);
	vsnprintf(s->first[v], sizeof(s->first[v]), fmt, ap);
	va_end(ap);
}

static long rel(const struct tl_state *s, uint64_t a)
{
	return (long)(a - s->x.dst);
}

void tl_begin(struct tl_state *s, const struct tl_expect *x)
{
	size_t len = x->win_hi - x->win_lo;

	if (len > s->cap) {
		free(s->written);
		free(s->line);
		free(s->wbs);
		s->written = malloc(len);
		s->line = malloc(len / LINE + 1);
		s->wbs = malloc((len / LINE + 1) * sizeof(*s->wbs));
		if (!s->written || !s->line || !s->wbs)
			abort();
		s->cap = len;
	}
	s->x = *x;
	s->nlines = len / LINE;
	memset(s->written, 0, len);
	memset(s->line, 0, s->nlines);
	memset(s->wbs, 0, s->nlines * sizeof(*s->wbs));
	s->fences = s->lfences = s->nt_bytes = s->cached_bytes = s->writebacks = 0;
	s->last_store_line = 1;
	memset(s->count, 0, sizeof(s->count));
}

void tl_free(struct tl_state *s)
{
	free(s->written);
	free(s->line);
	free(s->wbs);
	memset(s, 0, sizeof(*s));
}

/* One byte of a store; a is never on the stack. */
static void store_byte(struct tl_state *s, const struct td_insn *in, int nt, uint64_t a)
{
	size_t off, l;

	if (a < s->x.win_lo || a >= s->x.win_hi) {
		flag(s, TL_STRAY, "%s stored at dst%+ld, outside the watched window", in->text,
		     rel(s, a));
		return;
	}
	if (s->x.flush || a < s->x.dst || a >= s->x.dst + s->x.n)
		flag(s, TL_OUTSIDE, "%s stored at dst%+ld (n=%zu)", in->text, rel(s, a), s->x.n);
	off = a - s->x.win_lo;
	l = off / LINE;
	s->written[off] = 1;
	s->line[l] |= nt ? TL_L_NT : TL_L_CACHED | TL_L_DIRTY;
	if (!nt && s->x.nt_only)
		flag(s, TL_CACHED, "%s: a cached store at dst%+ld", in->text, rel(s, a));
}

static void store(struct tl_state *s, const struct td_insn *in, const struct td_effect *e)
{
	int nt = e->kind == TD_STORE_NT;

	/* The line of its last byte: the one a write-back right after it could hit. */
	if (e->len) {
		s->last_store_line = (e->addr + e->len - 1) & ~(uint64_t)(LINE - 1);
		s->last_store_rip = in->rip;
	}

	if (((e->addr >= s->x.stack_lo && e->addr + e->len <= s->x.stack_hi) ||
	     (e->addr >= s->x.shadow_lo && e->addr + e->len <= s->x.shadow_hi)) &&
	    (e->addr + e->len <= s->x.win_lo || e->addr >= s->x.win_hi))
		return;
	if (e->kind == TD_STACK) {
		flag(s, TL_STRAY, "%s pushed at dst%+ld, off the stack", in->text, rel(s, e->addr));
		return;
	}
	if (s->fences)
		flag(s, TL_FENCE, "%s at dst%+ld after the fence", in->text, rel(s, e->addr));
	for (uint64_t i = 0; i < e->len; i++)
		if (!e->masked || (e->bytemask >> i & 1))
			store_byte(s, in, nt, e->addr + i);
	if (nt)
		s->nt_bytes += e->len;
	else
		s->cached_bytes += e->len;
}

static void writeback(struct tl_state *s, const struct td_insn *in, const struct td_effect *e)
{
	uint64_t line = e->addr & ~(uint64_t)(LINE - 1);
	uint64_t lo = s->x.dst & ~(uint64_t)(LINE - 1), hi = s->x.dst + s->x.n;
	size_t l;

	s->writebacks++;
	/*
	 * Another store must come in between (a call's return address, the
	 * stack store of writeback_range()): on the Emerald Rapids host a
	 * clwb or clflushopt right after the stores to its line ran 1.6-5x
	 * slower (libkflush(7), NOTES). clflush, measured, ran as slow
	 * either way.
	 */
	if (line == s->last_store_line && e->kind != TD_WB_CLFLUSH)
		flag(s, TL_WB_AFTER_STORE, "%s of the line at dst%+ld right after the store at %#llx",
		     in->text, rel(s, line), (unsigned long long)s->last_store_rip);
	if (s->x.nt_only)
		flag(s, TL_WB_UNEXPECTED, "%s of the line at dst%+ld", in->text, rel(s, line));
	else if (e->kind != s->x.wb)
		flag(s, TL_WRONG_WB, "%s where %s was due (line at dst%+ld)", td_kind_name(e->kind),
		     td_kind_name(s->x.wb), rel(s, line));
	if (s->fences)
		flag(s, TL_FENCE, "%s after the fence", in->text);
	if (!s->x.n || line < lo || line >= hi) {
		flag(s, TL_WB_OUTSIDE, "%s of the line at dst%+ld (n=%zu)", in->text, rel(s, line),
		     s->x.n);
		if (line < s->x.win_lo || line >= s->x.win_hi)
			return;
	}
	l = (line - s->x.win_lo) / LINE;
	s->wbs[l]++;
	s->line[l] &= (unsigned char)~TL_L_DIRTY;
}

void tl_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct tl_state *s = ctx;

	switch (e->kind) {
	case TD_NONE:
	case TD_PREFETCH:	/* a hint: no line changes state */
		return;
	case TD_STORE:
	case TD_STORE_NT:
	case TD_STACK:
		store(s, in, e);
		return;
	case TD_WB_CLWB:
	case TD_WB_CLFLUSHOPT:
	case TD_WB_CLFLUSH:
		writeback(s, in, e);
		return;
	case TD_SFENCE:
	case TD_MFENCE:
		s->fences++;
		return;
	case TD_LFENCE:
		s->lfences++;
		flag(s, TL_LFENCE, "lfence at %#llx", (unsigned long long)in->rip);
		return;
	case TD_UNKNOWN:
		flag(s, TL_UNKNOWN, "%#llx: %s", (unsigned long long)in->rip, in->text);
		return;
	}
	flag(s, TL_UNKNOWN, "effect kind %d", (int)e->kind);
}

void tl_finish(struct tl_state *s)
{
	const unsigned char *mem = (const unsigned char *)(uintptr_t)s->x.win_lo;
	uint64_t d0 = s->x.dst - s->x.win_lo, d1 = d0 + s->x.n;
	size_t len = s->x.win_hi - s->x.win_lo;

	for (size_t l = 0; l < s->nlines; l++) {
		uint64_t at = s->x.win_lo + l * LINE;
		int owned = s->x.n && l * LINE < d1 && (l + 1) * LINE > d0;

		if (s->line[l] & TL_L_DIRTY)
			flag(s, TL_DIRTY, "the line at dst%+ld was stored through the cache and "
			     "not written back after", rel(s, at));
		if ((s->line[l] & (TL_L_NT | TL_L_CACHED)) == (TL_L_NT | TL_L_CACHED) &&
		    !s->x.allow_mixed)
			flag(s, TL_MIXED, "the line at dst%+ld got NT and cached stores", rel(s, at));
		if (s->x.flush && owned && s->wbs[l] != 1)
			flag(s, TL_WB_COUNT, "the line at dst%+ld written back %u times (n=%zu)",
			     rel(s, at), s->wbs[l], s->x.n);
		/*
		 * A second write-back of a line is wasted work (the temporal
		 * calls' steps end on step boundaries for that). The kernel
		 * baselines (allow_mixed) keep the kernel's shape, whose head
		 * and tail of a short copy write back the same line.
		 */
		if (!s->x.flush && !s->x.allow_mixed && s->wbs[l] > 1)
			flag(s, TL_WB_COUNT, "the line at dst%+ld written back %u times in one call "
			     "(n=%zu)", rel(s, at), s->wbs[l], s->x.n);
	}
	if (!s->x.flush)
		for (uint64_t i = d0; i < d1; i++)
			if (!s->written[i])
				flag(s, TL_UNWRITTEN, "no store reached dst+%llu (n=%zu)",
				     (unsigned long long)(i - d0), s->x.n);
	if (s->fences != (size_t)s->x.fences)
		flag(s, TL_FENCE, "%zu sfence/mfence where %d are due", s->fences, s->x.fences);
	if (s->x.final && memcmp(mem, s->x.final, len))
		for (size_t i = 0; i < len; i++)
			if (mem[i] != s->x.final[i]) {
				flag(s, TL_DATA, "byte at dst%+ld is %#x, not %#x",
				     rel(s, s->x.win_lo + i), mem[i], s->x.final[i]);
				break;
			}
}

size_t tl_failures(const struct tl_state *s)
{
	size_t n = 0;

	for (int v = 0; v < TL_NR; v++)
		n += s->count[v];
	return n;
}

void tl_report(const struct tl_state *s, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int v = 0; v < TL_NR && at < len; v++)
		if (s->count[v])
			at += (size_t)snprintf(buf + at, len - at, "%s%s x%zu: %s", at ? "; " : "",
					       tl_violation_name((enum tl_violation)v), s->count[v],
					       s->first[v]);
}
