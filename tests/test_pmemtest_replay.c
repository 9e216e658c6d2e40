// SPDX-License-Identifier: MIT
/*
 * pmemtest's memmap replay: every method, for every kernel model, struct
 * page size and namespace shape, must leave exactly the bytes the slow path
 * computes in every struct page it initialises, set every pageblock, and
 * leave every other byte of the array alone, with the pageblock-aligned
 * pfns copied through the cache (the kernel), streamed (--pageblock-copy
 * stream) or prefetched and copied through the cache (--pageblock-copy
 * prefetch), and compound pages' page[1] and page[2] streamed and drained
 * (the kernel) or copied through the cache (--compound-head cached).
 * init-bench only samples; this checks all. The hints and the drains
 * change no byte: the persistence tracer watches those instructions.
 * test_pmemtest_oracle.c holds the slow path itself to bytes written out
 * from the kernel sources.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../pmemtest/init/init.h"
#include "kflush.h"
#include "trace/tracer.h"

struct shape {
	const char *name;
	bool devdax, altmap;
	uint64_t size, align;
};

static const struct shape shapes[] = {
	{ "fsdax map=dev",          false, true,  12ULL << 20, 2ULL << 20 },
	{ "fsdax map=mem",          false, false, 12ULL << 20, 2ULL << 20 },
	{ "devdax 2M map=dev",      true,  true,  12ULL << 20, 2ULL << 20 },
	{ "devdax 2M map=mem",      true,  false, 12ULL << 20, 2ULL << 20 },
	{ "devdax 4K map=dev",      true,  true,  8ULL << 20,  4096 },
	{ "devdax 1G map=dev",      true,  true,  2ULL << 30,  1ULL << 30 },
};

struct replay_param {
	int shape;
	unsigned int sp;
	int k;		/* index in kernels[]: parameters cross an exec, pointers do not */
};

static const struct replay_kernel *const kernels[] = { &replay_kernel_2026, &replay_kernel_6_1 };

static const unsigned int sizes[] = { 56, 64, 80 };
static const int methods[] = { REPLAY_SLOW, REPLAY_GENERIC, REPLAY_FIXED, REPLAY_WIDE, REPLAY_PMEM2, REPLAY_MEMCPY };
/* The template path's methods: --pageblock-copy applies to them. */
static const int tmpl_methods[] = { REPLAY_GENERIC, REPLAY_FIXED, REPLAY_PMEM2, REPLAY_MEMCPY };

#define NR_SHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NR_PARAMS (NR_SHAPES * 3 * 2)

ParameterizedTestParameters(replay, every_byte)
{
	static struct replay_param p[NR_PARAMS];
	size_t n = 0;

	for (size_t k = 0; k < 2; k++)
		for (size_t s = 0; s < NR_SHAPES; s++)
			for (size_t z = 0; z < 3; z++) {
				if (!replay_kernel_has_size(kernels[k], sizes[z]))
					continue;
				/* One 1 GiB compound page is 20 MiB of memmap: one size does. */
				if (shapes[s].align == (1ULL << 30) && sizes[z] != 80)
					continue;
				p[n++] = (struct replay_param){ (int)s, sizes[z], (int)k };
			}
	return cr_make_param_array(struct replay_param, p, n);
}

#define POISON 0xa7

