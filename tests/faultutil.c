// SPDX-License-Identifier: MIT
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "faultutil.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

int precise_faults(void)
{
#ifdef RUNNING_ON_VALGRIND
	return !RUNNING_ON_VALGRIND;
#else
	return 1;
#endif
}

static void die(const char *what)
{
	perror(what);
	abort();
}

static struct fault_area fa_map(size_t acc, size_t after)
{
	struct fault_area fa;

	acc = (acc + PAGE - 1) & ~(size_t)(PAGE - 1);
	fa.maplen = acc + PAGE + after;
	fa.map = mmap(NULL, fa.maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fa.map == MAP_FAILED)
		die("fault area: mmap");
	if (mprotect(fa.map + acc, PAGE, PROT_NONE))
		die("fault area: mprotect");
	fa.end = fa.map + acc;
	fa.sig = SIGSEGV;
	return fa;
}

struct fault_area fa_segv(size_t acc)
{
	return fa_map(acc, 0);
}

struct fault_area fa_hole(void)
{
	return fa_map(PAGE, PAGE);
}

/* The file ends 100 bytes into its second page; that page reads as zeroes past it. */
struct fault_area fa_sigbus(void)
{
	struct fault_area fa;
	FILE *f = tmpfile();

	if (!f)
		die("tmpfile");
	if (ftruncate(fileno(f), PAGE + 100))
		die("ftruncate");
	fa.maplen = 3 * PAGE;
	fa.map = mmap(NULL, fa.maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
	if (fa.map == MAP_FAILED)
		die("file mapping");
	fclose(f);	/* the mapping keeps the file */
	fa.end = fa.map + 2 * PAGE;
	fa.sig = SIGBUS;
	return fa;
}

void fa_free(struct fault_area *fa)
{
	munmap(fa->map, fa->maplen);
}

static int accessible(const struct fault_area *fa, size_t i)
{
	return fa->map + i < fa->end || (fa->sig == SIGSEGV && fa->map + i >= fa->end + PAGE);
}

void fa_fill_guard(struct fault_area *fa)
{
	for (size_t i = 0; i < fa->maplen; i++)
		if (accessible(fa, i))
			fa->map[i] = tu_guard_byte(i);
}

void fa_fill(struct fault_area *fa, unsigned int seed)
{
	tu_fill(fa->map, (size_t)(fa->end - fa->map), seed);
	if (fa->maplen > (size_t)(fa->end - fa->map) + PAGE && fa->sig == SIGSEGV)
		tu_fill(fa->end + PAGE, fa->maplen - (size_t)(fa->end - fa->map) - PAGE, seed + 1);
}

void unwrite(struct tu_area *a, size_t off, size_t n)
{
	for (size_t i = TU_GUARD + off; i < TU_GUARD + off + n; i++)
		a->raw[i] = tu_guard_byte(i);
}

static size_t expect_left(size_t n, size_t f)
{
	return n > f ? n - f : 0;
}

int src_fault_case(kflush_copy_safe_fn fn, struct fault_area *fa,
		   struct tu_area *dst, size_t n, size_t f, size_t doff)
{
	const unsigned char *src = fa->end - f;
	size_t left = fn(tu_at(dst, doff), src, n);
	size_t want = expect_left(n, f);
	long bad = tu_check(dst, doff, src, n - want);

	if (left != want || bad >= 0) {
		cr_log_error("source fault: n=%zu f=%zu doff=%zu: returned %zu, want %zu; "
			     "first wrong byte %ld", n, f, doff, left, want, bad);
		return 0;
	}
	unwrite(dst, doff, n - want);
	return 1;
}

/*
 * Checks the window [dst - 256, end) and everything after the faulting
 * page, then puts the guard pattern back over the copied bytes.
 */
int dst_fault_case(kflush_copy_safe_fn fn, struct fault_area *fa,
		   const unsigned char *src, size_t n, size_t f)
{
	unsigned char *dst = fa->end - f;
	size_t left = fn(dst, src, n);
	size_t want = expect_left(n, f);
	size_t at = (size_t)(dst - fa->map);
	size_t lo = at > 256 ? at - 256 : 0;
	long bad = -1;

	for (size_t i = lo; i < fa->maplen && bad < 0; i++) {
		unsigned char e;

		if (!accessible(fa, i))
			continue;
		e = i >= at && i < at + n - want ? src[i - at] : tu_guard_byte(i);
		if (fa->map[i] != e)
			bad = (long)i - (long)at;
	}
	if (left != want || bad >= 0) {
		cr_log_error("destination fault: n=%zu f=%zu: returned %zu, want %zu; "
			     "wrong byte at dst%+ld", n, f, left, want, bad);
		return 0;
	}
	for (size_t i = at; i < at + n - want; i++)
		fa->map[i] = tu_guard_byte(i);
	return 1;
}
