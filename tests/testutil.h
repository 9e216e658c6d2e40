/* SPDX-License-Identifier: MIT */
/* Shared by the Criterion tests: guarded buffers, patterns, variant lists. */
#ifndef KFLUSH_TESTUTIL_H
#define KFLUSH_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kflush.h"

/* Bytes of guard pattern on each side of every payload. */
#define TU_GUARD 256

/*
 * A guarded area: [raw, raw+rawlen) is page-aligned memory filled with the
 * guard pattern; a payload of up to `payload` bytes may be placed at
 * raw + TU_GUARD + off for any off in 0..63 (the area has room for it).
 */
struct tu_area {
	unsigned char *raw;
	size_t rawlen;
	unsigned char *image;	/* the pristine guard pattern, rawlen bytes */
};

struct tu_area tu_area_new(size_t payload);
void tu_area_free(struct tu_area *a);
/* Refill the whole area with the guard pattern. */
void tu_area_reset(struct tu_area *a);
/*
 * Put the guard pattern back over n payload bytes at offset off only: a
 * sweep that resets just what it wrote stays linear in the sizes, and a
 * stray store elsewhere survives to be caught by the next tu_check().
 */
void tu_restore(struct tu_area *a, size_t off, size_t n);
/* Payload pointer at offset off (0..63) from a 64-byte-aligned start. */
unsigned char *tu_at(const struct tu_area *a, size_t off);

/* Deterministic pattern with no zero bytes, different per seed. */
void tu_fill(void *p, size_t n, uint32_t seed);
/* The byte the guard pattern holds at raw offset i. */
unsigned char tu_guard_byte(size_t i);

/*
 * Check that the area holds `expect` (n bytes) at payload offset off and the
 * guard pattern everywhere else. Returns -1 if so, else the raw index of the
 * first wrong byte.
 */
long tu_check(const struct tu_area *a, size_t off, const void *expect, size_t n);

/* The sweep sizes: 0..1100 then a few large ones. */
extern const size_t tu_large_sizes[];
extern const size_t tu_nr_large_sizes;
#define TU_SWEEP_MAX 1100
#define TU_MAX_SIZE ((1u << 20) + 7)

/*
 * Between the sweep and the large sizes: a sparse walk up to three
 * 2 KiB blocks (the AVX-512 variant's load-ahead unit) and every size
 * within a line of each block boundary. Returns the count written.
 */
#define TU_MID_MAX (3 * 2048 + 128)
size_t tu_mid_sizes(size_t *out, size_t max);

/*
 * Step for the dense destination-offset loops: 1, or 5 under valgrind,
 * where the full sweep takes minutes and memcheck, not the sweep, is the
 * point of the run.
 */
size_t tu_offset_step(void);

/* One call of a sweep: n bytes at destination offset doff, source offset soff. */
struct tu_case {
	struct tu_area *area;
	size_t doff, soff, n;
	size_t seq;		/* cases before this one: to vary a fill value */
};

/*
 * Where a sweep goes: every n in 0..TU_SWEEP_MAX at every destination
 * offset (tu_offset_step() apart) and each of soffs[]; then the mid sizes
 * and the large sizes at each of big_doffs[] x big_soffs[].
 */
struct tu_sweep_plan {
	const size_t *soffs;
	size_t nsoffs;
	const size_t *big_doffs;
	size_t nbig_doffs;
	const size_t *big_soffs;
	size_t nbig_soffs;
};

/* Run fn over the plan, on guarded areas it allocates and frees. */
void tu_sweep(const struct tu_sweep_plan *plan,
	      void (*fn)(const struct tu_case *c, void *ctx), void *ctx);

/* Criterion parameter: one variant of one operation. */
struct tu_variant {
	int op;
	int idx;
	char name[32];
};

/* Fill out[] with the variants of op this CPU can run; returns the count. */
size_t tu_usable_variants(enum kflush_op op, struct tu_variant *out, size_t max);

/*
 * Calls call(page, i, ctx) for each i in [0, count), page pointing at a
 * 4 KiB mapping that allows no access at all, with SIGSEGV and SIGBUS
 * caught, so a call that touches any byte of it (a load, a store, a clwb
 * or clflush of its lines) is seen. Returns the first i whose call touched
 * the page, or -1 when none did.
 */
long tu_first_access(void (*call)(unsigned char *page, size_t i, void *ctx),
		     void *ctx, size_t count);

/*
 * Run @path with @argv in this process's environment, less the variables
 * named in @unset and plus the "NAME=value" entries of @set (both
 * NULL-terminated, either NULL): the way to run a program, this one
 * included (/proc/self/exe), under a KFLUSH_HWCAPS it reads at load. Its
 * stdout and stderr, when @out and @err are not NULL, go there (up to the
 * size less one, NUL-terminated; the rest is read and dropped). Returns
 * the wait status, or -1 if it could not be started.
 */
int tu_spawn(const char *path, char *const argv[], const char *const unset[],
	     char *const set[], char *out, size_t outlen, char *err, size_t errlen);

#endif /* KFLUSH_TESTUTIL_H */