/* One method over the whole namespace, then every struct page checked. */
static void check_method(struct init_ns *ns, const struct shape *sh, unsigned int sp, int m)
{
	unsigned char exp[80];
	uint64_t pb_set = 0, pb_want = 0;
	char mn[96];
	replay_fn fn = replay_method_fn((enum replay_method)m, sp);

	snprintf(mn, sizeof(mn), "%s (pageblocks %s, compound heads %s)",
		 init_method_name((enum replay_method)m), replay_pageblock_copy_name(ns->rp.pageblock_copy),
		 replay_compound_head_name(ns->rp.compound_head));
	if (!fn) {
		cr_log_info("%s: method %s not usable on this CPU", sh->name, mn);
		return;
	}
	memset(ns->rp.memmap, POISON, ns->memmap_bytes);
	memset(ns->rp.pageblock, 0, (size_t)(ns->npfns / REPLAY_PAGEBLOCK_NR / 2 + 1));
	fn(&ns->rp, ns->rp.start_pfn, ns->rp.end_pfn);

	for (uint64_t pfn = ns->rp.base_pfn; pfn < ns->rp.base_pfn + ns->npfns; pfn++) {
		const unsigned char *got = (const unsigned char *)replay_page(&ns->rp, pfn);
		bool init = replay_expect(&ns->rp, pfn, exp);

		if (init) {
			cr_assert(memcmp(got, exp, sp) == 0,
				  "%s sp %u %s kernel %s: struct page of pfn %#lx differs from the slow path",
				  sh->name, sp, mn, ns->rp.k->name, (unsigned long)pfn);
		} else {
			for (unsigned int b = 0; b < sp; b++)
				cr_assert_eq(got[b], POISON,
					     "%s sp %u %s: pfn %#lx is not initialised but was written",
					     sh->name, sp, mn, (unsigned long)pfn);
		}
		if (!(pfn % REPLAY_PAGEBLOCK_NR)) {
			/* 6.1 marks every pageblock of the range, initialised or not. */
			if (ns->rp.k->pageblocks_after)
				init = pfn >= ns->rp.start_pfn && pfn < ns->rp.end_pfn;
			pb_want += init;
			pb_set += replay_pageblock_get(&ns->rp, pfn) == REPLAY_MIGRATE_MOVABLE;
			if (!init)
				cr_assert_eq(replay_pageblock_get(&ns->rp, pfn), 0,
					     "%s: pageblock of uninitialised pfn %#lx set", mn,
					     (unsigned long)pfn);
		}
	}
	cr_assert_eq(pb_set, pb_want, "%s sp %u %s kernel %s: %lu of %lu pageblocks set", sh->name,
		     sp, mn, ns->rp.k->name, (unsigned long)pb_set, (unsigned long)pb_want);
	cr_assert_gt(pb_want, 0);
}

/* --pageblock-copy prefetch runs only where the instruction is (after KFLUSH_HWCAPS). */
static bool has_prefetchw(void)
{
	return kflush_cpu_features() & KFLUSH_CPU_PREFETCHW;
}

/* A namespace of this shape with its memmap in memory (kernel NULL: the default model). */
static void open_ns(struct init_ns *ns, const struct shape *sh, uint64_t size, unsigned int sp,
		    const struct replay_kernel *k)
{
	memset(ns, 0, sizeof(*ns));
	ns->fd = ns->map_fd = -1;
	snprintf(ns->name, sizeof(ns->name), "test");
	ns->devdax = sh->devdax;
	ns->altmap = sh->altmap;
	ns->size = size;
	ns->align = sh->align;
	ns->sp = sp;
	ns->kernel = k;
	cr_assert_eq(init_geometry(ns), 0, "%s: geometry", sh->name);
	cr_assert_eq(init_storage_open(ns, true), 0, "%s: storage", sh->name);
}

ParameterizedTest(struct replay_param *p, replay, every_byte)
{
	const struct shape *sh = &shapes[p->shape];
	struct init_ns ns;

	open_ns(&ns, sh, sh->size, p->sp, kernels[p->k]);
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++)
		check_method(&ns, sh, p->sp, methods[m]);
	for (int c = REPLAY_PB_STREAM; c <= REPLAY_PB_PREFETCH; c++) {
		if (c == REPLAY_PB_PREFETCH && !has_prefetchw())
			continue;
		ns.rp.pageblock_copy = (enum replay_pageblock_copy)c;
		for (size_t m = 0; m < sizeof(tmpl_methods) / sizeof(tmpl_methods[0]); m++)
			check_method(&ns, sh, p->sp, tmpl_methods[m]);
	}
	/* --compound-head cached: only compound pages have a page[1] and page[2] to copy. */
	ns.rp.pageblock_copy = REPLAY_PB_CACHED;
	ns.rp.compound_head = REPLAY_CH_CACHED;
	if (ns.rp.ppc > 1)
		for (size_t m = 0; m < sizeof(tmpl_methods) / sizeof(tmpl_methods[0]); m++)
			check_method(&ns, sh, p->sp, tmpl_methods[m]);
	init_storage_close(&ns);
}

/* Where generic's copy was called, by pfn (the recording --variant below). */
static struct {
	const struct replay_ns *rp;
	unsigned int calls[8192];
	unsigned long bad;	/* calls outside the array or not at a struct page */
} rec;

static void recording_copy(void *dst, const void *src, size_t n)
{
	uintptr_t off = (uintptr_t)dst - (uintptr_t)rec.rp->memmap;

	if ((uintptr_t)dst < (uintptr_t)rec.rp->memmap || off % rec.rp->sp ||
	    off / rec.rp->sp >= sizeof(rec.calls) / sizeof(rec.calls[0]))
		rec.bad++;
	else
		rec.calls[off / rec.rp->sp]++;
	memcpy(dst, src, n);
}

