// SPDX-License-Identifier: MIT
/*
 * memmap-cmp IMAGE REPLAY NAME: compare every struct page a real kernel
 * wrote into a map=dev namespace (a QEMU NVDIMM image, read on the host
 * after the guest powered off) with pmemtest's replay of the same geometry
 * (init-bench --replay-out).
 *
 * The image: the nd_pfn info block at 4 KiB ("NVDIMM_PFN_INFO" or
 * "NVDIMM_DAX_INFO"; u64 dataoff at +0x38, npfns at +0x40, u32 mode at
 * +0x48, 2 = PFN_MODE_PMEM), the struct pages of the namespace's pfns from
 * 2 MiB on (the altmap's first vmemmap block after its 8 KiB reserve), one
 * per pfn from the namespace's first.
 *
 * Pointers differ (KASLR in the guest, pmemtest's heap and mappings on the
 * host), so both sides are normalised before comparing: the value of
 * page->pgmap of the first data page stands for "pgmap", and an address
 * inside the struct page array (bit 0 aside) for "page i + offset"; the
 * kernel's array address comes from the first altmap page's lru
 * self-pointer. Everything else is compared as it is.
 *
 * Output: per field, pages compared and mismatches, and the first few
 * mismatches with both sides' words. Exit 0 with no mismatch, 1 with any,
 * 2 on bad input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SP		64
#define WORDS		(SP / 8)
#define MEMMAP_OFF	(2ULL << 20)
#define SHOW		3

struct header {
	char magic[16];
	uint64_t version, sp, base_pfn, npfns, start_pfn, end_pfn;
	uint64_t memmap_addr, pgmap;
	char kernel[16];
};

static const char *const field[WORDS + 1] = {
	"flags", "w1 pgmap/compound_head/lru.next", "w2 zone_device_data/lru.prev/page[1]",
	"w3 mapping/page[1]", "w4 index/page[1]", "w5 private/page[1]", "_mapcount",
	"_refcount", "w7 memcg_data/_nr_pages",
};

static int die(const char *what, const char *path)
{
	fprintf(stderr, "memmap-cmp: %s: %s%s%s\n", path, what, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(2);
}

static void read_at(FILE *f, const char *path, uint64_t off, void *buf, size_t n)
{
	errno = 0;
	if (fseeko(f, (off_t)off, SEEK_SET) || (n && fread(buf, 1, n, f) != n))
		die("short read", path);
}

/* A word as a tagged value: 0 literal, 1 pgmap, 2 address in the array. */
static void norm(uint64_t v, uint64_t base, uint64_t len, uint64_t pgmap, unsigned int *tag,
		 uint64_t *val)
{
	uint64_t a = v & ~1ULL;

	if (v == pgmap) {
		*tag = 1;
		*val = 0;
	} else if (a >= base && a < base + len) {
		*tag = 2;
		*val = (a - base) | (v & 1);
	} else {
		*tag = 0;
		*val = v;
	}
}

