// SPDX-License-Identifier: MIT
/*
 * Per-CPU dispatch rules: where measurement showed that the feature
 * precedence of each operation's list binds the wrong variant on a CPU,
 * the vendor/family/model and the variant to bind instead. One table;
 * libkflush(7), DISPATCH, "Per-CPU rules" gives the numbers behind each
 * entry. A rule only reorders: its variant is bound when the CPU, after
 * KFLUSH_HWCAPS, can run it; otherwise the CPU's next rule for the same
 * operation, in table order, and after the last the precedence, so
 * masking still overrides. Pure (no CPUID here), so tests/test_cpu_rules.c
 * can compile it in and feed it synthetic CPUs.
 */
#include "internal.h"

static const struct kflush_cpu_rule {
	const char *vendor;
	unsigned int family, model_min, model_max;
	enum kflush_op op;
	const char *variant;
	struct kflush_memcpy_tuning memcpy;	/* tuned's; one per CPU (libkflush(7)) */
} rules[] = {
	/*
	 * AMD Zen 5: the 32-byte NT stores beat the 64-byte ones for cold
	 * copies of 2 KiB and more, avx2 26-28 GB/s against avx512 19-20
	 * (movnti and kernel 24-25), measured in issue 10.
	 */
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2", { 0, 0 } },
	/*
	 * The same for the flush-move: its avx2 and avx512 variants run the
	 * flush-copy's own line and block loads and stores (flushcache_avx2.c,
	 * flushcache_avx512.c), so the copy's measurement is theirs. Not the
	 * flush-memset: it stores a register, loads nothing, and was not
	 * measured; the precedence binds it.
	 */
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2", { 0, 0 } },
	/*
	 * AMD Zen 5: rep movsb is slower than memcpy_orig below about
	 * 768 B (orig 1.6x faster at 256 B hot), issue 10.
	 */
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMCPY, "tuned", { 768, 0 } },
	/*
	 * AMD EPYC family 0x19 model 0x01 (Zen 3), measured here: rep movsb
	 * beats tuned's 16-byte loop from 2048 B on hot lines (it beat
	 * memcpy_orig from 384 B), and runs 10-25x slower than memcpy_orig
	 * whenever (dst - src) mod 64 is 1..31.
	 */
	{ "AuthenticAMD", 0x19, 0x01, 0x01, KFLUSH_OP_MEMCPY, "tuned", { 2048, 1 } },
	/*
	 * The same CPU, the fault-safe copy: its rep movsb variants crawl at
	 * those distances too (copy-bench copy-safe, hot random offsets, 1.12x
	 * movsq's time at 64 B to 2.4x at 16 KiB), while at distance 0 rep
	 * movsb is at most 1.05x faster (fixed sizes, 100 B-4 KiB).
	 */
	{ "AuthenticAMD", 0x19, 0x01, 0x01, KFLUSH_OP_COPY_SAFE, "movsq", { 0, 0 } },
	/*
	 * AMD EPYC family 0x19 model 0x11 (Zen 4, Genoa), measured here (three
	 * default copy-bench runs of 11 rounds, CPU time, 2026-12-07), each
	 * variant by the class means over the fastest of its operation: fsrm,
	 * the precedence's, ran 0.37-0.50 hot from 97 B and 0.34 cold at 96 B
	 * and under (rep movsb crawls at random offsets here too, 9x at 64 KiB);
	 * tuned 0.51 hot from 2 KiB; avx2, tuned's AVX copy without rep movsb,
	 * 0.99-1.00 in every class.
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY, "avx2", { 0, 0 } },
	/*
	 * The same CPU, the fault-safe copy: movsq 0.98-1.00 of the fastest in
	 * both classes, rep_movsb 0.95-0.97, erms 0.95 at 97 B-2 KiB.
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_COPY_SAFE, "movsq", { 0, 0 } },
	/*
	 * The same CPU, the flush-copy: its 64-byte NT stores run as two
	 * 32-byte halves, and avx512, the precedence's, ran 0.82-0.95 of the
	 * fastest cold from 2 KiB and 0.85-0.91 at 96 B and under; there
	 * avx512_x2's masked short copies led, avx2_short_cached at 97 B-2
	 * KiB and avx2's lines from 2 KiB (the default runs with this CPU's
	 * memcpy rule bound, which the all-cached calls copy with).
	 * avx512_ymm_short_cached has all three (flushcache_avx512.c) and
	 * avx2's lines in two streams from 8 KiB, the best roof here
	 * (avx2_x2): 0.97-1.00 in every class, 1.00 cold (three sweep and
	 * bulk runs, 11 rounds, CPU time); bulk 1.08-1.25x PMDK. Without
	 * avx512bw, avx2_short_cached: 0.99-1.00 in every class of the same
	 * runs among the variants left, where avx2 ran 0.86-0.88 hot at 96 B
	 * and under and avx512 0.89-0.92 cold at 97 B-2 KiB.
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_ymm_short_cached",
	  { 0, 0 } },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, the flush-fill: avx512_short_cached 1.00 of the
	 * fastest in every class but hot 97 B-2 KiB (0.92-0.97, where avx512
	 * led); avx512, the precedence's, 0.81-0.83 cold at 97 B-2 KiB and
	 * 0.83-0.85 cold at 96 B and under. Without avx512bw,
	 * avx2_short_cached: 1.00 cold in every class, 0.93-0.96 hot at 97 B-2
	 * KiB (six default runs, before and after the memcpy rule).
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached",
	  { 0, 0 } },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, the flush-move: avx2_short_cached 0.97-1.00 cold in
	 * every class, 0.89-0.93 hot at 97 B-2 KiB; avx512, the precedence's,
	 * 0.69-0.80 cold from 2 KiB; avx2 0.86-0.90 cold at 97 B-2 KiB (six
	 * default runs).
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, clear_pages_flushcache: clzero, the precedence's, ran
	 * cold behind the 64-byte NT stores (avx512 1.00-1.14x its speed at 2
	 * MiB and 1 GiB, 0.95-1.12x at 4 KiB; three clear-bench runs of 11
	 * rounds, CPU time) and tied hot (0.97-1.04x); avx2 0.93-1.14x cold.
	 */
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, "avx512", { 0, 0 } },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, "avx2", { 0, 0 } },
	/*
	 * AMD EPYC family 0x17 model 0x31 (Zen 2, Rome), measured here: no
	 * erms or fsrm, so the precedence binds orig, which ran 0.61-0.89x
	 * glibc's memcpy hot from 128 B at fixed sizes, 0.38-0.80x at random
	 * ones. rep movsb took 680-1150 ns for 2 KiB L1-hot whenever (dst -
	 * src) mod 64 is 1..31 (glibc 22-29); at distance 0 it beat the AVX
	 * copy (one line per pass then) in L2 (1.09-1.12x) and lost in L1
	 * (0.6-0.9x). So avx2:
	 * tuned's AVX copy, never rep movsb (1.3-1.9x orig hot, libkflush(7)).
	 */
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMCPY, "avx2", { 0, 0 } },
	/*
	 * The same CPU, clear_pages: one rep stosq over the extent ran
	 * 0.78-0.84x the speed of one per page cold at 2 MiB-1 GiB and 0.91x
	 * hot at 2 MiB (pmemtest clear-bench, its rep_stosq_page roof); a
	 * direct timing of rep stosq in chunks over 256 MiB cold held 12.8-13.0
	 * GB/s for chunks of 4-64 KiB, 12.3 at 256 KiB, 10.6-10.9 from 2 MiB.
	 */
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_CLEAR_PAGES, "rep_stosq_page", { 0, 0 } },
	/*
	 * The same CPU, the flush-copy and flush-fill: a call below 1 KiB with
	 * a sub-word edge stored its cached edge lines and NT lines between
	 * them, which ran 0.60-0.76x glibc memcpy plus kflush_flush at random
	 * sizes and offsets of 96-256 B cold and 0.40-0.70x hot (fills
	 * 0.43-0.64x cold); all through the cache below 768 B, copies ran
	 * 1.15-1.54x as fast cold at 96-512 B and fills 1.2-1.9x (copy-bench
	 * sweep and set, avx2_short_cached beside avx2, flushcache_entry.h).
	 * Calls without such an edge are unchanged. From 768 B (fills: 384 B)
	 * the variant stores every byte NT, where avx2 keeps cached edge
	 * lines to 1 KiB: cold copies of 768 B-1 KiB took 0.73-0.92 of the
	 * time, fills of 512 B-1 KiB 0.34-0.58.
	 */
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, the flush-move: a backward move of 256-767 B with a
	 * partial edge line, cached edges and NT lines, ran 0.55-0.72x glibc
	 * memmove plus kflush_flush cold; all through the cache 1.45-1.64x
	 * as fast cold and 1.07-1.43x hot (memmove_flushcache.h).
	 */
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/* Intel Sapphire Rapids: rep movsb catches memcpy_orig at 384 B (stop 6). */
	{ "GenuineIntel", 0x06, 0x8f, 0x8f, KFLUSH_OP_MEMCPY, "tuned", { 384, 0 } },
	/*
	 * Intel Emerald Rapids, measured here: tuned's aligned 32-byte loop
	 * beats rep movsb up to 4 KiB hot and cold (1.02-1.29x hot fixed
	 * sizes, 1.00-1.51x cold at 512 B-3 KiB) and loses cold from 6 KiB
	 * (0.88-0.97x); rep movsb has no near-distance crawl here. With the
	 * destination's lines asked for at once, as on model 0xa7 below,
	 * 1.14-1.22x tuned's speed hot and 1.16-1.37x cold up to 2 KiB,
	 * 1.00-1.05x from there (three copy-bench memcpy runs, 2026-12-06).
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY, "tuned_prefetchw", { 4096, 0 } },
	/*
	 * Where prefetchw is hidden or masked, tuned, not the precedence's
	 * fsrm: the numbers above against rep movsb were tuned's; on the
	 * guest with prefetchw, masked, tuned over fsrm hot 1.03-1.56x at
	 * 96 B and under, 1.15-1.27x at 97 B-2 KiB, 1.01-1.02x above; cold
	 * 0.93-0.99x, 1.01-1.14x, 0.99-1.03x (three copy-bench memcpy runs).
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY, "tuned", { 4096, 0 } },
	/*
	 * The same CPU, the fault-safe copy, measured on a guest of it without
	 * movdir64b: erms (moves below 64 B, rep movsb from there) 1.02-1.05x
	 * rep_movsb's speed hot in every class of four copy-bench copy-safe
	 * runs (11 rounds, CPU time), a tie cold; as on model 0xa7.
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_COPY_SAFE, "erms", { 0, 0 } },
	/*
	 * The same CPU, the flush-copy: avx512's lines in two streams from
	 * 8 KiB (avx512_x2, flushcache_avx512.c), three copy-bench sweep and
	 * bulk runs (11 rounds, CPU time, 2026-12-06), its speed over
	 * avx512's: cold 1.05-1.06x at random sizes and 1.09-1.11x at fixed
	 * ones from 8 KiB, bulk 1-256 MiB 1.09-1.11x (PMDK 0.99-1.01x avx512);
	 * hot 0.99-1.00x; below 2 KiB avx512_movdir64b's short paths, 1.04x
	 * cold at 96 B and under, 0.99-1.01x elsewhere.
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_x2", { 0, 0 } },
	/*
	 * Without avx512bw (KFLUSH_HWCAPS=-avx512bw), avx512, the precedence's
	 * choice, named so that the next rule does not take that case; it won
	 * when measured: avx2_short_cached ran 0.91-0.95x its speed cold
	 * from 2 KiB (avx2 0.93, movdir64b 0.88), though 1.00-1.06x hot at
	 * 96 B and under, 1.03-1.08x hot at 97 B-2 KiB and 0.98-1.01x cold
	 * below 2 KiB (three copy-bench sweep runs, 11 rounds, CPU time,
	 * 2026-12-07). Without avx512f too (a guest that hides AVX-512, or
	 * KFLUSH_HWCAPS=-avx512f), avx2_short_cached ran 1.02-1.09x the
	 * precedence's avx2 hot at 96 B and under, 1.01-1.05x cold, 1.00-1.04x
	 * hot and 1.00-1.01x cold at 97 B-2 KiB and 1.00x from 2 KiB (three
	 * runs more, 2026-12-07).
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512", { 0, 0 } },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, the flush-fill: avx512_short_cached (model 0xa7's
	 * rule below, which has the reasons) 1.09-1.10x avx512's speed cold
	 * at 96 B and under, 1.05-1.08x cold at 97 B-2 KiB, 1.02-1.04x hot at
	 * 96 B and under, 0.98-0.99x hot at 97 B-2 KiB and 0.99-1.00x from
	 * 2 KiB (three copy-bench set runs, 11 rounds, CPU time, 2026-12-06).
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached",
	  { 0, 0 } },
	/*
	 * Without avx512bw, avx2_short_cached, not the precedence's avx512:
	 * 1.03-1.04x avx512's speed cold and 1.01-1.03x hot at 96 B and under
	 * (avx512 failed the bound-vs-fastest target cold there in each run),
	 * 0.98-1.02x cold and 0.99x hot at 97 B-2 KiB, 1.00-1.02x from 2 KiB
	 * (three copy-bench set runs under KFLUSH_HWCAPS=-avx512bw, 11
	 * rounds, CPU time, 2026-12-07). Without avx512f too: 1.02-1.08x
	 * avx2's speed hot and 1.04-1.05x cold at 96 B and under, 0.98-1.03x
	 * hot and 0.99-1.02x cold at 97 B-2 KiB, 0.99-1.00x from 2 KiB (three
	 * runs more, 2026-12-07).
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached",
	  { 0, 0 } },
	/*
	 * Family 6 model 0xa7 as a KVM guest reports it ("Intel(R) Xeon(R)
	 * Processor", avx512_fp16, amx, movdir64b, 480 MiB L3), measured
	 * here: tuned 1.5-1.8x rep movsb at 192-256 B hot, its loop ahead
	 * up to 3 KiB hot and cold, a tie at 4 KiB, behind cold from 6 KiB
	 * (0.93-0.97x). With the destination's lines asked for at once
	 * (tuned_prefetchw, memcpy.S), 1.19x tuned's speed hot at 1-96 B and
	 * 1.27-1.28x cold, 1.10x and 1.15-1.16x at 97 B-2 KiB, where tuned
	 * had run 0.97x avx2 hot and 0.94x erms cold at 1-96 B.
	 */
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY, "tuned_prefetchw", { 4096, 0 } },
	/* Without prefetchw, tuned: 1.5-1.8x rep movsb, as above. */
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY, "tuned", { 4096, 0 } },
	/*
	 * The same CPU, the flush-copy: movdir64b lines in two streams from
	 * 8 KiB, where two-stream copies ran cold 1.07-1.23x PMDK's speed and
	 * the avx512 block 0.97-1.07x, hot within 0.93-1.02 of one stream
	 * (flushcache_avx512.c has the numbers).
	 */
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_movdir64b", { 0, 0 } },
	/*
	 * The same CPU, the flush-fill: avx512 keeps cached edge lines to 1
	 * KiB and sends short fills with a sub-word edge through NT words;
	 * avx512_short_cached, which does neither (avx2_short_cached's rule
	 * with avx512's lines), took cold random fills 0.43-0.54 of avx512's
	 * time at 384 B-1.25 KiB and 0.80-0.96 below, but hot random ones
	 * 1.22-1.38x at 288-960 B, where NT edges wait for cached lines to
	 * leave (copy-bench set, three runs of 11 rounds). Cold is what an
	 * NT fill is for; hot destinations have kflush_memset_temporal().
	 */
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached",
	  { 0, 0 } },
	/*
	 * The same CPU, the fault-safe copy: erms (a move loop below 64 B,
	 * rep movsb from there) took 0.92-1.00x rep_movsb's time at every
	 * size of copy-bench copy-safe hot (8-256 B, 11 rounds, CPU time),
	 * 0.98x cold by the geometric mean.
	 */
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_COPY_SAFE, "erms", { 0, 0 } },
};