/*
 * The kernel's rule, written here: the template path copies every
 * initialised pfn's struct page with its streaming copy except a
 * pageblock-aligned pfn's (every 512th), which it copies through the
 * cache; --pageblock-copy stream sends that one through the streaming
 * copy too, and --pageblock-copy prefetch leaves it to the cache.
 * --compound-head cached copies page[1] and page[2] of each compound page
 * (which the kernel streams) through the cache. generic with a recording
 * copy in place of the library's says which pfns went through it, for
 * every pair of choices, both namespace kinds and the vmemmap-optimised
 * compound pages.
 */
Test(replay, pageblock_copy)
{
	static const struct shape *const sh[] = { &shapes[0], &shapes[2], &shapes[3] };

	for (size_t s = 0; s < sizeof(sh) / sizeof(sh[0]); s++)
		for (int c = 0; c < REPLAY_PB_NR; c++)
			for (int ch = 0; ch < REPLAY_CH_NR; ch++) {
				const char *cn = replay_pageblock_copy_name((enum replay_pageblock_copy)c);
				const char *chn = replay_compound_head_name((enum replay_compound_head)ch);
				bool stream = c == REPLAY_PB_STREAM, head_cached = ch == REPLAY_CH_CACHED;
				struct init_ns ns;
				unsigned long streamed = 0, aligned = 0, heads_cached = 0;
				unsigned char exp[64];

				if (c == REPLAY_PB_PREFETCH && !has_prefetchw())
					continue;

				open_ns(&ns, sh[s], 4ULL << 20, 64, NULL);
				cr_assert_leq(ns.npfns, sizeof(rec.calls) / sizeof(rec.calls[0]));
				memset(&rec, 0, sizeof(rec));
				rec.rp = &ns.rp;
				ns.rp.generic_variant = recording_copy;
				ns.rp.pageblock_copy = (enum replay_pageblock_copy)c;
				ns.rp.compound_head = (enum replay_compound_head)ch;
				replay_method_fn(REPLAY_GENERIC, 64)(&ns.rp, ns.rp.start_pfn, ns.rp.end_pfn);
				cr_assert_eq(rec.bad, 0, "%s: %lu copies not to a struct page", sh[s]->name,
					     rec.bad);
				for (uint64_t pfn = ns.rp.base_pfn; pfn < ns.rp.base_pfn + ns.npfns; pfn++) {
					bool init = replay_expect(&ns.rp, pfn, exp);
					uint64_t idx = ns.rp.ppc > 1 ? (pfn - ns.rp.start_pfn) % ns.rp.ppc : 0;
					bool page12 = init && sh[s]->devdax && (idx == 1 || idx == 2);
					unsigned int want = init && (stream || pfn % REPLAY_PAGEBLOCK_NR) &&
							    !(head_cached && page12);

					aligned += !(pfn % REPLAY_PAGEBLOCK_NR) && init;
					heads_cached += head_cached && page12;
					streamed += rec.calls[pfn - ns.rp.base_pfn];
					cr_assert_eq(rec.calls[pfn - ns.rp.base_pfn], want,
						     "%s, pageblocks %s, compound heads %s: pfn %#lx went "
						     "through the streaming copy %u times, want %u",
						     sh[s]->name, cn, chn, (unsigned long)pfn,
						     rec.calls[pfn - ns.rp.base_pfn], want);
				}
				cr_assert_gt(aligned, 0, "%s: no pageblock-aligned pfn initialised", sh[s]->name);
				if (sh[s]->devdax && head_cached)
					cr_assert_gt(heads_cached, 0, "%s: no compound page initialised",
						     sh[s]->name);
				cr_log_info("%s, pageblocks %s, compound heads %s: %lu streamed copies, "
					    "%lu pageblock-aligned pfns", sh[s]->name, cn, chn, streamed, aligned);
				init_storage_close(&ns);
			}
}

