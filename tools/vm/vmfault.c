// SPDX-License-Identifier: MIT
/*
 * kflush-vmfault: kflush_copy_safe() against a real fault, for the QEMU rig.
 *
 *   kflush-vmfault DIR
 *
 * Maps a two-page file in DIR (MAP_SYNC when DIR is on a DAX filesystem),
 * truncates it to one page, then copies across the end of the file with
 * every usable copy_safe variant and the bound kflush_copy_safe(), in both
 * directions: from the file (the load faults) and into it (the store
 * faults). Each call must return exactly the number of bytes it could not
 * copy, copy every byte before the fault, and leave every byte after the
 * copied count untouched. The faults reach kflush_fault_handler() through
 * this program's own SIGBUS/SIGSEGV handler, as an application's would.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kflush.h"

#define PAGE 4096

static void on_fault(int sig, siginfo_t *info, void *uc)
{
	static const char msg[] = "kflush-vmfault: kflush_fault_handler() did not handle the fault\n";

	if (kflush_fault_handler(sig, info, uc))
		return;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static const size_t lens[] = { 1, 7, 8, 9, 31, 63, 64, 65, 100, 255, 4095, 4096, 5000 };
static const size_t room[] = { 0, 1, 3, 7, 8, 15, 63, 64, 100, 4095 };

static unsigned char buf[3 * PAGE];
static unsigned char ref[3 * PAGE];

static int failures;

static void report(const char *name, const char *dir, size_t n, size_t k, size_t ret,
		   const char *what)
{
	if (++failures <= 20)
		printf("FAIL %s %s n=%zu room=%zu: returned %zu, want %zu: %s\n", name, dir, n, k,
		       ret, n > k ? n - k : 0, what);
}

/* Copy n bytes starting k bytes before the end of the file at map+PAGE. */
static void one(kflush_copy_safe_fn fn, const char *name, unsigned char *map, size_t n,
		size_t k, int into_file)
{
	size_t want = n > k ? n - k : 0, done, ret;
	unsigned char *edge = map + PAGE - k;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	memcpy(ref, buf, sizeof(buf));
	for (size_t i = 0; i < k; i++)
		edge[i] = (unsigned char)(i * 13 + 5);

	if (into_file) {
		unsigned char before[PAGE];

		memcpy(before, map, PAGE);
		ret = fn(edge, buf + PAGE, n);
		done = n - (ret <= n ? ret : n);
		if (ret != want)
			report(name, "into-file", n, k, ret, "wrong count");
		else if (memcmp(edge, buf + PAGE, done))
			report(name, "into-file", n, k, ret, "copied bytes differ");
		else if (memcmp(map, before, PAGE - k))
			report(name, "into-file", n, k, ret, "wrote before the destination");
		return;
	}
	ret = fn(buf + PAGE, edge, n);
	done = n - (ret <= n ? ret : n);
	if (ret != want)
		report(name, "from-file", n, k, ret, "wrong count");
	else if (memcmp(buf + PAGE, edge, done))
		report(name, "from-file", n, k, ret, "copied bytes differ");
	else if (memcmp(buf, ref, PAGE) || memcmp(buf + PAGE + done, ref + PAGE + done,
						  2 * PAGE - done))
		report(name, "from-file", n, k, ret, "wrote outside the copied bytes");
}

static void run(kflush_copy_safe_fn fn, const char *name, unsigned char *map)
{
	for (size_t a = 0; a < sizeof(lens) / sizeof(lens[0]); a++)
		for (size_t b = 0; b < sizeof(room) / sizeof(room[0]); b++)
			for (int into = 0; into < 2; into++)
				one(fn, name, map, lens[a], room[b], into);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	char path[4096];
	unsigned char *map;
	int fd, sync = 1, nvar = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: kflush-vmfault DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/kflush-vmfault.%d", argv[1], (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 2 * PAGE)) {
		fprintf(stderr, "kflush-vmfault: %s: %s\n", path, strerror(errno));
		return 2;
	}
	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED) {
		sync = 0;
		map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (map == MAP_FAILED || ftruncate(fd, PAGE)) {
		fprintf(stderr, "kflush-vmfault: %s: %s\n", path, strerror(errno));
		return 2;
	}
	unlink(path);
	close(fd);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL))
		return 2;

	printf("mapping: %s\n", sync ? "MAP_SYNC (real DAX)" : "MAP_SHARED (no MAP_SYNC: not DAX)");
	for (int i = 0; i < kflush_variant_count(KFLUSH_OP_COPY_SAFE); i++) {
		if (!kflush_variant_usable(KFLUSH_OP_COPY_SAFE, (unsigned int)i))
			continue;
		run((kflush_copy_safe_fn)kflush_variant_fn(KFLUSH_OP_COPY_SAFE, (unsigned int)i),
		    kflush_variant_name(KFLUSH_OP_COPY_SAFE, (unsigned int)i), map);
		nvar++;
	}
	run(kflush_copy_safe, "kflush_copy_safe", map);
	printf("%d variant(s) + kflush_copy_safe, %zu cases each, %d failure(s)\n", nvar,
	       2 * (sizeof(lens) / sizeof(lens[0])) * (sizeof(room) / sizeof(room[0])), failures);
	return failures ? 1 : 0;
}
