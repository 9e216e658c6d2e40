// SPDX-License-Identifier: MIT
/*
 * kflush_copy_safe() and the signals around it: callers that block SIGSEGV
 * and SIGBUS, faults that are not ours reaching every kind of previous
 * disposition as the kernel would have delivered them, the library leaving
 * dispositions alone until the first copy, and real hardware poison.
 * The expectations are the kernel's signal rules (signal(7), sigaction(2)),
 * written here, not derived from the library.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "faultutil.h"
#include "testutil.h"

#define SMALL_TEST_MAX 200

#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
#endif

/* Every usable variant and the bound entry point, on a fault at each end. */
static int copies_survive(void)
{
	struct tu_variant v[16];
	size_t nv = tu_usable_variants(KFLUSH_OP_COPY_SAFE, v, 16);
	struct fault_area fa = fa_segv(PAGE);
	struct tu_area dst = tu_area_new(SMALL_TEST_MAX);
	int ok = 1;

	fa_fill(&fa, 3);
	for (size_t i = 0; i <= nv && ok; i++) {
		kflush_copy_safe_fn fn = i == nv ? kflush_copy_safe :
			(kflush_copy_safe_fn)kflush_variant_fn(KFLUSH_OP_COPY_SAFE,
							       (unsigned int)v[i].idx);

		for (size_t n = 0; n <= SMALL_TEST_MAX && ok; n += 7)
			ok = src_fault_case(fn, &fa, &dst, n, n / 3, n & 63);
		fa_fill_guard(&fa);
		for (size_t n = 0; n <= SMALL_TEST_MAX && ok; n += 7)
			ok = dst_fault_case(fn, &fa, dst.raw + (n & 63), n, n / 2);
		fa_fill(&fa, 3);
		ok = ok && fn(fa.map, NULL, 64) == 64;
	}
	tu_area_free(&dst);
	fa_free(&fa);
	return ok;
}

static int segv_bus_blocked(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGSEGV) && sigismember(&cur, SIGBUS);
}

/* The common server pattern: a worker with every signal blocked. */
static void *blocked_worker(void *p)
{
	sigset_t all;
	int *ok = p;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	*ok = copies_survive() ? 1 + segv_bus_blocked() : 0;
	return NULL;
}

Test(copy_safe_signals, thread_blocking_every_signal)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	pthread_t t;
	int ok = -1;

	cr_assert(pthread_create(&t, NULL, blocked_worker, &ok) == 0);
	pthread_join(t, NULL);
	cr_assert_neq(ok, 0, "wrong count in a thread that blocks SIGSEGV and SIGBUS");
	cr_assert_eq(ok, 2, "the caller's signal mask was not restored");
}

static volatile sig_atomic_t usr1_ok = -1;

static void usr1_handler(int sig)
{
	(void)sig;
	usr1_ok = copies_survive() ? 1 + segv_bus_blocked() : 0;
}

/* A handler whose sa_mask holds both signals copies on bad memory. */
Test(copy_safe_signals, handler_masking_segv)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = usr1_handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGSEGV);
	sigaddset(&sa.sa_mask, SIGBUS);
	cr_assert(sigaction(SIGUSR1, &sa, NULL) == 0);
	raise(SIGUSR1);
	cr_assert_neq(usr1_ok, 0, "wrong count inside a handler that masks SIGSEGV");
	cr_assert_eq(usr1_ok, 2, "the handler's signal mask was not restored");
}

static sigjmp_buf crash_jmp;
static volatile size_t crash_left = 1;

/* A crash reporter that reads memory around the fault with kflush_copy_safe(). */
static void crash_reporter(int sig, siginfo_t *info, void *uc)
{
	unsigned char buf[64];

	(void)sig;
	(void)uc;
	crash_left = kflush_copy_safe(buf, (unsigned char *)info->si_addr - 10, sizeof(buf));
	siglongjmp(crash_jmp, 1);
}

/* Chained from our handler without SA_NODEFER: SIGSEGV is blocked in it. */
Test(copy_safe_signals, crash_reporter_copies)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	struct fault_area fa = fa_segv(PAGE);
	struct sigaction sa;
	unsigned char b[8];

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_reporter;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGSEGV, &sa, NULL) == 0);
	cr_assert_eq(kflush_copy_safe(b, fa.map, sizeof(b)), 0);	/* installs on top */
	if (!sigsetjmp(crash_jmp, 1))
		*(volatile unsigned char *)fa.end = 1;
	cr_assert_eq(crash_left, 54);
	fa_free(&fa);
}

/*
 * A SIGSEGV sent to a thread that blocks it stays pending through a copy,
 * with its siginfo, instead of being delivered because the copy needed
 * the signal unblocked.
 */
