/* SPDX-License-Identifier: MIT */
/* For test_copy_safe: memory that faults at a known byte, and exact checks. */
#ifndef KFLUSH_FAULTUTIL_H
#define KFLUSH_FAULTUTIL_H

#include <stddef.h>

#include "testutil.h"

#define PAGE 4096

/*
 * Accessible memory from map up to end, where a faulting page begins; for
 * a hole, more accessible memory follows that page up to map + maplen.
 */
struct fault_area {
	unsigned char *map;
	size_t maplen;
	unsigned char *end;
	int sig;
};

/* acc bytes (rounded up to pages), then a PROT_NONE page: SIGSEGV. */
struct fault_area fa_segv(size_t acc);
/* A page, a PROT_NONE page, a page: faults with memory after them. */
struct fault_area fa_hole(void);
/* A shared file mapping whose third page lies past EOF: SIGBUS. */
struct fault_area fa_sigbus(void);
void fa_free(struct fault_area *fa);
/* Fill the accessible bytes with tu_guard_byte(map offset). */
void fa_fill_guard(struct fault_area *fa);
/* Fill the accessible bytes with a tu_fill() pattern. */
void fa_fill(struct fault_area *fa, unsigned int seed);

/*
 * 0 under Valgrind: it does not keep registers exact at a faulting access
 * (and its rep movs counts down before the access), so fault counts are
 * not what the hardware gives; tests that assert them skip there.
 */
int precise_faults(void);
#define SKIP_UNLESS_PRECISE_FAULTS()						\
	do {									\
		if (!precise_faults())						\
			cr_skip_test("Valgrind does not report faults with exact registers"); \
	} while (0)

/* Put the guard pattern back over a payload tu_check() has just vetted. */
void unwrite(struct tu_area *a, size_t off, size_t n);

/*
 * Copy n bytes with the source starting f bytes before fa->end (a
 * pattern-filled area) to dst at doff: the count must be n - f (0 if
 * f >= n), the first f bytes copied, the rest of dst untouched. Returns 1
 * if so, else logs the case and returns 0.
 */
int src_fault_case(kflush_copy_safe_fn fn, struct fault_area *fa,
		   struct tu_area *dst, size_t n, size_t f, size_t doff);
/* The same with the destination f bytes before fa->end (a guard-filled area). */
int dst_fault_case(kflush_copy_safe_fn fn, struct fault_area *fa,
		   const unsigned char *src, size_t n, size_t f);

#endif
