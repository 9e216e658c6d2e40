// SPDX-License-Identifier: MIT
/* The documented per-CPU rules and this host's CPUID (tests/doc_rules.h). */
#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#include "doc_rules.h"

const struct doc_rule doc_rules[] = {
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2", 0, 0 },
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2", 0, 0 },
	{ "AuthenticAMD", 0x1a, 0x00, 0xff, KFLUSH_OP_MEMCPY, "tuned", 768, 0 },
	{ "AuthenticAMD", 0x19, 0x01, 0x01, KFLUSH_OP_MEMCPY, "tuned", 2048, 1 },
	{ "AuthenticAMD", 0x19, 0x01, 0x01, KFLUSH_OP_COPY_SAFE, "movsq", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY, "avx2", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_COPY_SAFE, "movsq", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_ymm_short_cached",
	  0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached",
	  0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, "avx512", 0, 0 },
	{ "AuthenticAMD", 0x19, 0x11, 0x11, KFLUSH_OP_CLEAR_PAGES_FLUSHCACHE, "avx2", 0, 0 },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMCPY, "avx2", 0, 0 },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_CLEAR_PAGES, "rep_stosq_page", 0, 0 },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "AuthenticAMD", 0x17, 0x31, 0x31, KFLUSH_OP_MEMMOVE_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "GenuineIntel", 0x06, 0x8f, 0x8f, KFLUSH_OP_MEMCPY, "tuned", 384, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY, "tuned_prefetchw", 4096, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY, "tuned", 4096, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_COPY_SAFE, "erms", 0, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_x2", 0, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512", 0, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached", 0, 0 },
	{ "GenuineIntel", 0x06, 0xcf, 0xcf, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx2_short_cached", 0, 0 },
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY, "tuned_prefetchw", 4096, 0 },
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY, "tuned", 4096, 0 },
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMCPY_FLUSHCACHE, "avx512_movdir64b", 0, 0 },
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_MEMSET_FLUSHCACHE, "avx512_short_cached", 0, 0 },
	{ "GenuineIntel", 0x06, 0xa7, 0xa7, KFLUSH_OP_COPY_SAFE, "erms", 0, 0 },
};
const size_t nr_doc_rules = sizeof(doc_rules) / sizeof(doc_rules[0]);

int doc_rules_on(void)
{
	const char *v = getenv("KFLUSH_CPU_RULES");

	return !v || strcmp(v, "0") != 0;
}

uint32_t signature(unsigned int family, unsigned int model)
{
	uint32_t eax = (model & 0xf) << 4 | (model >> 4) << 16;

	if (family >= 0xf)
		return eax | 0xfU << 8 | (family - 0xf) << 20;
	return eax | family << 8;
}

const struct doc_rule *doc_rule_for(const char *vendor, unsigned int family, unsigned int model,
				    enum kflush_op op, unsigned int nth)
{
	for (size_t i = 0; i < nr_doc_rules; i++) {
		const struct doc_rule *r = &doc_rules[i];

		if (r->op == op && strcmp(r->vendor, vendor) == 0 && r->family == family &&
		    model >= r->model_min && model <= r->model_max && nth-- == 0)
			return r;
	}
	return NULL;
}

struct doc_host doc_host;

void doc_read_host(void)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	memcpy(doc_host.vendor, &b, 4);
	memcpy(doc_host.vendor + 4, &d, 4);
	memcpy(doc_host.vendor + 8, &c, 4);
	doc_host.vendor[12] = '\0';
	__cpuid(1, a, b, c, d);
	doc_host.family = (a >> 8) & 0xf;
	doc_host.model = (a >> 4) & 0xf;
	if (doc_host.family == 0xf)
		doc_host.family += (a >> 20) & 0xff;
	if (doc_host.family >= 6)
		doc_host.model |= ((a >> 16) & 0xf) << 4;
}
