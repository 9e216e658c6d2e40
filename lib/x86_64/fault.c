// SPDX-License-Identifier: MIT
/*
 * The SIGSEGV/SIGBUS handler that turns a fault inside copy_safe.S into a
 * short count, the way the kernel's fixups turn one into -EFAULT, and the
 * exception table lookup behind it.
 *
 * The handler is installed by the first copy (copy_safe_entry.c), not when the
 * library is loaded: JVMs, Go runtimes, sanitizers and crash reporters
 * own SIGSEGV, and a program that never copies must see no change. Once
 * installed it is as transparent as a handler can be: any fault that is
 * not ours goes to the disposition that was there before, with that
 * disposition's mask and flags, or to the default action with the
 * original signal.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"
#include "x86_64/extable.h"
#include "x86_64/fault.h"

int kflush_fault_state;
__thread struct fault_frame *kflush_fault_frame __attribute__((tls_model("initial-exec")));

static const void *extable_fixup(uintptr_t ip)
{
	const struct kflush_extable_entry *e;

	/* A few dozen entries: a linear scan beats sorting them at load. */
	for (e = KFLUSH_EXTABLE_START; e < KFLUSH_EXTABLE_STOP; e++) {
		if ((uintptr_t)&e->insn + e->insn == ip)
			return (const void *)((uintptr_t)&e->fixup + e->fixup);
	}
	return NULL;
}

/* A fault the hardware raised on the interrupted instruction: it recurs. */
static int refaults(int sig, const siginfo_t *info)
{
	return info && info->si_code > 0 && !(sig == SIGBUS && info->si_code == BUS_MCEERR_AO);
}

#ifdef KFLUSH_TEST_EARLY_STOP
/*
 * Test builds only (tests/local.mk): act like a CPU whose rep movsb
 * reports a fault before the last byte it could have copied, by moving
 * rcx/rsi/rdi back to the start of the destination's cache line (at
 * least one byte, never before the start of the copy; rdx still holds n
 * in both rep movsb variants). The bytes in between stay copied, as the
 * hardware may leave them. Only the byte retry after the fixup can then
 * make the count exact.
 */
unsigned long kflush_test_early_stops;

static void stop_early(greg_t *r)
{
	const unsigned char *ip = (const unsigned char *)(uintptr_t)r[REG_RIP];
	uint64_t done = (uint64_t)(r[REG_RDX] - r[REG_RCX]);
	uint64_t back = (((uint64_t)r[REG_RDI] - 1) & 63) + 1;

	if (ip[0] != 0xf3 || ip[1] != 0xa4 || !done)
		return;
	if (back > done)
		back = done;
	r[REG_RCX] += (greg_t)back;
	r[REG_RSI] -= (greg_t)back;
	r[REG_RDI] -= (greg_t)back;
	__atomic_add_fetch(&kflush_test_early_stops, 1, __ATOMIC_RELAXED);
}
#endif

/* Our handler calls this directly: no PLT, no interposition. */
static int fixup_fault(int sig, siginfo_t *info, void *ucontext)
{
	ucontext_t *uc = ucontext;
	const void *fixup;

	if ((sig != SIGSEGV && sig != SIGBUS) || !info || !uc)
		return 0;
	/*
	 * Only faults the hardware raised: kill(), sigqueue() and friends
	 * (si_code <= 0) may happen to land on a table instruction, and an
	 * asynchronous machine-check report (BUS_MCEERR_AO) is not about the
	 * instruction it interrupted.
	 */
	if (!refaults(sig, info))
		return 0;
	fixup = extable_fixup((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]);
	if (!fixup)
		return 0;
#ifdef KFLUSH_TEST_EARLY_STOP
	stop_early(uc->uc_mcontext.gregs);
#endif
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)fixup;
	return 1;
}

/*
 * A signal the caller had blocked that got through only because a copy
 * unblocked it (struct fault_frame): do what the kernel would have done
 * had the copy not been there. A fault the hardware raised outside the
 * copy would have been forced on the thread with the default action, so
 * restore that and let it recur; anything else would have stayed
 * pending, so keep it for the copy to send again.
 */
