// SPDX-License-Identifier: MIT
/*
 * kflush_copy_safe(): every variant (the benchmark-only ones included) and
 * the bound entry point, byte for byte; exact counts when a SIGSEGV or
 * SIGBUS stops the copy at any offset, on either buffer, from several
 * threads at once; and faults that are not ours still reaching the
 * application's handler or the default action.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "faultutil.h"
#include "testutil.h"

#ifdef __SANITIZE_ADDRESS__
/* ASan's own SIGSEGV/SIGBUS handling would report our deliberate faults. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
#endif

/*
 * Criterion parameter: a registry variant, or idx -1 for kflush_copy_safe.
 * Tests of fault counts that would only skip (Valgrind) get just the one.
 */
static size_t copy_safe_params(struct tu_variant *v, size_t max, int faults)
{
	size_t n = faults && !precise_faults() ? 0 :
		   tu_usable_variants(KFLUSH_OP_COPY_SAFE, v, max - 1);

	v[n].op = KFLUSH_OP_COPY_SAFE;
	v[n].idx = -1;
	snprintf(v[n].name, sizeof(v[n].name), "bound");
	return n + 1;
}

#define VARIANTS(suite, test, faults)						\
	ParameterizedTestParameters(suite, test)				\
	{									\
		static struct tu_variant v[16];					\
		size_t n = copy_safe_params(v, 16, (faults));			\
										\
		return cr_make_param_array(struct tu_variant, v, n);		\
	}

static kflush_copy_safe_fn fn_of(const struct tu_variant *v)
{
	if (v->idx < 0)
		return kflush_copy_safe;
	return (kflush_copy_safe_fn)kflush_variant_fn(KFLUSH_OP_COPY_SAFE, (unsigned int)v->idx);
}

#define SMALL_MAX 300

/*
 * The next size of a fault sweep: every one, or under KFLUSH_TEST_QUICK
 * (the QEMU rig's TCG guests, where each fault costs a slow emulated signal
 * delivery) a geometric walk that still meets every size class.
 */
static size_t next_n(size_t n)
{
	static int quick = -1;

	if (quick < 0)
		quick = getenv("KFLUSH_TEST_QUICK") != NULL;
	return n + (quick ? 1 + n / 16 : 1);
}
static const size_t large_n[] = { 4096 + 5, 65536, 65536 + 13 };

/* Offsets the fault takes in a large copy: both ends and page edges. */
static size_t large_f(size_t n, unsigned int i)
{
	static const size_t f[] = { 0, 1, 7, 8, 9, 63, 64, 65, 100, 4095, 4096, 4097 };

	if (i < sizeof(f) / sizeof(f[0]))
		return f[i];
	switch (i - sizeof(f) / sizeof(f[0])) {
	case 0: return n / 2 + 3;
	case 1: return n - 9;
	case 2: return n - 8;
	case 3: return n - 7;
	case 4: return n - 1;
	case 5: return n;
	default: return (size_t)-1;
	}
}

VARIANTS(copy_safe, sweep, 0)
ParameterizedTest(struct tu_variant *v, copy_safe, sweep)
{
	static const size_t soff[] = { 0, 5, 63 };
	kflush_copy_safe_fn fn = fn_of(v);
	struct tu_area src = tu_area_new(TU_MAX_SIZE);
	struct tu_area dst = tu_area_new(TU_SWEEP_MAX);
	/* Under Valgrind a sparser sweep keeps check-valgrind affordable. */
	size_t step = precise_faults() ? 1 : 13, nd = precise_faults() ? 6 : 2;

	cr_assert(fn != NULL);
	tu_fill(src.raw, src.rawlen, 7);
	for (size_t n = 0; n <= TU_SWEEP_MAX; n++) {
		for (size_t doff = 0; doff < 64; doff += step) {
			const unsigned char *s = tu_at(&src, soff[(n + doff) % 3]);
			size_t left = fn(tu_at(&dst, doff), s, n);
			long bad = tu_check(&dst, doff, s, n);

			if (left || bad >= 0)
				cr_assert_fail("%s: n=%zu doff=%zu: returned %zu, wrong byte %ld",
					       v->name, n, doff, left, bad);
			unwrite(&dst, doff, n);
		}
	}
	/* Large sizes get an area of their own: tu_check() scans all of it. */
	tu_area_free(&dst);
	dst = tu_area_new(TU_MAX_SIZE);
	for (size_t i = 0; i < tu_nr_large_sizes; i++) {
		static const size_t doffs[] = { 0, 1, 7, 8, 31, 63 };
		size_t n = tu_large_sizes[i];

		for (size_t d = 0; d < nd; d++) {
			const unsigned char *s = tu_at(&src, soff[d % 3]);
			size_t left = fn(tu_at(&dst, doffs[d]), s, n);
			long bad = tu_check(&dst, doffs[d], s, n);

			if (left || bad >= 0)
				cr_assert_fail("%s: n=%zu doff=%zu: returned %zu, wrong byte %ld",
					       v->name, n, doffs[d], left, bad);
			unwrite(&dst, doffs[d], n);
		}
	}
	tu_area_free(&src);
	tu_area_free(&dst);
}

