// SPDX-License-Identifier: MIT
/*
 * Dispatch under KFLUSH_HWCAPS masks, against the documentation.
 *
 * The expectations come from libkflush(7), copied into the tables below,
 * never from the registry: the feature names of ENVIRONMENT, and each
 * operation's variants in precedence order with the features each needs
 * and whether it is never bound (DISPATCH, Variants). The registry must
 * list exactly those variants, in that order, with those needs; so a
 * variant that requires too much, or a list in the wrong order, fails on
 * any host, whatever its CPU.
 *
 * The mask is read once, when the library loads, so each case re-executes
 * this program with KFLUSH_HWCAPS set and TEST_DISPATCH_DUMP=1: a
 * constructor then prints what the library detected and bound, and exits
 * before Criterion starts. The parent expects kflush_cpu_features_raw()
 * less the named bits, nothing on stderr, and for every operation the
 * first documented variant, not never bound, whose needs that set meets.
 * The masks: none, every feature alone, every pair (not under
 * KFLUSH_TEST_QUICK), each operation's variants peeled off one by one,
 * for each variant everything the others of its operation need and it
 * does not, and all of them.
 *
 * What the entry point really runs is checked apart from what
 * kflush_variant_bound() says: the child resolves each exported
 * kflush_<op> with dlsym(), which for a GNU ifunc returns the bound
 * target, and names the variant whose kflush_variant_fn() that is.
 * libkflush(7) documents kflush_copy_safe as the one entry point that is
 * a wrapper (it installs the fault handler on the first call).
 *
 * Per-CPU rules (libkflush(7), DISPATCH, Per-CPU rules) are copied into
 * doc_rules[] (tests/doc_rules.c): every binding expectation above applies
 * the documented rule for this host's own CPUID first, but under
 * KFLUSH_CPU_RULES=0, which must bind by the precedence alone (so a
 * rule-only variant shows up as such even on a CPU whose rule names it).
 * The rule function itself is held to them in test_cpu_rules.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "doc_rules.h"
#include "testutil.h"

#define DUMP_ENV "TEST_DISPATCH_DUMP"
#define OUT_MAX 8192
#define MASK_MAX 256

/* libkflush(7), ENVIRONMENT: the names KFLUSH_HWCAPS takes; bits from the ABI. */
static const struct feature {
	const char *name;
	uint64_t bit;
} features[] = {
	{ "sse2", KFLUSH_CPU_SSE2 },		{ "clflush", KFLUSH_CPU_CLFLUSH },
	{ "clflushopt", KFLUSH_CPU_CLFLUSHOPT },	{ "clwb", KFLUSH_CPU_CLWB },
	{ "erms", KFLUSH_CPU_ERMS },		{ "fsrm", KFLUSH_CPU_FSRM },
	{ "fzrm", KFLUSH_CPU_FZRM },		{ "fsrs", KFLUSH_CPU_FSRS },
	{ "rep_good", KFLUSH_CPU_REP_GOOD },	{ "avx2", KFLUSH_CPU_AVX2 },
	{ "avx512f", KFLUSH_CPU_AVX512F },	{ "movdiri", KFLUSH_CPU_MOVDIRI },
	{ "movdir64b", KFLUSH_CPU_MOVDIR64B },	{ "clzero", KFLUSH_CPU_CLZERO },
	{ "prefetchw", KFLUSH_CPU_PREFETCHW },	{ "avx512bw", KFLUSH_CPU_AVX512BW },
};
#define NR_FEATURES (sizeof(features) / sizeof(features[0]))

