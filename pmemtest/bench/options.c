// SPDX-License-Identifier: MIT
/*
 * The command line copy-bench and clear-bench share: sizes with K/M/G
 * suffixes, size lists and ladders, --only, and the common options.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "../common/cli.h"

int bench_parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (shift && v > (~0ULL >> shift))
		return -ERANGE;
	*out = (size_t)(v << shift);
	return 0;
}

int bench_parse_sizes(const char *s, size_t **out, size_t *n)
{
	char *dup = strdup(s), *save = NULL, *tok;
	size_t *v = NULL, nv = 0;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t x, *nvv;

		ret = bench_parse_size(tok, &x);
		if (!ret && !x)
			ret = -EINVAL;
		if (ret)
			break;
		nvv = realloc(v, (nv + 1) * sizeof(*v));
		if (!nvv) {
			ret = -ENOMEM;
			break;
		}
		v = nvv;
		v[nv++] = x;
	}
	free(dup);
	if (!ret && !nv)
		ret = -EINVAL;
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n = nv;
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

void bench_log_sizes(size_t lo, size_t hi, const size_t *extra, size_t nextra,
		     size_t **out, size_t *n)
{
	size_t cap = 2 * 64 + nextra, k = 0;
	size_t *v = calloc(cap, sizeof(*v));

	if (!v) {
		*out = NULL;
		*n = 0;
		return;
	}
	for (unsigned int i = 0; i < 63; i++) {
		size_t p = (size_t)1 << i;

		if (p >= lo && p <= hi)
			v[k++] = p;
		if (3 * p >= lo && 3 * p <= hi && i < 62)
			v[k++] = 3 * p;
	}
	for (size_t i = 0; i < nextra; i++)
		if (extra[i] >= lo && extra[i] <= hi)
			v[k++] = extra[i];
	qsort(v, k, sizeof(*v), cmp_size);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	*out = v;
}

bool bench_selected(const char *only, const char *name)
{
	const char *p = only;

	if (!only || !*only)
		return true;
	while (*p) {
		size_t len = strcspn(p, ",");

		/* Substring match of one comma-separated token. */
		for (const char *q = name; len && *q; q++)
			if (!strncmp(q, p, len))
				return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static int parse_cache(const char *arg, unsigned int *out)
{
	unsigned int v = 0;

	while (*arg) {
		size_t len = strcspn(arg, ",");

		if (len == 3 && !strncmp(arg, "hot", 3))
			v |= 1;
		else if (len == 4 && !strncmp(arg, "cold", 4))
			v |= 2;
		else if (len == 4 && !strncmp(arg, "both", 4))
			v |= 3;
		else
			return -1;
		arg += len + (arg[len] == ',');
	}
	if (!v)
		return -1;
	*out = v;
	return 0;
}

int bench_common_opt(const char *cmd, int c, const char *arg, const struct bench_common *o)
{
	unsigned long rounds;

	switch (c) {
	case 'r':
		if (cli_parse_uint(arg, 1000, &rounds)) {
			fprintf(stderr, "pmemtest: %s: bad --repeat '%s' (1..1000)\n", cmd, arg);
			return -1;
		}
		*o->rounds = (unsigned int)rounds;
		return 1;
	case 'b':
		if (bench_parse_size(arg, o->buffer) || *o->buffer < (1u << 20)) {
			fprintf(stderr, "pmemtest: %s: bad --buffer '%s' (at least 1M)\n", cmd, arg);
			return -1;
		}
		return 1;
	case 'c':
		if (parse_cache(arg, o->cache)) {
			fprintf(stderr, "pmemtest: %s: --cache takes hot, cold or both, not '%s'\n",
				cmd, arg);
			return -1;
		}
		return 1;
	case 'C':
		if (strcmp(arg, "cpu") && strcmp(arg, "wall")) {
			fprintf(stderr, "pmemtest: %s: --clock takes cpu or wall, not '%s'\n", cmd, arg);
			return -1;
		}
		bench_use_wall_clock(!strcmp(arg, "wall"));
		return 1;
	case 'o':
		*o->only = arg;
		return 1;
	default:
		return 0;
	}
}

int bench_no_operands(const char *cmd, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "pmemtest: %s: unexpected argument '%s'\n", cmd, argv[optind]);
		return -1;
	}
	return 0;
}
