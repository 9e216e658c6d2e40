/* SPDX-License-Identifier: MIT */
/*
 * Overlap sweeps for the memmove family: source and destination in one
 * guarded area at every distance, each result compared byte for byte with
 * what the C library's memmove() makes of the same bytes.
 */
#ifndef KFLUSH_OVERLAPUTIL_H
#define KFLUSH_OVERLAPUTIL_H

#include <stddef.h>

/* The call under test; ctx is passed through. */
typedef void (*ou_move_fn)(void *dst, const void *src, size_t n, void *ctx);

/*
 * Every n in 0..160 at every distance -(n+9)..n+9 (dst - src), eight
 * positions in a line; sizes around the 256-byte bulk threshold and the
 * 2 KiB block at every distance up to +-130 and the block-sized ones; a
 * few large sizes at selected distances. Fails the Criterion test with
 * the first wrong byte's position.
 */
void ou_sweep(const char *name, ou_move_fn fn, void *ctx);

/*
 * Fewer cases, for running once per flag combination: n 0..72 at every
 * distance -(n+2)..n+2, then sizes around the bulk threshold and a few
 * large ones at selected distances both ways.
 */
void ou_sweep_light(const char *name, ou_move_fn fn, void *ctx);

/*
 * One case: n bytes moved dst - src = dist apart, the lower of the two at
 * line offset base. Returns 0 if right, else 1 with *where set to the first
 * wrong byte's position from dst (guards included).
 */
int ou_one(ou_move_fn fn, void *ctx, size_t base, long dist, size_t n, long *where);

#endif /* KFLUSH_OVERLAPUTIL_H */
