// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

#include "tracer.h"

#define EXIT_NO_PTRACE 42
/* Below the child's own frames and the red zone; room for the callee. */
#define FRAME_GAP 4096
#define STACK_SPAN (1u << 20)
/* A runaway call (a loop that never ends) fails instead of hanging the suite. */
#define MAX_STEPS (20u * 1000 * 1000)

/* Decoded instructions by address: loops cost one decode per instruction. */
#define CACHE_SLOTS 8192
static struct td_insn cache[CACHE_SLOTS];
static unsigned char cache_used[CACHE_SLOTS];

/* Never executed: the traced call's return address, recognised before it runs. */
static void landing(void)
{
	abort();
}

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

int tt_start(struct tt_tracer *t, char *why, size_t whylen)
{
	int st;

	memset(t, 0, sizeof(*t));
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND) {
		say(why, whylen, "under valgrind, which cannot single-step a traced child");
		return 1;
	}
#endif
	if (td_open())
		return -1;
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		say(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (t->pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(EXIT_NO_PTRACE);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(t->pid, &st, 0) != t->pid) {
		say(why, whylen, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_NO_PTRACE) {
		say(why, whylen, "ptrace(PTRACE_TRACEME) is not permitted here");
		t->pid = 0;
		return 1;
	}
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		say(why, whylen, "tracee did not stop (status %#x)", st);
		tt_stop(t);
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)PTRACE_O_EXITKILL) != 0 ||
	    ptrace(PTRACE_GETREGS, t->pid, NULL, &t->base) != 0) {
		say(why, whylen, "ptrace: %s", strerror(errno));
		tt_stop(t);
		return 1;
	}
	t->entry_rsp = ((t->base.rsp - FRAME_GAP) & ~(uint64_t)15) - 8;
	return 0;
}

void tt_stop(struct tt_tracer *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	t->pid = 0;
}

void tt_stack(const struct tt_tracer *t, uint64_t *lo, uint64_t *hi)
{
	*lo = t->entry_rsp - STACK_SPAN;
	*hi = t->entry_rsp + 8;
}

/*
 * The code is the parent's own: the child is a fork that never changed it.
 * Near a page end the next page may be unmapped, so read what the child
 * has there word by word.
 */
static const struct td_insn *decode_at(pid_t pid, uint64_t rip)
{
	size_t slot = (rip ^ (rip >> 13)) % CACHE_SLOTS;
	uint8_t buf[24];
	size_t avail = 16;

	if (cache_used[slot] && cache[slot].rip == rip)
		return &cache[slot];
	if (4096 - (rip & 4095) >= 16) {
		memcpy(buf, (const void *)(uintptr_t)rip, 16);
	} else {
		uint64_t w0 = rip & ~7ULL;

		avail = 0;
		for (uint64_t w = w0; w < rip + 16; w += 8) {
			long v;

			errno = 0;
			v = ptrace(PTRACE_PEEKTEXT, pid, (void *)w, NULL);
			if (errno)
				break;
			memcpy(buf + (w - w0), &v, 8);
			avail = w + 8 - rip;
		}
		memmove(buf, buf + (rip - w0), avail > 16 ? 16 : avail);
		if (avail > 16)
			avail = 16;
	}
	td_decode(buf, avail, rip, &cache[slot]);
	cache_used[slot] = 1;
	return &cache[slot];
}

/* The opmask registers, from the XSAVE area's AVX-512 component 5. */
static int read_opmask(pid_t pid, struct td_regs *r)
{
	static unsigned int off;
	static unsigned char xs[16384] __attribute__((aligned(64)));
	struct iovec iov = { xs, sizeof(xs) };
	unsigned int a, b, c, d;
	uint64_t bv;

	if (!off) {
		if (!__get_cpuid_count(0xd, 5, &a, &b, &c, &d) || a < 64)
			return -1;
		off = b;
	}
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) != 0 ||
	    iov.iov_len < 520)
		return -1;
	memcpy(&bv, xs + 512, sizeof(bv));
	if (!(bv & (1u << 5))) {
		memset(r->k, 0, sizeof(r->k));	/* init state: all zero */
	} else {
		if (off + 64 > iov.iov_len)
			return -1;
		memcpy(r->k, xs + off, sizeof(r->k));
	}
	r->have_k = 1;
	return 0;
}

