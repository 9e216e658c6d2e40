// SPDX-License-Identifier: MIT
/*
 * kflush_flush and its variants, kflush_drain, kflush_persist.
 *
 * Built twice: as tests/test_flush against the shipped library (write-back
 * must not change data, for any range, and len 0 must touch nothing), and
 * with TEST_RECORD as tests/test_flush_rec against the recording build,
 * where it also checks *which* lines were written back: every line touching
 * [addr, addr+len) exactly once and no other.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "kflush.h"
#include "testutil.h"
#ifdef TEST_RECORD
#include "recorder.h"
#endif

#define MAX_VARIANTS 8
#define SWEEP_MAX 300
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const size_t large[] = { 4095, 4096, 4097, 65536 + 13 };

static kflush_flush_fn flush_fn(const struct tu_variant *v)
{
	kflush_flush_fn fn = (kflush_flush_fn)kflush_variant_fn(KFLUSH_OP_FLUSH,
								 (unsigned int)v->idx);

	cr_assert(fn, "flush variant %s reported usable but has no function", v->name);
	return fn;
}

#ifdef TEST_RECORD
/* The recorder's verdict on one write-back of [p, p+len), with a line of margin. */
static void check_lines(const char *name, kflush_flush_fn fn, unsigned char *p, size_t len,
			size_t off)
{
	struct rec_report r;

	rec_begin(p - 128, len + 256);
	fn(p, len);
	if (rec_verify_flush(p, len, &r))
		cr_assert_fail("flush %s: len=%zu at +%zu: %zu lines missed, %zu written back twice, "
			       "%zu write-backs outside, %zu stores, %zu fences (first at %+ld)",
			       name, len, off, r.wb_missing, r.wb_repeated, r.wb_outside,
			       r.nt_bytes + r.cached_bytes, r.fences,
			       (long)(r.first_bad - (uintptr_t)p));
	rec_end();
}
#endif

/*
 * Write back [off, off+len) of a payload of plen pattern bytes: all of the
 * data is unchanged (and, recording, exactly the right lines went).
 */
static void flush_one(const char *name, kflush_flush_fn fn, struct tu_area *a,
		      const unsigned char *pattern, size_t plen, size_t off, size_t len)
{
	unsigned char *p = tu_at(a, off);
	long bad;

#ifdef TEST_RECORD
	check_lines(name, fn, p, len, off);
#else
	fn(p, len);
#endif
	bad = tu_check(a, off, pattern, plen);
	if (bad >= 0)
		cr_assert_fail("flush %s: len=%zu at +%zu changed the byte at %+ld", name, len, off,
			       bad - (long)(TU_GUARD + off));
}

static void sweep(const char *name, kflush_flush_fn fn)
{
	struct tu_area a = tu_area_new(65536 + 13);
	unsigned char *pattern = malloc(65536 + 13);

	cr_assert(pattern);
	tu_fill(pattern, 65536 + 13, 3);
	for (size_t off = 0; off < 64; off++) {
		/* The payload itself is non-guard data: flushing must keep it. */
		memcpy(tu_at(&a, off), pattern, SWEEP_MAX);
		for (size_t len = 0; len <= SWEEP_MAX; len++)
			flush_one(name, fn, &a, pattern, SWEEP_MAX, off, len);
		tu_restore(&a, off, SWEEP_MAX);
	}
	for (size_t i = 0; i < ARRAY_SIZE(large); i++) {
		for (size_t off = 0; off < 64; off += 21) {
			memcpy(tu_at(&a, off), pattern, large[i]);
			flush_one(name, fn, &a, pattern, large[i], off, large[i]);
			tu_restore(&a, off, large[i]);
		}
	}
	free(pattern);
	tu_area_free(&a);
}

/* len 0 must touch nothing: not even the line holding addr. */
static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static void zero_len(const char *name, kflush_flush_fn fn)
{
	unsigned char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;

	cr_assert(p != MAP_FAILED);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGSEGV, &sa, NULL) == 0);
	for (volatile size_t off = 0; off < 64; off++) {
		if (sigsetjmp(fault_jmp, 1))
			cr_assert_fail("flush %s: len=0 at line offset %zu accessed the line",
				       name, (size_t)off);
		fn(p + 1024 + off, 0);
	}
	munmap(p, 4096);
}

