/* SPDX-License-Identifier: MIT */
/* Timing and summary statistics for the benchmarks. */
#ifndef PMEMTEST_STATS_H
#define PMEMTEST_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic time in nanoseconds. */
uint64_t pm_now_ns(void);

struct pm_summary {
	double mean, median, stddev, min, max;
	size_t n;
};

/* Summarise n samples (the array is sorted in place). */
void pm_summarise(double *samples, size_t n, struct pm_summary *out);

/*
 * The machine's own roof: bytes/second of plain 64-byte non-temporal stores
 * of `pattern` (64 bytes, non-zero, the same data the contender writes) over
 * [dst, dst+len), len a multiple of 64, dst 64-byte aligned; one sfence at
 * the end. Returns elapsed ns.
 */
uint64_t pm_roof_nt_fill(void *dst, size_t len, const void *pattern);
/* The same stores, untimed and unfenced, for batches. */
void pm_nt_fill(void *dst, size_t len, const void *pattern);
/* The same with the widest NT store (64 B zmm, else 2 x 32 B ymm); returns
 * its name. Untimed, unfenced. */
const char *pm_nt_fill_wide(void *dst, size_t len, const void *pattern);

/*
 * The copy roof: a plain streaming copy of [src, src+len) to dst with the
 * widest non-temporal store the CPU has (AVX-512, else AVX2, else movnti),
 * unaligned loads batched into registers (32 lines with AVX-512, 8 with
 * AVX2) before the stores, one sfence at the end. dst 64-byte
 * aligned, len a multiple of 64. Returns elapsed ns.
 */
uint64_t pm_roof_nt_copy(void *dst, const void *src, size_t len);
/* Name of the store pm_roof_nt_copy() uses on this CPU ("avx512", ...). */
const char *pm_roof_nt_copy_name(void);
/* The same copy, untimed and unfenced, for batches of calls. */
void pm_nt_copy(void *dst, const void *src, size_t len);

/* The clear roof: one rep stosb of zero over [dst, dst+len). Returns ns. */
uint64_t pm_roof_rep_stosb(void *dst, size_t len);
/* The same, untimed. */
void pm_rep_stosb(void *dst, size_t len);

#endif /* PMEMTEST_STATS_H */
