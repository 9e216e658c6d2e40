// SPDX-License-Identifier: MIT
/*
 * Preloaded by tests/test_pmemtest_dev_swap.sh: the races between looking
 * at a path and using it, made certain. KFLUSH_TEST_SWAP=PATH with
 * KFLUSH_TEST_SWAP_WITH=OTHER: the first open() of exactly PATH renames
 * OTHER over it first, so the file pmemtest opens is not the one it looked
 * at. KFLUSH_TEST_SWAP_AFTER=PATH instead: the rename comes right after
 * that open, so the file opened is the one looked at and the path names
 * another from then on. Two variables, not one split at a space: the
 * scratch directory's path may hold spaces (TMPDIR).
 * KFLUSH_TEST_NO_PROC_FD=1: opening /proc/self/fd/N fails with ENOENT, as
 * it does where /proc is not mounted. Every other open is the real one's.
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

/*
 * Whether to rename now: the first open of the PATH that VAR names. Returns
 * the file to rename over it (KFLUSH_TEST_SWAP_WITH), or NULL.
 */
static const char *swap_other(const char *var, const char *path, int *done)
{
	const char *e = getenv(var), *with = getenv("KFLUSH_TEST_SWAP_WITH");

	if (*done || !e || !with || !*with || strcmp(path, e))
		return NULL;
	*done = 1;
	return with;
}

static void swap(const char *other, const char *path)
{
	/* A directory cannot be renamed over a file: remove the file first. */
	if (rename(other, path) < 0 && (errno != ENOTDIR || unlink(path) < 0 || rename(other, path) < 0))
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
	static int before, after;
	const char *other, *e = getenv("KFLUSH_TEST_NO_PROC_FD");
	va_list ap;
	mode_t m;
	int fd;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	if (e && *e == '1' && !strncmp(path, "/proc/self/fd/", 14)) {
		errno = ENOENT;
		return -1;
	}
	if ((other = swap_other("KFLUSH_TEST_SWAP", path, &before)))
		swap(other, path);
	fd = fn(path, flags, m);
	if ((other = swap_other("KFLUSH_TEST_SWAP_AFTER", path, &after)))
		swap(other, path);
	return fd;
}

API int open64(const char *path, int flags, ...) __attribute__((alias("open")));
