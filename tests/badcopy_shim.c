// SPDX-License-Identifier: MIT
/*
 * Preloaded by tests/test_pmemtest_copy_verify.sh: glibc's memcpy, memmove
 * and memset, wrong at one length, so that copy-bench's glibc contenders
 * store the wrong bytes the way a broken routine would.
 * KFLUSH_TEST_BAD_CALL="FUNCTION LENGTH HOW": HOW "short" leaves the
 * call's last byte unstored, "over" also changes the byte after its end.
 * Every other call is the real function's.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

static void *(*real_memcpy)(void *, const void *, size_t);
static void *(*real_memmove)(void *, const void *, size_t);
static void *(*real_memset)(void *, int, size_t);
static char bad_fn[16];
static size_t bad_len;
static int over;

__attribute__((constructor)) static void shim_init(void)
{
	const char *e = getenv("KFLUSH_TEST_BAD_CALL");
	char how[16];

	real_memcpy = (void *(*)(void *, const void *, size_t))dlsym(RTLD_NEXT, "memcpy");
	real_memmove = (void *(*)(void *, const void *, size_t))dlsym(RTLD_NEXT, "memmove");
	real_memset = (void *(*)(void *, int, size_t))dlsym(RTLD_NEXT, "memset");
	if (!e || sscanf(e, "%15s %zu %15s", bad_fn, &bad_len, how) != 3 || !bad_len) {
		bad_fn[0] = 0;
		return;
	}
	over = !strcmp(how, "over");
}

/* Before the constructor: byte by byte, which the compiler may not make a call. */
static void bytes(volatile unsigned char *d, const volatile unsigned char *s, int c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s ? s[i] : (unsigned char)c;
}

/* The length the real function is given, and the damage done after it. */
static size_t bad(const char *fn, size_t n)
{
	return n == bad_len && !strcmp(fn, bad_fn) && !over ? n - 1 : n;
}

static void after(const char *fn, void *d, size_t n)
{
	if (n == bad_len && over && !strcmp(fn, bad_fn))
		((volatile unsigned char *)d)[n] ^= 0x40;
}

API void *memcpy(void *d, const void *s, size_t n)
{
	if (!real_memcpy)
		bytes(d, s, 0, n);
	else
		real_memcpy(d, s, bad("memcpy", n));
	after("memcpy", d, n);
	return d;
}

API void *memmove(void *d, const void *s, size_t n)
{
	if (!real_memmove) {
		/* Only the loader's own early copies come here; none overlap. */
		bytes(d, s, 0, n);
	} else {
		real_memmove(d, s, bad("memmove", n));
	}
	after("memmove", d, n);
	return d;
}

API void *memset(void *d, int c, size_t n)
{
	if (!real_memset)
		bytes(d, NULL, c, n);
	else
		real_memset(d, c, bad("memset", n));
	after("memset", d, n);
	return d;
}
