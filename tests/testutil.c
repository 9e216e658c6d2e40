// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

#include "testutil.h"

/*
 * 8 KiB: where the avx512_movdir64b, avx512_x2 and avx512_ymm_short_cached
 * flush-copies switch to two streams of lines (an odd number of lines and
 * an even one past it); 8 KiB + 389: halves of 67 lines, four of
 * avx512_x2's 16-line batches (sixteen of avx512_ymm_short_cached's
 * 4-line ones) and three lines of each half left over.
 */
const size_t tu_large_sizes[] = { 4095, 4096, 4097, (8u << 10) - 1, (8u << 10) + 65,
				  (8u << 10) + 130, (8u << 10) + 389, 65536 + 13, (512u << 10) + 65,
				  (1u << 20) + 7 };
const size_t tu_nr_large_sizes = sizeof(tu_large_sizes) / sizeof(tu_large_sizes[0]);

unsigned char tu_guard_byte(size_t i)
{
	return (unsigned char)(0xa5 ^ (i * 37));
}

/*
 * With KFLUSH_TEST_DAX_DIR set (the QEMU rig points it at an ext4 -o dax
 * mount), areas are unlinked files there mapped MAP_SYNC, so the sweeps and
 * proofs run on real DAX pages instead of anonymous memory. MAP_SYNC is
 * refused where the filesystem is not DAX: then the file is mapped shared
 * and ordinary, and the run says so once.
 */
static void *area_map(size_t len)
{
	const char *dir = getenv("KFLUSH_TEST_DAX_DIR");
	static int warned;
	char path[4096];
	void *p;
	int fd;

	if (!dir || !*dir)
		return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(path, sizeof(path), "%s/kflush-test.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0 || unlink(path) != 0 || ftruncate(fd, (off_t)len) != 0) {
		perror("tu_area_new: KFLUSH_TEST_DAX_DIR");
		abort();
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (p == MAP_FAILED && errno == EOPNOTSUPP) {
		if (!warned++)
			fprintf(stderr, "testutil: %s is not DAX (no MAP_SYNC): plain shared mapping\n", dir);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	close(fd);
	return p;
}

struct tu_area tu_area_new(size_t payload)
{
	struct tu_area a;

	a.rawlen = (2 * TU_GUARD + 64 + payload + 4095) & ~(size_t)4095;
	a.raw = area_map(a.rawlen);
	if (a.raw == MAP_FAILED) {
		perror("tu_area_new: mmap");
		abort();
	}
	a.image = malloc(a.rawlen);
	if (!a.image)
		abort();
	for (size_t i = 0; i < a.rawlen; i++)
		a.image[i] = tu_guard_byte(i);
	tu_area_reset(&a);
	return a;
}

void tu_area_free(struct tu_area *a)
{
	munmap(a->raw, a->rawlen);
	free(a->image);
	a->raw = NULL;
	a->image = NULL;
}

void tu_area_reset(struct tu_area *a)
{
	memcpy(a->raw, a->image, a->rawlen);
}

void tu_restore(struct tu_area *a, size_t off, size_t n)
{
	size_t start = TU_GUARD + off;

	memcpy(a->raw + start, a->image + start, n);
}

/* Index of the first byte where p and q differ, or -1. */
static long first_diff(const unsigned char *p, const unsigned char *q, size_t n)
{
	if (!n || memcmp(p, q, n) == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return (long)i;
	return -1;
}

unsigned char *tu_at(const struct tu_area *a, size_t off)
{
	return a->raw + TU_GUARD + off;
}

void tu_fill(void *p, size_t n, uint32_t seed)
{
	unsigned char *b = p;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)(x | 1);
	}
}

size_t tu_offset_step(void)
{
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND)
		return 5;
#endif
	return 1;
}

size_t tu_mid_sizes(size_t *out, size_t max)
{
	static const int near[] = { -65, -64, -63, -1, 0, 1, 63, 64, 65 };
	size_t n = 0;

	for (size_t s = TU_SWEEP_MAX + 1; s <= TU_MID_MAX && n < max; s += 53)
		out[n++] = s;
	for (size_t k = 1; k <= 3; k++)
		for (size_t i = 0; i < sizeof(near) / sizeof(near[0]) && n < max; i++)
			out[n++] = (size_t)((long)(2048 * k) + near[i]);
	return n;
}

void tu_sweep(const struct tu_sweep_plan *plan,
	      void (*fn)(const struct tu_case *c, void *ctx), void *ctx)
{
	struct tu_area a = tu_area_new(TU_SWEEP_MAX);
	struct tu_area mid = tu_area_new(TU_MID_MAX);
	struct tu_area big = tu_area_new(TU_MAX_SIZE);
	size_t mid_sizes[128], nmid = tu_mid_sizes(mid_sizes, sizeof(mid_sizes) / sizeof(mid_sizes[0]));
	size_t step = tu_offset_step();
	struct tu_case c = { 0 };

	c.area = &a;
	for (c.n = 0; c.n <= TU_SWEEP_MAX; c.n++)
		for (c.doff = 0; c.doff < 64; c.doff += step)
			for (size_t i = 0; i < plan->nsoffs; i++, c.seq++) {
				c.soff = plan->soffs[i];
				fn(&c, ctx);
			}
	for (size_t m = 0; m < nmid + tu_nr_large_sizes; m++) {
		c.area = m < nmid ? &mid : &big;
		c.n = m < nmid ? mid_sizes[m] : tu_large_sizes[m - nmid];
		for (size_t i = 0; i < plan->nbig_doffs; i++)
			for (size_t j = 0; j < plan->nbig_soffs; j++, c.seq++) {
				c.doff = plan->big_doffs[i];
				c.soff = plan->big_soffs[j];
				fn(&c, ctx);
			}
	}
	tu_area_free(&a);
	tu_area_free(&mid);
	tu_area_free(&big);
}

