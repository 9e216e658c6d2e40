// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kflush.h"
#include "harness.h"

#define LINE 64
#define DST_BASE 8192	/* page-aligned, with room below for the guard lines */

static struct tt_tracer tracer;
static struct tl_state state;
static unsigned char *src_arena, *dst_arena;
static unsigned char *final;	/* the expected window, TP_DST_SIZE */
static uint32_t seq;

static void fill(unsigned char *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)(x | 1);	/* never 0: a clear always shows */
	}
}

int tp_quick(void)
{
	const char *q = getenv("KFLUSH_TEST_QUICK");

	return q && *q && strcmp(q, "0");
}

/* Shared with the tracee; on a DAX file when the rig provides one. */
static unsigned char *arena_map(size_t len)
{
	const char *dir = getenv("KFLUSH_TEST_DAX_DIR");
	char path[4096];
	void *p;
	int fd;

	if (!dir || !*dir)
		return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(path, sizeof(path), "%s/kflush-trace.XXXXXX", dir);
	fd = mkstemp(path);
	cr_assert(fd >= 0 && unlink(path) == 0 && ftruncate(fd, (off_t)len) == 0,
		  "KFLUSH_TEST_DAX_DIR=%s: %s", dir, strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (p == MAP_FAILED && errno == EOPNOTSUPP)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p;
}

void tp_setup(void)
{
	char why[160] = "";
	int r;

	src_arena = arena_map(TP_SRC_SIZE);
	dst_arena = arena_map(TP_DST_SIZE);
	final = malloc(TP_DST_SIZE);
	cr_assert(src_arena != MAP_FAILED && dst_arena != MAP_FAILED && final);
	fill(src_arena, TP_SRC_SIZE, 11);
	r = tt_start(&tracer, why, sizeof(why));
	if (r == 1)
		tt_no_tracer(why, "the instruction-level proof did not run");
	cr_assert_eq(r, 0, "persistence tracer: %s", why);
	if (tp_quick())
		cr_log_info("KFLUSH_TEST_QUICK: one case per class, not the full plan");
}

void tp_arena_start(struct tt_tracer *t, unsigned char **arena, size_t len, const char *unobserved)
{
	char why[160] = "";
	int r = tt_start_arena(t, arena, len, why, sizeof(why));

	if (r == 1)
		tt_no_tracer(why, unobserved);
	cr_assert_eq(r, 0, "tracer: %s", why);
}

void tp_teardown(void)
{
	tt_stop(&tracer);
	tl_free(&state);
	munmap(src_arena, TP_SRC_SIZE);
	munmap(dst_arena, TP_DST_SIZE);
	free(final);
}

size_t tp_steps(void)
{
	return tracer.steps;
}

const struct tl_state *tp_last(void)
{
	return &state;
}

enum td_kind tp_expected_wb(void)
{
	uint64_t f = kflush_cpu_features();

	if (f & KFLUSH_CPU_CLWB)
		return TD_WB_CLWB;
	if (f & KFLUSH_CPU_CLFLUSHOPT)
		return TD_WB_CLFLUSHOPT;
	return TD_WB_CLFLUSH;
}

/*
 * TP_MOVE: the source lies in the destination arena, dist below dst (or
 * above, for a negative dist), partly outside the watched window when far.
 * Its bytes outside the window get a pattern of their own; the expected
 * window is then the C library's memmove() applied to a copy of the whole
 * span. Returns the source address.
 */
static uint64_t move_setup(const struct tp_call *c, const struct tl_expect *x, size_t wlen)
{
	uint64_t s = x->dst - (uint64_t)c->dist, lo = s < x->win_lo ? s : x->win_lo;
	uint64_t hi = s + c->n > x->win_hi ? s + c->n : x->win_hi;
	unsigned char *span;

	cr_assert(lo >= (uint64_t)(uintptr_t)dst_arena &&
		  hi <= (uint64_t)(uintptr_t)(dst_arena + TP_DST_SIZE),
		  "%s: n=%zu dist=%ld does not fit the arena", c->name, c->n, c->dist);
	if (s < x->win_lo)
		fill((unsigned char *)(uintptr_t)s, x->win_lo - s, seq + 3333);
	if (s + c->n > x->win_hi)
		fill((unsigned char *)(uintptr_t)x->win_hi, s + c->n - x->win_hi, seq + 5555);
	span = malloc(hi - lo);
	cr_assert(span);
	memcpy(span, (void *)(uintptr_t)lo, hi - lo);
	memmove(span + (x->dst - lo), span + (s - lo), c->n);
	memcpy(final, span + (x->win_lo - lo), wlen);
	free(span);
	return s;
}

size_t tp_run(const struct tp_call *c, char *msg, size_t len)
{
	unsigned char *dst = dst_arena + DST_BASE + c->doff;
	const unsigned char *src = src_arena + 4096 + c->soff;
	uint64_t d = (uint64_t)(uintptr_t)dst, a1 = 0, a2 = 0;
	struct tl_expect x = {
		.dst = d, .n = c->n, .wb = c->wb, .fences = c->fences,
		.allow_mixed = c->allow_mixed, .nt_only = c->nt_only,
		.flush = c->shape == TP_FLUSH,
	};
	size_t wlen, at;
	char err[256] = "";

	x.win_lo = (d & ~(uint64_t)(LINE - 1)) - TP_GUARD_LINES * LINE;
	x.win_hi = ((d + c->n + LINE - 1) & ~(uint64_t)(LINE - 1)) + TP_GUARD_LINES * LINE;
	if (!c->n)
		x.win_hi = (d & ~(uint64_t)(LINE - 1)) + (TP_GUARD_LINES + 1) * LINE;
	wlen = x.win_hi - x.win_lo;
	cr_assert(x.win_hi <= (uint64_t)(uintptr_t)(dst_arena + TP_DST_SIZE) &&
		  c->soff + c->n + 4096 <= TP_SRC_SIZE, "%s: n=%zu does not fit the arena",
		  c->name, c->n);

	/* The guard pattern changes per call, so a stale byte cannot look right. */
	fill(final, wlen, ++seq);
	at = d - x.win_lo;
	switch (c->shape) {
	case TP_COPY:
		memcpy(final + at, src, c->n);
		a1 = (uint64_t)(uintptr_t)src;
		a2 = c->n;
		break;
	case TP_SET:
		memset(final + at, c->c, c->n);
		a1 = (uint64_t)c->c;
		a2 = c->n;
		break;
	case TP_FLUSH:
		memcpy(final + at, src, c->n);
		a1 = c->n;
		break;
	case TP_FILL:
		for (size_t i = 0; i < c->n; i++)
			final[at + i] = src[i % LINE];
		a1 = c->n;
		a2 = (uint64_t)(uintptr_t)src;
		break;
	case TP_CLEAR:
		memset(final + at, 0, c->n);
		a1 = c->n / KFLUSH_PAGE_SIZE;
		break;
	case TP_DRAIN:
	case TP_MOVE:
		break;
	}
	memcpy((void *)(uintptr_t)x.win_lo, final, wlen);
	if (c->shape == TP_COPY || c->shape == TP_SET || c->shape == TP_MOVE || c->shape == TP_FILL)
		fill((unsigned char *)(uintptr_t)x.win_lo + at, c->n, seq + 7777);
	if (c->shape == TP_MOVE) {
		a1 = move_setup(c, &x, wlen);
		a2 = c->n;
	}
	x.final = final;
	tt_stack(&tracer, &x.stack_lo, &x.stack_hi);
#if defined(__SANITIZE_ADDRESS__)
	/* x86-64 ASan: shadow = (addr >> 3) + 0x7fff8000; frames poison their redzones. */
	x.shadow_lo = (x.stack_lo >> 3) + 0x7fff8000;
	x.shadow_hi = (x.stack_hi >> 3) + 0x7fff8000 + 1;
#endif

	tl_begin(&state, &x);
	if (tt_call(&tracer, c->fn, c->shape == TP_DRAIN ? 0 : d, a1, a2, tl_sink, &state, err,
		    sizeof(err))) {
		snprintf(msg, len, "%s n=%zu dst+%zu src+%zu: tracer: %s", c->name, c->n, c->doff,
			 c->soff, err);
		return 1;
	}
	tl_finish(&state);
	if (!tl_failures(&state))
		return 0;
	at = (size_t)snprintf(msg, len, "%s n=%zu dst+%zu src+%zu: ", c->name, c->n, c->doff,
			      c->soff);
	if (at < len)
		tl_report(&state, msg + at, len - at);
	return tl_failures(&state);
}
