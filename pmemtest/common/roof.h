/* SPDX-License-Identifier: MIT */
/*
 * The machine's roofs: every way this CPU has to store the contenders'
 * bytes, measured in the same run; the best median is the roof.
 */
#ifndef PMEMTEST_ROOF_H
#define PMEMTEST_ROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a roof stands for: a streaming copy, a 64-byte pattern, or zeros. */
#define ROOF_COPY	1u
#define ROOF_FILL	2u
#define ROOF_ZERO	4u

/*
 * One store strategy. Every function takes a 64-byte aligned @dst and a
 * @len that is a multiple of 64, and does not fence: roof_run() adds the
 * one sfence a weakly ordered (@nt) strategy owes.
 */
struct roof_strategy {
	/* "movnti", "sse2", "avx2", "avx512", "cached_clwb", "cached_clwb_512", ... */
	const char *name;
	uint64_t requires;	/* KFLUSH_CPU_* the instructions need */
	bool nt;		/* weakly ordered stores: one sfence at the end */
	/* Stream [src, src+len) to dst, loads batched as the register file allows. */
	void (*copy)(void *dst, const void *src, size_t len);
	/* Store the 64 bytes at @pattern over every line; also the zero stores. */
	void (*fill)(void *dst, size_t len, const void *pattern);
	/* Zero-only strategies (rep stosb, clzero): NULL for the others. */
	void (*zero)(void *dst, size_t len);
	/* Cached stores with each line written back (the temporal path's way). */
	bool write_back;
	/*
	 * A copy roof that runs only on copies of this many bytes and more
	 * (0: every size): the two-stream copies, which split each copy in
	 * halves.
	 */
	size_t min_len;
};

#define ROOF_MAX_STRATEGIES 16

/*
 * The strategies this machine runs for @use (one of ROOF_*), from the raw
 * CPUID features (the machine's roof, not what KFLUSH_HWCAPS leaves the
 * library): fills @out, returns how many.
 */
size_t roof_strategies(unsigned int use, const struct roof_strategy **out, size_t max);

/*
 * One pass of @s for @use over [dst, dst+len) (@src: the source of a copy,
 * the 64-byte pattern of a fill, unused for zeros), unfenced: a sample of
 * many calls fences once, with roof_fence(), as the contenders drain once.
 */
void roof_store(const struct roof_strategy *s, unsigned int use, void *dst, const void *src,
		size_t len);
/* The one sfence a weakly ordered strategy owes at the end of a sample. */
void roof_fence(const struct roof_strategy *s);
/* roof_store() then roof_fence(). */
void roof_run(const struct roof_strategy *s, unsigned int use, void *dst, const void *src,
	      size_t len);

/*
 * The factor PMEMTEST_TEST_ROOF_SCALE puts on every roof sample's time (1
 * when unset): a test-only way to make a contender beat the roof without
 * depending on timing. Exits with a usage error on a bad value.
 */
double roof_test_scale(void);

#endif /* PMEMTEST_ROOF_H */