/* The geometry the kernel's rules give, for the seed's 100 GiB namespaces. */
Test(replay, seed_geometry)
{
	struct init_ns ns;

	memset(&ns, 0, sizeof(ns));
	ns.size = 100ULL << 30;
	ns.align = 2ULL << 20;
	ns.sp = 64;
	ns.altmap = true;
	cr_assert_eq(init_geometry(&ns), 0);
	/*
	 * nd_pfn_init(): 8 KiB info block + 64 B per pfn after it, rounded up
	 * to 2 MiB: 1602 MiB = 410112 pfns before the data.
	 */
	cr_assert_eq(ns.memmap_bytes, 1600ULL << 20);
	cr_assert_eq(ns.rp.start_pfn - ns.rp.base_pfn, 410112);
	cr_assert_eq(ns.pfns_init, 26214400 - 410112);
	/* The rig's 4 GiB namespaces: the info block says dataoff 0x4200000. */
	ns.size = 4ULL << 30;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert_eq((ns.rp.start_pfn - ns.rp.base_pfn) << 12, 0x4200000);
	ns.size = 100ULL << 30;
	ns.devdax = true;
	ns.altmap = false;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert(ns.vmemmap_opt);
	cr_assert_eq(ns.rp.compound_nr, 128);
	cr_assert_eq(ns.pfns_init, 26214400 / 512 * 128);
	ns.sp = 80;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert(!ns.vmemmap_opt, "80-byte struct pages are not a power of two");
	cr_assert_eq(ns.rp.compound_nr, 512);
}

/*
 * A real devdax device (the QEMU rig's 4 GiB namespace, align 2M, map=dev):
 * the dax device is the 4030 MiB data area and the kernel initialises
 * every one of its pfns (1031680, its "memmap_init_zone_device initialised"
 * line); the altmap's memmap lies before the device, so nothing is skipped
 * and --memmap dev writes the whole array from the device's first byte.
 */
Test(replay, devdax_data_area)
{
	struct init_ns ns;

	memset(&ns, 0, sizeof(ns));
	ns.size = 4030ULL << 20;
	ns.align = 2ULL << 20;
	ns.sp = 64;
	ns.devdax = true;
	ns.altmap = true;
	ns.data_only = true;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert_eq(ns.pfns_init, 1031680);
	cr_assert_eq(ns.rp.start_pfn, ns.rp.base_pfn);
	cr_assert_eq(ns.rp.end_pfn - ns.rp.start_pfn, 1031680);
	cr_assert(!ns.vmemmap_opt, "an altmap rules out the vmemmap optimisation");
	cr_assert_eq(ns.rp.compound_nr, 512);
	cr_assert_eq(ns.write_lo, 0);
	cr_assert_eq(ns.write_hi, 1031680ULL * 64);
	/* The rig's fsdax replay on the same device: --mode fsdax --align 4K --size 3968M. */
	ns.devdax = false;
	ns.align = 4096;
	ns.size = 3968ULL << 20;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert_eq(ns.pfns_init, 3968ULL << 8);
	cr_assert_eq(ns.rp.ppc, 1);
	/* A device whose kernel memmap is in RAM (map=mem): compound pages optimised. */
	ns.devdax = true;
	ns.align = 2ULL << 20;
	ns.altmap = false;
	ns.size = 4030ULL << 20;
	cr_assert_eq(init_geometry(&ns), 0);
	cr_assert(ns.vmemmap_opt);
	cr_assert_eq(ns.pfns_init, 1031680 / 512 * 128);
}

/* init_report_table()'s text for a fixed and a roof row of the given medians (ms). */
static void report_text_of(bool devdax, enum replay_pageblock_copy pbc, enum replay_compound_head ch,
			   double fixed_ms, double roof_ms, char *out, size_t len)
{
	struct init_result r[REPLAY_NR_METHODS];
	struct init_opts o;
	struct init_ns ns;
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t got;

	cr_assert(tmp && saved >= 0);
	memset(&ns, 0, sizeof(ns));
	snprintf(ns.name, sizeof(ns.name), "test");
	ns.size = 64ULL << 20;
	ns.align = 2ULL << 20;
	ns.sp = 64;
	ns.altmap = true;
	ns.devdax = devdax;
	cr_assert_eq(init_geometry(&ns), 0);
	ns.rp.pageblock_copy = pbc;	/* what the replay ran with: the report's source */
	ns.rp.compound_head = ch;
	memset(&o, 0, sizeof(o));
	o.repeat = 1;
	o.threads = 1;
	o.pageblock_copy = pbc;
	o.compound_head = ch;
	memset(r, 0, sizeof(r));
	r[REPLAY_FIXED] = (struct init_result){ .m = REPLAY_FIXED, .run = true, .runs = 1,
					       .s = { .mean = fixed_ms, .median = fixed_ms, .n = 1 } };
	r[REPLAY_ROOF] = (struct init_result){ .m = REPLAY_ROOF, .run = true, .runs = 1,
					      .s = { .mean = roof_ms, .median = roof_ms, .n = 1 } };
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	init_report_table(&ns, &o, r);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	got = fread(out, 1, len - 1, tmp);
	out[got] = 0;
	fclose(tmp);
}

