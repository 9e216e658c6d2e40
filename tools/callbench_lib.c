// SPDX-License-Identifier: MIT
/*
 * The binding mechanisms tools/callbench.c races, built as a shared library
 * of its own so every call crosses a PLT exactly as a call into libkflush
 * does. Two targets: libkflush's bound memcpy_flushcache variant (the real
 * cost), and a plain 64-byte cached copy here (the mechanism alone).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kflush.h"
#include "callbench.h"

#define CB_API __attribute__((visibility("default")))

static void copy64(void *dst, const void *src, size_t n)
{
	(void)n;
	__builtin_memcpy(dst, src, 64);
}

static copy_fn slot_copy = copy64;
static copy_fn slot_kflush;

/* Today's libkflush shape: an exported wrapper tail-jumping through a slot. */
CB_API void cb_slot_copy64(void *dst, const void *src, size_t n)
{
	slot_copy(dst, src, n);
}

CB_API void cb_slot_kflush(void *dst, const void *src, size_t n)
{
	slot_kflush(dst, src, n);
}

/* The target itself as the exported symbol: PLT then the body. */
CB_API void cb_direct_copy64(void *dst, const void *src, size_t n)
{
	__builtin_memcpy(dst, src, 64);
	(void)n;
}

/*
 * GNU ifunc. callbench links with -z lazy, so the resolvers run on the
 * first call, after libkflush's binding is complete: they may ask the
 * registry which variant is bound.
 */
static copy_fn resolve_copy64(void)
{
	return copy64;
}

static copy_fn resolve_kflush(void)
{
	enum kflush_op op = KFLUSH_OP_MEMCPY_FLUSHCACHE;

	return (copy_fn)kflush_variant_fn(op, (unsigned int)kflush_variant_bound(op));
}

CB_API void cb_ifunc_copy64(void *dst, const void *src, size_t n)
	__attribute__((ifunc("resolve_copy64")));
CB_API void cb_ifunc_kflush(void *dst, const void *src, size_t n)
	__attribute__((ifunc("resolve_kflush")));

/* An exported pointer the caller loads and calls: no PLT, one indirect call. */
CB_API copy_fn cb_ptr_copy64 = copy64;
CB_API copy_fn cb_ptr_kflush;

__attribute__((constructor)) static void bind(void)
{
	slot_kflush = resolve_kflush();
	cb_ptr_kflush = slot_kflush;
}