/**
 * kflush_cpu_rule() - one of the per-CPU rules for one operation
 * @vendor: the CPUID(0) vendor string ("AuthenticAMD")
 * @eax1: CPUID(1).EAX, the family/model/stepping signature
 * @op: the operation
 * @nth: which of the CPU's rules for @op, 0 first: where a CPU has more
 *	 than one, they are tried in table order and the first variant the
 *	 CPU can run is bound (registry.c, bind())
 * @tuning: set to the memcpy switch-over when that rule names "tuned" or
 *	    "tuned_prefetchw" (both run with it), untouched otherwise
 *
 * Not exported.
 *
 * Return: the name of the variant to prefer, or NULL if the CPU has fewer
 * than @nth + 1 rules for @op.
 */
KFLUSH_EARLY const char *kflush_cpu_rule(const char *vendor, uint32_t eax1, enum kflush_op op,
					 unsigned int nth, struct kflush_memcpy_tuning *tuning)
{
	unsigned int family = kflush_cpu_family(eax1), model = kflush_cpu_model(eax1);

	for (unsigned int i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct kflush_cpu_rule *r = &rules[i];

		if (r->op == op && r->family == family && model >= r->model_min &&
		    model <= r->model_max && kflush_same(vendor, r->vendor) && nth-- == 0) {
			if (tuning && (kflush_same(r->variant, "tuned") ||
				       kflush_same(r->variant, "tuned_prefetchw")))
				*tuning = r->memcpy;
			return r->variant;
		}
	}
	return NULL;
}
