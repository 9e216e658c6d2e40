// SPDX-License-Identifier: MIT
/*
 * Where pmemtest's results go: stdout through a stream that keeps the
 * cause of a failed write, --output files replaced only when the command
 * ends, and the checks and opening of every file it writes results into.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The first write error on stdout, kept: later calls see only ferror(). */
static int stdout_errno;

/*
 * --output into a regular file: stdout collects in an unlinked temporary
 * file and the named one is replaced only when the command ends (see
 * commit_output()), so that a usage error or a failure before anything was
 * printed leaves the user's file as it was.
 */
static struct {
	int fd;			/* the named file, opened without truncating; -1: none */
	const char *path;
	bool created;		/* this run created it: removed if nothing is kept */
} deferred = { -1, NULL, false };

/*
 * stdout's writes, through write(2) here rather than inside stdio, so that
 * the errno of the first that fails is kept: stdio only remembers that one
 * did, and by the time the output is flushed at the end errno is long gone
 * (a closed pipe reported as "Input/output error").
 */
static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!stdout_errno)
				stdout_errno = w < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

void cli_stdout_init(void)
{
	static const cookie_io_functions_t io = { .write = stdout_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		return;		/* stdio's own stdout, errno and all */
	/* As stdio would: line by line on a terminal, in blocks elsewhere. */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
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

int cli_copy_fd(int from, int to)
{
	char buf[65536];
	ssize_t r;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -1;
	while ((r = read(from, buf, sizeof(buf))) != 0) {
		const char *p = buf;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (r > 0) {
			ssize_t w = write(to, p, (size_t)r);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;
				return -1;
			}
			p += w;
			r -= w;
		}
	}
	return 0;
}

/*
 * The command ended: replace the --output file with what stdout collected
 * when it succeeded or printed something (a failed verification still
 * reports), else leave the file alone and remove it if this run made it.
 * 0, or -1 after one line on stderr.
 */
static int commit_output(bool success)
{
	struct stat st;
	int fd = deferred.fd, rc = 0;

	if (fd < 0)
		return 0;
	deferred.fd = -1;
	cli_flush_stdout();	/* a failure is kept for cli_finish_stdout() to report */
	if (fstat(STDOUT_FILENO, &st) < 0)
		st.st_size = 0;
	if (success || st.st_size > 0) {
		int copied = ftruncate(fd, 0) < 0 || cli_copy_fd(STDOUT_FILENO, fd) < 0 ? -1 : 0;

		/* close() last: it may report the write error itself (NFS). */
		if (close(fd) < 0 || copied < 0) {
			cli_err_errno("--output %s", deferred.path);
			rc = -1;
		}
		return rc;
	}
	close(fd);
	if (deferred.created)
		unlink(deferred.path);
	return rc;
}

/* exit() without cli_finish_stdout(): keep what was printed, if anything. */
static void commit_output_at_exit(void)
{
	commit_output(false);
}

int cli_finish_stdout(int rc)
{
	/* A full disk or closed pipe must not look like success. */
	if (cli_flush_stdout()) {
		fprintf(stderr, "%s: error writing standard output: %s\n",
			cli_progname, strerror(stdout_errno));
		rc = rc ? rc : 1;
	}
	if (commit_output(rc == 0) && !rc)
		rc = 1;
	return rc;
}

/* What an output may be: a file (created or truncated), a fifo or pipe, a tty or /dev/null. */
static bool output_kind_ok(mode_t mode)
{
	return S_ISREG(mode) || S_ISFIFO(mode) || S_ISCHR(mode);
}

/* A path given to write into: refused by its kind before it is opened. */
static int check_output_kind(const char *what, const char *path, bool *exists)
{
	struct stat st;

	*exists = stat(path, &st) == 0;
	if (*exists) {
		if (!output_kind_ok(st.st_mode)) {
			cli_err("%s %s: is a %s, not a file to write into", what, path,
				cli_file_kind(st.st_mode));
			return -1;
		}
	} else if (errno != ENOENT) {
		cli_err_errno("%s %s", what, path);
		return -1;
	}
	return 0;
}

int cli_check_output(const char *what, const char *path)
{
	char *dir, *slash;
	bool exists;
	int rc;

	if (check_output_kind(what, path, &exists))
		return -1;
	if (exists) {
		if (access(path, W_OK) == 0)
			return 0;
		cli_err_errno("%s %s", what, path);
		return -1;
	}
	dir = strdup(path);
	if (!dir)
		return 0;	/* the real open reports it */
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = 0;
	else
		*slash = 0;
	rc = access(dir, W_OK | X_OK);
	if (rc)
		cli_err_errno("%s %s: cannot create it in %s", what, path, dir);
	free(dir);
	return rc ? -1 : 0;
}

/*
 * The type first, as for --dev: a block device is somebody's disk, and
 * open() of a fifo for writing blocks until a reader comes, so it is opened
 * O_NONBLOCK, which fails with ENXIO instead when nobody reads it. A pipe
 * with its reader (a shell's >(...), /dev/stdout in a pipeline) works.
 * @truncate false keeps a file's contents; *@created says whether this
 * call made the file.
 */
static int open_output(const char *what, const char *path, bool truncate, bool *created)
{
	struct stat st;
	bool exists;
	int fd, fl;

	if (check_output_kind(what, path, &exists))
		return -1;
	*created = false;
	fd = -1;
	if (!exists) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
		*created = fd >= 0;
	}
	if (fd < 0 && (exists || errno == EEXIST))
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
	if ((truncate && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		cli_err_errno("%s %s", what, path);
		close(fd);
		if (*created)
			unlink(path);
		return -1;
	}
	return fd;
}

int cli_open_output(const char *what, const char *path)
{
	bool created;

	return open_output(what, path, true, &created);
}

int cli_redirect_stdout(const char *path)
{
	bool created;
	int fd = open_output("--output", path, false, &created), out = fd;
	struct stat st;
	FILE *tmp = NULL;

	if (fd < 0)
		return 1;
	/* A fifo, a pipe, a terminal, /dev/null: written as it goes. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		tmp = tmpfile();
		if (!tmp) {
			cli_err_errno("--output %s: a temporary file for the output", path);
			goto fail;
		}
		out = fileno(tmp);
	}
	if (cli_flush_stdout() || dup2(out, STDOUT_FILENO) < 0) {
		cli_err_errno("--output %s", path);
		goto fail;
	}
	if (tmp) {
		fclose(tmp);
		deferred.fd = fd;
		deferred.path = path;
		deferred.created = created;
		atexit(commit_output_at_exit);
	} else {
		close(fd);
	}
	return 0;
fail:
	if (tmp)
		fclose(tmp);
	close(fd);
	if (created)
		unlink(path);
	return 1;
}