/* Every n up to SMALL_MAX with the fault at every offset 0..n, then large n. */
static void fault_sweep(const struct tu_variant *v, struct fault_area *fa, int on_src)
{
	kflush_copy_safe_fn fn = fn_of(v);
	size_t big = large_n[sizeof(large_n) / sizeof(large_n[0]) - 1];
	struct tu_area dst = tu_area_new(SMALL_MAX);
	unsigned char *src = malloc(big);
	int ok = 1;

	cr_assert(fn != NULL && src != NULL);
	tu_fill(src, big, 11);
	if (on_src)
		fa_fill(fa, 3);
	else
		fa_fill_guard(fa);
	for (size_t n = 0; n <= SMALL_MAX && ok; n = next_n(n)) {
		for (size_t f = 0; f <= n && ok; f++) {
			if (on_src)
				ok = src_fault_case(fn, fa, &dst, n, f, (n + 3 * f) & 63);
			else
				ok = dst_fault_case(fn, fa, src + ((n + f) & 63), n, f);
		}
	}
	tu_area_free(&dst);
	dst = tu_area_new(on_src ? big : 0);
	for (size_t i = 0; i < sizeof(large_n) / sizeof(large_n[0]) && ok; i++) {
		size_t n = large_n[i], f;

		for (unsigned int j = 0; (f = large_f(n, j)) != (size_t)-1 && ok; j++) {
			if ((size_t)(fa->end - fa->map) < f)
				continue;
			if (on_src)
				ok = src_fault_case(fn, fa, &dst, n, f, j & 63);
			else
				ok = dst_fault_case(fn, fa, src, n, f);
		}
	}
	cr_assert(ok, "%s: wrong count or bytes after a %s fault (see the log)",
		  v->name, fa->sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
	free(src);
	tu_area_free(&dst);
}

VARIANTS(copy_safe, fault_on_source, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, fault_on_source)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = fa_segv(large_n[2]);

	fault_sweep(v, &fa, 1);
	fa_free(&fa);
}

VARIANTS(copy_safe, fault_on_destination, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, fault_on_destination)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = fa_segv(large_n[2]);

	fault_sweep(v, &fa, 0);
	fa_free(&fa);
}

/* Past EOF of a file mapping: SIGBUS, both ways, on the small sweep. */
VARIANTS(copy_safe, sigbus, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, sigbus)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	kflush_copy_safe_fn fn = fn_of(v);
	struct fault_area fa = fa_sigbus();
	struct tu_area dst = tu_area_new(2 * PAGE);
	unsigned char src[SMALL_MAX + 64];
	int ok = 1;

	tu_fill(src, sizeof(src), 5);
	fa_fill(&fa, 9);
	for (size_t n = 0; n <= SMALL_MAX && ok; n += 1 + n / 16)
		for (size_t f = 0; f <= n && ok; f++)
			ok = src_fault_case(fn, &fa, &dst, n, f, (n + f) & 63);
	/* The whole file-backed extent, crossing the page where EOF falls. */
	for (size_t f = 2 * PAGE - 70; f <= 2 * PAGE && ok; f++)
		ok = src_fault_case(fn, &fa, &dst, 2 * PAGE, f, f & 63);
	fa_fill_guard(&fa);
	for (size_t n = 0; n <= SMALL_MAX && ok; n += 1 + n / 16)
		for (size_t f = 0; f <= n && ok; f++)
			ok = dst_fault_case(fn, &fa, src + (f & 63), n, f);
	cr_assert(ok, "%s: wrong count or bytes after a SIGBUS (see the log)", v->name);
	tu_area_free(&dst);
	fa_free(&fa);
}

/*
 * A fault with mapped memory after it: a variant that stores ahead of
 * itself (the tail first) must leave nothing past the faulting byte.
 */
