// SPDX-License-Identifier: MIT
/*
 * Fault-safe copy: the registry entry, the exception table lookup and the
 * SIGSEGV/SIGBUS handler that turns a fault inside copy_safe.S into a
 * short count, the way the kernel's fixups turn one into -EFAULT.
 *
 * The handler is installed by a constructor, when the library is loaded,
 * rather than on the first kflush_copy_safe() call: then every entry point
 * is fault-safe from the start, the variants the registry hands out
 * included, with no per-call "installed yet?" test (the registry's rule).
 * That is a process-wide change made on the application's behalf, so it is
 * made as transparent as a handler can be: any fault that is not ours goes
 * to the disposition that was there before, with that disposition's mask
 * and flags, or to the default action with the original signal.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "internal.h"
#include "x86_64/extable.h"

KFLUSH_IMPLS(kflush_copy_safe,
	KFLUSH_IMPL("rep_movsb", KFLUSH_CPU_FSRM, 0, copy_safe_rep_movsb),
	KFLUSH_IMPL("erms", KFLUSH_CPU_ERMS, 0, copy_safe_erms),
	KFLUSH_IMPL("movsq_tail_overlap", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_overlap),
	KFLUSH_IMPL("movsq_tail_linus", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_linus),
	KFLUSH_IMPL("movsq_tail_first", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_first),
	KFLUSH_IMPL("movsq", 0, 0, copy_safe_movsq),
);

/**
 * kflush_copy_safe() - copy, surviving faults on either buffer
 * @dst: destination
 * @src: source
 * @n: bytes to copy
 *
 * Copies like the kernel's copy_from_user(): a SIGSEGV or SIGBUS on a
 * source or destination byte stops the copy there. Does not fence.
 *
 * Return: the number of bytes not copied, 0 on success; after a fault every
 * byte before the faulting one has been copied and none after it.
 */
KFLUSH_API size_t kflush_copy_safe(void *dst, const void *src, size_t n)
{
	return KFLUSH_BOUND(KFLUSH_OP_COPY_SAFE, kflush_copy_safe_fn)(dst, src, n);
}

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
	if (info->si_code <= 0 || (sig == SIGBUS && info->si_code == BUS_MCEERR_AO))
		return 0;
	fixup = extable_fixup((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]);
	if (!fixup)
		return 0;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)fixup;
	return 1;
}

/**
 * kflush_fault_handler() - redirect a fault taken inside kflush_copy_safe()
 * @sig: the signal number
 * @info: the signal's siginfo
 * @ucontext: the ucontext_t the kernel passed to the handler
 *
 * For applications that install their own SIGSEGV/SIGBUS handler (with
 * SA_SIGINFO) after libkflush was loaded: call this first, and return from
 * the handler at once if it returns 1. Async-signal-safe.
 *
 * Return: 1 if the fault was raised by the hardware on one of libkflush's
 * fault-safe instructions and execution now resumes at its fixup when the
 * handler returns; 0 if the fault is someone else's.
 */
KFLUSH_API int kflush_fault_handler(int sig, siginfo_t *info, void *ucontext)
{
	return fixup_fault(sig, info, ucontext);
}

/* What SIGSEGV and SIGBUS did before we took them over. */
static struct sigaction prev_segv, prev_bus;
/* An SA_RESETHAND predecessor already had its one delivery. */
static int prev_segv_spent, prev_bus_spent;
static int installed;

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
	int refaults = info && info->si_code > 0 &&
		       !(sig == SIGBUS && info->si_code == BUS_MCEERR_AO);

	if (ignored && !refaults)
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (!refaults)
		raise(sig);
}

/*
 * Run the previous handler as Linux would have: with its sa_mask and,
 * unless it asked for SA_NODEFER, the signal itself blocked (ours runs with
 * SA_NODEFER so that this is ours to decide), and only once if it was
 * SA_RESETHAND. If it longjmps out, the mask it leaves is the one it would
 * have had if the kernel had called it directly.
 */
static void chain(int sig, siginfo_t *info, void *ucontext)
{
	int *spent;
	const struct sigaction *old = prev_of(sig, &spent);
	sigset_t block, saved;

	if (__atomic_load_n(spent, __ATOMIC_RELAXED) ||
	    (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_DFL)) {
		chain_default(sig, info, 0);
		return;
	}
	if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN) {
		chain_default(sig, info, 1);
		return;
	}
	if (old->sa_flags & SA_RESETHAND)
		__atomic_store_n(spent, 1, __ATOMIC_RELAXED);

	block = old->sa_mask;
	if (!(old->sa_flags & SA_NODEFER))
		sigaddset(&block, sig);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, info, ucontext);
	else
		old->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void handler(int sig, siginfo_t *info, void *ucontext)
{
	int saved_errno = errno;

	if (!fixup_fault(sig, info, ucontext))
		chain(sig, info, ucontext);
	errno = saved_errno;
}

static void install_one(int sig, struct sigaction *prev)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, prev) != 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sigemptyset(&sa.sa_mask);
	/*
	 * SA_ONSTACK: a stack overflow must still reach a predecessor that
	 * relies on the thread's alternate stack. SA_NODEFER: see chain().
	 * SA_RESTART is copied because our flags now decide whether a call
	 * interrupted by a sent SIGSEGV/SIGBUS restarts.
	 */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | (prev->sa_flags & SA_RESTART);
	sigaction(sig, &sa, NULL);
}

__attribute__((constructor)) static void fault_install(void)
{
	install_one(SIGSEGV, &prev_segv);
	install_one(SIGBUS, &prev_bus);
	installed = 1;
}

/*
 * On dlclose() our handler's code goes away: hand the signals back if they
 * are still ours. (A handler installed on top of ours that chains to it is
 * the application's to unwind.)
 */
__attribute__((destructor)) static void fault_uninstall(void)
{
	struct sigaction cur;

	if (!installed)
		return;
	if (sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == handler)
		sigaction(SIGSEGV, &prev_segv, NULL);
	if (sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == handler)
		sigaction(SIGBUS, &prev_bus, NULL);
	installed = 0;
}
