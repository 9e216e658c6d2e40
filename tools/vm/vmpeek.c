// SPDX-License-Identifier: MIT
/*
 * kflush-vmpeek: look at a devdax device or a DAX file from outside
 * pmemtest, for the QEMU rig (tools/vm). Device DAX has no read(2), so
 * everything goes through one shared mapping of the whole target.
 *
 *   kflush-vmpeek size PATH
 *   kflush-vmpeek fill PATH OFF LEN        fill with the marker byte
 *   kflush-vmpeek scan PATH OFF LEN        "intact" or "changed FIRST END"
 *   kflush-vmpeek memmap PATH OFF LEN SSIZE devdax|fsdax NR_COMPOUND
 *
 * "memmap" checks sampled struct pages of a replayed ZONE_DEVICE memmap
 * written at OFF (its first initialised struct page) against what mm_init.c leaves behind, using only
 * facts that do not depend on a kernel's exact field layout past word 3:
 * _mapcount -1 and _refcount 1 (devdax) or 0 (fsdax) on heads and order-0
 * pages, zone_device_data NULL, tails with compound_head = head | 1 that
 * really points at their head (or the 2026 tree's mask for power-of-two
 * sizes, GENMASK(63, order + log2 size) | 1), and from the fourth page of
 * each compound on
 * (pages 1 and 2 carry the head's compound fields, in a layout that changes
 * between kernels) TAIL_MAPPING and one flags value shared by every order-0
 * page or tail, with exactly one more bit (PG_head) on heads.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MARKER 0x5a
#define TAIL_MAPPING 0xdead000000000400ULL
#define MAX_PROBLEMS 10

static const char *prog = "kflush-vmpeek";

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("not a number: %s", s);
	return v;
}

/* Device DAX reports st_size 0: its size is in sysfs. */
static uint64_t target_size(const char *path, int fd)
{
	struct stat st;
	char sys[96];
	unsigned long long size;
	FILE *f;

	if (fstat(fd, &st))
		die("cannot stat %s", path);
	if (!S_ISCHR(st.st_mode))
		return (uint64_t)st.st_size;
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/size", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(sys, "r");
	if (!f || fscanf(f, "%llu", &size) != 1)
		die("cannot read the size of %s from sysfs", path);
	fclose(f);
	return size;
}

static unsigned char *map_target(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDWR);
	void *p;

	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	*size = target_size(path, fd);
	if (!*size)
		die("%s is empty", path);
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("cannot map %s: %s", path, strerror(errno));
	close(fd);
	return p;
}

static void check_range(uint64_t off, uint64_t len, uint64_t size)
{
	if (off > size || len > size - off)
		die("range %" PRIu64 "+%" PRIu64 " is past the end of the target", off, len);
}

static int cmd_scan(unsigned char *m, uint64_t off, uint64_t len)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (uint64_t i = off; i < off + len; i++) {
		if (m[i] != MARKER) {
			if (first == UINT64_MAX)
				first = i;
			last = i;
		}
	}
	if (first == UINT64_MAX)
		printf("intact\n");
	else
		printf("changed %" PRIu64 " %" PRIu64 "\n", first, last + 1);
	return 0;
}

struct page_words {
	uint64_t flags, w1, w2, w3;
	int32_t mapcount, refcount;
};

static struct page_words page_at(const unsigned char *m, uint64_t idx, uint64_t ssize)
{
	const unsigned char *p = m + idx * ssize;
	struct page_words w;

	memcpy(&w.flags, p, 8);
	memcpy(&w.w1, p + 8, 8);
	memcpy(&w.w2, p + 16, 8);
	memcpy(&w.w3, p + 24, 8);
	memcpy(&w.mapcount, p + 48, 4);
	memcpy(&w.refcount, p + 52, 4);
	return w;
}

static int problems;

static void problem(uint64_t idx, const char *what, uint64_t val)
{
	if (++problems <= MAX_PROBLEMS)
		printf("page %" PRIu64 ": %s (0x%" PRIx64 ")\n", idx, what, val);
}

