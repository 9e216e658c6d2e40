// SPDX-License-Identifier: MIT
/*
 * The per-CPU rules (lib/x86_64/cpu_rules.c, compiled into this program)
 * against libkflush(7), DISPATCH, Per-CPU rules, as copied into
 * doc_rules[] (tests/doc_rules.c): for synthetic vendor/family/model
 * inputs the rule function must give exactly the documented variant, and
 * for kflush_memcpy the documented rep movsb switch-over. That the library
 * binds by them on this host is test_dispatch's part.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "internal.h"
#include "doc_rules.h"

/*
 * The rule function against the documented rules, on synthetic CPUs:
 * every documented rule at both ends of its model range, and the
 * neighbours just outside it, other families and other vendors.
 */
static void check_rule(const char *vendor, unsigned int family, unsigned int model)
{
	for (int op = 0; op < KFLUSH_NR_OPS; op++)
		for (unsigned int nth = 0;; nth++) {
			const struct doc_rule *want = doc_rule_for(vendor, family, model,
								   (enum kflush_op)op, nth);
			struct kflush_memcpy_tuning t = { 12345, 7 };
			const char *got = kflush_cpu_rule(vendor, signature(family, model),
							  (enum kflush_op)op, nth, &t);

			if (!want) {
				cr_expect_null(got, "%s family %#x model %#x %s rule %u: %s, "
					       "documented none", vendor, family, model,
					       kflush_op_name((enum kflush_op)op), nth, got);
				break;
			}
			cr_expect(got && strcmp(got, want->variant) == 0,
				  "%s family %#x model %#x %s rule %u: %s, documented %s", vendor,
				  family, model, kflush_op_name((enum kflush_op)op), nth,
				  got ? got : "none", want->variant);
			if (op == KFLUSH_OP_MEMCPY && (strcmp(want->variant, "tuned") == 0 ||
						       strcmp(want->variant, "tuned_prefetchw") == 0))
				cr_expect(t.movsb_min == want->movsb_min &&
					  t.avoid_near == want->avoid_near,
					  "%s family %#x model %#x rule %u: rep movsb from %zu "
					  "avoid_near %d, documented %zu %d", vendor, family, model,
					  nth, t.movsb_min, t.avoid_near, want->movsb_min,
					  want->avoid_near);
			else	/* only a rule for a tuned variant sets the switch-over */
				cr_expect(t.movsb_min == 12345 && t.avoid_near == 7,
					  "%s family %#x model %#x %s rule %u: tuning set by a %s rule",
					  vendor, family, model, kflush_op_name((enum kflush_op)op),
					  nth, want->variant);
			if (!got)
				break;
		}
}

Test(dispatch, cpu_rules)
{
	static const char *const vendors[] = {
		"AuthenticAMD", "GenuineIntel", "HygonGenuine", "CentaurHauls",
	};

	for (size_t i = 0; i < nr_doc_rules; i++) {
		const struct doc_rule *r = &doc_rules[i];
		const unsigned int models[] = { r->model_min, r->model_max,
						r->model_min - 1, r->model_max + 1 };

		for (size_t v = 0; v < sizeof(vendors) / sizeof(vendors[0]); v++)
			for (size_t m = 0; m < 4; m++) {
				if (models[m] > 0xff)
					continue;
				check_rule(vendors[v], r->family, models[m]);
				check_rule(vendors[v], r->family + 1, models[m]);
				check_rule(vendors[v], r->family - 1, models[m]);
			}
	}
}

/*
 * The CPUs of this project's machines, by name: the rule each chain has
 * at that place, or NULL where it ends, as libkflush(7) documents them.
 */