static int step(pid_t pid, char *err, size_t errlen)
{
	int st;

	if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0 || waitpid(pid, &st, 0) != pid) {
		say(err, errlen, "single-step: %s", strerror(errno));
		return -1;
	}
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		say(err, errlen, "tracee %s %d", WIFSTOPPED(st) ? "got signal" : "ended, status",
		    WIFSTOPPED(st) ? WSTOPSIG(st) : st);
		return -1;
	}
	return 0;
}

/*
 * The registers the System V ABI has a callee preserve, each given a value
 * of its own before the call: the assembly routines (copy_page_mov keeps
 * two lines in rbx and r12) are only as right as their pushes and pops,
 * and no sanitizer or byte check of the copy sees a caller's register go.
 */
static const struct {
	const char *name;
	size_t off;
} callee_saved[] = {
	{ "rbx", offsetof(struct user_regs_struct, rbx) },
	{ "rbp", offsetof(struct user_regs_struct, rbp) },
	{ "r12", offsetof(struct user_regs_struct, r12) },
	{ "r13", offsetof(struct user_regs_struct, r13) },
	{ "r14", offsetof(struct user_regs_struct, r14) },
	{ "r15", offsetof(struct user_regs_struct, r15) },
};
#define NR_CALLEE_SAVED (sizeof(callee_saved) / sizeof(callee_saved[0]))
#define EFLAGS_DF (1u << 10)

static unsigned long long *reg_at(struct user_regs_struct *r, size_t i)
{
	return (unsigned long long *)(void *)((char *)r + callee_saved[i].off);
}

/* At the return: each callee-saved register as the call found it, DF clear. */
static int abi_kept(struct user_regs_struct *at_entry, struct user_regs_struct *at_return,
		    char *err, size_t errlen)
{
	for (size_t i = 0; i < NR_CALLEE_SAVED; i++)
		if (*reg_at(at_return, i) != *reg_at(at_entry, i)) {
			say(err, errlen, "returned with %s %#llx, not the caller's %#llx "
			    "(a callee-saved register)", callee_saved[i].name,
			    *reg_at(at_return, i), *reg_at(at_entry, i));
			return 0;
		}
	if (at_return->eflags & EFLAGS_DF) {
		say(err, errlen, "returned with the direction flag set");
		return 0;
	}
	return 1;
}

int tt_call(struct tt_tracer *t, const void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
	    tt_sink sink, void *ctx, char *err, size_t errlen)
{
	struct td_regs cur = { .r = t->base };
	struct user_regs_struct after, entry;
	uint64_t ret = (uint64_t)(uintptr_t)landing;

	if (ptrace(PTRACE_POKEDATA, t->pid, (void *)t->entry_rsp, (void *)ret) != 0) {
		say(err, errlen, "poke return address: %s", strerror(errno));
		return -1;
	}
	cur.r.rip = (uint64_t)(uintptr_t)fn;
	cur.r.rsp = t->entry_rsp;
	cur.r.rdi = a0;
	cur.r.rsi = a1;
	cur.r.rdx = a2;
	cur.r.rax = 0;
	cur.r.orig_rax = (uint64_t)-1;	/* no syscall to restart */
	cur.r.eflags &= ~(EFLAGS_DF | (1u << 8));	/* DF clear, as the ABI says; no TF */
	/* Distinct per register and per call: a swap or a stale value shows. */
	for (size_t i = 0; i < NR_CALLEE_SAVED; i++)
		*reg_at(&cur.r, i) = 0x6b666c7573680000ULL ^ (t->steps << 8) ^ (i + 1);
	entry = cur.r;
	if (ptrace(PTRACE_SETREGS, t->pid, NULL, &cur.r) != 0) {
		say(err, errlen, "set registers: %s", strerror(errno));
		return -1;
	}
	for (size_t n = 0;; n++) {
		const struct td_insn *in;
		struct td_effect e;

		if (cur.r.rip == ret && cur.r.rsp == t->entry_rsp + 8)
			return abi_kept(&entry, &cur.r, err, errlen) ? 0 : -1;
		if (n >= MAX_STEPS) {
			say(err, errlen, "no return after %zu instructions", n);
			return -1;
		}
		in = decode_at(t->pid, cur.r.rip);
		cur.have_k = 0;
		if (in->needs_k && read_opmask(t->pid, &cur)) {
			say(err, errlen, "%#llx %s: cannot read the opmask registers",
			    (unsigned long long)cur.r.rip, in->text);
			return -1;
		}
		if (!in->string && td_effect(in, &cur, &e)) {
			say(err, errlen, "%#llx %s: cannot compute its address",
			    (unsigned long long)cur.r.rip, in->text);
			return -1;
		}
		if (step(t->pid, err, errlen) ||
		    ptrace(PTRACE_GETREGS, t->pid, NULL, &after) != 0) {
			if (!*err)
				say(err, errlen, "get registers: %s", strerror(errno));
			snprintf(err + strlen(err), errlen - strlen(err), " at %#llx %s",
				 (unsigned long long)cur.r.rip, in->text);
			return -1;
		}
		t->steps++;
		if (in->string && td_string_effect(in, &cur.r, &after, &e)) {
			say(err, errlen, "%#llx %s: bad string count", (unsigned long long)cur.r.rip,
			    in->text);
			return -1;
		}
		sink(ctx, in, &e);
		cur.r = after;
	}
}