/* libkflush(7), DISPATCH, Variants: best first; needs are feature names. */
#define V(name, needs) { (name), (needs), 0 }
#define NEVER_BOUND(name) { (name), "", 1 }
#define RULE_ONLY(name, needs) { (name), (needs), 2 }
static const struct doc_op {
	enum kflush_op op;
	const char *name;
	struct doc_variant {
		const char *name, *needs;
		int never_bound;	/* 1: never bound; 2: only by a per-CPU rule */
	} v[9];
} doc[] = {
	{ KFLUSH_OP_MEMCPY_FLUSHCACHE, "memcpy_flushcache", {
		RULE_ONLY("avx512_movdir64b", "avx512f,avx512bw,movdir64b"),
		RULE_ONLY("avx512_x2", "avx512f,avx512bw"),
		RULE_ONLY("avx512_ymm_short_cached", "avx2,avx512f,avx512bw"),
		V("avx512", "avx512f"),
		V("avx2", "avx2"), RULE_ONLY("avx2_short_cached", "avx2"), V("movdir64b", "movdir64b"),
		V("movnti", "sse2"), V("kernel", "") } },
	{ KFLUSH_OP_MEMSET_FLUSHCACHE, "memset_flushcache", {
		V("avx512", "avx512f"), RULE_ONLY("avx512_short_cached", "avx512f,avx512bw"), V("avx2", "avx2"),
		RULE_ONLY("avx2_short_cached", "avx2"), V("movnti", "sse2"), V("kernel", "") } },
	{ KFLUSH_OP_FLUSH, "flush", {
		V("clwb", "clwb"), V("clflushopt", "clflushopt"), V("clflush", "") } },
	{ KFLUSH_OP_MEMCPY, "memcpy", {
		RULE_ONLY("tuned", "erms,avx2"), RULE_ONLY("tuned_prefetchw", "erms,avx2,prefetchw"),
		RULE_ONLY("avx2", "avx2"), V("fsrm", "fsrm"), V("erms", "erms"), V("orig", "") } },
	{ KFLUSH_OP_COPY_SAFE, "copy_safe", {
		V("rep_movsb", "fsrm"), V("erms", "erms"),
		NEVER_BOUND("movsq_tail_overlap"), NEVER_BOUND("movsq_tail_linus"),
		NEVER_BOUND("movsq_tail_first"), V("movsq", "") } },
	{ KFLUSH_OP_CLEAR_PAGE, "clear_page", {
		V("rep_stosb", "erms"), V("rep_stosq", "rep_good"), V("mov", "") } },
	{ KFLUSH_OP_CLEAR_PAGES, "clear_pages", {
		RULE_ONLY("rep_stosq_page", "rep_good"), V("rep_stosb", "erms"),
		V("rep_stosq", "rep_good"), V("mov", "") } },
	{ KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, "clear_pages_flushcache", {
		V("clzero", "clzero"), V("avx512", "avx512f"), V("avx2", "avx2"),
		V("movnti", "") } },
	{ KFLUSH_OP_COPY_PAGE, "copy_page", {
		V("rep_movsb", "erms"), V("rep_movsq", "rep_good"), V("mov", "") } },
	{ KFLUSH_OP_MEMMOVE_FLUSHCACHE, "memmove_flushcache", {
		V("avx512", "avx512f"), V("avx2", "avx2"), RULE_ONLY("avx2_short_cached", "avx2"),
		V("movnti", "sse2"), V("kernel", "") } },
};
#define NR_DOC (sizeof(doc) / sizeof(doc[0]))

/* libkflush(7), DISPATCH: the entry point that is a wrapper, not an ifunc. */
static int doc_wrapper(enum kflush_op op)
{
	return op == KFLUSH_OP_COPY_SAFE;
}

static size_t doc_count(const struct doc_op *d)
{
	size_t n = 0;

	while (n < sizeof(d->v) / sizeof(d->v[0]) && d->v[n].name)
		n++;
	return n;
}

/* "a,b" -> bits, through the table above only. */
static uint64_t needs_bits(const char *needs)
{
	uint64_t bits = 0;
	const char *p = needs;

	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < NR_FEATURES; i++)
			if (strlen(features[i].name) == len && strncmp(features[i].name, p, len) == 0)
				break;
		cr_assert_lt(i, NR_FEATURES, "test table: unknown feature in '%s'", needs);
		bits |= features[i].bit;
		p += len + (p[len] == ',');
	}
	return bits;
}

/* The bits a KFLUSH_HWCAPS value names ("-a,-b"); other entries add nothing. */
static uint64_t mask_bits(const char *mask)
{
	uint64_t bits = 0;
	const char *p = mask;

	while (p && *p) {
		size_t len = strcspn(p, ",");

		for (size_t i = 0; i < NR_FEATURES; i++)
			if (len > 1 && p[0] == '-' && strlen(features[i].name) == len - 1 &&
			    strncmp(features[i].name, p + 1, len - 1) == 0)
				bits |= features[i].bit;
		p += len + (p[len] == ',');
	}
	return bits;
}

