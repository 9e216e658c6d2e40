// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

uint64_t stats_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_summarise(double *samples, size_t n, struct stats_summary *out)
{
	double sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(samples, n, sizeof(*samples), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	out->n = n;
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (samples[i] - out->mean) * (samples[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->min = samples[0];
	out->max = samples[n - 1];
	out->median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}