int tt_start_arena(struct tt_tracer *t, unsigned char **arena, size_t len, char *why,
		   size_t whylen)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int r;

	if (p == MAP_FAILED) {
		snprintf(why, whylen, "mmap %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	r = tt_start(t, why, whylen);
	if (r) {
		munmap(p, len);
		return r;
	}
	*arena = p;
	return 0;
}

void tt_stop_arena(struct tt_tracer *t, unsigned char *arena, size_t len)
{
	tt_stop(t);
	munmap(arena, len);
}

/*
 * A test that cannot trace proves nothing, and Criterion would report it
 * as a skip inside a program that exits 0: make check would say PASS for a
 * run in which no instruction was traced (an auditor's LD_PRELOAD shim that
 * refused ptrace() showed exactly that). So a refused tracer fails the test
 * unless KFLUSH_TEST_ALLOW_NO_TRACE=1 says the host is known not to allow
 * it; then the test is skipped with TT_NO_TRACE at the head of its message
 * and main() below turns the program's exit status into 77, automake's
 * SKIP. Under valgrind the tracer cannot single-step, and make
 * check-valgrind, which runs every program there for memcheck's sake and
 * counts any other status than 0 as failure, is not the proof's run: make
 * check is. There the test is skipped as before.
 */
static int no_trace_allowed(void)
{
	const char *v = getenv("KFLUSH_TEST_ALLOW_NO_TRACE");

	return v && !strcmp(v, "1");
}

void tt_no_tracer(const char *why, const char *unobserved)
{
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND)
		cr_skip_test("tracer: %s; %s", why, unobserved);
#endif
	if (no_trace_allowed())
		cr_skip_test(TT_NO_TRACE "%s; %s (KFLUSH_TEST_ALLOW_NO_TRACE=1: "
			     "this program exits 77)", why, unobserved);
	cr_assert_fail("tracer: %s; %s. Run where ptrace(2) is permitted (CI does, as root), "
		       "or set KFLUSH_TEST_ALLOW_NO_TRACE=1 to have this reported as a skip",
		       why, unobserved);
}

/* Set in the runner process: tests skipped by tt_no_tracer() with the opt-in. */
static size_t untraced;
static int any_failed;

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	for (const struct criterion_suite_stats *s = stats->suites; s; s = s->next)
		for (const struct criterion_test_stats *t = s->tests; t; t = t->next)
			if (t->test_status == CR_STATUS_SKIPPED && t->message &&
			    !strncmp(t->message, TT_NO_TRACE, strlen(TT_NO_TRACE)))
				untraced++;
	any_failed = stats->tests_failed > 0;
}

/*
 * Criterion's own main(), but for the status: 77 when a test went
 * untraced (with the opt-in) and none failed. Any such test, not only all
 * of them: PASS for a program that proved part of what it names would
 * hide the rest again. Workers never get past criterion_run_all_tests().
 */
int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;

	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (!result && !any_failed && untraced) {
		fprintf(stderr, "%zu test%s skipped: the tracer could not start "
			"(KFLUSH_TEST_ALLOW_NO_TRACE=1); exit 77 (skip)\n", untraced,
			untraced == 1 ? "" : "s");
		return 77;
	}
	return result;
}