/* The same for an fsdax namespace with the kernel's compound-head drain. */
static void report_text(enum replay_pageblock_copy pbc, double fixed_ms, double roof_ms, char *out, size_t len)
{
	report_text_of(false, pbc, REPLAY_CH_DRAIN, fixed_ms, roof_ms, out, len);
}

/*
 * pmemtest(1): a fixed/roof target NOT met with the kernel's cached
 * pageblock copy (the default) is followed by the line naming that copy
 * and both other --pageblock-copy choices; met, streamed or prefetched, it
 * is not, and a streamed or prefetched run says so above the table.
 */
Test(replay, fixed_roof_hint)
{
	static const char hint[] = "\n  pageblocks: fixed copies each pageblock-aligned struct page "
				   "through the cache, as the kernel does; --pageblock-copy stream times "
				   "it without that, --pageblock-copy prefetch with its line fetched "
				   "ahead\n";
	static const char streamed[] = "\n  pageblock-aligned pfns: generic, fixed and pmem2 stream "
				       "them with their own copy (--pageblock-copy stream); the kernel "
				       "copies them through the cache\n";
	static const char prefetched[] = "\n  pageblock-aligned pfns: copied through the cache as the "
					 "kernel does, each asking for the next one's lines with "
					 "prefetchw (--pageblock-copy prefetch); the kernel does not "
					 "prefetch them\n";
	static char out[8192];

	report_text(REPLAY_PB_CACHED, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "target fixed/roof >= 0.95: 0.80 (NOT met)"), "%s", out);
	cr_expect(strstr(out, hint), "cached, NOT met: no hint:\n%s", out);
	cr_expect(!strstr(out, streamed), "cached: says streamed:\n%s", out);
	cr_expect(!strstr(out, prefetched), "cached: says prefetched:\n%s", out);
	report_text(REPLAY_PB_STREAM, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "(NOT met)"), "%s", out);
	cr_expect(!strstr(out, hint), "streamed: the hint:\n%s", out);
	cr_expect(strstr(out, streamed), "streamed: not said:\n%s", out);
	cr_expect(!strstr(out, prefetched), "streamed: says prefetched:\n%s", out);
	report_text(REPLAY_PB_PREFETCH, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "(NOT met)"), "%s", out);
	cr_expect(!strstr(out, hint), "prefetched: the hint:\n%s", out);
	cr_expect(strstr(out, prefetched), "prefetched: not said:\n%s", out);
	cr_expect(!strstr(out, streamed), "prefetched: says streamed:\n%s", out);
	report_text(REPLAY_PB_CACHED, 100, 96, out, sizeof(out));
	cr_assert(strstr(out, "target fixed/roof >= 0.95: 0.96 (met)"), "%s", out);
	cr_expect(!strstr(out, hint), "met: the hint:\n%s", out);
}

/*
 * pmemtest(1): on a devdax namespace a fixed/roof NOT met with the
 * kernel's drain before each compound head's rewrite (the default of
 * --compound-head) is followed by the line naming that drain and
 * --compound-head cached; met, cached or fsdax (no compound pages), it is
 * not. A cached run says so above the table, on devdax only.
 */
