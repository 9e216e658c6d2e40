// SPDX-License-Identifier: MIT
/*
 * The calls libkflush has nothing to add to: mapping files, telling pmem
 * from not, msync, eADR, the error message and the version check,
 * forwarded to the real libpmem.so.1. It is opened by its full path
 * (configure's --with-libpmem, or KFLUSH_PMEM_LIBPMEM), never by name:
 * installed first in the library path as libpmem.so.1, a
 * dlopen("libpmem.so.1") would return this library itself. RTLD_LOCAL
 * keeps its symbols out of the global scope, so the application and
 * libpmem's own calls through its PLT (pmem_drain, pmem_flush, ...) keep
 * binding to ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmem.h"

static struct {
	void *(*map_file)(const char *, size_t, int, mode_t, size_t *, int *);
	int (*unmap)(void *, size_t);
	int (*is_pmem)(const void *, size_t);
	int (*msync)(const void *, size_t);
	const char *(*errormsg)(void);
	const char *(*check_version)(unsigned, unsigned);
	int (*deep_drain)(const void *, size_t);
	int (*has_auto_flush)(void);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

/* dlsym through a union: ISO C has no cast from void * to a function pointer. */
#define RESOLVE(h, field, name, ours)						\
	do {									\
		union { void *p; __typeof__(real.field) f; } u_;		\
		u_.p = dlsym((h), (name));					\
		if (!u_.p) {							\
			fail("%s has no %s", path, (name));			\
			return;							\
		}								\
		if (u_.f == (ours)) {						\
			fail("%s is libkflush-pmem itself, not PMDK's libpmem", path); \
			return;							\
		}								\
		real.field = u_.f;						\
	} while (0)

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(load_error, sizeof(load_error), "libkflush-pmem: ");

	va_start(ap, fmt);
	vsnprintf(load_error + n, sizeof(load_error) - (size_t)n, fmt, ap);
	va_end(ap);
	memset(&real, 0, sizeof(real));
	fprintf(stderr, "%s\n", load_error);
}

static void load(void)
{
	const char *path = getenv("KFLUSH_PMEM_LIBPMEM");
	void *h;

	if (!path || !*path)
		path = KFLUSH_LIBPMEM_PATH;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fail("cannot load the real libpmem: %s", dlerror());
		return;
	}
	RESOLVE(h, map_file, "pmem_map_file", pmem_map_file);
	RESOLVE(h, unmap, "pmem_unmap", pmem_unmap);
	RESOLVE(h, is_pmem, "pmem_is_pmem", pmem_is_pmem);
	RESOLVE(h, msync, "pmem_msync", pmem_msync);
	RESOLVE(h, errormsg, "pmem_errormsg", pmem_errormsg);
	RESOLVE(h, check_version, "pmem_check_version", pmem_check_version);
	RESOLVE(h, deep_drain, "pmem_deep_drain", pmem_deep_drain);
	RESOLVE(h, has_auto_flush, "pmem_has_auto_flush", pmem_has_auto_flush);
}

/* Loaded before main, so a failure is reported up front, and on first use otherwise. */
__attribute__((constructor)) static void forward_init(void)
{
	pthread_once(&once, load);
}

static int loaded(void)
{
	pthread_once(&once, load);
	if (real.map_file)
		return 1;
	errno = ENOSYS;
	return 0;
}

PMEM_API void *pmem_map_file(const char *path, size_t len, int flags, mode_t mode,
			     size_t *mapped_lenp, int *is_pmemp)
{
	COUNT(F_MAP_FILE, len);
	return loaded() ? real.map_file(path, len, flags, mode, mapped_lenp, is_pmemp) : NULL;
}

PMEM_API int pmem_unmap(void *addr, size_t len)
{
	COUNT(F_UNMAP, len);
	return loaded() ? real.unmap(addr, len) : -1;
}

PMEM_API int pmem_is_pmem(const void *addr, size_t len)
{
	COUNT(F_IS_PMEM, len);
	return loaded() ? real.is_pmem(addr, len) : 0;
}

PMEM_API int pmem_msync(const void *addr, size_t len)
{
	COUNT(F_MSYNC, len);
	return loaded() ? real.msync(addr, len) : -1;
}

PMEM_API const char *pmem_errormsg(void)
{
	COUNT(F_ERRORMSG, 0);
	return loaded() ? real.errormsg() : load_error;
}

PMEM_API const char *pmem_check_version(unsigned major_required, unsigned minor_required)
{
	COUNT(F_CHECK_VERSION, 0);
	return loaded() ? real.check_version(major_required, minor_required) : load_error;
}

int kflush_pmem_real_deep_drain(const void *addr, size_t len)
{
	return loaded() ? real.deep_drain(addr, len) : -1;
}

/*
 * The real one, rather than a walk of /sys/bus/nd/devices of our own: on
 * layouts real sysfs never shows (a region that is a directory, not a
 * symlink; a persistence_domain without its newline, or empty) PMDK's
 * answer is not the obvious one, and the decision at load must be PMDK's.
 */
int kflush_pmem_real_auto_flush(void)
{
	return loaded() ? real.has_auto_flush() : -1;
}

PMEM_API int pmem_has_auto_flush(void)
{
	COUNT(F_HAS_AUTO_FLUSH, 0);
	return kflush_pmem_real_auto_flush();
}