/*
 * Where variant @i of @d stands in this host's binding order: its
 * per-CPU rule's place among the host's rules for the operation, if
 * @rules (KFLUSH_CPU_RULES=0 turns them off, libkflush(7), ENVIRONMENT),
 * then the precedence of the variants neither never bound nor rule-only;
 * SIZE_MAX if nothing binds it.
 */
static size_t bind_rank(const struct doc_op *d, size_t i, int rules)
{
	const struct doc_rule *r;
	unsigned int nth;

	if (!doc_host.vendor[0])
		doc_read_host();
	for (nth = 0; rules && (r = doc_rule_for(doc_host.vendor, doc_host.family, doc_host.model,
						 d->op, nth)); nth++)
		if (strcmp(r->variant, d->v[i].name) == 0)
			return nth;
	return d->v[i].never_bound ? SIZE_MAX : nth + i;
}

/* The documented variant this host binds with `have`: the runnable one first in the order. */
static size_t expected_rules(const struct doc_op *d, uint64_t have, int rules)
{
	size_t best = SIZE_MAX, at = 0;

	for (size_t i = 0; i < doc_count(d); i++) {
		size_t rank = bind_rank(d, i, rules);

		if ((needs_bits(d->v[i].needs) & ~have) == 0 && rank < best) {
			best = rank;
			at = i;
		}
	}
	if (best == SIZE_MAX)
		cr_assert_fail("%s: the documentation leaves it unbound", d->name);
	return at;
}

static size_t expected(const struct doc_op *d, uint64_t have)
{
	return expected_rules(d, have, 1);
}

__attribute__((constructor)) static void dump_and_exit(void)
{
	if (!getenv(DUMP_ENV))
		return;
	printf("raw %" PRIx64 "\nfeatures %" PRIx64 "\n", kflush_cpu_features_raw(),
	       kflush_cpu_features());
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		int b = kflush_variant_bound((enum kflush_op)op);
		const char *v = kflush_variant_name((enum kflush_op)op, (unsigned int)b);

		printf("bound %s %s\n", kflush_op_name((enum kflush_op)op), v ? v : "(none)");
	}
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		char sym[64];
		void *entry;
		const char *v = "(wrapper)";

		snprintf(sym, sizeof(sym), "kflush_%s", kflush_op_name((enum kflush_op)op));
		entry = dlsym(RTLD_DEFAULT, sym);
		for (int i = 0; i < kflush_variant_count((enum kflush_op)op); i++) {
			kflush_fn fn = kflush_variant_fn((enum kflush_op)op, (unsigned int)i);

			if (fn && (void *)fn == entry)
				v = kflush_variant_name((enum kflush_op)op, (unsigned int)i);
		}
		printf("entry %s %s\n", kflush_op_name((enum kflush_op)op), entry ? v : "(none)");
	}
	fflush(stdout);
	_exit(ferror(stdout) ? 1 : 0);
}

struct child {
	uint64_t raw, features;
	char bound[KFLUSH_NR_OPS][64];
	char entry[KFLUSH_NR_OPS][64];	/* the variant dlsym() resolves the entry to */
	char err[OUT_MAX];
};

/*
 * Re-run this program with KFLUSH_HWCAPS=mask and KFLUSH_CPU_RULES=rules
 * (NULL: unset) and parse its dump.
 */