VARIANTS(copy_safe, fault_in_hole, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, fault_in_hole)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	static const size_t past[] = { 0, 1, 7, 8, 63, 200 };
	kflush_copy_safe_fn fn = fn_of(v);
	struct fault_area sfa = fa_hole(), dfa = fa_hole();
	struct tu_area dst = tu_area_new(3 * PAGE);
	unsigned char *src = malloc(3 * PAGE);
	int ok = 1;

	cr_assert(src != NULL);
	tu_fill(src, 3 * PAGE, 13);
	fa_fill(&sfa, 17);
	fa_fill_guard(&dfa);
	for (size_t f = 0; f <= 130 && ok; f++) {
		for (size_t k = 0; k < sizeof(past) / sizeof(past[0]) && ok; k++) {
			size_t n = f + PAGE + past[k];

			ok = src_fault_case(fn, &sfa, &dst, n, f, (f + k) & 63) &&
			     dst_fault_case(fn, &dfa, src + (f & 63), n, f);
		}
	}
	cr_assert(ok, "%s: wrong count or bytes past a hole (see the log)", v->name);
	free(src);
	tu_area_free(&dst);
	fa_free(&sfa);
	fa_free(&dfa);
}

/* Unmapped and non-canonical (#GP, si_code SI_KERNEL) addresses. */
VARIANTS(copy_safe, bad_pointers, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, bad_pointers)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	kflush_copy_safe_fn fn = fn_of(v);
	unsigned char buf[256];
	void *noncanon = (void *)(uintptr_t)0x8000000000000000ull;

	memset(buf, 0x5a, sizeof(buf));
	for (size_t n = 1; n <= sizeof(buf); n += 37) {
		cr_assert_eq(fn(buf, NULL, n), n);
		cr_assert_eq(fn(NULL, buf, n), n);
		cr_assert_eq(fn(buf, noncanon, n), n);
		cr_assert_eq(fn(noncanon, buf, n), n);
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0x5a);
}

#define THREADS 4
#define THREAD_ITERS 1500

struct thread_arg {
	kflush_copy_safe_fn fn;
	unsigned int seed;
	int failures;
};

/* Random n and fault offset, alternating source and destination faults. */
static void *fault_thread(void *p)
{
	struct thread_arg *a = p;
	struct fault_area sfa = fa_segv(PAGE), dfa = fa_segv(PAGE);
	struct tu_area dst = tu_area_new(SMALL_MAX);
	unsigned char src[SMALL_MAX + 64];

	tu_fill(src, sizeof(src), a->seed);
	fa_fill(&sfa, a->seed + 1);
	fa_fill_guard(&dfa);
	for (int i = 0; i < THREAD_ITERS; i++) {
		size_t n = (size_t)rand_r(&a->seed) % (SMALL_MAX + 1);
		size_t f = (size_t)rand_r(&a->seed) % (n + 1);

		if (!((i & 1) ? src_fault_case(a->fn, &sfa, &dst, n, f, f & 63)
			      : dst_fault_case(a->fn, &dfa, src + (n & 63), n, f)))
			a->failures++;
	}
	tu_area_free(&dst);
	fa_free(&sfa);
	fa_free(&dfa);
	return NULL;
}

VARIANTS(copy_safe, threads, 1)
ParameterizedTest(struct tu_variant *v, copy_safe, threads)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	pthread_t t[THREADS];
	struct thread_arg a[THREADS];

	for (int i = 0; i < THREADS; i++) {
		a[i] = (struct thread_arg){ .fn = fn_of(v), .seed = 1000u + (unsigned int)i };
		cr_assert(pthread_create(&t[i], NULL, fault_thread, &a[i]) == 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(a[i].failures, 0, "%s: thread %d had %d wrong counts",
			     v->name, i, a[i].failures);
	}
}

/* Faults that are not ours. */

static greg_t fault_rip;

/* Installed over ours: records where a copy fault happened, then fixes it up. */
static void rip_recorder(int sig, siginfo_t *info, void *uc)
{
	fault_rip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	if (!kflush_fault_handler(sig, info, uc))
		abort();
}

/*
 * kflush_fault_handler() on made-up contexts at the instruction where the
 * hardware stopped a real copy (a table entry) and at the copy's entry
 * (not one).
 */