static int blocked_by_caller(int sig, const siginfo_t *info)
{
	struct fault_frame *f = kflush_fault_frame;
	struct sigaction dfl;
	int i = sig == SIGSEGV ? 0 : 1;

	if ((sig != SIGSEGV && sig != SIGBUS) || !f || !(f->old & FAULT_SIGBIT(sig)))
		return 0;
	if (refaults(sig, info)) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		return 1;
	}
	if (info) {
		f->info[i] = *info;
	} else {
		memset(&f->info[i], 0, sizeof(f->info[i]));
		f->info[i].si_signo = sig;
		f->info[i].si_code = SI_TKILL;
		f->info[i].si_pid = getpid();
	}
	f->deferred |= FAULT_SIGBIT(sig);
	return 1;
}

/*
 * Back on the queue each signal came from: a tkill()/tgkill() one to this
 * thread, the others to the process. The kernel lets a thread other than
 * the main one forge si_code >= 0 only towards itself, so those fall back
 * to this thread.
 */
void kflush_fault_resend(struct fault_frame *f)
{
	pid_t pid = getpid();
	long tid = syscall(SYS_gettid);

	for (int i = 0; i < 2; i++) {
		int sig = i ? SIGBUS : SIGSEGV;
		siginfo_t *info = &f->info[i];

		if (!(f->deferred & FAULT_SIGBIT(sig)))
			continue;
		if (info->si_code == SI_TKILL ||
		    syscall(SYS_rt_sigqueueinfo, pid, sig, info) != 0)
			syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, info);
	}
}

/**
 * kflush_fault_handler() - redirect a fault taken inside kflush_copy_safe()
 * @sig: the signal number
 * @info: the signal's siginfo
 * @ucontext: the ucontext_t the kernel passed to the handler
 *
 * For applications that install their own SIGSEGV/SIGBUS handler (with
 * SA_SIGINFO) after libkflush's was installed: call this first, and return
 * from the handler at once if it returns 1. Thread-safe and
 * async-signal-safe.
 *
 * Return: 1 if the signal is libkflush's: a fault the hardware raised on
 * one of its fault-safe instructions (execution resumes at the fixup when
 * the handler returns), or a signal the thread had blocked that reached it
 * only because kflush_copy_safe() unblocked it for the copy (kept pending,
 * or, for a fault outside the copy, handed to the default action as the
 * kernel would have). 0 if the signal is someone else's.
 */
KFLUSH_API int kflush_fault_handler(int sig, siginfo_t *info, void *ucontext)
{
	return fixup_fault(sig, info, ucontext) || blocked_by_caller(sig, info);
}

/* What SIGSEGV and SIGBUS did before we took them over. */
static struct sigaction prev_segv, prev_bus;
/* An SA_RESETHAND predecessor already had its one delivery. */
static int prev_segv_spent, prev_bus_spent;

static struct sigaction *prev_of(int sig, int **spent)
{
	*spent = sig == SIGSEGV ? &prev_segv_spent : &prev_bus_spent;
	return sig == SIGSEGV ? &prev_segv : &prev_bus;
}

/*
 * Fall back to the default action. A fault the hardware raised recurs as
 * soon as we return, and then kills with the faulting context intact (a
 * useful core); anything else has to be raised again. SIGSEGV/SIGBUS that
 * were ignored still kill on a real fault, as the kernel would have forced.
 */
static void chain_default(int sig, const siginfo_t *info, int ignored)
{
	struct sigaction dfl;

	if (ignored && !refaults(sig, info))
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (!refaults(sig, info))
		raise(sig);
}

/*
 * Run the previous handler as Linux would have: with its sa_mask and,
 * unless it asked for SA_NODEFER, the signal itself blocked (ours runs with
 * SA_NODEFER so that this is ours to decide), and only once if it was
 * SA_RESETHAND. If it longjmps out, the mask it leaves is the one it would
 * have had if the kernel had called it directly.
 *
 * SIG_DFL and SIG_IGN mean the same with or without SA_SIGINFO (the kernel
 * never looks at the flag for them; sa_handler and sa_sigaction share
 * storage). A handler gets the three arguments whatever its flags, as the
 * kernel passes them on x86-64; only with SA_SIGINFO does it expect them.
 */
