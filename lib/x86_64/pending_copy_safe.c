// SPDX-License-Identifier: MIT
/* TEMPORARY scaffolding: replaced by copy_safe.S + fault.c (issue 3). It does
 * not survive faults; it must not survive into a release. */
#include "x86_64/flush.h"

size_t copy_safe_movsq(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	return 0;
}

KFLUSH_IMPLS(kflush_copy_safe, KFLUSH_IMPL("movsq", 0, 0, copy_safe_movsq));

KFLUSH_API size_t kflush_copy_safe(void *dst, const void *src, size_t n)
{
	return KFLUSH_BOUND(KFLUSH_OP_COPY_SAFE, kflush_copy_safe_fn)(dst, src, n);
}

KFLUSH_API int kflush_fault_handler(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	return 0;
}
