// SPDX-License-Identifier: MIT
/*
 * pmemtest: replay and benchmark the kernel's persistent-memory paths.
 *
 *   pmemtest [global options] <command> [command options]
 *
 * Global options stop at the first non-option ("+" in the optstring), so a
 * command's own options never reach this parser.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmemtest.h"
#include "common/cli.h"

static const struct command {
	const char *name;
	int (*fn)(const struct pmemtest_global *g, int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "init-bench", cmd_init_bench,
	  "replay memmap_init_zone_device() for a namespace and time each method" },
	{ "info", cmd_info,
	  "CPU features, bound libkflush variants, dax devices and pmem namespaces" },
	{ "copy-bench", cmd_copy_bench,
	  "every flush-copy variant against PMDK, glibc and the roof over a size sweep" },
	{ "clear-bench", cmd_clear_bench,
	  "every page-clearing variant against PMDK, glibc and the roof" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pmemtest [global options] <command> [command options]\n"
		"\n"
		"Global options:\n"
		"  -d, --dev PATH   devdax device (/dev/daxX.Y), file on an fsdax filesystem,\n"
		"                   or ordinary file; default: the embedded namespaces\n"
		"  -j, --json       machine-readable JSON on stdout\n"
		"  -c, --csv        CSV on stdout (every sample)\n"
		"  -q, --quiet      no progress bar, no notes on stderr\n"
		"  -f, --force      allow writing to the target (init-bench --memmap dev);\n"
		"                   also accepted after init-bench, with the same effect\n"
		"  -h, --help       this help; 'pmemtest <command> --help' for a command\n"
		"  -V, --version    print the version\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n"
		"See pmemtest(1).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev",     required_argument, NULL, 'd' },
		{ "json",    no_argument,       NULL, 'j' },
		{ "csv",     no_argument,       NULL, 'c' },
		{ "quiet",   no_argument,       NULL, 'q' },
		{ "force",   no_argument,       NULL, 'f' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct pmemtest_global g = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:d:jcqfhV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg)
				cli_die_usage("--dev needs a path");
			g.dev = optarg;
			break;
		case 'j': g.json = true; break;
		case 'c': g.csv = true; break;
		case 'q': g.quiet = true; break;
		case 'f': g.force = true; break;
		case 'h':
			usage(stdout);
			return cli_finish_stdout(PMEMTEST_EXIT_OK);
		case 'V':
			printf("pmemtest (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return cli_finish_stdout(PMEMTEST_EXIT_OK);
		case ':':
			cli_die_usage("option '%s' needs an argument", argv[optind - 1]);
		default:
			cli_die_usage("unknown global option '%s'", argv[optind - 1]);
		}
	}
	if (g.json && g.csv)
		cli_die_usage("--json and --csv conflict: choose one output format");
	if (optind >= argc) {
		usage(stderr);
		return PMEMTEST_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			int first = optind, rc;

			/* Each command parses its own options from a fresh start. */
			optind = 0;
			rc = commands[i].fn(&g, argc - first, argv + first);
			return cli_finish_stdout(rc);
		}
	}
	cli_die_usage("unknown command '%s'", argv[optind]);
}
