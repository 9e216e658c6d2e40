/* SPDX-License-Identifier: MIT */
/*
 * The tests of pmemtest's roofs, parameterised over the strategies this
 * CPU runs (pmemtest/common/roof.c, from the raw CPUID features).
 */
#ifndef KFLUSH_TESTS_ROOFUTIL_H
#define KFLUSH_TESTS_ROOFUTIL_H

#include <criterion/parameterized.h>

#include "../pmemtest/common/roof.h"

struct roof_param {
	unsigned int use;	/* ROOF_COPY or ROOF_FILL */
	char name[32];		/* the strategy, looked up again in the test */
};

/* Every copy and fill strategy of this CPU's roofs, one parameter each. */
struct criterion_test_params roof_test_params(void);
/* The strategy @p names, for its use; fails the test when it is gone. */
const struct roof_strategy *roof_test_find(const struct roof_param *p);

#endif /* KFLUSH_TESTS_ROOFUTIL_H */
