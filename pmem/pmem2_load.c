// SPDX-License-Identifier: MIT
/*
 * Loads the real libpmem2.so.1 for the forwarders of pmem2_forward.S and
 * the getters. As in forward.c it is opened by its full path (configure's
 * --with-libpmem2, or KFLUSH_PMEM_LIBPMEM2), never by name: installed
 * first in the library path as libpmem2.so.1, dlopen("libpmem2.so.1")
 * would return this library itself; and RTLD_LOCAL, so the application's
 * lookups keep binding to ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmem2.h"

struct fwd {
	const char *name;
	void **slot;
};

/* The table pmem2_forward.S builds, one entry per forwarded call. */
extern const struct fwd kflush_pmem2_fwd[], kflush_pmem2_fwd_end[];
void *kflush_pmem2_resolve(void **slot);

static struct {
	const char *(*errormsg)(void);
	int (*granularity)(const struct pmem2_map *);
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(load_error, sizeof(load_error), "libkflush-pmem2: %s: ", path);

	va_start(ap, fmt);
	vsnprintf(load_error + n, sizeof(load_error) - (size_t)n, fmt, ap);
	va_end(ap);
	for (const struct fwd *f = kflush_pmem2_fwd; f < kflush_pmem2_fwd_end; f++)
		*f->slot = NULL;
	memset(&real, 0, sizeof(real));
	fprintf(stderr, "%s\n", load_error);
}

/* dlsym through a union: ISO C has no cast from void * to a function pointer. */
#define SYM(h, field, name)						\
	do {								\
		union { void *p; __typeof__(real.field) f; } u_;	\
		u_.p = dlsym((h), (name));				\
		real.field = u_.f;					\
	} while (0)

static void load(void)
{
	const char *path = getenv("KFLUSH_PMEM_LIBPMEM2");
	union { void *p; pmem2_memcpy_fn (*f)(struct pmem2_map *); } getter;
	void *h;

	if (!path || !*path)
		path = KFLUSH_LIBPMEM2_PATH;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fail(path, "cannot load the real libpmem2: %s", dlerror());
		return;
	}
	/* Told to forward to ourselves we would jump in a circle: refuse. */
	getter.p = dlsym(h, "pmem2_get_memcpy_fn");
	if (getter.f == pmem2_get_memcpy_fn) {
		fail(path, "is libkflush-pmem2 itself, not PMDK's libpmem2");
		return;
	}
	for (const struct fwd *f = kflush_pmem2_fwd; f < kflush_pmem2_fwd_end; f++) {
		void *p = dlsym(h, f->name);

		if (!p) {
			fail(path, "has no %s", f->name);
			return;
		}
		__atomic_store_n(f->slot, p, __ATOMIC_RELEASE);
	}
	SYM(h, errormsg, "pmem2_errormsg");
	SYM(h, granularity, "pmem2_map_get_store_granularity");
	if (!real.errormsg || !real.granularity)
		fail(path, "has no pmem2_errormsg or pmem2_map_get_store_granularity");
}

/* Loaded before main, so a failure is reported up front. */
__attribute__((constructor)) static void pmem2_load_init(void)
{
	pthread_once(&once, load);
}

/* What a forwarded call runs when the real library is missing. */
static long unavailable(void)
{
	errno = ENOSYS;
	return -ENOSYS;
}

/* Called by the slow path of a forwarder whose slot was still empty. */
void *kflush_pmem2_resolve(void **slot)
{
	union { long (*f)(void); void *p; } u = { .f = unavailable };
	void *p;

	pthread_once(&once, load);
	p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	return p ? p : u.p;
}

int kflush_pmem2_real_granularity(const struct pmem2_map *map)
{
	pthread_once(&once, load);
	if (!real.granularity) {
		fprintf(stderr, "%s\n", load_error);
		return -1;
	}
	return real.granularity(map);
}

PMEM2_API const char *pmem2_errormsg(void)
{
	pthread_once(&once, load);
	return real.errormsg ? real.errormsg() : load_error;
}
