/* SPDX-License-Identifier: MIT */
/* pmemtest: error reporting, option parsing and output helpers. */
#ifndef PMEMTEST_UTIL_H
#define PMEMTEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Set by main() before a command runs: the prefix of every message. */
extern const char *cli_progname;

/* One-line messages on stderr, prefixed with "pmemtest: ". */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* As cli_err(), followed by ": strerror(errno)". */
void cli_err_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A command's getopt_long() (optstring starting with ':') returned @c,
 * ':' or '?': one line naming the option in @argv, and exit 2.
 */
void cli_die_getopt(const char *cmd, int c, char **argv) __attribute__((noreturn));
/* The option getopt_long() returned '?' for: "-x" out of a group, or the argument. */
const char *cli_bad_option(int c, char **argv);

/* Print an error and exit: 1 for failures, 2 for usage errors. */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void cli_die_perror(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void cli_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Flush stdout: 0, or -1 when a write failed (now or before), the first
 * failure's errno kept for cli_finish_stdout(), which reports it in one line,
 * replaces the --output file (cli_redirect_stdout()) and gives the exit
 * code to use.
 */
int cli_flush_stdout(void);
/* Called first by main(): stdout through a stream that keeps the errno of a failed write. */
void cli_stdout_init(void);
int cli_finish_stdout(int rc);

/*
 * Parse a byte count: decimal digits with an optional K, M, G or T suffix
 * (powers of 1024; "KiB" style and a trailing "B" accepted). Returns 0, or
 * -EINVAL for anything unparseable, negative or zero, -ERANGE on overflow.
 */
int cli_parse_size(const char *s, uint64_t *out);
/* Parse a positive integer up to max. */
int cli_parse_uint(const char *s, unsigned long max, unsigned long *out);
/*
 * Parse any 64-bit value, 0 included: decimal (leading zeros are not
 * octal), or hexadecimal after 0x. -EINVAL for anything else, signs and
 * blanks included, -ERANGE above 2^64 - 1.
 */
int cli_parse_u64(const char *s, uint64_t *out);

/* "1.56 GiB" style, into buf. */
const char *cli_fmt_bytes(uint64_t n, char *buf, size_t len);

/* Whether both paths exist and are the same file (device and inode). */
bool cli_same_file(const char *a, const char *b);

/* "directory", "fifo", "block device"...: what a stat() mode says a path is. */
const char *cli_file_kind(unsigned int mode);

/*
 * Open @path to write results into (option @what), without waiting on it:
 * a file is created or truncated, a fifo or pipe needs its reader, a
 * character device is taken as it is; anything else is refused by its
 * kind. The descriptor (blocking, close-on-exec), or -1 after one line on
 * stderr.
 */
int cli_open_output(const char *what, const char *path);
/*
 * Whether @path could be opened by cli_open_output() later, without
 * touching it: its kind, and write permission on it or on the directory
 * that would hold it. 0, or -1 after one line on stderr.
 */
int cli_check_output(const char *what, const char *path);
/*
 * --output: standard output into @path, as cli_open_output(), except that
 * a regular file is replaced only by cli_finish_stdout() (or at exit), and
 * only when the command succeeded or printed something: until then stdout
 * collects in a temporary file. 0, or 1.
 */
int cli_redirect_stdout(const char *path);
/* Copy all of @from, from its start, to @to's offset. 0, or -1 with errno. */
int cli_copy_fd(int from, int to);

/* MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
uint64_t cli_mem_available(void);

#endif /* PMEMTEST_UTIL_H */
