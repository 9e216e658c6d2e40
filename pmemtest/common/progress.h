/* SPDX-License-Identifier: MIT */
/*
 * A progress line with an ETA on stderr, only when stderr is a terminal
 * (and not --quiet), as wide as the terminal; and Ctrl-C as a request to
 * stop after the current sample, so a command can print what it measured.
 */
#ifndef PMEMTEST_PROGRESS_H
#define PMEMTEST_PROGRESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The exit status after Ctrl-C, as a shell reports a SIGINT death. */
#define PROGRESS_EXIT_INTERRUPTED 130

struct progress {
	bool on;
	char label[32];
	uint64_t total, done;
	uint64_t t0, drawn;	/* ns: start, last redraw */
	double shown;		/* the fraction the line last showed */
};

/* @total units of work (bytes, runs); nothing is drawn when !on. */
void progress_begin(struct progress *p, const char *label, uint64_t total, bool quiet);
void progress_add(struct progress *p, uint64_t units);
/*
 * Work found on the way (a measurement taken again): @units more in the
 * total. The line does not step back for it: it holds, short of 100 %,
 * until the work done catches up; the ETA counts the new work at once.
 */
void progress_more(struct progress *p, uint64_t units);
/* The line at 100 % if all the work was done, then cleared. */
void progress_end(struct progress *p);

/* Catch SIGINT from now on; progress_interrupted() then says it came. */
void progress_catch_interrupt(void);
bool progress_interrupted(void);

#endif /* PMEMTEST_PROGRESS_H */
