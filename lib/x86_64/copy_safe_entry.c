// SPDX-License-Identifier: MIT
/*
 * Fault-safe copy: the registry entry and the C side of every variant.
 *
 * copy_safe.S does the copying; a fault in it only becomes a short count
 * if our SIGSEGV/SIGBUS handler gets to run. Two things can stop it, and
 * every variant's wrapper here deals with both before it copies:
 *
 * - The handler is installed on first need, by the first copy (the bound
 *   entry point or a variant from kflush_variant_fn()), not when the
 *   library is loaded: a program that never copies keeps its dispositions
 *   untouched. After that the test is one load and a predicted branch.
 *
 * - A blocked SIGSEGV/SIGBUS is not delivered: the kernel resets it to
 *   SIG_DFL and kills (force_sig_fault()). So every call reads the
 *   thread's mask (one rt_sigprocmask() that changes nothing) and, only if
 *   the caller blocks either signal, unblocks both for the copy and puts
 *   the mask back after it. Reading first, rather than unblocking
 *   unconditionally, keeps the common path to one syscall that changes
 *   nothing, and lets the rare path say beforehand (struct fault_frame)
 *   that whatever the unblocking lets through was blocked by the caller.
 *
 * Raw syscalls: no errno, no libc wrapper that a sanitizer intercepts, and
 * all of it async-signal-safe.
 */
#include <stddef.h>
#include <sys/syscall.h>

#include "internal.h"
#include "x86_64/extable.h"
#include "x86_64/fault.h"

KFLUSH_IMPLS(kflush_copy_safe,
	KFLUSH_IMPL("rep_movsb", KFLUSH_CPU_FSRM, 0, copy_safe_rep_movsb),
	KFLUSH_IMPL("erms", KFLUSH_CPU_ERMS, 0, copy_safe_erms),
	KFLUSH_IMPL("movsq_tail_overlap", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_overlap),
	KFLUSH_IMPL("movsq_tail_linus", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_linus),
	KFLUSH_IMPL("movsq_tail_first", 0, KFLUSH_IMPL_NO_BIND, copy_safe_movsq_tail_first),
	KFLUSH_IMPL("movsq", 0, 0, copy_safe_movsq),
);

typedef size_t (*copy_fn)(void *dst, const void *src, size_t n);

static inline long sigprocmask_raw(int how, const uint64_t *set, uint64_t *old)
{
	register long r10 __asm__("r10") = sizeof(uint64_t);
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_rt_sigprocmask), "D"((long)how), "S"(set), "d"(old),
			   "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * The caller blocks SIGSEGV or SIGBUS. The frame goes up before the
 * signals are unblocked (a pending one arrives the moment they are) and
 * comes down only after the mask is back, so the handler sees it for
 * every signal this window lets through. Whatever it kept is sent again
 * once the signals are blocked again, and stays pending as before.
 */
static __attribute__((noinline)) size_t copy_unblocked(copy_fn copy, void *dst,
							const void *src, size_t n, uint64_t old)
{
	static const uint64_t fault_sigs = FAULT_SIGS;
	struct fault_frame f;
	size_t left;

	f.old = old;
	f.deferred = 0;
	f.prev = kflush_fault_frame;
	kflush_fault_frame = &f;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sigprocmask_raw(SIG_UNBLOCK, &fault_sigs, NULL);
	left = copy(dst, src, n);
	sigprocmask_raw(SIG_SETMASK, &f.old, NULL);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	kflush_fault_frame = f.prev;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (f.deferred)
		kflush_fault_resend(&f);
	return left;
}

static inline __attribute__((always_inline)) size_t copy_window(copy_fn copy, void *dst,
								 const void *src, size_t n)
{
	uint64_t old = 0;

	if (__builtin_expect(__atomic_load_n(&kflush_fault_state, __ATOMIC_ACQUIRE) !=
			     FAULT_INSTALLED, 0))
		kflush_fault_install();
	sigprocmask_raw(SIG_BLOCK, NULL, &old);
	if (__builtin_expect(old & FAULT_SIGS, 0))
		return copy_unblocked(copy, dst, src, n, old);
	return copy(dst, src, n);
}

/*
 * Each wrapper starts a cache line, so that the variants differ only in
 * their copy: their placement alone moved a call by 3 %. On Intel family 6
 * model 0xa7, copy-bench copy-safe (11 rounds, CPU time, each variant in
 * a run of its own), erms took 1.03-1.04x rep_movsb's time at every size
 * with its wrapper at ...d0 and rep_movsb's at ...40, 0.96-0.98x with the
 * two swapped, and 1.00-1.02x with both 64-byte aligned (three runs
 * each); libkflush(7) had recorded the 3 % in both directions.
 */
#define COPY_SAFE_WRAPPER(name)						\
	__attribute__((aligned(64)))					\
	size_t name(void *dst, const void *src, size_t n)		\
	{								\
		return copy_window(name##_asm, dst, src, n);		\
	}

COPY_SAFE_WRAPPER(copy_safe_rep_movsb)
COPY_SAFE_WRAPPER(copy_safe_erms)
COPY_SAFE_WRAPPER(copy_safe_movsq_tail_overlap)
COPY_SAFE_WRAPPER(copy_safe_movsq_tail_linus)
COPY_SAFE_WRAPPER(copy_safe_movsq_tail_first)
COPY_SAFE_WRAPPER(copy_safe_movsq)

/**
 * kflush_copy_safe() - copy, surviving faults on either buffer
 * @dst: destination
 * @src: source
 * @n: bytes to copy
 *
 * Copies like the kernel's copy_from_user(): a SIGSEGV or SIGBUS on a
 * source or destination byte stops the copy there, whatever the calling
 * thread's signal mask. The first call installs the library's handler.
 * Does not fence. Thread-safe and async-signal-safe.
 *
 * Return: the number of bytes not copied, 0 on success; after a fault every
 * byte before the faulting one has been copied and none after it.
 */
KFLUSH_API size_t kflush_copy_safe(void *dst, const void *src, size_t n)
{
	return KFLUSH_BOUND(KFLUSH_OP_COPY_SAFE, kflush_copy_safe_fn)(dst, src, n);
}