static void *pending_worker(void *p)
{
	struct fault_area fa = fa_segv(PAGE);
	unsigned char dst[64];
	sigset_t set, pend;
	siginfo_t si;
	struct timespec zero = { 0, 0 };
	int *res = p;

	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	sigaddset(&set, SIGBUS);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGSEGV);
	*res = 1;
	if (kflush_copy_safe(dst, fa.end - 10, 64) != 54)
		return NULL;
	*res = 2;
	if (sigpending(&pend) || !sigismember(&pend, SIGSEGV))
		return NULL;
	*res = 3;
	/* Raw: glibc's sigtimedwait() reports SI_TKILL as SI_USER. */
	if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero, sizeof(uint64_t)) != SIGSEGV ||
	    si.si_code != SI_TKILL ||
	    si.si_pid != getpid())
		return NULL;
	*res = 0;
	fa_free(&fa);
	return NULL;
}

Test(copy_safe_signals, pending_segv_stays_pending)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	pthread_t t;
	int res = -1;

	cr_assert(pthread_create(&t, NULL, pending_worker, &res) == 0);
	pthread_join(t, NULL);
	cr_assert_eq(res, 0, "step %d: the pending SIGSEGV was not kept (1 count, 2 pending, "
		     "3 siginfo)", res);
}

/* Programs that set dispositions around dlopen() (copy_safe_helper). */
static int spawn_helper(const char *mode)
{
	char path[] = COPY_SAFE_HELPER, arg[32];
	char *argv[] = { path, arg, NULL };
	pid_t pid;
	int status;

	snprintf(arg, sizeof(arg), "%s", mode);
	cr_assert(posix_spawn(&pid, path, NULL, NULL, argv, environ) == 0);
	cr_assert(waitpid(pid, &status, 0) == pid);
	return status;
}

static void helper_ok(const char *mode)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	int status = spawn_helper(mode);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: %s %d", mode,
		  WIFEXITED(status) ? "exit" : "signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* Death by a signal, for the modes whose foreign fault must kill. */
static void helper_dies(const char *mode, int sig)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	int status = spawn_helper(mode);

	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		  "%s: status %#x, want death by signal %d", mode, status, sig);
}

Test(copy_safe_signals, handler_installed_before_load) { helper_ok("before"); }
Test(copy_safe_signals, ignored_before_load) { helper_dies("ignore", SIGSEGV); }
Test(copy_safe_signals, resethand_before_load) { helper_dies("resethand", SIGSEGV); }
Test(copy_safe_signals, dlclose_restores) { helper_ok("dlclose"); }
Test(copy_safe_signals, load_leaves_dispositions_alone) { helper_ok("untouched"); }
Test(copy_safe_signals, handler_set_after_load_is_chained) { helper_ok("after-load"); }
Test(copy_safe_signals, variant_call_installs) { helper_ok("variant"); }
Test(copy_safe_signals, previous_handler_onstack) { helper_ok("onstack"); }
Test(copy_safe_signals, previous_handler_not_onstack) { helper_ok("noonstack"); }
Test(copy_safe_signals, previous_handler_restart) { helper_ok("restart"); }
Test(copy_safe_signals, previous_handler_no_restart) { helper_ok("norestart"); }

#define MAX_STOPS 64

/*
 * Run a chain-* mode under ptrace and see every SIGSEGV the kernel
 * delivers: each hardware one must be at the copy's fault or the foreign
 * fault, never at an address a wrong jump made (0, 1), and at most twice
 * at the foreign one (our handler, then the fatal refault).
 */
static void trace_chain(const char *how, int dies)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	char path[] = COPY_SAFE_HELPER, arg[32], out[64] = "";
	char *argv[] = { path, arg, NULL };
	void *copy_bad = NULL, *bad = NULL, *wrong = NULL;
	int pfd[2], status, foreign = 0, stops = 0, nwrong = 0;
	pid_t pid;

	snprintf(arg, sizeof(arg), "chain-%s", how);
	cr_assert(pipe(pfd) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(path, argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		siginfo_t si;
		int sig;

		cr_assert(waitpid(pid, &status, 0) == pid);
		if (!WIFSTOPPED(status))
			break;
		sig = WSTOPSIG(status);
		if (sig == SIGTRAP && stops++ == 0)
			sig = 0;	/* the stop after execve() */
		if (sig == SIGSEGV && ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 &&
		    si.si_code > 0 && !nwrong) {
			if (!bad) {
				ssize_t r = read(pfd[0], out, sizeof(out) - 1);

				out[r > 0 ? r : 0] = 0;
				sscanf(out, "%p %p", &copy_bad, &bad);
			}
			if (si.si_addr == bad)
				foreign++;
			else if (si.si_addr != copy_bad)
				wrong = si.si_addr, nwrong = 1;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	close(pfd[0]);
	cr_assert(!nwrong, "%s: a SIGSEGV at %p, neither the copy's %p nor the foreign %p",
		  how, wrong, copy_bad, bad);
	if (dies) {
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
			  "%s: status %#x, want death by SIGSEGV", how, status);
		cr_assert(foreign >= 1 && foreign <= 2, "%s: %d deliveries at the foreign fault",
			  how, foreign);
	} else {
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %#x",
			  how, status);
		cr_assert_eq(foreign, 1, "%s: the foreign fault was delivered %d times", how,
			     foreign);
	}
}