static void spawn_dump_rules(const char *mask, const char *rules, struct child *c)
{
	static const char *const unset[] = { "KFLUSH_HWCAPS", "KFLUSH_CPU_RULES", NULL };
	static char self[4096], dump_var[] = DUMP_ENV "=1";
	char out[OUT_MAX], *set[4] = { dump_var }, *hw = NULL, *ru = NULL, *line, *save;
	char *argv[] = { self, NULL };
	int status, nset = 1, nbound = 0, nentry = 0;
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert(sl > 0);
	self[sl] = '\0';
	if (mask) {
		cr_assert(asprintf(&hw, "KFLUSH_HWCAPS=%s", mask) > 0);
		set[nset++] = hw;
	}
	if (rules) {
		cr_assert(asprintf(&ru, "KFLUSH_CPU_RULES=%s", rules) > 0);
		set[nset++] = ru;
	}
	status = tu_spawn(self, argv, unset, set, out, sizeof(out), c->err, sizeof(c->err));
	free(hw);
	free(ru);
	cr_assert(status != -1, "cannot run %s", self);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child with KFLUSH_HWCAPS=%s failed; stderr: %s", mask ? mask : "(unset)", c->err);

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (sscanf(line, "raw %" SCNx64, &c->raw) == 1 ||
		    sscanf(line, "features %" SCNx64, &c->features) == 1)
			continue;
		if (strncmp(line, "entry ", 6) == 0) {
			cr_assert_lt(nentry, KFLUSH_NR_OPS);
			cr_assert(sscanf(line, "entry %63s %63s", name, c->entry[nentry]) == 2,
				  "bad line: %s", line);
			cr_assert_str_eq(name, kflush_op_name((enum kflush_op)nentry));
			nentry++;
			continue;
		}
		cr_assert_lt(nbound, KFLUSH_NR_OPS);
		cr_assert(sscanf(line, "bound %63s %63s", name, c->bound[nbound]) == 2,
			  "bad line: %s", line);
		cr_assert_str_eq(name, kflush_op_name((enum kflush_op)nbound));
		nbound++;
	}
	cr_assert_eq(nbound, KFLUSH_NR_OPS, "child printed %d ops", nbound);
	cr_assert_eq(nentry, KFLUSH_NR_OPS, "child printed %d entry points", nentry);
}

static void spawn_dump(const char *mask, struct child *c)
{
	spawn_dump_rules(mask, NULL, c);
}

/* The child's binding against the documentation, with or without the rules. */
static void check_child_rules(const char *mask, int rules, const struct child *c)
{
	uint64_t raw = kflush_cpu_features_raw(), have = raw & ~mask_bits(mask);

	cr_assert_eq(c->raw, raw, "KFLUSH_HWCAPS=%s: raw features %#" PRIx64
		     " differ from unmasked %#" PRIx64, mask, c->raw, raw);
	cr_assert_eq(c->features, have, "KFLUSH_HWCAPS=%s: features %#" PRIx64
		     ", expected %#" PRIx64 " (raw less the named bits)", mask, c->features, have);
	for (size_t o = 0; o < NR_DOC; o++) {
		const struct doc_op *d = &doc[o];
		const char *want = d->v[expected_rules(d, have, rules)].name;

		cr_expect_str_eq(c->bound[d->op], want,
				 "KFLUSH_HWCAPS=%s%s: %s bound %s, the documented precedence gives %s",
				 mask, rules ? "" : " KFLUSH_CPU_RULES=0", d->name, c->bound[d->op],
				 want);
		if (doc_wrapper(d->op))
			want = "(wrapper)";
		cr_expect_str_eq(c->entry[d->op], want,
				 "KFLUSH_HWCAPS=%s: kflush_%s runs %s, documented %s",
				 mask, d->name, c->entry[d->op], want);
	}
}

static void check_child(const char *mask, const struct child *c)
{
	check_child_rules(mask, 1, c);
}

