// SPDX-License-Identifier: MIT
/*
 * kflush-vmdax: libkflush on a real DAX mapping, for the QEMU rig.
 *
 *   kflush-vmdax flushcache DIR
 *   kflush-vmdax copy-safe DIR
 *
 * Both map a file in DIR with MAP_SYNC (DIR must be on a DAX filesystem;
 * without MAP_SYNC they fail) and check every usable variant from the
 * registry, plus the exported entry point, byte for byte.
 *
 * flushcache: memcpy_flushcache, memset_flushcache and flush into the
 * mapping over sizes 0..130 and a few larger ones, at every destination
 * offset within a cache line, with guard bytes on both sides.
 *
 * copy-safe: a two-page file truncated to one page; copies across the end
 * of the file with
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kflush.h"

#define PAGE 4096

/* --- common --------------------------------------------------------------- */
/* A fresh file of LEN bytes in DIR, mapped shared with MAP_SYNC. */
static unsigned char *map_dax(const char *dir, size_t len, int *fdp)
{
	char path[4096];
	unsigned char *map;
	int fd;

	snprintf(path, sizeof(path), "%s/kflush-vmdax.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		fprintf(stderr, "kflush-vmdax: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	unlink(path);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "kflush-vmdax: MAP_SYNC mapping of %s failed (%s): not DAX\n", path,
			strerror(errno));
		exit(2);
	}
	printf("mapping: %zu bytes in %s with MAP_SYNC (real DAX)\n", len, dir);
	*fdp = fd;
	return map;
}

/* --- copy-safe ------------------------------------------------------------ */

static void on_fault(int sig, siginfo_t *info, void *uc)
{
	static const char msg[] = "kflush-vmdax: kflush_fault_handler() did not handle the fault\n";

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

/* --- flushcache ---------------------------------------------------------- */
#define FC_WIN 4096			/* where each destination starts */
#define FC_LEN (FC_WIN + 70000 + 4096)
#define GUARD 0xa5

static const size_t fc_big[] = { 255, 256, 257, 1000, 4095, 4096, 4097, 65539 };
static unsigned char fc_src[70000 + 64];
static int fc_failures;

static void fc_report(const char *op, const char *name, size_t n, size_t off, const char *what)
{
	if (++fc_failures <= 20)
		printf("FAIL %s %s n=%zu dst+%zu: %s\n", op, name, n, off, what);
}

/* Everything around [off, off + n) in the window must still be GUARD. */
static int guards_ok(const unsigned char *map, size_t off, size_t n)
{
	const unsigned char *d = map + FC_WIN + off;

	for (size_t i = 1; i <= 64; i++)
		if (d[-(ptrdiff_t)i] != GUARD || d[n + i - 1] != GUARD)
			return 0;
	return 1;
}

/* op: 0 memcpy_flushcache, 1 memset_flushcache, 2 flush. */
static void fc_one(int op, kflush_fn fn, const char *name, unsigned char *map, size_t n,
		   size_t off)
{
	static const char *const ops[] = { "memcpy_flushcache", "memset_flushcache", "flush" };
	unsigned char *d = map + FC_WIN + off;
	const unsigned char *src = fc_src + (n * 7 + off) % 64;

	memset(d - 64, GUARD, n + 128);
	switch (op) {
	case 0:
		((kflush_memcpy_flushcache_fn)fn)(d, src, n);
		if (memcmp(d, src, n))
			fc_report(ops[op], name, n, off, "destination differs from the source");
		break;
	case 1:
		((kflush_memset_flushcache_fn)fn)(d, 0x3c, n);
		for (size_t i = 0; i < n; i++)
			if (d[i] != 0x3c) {
				fc_report(ops[op], name, n, off, "destination not set");
				break;
			}
		break;
	default:
		memcpy(d, src, n);
		((kflush_flush_fn)fn)(d, n);
		if (memcmp(d, src, n))
			fc_report(ops[op], name, n, off, "flush changed the data");
		break;
	}
	if (!guards_ok(map, off, n))
		fc_report(ops[op], name, n, off, "wrote outside the destination");
}

static void fc_sweep(int op, kflush_fn fn, const char *name, unsigned char *map)
{
	for (size_t n = 0; n <= 130; n++)
		for (size_t off = 0; off < 64; off++)
			fc_one(op, fn, name, map, n, off);
	for (size_t b = 0; b < sizeof(fc_big) / sizeof(fc_big[0]); b++)
		for (size_t off = 0; off < 64; off += 7)
			fc_one(op, fn, name, map, fc_big[b], off);
}

static int flushcache_main(const char *dir)
{
	static const enum kflush_op ops[] = {
		KFLUSH_OP_MEMCPY_FLUSHCACHE, KFLUSH_OP_MEMSET_FLUSHCACHE, KFLUSH_OP_FLUSH
	};
	static const kflush_fn exported[] = {
		(kflush_fn)kflush_memcpy_flushcache, (kflush_fn)kflush_memset_flushcache,
		(kflush_fn)kflush_flush
	};
	unsigned char *map;
	int fd, calls = 0;

	map = map_dax(dir, FC_LEN, &fd);
	close(fd);
	for (size_t i = 0; i < sizeof(fc_src); i++)
		fc_src[i] = (unsigned char)(i * 131 + (i >> 8) + 1);
	for (int o = 0; o < 3; o++) {
		for (int i = 0; i < kflush_variant_count(ops[o]); i++) {
			if (!kflush_variant_usable(ops[o], (unsigned int)i))
				continue;
			fc_sweep(o, kflush_variant_fn(ops[o], (unsigned int)i),
				 kflush_variant_name(ops[o], (unsigned int)i), map);
			calls++;
		}
		fc_sweep(o, exported[o], "exported", map);
	}
	kflush_drain();
	printf("flushcache: %d variant(s) + 3 entry points on DAX, %d failure(s)\n", calls,
	       fc_failures);
	return fc_failures ? 1 : 0;
}

static int copy_safe_main(const char *dir)
{
	struct sigaction sa;
	unsigned char *map;
	int fd, nvar = 0;

	map = map_dax(dir, 2 * PAGE, &fd);
	if (ftruncate(fd, PAGE)) {
		fprintf(stderr, "kflush-vmdax: truncate: %s\n", strerror(errno));
		return 2;
	}
	close(fd);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL))
		return 2;

	for (int i = 0; i < kflush_variant_count(KFLUSH_OP_COPY_SAFE); i++) {
		if (!kflush_variant_usable(KFLUSH_OP_COPY_SAFE, (unsigned int)i))
			continue;
		run((kflush_copy_safe_fn)kflush_variant_fn(KFLUSH_OP_COPY_SAFE, (unsigned int)i),
		    kflush_variant_name(KFLUSH_OP_COPY_SAFE, (unsigned int)i), map);
		nvar++;
	}
	run(kflush_copy_safe, "kflush_copy_safe", map);
	printf("copy-safe: %d variant(s) + kflush_copy_safe, %zu cases each, %d failure(s)\n", nvar,
	       2 * (sizeof(lens) / sizeof(lens[0])) * (sizeof(room) / sizeof(room[0])), failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "copy-safe"))
		return copy_safe_main(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "flushcache"))
		return flushcache_main(argv[2]);
	fprintf(stderr, "usage: kflush-vmdax flushcache|copy-safe DIR\n");
	return 2;
}
