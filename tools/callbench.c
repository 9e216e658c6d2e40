// SPDX-License-Identifier: MIT
/*
 * callbench: what each way of binding a dispatched function costs per call,
 * side by side in one run (interleaved rounds, medians). 64-byte calls with
 * a non-constant size, the `generic` call of pmemtest init-bench.
 *
 * Two targets, each reached by every mechanism:
 *   kflush  libkflush's bound memcpy_flushcache variant (NT stores)
 *   copy64  a plain cached 64-byte copy, so the mechanism is all that differs
 * Mechanisms:
 *   entry   libkflush's exported kflush_memcpy_flushcache, as built
 *   slot    PLT, then an exported wrapper that jumps through a pointer
 *   ifunc   PLT straight to the target (GNU ifunc)
 *   direct  PLT straight to the target (an ordinary function; copy64 only)
 *   ptr     an exported pointer loaded and called (no PLT)
 *   inline  memcpy_flushcache() with a constant 64: no call at all
 *
 * usage: callbench [--rounds N] [--calls N]
 * Prints thread CPU ns per call (time descheduled on a busy machine is not
 * counted); nothing here is a pass/fail threshold.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kflush.h"
#include "callbench.h"


#define NT_RING (256u << 10)	/* NT stores: past L2, like init-bench's stream */
#define HOT_RING (16u << 10)	/* cached copy: stays in L1 */
#define MAX_ROUNDS 101

static volatile size_t size64 = 64;
static char *dst, *src;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* noinline: each case is its own loop, calling through the named path. */
#define CASE(fname, ring, call)							\
	static __attribute__((noinline)) double fname(long calls)		\
	{									\
		size_t n = size64, off = 0;					\
		double t0 = now();						\
										\
		for (long i = 0; i < calls; i++) {				\
			call;							\
			off = (off + 64) & ((ring) - 1);			\
		}								\
		return (now() - t0) / (double)calls;				\
	}

CASE(kf_entry, NT_RING, kflush_memcpy_flushcache(dst + off, src + off, n))
CASE(kf_slot, NT_RING, cb_slot_kflush(dst + off, src + off, n))
CASE(kf_ifunc, NT_RING, cb_ifunc_kflush(dst + off, src + off, n))
CASE(kf_ptr, NT_RING, cb_ptr_kflush(dst + off, src + off, n))
CASE(kf_inline, NT_RING, (void)n; memcpy_flushcache(dst + off, src + off, 64))
CASE(c_slot, HOT_RING, cb_slot_copy64(dst + off, src + off, n))
CASE(c_ifunc, HOT_RING, cb_ifunc_copy64(dst + off, src + off, n))
CASE(c_direct, HOT_RING, cb_direct_copy64(dst + off, src + off, n))
CASE(c_ptr, HOT_RING, cb_ptr_copy64(dst + off, src + off, n))

static const struct bench {
	const char *target, *mech;
	double (*run)(long calls);
} benches[] = {
	{ "kflush", "entry", kf_entry },	{ "kflush", "slot", kf_slot },
	{ "kflush", "ifunc", kf_ifunc },	{ "kflush", "ptr", kf_ptr },
	{ "kflush", "inline", kf_inline },	{ "copy64", "slot", c_slot },
	{ "copy64", "ifunc", c_ifunc },		{ "copy64", "direct", c_direct },
	{ "copy64", "ptr", c_ptr },
};
#define NR_BENCH (sizeof(benches) / sizeof(benches[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long parse_count(const char *arg, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max) {
		fprintf(stderr, "callbench: %s must be 1..%ld, not '%s'\n", what, max, arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "calls", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static double t[NR_BENCH][MAX_ROUNDS];
	long rounds = 11, calls = 2000000;
	int c;

	while ((c = getopt_long(argc, argv, "r:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = parse_count(optarg, "--rounds", MAX_ROUNDS); break;
		case 'n': calls = parse_count(optarg, "--calls", 1000000000L); break;
		case 'h':
			printf("usage: callbench [--rounds N] [--calls N]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "callbench: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	dst = mmap(NULL, NT_RING, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = mmap(NULL, NT_RING, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst == MAP_FAILED || src == MAP_FAILED) {
		perror("callbench: mmap");
		return 1;
	}
	memset(src, 0x5a, NT_RING);
	memset(dst, 0, NT_RING);
	for (size_t b = 0; b < NR_BENCH; b++)	/* warm up; resolves the lazy PLT slots */
		benches[b].run(calls / 10 + 1);

	for (long r = 0; r < rounds; r++)
		for (size_t b = 0; b < NR_BENCH; b++)
			t[b][r] = benches[b].run(calls);

	printf("memcpy_flushcache bound: %s; %ld rounds x %ld calls of 64 B, ns/call\n",
	       kflush_variant_name(KFLUSH_OP_MEMCPY_FLUSHCACHE,
				   (unsigned int)kflush_variant_bound(KFLUSH_OP_MEMCPY_FLUSHCACHE)),
	       rounds, calls);
	printf("%-8s %-7s %8s %8s %8s\n", "target", "via", "median", "min", "max");
	for (size_t b = 0; b < NR_BENCH; b++) {
		qsort(t[b], (size_t)rounds, sizeof(double), cmp_double);
		printf("%-8s %-7s %8.3f %8.3f %8.3f\n", benches[b].target, benches[b].mech,
		       t[b][rounds / 2], t[b][0], t[b][rounds - 1]);
	}
	return 0;
}
