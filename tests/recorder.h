/* SPDX-License-Identifier: MIT */
/*
 * The recorder behind the recording build (-DKFLUSH_RECORD): it receives
 * every non-temporal store, cached store, write-back and fence the library
 * makes and keeps, for a watched window, per-byte "written" and per-line
 * "dirty" state. Our pmemcheck: a flush-copy that leaves a line dirty, skips
 * a byte, writes outside its range or fences fails rec_verify().
 */
#ifndef KFLUSH_RECORDER_H
#define KFLUSH_RECORDER_H

#include <stddef.h>
#include <stdint.h>

struct rec_report {
	size_t dirty_lines;	/* lines in range with a cached store not written back */
	size_t unwritten;	/* bytes in range no store reached */
	size_t outside;		/* bytes outside the range that were stored to */
	size_t nt_bytes;	/* bytes stored non-temporally */
	size_t cached_bytes;	/* bytes stored through the cache */
	size_t writebacks;	/* write-back instructions seen */
	size_t fences;		/* sfences seen */
	size_t wb_outside;	/* write-backs of lines not touching the range */
	size_t wb_missing;	/* lines touching the range never written back */
	size_t wb_repeated;	/* lines touching the range written back twice or more */
	uintptr_t first_bad;	/* address of the first problem, 0 if none */
};

/* Watch [win, win+len); resets all state. Stores outside it count as outside. */
void rec_begin(void *win, size_t len);
/* Stop watching. */
void rec_end(void);
/*
 * Fill *r for a call meant to write exactly [dst, dst+n). Returns 0 when
 * the contract holds: no dirty line, no unwritten byte, nothing outside,
 * no fence; else -1.
 */
int rec_verify(const void *dst, size_t n, struct rec_report *r);
/*
 * Fill *r for a write-back of [addr, addr+len) (kflush_flush()). Returns 0
 * when every line touching the range was written back exactly once, no
 * other line was, and nothing was stored or fenced; else -1. len 0 means
 * no line at all.
 */
int rec_verify_flush(const void *addr, size_t len, struct rec_report *r);

#endif /* KFLUSH_RECORDER_H */
