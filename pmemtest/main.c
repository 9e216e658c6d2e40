// SPDX-License-Identifier: MIT
/*
 * pmemtest: replay and benchmark the kernel's persistent-memory paths.
 *
 *   pmemtest [global options] <command> [command options]
 *
 * Global options stop at the first non-option ("+" in the optstring), so a
 * command's own options never reach this parser; after the command name,
 * take_globals() lifts --dev, --json, --csv, --quiet (and their short
 * forms) and --output out of the command's arguments, so they mean the same anywhere.
 * Their short letters are therefore no command's own.
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflush.h"
#include "pmemtest.h"
#include "common/cli.h"

static const struct command {
	const char *name;
	int (*fn)(const struct pmemtest_global *g, int argc, char **argv);
	bool uses_dev;	/* --dev means something to it; else it is refused */
	const char *summary;
} commands[] = {
	{ "init-bench", cmd_init_bench, true,
	  "replay memmap_init_zone_device() for a namespace and time each method" },
	{ "info", cmd_info, false,
	  "CPU features, bound libkflush variants, dax devices and pmem namespaces" },
	{ "copy-bench", cmd_copy_bench, false,
	  "every flush-copy variant against PMDK, glibc and the roof over a size sweep" },
	{ "clear-bench", cmd_clear_bench, false,
	  "every page-clearing variant against PMDK, glibc and the roof" },
	{ "plot", cmd_plot, false,
	  "a copy-bench or clear-bench CSV as a PNG or SVG, through gnuplot" },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* A target or output named twice is a slip, not a choice: which one was meant? */
static const char *once(const char *opt, const char *had, const char *arg)
{
	if (had)
		cli_die_usage("%s given twice ('%s' and '%s')", opt, had, arg);
	return arg;
}

/*
 * Remove the global options from a command's arguments (argv[0] is the
 * command), into @g; returns the new argc. "--" ends the scan.
 */
static int take_globals(struct pmemtest_global *g, int argc, char **argv)
{
	int out = 1, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			g->json = true;
		} else if (!strcmp(a, "--csv") || !strcmp(a, "-c")) {
			g->csv = true;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			g->quiet = true;
		} else if (!strncmp(a, "--output=", 9)) {
			g->output = once("--output", g->output, a + 9);
		} else if (!strcmp(a, "--output")) {
			if (i + 1 >= argc)
				cli_die_usage("option '%s' needs an argument", a);
			g->output = once("--output", g->output, argv[++i]);
		} else if (!strncmp(a, "--dev=", 6)) {
			g->dev = once("--dev", g->dev, a + 6);
		} else if (!strcmp(a, "--dev") || !strcmp(a, "-d")) {
			if (i + 1 >= argc)
				cli_die_usage("option '%s' needs an argument", a);
			g->dev = once("--dev", g->dev, argv[++i]);
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (g->dev && !*g->dev)
			cli_die_usage("--dev needs a path");
		if (g->output && !*g->output)
			cli_die_usage("--output needs a file name");
	}
	while (i < argc)
		argv[out++] = argv[i++];
	argv[out] = NULL;
	return out;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pmemtest [global options] <command> [command options]\n"
		"\n"
		"Global options (all but -f, -h, -V also after the command):\n"
		"  -d, --dev PATH   init-bench's target: devdax device (/dev/daxX.Y), file on\n"
		"                   an fsdax filesystem, or ordinary file; default: the\n"
		"                   embedded namespaces. The other commands refuse it\n"
		"  -j, --json       machine-readable JSON on stdout\n"
		"  -c, --csv        CSV on stdout (every sample)\n"
		"  -q, --quiet      no progress bar, no notes on stderr\n"
		"      --output FILE  the table, CSV or JSON into FILE instead of stdout\n"
		"  -f, --force      allow writing to the target (init-bench --memmap dev);\n"
		"                   also accepted after init-bench, with the same effect\n"
		"  -h, --help       this help; 'pmemtest <command> --help' for a command\n"
		"  -V, --version    print the version\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-12s %s\n", "help", "this help, or 'help COMMAND' for a command's");
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
		{ "output",  required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 }
	};
	struct pmemtest_global g = { 0 };
	const struct command *cmd;
	int c, first, nargc;

	/*
	 * A reader that went away is a write error like a full disk, reported
	 * once with its cause (cli_finish_stdout()), not a silent death.
	 */
	signal(SIGPIPE, SIG_IGN);
	cli_stdout_init();
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:d:jcqfhV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg)
				cli_die_usage("--dev needs a path");
			g.dev = once("--dev", g.dev, optarg);
			break;
		case 'O':
			if (!*optarg)
				cli_die_usage("--output needs a file name");
			g.output = once("--output", g.output, optarg);
			break;
		case 'j': g.json = true; break;
		case 'c': g.csv = true; break;
		case 'q': g.quiet = true; break;
		case 'f': g.force = true; break;
		case 'h':
			usage(stdout);
			return cli_finish_stdout(PMEMTEST_EXIT_OK);
		case 'V':
			/* The library's own version: it can differ from the header's. */
			printf("pmemtest %s\nlibkflush %s (loaded; built against %d.%d.%d)\n",
			       PACKAGE_VERSION, kflush_version(NULL, NULL, NULL),
			       KFLUSH_VERSION_MAJOR, KFLUSH_VERSION_MINOR, KFLUSH_VERSION_PATCH);
			return cli_finish_stdout(PMEMTEST_EXIT_OK);
		case ':':
			cli_die_usage("option '%s' needs an argument", argv[optind - 1]);
		default:
			cli_die_usage("unknown global option '%s'", cli_bad_option(c, argv));
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return PMEMTEST_EXIT_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		static char help_opt[] = "--help";
		char *hargv[3];

		if (optind + 1 >= argc) {
			usage(stdout);
			return cli_finish_stdout(PMEMTEST_EXIT_OK);
		}
		if (optind + 2 < argc)
			cli_die_usage("help: one command at a time, not '%s'", argv[optind + 2]);
		cmd = find_command(argv[optind + 1]);
		if (!cmd)
			cli_die_usage("unknown command '%s'", argv[optind + 1]);
		hargv[0] = argv[optind + 1];
		hargv[1] = help_opt;
		hargv[2] = NULL;
		optind = 0;
		return cli_finish_stdout(cmd->fn(&g, 2, hargv));
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		cli_die_usage("unknown command '%s'", argv[optind]);
	first = optind;
	nargc = take_globals(&g, argc - first, argv + first);
	if (g.json && g.csv)
		cli_die_usage("--json and --csv conflict: choose one output format");
	/* Silently measuring DRAM when a device was named would mislead. */
	if (g.dev && !cmd->uses_dev)
		cli_die_usage("%s does not use --dev: only init-bench runs on a device "
			      "(copy-bench and clear-bench measure DRAM standing in for pmem)",
			      cmd->name);
	if (g.dev && g.output && cli_same_file(g.dev, g.output))
		cli_die_usage("--output %s is the --dev target: the results would overwrite it",
			      g.output);
	/* Everything the command prints on stdout goes to the file instead. */
	/* plot's --output is its image; gnuplot writes it. */
	if (g.output && cmd->fn != cmd_plot && cli_redirect_stdout(g.output))
		return PMEMTEST_EXIT_FAIL;
	/* Each command parses its own options from a fresh start. */
	optind = 0;
	return cli_finish_stdout(cmd->fn(&g, nargc, argv + first));
}
