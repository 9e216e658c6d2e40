// SPDX-License-Identifier: MIT
/*
 * Run by test_copy_safe and test_copy_safe_signals: sets a SIGSEGV
 * disposition, dlopen()s libkflush (not linked with it, so the order is
 * real), and checks what a foreign fault does. Exit 0 = as expected; a
 * death by signal is what some modes expect; other exit codes say what
 * went wrong.
 *
 *   before      an SA_SIGINFO handler: still gets foreign faults
 *   ignore      SIG_IGN: kill() is still ignored, a real fault still kills
 *   resethand   an SA_RESETHAND handler: gets one fault, the next kills
 *   dlclose     after dlclose() SIGSEGV and SIGBUS are SIG_DFL again
 *   after-load  a handler set after dlopen() but before the first copy
 *               is chained like one set before
 *   variant     the first call is a variant from kflush_variant_fn()
 *   untouched   dlopen() and calls that are not copies leave both
 *               dispositions exactly as they were
 *   onstack, noonstack
 *               the thread has an alternate stack; the previous handler,
 *               installed with or without SA_ONSTACK, runs where the
 *               kernel would have run it
 *   hwcaps-setenv
 *               (for test_cpu: the one program here that dlopen()s the
 *               library) KFLUSH_HWCAPS set with setenv() after the start
 *               masks the features: a library loaded late reads environ,
 *               not the environment the process started with
 *   restart, norestart
 *               the library's handler keeps the previous one's SA_RESTART
 *               (its flags now decide whether a call a sent SIGSEGV
 *               interrupts restarts)
 *   chain-<dfl|ign|handler|action>[-si|-nosi]
 *               the previous disposition, with or without SA_SIGINFO;
 *               prints "<copy fault addr> <foreign fault addr>" first so
 *               that a tracer can check every SIGSEGV it sees
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kflush.h>

#ifdef __SANITIZE_ADDRESS__
/* No leak check: LeakSanitizer ptrace()s the process, which fails when traced. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_leaks=0";
}
#endif

static sigjmp_buf jmp;
static volatile sig_atomic_t calls, jump_armed, on_alt;
static siginfo_t last_info;
static volatile sig_atomic_t last_sig;
static unsigned char altstack[1 << 16];

/* The stack a handler runs on: is this frame inside altstack? */
static void note_stack(void)
{
	unsigned char here;

	on_alt = &here >= altstack && &here < altstack + sizeof(altstack);
}

static void app_action(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	calls++;
	last_sig = sig;
	if (info)
		last_info = *info;
	note_stack();
	if (jump_armed)
		siglongjmp(jmp, 1);
}

static void app_handler(int sig)
{
	calls++;
	last_sig = sig;
	note_stack();
	if (jump_armed)
		siglongjmp(jmp, 1);
}

static void set_action(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_action;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}

/* Touch an address that faults outside libkflush; 1 if a handler jumped back. */
static int foreign_fault(volatile unsigned char *bad)
{
	if (!sigsetjmp(jmp, 1)) {
		jump_armed = 1;
		*bad = 1;
		jump_armed = 0;
		return 0;
	}
	jump_armed = 0;
	return 1;
}

static int is_default(int sig)
{
	struct sigaction cur;

	return sigaction(sig, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL;
}

/* sigaction() fills only the kernel's part of a sigset_t: compare members. */
static int same_action(const struct sigaction *a, const struct sigaction *b)
{
	if (a->sa_handler != b->sa_handler || a->sa_flags != b->sa_flags)
		return 0;
	for (int sig = 1; sig < 65; sig++)
		if (sigismember(&a->sa_mask, sig) != sigismember(&b->sa_mask, sig))
			return 0;
	return 1;
}

static void *lib;

static void *sym(const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, "copy_safe_helper: %s: %s\n", name, dlerror());
		exit(12);
	}
	return p;
}

static void load(void)
{
	lib = dlopen(LIBKFLUSH_SO, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		exit(12);
	}
}

