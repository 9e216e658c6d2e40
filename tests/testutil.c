// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "testutil.h"

const size_t tu_large_sizes[] = { 4095, 4096, 4097, 65536 + 13, (1u << 20) + 7 };
const size_t tu_nr_large_sizes = sizeof(tu_large_sizes) / sizeof(tu_large_sizes[0]);

unsigned char tu_guard_byte(size_t i)
{
	return (unsigned char)(0xa5 ^ (i * 37));
}

struct tu_area tu_area_new(size_t payload)
{
	struct tu_area a;

	a.rawlen = (2 * TU_GUARD + 64 + payload + 4095) & ~(size_t)4095;
	a.raw = mmap(NULL, a.rawlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.raw == MAP_FAILED) {
		perror("tu_area_new: mmap");
		abort();
	}
	a.image = malloc(a.rawlen);
	if (!a.image)
		abort();
	for (size_t i = 0; i < a.rawlen; i++)
		a.image[i] = tu_guard_byte(i);
	tu_area_reset(&a);
	return a;
}

void tu_area_free(struct tu_area *a)
{
	munmap(a->raw, a->rawlen);
	free(a->image);
	a->raw = NULL;
	a->image = NULL;
}

void tu_area_reset(struct tu_area *a)
{
	memcpy(a->raw, a->image, a->rawlen);
}

void tu_restore(struct tu_area *a, size_t off, size_t n)
{
	size_t start = TU_GUARD + off;

	memcpy(a->raw + start, a->image + start, n);
}

/* Index of the first byte where p and q differ, or -1. */
static long first_diff(const unsigned char *p, const unsigned char *q, size_t n)
{
	if (!n || memcmp(p, q, n) == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return (long)i;
	return -1;
}

unsigned char *tu_at(const struct tu_area *a, size_t off)
{
	return a->raw + TU_GUARD + off;
}

void tu_fill(void *p, size_t n, uint32_t seed)
{
	unsigned char *b = p;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)(x | 1);
	}
}

long tu_check(const struct tu_area *a, size_t off, const void *expect, size_t n)
{
	size_t start = TU_GUARD + off, end = start + n;
	long i;

	/* memcmp against the image: sweeps call this hundreds of thousands of times. */
	i = first_diff(a->raw, a->image, start);
	if (i >= 0)
		return i;
	i = first_diff(a->raw + start, expect, n);
	if (i >= 0)
		return (long)start + i;
	i = first_diff(a->raw + end, a->image + end, a->rawlen - end);
	return i >= 0 ? (long)end + i : -1;
}

size_t tu_usable_variants(enum kflush_op op, struct tu_variant *out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < kflush_variant_count(op) && n < max; i++) {
		if (kflush_variant_usable(op, (unsigned int)i) != 1)
			continue;
		out[n].op = op;
		out[n].idx = i;
		snprintf(out[n].name, sizeof(out[n].name), "%s", kflush_variant_name(op, (unsigned int)i));
		n++;
	}
	return n;
}
