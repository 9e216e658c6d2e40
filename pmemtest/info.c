// SPDX-License-Identifier: MIT
/* info: CPU features, bound variants, dax devices and pmem namespaces. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/devices.h"
#include "kflush.h"
#include "pmemtest.h"
#include "common/cli.h"
#include "common/output.h"

static json_object *features_json(uint64_t f)
{
	json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (f & (1ULL << i))
			json_object_array_add(a, json_object_new_string(kflush_cpu_feature_name(1ULL << i)));
	return a;
}

static void print_features(const char *label, uint64_t f)
{
	printf("%-22s", label);
	for (unsigned int i = 0; i < KFLUSH_CPU_NR_FEATURES; i++)
		if (f & (1ULL << i))
			printf(" %s", kflush_cpu_feature_name(1ULL << i));
	printf("\n");
}

static void dev_text(const struct devices_info *d, void *arg)
{
	char b1[32], b2[32];

	(void)arg;
	/* A devdax device is a character device, the others are disks. */
	printf("  %-10s %-8s %-6s size %-10s align %-8s map=%-3s numa %d",
	       d->chardev[0] ? d->chardev : d->blockdev[0] ? d->blockdev : d->ns,
	       d->region, d->mode, cli_fmt_bytes(d->size, b1, sizeof(b1)),
	       d->align ? cli_fmt_bytes(d->align, b2, sizeof(b2)) : "-", d->map, d->numa_node);
	if (d->chardev[0])
		printf(" target %d", d->target_node);
	printf(" %s\n", d->ndctl ? d->ns : "(no ndctl namespace)");
}

static void dev_json(const struct devices_info *d, void *arg)
{
	json_object *o = json_object_new_object();

	/* Like "daxctl/ndctl list": chardev for devdax, blockdev otherwise, never "". */
	if (d->chardev[0])
		json_object_object_add(o, "chardev", json_object_new_string(d->chardev));
	if (d->blockdev[0])
		json_object_object_add(o, "blockdev", json_object_new_string(d->blockdev));
	if (d->ns[0])
		json_object_object_add(o, "namespace", json_object_new_string(d->ns));
	json_object_object_add(o, "region", json_object_new_string(d->region));
	json_object_object_add(o, "mode", json_object_new_string(d->mode));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)d->size));
	json_object_object_add(o, "align", json_object_new_int64((int64_t)d->align));
	json_object_object_add(o, "map", json_object_new_string(d->map));
	json_object_object_add(o, "numa_node", json_object_new_int(d->numa_node));
	/* As "daxctl list" has it: a dax device's memory may sit on a node of its own. */
	if (d->chardev[0])
		json_object_object_add(o, "target_node", json_object_new_int(d->target_node));
	json_object_object_add(o, "ndctl_namespace", json_object_new_boolean(d->ndctl));
	json_object_array_add(arg, o);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pmemtest [--json] info\n"
		"\n"
		"CPU features (raw and after KFLUSH_HWCAPS), KFLUSH_CPU_RULES, the variant\n"
		"bound for every libkflush operation, and the dax devices and pmem\n"
		"namespaces found by libdaxctl / libndctl.\n");
}

int cmd_info(const struct pmemtest_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *hw = getenv("KFLUSH_HWCAPS"), *rules = getenv("KFLUSH_CPU_RULES");
	int c, n, w = 18;	/* the bound-variant column, widened below */

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return PMEMTEST_EXIT_OK;
		}
		cli_die_getopt("info", c, argv);
	}
	if (optind < argc)
		cli_die_usage("info: unexpected argument '%s'", argv[optind]);
	if (g->csv)
		cli_die_usage("info: --csv is not supported; use --json");

	if (g->json) {
		json_object *doc = output_doc_new("info", NULL, -1, NULL);
		json_object *ops = json_object_new_array();
		json_object *devs = json_object_new_array();

		json_object_object_add(doc, "cpu_features", features_json(kflush_cpu_features_raw()));
		json_object_object_add(doc, "cpu_features_masked", features_json(kflush_cpu_features()));
		json_object_object_add(doc, "kflush_hwcaps", hw ? json_object_new_string(hw) : NULL);
		json_object_object_add(doc, "kflush_cpu_rules",
				       rules ? json_object_new_string(rules) : NULL);
		json_object_object_add(doc, "cache_line", json_object_new_int((int)kflush_cache_line_size()));
		for (int op = 0; op < KFLUSH_NR_OPS; op++) {
			json_object *o = json_object_new_object(), *v = json_object_new_array();
			int bound = kflush_variant_bound((enum kflush_op)op);

			json_object_object_add(o, "op", json_object_new_string(kflush_op_name((enum kflush_op)op)));
			json_object_object_add(o, "bound", json_object_new_string(
				kflush_variant_name((enum kflush_op)op, (unsigned int)bound)));
			for (int i = 0; i < kflush_variant_count((enum kflush_op)op); i++) {
				json_object *x = json_object_new_object();

				json_object_object_add(x, "name", json_object_new_string(
					kflush_variant_name((enum kflush_op)op, (unsigned int)i)));
				json_object_object_add(x, "usable", json_object_new_boolean(
					kflush_variant_usable((enum kflush_op)op, (unsigned int)i) == 1));
				json_object_array_add(v, x);
			}
			json_object_object_add(o, "variants", v);
			json_object_array_add(ops, o);
		}
		json_object_object_add(doc, "operations", ops);
		devices_foreach(dev_json, devs);
		json_object_object_add(doc, "devices", devs);
		output_doc_print(doc);
		return PMEMTEST_EXIT_OK;
	}

	print_features("cpu features:", kflush_cpu_features_raw());
	print_features("after KFLUSH_HWCAPS:", kflush_cpu_features());
	printf("%-22s %s\n", "KFLUSH_HWCAPS:", hw ? hw : "(not set)");
	printf("%-22s %s\n", "KFLUSH_CPU_RULES:", rules ? rules : "(not set)");
	printf("%-22s %u\n", "cache line:", kflush_cache_line_size());
	printf("\nbound variants:\n");
	for (int op = 0; op < KFLUSH_NR_OPS; op++)
		for (int i = 0; i < kflush_variant_count((enum kflush_op)op); i++) {
			int len = (int)strlen(kflush_variant_name((enum kflush_op)op,
								  (unsigned int)i));

			w = len > w ? len : w;
		}
	for (int op = 0; op < KFLUSH_NR_OPS; op++) {
		int bound = kflush_variant_bound((enum kflush_op)op);

		printf("  %-24s %-*s variants:", kflush_op_name((enum kflush_op)op), w,
		       kflush_variant_name((enum kflush_op)op, (unsigned int)bound));
		for (int i = 0; i < kflush_variant_count((enum kflush_op)op); i++)
			printf(" %s%s", kflush_variant_name((enum kflush_op)op, (unsigned int)i),
			       kflush_variant_usable((enum kflush_op)op, (unsigned int)i) == 1 ? "" : "(unusable)");
		printf("\n");
	}
	printf("\ndax devices and pmem namespaces:\n");
	n = devices_foreach(dev_text, NULL);
	if (!n)
		printf("  none found (no /dev/dax* device, no pmem namespace): init-bench "
		       "uses its embedded namespaces\n");
	return PMEMTEST_EXIT_OK;
}
