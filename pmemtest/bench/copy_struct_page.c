// SPDX-License-Identifier: MIT
/*
 * copy-bench, struct-page mode: the ZONE_DEVICE memmap template copy of
 * issue 2 (seed 002). One template struct page, its lru self-pointer
 * refreshed per pfn as mm_init.c does, streamed into a packed array over the
 * whole buffer. Also the notes that check the issues' targets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "../common/rng.h"

#define SP_MAX 4096

struct tmpl {
	uint64_t w[SP_MAX / 8];
} __attribute__((aligned(64)));

/* lru.next = lru.prev = &page->lru: the per-pfn field of the template. */
static inline __attribute__((always_inline)) void refresh(uint64_t *t, char *page)
{
	t[1] = (uint64_t)(uintptr_t)(page + 8);
	t[2] = (uint64_t)(uintptr_t)(page + 8);
}

/* Constant size: the inline NT path, no call (what the seed adds). */
#define SP_CONST(N)								\
static __attribute__((noinline)) void sp_const_##N(char *d, size_t npages, uint64_t *t)	\
{										\
	for (size_t i = 0; i < npages; i++, d += (N)) {				\
		refresh(t, d);							\
		memcpy_flushcache(d, t, (N));					\
	}									\
	kflush_drain();								\
}
SP_CONST(32)
SP_CONST(48)
SP_CONST(64)
SP_CONST(80)
SP_CONST(96)

static void (*sp_const(size_t sp))(char *, size_t, uint64_t *)
{
	switch (sp) {
	case 32: return sp_const_32;
	case 48: return sp_const_48;
	case 64: return sp_const_64;
	case 80: return sp_const_80;
	case 96: return sp_const_96;
	default: return NULL;
	}
}

int copy_check_struct_page(const struct copy_opts *o)
{
	for (size_t i = 0; i < o->nsp; i++)
		if (o->sp[i] < 8 || o->sp[i] > SP_MAX || o->sp[i] % 8)
			return -1;
	return 0;
}

static uint64_t run_sp(const struct copy_run *x, const struct copy_contender *k, char *d, size_t npages,
		       size_t sp, uint64_t *t, uint64_t *bytes)
{
	uint64_t t0 = bench_now();

	*bytes = npages * sp;
	switch (k->kind) {
	case CALL_CONST:
		sp_const(sp)(d, npages, t);
		break;
	case CALL_GENERIC: {
		/* volatile: the compiler must not see the size, as in the kernel's
		 * generic template path that calls __memcpy_flushcache(). */
		volatile size_t vn = sp;
		size_t n = vn;

		for (size_t i = 0; i < npages; i++, d += n) {
			refresh(t, d);
			kflush_memcpy_flushcache(d, t, n);
		}
		kflush_drain();
		break;
	}
	case CALL_FLUSHCACHE: {
		kflush_memcpy_flushcache_fn f = (kflush_memcpy_flushcache_fn)k->fn;

		for (size_t i = 0; i < npages; i++, d += sp) {
			refresh(t, d);
			f(d, t, sp);
		}
		kflush_drain();
		break;
	}
	case CALL_PMEM: {
		pmem2_memcpy_fn f = x->b.pmem_memcpy;

		for (size_t i = 0; i < npages; i++, d += sp) {
			refresh(t, d);
			f(d, t, sp, k->flags);
		}
		x->b.pmem_drain();
		break;
	}
	case CALL_ROOF_FILL:
		/* The template's first line over the same bytes (whole lines). */
		*bytes = npages * sp & ~(size_t)63;
		roof_run(k->roof, ROOF_FILL, d, t, *bytes);
		break;
	case CALL_GLIBC_FLUSH:
	case CALL_GLIBC_MOVE_FLUSH:
	case CALL_PMEM_MOVE:
	case CALL_FLUSHSET:
	case CALL_PMEM_SET:
	case CALL_GLIBC_SET_FLUSH:
	case CALL_GLIBC:
	case CALL_MEMCPY:
	case CALL_COPY_SAFE:
	case CALL_COPY_PAGE:
	case CALL_REP_MOVSB:
	case CALL_ROOF_COPY:
		break;
	}
	return bench_now() - t0;
}

/* A fast method must not win by writing the wrong thing: check a page. */
static int check_page(const char *page, const uint64_t *t, size_t sp)
{
	uint64_t want[SP_MAX / 8];

	memcpy(want, t, sp);
	refresh(want, (char *)(uintptr_t)page);
	return memcmp(page, want, sp) ? -1 : 0;
}

static void sp_targets(struct copy_run *x, int g, size_t sp, const struct copy_contender *v, size_t nv)
{
	double cst = 0, gen = 0, pmdk = 0, roof = 0;

	for (size_t i = 0; i < nv; i++) {
		double gb = bench_res_median_gbps(x->res, g, v[i].id, sp);

		if (v[i].kind == CALL_CONST)
			cst = gb;
		else if (v[i].kind == CALL_GENERIC)
			gen = gb;
		else if (v[i].kind == CALL_PMEM && (v[i].flags & PMEM2_F_MEM_NONTEMPORAL))
			pmdk = gb;
		else if (v[i].kind == CALL_ROOF_FILL && gb > roof)
			roof = gb;
	}
	if (!pmdk || !roof || !gen)
		return;
	if (cst)
		bench_res_note(x->res, "target struct-page %zu B: constant %.2f GB/s = %.2fx pmdk:memcpy_nt "
			       "(want >= 2.5: %s), %.2fx roof (want >= 0.9: %s)", sp, cst,
			       cst / pmdk, cst / pmdk >= 2.5 ? "met" : "NOT met", cst / roof,
			       cst / roof >= 0.9 ? "met" : "NOT met");
	bench_res_note(x->res, "target struct-page %zu B: generic call %.2f GB/s = %.2fx pmdk:memcpy_nt "
		       "(want >= 1: %s), %.2fx roof", sp, gen, gen / pmdk,
		       gen / pmdk >= 1 ? "met" : "NOT met", gen / roof);
}

