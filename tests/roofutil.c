// SPDX-License-Identifier: MIT
/* The roof tests' parameters (roofutil.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "roofutil.h"

struct criterion_test_params roof_test_params(void)
{
	static struct roof_param p[2 * ROOF_MAX_STRATEGIES];
	static const unsigned int uses[2] = { ROOF_COPY, ROOF_FILL };
	size_t n = 0;

	for (size_t u = 0; u < 2; u++) {
		const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
		size_t ns = roof_strategies(uses[u], s, ROOF_MAX_STRATEGIES);

		for (size_t i = 0; i < ns; i++) {
			p[n].use = uses[u];
			snprintf(p[n].name, sizeof(p[n].name), "%s", s[i]->name);
			n++;
		}
	}
	return cr_make_param_array(struct roof_param, p, n);
}

const struct roof_strategy *roof_test_find(const struct roof_param *p)
{
	const struct roof_strategy *s[ROOF_MAX_STRATEGIES];
	size_t ns = roof_strategies(p->use, s, ROOF_MAX_STRATEGIES);

	for (size_t i = 0; i < ns; i++)
		if (!strcmp(s[i]->name, p->name))
			return s[i];
	cr_assert_fail("roof strategy %s is gone", p->name);
	return NULL;
}
