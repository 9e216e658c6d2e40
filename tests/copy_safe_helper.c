// SPDX-License-Identifier: MIT
/*
 * Run by test_copy_safe: sets a SIGSEGV disposition first, then dlopen()s
 * libkflush, whose constructor installs its handler on top. Not linked
 * with libkflush, so the order is real. Exit 0 = as expected; a death by
 * signal is what some modes expect; other exit codes say what went wrong.
 *
 *   before     an SA_SIGINFO handler: still gets foreign faults
 *   ignore     SIG_IGN: kill() is still ignored, a real fault still kills
 *   resethand  an SA_RESETHAND handler: gets one fault, the next kills
 *   dlclose    after dlclose() SIGSEGV and SIGBUS are SIG_DFL again
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
#endif

typedef size_t (*copy_safe_fn)(void *, const void *, size_t);

static sigjmp_buf jmp;
static volatile sig_atomic_t calls;

static void app_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
	calls++;
	siglongjmp(jmp, 1);
}

static void set_handler(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}

/* Touch an address that faults outside libkflush; 1 if the handler ran. */
static int foreign_fault(volatile unsigned char *bad)
{
	if (!sigsetjmp(jmp, 1)) {
		*bad = 1;
		return 0;
	}
	return 1;
}

static int is_default(int sig)
{
	struct sigaction cur;

	return sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
	       cur.sa_handler == SIG_DFL;
}

int main(int argc, char **argv)
{
	unsigned char *page, dst[64];
	const char *mode = argc > 1 ? argv[1] : "";
	copy_safe_fn copy;
	void *lib;

	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE))
		return 10;
	if (!strcmp(mode, "before"))
		set_handler(0);
	else if (!strcmp(mode, "resethand"))
		set_handler(SA_RESETHAND);
	else if (!strcmp(mode, "ignore"))
		signal(SIGSEGV, SIG_IGN);
	else if (strcmp(mode, "dlclose"))
		return 11;

	lib = dlopen(LIBKFLUSH_SO, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 12;
	}
	copy = (copy_safe_fn)dlsym(lib, "kflush_copy_safe");
	if (!copy || copy(dst, page + 4096 - 10, 64) != 54)
		return 13;
	if (calls)
		return 14;

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
