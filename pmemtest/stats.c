// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

uint64_t pm_now_ns(void)
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

void pm_summarise(double *samples, size_t n, struct pm_summary *out)
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

uint64_t pm_roof_nt_fill(void *dst, size_t len, const void *pattern)
{
	uint64_t v[8];
	char *d = dst;
	uint64_t t0;

	memcpy(v, pattern, sizeof(v));
	t0 = pm_now_ns();
	for (size_t off = 0; off + 64 <= len; off += 64)
		for (int i = 0; i < 8; i++)
			__asm__ __volatile__("movntiq %1, %0"
					     : "=m"(*(uint64_t *)(d + off + 8 * i)) : "r"(v[i]));
	__asm__ __volatile__("sfence" : : : "memory");
	return pm_now_ns() - t0;
}