/* Dispositions before loading, after, and after calls that are not copies. */
static int untouched(void)
{
	struct sigaction segv, bus, cur;
	unsigned char a[64], b[64];

	memset(&segv, 0, sizeof(segv));
	segv.sa_sigaction = app_action;
	segv.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&segv.sa_mask);
	sigaddset(&segv.sa_mask, SIGUSR1);
	sigaction(SIGSEGV, &segv, NULL);
	signal(SIGBUS, SIG_IGN);
	sigaction(SIGSEGV, NULL, &segv);
	sigaction(SIGBUS, NULL, &bus);
	load();
	memset(b, 1, sizeof(b));
	((void *(*)(void *, const void *, size_t))sym("kflush_memcpy"))(a, b, sizeof(a));
	((int (*)(enum kflush_op, const char *))sym("kflush_variant_find"))(KFLUSH_OP_COPY_SAFE,
									   "movsq");
	if (sigaction(SIGSEGV, NULL, &cur) || !same_action(&cur, &segv))
		return 20;
	if (sigaction(SIGBUS, NULL, &cur) || !same_action(&cur, &bus))
		return 21;
	dlclose(lib);
	if (sigaction(SIGSEGV, NULL, &cur) || !same_action(&cur, &segv))
		return 22;
	return 0;
}

/*
 * The previous disposition of a chain-* mode. The expectations are the
 * kernel's: SIG_DFL and SIG_IGN mean the same with or without SA_SIGINFO;
 * a handler gets siginfo only with it.
 */
static int chain(const char *how, unsigned char *copy_bad, unsigned char *bad)
{
	int si = strstr(how, "-si") != NULL, nosi = strstr(how, "-nosi") != NULL;
	struct sigaction sa;
	kflush_copy_safe_fn copy;
	unsigned char dst[64];

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (!strncmp(how, "dfl", 3))
		sa.sa_handler = SIG_DFL;
	else if (!strncmp(how, "ign", 3))
		sa.sa_handler = SIG_IGN;
	else if (!strncmp(how, "handler", 7))
		sa.sa_handler = app_handler;
	else if (!strncmp(how, "action", 6))
		sa.sa_sigaction = app_action, si = !nosi;
	else
		return 11;
	sa.sa_flags = si ? SA_SIGINFO : 0;
	/* Only an SA_SIGINFO app_action records what siginfo it got. */
	si = si && sa.sa_sigaction == app_action;
	if (sigaction(SIGSEGV, &sa, NULL))
		return 10;
	printf("%p %p\n", (void *)copy_bad, (void *)bad);
	fflush(stdout);
	load();
	copy = (kflush_copy_safe_fn)sym("kflush_copy_safe");
	if (copy(dst, copy_bad - 10, 64) != 54)
		return 13;
	if (calls)
		return 14;
	if (sa.sa_handler != SIG_DFL)
		kill(getpid(), SIGSEGV);	/* ignored or handled */
	if (sa.sa_handler == SIG_IGN && calls)
		return 30;
	if (sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL &&
	    (calls != 1 || last_sig != SIGSEGV || (si && last_info.si_code != SI_USER)))
		return 31;
	if (!foreign_fault(bad))
		return 32;		/* dfl/ign: the fault kills before this */
	if (calls != 2 || last_sig != SIGSEGV)
		return 33;
	if (si && (last_info.si_code <= 0 || last_info.si_addr != (void *)bad))
		return 34;
	return 0;
}

static int onstack(int flags)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	unsigned char dst[64], *page = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED || mprotect(page + 4096, 2 * 4096, PROT_NONE) ||
	    sigaltstack(&ss, NULL))
		return 10;
	set_action(flags);
	load();
	if (((kflush_copy_safe_fn)sym("kflush_copy_safe"))(dst, page + 4096 - 10, 64) != 54)
		return 13;
	if (!foreign_fault(page + 2 * 4096) || calls != 1)
		return 17;
	return on_alt == !!(flags & SA_ONSTACK) ? 0 : 40 + on_alt;
}

