// SPDX-License-Identifier: MIT
/*
 * Preloaded by tests/test_pmemtest_dev_swap.sh: the race between looking
 * at a path and opening it, made certain. KFLUSH_TEST_SWAP="PATH OTHER":
 * the first open() of exactly PATH renames OTHER over it first, so the
 * file pmemtest opens is not the one it looked at. Every other open is
 * the real one's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

static void swap_once(const char *path)
{
	static int done;
	const char *e = getenv("KFLUSH_TEST_SWAP");
	const char *sp = e ? strchr(e, ' ') : NULL;

	if (done || !sp || strlen(path) != (size_t)(sp - e) || strncmp(path, e, (size_t)(sp - e)))
		return;
	done = 1;
	/* A directory cannot be renamed over a file: remove the file first. */
	if (rename(sp + 1, path) < 0 && (errno != ENOTDIR || unlink(path) < 0 || rename(sp + 1, path) < 0))
		perror("swappath_shim: rename");
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* open64 is the same function as open on x86-64: one wrapper, both names. */
API int open(const char *path, int flags, ...)
{
	int (*fn)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	swap_once(path);
	return fn(path, flags, m);
}

API int open64(const char *path, int flags, ...) __attribute__((alias("open")));