/* The previous disposition, and whether a foreign fault must kill. */
Test(copy_safe_signals, chain_sig_dfl) { trace_chain("dfl", 1); }
Test(copy_safe_signals, chain_sig_dfl_siginfo) { trace_chain("dfl-si", 1); }
Test(copy_safe_signals, chain_sig_ign) { trace_chain("ign", 1); }
Test(copy_safe_signals, chain_sig_ign_siginfo) { trace_chain("ign-si", 1); }
Test(copy_safe_signals, chain_sa_handler) { trace_chain("handler", 0); }
Test(copy_safe_signals, chain_sa_handler_siginfo) { trace_chain("handler-si", 0); }
Test(copy_safe_signals, chain_sa_sigaction) { trace_chain("action", 0); }
Test(copy_safe_signals, chain_sa_sigaction_no_siginfo) { trace_chain("action-nosi", 0); }

static sigjmp_buf poison_jmp;
static volatile int poison_code;
static volatile sig_atomic_t poison_armed;

static void poison_probe(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	/* vm.memory_failure_early_kill=1 reports the poisoning itself: not a read. */
	if (sig == SIGBUS && info->si_code == BUS_MCEERR_AO)
		return;
	poison_code = sig == SIGBUS ? info->si_code : -sig;
	if (poison_armed)
		siglongjmp(poison_jmp, 1);
	static const char msg[] = "hardware_poison: a fault in the copy reached the "
				  "application's handler\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

/*
 * madvise(MADV_HWPOISON) runs the kernel's memory-failure path on a real
 * page, as a machine check on a media error would: the page is lost for
 * good, so this runs only when asked.
 */
Test(copy_safe_signals, hardware_poison)
{
	SKIP_UNLESS_PRECISE_FAULTS();

	const char *opt = getenv("KFLUSH_TEST_HWPOISON");
	static const size_t fs[] = { 0, 1, 7, 8, 63, 64, 65, 4095, 4096 };
	struct tu_area dst;
	struct sigaction sa;
	unsigned char *map, src[2 * PAGE];
	int ok = 1;

	if (!opt || strcmp(opt, "1"))
		cr_skip_test("poisons a physical page for good: set KFLUSH_TEST_HWPOISON=1 "
			     "(as root, on a throwaway machine) to run it");
	map = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(map != MAP_FAILED);
	tu_fill(map, 3 * PAGE, 21);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = poison_probe;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	cr_assert(sigaction(SIGBUS, &sa, NULL) == 0 && sigaction(SIGSEGV, &sa, NULL) == 0);
	if (madvise(map + PAGE, PAGE, MADV_HWPOISON)) {
		if (errno == EPERM || errno == EINVAL)
			cr_skip_test("MADV_HWPOISON not permitted here (%s): needs CAP_SYS_ADMIN "
				     "and CONFIG_MEMORY_FAILURE", strerror(errno));
		cr_assert_fail("madvise(MADV_HWPOISON): %s", strerror(errno));
	}
	if (!sigsetjmp(poison_jmp, 1)) {
		poison_armed = 1;
		(void)*(volatile unsigned char *)(map + PAGE + 100);
	}
	poison_armed = 0;
	cr_assert_eq(poison_code, BUS_MCEERR_AR, "reading the poisoned page: si_code %d, "
		     "want SIGBUS BUS_MCEERR_AR", poison_code);

	/* map + PAGE is poisoned: copies that reach it stop exactly there. */
	dst = tu_area_new(2 * PAGE);
	tu_fill(src, sizeof(src), 22);
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]) && ok; i++) {
		size_t f = fs[i], n = f + 300;
		const unsigned char *s = map + PAGE - f;
		size_t left = kflush_copy_safe(tu_at(&dst, f & 63), s, n);
		long bad = tu_check(&dst, f & 63, s, f);

		if (left != n - f || bad >= 0) {
			cr_log_error("source: f=%zu returned %zu, want %zu; wrong byte %ld", f,
				     left, n - f, bad);
			ok = 0;
		}
		unwrite(&dst, f & 63, f);
		left = kflush_copy_safe(map + PAGE - f, src, n);
		if (left != n - f || memcmp(map + PAGE - f, src, f)) {
			cr_log_error("destination: f=%zu returned %zu, want %zu", f, left, n - f);
			ok = 0;
		}
	}
	cr_assert(ok, "wrong count or bytes across a poisoned page (see the log)");
	tu_area_free(&dst);
}
