/* SPDX-License-Identifier: MIT */
/* Timing and summary statistics for the benchmarks. */
#ifndef PMEMTEST_STATS_H
#define PMEMTEST_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic time in nanoseconds. */
uint64_t stats_now_ns(void);

struct stats_summary {
	double mean, median, stddev, min, max;
	size_t n;
};

/* Summarise n samples (the array is sorted in place). */
void stats_summarise(double *samples, size_t n, struct stats_summary *out);

#endif /* PMEMTEST_STATS_H */