int main(int argc, char **argv)
{
	uint64_t n[WORDS + 1] = { 0 }, bad[WORDS + 1] = { 0 }, total, start, kbase, kpgmap;
	uint64_t dataoff, npfns, kp[WORDS], rp[WORDS], written = 0, pages_bad = 0;
	unsigned int shown[WORDS + 1] = { 0 }, mode;
	unsigned char info[0x50];
	struct header h;
	FILE *img, *rep;

	if (argc != 4) {
		fprintf(stderr, "usage: memmap-cmp IMAGE REPLAY NAME\n");
		return 2;
	}
	img = fopen(argv[1], "rb");
	rep = fopen(argv[2], "rb");
	if (!img)
		die("cannot open", argv[1]);
	if (!rep)
		die("cannot open", argv[2]);
	read_at(img, argv[1], 4096, info, sizeof(info));
	errno = 0;
	if (memcmp(info, "NVDIMM_PFN_INFO", 16) && memcmp(info, "NVDIMM_DAX_INFO", 16))
		die("no NVDIMM_PFN_INFO/NVDIMM_DAX_INFO block at 4 KiB", argv[1]);
	memcpy(&dataoff, info + 0x38, 8);
	memcpy(&npfns, info + 0x40, 8);
	memcpy(&mode, info + 0x48, 4);
	if (mode != 2)
		die("the info block's mode is not PFN_MODE_PMEM (map=dev)", argv[1]);
	total = dataoff / 4096 + npfns;
	start = dataoff / 4096;
	read_at(rep, argv[2], 0, &h, sizeof(h));
	if (memcmp(h.magic, "pmemtest-memmap", 16) || h.version != 1 || h.sp != SP)
		die("not a 64-byte pmemtest --replay-out file", argv[2]);
	if (h.npfns != total || h.start_pfn - h.base_pfn != start) {
		fprintf(stderr, "memmap-cmp %s: geometry differs: kernel %" PRIu64 " pfns, data from %"
			PRIu64 "; replay %" PRIu64 " pfns, data from %" PRIu64 "\n", argv[3], total,
			start, h.npfns, h.start_pfn - h.base_pfn);
		return 1;
	}
	/* The kernel's array address: the first altmap page's lru.next - 8. */
	read_at(img, argv[1], MEMMAP_OFF + 2 * SP, kp, SP);
	kbase = kp[1] - 8 - 2 * SP;
	read_at(img, argv[1], MEMMAP_OFF + start * SP, kp, SP);
	kpgmap = kp[1];
	printf("memmap-cmp %s: kernel %s model, %" PRIu64 " struct pages (%" PRIu64
	       " before the data), kernel array at %#" PRIx64 ", pgmap %#" PRIx64 "\n", argv[3],
	       h.kernel, total, start, kbase, kpgmap);

	read_at(img, argv[1], MEMMAP_OFF, kp, 0);
	read_at(rep, argv[2], sizeof(h), rp, 0);
	for (uint64_t i = 0; i < total; i++) {
		bool any = false, nz = false;

		errno = 0;
		if (fread(kp, 1, SP, img) != SP)
			die("short read", argv[1]);
		if (fread(rp, 1, SP, rep) != SP)
			die("short read", argv[2]);
		for (unsigned int w = 0; w < WORDS; w++)
			nz |= kp[w] != 0;
		written += nz;
		for (unsigned int w = 0; w < WORDS; w++) {
			unsigned int kt, rt, f = w < 6 ? w : w == 6 ? 6 : 8;
			uint64_t kv, rv;

			norm(kp[w], kbase, total * SP, kpgmap, &kt, &kv);
			norm(rp[w], h.memmap_addr, total * SP, h.pgmap, &rt, &rv);
			if (w == 6) {
				/* _mapcount and _refcount: literal halves. */
				for (unsigned int half = 0; half < 2; half++) {
					uint32_t a = (uint32_t)(kp[6] >> (32 * half));
					uint32_t b = (uint32_t)(rp[6] >> (32 * half));

					n[6 + half]++;
					if (a != b) {
						bad[6 + half]++;
						any = true;
						if (shown[6 + half]++ < SHOW)
							printf("  %s mismatch at page %" PRIu64 ": kernel %#010x replay %#010x\n",
							       field[6 + half], i, a, b);
					}
				}
				continue;
			}
			n[f]++;
			if (kt != rt || kv != rv) {
				bad[f]++;
				any = true;
				if (shown[f]++ < SHOW)
					printf("  %s mismatch at page %" PRIu64 ": kernel 0x%016" PRIx64
					       " replay 0x%016" PRIx64 " (normalised %u:%#" PRIx64 " vs %u:%#" PRIx64 ")\n",
					       field[f], i, kp[w], rp[w], kt, kv, rt, rv);
			}
		}
		pages_bad += any;
	}
	for (unsigned int f = 0; f <= WORDS; f++)
		printf("memmap-cmp %s: %-36s compared %" PRIu64 " mismatches %" PRIu64 "\n", argv[3],
		       field[f], n[f], bad[f]);
	printf("memmap-cmp %s: %" PRIu64 " pages compared, %" PRIu64 " the kernel wrote (non-zero), %"
	       PRIu64 " differ\n", argv[3], total, written, pages_bad);
	return pages_bad ? 1 : 0;
}