ParameterizedTestParameters(flush, variant)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_FLUSH, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flush, variant)
{
	sweep(v->name, flush_fn(v));
}

ParameterizedTestParameters(flush, variant_len0)
{
	static struct tu_variant v[MAX_VARIANTS];
	size_t n = tu_usable_variants(KFLUSH_OP_FLUSH, v, MAX_VARIANTS);

	return cr_make_param_array(struct tu_variant, v, n);
}

ParameterizedTest(struct tu_variant *v, flush, variant_len0)
{
	zero_len(v->name, flush_fn(v));
}

Test(flush, kflush_flush)
{
	sweep("kflush_flush", kflush_flush);
	zero_len("kflush_flush", kflush_flush);
}

/* Every baseline x86-64 CPU has clflush, so the fallback always exists. */
Test(flush, registry)
{
	int n = kflush_variant_count(KFLUSH_OP_FLUSH), bound = kflush_variant_bound(KFLUSH_OP_FLUSH);

	cr_assert_geq(n, 3);
	cr_assert_geq(kflush_variant_find(KFLUSH_OP_FLUSH, "clwb"), 0);
	cr_assert_geq(kflush_variant_find(KFLUSH_OP_FLUSH, "clflushopt"), 0);
	cr_assert_eq(kflush_variant_usable(KFLUSH_OP_FLUSH,
					   (unsigned int)kflush_variant_find(KFLUSH_OP_FLUSH, "clflush")), 1);
	cr_assert(bound >= 0 && bound < n);
	cr_assert_eq(kflush_variant_usable(KFLUSH_OP_FLUSH, (unsigned int)bound), 1);
	cr_assert_eq(kflush_cache_line_size(), 64);
}

#ifndef TEST_RECORD
Test(flush, drain_persist)
{
	struct tu_area a = tu_area_new(4096);
	unsigned char pattern[4096];

	tu_fill(pattern, sizeof(pattern), 9);
	kflush_drain();
	for (size_t off = 0; off < 64; off += 9) {
		memcpy(tu_at(&a, off), pattern, sizeof(pattern));
		for (size_t len = 0; len <= sizeof(pattern); len += 97) {
			kflush_persist(tu_at(&a, off), len);
			cr_assert(tu_check(&a, off, pattern, sizeof(pattern)) < 0, "persist len=%zu +%zu",
				  len, off);
		}
		tu_restore(&a, off, sizeof(pattern));
	}
	kflush_drain();
	tu_area_free(&a);
}
#else
/* The exported, out-of-line kflush_drain (the header's is inline). */
void lib_drain(void) __asm__("kflush_drain");

/* The recorder sees exactly one fence for drain; persist = flush + one fence. */
Test(flush, drain_persist)
{
	struct tu_area a = tu_area_new(4096);
	struct rec_report r;

	rec_begin(a.raw, a.rawlen);
	lib_drain();
	cr_assert(rec_verify_flush(a.raw, 0, &r) < 0);
	cr_assert_eq(r.fences, 1, "kflush_drain: %zu fences", r.fences);
	cr_assert_eq(r.writebacks + r.nt_bytes + r.cached_bytes, 0);
	rec_end();

	for (size_t off = 0; off < 64; off += 9) {
		for (size_t len = 0; len <= 1000; len += 37) {
			unsigned char *p = tu_at(&a, off);

			rec_begin(p - 128, len + 256);
			kflush_persist(p, len);
			rec_verify_flush(p, len, &r);
			cr_assert_eq(r.fences, 1, "kflush_persist len=%zu +%zu: %zu fences", len, off,
				     r.fences);
			cr_assert(!r.wb_missing && !r.wb_repeated && !r.wb_outside &&
				  !r.nt_bytes && !r.cached_bytes,
				  "kflush_persist len=%zu +%zu: missing %zu, twice %zu, outside %zu",
				  len, off, r.wb_missing, r.wb_repeated, r.wb_outside);
			rec_end();
		}
	}
	tu_area_free(&a);
}
#endif