/* The registry lists what the documentation lists: names, order, needs. */
Test(dispatch, registry_is_documented)
{
	cr_assert_eq(KFLUSH_NR_OPS, (int)NR_DOC, "the test documents %zu ops, the library has %d",
		     NR_DOC, KFLUSH_NR_OPS);
	for (size_t o = 0; o < NR_DOC; o++) {
		const struct doc_op *d = &doc[o];
		size_t n = doc_count(d);

		cr_assert_str_eq(kflush_op_name(d->op), d->name);
		cr_expect_eq(kflush_variant_count(d->op), (int)n, "%s: %d variants, documented %zu",
			     d->name, kflush_variant_count(d->op), n);
		for (size_t i = 0; i < n; i++) {
			const char *got = kflush_variant_name(d->op, (unsigned int)i);
			uint64_t req = kflush_variant_requires(d->op, (unsigned int)i);

			cr_expect(got && strcmp(got, d->v[i].name) == 0,
				  "%s: variant %zu is %s, documented %s", d->name, i,
				  got ? got : "(none)", d->v[i].name);
			cr_expect_eq(req, needs_bits(d->v[i].needs),
				     "%s/%s requires %#" PRIx64 ", documented '%s' (%#" PRIx64 ")",
				     d->name, d->v[i].name, req, d->v[i].needs, needs_bits(d->v[i].needs));
			cr_expect_eq(kflush_variant_bindable(d->op, (unsigned int)i), d->v[i].never_bound != 1,
				     "%s/%s: bindable %d, documented %s", d->name, d->v[i].name,
				     kflush_variant_bindable(d->op, (unsigned int)i),
				     d->v[i].never_bound ? "never bound" : "bindable");
			cr_expect_eq(kflush_variant_find(d->op, d->v[i].name), (int)i,
				     "%s: kflush_variant_find(%s)", d->name, d->v[i].name);
		}
	}
}

/* The names are KFLUSH_CPU_NR_FEATURES distinct bits, named as documented. */
Test(dispatch, feature_names)
{
	uint64_t all = 0;

	cr_assert_eq(NR_FEATURES, (size_t)KFLUSH_CPU_NR_FEATURES);
	for (size_t i = 0; i < NR_FEATURES; i++) {
		const char *n = kflush_cpu_feature_name(features[i].bit);

		cr_expect(!(all & features[i].bit), "%s: bit shared", features[i].name);
		all |= features[i].bit;
		cr_expect(n && strcmp(n, features[i].name) == 0,
			  "kflush_cpu_feature_name(%#" PRIx64 ") is %s, documented %s",
			  features[i].bit, n ? n : "NULL", features[i].name);
	}
	cr_expect_eq(all, (1ULL << KFLUSH_CPU_NR_FEATURES) - 1);
	cr_expect_null(kflush_cpu_feature_name(0));
	cr_expect_null(kflush_cpu_feature_name(KFLUSH_CPU_CLWB | KFLUSH_CPU_AVX2));
	cr_expect_null(kflush_cpu_feature_name(1ULL << KFLUSH_CPU_NR_FEATURES));
}

/* -name clears exactly its bit and prints nothing, whether the CPU has it or not. */
Test(dispatch, every_name_masks_its_bit)
{
	uint64_t raw = kflush_cpu_features_raw();

	for (size_t i = 0; i < NR_FEATURES; i++) {
		char mask[64];
		struct child c;

		snprintf(mask, sizeof(mask), "-%s", features[i].name);
		spawn_dump(mask, &c);
		cr_expect_str_empty(c.err, "KFLUSH_HWCAPS=%s printed: %s", mask, c.err);
		cr_expect_eq(c.features, raw & ~features[i].bit,
			     "KFLUSH_HWCAPS=%s: features %#" PRIx64 ", expected %#" PRIx64
			     " (only %s cleared)%s", mask, c.features, raw & ~features[i].bit,
			     features[i].name, raw & features[i].bit ? "" : "; this CPU lacks it");
	}
}

/* Every mask the cases run, distinct: see the comment at the top. */
static size_t build_masks(char (*out)[MASK_MAX], size_t max)
{
	uint64_t sets[512];
	size_t n = 0;

#define ADD(bits) do {								\
		uint64_t b_ = (bits);						\
		size_t k_ = 0;							\
		while (k_ < n && sets[k_] != b_)				\
			k_++;							\
		if (k_ == n && n < max && n < 512)				\
			sets[n++] = b_;						\
	} while (0)

	ADD(0);
	for (size_t i = 0; i < NR_FEATURES; i++)
		ADD(features[i].bit);
	/* KFLUSH_TEST_QUICK (the QEMU rig's TCG guests): no pairs. */
	if (!getenv("KFLUSH_TEST_QUICK"))
		for (size_t i = 0; i < NR_FEATURES; i++)
			for (size_t j = i + 1; j < NR_FEATURES; j++)
				ADD(features[i].bit | features[j].bit);
	for (size_t o = 0; o < NR_DOC; o++) {
		uint64_t peel = 0;

		for (size_t i = 0; i + 1 < doc_count(&doc[o]); i++) {
			peel |= needs_bits(doc[o].v[i].needs);
			ADD(peel);
		}
		/*
		 * Each variant with everything the others need and it does not
		 * masked: the mask that binds it if any does, also where reaching
		 * it takes two features off (a pair, not made under
		 * KFLUSH_TEST_QUICK).
		 */
		uint64_t all = 0;

		for (size_t i = 0; i < doc_count(&doc[o]); i++)
			all |= needs_bits(doc[o].v[i].needs);
		for (size_t i = 0; i < doc_count(&doc[o]); i++)
			ADD(all & ~needs_bits(doc[o].v[i].needs));
	}
	ADD((1ULL << KFLUSH_CPU_NR_FEATURES) - 1);