static void chain(int sig, siginfo_t *info, void *ucontext)
{
	int *spent;
	const struct sigaction *old = prev_of(sig, &spent);
	sigset_t block, saved;

	if (__atomic_load_n(spent, __ATOMIC_RELAXED) || old->sa_handler == SIG_DFL) {
		chain_default(sig, info, 0);
		return;
	}
	if (old->sa_handler == SIG_IGN) {
		chain_default(sig, info, 1);
		return;
	}
	if (old->sa_flags & SA_RESETHAND)
		__atomic_store_n(spent, 1, __ATOMIC_RELAXED);

	block = old->sa_mask;
	if (!(old->sa_flags & SA_NODEFER))
		sigaddset(&block, sig);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	old->sa_sigaction(sig, info, ucontext);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void handler(int sig, siginfo_t *info, void *ucontext)
{
	int saved_errno = errno;

	if (!fixup_fault(sig, info, ucontext) && !blocked_by_caller(sig, info))
		chain(sig, info, ucontext);
	errno = saved_errno;
}

static int is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == handler;
}

static void install_one(int sig, struct sigaction *prev)
{
	struct sigaction cur, sa;

	/* Already ours: a fork() in the middle of an installation left it so. */
	if (sigaction(sig, NULL, &cur) != 0 || is_ours(&cur))
		return;
	*prev = cur;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sigemptyset(&sa.sa_mask);
	/*
	 * SA_NODEFER: see chain(). SA_RESTART is copied because our flags now
	 * decide whether a call interrupted by a sent SIGSEGV/SIGBUS restarts.
	 * SA_ONSTACK is the previous handler's: the kernel picks the stack
	 * before any handler runs, and one written for the thread's stack
	 * must not find itself on the alternate one, nor one that needs the
	 * alternate stack (a stack overflow) on the overflowed one. With no
	 * previous handler we take it: a copy fault near the end of a stack
	 * is then still recovered, and nothing else runs on that stack.
	 */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | (cur.sa_flags & SA_RESTART);
	if ((cur.sa_flags & SA_ONSTACK) || cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN)
		sa.sa_flags |= SA_ONSTACK;
	sigaction(sig, &sa, NULL);
}

/*
 * The first copy's slow path. Every signal is blocked while it runs, so
 * a handler cannot interrupt an installation and wait on it from the same
 * thread; other threads that arrive meanwhile wait the few microseconds.
 * sigaction() and the mask calls are async-signal-safe, so a first copy
 * from a signal handler is too.
 */
void kflush_fault_install(void)
{
	sigset_t all, saved;
	int expect = FAULT_NONE;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	if (__atomic_compare_exchange_n(&kflush_fault_state, &expect, FAULT_INSTALLING, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		install_one(SIGSEGV, &prev_segv);
		install_one(SIGBUS, &prev_bus);
		__atomic_store_n(&kflush_fault_state, FAULT_INSTALLED, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&kflush_fault_state, __ATOMIC_ACQUIRE) != FAULT_INSTALLED)
			__builtin_ia32_pause();
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* A fork() while another thread installed: the child finishes the job. */
static void fault_atfork_child(void)
{
	if (__atomic_load_n(&kflush_fault_state, __ATOMIC_RELAXED) == FAULT_INSTALLING)
		__atomic_store_n(&kflush_fault_state, FAULT_NONE, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void fault_init(void)
{
	pthread_atfork(NULL, NULL, fault_atfork_child);
}

/*
 * On dlclose() our handler's code goes away: hand the signals back if they
 * are still ours. (A handler installed on top of ours that chains to it is
 * the application's to unwind.)
 */
__attribute__((destructor)) static void fault_uninstall(void)
{
	struct sigaction cur;

	if (__atomic_load_n(&kflush_fault_state, __ATOMIC_ACQUIRE) != FAULT_INSTALLED)
		return;
	if (sigaction(SIGSEGV, NULL, &cur) == 0 && is_ours(&cur))
		sigaction(SIGSEGV, &prev_segv, NULL);
	if (sigaction(SIGBUS, NULL, &cur) == 0 && is_ours(&cur))
		sigaction(SIGBUS, &prev_bus, NULL);
	__atomic_store_n(&kflush_fault_state, FAULT_NONE, __ATOMIC_RELEASE);
}
