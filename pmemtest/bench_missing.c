// SPDX-License-Identifier: MIT
/*
 * TEMPORARY -- branch "pmemtest" only. copy-bench and clear-bench are
 * written in another branch; these stubs only let this branch link. The
 * lead deletes this file (and its line in pmemtest/local.mk) at merge.
 */
#include <stdio.h>

#include "pmemtest.h"
#include "util.h"

int cmd_copy_bench(const struct pm_global *g, int argc, char **argv)
{
	(void)g; (void)argc; (void)argv;
	pm_err("copy-bench: not built in this branch");
	return PM_EXIT_FAIL;
}

int cmd_clear_bench(const struct pm_global *g, int argc, char **argv)
{
	(void)g; (void)argc; (void)argv;
	pm_err("clear-bench: not built in this branch");
	return PM_EXIT_FAIL;
}