Test(replay, compound_head_hint)
{
	static const char hint[] = "\n  compound pages: fixed drains before rewriting page[1] and "
				   "page[2] of each, as the kernel does; --compound-head cached times "
				   "it without that\n";
	static const char cached[] = "\n  compound pages: generic, fixed and pmem2 copy page[1] and "
				     "page[2] through the cache and rewrite them with no drain "
				     "(--compound-head cached); the kernel streams them and drains "
				     "first\n";
	static char out[8192];

	report_text_of(true, REPLAY_PB_CACHED, REPLAY_CH_DRAIN, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "target fixed/roof >= 0.95: 0.80 (NOT met)"), "%s", out);
	cr_expect(strstr(out, hint), "devdax, drain, NOT met: no hint:\n%s", out);
	cr_expect(!strstr(out, cached), "devdax, drain: says cached:\n%s", out);
	report_text_of(true, REPLAY_PB_CACHED, REPLAY_CH_CACHED, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "(NOT met)"), "%s", out);
	cr_expect(!strstr(out, hint), "devdax, cached: the hint:\n%s", out);
	cr_expect(strstr(out, cached), "devdax, cached: not said:\n%s", out);
	report_text_of(false, REPLAY_PB_CACHED, REPLAY_CH_DRAIN, 100, 80, out, sizeof(out));
	cr_assert(strstr(out, "(NOT met)"), "%s", out);
	cr_expect(!strstr(out, hint), "fsdax: the compound hint:\n%s", out);
	report_text_of(false, REPLAY_PB_CACHED, REPLAY_CH_CACHED, 100, 80, out, sizeof(out));
	cr_expect(!strstr(out, cached), "fsdax, cached: says cached:\n%s", out);
	report_text_of(true, REPLAY_PB_CACHED, REPLAY_CH_DRAIN, 100, 96, out, sizeof(out));
	cr_assert(strstr(out, "target fixed/roof >= 0.95: 0.96 (met)"), "%s", out);
	cr_expect(!strstr(out, hint), "devdax, met: the hint:\n%s", out);
}

/* What the tracer saw of one replay: hints and the first store to each struct page. */
#define MAX_HINTS 16

struct pf_seen {
	uintptr_t memmap;
	uint64_t npfns;
	unsigned int sp;
	size_t steps;
	size_t *first_store;	/* by pfn - base_pfn; 0: never stored */
	unsigned char *kinds;	/* by pfn - base_pfn: 1 cached store seen, 2 non-temporal */
	size_t sfences;
	size_t nhints;
	struct { uint64_t addr; size_t step; char text[48]; } hint[MAX_HINTS];
};

static void pf_sink(void *ctx, const struct td_insn *in, const struct td_effect *e)
{
	struct pf_seen *s = ctx;

	s->steps++;
	if (e->kind == TD_PREFETCH) {
		if (s->nhints < MAX_HINTS) {
			s->hint[s->nhints].addr = e->addr;
			s->hint[s->nhints].step = s->steps;
			snprintf(s->hint[s->nhints].text, sizeof(s->hint[0].text), "%.40s", in->text);
		}
		s->nhints++;
	}
	s->sfences += e->kind == TD_SFENCE;
	if ((e->kind == TD_STORE || e->kind == TD_STORE_NT) && e->len && e->addr >= s->memmap &&
	    e->addr < s->memmap + s->npfns * s->sp) {
		uint64_t i = (e->addr - s->memmap) / s->sp;

		if (!s->first_store[i])
			s->first_store[i] = s->steps;
		s->kinds[i] |= e->kind == TD_STORE ? 1 : 2;
	}
}

/* The fixed method over the whole of ns, single-stepped in a forked child. */
static void trace_fixed(struct init_ns *ns, struct pf_seen *seen, const char *what)
{
	struct tt_tracer t;
	char why[256] = "", err[256] = "";
	int rc;

	memset(seen, 0, sizeof(*seen));
	seen->memmap = (uintptr_t)ns->rp.memmap;
	seen->npfns = ns->npfns;
	seen->sp = ns->sp;
	seen->first_store = calloc(ns->npfns, sizeof(size_t));
	seen->kinds = calloc(ns->npfns, 1);
	cr_assert(seen->first_store && seen->kinds);
	/* The child is forked here: it sees ns as it is now. */
	rc = tt_start(&t, why, sizeof(why));
	if (rc == 1)
		tt_no_tracer(why, "the prefetch hints were not observed");
	cr_assert_eq(rc, 0, "tracer: %s", why);
	rc = tt_call(&t, (const void *)replay_method_fn(REPLAY_FIXED, ns->sp),
		     (uint64_t)(uintptr_t)&ns->rp, ns->rp.start_pfn, ns->rp.end_pfn, pf_sink, seen,
		     err, sizeof(err));
	tt_stop(&t);
	cr_log_info("%s: %zu steps", what, seen->steps);
	cr_assert_eq(rc, 0, "%s: traced replay: %s", what, err);
}

static void seen_free(struct pf_seen *seen)
{
	free(seen->first_store);
	free(seen->kinds);
}

