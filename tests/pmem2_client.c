// SPDX-License-Identifier: MIT
/*
 * A libpmem2 client for test_pmem2.sh: maps FILE with pmem2_map_new(),
 * says which granularity libpmem2 gave it and which object each of the six
 * pmem2_get_*_fn() pointers lies in (dladdr), then runs each function with
 * every PMEM2_F_MEM_* flag, checking the bytes against a private copy made
 * with libc's memmove/memset, and at the end the file's contents read back
 * with pread(). Before each phase it writes "kflush-phase NAME" to fd -1,
 * so a strace of it shows which phase each msync belongs to.
 * Exit 0 all bytes right, 1 a wrong byte or a failed call, 2 usage.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <libpmem2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN (4u << 20)

static unsigned char *map, *ref;
static int failed;

static void phase(const char *name)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "kflush-phase %s", name);

	if (write(-1, buf, (size_t)n) != -1)
		abort();
}

static void where(const char *what, const void *fn)
{
	Dl_info info;

	if (!fn) {
		printf("%s: NULL\n", what);
		failed = 1;
	} else if (!dladdr(fn, &info) || !info.dli_fname) {
		printf("%s: %p in no object\n", what, fn);
		failed = 1;
	} else {
		printf("%s: %s\n", what, info.dli_fname);
	}
}

/* The whole map against the reference: reports the first differing byte. */
static void check(const char *what)
{
	if (failed || memcmp(map, ref, LEN) == 0)
		return;
	for (size_t i = 0; i < LEN; i++)
		if (map[i] != ref[i]) {
			printf("FAIL: %s: byte %zu is %#x, want %#x\n", what, i, map[i], ref[i]);
			failed = 1;
			return;
		}
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static const struct {
	const char *name;
	unsigned flags;
} flag_sets[] = {
	{ "0", 0 },
	{ "NODRAIN", PMEM2_F_MEM_NODRAIN },
	{ "NONTEMPORAL", PMEM2_F_MEM_NONTEMPORAL },
	{ "TEMPORAL", PMEM2_F_MEM_TEMPORAL },
	{ "WC", PMEM2_F_MEM_WC },
	{ "WB", PMEM2_F_MEM_WB },
	{ "NOFLUSH", PMEM2_F_MEM_NOFLUSH },
	{ "NONTEMPORAL|NODRAIN", PMEM2_F_MEM_NONTEMPORAL | PMEM2_F_MEM_NODRAIN },
};
/* Small (temporal by default), odd, just past the streaming threshold, large. */
static const size_t sizes[] = { 1, 63, 100, 257, 4096 + 13, 1u << 20 };

int main(int argc, char **argv)
{
	struct pmem2_config *cfg;
	struct pmem2_source *src;
	struct pmem2_map *m;
	unsigned char *buf, *back;
	static const char *const gran[] = { "byte", "cache_line", "page" };
	int fd, g;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, LEN) != 0) {
		perror(argv[1]);
		return 1;
	}
	if (pmem2_config_new(&cfg) || pmem2_source_from_fd(&src, fd) ||
	    pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
	    pmem2_map_new(&m, cfg, src)) {
		pmem2_perror("pmem2");
		return 1;
	}
	map = pmem2_map_get_address(m);
	if (pmem2_map_get_size(m) != LEN) {
		printf("FAIL: map size %zu, want %u\n", pmem2_map_get_size(m), LEN);
		return 1;
	}
	g = (int)pmem2_map_get_store_granularity(m);
	printf("granularity: %s\n", g >= 0 && g <= 2 ? gran[g] : "?");

	pmem2_memcpy_fn mcpy = pmem2_get_memcpy_fn(m);
	pmem2_memmove_fn mmove = pmem2_get_memmove_fn(m);
	pmem2_memset_fn mset = pmem2_get_memset_fn(m);
	pmem2_persist_fn persist = pmem2_get_persist_fn(m);
	pmem2_flush_fn flush = pmem2_get_flush_fn(m);
	pmem2_drain_fn drain = pmem2_get_drain_fn(m);

	where("memcpy_fn", (const void *)mcpy);
	where("memmove_fn", (const void *)mmove);
	where("memset_fn", (const void *)mset);
	where("persist_fn", (const void *)persist);
	where("flush_fn", (const void *)flush);
	where("drain_fn", (const void *)drain);
	if (failed)
		return 1;

	ref = calloc(1, LEN);
	buf = malloc(LEN);
	back = malloc(LEN);
	if (!ref || !buf || !back)
		return 1;
	fill(buf, LEN, 1);

	size_t off = 0;
	for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++) {
		char name[64];
		unsigned fl = flag_sets[f].flags;

		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];

			off = (off + 4099) % (LEN - n);
			snprintf(name, sizeof(name), "memcpy %s", flag_sets[f].name);
			phase(name);
			mcpy(map + off, buf + s, n, fl);
			memcpy(ref + off, buf + s, n);
			check(name);

			/* Overlapping both ways, at a distance that is no multiple of 8. */
			snprintf(name, sizeof(name), "memmove %s", flag_sets[f].name);
			phase(name);
			size_t a = (off + 1000) % (LEN - n - 37);
			mmove(map + a + 37, map + a, n, fl);
			memmove(ref + a + 37, ref + a, n);
			mmove(map + a, map + a + 11, n, fl);
			memmove(ref + a, ref + a + 11, n);
			check(name);

			snprintf(name, sizeof(name), "memset %s", flag_sets[f].name);
			phase(name);
			size_t so = off + 5 + n <= LEN ? off + 5 : 0;

			mset(map + so, 0x5a + (int)s, n, fl);
			memset(ref + so, 0x5a + (int)s, n);
			check(name);
		}
	}
	/* Plain stores made persistent by the persist and flush+drain functions. */
	phase("persist");
	memcpy(map + 12345, buf, 70000);
	memcpy(ref + 12345, buf, 70000);
	persist(map + 12345, 70000);
	check("persist");
	phase("flush");
	memset(map + 333, 0xa5, 9000);
	memset(ref + 333, 0xa5, 9000);
	flush(map + 333, 9000);
	check("flush");
	phase("drain");
	drain();
	phase("end");

	if (pmem2_map_delete(&m) || pmem2_source_delete(&src) || pmem2_config_delete(&cfg)) {
		pmem2_perror("pmem2 delete");
		return 1;
	}
	if (pread(fd, back, LEN, 0) != (ssize_t)LEN) {
		perror("pread");
		return 1;
	}
	if (memcmp(back, ref, LEN) != 0) {
		printf("FAIL: the file's contents read back differ from what was written\n");
		failed = 1;
	}
	close(fd);
	if (!failed)
		printf("ok: all bytes right, in the map and in the file\n");
	return failed;
}
