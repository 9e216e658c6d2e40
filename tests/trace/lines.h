/* SPDX-License-Identifier: MIT */
/*
 * The line-state checker of the persistence tracer: fed the effects of one
 * traced call in program order (a tt_sink), it keeps per destination byte
 * "written" and per 64-byte line "NT-stored", "cached-stored", "dirty"
 * (a cached store not yet followed by a write-back of its line) and the
 * write-backs, and at return judges the call against what it promised.
 */
#ifndef KFLUSH_TRACE_LINES_H
#define KFLUSH_TRACE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"

enum tl_violation {
	TL_DIRTY,		/* a line cached-stored and not written back after */
	TL_UNWRITTEN,		/* a destination byte no store reached */
	TL_OUTSIDE,		/* a store to the guard lines around the destination */
	TL_STRAY,		/* a store outside the watched window and the stack */
	TL_DATA,		/* final bytes differ from the reference */
	TL_FENCE,		/* sfence/mfence count wrong, or a store after the fence */
	TL_LFENCE,		/* an lfence (orders no store: never wanted here) */
	TL_MIXED,		/* NT and cached stores to one line in one call */
	TL_WRONG_WB,		/* a write-back instruction other than the expected one */
	TL_WB_OUTSIDE,		/* a write-back of a line the call does not own */
	TL_WB_COUNT,		/* flush: a line of the range not written back exactly once */
	TL_CACHED,		/* a cached store where only NT stores are allowed */
	TL_WB_UNEXPECTED,	/* a write-back where there is nothing to write back */
	TL_UNKNOWN,		/* undecodable or unmodelled memory-writing instruction */
	TL_WB_AFTER_STORE,	/* clwb/clflushopt right after a store to its line (libkflush(7)) */
	TL_NR
};

struct tl_expect {
	uint64_t dst;		/* the destination [dst, dst + n) */
	size_t n;
	uint64_t win_lo, win_hi;	/* watched: the destination's lines and guard lines */
	uint64_t stack_lo, stack_hi;	/* the tracee's stack: not the destination */
	uint64_t shadow_lo, shadow_hi;	/* ASan's shadow of that stack (its redzones) */
	const unsigned char *final;	/* the window's expected bytes at return */
	enum td_kind wb;	/* the write-back instruction the call must use */
	int fences;		/* sfence/mfence it must run: 0, or 1 after all else */
	int allow_mixed;	/* the kernel variant: its edges mix NT and cached stores, and
				   may write back a line twice; no other call may */
	int nt_only;		/* every byte NT, nothing to write back (page clears) */
	int flush;		/* a write-back call: each line of the range once, no store */
};

struct tl_state {
	struct tl_expect x;
	unsigned char *written;		/* per window byte */
	unsigned char *line;		/* per window line: TL_L_* bits */
	unsigned int *wbs;		/* per window line: write-backs */
	size_t cap, nlines;
	size_t fences, lfences, nt_bytes, cached_bytes, writebacks;
	uint64_t last_store_line;	/* of the latest store, stack ones too; 1: none yet */
	uint64_t last_store_rip;
	size_t count[TL_NR];
	char first[TL_NR][200];
};

const char *tl_violation_name(enum tl_violation v);

/* Start judging one call. */
void tl_begin(struct tl_state *s, const struct tl_expect *x);
/* The tt_sink: ctx is the struct tl_state. */
void tl_sink(void *ctx, const struct td_insn *in, const struct td_effect *e);
/* The call returned: judge the end state (memory is read at x.win_lo). */
void tl_finish(struct tl_state *s);
/* Violations found, 0 if the call kept its contract. */
size_t tl_failures(const struct tl_state *s);
/* One line per violated rule, with its count and first instance. */
void tl_report(const struct tl_state *s, char *buf, size_t len);
void tl_free(struct tl_state *s);

#endif /* KFLUSH_TRACE_LINES_H */