static int cmd_memmap(const unsigned char *m, uint64_t len, uint64_t ssize, int devdax,
		      uint64_t nr_compound)
{
	uint64_t npages = len / ssize, h0 = 0, base = 0, tail_flags = 0, head_flags = 0;
	uint64_t sampled = 0, heads = 0, tails = 0, normal = 0;
	int have_base = 0, have_tail_flags = 0, have_head_flags = 0;
	int32_t want_ref = devdax ? 1 : 0;

	if (ssize < 56 || npages < 2)
		die("bad struct page size %" PRIu64 " or memmap length %" PRIu64, ssize, len);
	if (nr_compound > 1) {
		/* The first head: the first page that is not a tail. */
		while (h0 < nr_compound && h0 < npages && (page_at(m, h0, ssize).w1 & 1))
			h0++;
		if (h0 == nr_compound || h0 == npages) {
			problem(0, "no compound head among the first pages", h0);
			goto out;
		}
	}
	for (uint64_t i = 0; i < npages; i += (i < 2048 || i + 2048 >= npages) ? 1 : 509) {
		struct page_words w = page_at(m, i, ssize);
		uint64_t pos = nr_compound > 1 && i >= h0 ? (i - h0) % nr_compound : 0;

		sampled++;
		if (w.w1 & 1) {
			uint64_t hi = i - pos, b;

			tails++;
			if (nr_compound <= 1 || pos == 0) {
				problem(i, "tail where none may be", w.w1);
				continue;
			}
			if (w.refcount != 0)
				problem(i, "tail with _refcount != 0", (uint64_t)(uint32_t)w.refcount);
			if (pos >= 3 && w.w3 != TAIL_MAPPING)
				problem(i, "tail without TAIL_MAPPING", w.w3);
			/*
			 * The 2026 tree's compound_info: with a power-of-two
			 * struct page, a mask that turns a tail's address into
			 * its head's, GENMASK(63, order + log2(size)) | 1.
			 */
			if (!(ssize & (ssize - 1)) && !(nr_compound & (nr_compound - 1)) &&
			    w.w1 == ((~0ULL << (__builtin_ctzll(nr_compound) + __builtin_ctzll(ssize))) | 1))
				goto tail_fields;
			b = w.w1 - 1 - hi * ssize;
			if (!have_base) {
				base = b;
				have_base = 1;
				if (base % 4096)
					problem(i, "compound_head not inside a page-aligned memmap", w.w1);
			} else if (b != base) {
				problem(i, "compound_head does not point at its head", w.w1);
			}
tail_fields:
			if (pos < 3) /* page[1].flags may carry the order (folio _flags_1) */
				continue;
			if (!have_tail_flags) {
				tail_flags = w.flags;
				have_tail_flags = 1;
			} else if (w.flags != tail_flags) {
				problem(i, "tail flags differ", w.flags);
			}
			continue;
		}
		if (nr_compound > 1 && i >= h0 && pos != 0) {
			problem(i, "page inside a compound is not a tail", w.w1);
			continue;
		}
		if (w.mapcount != -1)
			problem(i, "_mapcount != -1", (uint64_t)(uint32_t)w.mapcount);
		if (w.refcount != want_ref)
			problem(i, "unexpected _refcount", (uint64_t)(uint32_t)w.refcount);
		if (w.w2 != 0)
			problem(i, "zone_device_data not NULL", w.w2);
		if (!w.flags)
			problem(i, "flags are zero", 0);
		if (nr_compound > 1 && i >= h0) {
			heads++;
			if (!have_head_flags) {
				head_flags = w.flags;
				have_head_flags = 1;
			} else if (w.flags != head_flags) {
				problem(i, "head flags differ", w.flags);
			}
		} else {
			normal++;
			if (!have_tail_flags) {
				tail_flags = w.flags;
				have_tail_flags = 1;
			} else if (w.flags != tail_flags) {
				problem(i, "flags differ between order-0 pages", w.flags);
			}
		}
	}
	if (have_head_flags && have_tail_flags &&
	    __builtin_popcountll(head_flags ^ tail_flags) != 1)
		problem(h0, "head flags are not tail flags plus one bit (PG_head)",
			head_flags ^ tail_flags);
	if (nr_compound > 1 && (!heads || !tails))
		problem(h0, "no compound heads or tails sampled", heads);
out:
	printf("memmap: %" PRIu64 " struct pages, %" PRIu64 " sampled (%" PRIu64 " heads, %" PRIu64
	       " tails, %" PRIu64 " order-0), %d problem(s)\n",
	       npages, sampled, heads, tails, normal, problems);
	return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned char *m;
	uint64_t size;

	if (argc == 3 && !strcmp(argv[1], "size")) {
		map_target(argv[2], &size);
		printf("%" PRIu64 "\n", size);
		return 0;
	}
	if (argc == 5 && (!strcmp(argv[1], "fill") || !strcmp(argv[1], "scan"))) {
		uint64_t off = parse_u64(argv[3]), len = parse_u64(argv[4]);

		m = map_target(argv[2], &size);
		check_range(off, len, size);
		if (argv[1][0] == 's')
			return cmd_scan(m, off, len);
		memset(m + off, MARKER, len);
		return msync(m, size, MS_SYNC) ? 1 : 0;
	}
	if (argc == 8 && !strcmp(argv[1], "memmap")) {
		uint64_t off = parse_u64(argv[3]), len = parse_u64(argv[4]);

		m = map_target(argv[2], &size);
		check_range(off, len, size);
		return cmd_memmap(m + off, len, parse_u64(argv[5]), !strcmp(argv[6], "devdax"),
				  parse_u64(argv[7]));
	}
	fprintf(stderr, "usage: %s size|fill|scan|memmap ...\n", prog);
	return 2;
}
