/* SPDX-License-Identifier: MIT */
/*
 * What the store-shape tests (test_flushcache_stores.c,
 * test_memmove_stores.c) share: one traced child writing into a
 * page-aligned arena, a sink that counts a call's NT stores by width, and
 * the registry's variants by name. The shapes they expect are written in
 * each test, from the man pages and libkflush(7), never read from lib/.
 */
#ifndef KFLUSH_TRACE_STORES_H
#define KFLUSH_TRACE_STORES_H

#include <stddef.h>

#include "kflush.h"
#include "tracer.h"

/* Room for two copies of up to 544 KiB each, source and destination. */
#define TS_ARENA (1088u << 10)
#define TS_SRC_OFF (544u << 10)

extern struct tt_tracer ts_tracer;
extern unsigned char *ts_arena;

/* Criterion .init/.fini: start the traced child on the arena (or skip), stop it. */
void ts_setup(void);
void ts_teardown(void);

struct ts_seen {
	size_t nt[65];		/* NT stores by width */
	size_t movdir64b;	/* of nt[64], the movdir64b ones */
	size_t other;		/* ordinary and stack stores, fences, write-backs */
	char first_other[256];
};

/* A tt_sink filling the struct ts_seen at @ctx. */
void ts_sink(void *ctx, const struct td_insn *in, const struct td_effect *e);
/* All of @s's NT stores, whatever their width. */
size_t ts_nt_stores(const struct ts_seen *s);

/* The registry's variant @name of @op (it must exist); NULL if this CPU cannot run it. */
kflush_fn ts_variant(enum kflush_op op, const char *name);

/*
 * The "_short_cached" variants (libkflush(7), Variants): a copy with a
 * sub-word edge, or a backward move with a partial edge line, goes all
 * through the cache below TS_SHORT_CACHED_BELOW bytes
 * (kflush_memcpy_flushcache(3), kflush_memmove_flushcache(3)).
 */
#define TS_SHORT_CACHED_BELOW 768
int ts_short_cached(const char *variant);

#endif /* KFLUSH_TRACE_STORES_H */
