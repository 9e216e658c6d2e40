// SPDX-License-Identifier: MIT
/* pmemtest: for now only "info" (CPU features and bound variants). */
#include <stdio.h>
#include <string.h>

#include "kflush.h"
#include "pmemtest.h"

static void print_features(const char *label, uint64_t f)
{
	printf("%-18s", label);
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (f & (1ULL << i))
			printf(" %s", kflush_cpu_feature_name(1ULL << i));
	printf("\n");
}

static int show_info(void)
{
	print_features("cpu features:", kflush_cpu_features_raw());
	print_features("after mask:", kflush_cpu_features());
	printf("%-18s %u\n", "cache line:", kflush_cache_line_size());
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		int bound = kflush_variant_bound(op);

		printf("%-24s bound: %-12s variants:", kflush_op_name(op),
		       kflush_variant_name(op, (unsigned int)bound));
		for (int i = 0; i < kflush_variant_count(op); i++)
			printf(" %s%s", kflush_variant_name(op, (unsigned int)i),
			       kflush_variant_usable(op, (unsigned int)i) ? "" : "(unusable)");
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pm_global g = { 0 };
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--json") == 0)
			g.json = true;
		else if (strcmp(argv[i], "--csv") == 0)
			g.csv = true;
		else
			break;
	}
	if (i < argc && strcmp(argv[i], "info") == 0)
		return show_info();
	if (i < argc && strcmp(argv[i], "copy-bench") == 0)
		return cmd_copy_bench(&g, argc - i, argv + i);
	if (i < argc && strcmp(argv[i], "clear-bench") == 0)
		return cmd_clear_bench(&g, argc - i, argv + i);
	fprintf(stderr, "usage: pmemtest [--json|--csv] info|copy-bench|clear-bench [options]\n");
	return 2;
}