#undef ADD

	for (size_t k = 0; k < n; k++) {
		size_t len = 0;

		out[k][0] = '\0';
		for (size_t i = 0; i < NR_FEATURES; i++)
			if (sets[k] & features[i].bit)
				len += (size_t)snprintf(out[k] + len, MASK_MAX - len, "%s-%s",
							len ? "," : "", features[i].name);
	}
	return n;
}

struct mask_case {
	char mask[MASK_MAX];
};

ParameterizedTestParameters(dispatch, mask)
{
	static char masks[512][MASK_MAX];
	static struct mask_case cases[512];
	size_t n = build_masks(masks, 512);

	for (size_t i = 0; i < n; i++)
		memcpy(cases[i].mask, masks[i], MASK_MAX);
	return cr_make_param_array(struct mask_case, cases, n);
}

ParameterizedTest(struct mask_case *m, dispatch, mask)
{
	struct child c;

	spawn_dump(m->mask, &c);
	cr_assert_str_empty(c.err, "KFLUSH_HWCAPS=%s printed: %s", m->mask, c.err);
	check_child(m->mask, &c);
}

/* With no variable at all, nothing is masked and nothing is printed. */
Test(dispatch, unset)
{
	struct child c;

	spawn_dump(NULL, &c);
	cr_assert_str_empty(c.err);
	check_child("", &c);
}

/* This process's own binding, under whatever mask it runs with. */
Test(dispatch, self)
{
	const char *env = getenv("KFLUSH_HWCAPS");
	uint64_t have = kflush_cpu_features_raw() & ~mask_bits(env ? env : "");

	cr_assert_eq(kflush_cpu_features(), have);
	for (size_t o = 0; o < NR_DOC; o++) {
		const struct doc_op *d = &doc[o];
		int b = kflush_variant_bound(d->op);
		const char *got = kflush_variant_name(d->op, (unsigned int)b);

		cr_expect(got && strcmp(got, d->v[expected_rules(d, have, doc_rules_on())].name) == 0,
			  "%s bound %s, documented %s", d->name, got ? got : "(none)",
			  d->v[expected_rules(d, have, doc_rules_on())].name);
		cr_expect_eq(kflush_variant_usable(d->op, (unsigned int)b), 1);
		cr_expect_not_null(kflush_variant_fn(d->op, (unsigned int)b));
		if (!doc_wrapper(d->op)) {
			char sym[64];

			snprintf(sym, sizeof(sym), "kflush_%s", d->name);
			cr_expect(dlsym(RTLD_DEFAULT, sym) ==
				  (void *)kflush_variant_fn(d->op, (unsigned int)b),
				  "%s does not resolve to the bound %s", sym, got ? got : "(none)");
		}
	}
	cr_assert(kflush_cpu_features_raw() & KFLUSH_CPU_SSE2);
	cr_assert(kflush_cpu_features_raw() & KFLUSH_CPU_CLFLUSH);
}

/*
 * The masks reach every documented variant this CPU can run that is not
 * never bound or shadowed (one ahead of it in the binding order, needing
 * no more, always wins): with the mask cases above passing, each of them
 * was really bound.
 */