/*
 * --pageblock-copy prefetch, watched instruction by instruction (the
 * persistence tracer, tests/trace/). The rule, written here: while the
 * replay writes the struct page of a pageblock-aligned pfn P, it issues
 * one prefetchw for each cache line of P + 512's struct page, if the run
 * writes that one (replay_expect(), held to the kernel's bytes by
 * test_pmemtest_oracle.c); no other hint. "While" is pinned by order:
 * after the first store to P - 1's struct page (when written), before the
 * first store to P + 1's. The kernel's copy (cached) and stream issue none.
 * The cases: 4 KiB pages with struct pages of 64 and 80 bytes (two lines),
 * 2 MiB compounds (all 512 struct pages, and the vmemmap-optimised 128),
 * and 1 GiB compounds of 128, where P + 512 is an unwritten tail. A traced
 * step costs tens of microseconds here: the namespaces are a few MiB.
 */
Test(replay, pageblock_prefetch_traced, .timeout = 300)
{
	static const struct shape tshapes[] = {
		{ "fsdax map=dev",     false, true,  6ULL << 20, 2ULL << 20 },
		{ "devdax 2M map=dev", true,  true,  6ULL << 20, 2ULL << 20 },
		{ "devdax 2M map=mem", true,  false, 8ULL << 20, 2ULL << 20 },
		{ "devdax 1G map=mem", true,  false, 2ULL << 30, 1ULL << 30 },
	};
	static const struct { int shape; unsigned int sp; enum replay_pageblock_copy c; } cases[] = {
		{ 0, 64, REPLAY_PB_CACHED }, { 0, 64, REPLAY_PB_STREAM }, { 0, 64, REPLAY_PB_PREFETCH },
		{ 0, 80, REPLAY_PB_PREFETCH }, { 1, 64, REPLAY_PB_PREFETCH },
		{ 2, 64, REPLAY_PB_PREFETCH }, { 3, 64, REPLAY_PB_PREFETCH },
	};
	unsigned long hinted_total = 0, unwritten_next = 0, two_lines = 0;

	if (!has_prefetchw())
		cr_skip_test("this CPU (after KFLUSH_HWCAPS) has no prefetchw");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct shape *sh = &tshapes[cases[k].shape];
		const int c = cases[k].c;
		const char *cn = replay_pageblock_copy_name(cases[k].c);
		struct init_ns ns;
		struct pf_seen seen;
		unsigned char exp[80];
		char what[96];
		size_t want = 0;

		open_ns(&ns, sh, sh->size, cases[k].sp, NULL);
		ns.rp.pageblock_copy = (enum replay_pageblock_copy)c;
		snprintf(what, sizeof(what), "%s sp %u, pageblocks %s", sh->name, ns.sp, cn);
		trace_fixed(&ns, &seen, what);
		cr_assert_leq(seen.nhints, MAX_HINTS, "%s sp %u %s: %zu hints", sh->name, ns.sp,
			      cn, seen.nhints);
		for (uint64_t p = ns.rp.start_pfn; p < ns.rp.end_pfn; p += REPLAY_PAGEBLOCK_NR) {
			uintptr_t next = (uintptr_t)replay_page(&ns.rp, p + REPLAY_PAGEBLOCK_NR);
			uintptr_t lines[2] = { next & ~(uintptr_t)63,
					       (next + ns.sp - 1) & ~(uintptr_t)63 };
			uint64_t i = p - ns.rp.base_pfn;

			cr_assert(!(p % REPLAY_PAGEBLOCK_NR), "start_pfn %#lx not pageblock-aligned",
				  (unsigned long)ns.rp.start_pfn);
			if (!replay_expect(&ns.rp, p, exp))
				continue;
			if (!replay_expect(&ns.rp, p + REPLAY_PAGEBLOCK_NR, exp)) {
				unwritten_next += c == REPLAY_PB_PREFETCH;
				continue;
			}
			if (c != REPLAY_PB_PREFETCH)
				continue;
			for (int l = 0; l < 2; l++) {
				size_t n = 0, at = 0;

				if (l == 1 && lines[1] == lines[0])
					break;
				two_lines += l == 1;
				want++;
				for (size_t h = 0; h < seen.nhints && h < MAX_HINTS; h++)
					if ((seen.hint[h].addr & ~63ULL) == lines[l]) {
						n++;
						at = h;
					}
				cr_assert_eq(n, 1, "%s sp %u: %zu hints for line %d of pfn %#lx's "
					     "struct page, want 1", sh->name, ns.sp, n, l,
					     (unsigned long)(p + REPLAY_PAGEBLOCK_NR));
				cr_assert(strncmp(seen.hint[at].text, "prefetchw", 9) == 0,
					  "%s sp %u: the hint is '%s', not a prefetchw", sh->name,
					  ns.sp, seen.hint[at].text);
				cr_assert(seen.first_store[i + 1] &&
					  seen.hint[at].step < seen.first_store[i + 1],
					  "%s sp %u: pfn %#lx's hint (step %zu) not before the first "
					  "store to pfn %#lx (step %zu)", sh->name, ns.sp,
					  (unsigned long)(p + REPLAY_PAGEBLOCK_NR), seen.hint[at].step,
					  (unsigned long)(p + 1), seen.first_store[i + 1]);
				if (replay_expect(&ns.rp, p - 1, exp))
					cr_assert(seen.hint[at].step > seen.first_store[i - 1],
						  "%s sp %u: pfn %#lx's hint (step %zu) before pfn "
						  "%#lx was written (step %zu)", sh->name, ns.sp,
						  (unsigned long)(p + REPLAY_PAGEBLOCK_NR),
						  seen.hint[at].step, (unsigned long)(p - 1),
						  seen.first_store[i - 1]);
			}
		}
		cr_assert_eq(seen.nhints, want, "%s sp %u, pageblocks %s: %zu hints, want %zu",
			     sh->name, ns.sp, cn, seen.nhints, want);
		hinted_total += want;
		seen_free(&seen);
		init_storage_close(&ns);
	}
	/* The plan above must have had each kind of case in it. */
	cr_assert_gt(hinted_total, 0);
	cr_assert_gt(unwritten_next, 0);
	cr_assert_gt(two_lines, 0);
}

