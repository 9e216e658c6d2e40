// SPDX-License-Identifier: MIT
/*
 * pmemtest plot: a copy-bench or clear-bench CSV into a PNG or SVG through
 * gnuplot and the installed plot.gp (one panel per mode, cache state and
 * layout; the bound variant and the best peer emphasised).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmemtest.h"
#include "common/cli.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: pmemtest [--output FILE] plot [options] RESULTS.csv\n"
"\n"
"Plot the median rows of a copy-bench or clear-bench --csv file: GB/s against\n"
"size, log axis, one panel per mode, cache state and layout; the bound\n"
"libkflush variant thick, the best peer thick and dashed, the roof dotted, the\n"
"rest thin and grey. Each panel is 640 x 420 pixels, the panels in\n"
"ceil(sqrt(n)) columns. Needs gnuplot.\n"
"\n"
"  --output FILE      the image (global option); .svg gives SVG, anything else\n"
"                     PNG; default: RESULTS with .csv replaced by .png\n"
"  --mode NAME        only that mode's panels (e.g. sweep)\n"
"  --cache hot|cold   only that cache state's\n"
"  --layout NAME      only that layout's (fixed, random, packed, extent)\n"
"  -h, --help         this text\n"
"\n"
"The script is %s (PMEMTEST_PLOT_GP overrides).\n", PMEMTEST_PLOT_GP);
}

/* What goes into a gnuplot string between single quotes, unescaped. */
static void check_arg(const char *what, const char *s)
{
	if (strpbrk(s, "'\\\n"))
		cli_die_usage("plot: %s '%s': quotes, backslashes and newlines are not supported",
			      what, s);
}

/*
 * The installed script, or when there is none and this pmemtest runs in
 * the build tree it was built in (pmemtest/pmemtest there), the source
 * tree's tools/plot.gp, so that plot works after tools/quickstart.sh
 * without an install.
 */
static const char *build_tree_script(const char *installed, char *buf, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (access(installed, R_OK) == 0)
		return installed;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return installed;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash || (strcmp(slash, "/pmemtest") && strcmp(slash, "/lt-pmemtest")))
		return installed;
	*slash = 0;
	/* libtool's real binary, behind the wrapper script, is in .libs. */
	slash = strrchr(exe, '/');
	if (slash && !strcmp(slash, "/.libs"))
		*slash = 0;	/* the build's pmemtest/ */
	if (PMEMTEST_SRCDIR[0] == '/')
		n = snprintf(buf, len, "%s/tools/plot.gp", PMEMTEST_SRCDIR);
	else
		n = snprintf(buf, len, "%s/../%s/tools/plot.gp", exe, PMEMTEST_SRCDIR);
	return n > 0 && (size_t)n < len && access(buf, R_OK) == 0 ? buf : installed;
}

/*
 * gnuplot writes a temporary image, copied over @out only once it has
 * succeeded: a CSV it fails on halfway must not cost the user an image
 * that was there. The name keeps @out's suffix, which picks the terminal.
 */
static char *temp_image(const char *out)
{
	const char *dir = getenv("TMPDIR"), *sfx;
	size_t len = strlen(out);
	char *t;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	sfx = len >= 4 && !strcmp(out + len - 4, ".svg") ? ".svg" : ".png";
	if (asprintf(&t, "%s/pmemtest-plot-XXXXXX%s", dir, sfx) < 0)
		cli_die("out of memory");
	fd = mkstemps(t, 4);
	if (fd < 0)
		cli_die_perror("plot: a temporary image in %s", dir);
	close(fd);
	return t;
}

/* The finished temporary image into @out, as the shell's > would. 0, or 1. */
static int install_image(const char *tmp, const char *out)
{
	int from = open(tmp, O_RDONLY | O_CLOEXEC), to;
	int rc = PMEMTEST_EXIT_FAIL;

	if (from < 0) {
		cli_err_errno("plot: %s", tmp);
		return rc;
	}
	to = cli_open_output("--output", out);
	if (to >= 0) {
		int copied = cli_copy_fd(from, to);

		/* close() last: it may report the write error itself (NFS). */
		if (close(to) == 0 && copied == 0)
			rc = PMEMTEST_EXIT_OK;
		else
			cli_err_errno("plot: writing %s", out);
	}
	close(from);
	return rc;
}

