// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *cli_progname = "pmemtest";

static void vmsg(const char *kind, const char *fmt, va_list ap, int errnum)
{
	cli_flush_stdout();
	fprintf(stderr, "%s: %s", cli_progname, kind);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap, 0);
	va_end(ap);
}

void cli_err_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, e);
	va_end(ap);
}

void cli_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void cli_die_perror(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, e);
	va_end(ap);
	exit(1);
}

void cli_die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
	exit(2);
}

/* The first write error on stdout, kept: later calls see only ferror(). */
static int stdout_errno;

void cli_die_getopt(const char *cmd, int c, char **argv)
{
	if (c == ':')
		cli_die_usage("%s: option '%s' needs an argument", cmd, argv[optind - 1]);
	cli_die_usage("%s: unknown option '%s' (see 'pmemtest %s --help')", cmd, argv[optind - 1],
		      cmd);
}

int cli_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (!stdout_errno)
			stdout_errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

int cli_finish_stdout(int rc)
{
	/* A full disk or closed pipe must not look like success. */
	if (cli_flush_stdout()) {
		fprintf(stderr, "%s: error writing standard output: %s\n",
			cli_progname, strerror(stdout_errno));
		return rc ? rc : 1;
	}
	return rc;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (!v)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	const char *digits = s;
	unsigned long long v;
	int base = 10;
	char *end;

	if (!s)
		return -EINVAL;
	/* Base 16 after 0x, else 10: "010" is ten, not C's octal eight. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		base = 16;
	}
	/* A digit first: strtoull() would skip blanks and take a sign ("-1" as 2^64 - 1). */
	if (base == 16 ? !isxdigit((unsigned char)digits[0]) : !isdigit((unsigned char)digits[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(digits, &end, base);
	if (*end)
		return -EINVAL;
	if (errno)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *cli_fmt_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	unsigned int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.4g %s", v, unit[u]);
	return buf;
}

uint64_t cli_mem_available(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

const char *cli_file_kind(unsigned int mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular file";
	case S_IFDIR: return "directory";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFBLK: return "block device";
	case S_IFCHR: return "character device";
	default: return "special file";
	}
}

/* What an output may be: a file (created or truncated), a fifo or pipe, a tty or /dev/null. */
static bool output_kind_ok(mode_t mode)
{
	return S_ISREG(mode) || S_ISFIFO(mode) || S_ISCHR(mode);
}

/*
 * The type first, as for --dev: a block device is somebody's disk, and
 * open() of a fifo for writing blocks until a reader comes, so it is opened
 * O_NONBLOCK, which fails with ENXIO instead when nobody reads it. A pipe
 * with its reader (a shell's >(...), /dev/stdout in a pipeline) works.
 */
int cli_open_output(const char *what, const char *path)
{
	struct stat st;
	int fd, fl;

	if (stat(path, &st) == 0) {
		if (!output_kind_ok(st.st_mode)) {
			cli_err("%s %s: is a %s, not a file to write into", what, path,
				cli_file_kind(st.st_mode));
			return -1;
		}
	} else if (errno != ENOENT) {
		cli_err_errno("%s %s", what, path);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == ENXIO)
			cli_err("%s %s: a fifo nobody reads (start its reader first)", what, path);
		else
			cli_err_errno("%s %s", what, path);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !output_kind_ok(st.st_mode)) {
		cli_err("%s %s: changed while it was opened: not a file to write into", what, path);
		close(fd);
		return -1;
	}
	/* As O_TRUNC would, on a file only: what it held is replaced. */
	if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		cli_err_errno("%s %s", what, path);
		close(fd);
		return -1;
	}
	return fd;
}

int cli_redirect_stdout(const char *path)
{
	int fd = cli_open_output("--output", path);

	if (fd < 0)
		return 1;
	if (cli_flush_stdout() || dup2(fd, STDOUT_FILENO) < 0) {
		cli_err_errno("--output %s", path);
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