/*
 * --compound-head, watched the same way. The rule, written here: the
 * kernel's path drains once per compound page, after its tails and before
 * page[1] and page[2] are rewritten, and once at the end, one sfence
 * each; page[1] and page[2] take non-temporal stores (streamed with the
 * tails) and then cached ones (the rewrite), page[3] non-temporal ones
 * only. With --compound-head cached: one sfence, at the end, and page[1]
 * and page[2] take cached stores only. 4 KiB pages have no compound pages:
 * one sfence either way.
 */
Test(replay, compound_head_traced, .timeout = 300)
{
	static const struct shape tshapes[] = {
		{ "fsdax map=dev",     false, true,  6ULL << 20, 2ULL << 20 },
		{ "devdax 2M map=dev", true,  true,  6ULL << 20, 2ULL << 20 },
		{ "devdax 2M map=mem", true,  false, 8ULL << 20, 2ULL << 20 },
	};
	static const struct { int shape; enum replay_compound_head ch; } cases[] = {
		{ 0, REPLAY_CH_CACHED }, { 1, REPLAY_CH_DRAIN }, { 1, REPLAY_CH_CACHED },
		{ 2, REPLAY_CH_DRAIN }, { 2, REPLAY_CH_CACHED },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct shape *sh = &tshapes[cases[k].shape];
		const bool drain = cases[k].ch == REPLAY_CH_DRAIN;
		static const unsigned char page_kinds[2][4] = {
			{ 0, 1, 1, 2 },		/* cached: page[1], page[2] cached only */
			{ 0, 3, 3, 2 },		/* drain: streamed, then rewritten */
		};
		struct init_ns ns;
		struct pf_seen seen;
		char what[96];
		uint64_t compounds = 0;

		open_ns(&ns, sh, sh->size, 64, NULL);
		ns.rp.compound_head = cases[k].ch;
		snprintf(what, sizeof(what), "%s, compound heads %s", sh->name,
			 replay_compound_head_name(cases[k].ch));
		trace_fixed(&ns, &seen, what);
		if (sh->devdax)
			for (uint64_t h = ns.rp.start_pfn; h < ns.rp.end_pfn; h += 512, compounds++)
				for (unsigned int idx = 1; idx <= 3; idx++)
					cr_assert_eq(seen.kinds[h + idx - ns.rp.base_pfn],
						     page_kinds[drain][idx],
						     "%s: page[%u] of the compound at pfn %#lx took stores "
						     "of kind %u (1 cached, 2 non-temporal, 3 both), want %u",
						     what, idx, (unsigned long)h,
						     seen.kinds[h + idx - ns.rp.base_pfn], page_kinds[drain][idx]);
		cr_assert_eq(seen.sfences, (drain ? compounds : 0) + 1, "%s: %zu sfences, want %lu",
			     what, seen.sfences, (unsigned long)((drain ? compounds : 0) + 1));
		if (sh->devdax)
			cr_assert_gt(compounds, 1, "%s: too few compound pages to tell", what);
		seen_free(&seen);
		init_storage_close(&ns);
	}
}
