/* SPDX-License-Identifier: MIT */
/*
 * libkflush(7), DISPATCH, Per-CPU rules, copied by hand into a table, and
 * this host's CPU read with CPUID here, never from the library: the
 * expectations of tests/test_cpu_rules.c (the rule function on synthetic
 * CPUs), tests/test_dispatch.c (which variant this CPU binds) and
 * tests/test_memcpy_tuned.c (what "tuned" runs on this one).
 */
#ifndef KFLUSH_TESTS_DOC_RULES_H
#define KFLUSH_TESTS_DOC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "kflush.h"

/*
 * Vendor, family, models, operation, variant; for memcpy "tuned" and
 * "tuned_prefetchw" its tuning, else 0.
 */
struct doc_rule {
	const char *vendor;
	unsigned int family, model_min, model_max;
	enum kflush_op op;
	const char *variant;
	size_t movsb_min;	/* rep movsb from this many bytes */
	int avoid_near;		/* not when (dst - src) mod 64 is 1..31 */
};

extern const struct doc_rule doc_rules[];
extern const size_t nr_doc_rules;

/* libkflush(7), Variants, tuned: the switch-over on a CPU without a rule. */
#define DOC_TUNED_DEFAULT_MIN 2048

/*
 * The documented rules for one CPU and operation, in the order they are
 * tried (an entry "X, else Y" is two): the @nth, 0 first, or NULL.
 */
const struct doc_rule *doc_rule_for(const char *vendor, unsigned int family, unsigned int model,
				    enum kflush_op op, unsigned int nth);

/*
 * Whether the library in this process applies its rules: not under
 * KFLUSH_CPU_RULES=0 (libkflush(7), ENVIRONMENT).
 */
int doc_rules_on(void);

/* CPUID(1).EAX for a family and model, as the SDM and APM encode them. */
uint32_t signature(unsigned int family, unsigned int model);

/* This host; doc_read_host() fills it. */
extern struct doc_host {
	char vendor[13];
	unsigned int family, model;
} doc_host;

void doc_read_host(void);

#endif /* KFLUSH_TESTS_DOC_RULES_H */
