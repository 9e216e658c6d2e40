/* SPDX-License-Identifier: MIT */
/* pmemtest: shared declarations between the command files. */
#ifndef PMEMTEST_H
#define PMEMTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes: 0 success, 1 failure, 2 usage error. */
#define PMEMTEST_EXIT_OK	0
#define PMEMTEST_EXIT_FAIL	1
#define PMEMTEST_EXIT_USAGE	2

/* Global options, parsed before the command name. */
struct pmemtest_global {
	const char *dev;	/* --dev PATH, or NULL for the embedded default */
	bool json;		/* --json */
	bool csv;		/* --csv */
	bool quiet;		/* --quiet */
	bool force;		/* --force */
	const char *output;	/* --output FILE: stdout goes there */
};

/* Commands: argv[0] is the command name; return an exit code. */
int cmd_info(const struct pmemtest_global *g, int argc, char **argv);
int cmd_init_bench(const struct pmemtest_global *g, int argc, char **argv);
int cmd_copy_bench(const struct pmemtest_global *g, int argc, char **argv);
int cmd_clear_bench(const struct pmemtest_global *g, int argc, char **argv);
int cmd_plot(const struct pmemtest_global *g, int argc, char **argv);

#endif /* PMEMTEST_H */