Test(dispatch, cpu_rules_by_name)
{
	static const struct {
		const char *vendor;
		unsigned int family, model;
		enum kflush_op op;
		unsigned int nth;
		const char *want, *what;
	} named[] = {
		{ "AuthenticAMD", 0x1a, 0x02, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0, "avx2", "Zen 5" },
		{ "AuthenticAMD", 0x1a, 0x02, KFLUSH_OP_MEMMOVE_FLUSHCACHE, 0, "avx2",
		  "Zen 5 flush-move" },
		{ "AuthenticAMD", 0x1a, 0x02, KFLUSH_OP_MEMSET_FLUSHCACHE, 0, NULL,
		  "Zen 5: no flush-memset rule" },
		{ "AuthenticAMD", 0x1a, 0x02, KFLUSH_OP_COPY_SAFE, 0, NULL,
		  "Zen 5: no copy_safe rule" },
		{ "AuthenticAMD", 0x19, 0x01, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0, NULL,
		  "Zen 3: no flush-copy rule" },
		{ "AuthenticAMD", 0x19, 0x01, KFLUSH_OP_COPY_SAFE, 0, "movsq", "Zen 3 copy_safe" },
		{ "AuthenticAMD", 0x19, 0x01, KFLUSH_OP_CLEAR_PAGES, 0, NULL,
		  "Zen 3: no clear_pages rule" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMCPY, 0, "avx2", "Zen 4 (Genoa) memcpy" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0,
		  "avx512_ymm_short_cached", "Zen 4 (Genoa) flush-copy" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, 1, "avx2_short_cached",
		  "Zen 4 (Genoa) flush-copy without avx512bw" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, 2, NULL,
		  "Zen 4 (Genoa) flush-copy: two rules" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, 0, "avx512_short_cached",
		  "Zen 4 (Genoa) flush-fill" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, 1, "avx2_short_cached",
		  "Zen 4 (Genoa) flush-fill without avx512bw" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_MEMMOVE_FLUSHCACHE, 0, "avx2_short_cached",
		  "Zen 4 (Genoa) flush-move" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_COPY_SAFE, 0, "movsq",
		  "Zen 4 (Genoa) copy_safe" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, 0, "avx512",
		  "Zen 4 (Genoa) clear_pages_flushcache" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, 1, "avx2",
		  "Zen 4 (Genoa) clear_pages_flushcache without avx512f" },
		{ "AuthenticAMD", 0x19, 0x11, KFLUSH_OP_CLEAR_PAGES, 0, NULL,
		  "Zen 4 (Genoa): no clear_pages rule" },
		{ "AuthenticAMD", 0x19, 0x10, KFLUSH_OP_MEMCPY, 0, NULL,
		  "Zen 4 model 0x10: not measured, no rule" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_MEMCPY, 0, "avx2", "Zen 2 (Rome) memcpy" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0, "avx2_short_cached",
		  "Zen 2 (Rome) flush-copy" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_MEMSET_FLUSHCACHE, 0, "avx2_short_cached",
		  "Zen 2 (Rome) flush-fill" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_MEMMOVE_FLUSHCACHE, 0, "avx2_short_cached",
		  "Zen 2 (Rome) flush-move" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_CLEAR_PAGES, 0, "rep_stosq_page",
		  "Zen 2 (Rome) clear_pages" },
		{ "AuthenticAMD", 0x17, 0x31, KFLUSH_OP_CLEAR_PAGE, 0, NULL,
		  "Zen 2: no clear_page rule" },
		{ "GenuineIntel", 0x06, 0x8f, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0, NULL,
		  "Sapphire Rapids" },
		{ "GenuineIntel", 0x06, 0xa7, KFLUSH_OP_MEMCPY, 1, "tuned",
		  "model 0xa7 memcpy without prefetchw" },
		{ "GenuineIntel", 0x06, 0xa7, KFLUSH_OP_MEMCPY_FLUSHCACHE, 1, NULL,
		  "model 0xa7 flush-copy: one rule (no fallback measured)" },
		{ "GenuineIntel", 0x06, 0xa7, KFLUSH_OP_COPY_SAFE, 0, "erms",
		  "model 0xa7 copy_safe" },
		{ "GenuineIntel", 0x06, 0xa7, KFLUSH_OP_MEMSET_FLUSHCACHE, 0, "avx512_short_cached",
		  "model 0xa7 flush-fill" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, 0, "avx512_x2",
		  "Emerald Rapids flush-copy" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMMOVE_FLUSHCACHE, 0, NULL,
		  "Emerald Rapids: no flush-move rule" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY, 0, "tuned_prefetchw",
		  "Emerald Rapids memcpy" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY, 1, "tuned",
		  "Emerald Rapids memcpy without prefetchw" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY, 2, NULL,
		  "Emerald Rapids memcpy: two rules" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, 1, "avx512",
		  "Emerald Rapids flush-copy without avx512bw" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, 2, "avx2_short_cached",
		  "Emerald Rapids flush-copy without avx512f" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, 3, NULL,
		  "Emerald Rapids flush-copy: three rules" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, 1, "avx2_short_cached",
		  "Emerald Rapids flush-fill without avx512bw" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, 2, NULL,
		  "Emerald Rapids flush-fill: two rules" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, 0, "avx512_short_cached",
		  "Emerald Rapids flush-fill" },
		{ "GenuineIntel", 0x06, 0xcf, KFLUSH_OP_COPY_SAFE, 0, "erms",
		  "Emerald Rapids copy_safe" },
		{ "HygonGenuine", 0x18, 0x01, KFLUSH_OP_MEMCPY, 0, NULL, "Hygon: no rule" },
	};

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		const char *got = kflush_cpu_rule(named[i].vendor,
						  signature(named[i].family, named[i].model),
						  named[i].op, named[i].nth, NULL);

		if (!named[i].want)
			cr_expect_null(got, "%s: %s", named[i].what, got);
		else
			cr_expect(got && strcmp(got, named[i].want) == 0, "%s: %s, documented %s",
				  named[i].what, got ? got : "none", named[i].want);
	}
}

static int tuned_name(const char *variant)
{
	return strcmp(variant, "tuned") == 0 || strcmp(variant, "tuned_prefetchw") == 0;
}

/*
 * libkflush(7), Per-CPU rules: the switch-over is the CPU's, not the
 * variant's, so all of one CPU's rules for the tuned variants carry the
 * same one. The library sets it from the last such rule it tries and
 * test_memcpy_tuned.c expects the first; this is what makes them agree.
 */
Test(dispatch, cpu_rules_one_switch_over)
{
	for (size_t i = 0; i < nr_doc_rules; i++) {
		const struct doc_rule *a = &doc_rules[i];

		if (a->op != KFLUSH_OP_MEMCPY || !tuned_name(a->variant))
			continue;
		for (size_t j = i + 1; j < nr_doc_rules; j++) {
			const struct doc_rule *b = &doc_rules[j];

			if (b->op != KFLUSH_OP_MEMCPY || !tuned_name(b->variant) ||
			    strcmp(a->vendor, b->vendor) != 0 || a->family != b->family ||
			    b->model_max < a->model_min || b->model_min > a->model_max)
				continue;
			cr_expect(a->movsb_min == b->movsb_min && a->avoid_near == b->avoid_near,
				  "%s family %#x models %#x-%#x: %s from %zu B (near %d), %s from "
				  "%zu B (near %d)", a->vendor, a->family,
				  a->model_min > b->model_min ? a->model_min : b->model_min,
				  a->model_max < b->model_max ? a->model_max : b->model_max,
				  a->variant, a->movsb_min, a->avoid_near, b->variant, b->movsb_min,
				  b->avoid_near);
		}
	}
}