static int hwcaps_setenv(void)
{
	const uint64_t masked = KFLUSH_CPU_AVX2 | KFLUSH_CPU_AVX512F | KFLUSH_CPU_MOVDIR64B;
	int b;

	/* Only setenv() may put it there: not in the environment the kernel gave. */
	if (getenv("KFLUSH_HWCAPS"))
		return 11;
	if (setenv("KFLUSH_HWCAPS", "-avx2,-avx512f,-movdir64b", 1))
		return 10;
	load();
	if (((uint64_t (*)(void))sym("kflush_cpu_features"))() & masked)
		return 60;
	b = ((int (*)(enum kflush_op))sym("kflush_variant_bound"))(KFLUSH_OP_MEMCPY_FLUSHCACHE);
	if (b < 0 || ((uint64_t (*)(enum kflush_op, unsigned int))sym("kflush_variant_requires"))(
			     KFLUSH_OP_MEMCPY_FLUSHCACHE, (unsigned int)b) & masked)
		return 61;
	return 0;
}

static int restart(int flags)
{
	unsigned char dst[64], *page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction cur;

	if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE))
		return 10;
	set_action(flags);
	load();
	if (((kflush_copy_safe_fn)sym("kflush_copy_safe"))(dst, page + 4096 - 10, 64) != 54)
		return 13;
	if (sigaction(SIGSEGV, NULL, &cur) || cur.sa_sigaction == app_action ||
	    !(cur.sa_flags & SA_SIGINFO))
		return 50;	/* the library's handler is not in place */
	return (cur.sa_flags & SA_RESTART) == (flags & SA_RESTART) ? 0 : 51;
}

int main(int argc, char **argv)
{
	unsigned char *page, dst[64];
	const char *mode = argc > 1 ? argv[1] : "";
	kflush_copy_safe_fn copy;

	alarm(60);	/* a fault that loops must not hang the suite */
	page = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page + 4096, 2 * 4096, PROT_NONE))
		return 10;
	if (!strncmp(mode, "chain-", 6))
		return chain(mode + 6, page + 4096, page + 2 * 4096);
	if (!strcmp(mode, "untouched"))
		return untouched();
	if (!strcmp(mode, "onstack"))
		return onstack(SA_ONSTACK);
	if (!strcmp(mode, "noonstack"))
		return onstack(0);
	if (!strcmp(mode, "hwcaps-setenv"))
		return hwcaps_setenv();
	if (!strcmp(mode, "restart"))
		return restart(SA_RESTART);
	if (!strcmp(mode, "norestart"))
		return restart(0);
	if (!strcmp(mode, "before"))
		set_action(0);
	else if (!strcmp(mode, "resethand"))
		set_action(SA_RESETHAND);
	else if (!strcmp(mode, "ignore"))
		signal(SIGSEGV, SIG_IGN);
	else if (strcmp(mode, "dlclose") && strcmp(mode, "after-load") && strcmp(mode, "variant"))
		return 11;

	load();
	if (!strcmp(mode, "after-load"))
		set_action(0);
	copy = (kflush_copy_safe_fn)sym("kflush_copy_safe");
	if (!strcmp(mode, "variant")) {
		int idx = ((int (*)(enum kflush_op, const char *))sym("kflush_variant_find"))(
			KFLUSH_OP_COPY_SAFE, "movsq");

		copy = idx < 0 ? NULL : (kflush_copy_safe_fn)((kflush_fn (*)(enum kflush_op,
			unsigned int))sym("kflush_variant_fn"))(KFLUSH_OP_COPY_SAFE, (unsigned int)idx);
		if (!copy)
			return 12;
	}
	if (copy(dst, page + 4096 - 10, 64) != 54)
		return 13;
	if (calls)
		return 14;
	if (!strcmp(mode, "variant"))
		return copy(page + 4096 - 3, dst, 64) == 61 ? 0 : 18;

	if (!strcmp(mode, "dlclose")) {
		dlclose(lib);
		return is_default(SIGSEGV) && is_default(SIGBUS) ? 0 : 15;
	}
	if (!strcmp(mode, "ignore")) {
		kill(getpid(), SIGSEGV);	/* must be ignored */
		foreign_fault(page + 4096);	/* must kill */
		return 16;
	}
	if (!foreign_fault(page + 4096) || calls != 1)
		return 17;
	if (copy(page + 4096 - 3, dst, 64) != 61)
		return 18;
	if (!strcmp(mode, "resethand")) {
		foreign_fault(page + 4096);	/* one-shot: must kill */
		return 19;
	}
	return 0;
}