Test(copy_safe, fault_handler_contract)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = fa_segv(PAGE);
	unsigned char buf[64];
	struct sigaction sa;
	greg_t rip, entry = (greg_t)(uintptr_t)kflush_copy_safe;
	siginfo_t si;
	ucontext_t uc;

	cr_assert_eq(kflush_copy_safe(buf, fa.map, sizeof(buf)), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rip_recorder;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGSEGV, &sa, NULL) == 0);
	cr_assert_eq(kflush_copy_safe(buf, fa.end - 10, sizeof(buf)), 54);
	rip = fault_rip;
	cr_assert(rip != 0);
	fa_free(&fa);

	memset(&si, 0, sizeof(si));
	memset(&uc, 0, sizeof(uc));
	si.si_code = SEGV_MAPERR;
	uc.uc_mcontext.gregs[REG_RIP] = entry;
	cr_assert_eq(kflush_fault_handler(SIGSEGV, &si, &uc), 0, "not a table entry");
	cr_assert_eq(uc.uc_mcontext.gregs[REG_RIP], entry);
	uc.uc_mcontext.gregs[REG_RIP] = rip;
	si.si_code = SI_USER;
	cr_assert_eq(kflush_fault_handler(SIGSEGV, &si, &uc), 0, "sent by kill()");
	si.si_code = BUS_MCEERR_AO;
	cr_assert_eq(kflush_fault_handler(SIGBUS, &si, &uc), 0, "asynchronous MCE");
	si.si_code = SEGV_MAPERR;
	cr_assert_eq(kflush_fault_handler(SIGINT, &si, &uc), 0);
	cr_assert_eq(kflush_fault_handler(SIGSEGV, NULL, &uc), 0);
	cr_assert_eq(kflush_fault_handler(SIGSEGV, &si, NULL), 0);
	cr_assert_eq(uc.uc_mcontext.gregs[REG_RIP], rip);
	cr_assert_eq(kflush_fault_handler(SIGSEGV, &si, &uc), 1);
	cr_assert_neq(uc.uc_mcontext.gregs[REG_RIP], rip);
	uc.uc_mcontext.gregs[REG_RIP] = rip;
	si.si_code = BUS_ADRERR;
	cr_assert_eq(kflush_fault_handler(SIGBUS, &si, &uc), 1);
}

static sigjmp_buf app_jmp;
static volatile sig_atomic_t app_calls;
static volatile int app_chains;

/* An application handler installed after libkflush's. */
static void app_handler(int sig, siginfo_t *info, void *uc)
{
	if (app_chains && kflush_fault_handler(sig, info, uc))
		return;
	app_calls++;
	siglongjmp(app_jmp, 1);
}

/* Over ours: the first copy installs ours, the application's replaces it. */
static void install_app_handler(int chains)
{
	struct sigaction sa;
	unsigned char a[8] = { 0 }, b[8];

	cr_assert_eq(kflush_copy_safe(b, a, sizeof(a)), 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	app_chains = chains;
	cr_assert(sigaction(SIGSEGV, &sa, NULL) == 0);
}

Test(copy_safe, app_handler_calls_kflush_fault_handler)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = fa_segv(PAGE);
	unsigned char dst[64];

	install_app_handler(1);
	cr_assert_eq(kflush_copy_safe(dst, fa.end - 10, 64), 54);
	cr_assert_eq(app_calls, 0);
	if (!sigsetjmp(app_jmp, 1)) {
		*(volatile unsigned char *)fa.end = 1;
		cr_assert_fail("no fault");
	}
	cr_assert_eq(app_calls, 1);
	/* siglongjmp restored the mask: the next fault is delivered too. */
	cr_assert_eq(kflush_copy_safe(fa.end - 3, dst, 64), 61);
	cr_assert_eq(app_calls, 1);
	fa_free(&fa);
}

/* Documented: a handler that replaced ours and does not call us sees our faults. */
Test(copy_safe, app_handler_without_chaining_sees_our_faults)
{
	struct fault_area fa = fa_segv(PAGE);
	unsigned char dst[64];

	install_app_handler(0);
	if (!sigsetjmp(app_jmp, 1)) {
		kflush_copy_safe(dst, fa.end - 10, 64);
		cr_assert_fail("the copy's fault did not reach the application");
	}
	cr_assert_eq(app_calls, 1);
	fa_free(&fa);
}

static int wait_child(pid_t pid)
{
	int status;

	cr_assert(waitpid(pid, &status, 0) == pid);
	return status;
}

/* With no handler before ours, a foreign fault kills with that signal. */
static void expect_default_death(int sig, int user_sent)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = sig == SIGBUS ? fa_sigbus() : fa_segv(PAGE);
	pid_t pid = fork();
	int status;

	cr_assert(pid >= 0);
	if (pid == 0) {
		unsigned char dst[64];

		/* Ours is still handled first. */
		if (kflush_copy_safe(dst, fa.end - 10, 64) != 54)
			_exit(3);
		if (user_sent)
			raise(sig);
		else
			(void)*(volatile unsigned char *)fa.end;
		_exit(2);
	}
	status = wait_child(pid);
	cr_assert(WIFSIGNALED(status), "child exited with %d", WEXITSTATUS(status));
	cr_assert_eq(WTERMSIG(status), sig);
	fa_free(&fa);
}

Test(copy_safe, default_action_segv) { expect_default_death(SIGSEGV, 0); }
Test(copy_safe, default_action_sigbus) { expect_default_death(SIGBUS, 0); }
Test(copy_safe, default_action_raised) { expect_default_death(SIGSEGV, 1); }