/*
 * Rounds @r0..@r1-1 of one struct page size: every contender, in a new
 * order each round, over the whole span. 1 to go on, 0 to stop (Ctrl-C),
 * -1 when a contender wrote a wrong struct page.
 */
static int sp_rounds(struct copy_run *x, int g, size_t sp, size_t npages, uint64_t *tw,
		     const struct copy_contender *v, size_t nv, unsigned int r0, unsigned int r1)
{
	for (unsigned int r = r0; r < r1; r++) {
		size_t order[COPY_MAX_CONTENDERS];

		rng_round_order(order, nv, r);
		for (size_t j = 0; j < nv; j++) {
			const struct copy_contender *k = &v[order[j]];
			uint64_t bytes, ns;

			if (x->plan) {
				copy_account(x, k, npages, (uint64_t)npages * sp);
				continue;
			}
			/*
			 * Untimed: the array out of the cache, as a cold cell's
			 * spans are (copy_run.c). Every sample writes the same
			 * span, and 256 MiB (a quarter of the default buffer, at
			 * 80 and 96 B) fits in a 300 MiB L3 (Intel family 6 model
			 * 0xcf): without this, what the last contender left cached
			 * (PMDK's temporal path writes back with clwb, which may
			 * keep the line) decided the next one's start.
			 */
			x->evict(x->b.dst, npages * sp);
			kflush_drain();
			ns = run_sp(x, k, x->b.dst, npages, sp, tw, &bytes);
			if (k->kind != CALL_ROOF_FILL &&
			    (check_page(x->b.dst, tw, sp) ||
			     check_page(x->b.dst + (npages - 1) * sp, tw, sp))) {
				fprintf(stderr, "pmemtest: %s wrote a wrong struct page\n", k->name);
				return -1;
			}
			bench_res_add(x->res, g, k->id, sp, r, -1, -1, npages, bytes, ns);
			if (!copy_account(x, k, npages, (uint64_t)npages * sp))
				return 0;
		}
	}
	return 1;
}

static int struct_page_run(struct copy_run *x)
{
	static size_t def[] = { 64, 80, 96 };
	static struct tmpl t;
	size_t *sps = x->o.sp ? x->o.sp : def, nsp = x->o.sp ? x->o.nsp : 3;

	bench_fill(t.w, sizeof(t.w), 0xfeed);
	/* _mapcount -1, _refcount 1, like a ZONE_DEVICE page fresh from init. */
	t.w[6] = 0x00000001ffffffffULL;
	for (size_t si = 0; si < nsp; si++) {
		size_t span = x->o.sp_span ? x->o.sp_span : sps[si] == 64 ? x->b.len : x->b.len / 4;
		size_t sp = sps[si], npages = (span < x->b.len ? span : x->b.len) / sp, nv = 0;
		struct copy_contender v[COPY_MAX_CONTENDERS];
		int g = bench_res_group(x->res, "struct-page", "cold", "packed"), go;

		if (sp_const(sp))
			copy_add(x, v, &nv, "memcpy_flushcache(const)", BENCH_KFLUSH, CALL_CONST, NULL, 0);
		copy_add(x, v, &nv, "memcpy_flushcache(generic)", BENCH_KFLUSH, CALL_GENERIC, NULL, 0);
		copy_add_variants(x, v, &nv, KFLUSH_OP_MEMCPY_FLUSHCACHE, CALL_FLUSHCACHE);
		if (copy_has_pmdk(x)) {
			copy_add(x, v, &nv, "pmdk:memcpy_nt", BENCH_PEER, CALL_PMEM, NULL,
			       PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN);
			copy_add(x, v, &nv, "pmdk:memcpy", BENCH_PEER, CALL_PMEM, NULL,
			       PMEM2_F_MEM_NODRAIN);
		}
		copy_add_roofs(x, v, &nv, ROOF_FILL, CALL_ROOF_FILL, "fill");
		go = sp_rounds(x, g, sp, npages, t.w, v, nv, 0, x->o.rounds);
		/* A cell over the roof: the size runs again, as in copy_run_group(). */
		if (go > 0 && !x->plan &&
		    copy_over_roof(x, g, sp, nv, copy_sample_cost(npages, (uint64_t)npages * sp),
				   BENCH_AGAIN_ROUNDS(x->o.rounds)))
			go = sp_rounds(x, g, sp, npages, t.w, v, nv, x->o.rounds,
				       x->o.rounds + BENCH_AGAIN_ROUNDS(x->o.rounds));
		if (go <= 0)
			return go;
		if (!x->plan)
			sp_targets(x, g, sp, v, nv);
	}
	return 0;
}

const struct copy_mode copy_mode_struct_page = {
	"struct-page", "packed struct-page copies: the ZONE_DEVICE memmap template (issue 2)",
	struct_page_run,
};
