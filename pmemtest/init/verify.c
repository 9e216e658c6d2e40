// SPDX-License-Identifier: MIT
/*
 * init-bench's check of every run: a sample of struct pages is poisoned
 * before the run and compared with the slow path's bytes after it, and
 * every pageblock must be marked, so no method can win by writing less or
 * writing wrong.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "init.h"
#include "kflush.h"
#include "../common/cli.h"
#include "../common/rng.h"

/* The roof streams one template line over the array: no struct page to compare. */
bool init_method_checked(enum replay_method m)
{
	return m != REPLAY_ROOF;
}

/* The methods init_method_checked() says yes to, as 1 << enum replay_method. */
unsigned int init_checked_methods(void)
{
	unsigned int v = 0;

	for (int m = 0; m < REPLAY_NR_METHODS; m++)
		if (init_method_checked((enum replay_method)m))
			v |= 1u << m;
	return v;
}

/* First, last, pageblock edges, compound heads/tails, and random pfns. */
size_t init_pick_samples(const struct init_ns *ns, uint64_t *seed, uint64_t *pfn)
{
	const struct replay_ns *r = &ns->rp;
	uint64_t span = r->end_pfn - r->start_pfn;
	size_t n = 0;

	pfn[n++] = r->start_pfn;
	pfn[n++] = r->end_pfn - 1;
	for (int i = 0; i < 256; i++) {
		uint64_t p = r->start_pfn + rng_next(seed) % span;
		uint64_t pb = p & ~(uint64_t)(REPLAY_PAGEBLOCK_NR - 1);

		if (pb >= r->start_pfn) {
			pfn[n++] = pb;
			if (pb > r->start_pfn)
				pfn[n++] = pb - 1;
		}
		pfn[n++] = pb + 1 < r->end_pfn ? pb + 1 : p;
	}
	if (r->ppc > 1) {
		for (int i = 0; i < 256; i++) {
			uint64_t h = r->start_pfn + rng_next(seed) % (span / r->ppc) * r->ppc;

			pfn[n++] = h;
			pfn[n++] = h + 1;
			pfn[n++] = h + 2;
			pfn[n++] = h + 3;
			pfn[n++] = h + r->compound_nr - 1;
		}
	}
	while (n < INIT_NR_SAMPLES)
		pfn[n++] = r->start_pfn + rng_next(seed) % span;
	return n;
}

void init_poison(const struct init_ns *ns, const uint64_t *pfn, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = replay_page(&ns->rp, pfn[i]);
		uint64_t dummy[12];

		/* Only pfns the replay initialises: others belong to nobody. */
		if (!replay_expect(&ns->rp, pfn[i], dummy))
			continue;
		memset(p, 0x5a, ns->sp);
		kflush_flush(p, ns->sp);
	}
	kflush_drain();
	memset(ns->rp.pageblock, 0, (size_t)(ns->npfns / REPLAY_PAGEBLOCK_NR / 2 + 1));
}

/*
 * PMEMTEST_TEST_CORRUPT, test only: after method m's run, flip the last
 * byte of one struct page among the samples init_verify() will compare, and
 * say which, so a test can check that the verifier names the same page and
 * byte. The last byte, because a verifier comparing less than the whole
 * struct page misses it first.
 */
void init_test_corrupt(const struct init_ns *ns, enum replay_method m, const uint64_t *pfn, size_t n)
{
	uint64_t dummy[12];

	/* From the middle: a random pfn, not the first or last one. */
	for (size_t k = 0; k < n; k++) {
		size_t i = (n / 2 + k) % n;
		unsigned char *p;

		if (!replay_expect(&ns->rp, pfn[i], dummy))
			continue;
		p = (unsigned char *)replay_page(&ns->rp, pfn[i]);
		p[ns->sp - 1] ^= 0xff;
		fprintf(stderr, "%s: PMEMTEST_TEST_CORRUPT: %s: method %s: flipped byte %u of the struct page of pfn %#"
			PRIx64 " (sample %zu of %zu)\n", cli_progname, ns->name, init_method_name(m), ns->sp - 1, pfn[i], i, n);
		return;
	}
	cli_err("%s: PMEMTEST_TEST_CORRUPT: no sample of method %s is initialised",
	       ns->name, init_method_name(m));
}

/* Compare the samples with the slow path's bytes; 0 or the mismatches. */
int init_verify(const struct init_ns *ns, enum replay_method m, const uint64_t *pfn, size_t n)
{
	const struct replay_ns *r = &ns->rp;
	unsigned char exp[96];
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *got = (const unsigned char *)replay_page(r, pfn[i]);

		if (!replay_expect(r, pfn[i], exp) || memcmp(got, exp, ns->sp) == 0)
			continue;
		for (unsigned int b = 0; b < ns->sp; b++) {
			if (got[b] != exp[b]) {
				if (!bad)
					cli_err("%s: method %s wrote the wrong struct page for pfn %#" PRIx64
					       " (byte %u: 0x%02x, expected 0x%02x)", ns->name,
					       init_method_name(m), pfn[i], b, got[b], exp[b]);
				break;
			}
		}
		bad++;
	}
	for (uint64_t p = (r->start_pfn + REPLAY_PAGEBLOCK_NR - 1) & ~(uint64_t)(REPLAY_PAGEBLOCK_NR - 1);
	     p < r->end_pfn; p += REPLAY_PAGEBLOCK_NR) {
		uint64_t idx = r->ppc > 1 ? (p - r->start_pfn) % r->ppc : 0;

		/* Marked per initialised pfn, or all of them after the loop (kmodel.c). */
		if (idx >= r->compound_nr && !r->k->pageblocks_after)
			continue;
		if (replay_pageblock_get(r, p) != REPLAY_MIGRATE_MOVABLE) {
			if (!bad)
				cli_err("%s: method %s left pageblock of pfn %#" PRIx64 " unset",
				       ns->name, init_method_name(m), p);
			bad++;
		}
	}
	return bad;
}

/* A comma list of the methods whose verdict is failed, for the summary line. */
void init_failed_list(const struct init_result *res, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int m = 0; m < REPLAY_NR_METHODS && at < len; m++)
		if (res[m].run && res[m].verdict == INIT_FAILED)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       init_method_name((enum replay_method)m));
}
