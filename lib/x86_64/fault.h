/* SPDX-License-Identifier: MIT */
/*
 * Between copy_safe_entry.c (the entry points and the signal mask they need) and
 * fault.c (the handler): the lazy installation and the record a copy keeps
 * while it has SIGSEGV/SIGBUS unblocked on behalf of a caller that had
 * them blocked.
 */
#ifndef KFLUSH_X86_FAULT_H
#define KFLUSH_X86_FAULT_H

#include <signal.h>
#include <stdint.h>

/* Kernel sigset bits (signal n is bit n - 1): what a copy needs deliverable. */
#define FAULT_SIGBIT(sig)	(1ULL << ((sig) - 1))
#define FAULT_SIGS		(FAULT_SIGBIT(SIGSEGV) | FAULT_SIGBIT(SIGBUS))

/* kflush_fault_state: the handler is not installed, being installed, installed. */
enum { FAULT_NONE, FAULT_INSTALLING, FAULT_INSTALLED };
extern int kflush_fault_state;

/* Install the handler if no one has yet; returns once it is installed. */
void kflush_fault_install(void);

/*
 * A copy whose caller had SIGSEGV or SIGBUS blocked runs with them
 * unblocked and publishes one of these first (innermost last, linked
 * through prev), so that the handler treats any signal the caller had
 * blocked as the kernel would have: an asynchronous one is kept here and
 * sent again once the mask is back (deferred, info), a fault outside the
 * copy kills (see fault.c).
 */
struct fault_frame {
	uint64_t old;		/* the caller's mask, kernel sigset layout */
	uint64_t deferred;	/* FAULT_SIGBIT()s of the signals kept */
	siginfo_t info[2];	/* SIGSEGV's, SIGBUS's */
	struct fault_frame *prev;
};

/* Initial-exec: a handler may read it; no lazy TLS allocation there. */
extern __thread struct fault_frame *kflush_fault_frame
	__attribute__((tls_model("initial-exec")));

/* Send again what a frame kept, once its mask has been restored. */
void kflush_fault_resend(struct fault_frame *f);

/* The wrappers the registry hands out (copy_safe_entry.c). */
size_t copy_safe_rep_movsb(void *dst, const void *src, size_t n);
size_t copy_safe_erms(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_overlap(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_linus(void *dst, const void *src, size_t n);
size_t copy_safe_movsq_tail_first(void *dst, const void *src, size_t n);

#endif /* KFLUSH_X86_FAULT_H */
