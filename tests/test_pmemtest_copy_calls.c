// SPDX-License-Identifier: MIT
/*
 * copy-bench's timed batch for a roof (pmemtest/bench/copy_calls.c): each
 * call must store the whole destination lines inside it and nothing else.
 * A roof that stored fewer lines would read too fast and hide contenders
 * above it; one that stored more would read too slow. The roof's own
 * strategies are held to their bytes once per run (roof.c); this is the
 * range copy-bench hands them, call by call, for every copy and fill
 * strategy this CPU has. Which bytes belong to a whole line inside a call
 * is decided here, byte by byte, not by the code under test.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../pmemtest/bench/copy.h"

struct roof_param {
	unsigned int use;	/* ROOF_COPY or ROOF_FILL */
	char name[24];		/* the strategy, looked up again in the test */
};

ParameterizedTestParameters(copy_calls, roof_lines)
{
	static struct roof_param p[2 * ROOF_MAX_STRATEGIES];
	static const unsigned int uses[2] = { ROOF_COPY, ROOF_FILL };
	size_t n = 0;

	for (size_t u = 0; u < 2; u++) {
		const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
		size_t ns = roof_strategies(uses[u], s, ROOF_MAX_STRATEGIES);

		for (size_t i = 0; i < ns; i++) {
			p[n].use = uses[u];
			snprintf(p[n].name, sizeof(p[n].name), "%s", s[i]->name);
			n++;
		}
	}
	return cr_make_param_array(struct roof_param, p, n);
}

/* dst offset, src offset, length: every start within a line, every edge. */
static const size_t calls[][3] = {
	{ 0, 0, 64 },		/* one whole line */
	{ 256, 300, 63 },	/* under a line: nothing */
	{ 512 + 1, 640 + 7, 127 },	/* one line inside, both edges partial */
	{ 1024 + 63, 1200, 130 },	/* 1 B before a line, 1 after two more */
	{ 2048, 2048 + 13, 128 },	/* two aligned lines, source unaligned */
	{ 3072 + 32, 3100, 64 },	/* a line's worth straddling two: nothing */
	{ 4096 + 5, 4096 + 9, 4096 + 200 },	/* long, both edges partial */
	{ 12288, 12288 + 40, 8 * 64 * 3 + 64 },	/* the 8-line blocks and one more */
	{ 16384 + 17, 16400, 1 },
	{ 20480 + 48, 20480 + 48, 16 + 64 * 9 + 40 },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))
#define AREA (32 << 10)
#define POISON 0x00	/* neither the source nor COPY_SET_BYTE has a zero byte */

static const struct roof_strategy *find(const struct roof_param *p)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
	size_t ns = roof_strategies(p->use, s, ROOF_MAX_STRATEGIES);

	for (size_t i = 0; i < ns; i++)
		if (!strcmp(s[i]->name, p->name))
			return s[i];
	cr_assert_fail("roof strategy %s is gone", p->name);
	return NULL;
}

ParameterizedTest(struct roof_param *p, copy_calls, roof_lines)
{
	const struct roof_strategy *s = find(p);
	struct copy_run x;
	struct copy_contender k;
	size_t len[NCALLS], doff[NCALLS], soff[NCALLS];
	struct bench_calls t = { .n = NCALLS, .len = len, .doff = doff, .soff = soff };
	unsigned char *dst = NULL, *src = NULL;

	/* A guard page's worth on each side of the area the calls use. */
	cr_assert_eq(posix_memalign((void **)&dst, 4096, AREA + 2 * 4096), 0);
	cr_assert_eq(posix_memalign((void **)&src, 4096, AREA + 2 * 4096), 0);
	for (size_t i = 0; i < AREA + 2 * 4096; i++)
		src[i] = (unsigned char)(1 + i % 251);
	memset(dst, POISON, AREA + 2 * 4096);
	for (size_t i = 0; i < NCALLS; i++) {
		doff[i] = calls[i][0];
		soff[i] = calls[i][1];
		len[i] = calls[i][2];
		t.bytes += len[i];
	}
	memset(&x, 0, sizeof(x));
	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "roof:%s", s->name);
	k.cls = BENCH_ROOF;
	k.kind = p->use == ROOF_COPY ? CALL_ROOF_COPY : CALL_ROOF_FILL;
	k.roof = s;

	copy_run_calls(&x, &k, &t, (char *)dst + 4096, (const char *)src + 4096);

	for (size_t b = 0; b < AREA + 2 * 4096; b++) {
		int want = POISON;

		for (size_t i = 0; b >= 4096 && i < NCALLS; i++) {
			size_t at = b - 4096, line = at & ~(size_t)63;

			/* Areas are page-aligned: a line here is a line in memory. */
			if (line >= doff[i] && line + 64 <= doff[i] + len[i]) {
				want = p->use == ROOF_COPY ? src[4096 + soff[i] + (at - doff[i])]
							   : COPY_SET_BYTE;
				break;
			}
		}
		cr_assert_eq(dst[b], want, "roof:%s(%s): byte %zd of the area is 0x%02x, want 0x%02x",
			     p->use == ROOF_COPY ? "copy" : "fill", s->name, (ssize_t)b - 4096,
			     dst[b], want);
	}
	free(dst);
	free(src);
}