int cmd_plot(const struct pmemtest_global *g, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "cache", required_argument, NULL, 'c' },
		{ "layout", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = "", *cache = "", *layout = "", *in, *script;
	char *out, *tmp, *expr, tree_script[PATH_MAX], fd_path[32];
	const char *csv_path = fd_path;
	struct stat st, ost, fst;
	int c, status, csv;
	size_t len;
	pid_t pid;

	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'c': cache = optarg; break;
		case 'l': layout = optarg; break;
		case 'h':
			usage(stdout);
			return PMEMTEST_EXIT_OK;
		default:
			cli_die_getopt("plot", c, argv);
		}
	}
	if (optind != argc - 1)
		cli_die_usage("plot: give one CSV file (from --csv copy-bench or clear-bench)");
	if (g->json || g->csv)
		cli_die_usage("plot: %s does not apply: plot writes an image (--output names it)",
			      g->json ? "--json" : "--csv");
	in = argv[optind];
	script = getenv("PMEMTEST_PLOT_GP");
	if (!script || !*script)
		script = build_tree_script(PMEMTEST_PLOT_GP, tree_script, sizeof(tree_script));
	/*
	 * gnuplot reads the CSV once per panel, and would wait forever on a
	 * fifo or read /dev/zero to the end of time: a regular file only. The
	 * file checked is the file gnuplot reads: opened once here (a fifo
	 * without a writer does not block the open), checked, and handed to
	 * gnuplot as /dev/fd/N, which each read opens again. By path, the
	 * name could be pointed at a fifo between the check and gnuplot's
	 * reads, and the plot would hang; it is the way left where /dev/fd
	 * does not show the open file (no /proc mounted).
	 */
	csv = open(in, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (csv < 0 || fstat(csv, &st) < 0) {
		cli_err_errno("plot: %s", in);
		if (csv >= 0)
			close(csv);
		return PMEMTEST_EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_err("plot: %s: is a %s, not a CSV file", in, cli_file_kind(st.st_mode));
		close(csv);
		return PMEMTEST_EXIT_FAIL;
	}
	snprintf(fd_path, sizeof(fd_path), "/dev/fd/%d", csv);
	if (stat(fd_path, &fst) < 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino)
		csv_path = in;
	if (access(script, R_OK) < 0) {
		cli_err_errno("plot: the plot script %s", script);
		close(csv);
		return PMEMTEST_EXIT_FAIL;
	}
	len = strlen(in);
	if (g->output) {
		out = strdup(g->output);
	} else {
		out = malloc(len + 5);
		if (out) {
			memcpy(out, in, len + 1);
			if (len > 4 && !strcmp(out + len - 4, ".csv"))
				out[len - 4] = 0;
			strcat(out, ".png");
		}
	}
	if (!out)
		cli_die("out of memory");
	/* The image is written over the output only at the end: refuse it now. */
	if (stat(out, &ost) == 0) {
		if (cli_same_file(in, out))
			cli_die_usage("plot: --output %s is the CSV itself: the image would overwrite it",
				      out);
		if (!S_ISREG(ost.st_mode)) {
			cli_err("plot: --output %s: is a %s, not an image file", out,
				cli_file_kind(ost.st_mode));
			free(out);
			close(csv);
			return PMEMTEST_EXIT_FAIL;
		}
	}
	check_arg("file", in);
	check_arg("--mode", mode);
	check_arg("--cache", cache);
	check_arg("--layout", layout);
	tmp = temp_image(out);
	check_arg("TMPDIR", tmp);
	if (asprintf(&expr, "in='%s'; name='%s'; out='%s'; mode='%s'; cache='%s'; layout='%s'",
		     csv_path, in, tmp, mode, cache, layout) < 0)
		cli_die("out of memory");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		cli_die_perror("plot: fork");
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);	/* main() ignores it; gnuplot's pipes expect it */
		/* The CSV's descriptor, for gnuplot and the awk it runs. */
		if (fcntl(csv, F_SETFD, 0) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(expr);
	close(csv);
	if (waitpid(pid, &status, 0) < 0)
		cli_die_perror("plot: waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		cli_err("plot: gnuplot not found (Debian: apt-get install gnuplot-nox)");
		status = PMEMTEST_EXIT_FAIL;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		cli_err("plot: gnuplot failed on %s; %s was not written", in, out);
		status = PMEMTEST_EXIT_FAIL;
	} else {
		status = install_image(tmp, out);
	}
	unlink(tmp);
	free(tmp);
	if (!status && !g->quiet)
		fprintf(stderr, "%s: wrote %s\n", cli_progname, out);
	free(out);
	return status;
}