long tu_check(const struct tu_area *a, size_t off, const void *expect, size_t n)
{
	size_t start = TU_GUARD + off, end = start + n;
	long i;

	/* memcmp against the image: sweeps call this hundreds of thousands of times. */
	i = first_diff(a->raw, a->image, start);
	if (i >= 0)
		return i;
	i = first_diff(a->raw + start, expect, n);
	if (i >= 0)
		return (long)start + i;
	i = first_diff(a->raw + end, a->image + end, a->rawlen - end);
	return i >= 0 ? (long)end + i : -1;
}

size_t tu_usable_variants(enum kflush_op op, struct tu_variant *out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < kflush_variant_count(op) && n < max; i++) {
		if (kflush_variant_usable(op, (unsigned int)i) != 1)
			continue;
		out[n].op = op;
		out[n].idx = i;
		snprintf(out[n].name, sizeof(out[n].name), "%s", kflush_variant_name(op, (unsigned int)i));
		n++;
	}
	return n;
}

static sigjmp_buf tu_fault_jmp;

static void tu_on_fault(int sig)
{
	siglongjmp(tu_fault_jmp, sig);
}

long tu_first_access(void (*call)(unsigned char *page, size_t i, void *ctx),
		     void *ctx, size_t count)
{
	unsigned char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa, old_segv, old_bus;
	volatile long hit = -1;

	if (p == MAP_FAILED) {
		perror("tu_first_access: mmap");
		abort();
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tu_on_fault;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) || sigaction(SIGBUS, &sa, &old_bus)) {
		perror("tu_first_access: sigaction");
		abort();
	}
	for (volatile size_t i = 0; i < count; i++) {
		if (sigsetjmp(tu_fault_jmp, 1)) {
			hit = (long)i;
			break;
		}
		call(p, i, ctx);
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	munmap(p, 4096);
	return hit;
}

static int unset_here(const char *entry, const char *const unset[])
{
	for (size_t i = 0; unset && unset[i]; i++) {
		size_t len = strlen(unset[i]);

		if (!strncmp(entry, unset[i], len) && entry[len] == '=')
			return 1;
	}
	return 0;
}

int tu_spawn(const char *path, char *const argv[], const char *const unset[],
	     char *const set[], char *out, size_t outlen, char *err, size_t errlen)
{
	char **envp, *buf[2] = { out, err }, drop[512];
	size_t nenv = 0, n = 0, len[2] = { 0, 0 }, max[2] = { outlen, errlen };
	struct pollfd pf[2] = { { .fd = -1 }, { .fd = -1 } };
	posix_spawn_file_actions_t fa;
	int fds[2][2], status = -1;
	pid_t pid;

	for (char **e = environ; *e; e++)
		nenv++;
	for (size_t i = 0; set && set[i]; i++)
		nenv++;
	envp = calloc(nenv + 1, sizeof(*envp));
	if (!envp || pipe(fds[0]) || pipe(fds[1])) {
		free(envp);
		return -1;
	}
	for (char **e = environ; *e; e++)
		if (!unset_here(*e, unset))
			envp[n++] = *e;
	for (size_t i = 0; set && set[i]; i++)
		envp[n++] = set[i];
	posix_spawn_file_actions_init(&fa);
	for (int k = 0; k < 2; k++) {
		posix_spawn_file_actions_adddup2(&fa, fds[k][1], k + 1);
		posix_spawn_file_actions_addclose(&fa, fds[k][0]);
	}
	if (posix_spawn(&pid, path, &fa, NULL, argv, envp) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	for (int k = 0; k < 2; k++) {
		close(fds[k][1]);
		pf[k].fd = fds[k][0];
		pf[k].events = POLLIN;
	}
	/* Both at once: a child that fills one pipe must not wait on us forever. */
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			ssize_t r;
			int keep = buf[k] && len[k] + 1 < max[k];

			if (pf[k].fd < 0 || !pf[k].revents)
				continue;
			r = keep ? read(pf[k].fd, buf[k] + len[k], max[k] - 1 - len[k])
				 : read(pf[k].fd, drop, sizeof(drop));
			if (r > 0 && keep)
				len[k] += (size_t)r;
			if (r <= 0 && !(r < 0 && errno == EINTR)) {
				close(pf[k].fd);
				pf[k].fd = -1;
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		if (pf[k].fd >= 0)
			close(pf[k].fd);
		if (buf[k] && max[k])
			buf[k][len[k]] = '\0';
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	return status;
}