Test(dispatch, masks_reach_every_variant)
{
	static char masks[512][MASK_MAX];
	size_t n = build_masks(masks, 512);
	uint64_t raw = kflush_cpu_features_raw();

	for (size_t o = 0; o < NR_DOC; o++) {
		const struct doc_op *d = &doc[o];
		unsigned int seen = 0;

		for (size_t m = 0; m < n; m++)
			seen |= 1U << expected(d, raw & ~mask_bits(masks[m]));
		for (size_t i = 0; i < doc_count(d); i++) {
			uint64_t req = needs_bits(d->v[i].needs);
			size_t rank = bind_rank(d, i, 1);
			int shadowed = 0;

			for (size_t j = 0; j < doc_count(d); j++)
				if (j != i && (needs_bits(d->v[j].needs) & ~req) == 0 &&
				    bind_rank(d, j, 1) < rank)
					shadowed = 1;
			if (rank == SIZE_MAX || (req & ~raw) || shadowed) {
				if (req & ~raw)
					cr_log_info("%s/%s: this CPU cannot run it", d->name,
						    d->v[i].name);
				continue;
			}
			cr_expect(seen & (1U << i), "%s/%s is bound under no mask", d->name,
				  d->v[i].name);
		}
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

Test(dispatch, unknown_names)
{
	static const char *const bad[] = {
		"-bogus", "foo", "clwb", "-CLZERO", "-clzer", "-clzeroo", "--clzero", "-",
		"-clwb ", "+clwb",
	};
	uint64_t raw = kflush_cpu_features_raw();
	struct child c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char quoted[64];

		spawn_dump(bad[i], &c);
		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		cr_expect_eq(count(c.err, quoted), 1, "KFLUSH_HWCAPS=%s: stderr: %s", bad[i], c.err);
		cr_expect_eq(count(c.err, "\n"), 1, "KFLUSH_HWCAPS=%s: stderr: %s", bad[i], c.err);
		cr_expect_eq(c.features, raw, "KFLUSH_HWCAPS=%s masked %#" PRIx64, bad[i],
			     raw & ~c.features);
		check_child("", &c);
	}

	/* Known entries next to unknown ones still apply; empty entries are no error. */
	spawn_dump("-bogus,-clwb,,clwb", &c);
	cr_assert_eq(count(c.err, "'-bogus'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "'clwb'"), 1, "stderr: %s", c.err);
	cr_assert_eq(count(c.err, "\n"), 2, "stderr: %s", c.err);
	check_child("-clwb", &c);
}

/*
 * KFLUSH_CPU_RULES=0: the precedence alone, with no mask and with each
 * feature masked alone; whatever this CPU's rules are, a rule-only
 * variant is then never bound. 1 is the default; any other value is
 * reported once and leaves the rules on.
 */
Test(dispatch, rules_off)
{
	static const char *const bad[] = { "", "00", "off", "1 " };
	struct child c;

	spawn_dump_rules(NULL, "0", &c);
	cr_expect_str_empty(c.err, "KFLUSH_CPU_RULES=0 printed: %s", c.err);
	check_child_rules("", 0, &c);
	for (size_t i = 0; i < NR_FEATURES; i++) {
		char mask[64];

		snprintf(mask, sizeof(mask), "-%s", features[i].name);
		spawn_dump_rules(mask, "0", &c);
		cr_expect_str_empty(c.err, "KFLUSH_HWCAPS=%s KFLUSH_CPU_RULES=0 printed: %s", mask,
				    c.err);
		check_child_rules(mask, 0, &c);
	}
	spawn_dump_rules(NULL, "1", &c);
	cr_expect_str_empty(c.err, "KFLUSH_CPU_RULES=1 printed: %s", c.err);
	check_child_rules("", 1, &c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char quoted[64];

		spawn_dump_rules(NULL, bad[i], &c);
		snprintf(quoted, sizeof(quoted), "KFLUSH_CPU_RULES: ignoring '%s'", bad[i]);
		cr_expect_eq(count(c.err, quoted), 1, "KFLUSH_CPU_RULES='%s': stderr: %s", bad[i],
			     c.err);
		cr_expect_eq(count(c.err, "\n"), 1, "KFLUSH_CPU_RULES='%s': stderr: %s", bad[i],
			     c.err);
		check_child_rules("", 1, &c);
	}
}
